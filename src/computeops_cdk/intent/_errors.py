"""Turn pydantic's ValidationError into one IntentError naming the field path(s).

The user wrote YAML, not Python: messages quote the YAML path (``workload.serving.ttft_ms``), say what
is expected with the value that was given, and never mention pydantic.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ..errors import IntentError, did_you_mean, did_you_mean_text, shown

__all__ = ["LONE_SURROGATE", "intent_error"]

LONE_SURROGATE = (
    "holds a lone surrogate (an unpaired \\ud800-\\udfff escape), which is not Unicode text. To fix: "
    "write the character itself or a valid pair of escapes"
)
"""What a string holding a lone surrogate is told, a value's (``_base``) or a key's."""

_BOUNDS = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}


_MAX_KEY = 40
"""A field name longer than this is cut in a path (a pasted blob used as a key)."""
MAX_LISTED = 10
"""Problems an IntentError lists one by one; the rest are counted (10,000 unknown keys: one screen)."""


def _key(part: str) -> str:
    return part if len(part) <= _MAX_KEY else part[: _MAX_KEY - 3] + "..."


def _path(loc: Sequence[int | str], extra: str = "") -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{_key(str(part))}" if text else _key(str(part)))
    if extra:
        text += extra if extra.startswith("[") or not text else f".{extra}"
    return text


def _fields_at(model: type[BaseModel], loc: Sequence[int | str]) -> list[str]:
    """The field names (aliases where set) of the model found at ``loc`` under ``model``."""
    current: Any = model
    for part in loc:
        if isinstance(part, int) or current is None:
            continue
        field = current.model_fields.get(part) or next(
            (f for f in current.model_fields.values() if f.alias == part), None
        )
        current = _model_in(field.annotation) if field is not None else None
    if current is None:
        return []
    return [f.alias or name for name, f in current.model_fields.items()]


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _describe(error: ErrorDetails, model: type[BaseModel]) -> tuple[str, str, list[str]]:
    """(path, message, suggestions) for one pydantic error."""
    kind, ctx, loc = error["type"], error.get("ctx") or {}, error["loc"]
    got = error.get("input")
    if kind == "intent":
        return _path(loc, ctx.get("field", "")), str(ctx["message"]), list(ctx.get("suggestions", ()))
    if kind == "string_unicode" and isinstance(got, str):
        # Only a key gets here (every value is refused by the models' own check first): pydantic
        # cannot read the key as text, says so in its own words and names the mapping holding it.
        # The key's path, with the surrogate written as its escape (no output can hold it).
        key = _key(got.encode("utf-8", "backslashreplace").decode("utf-8"))
        return _path(loc, key), LONE_SURROGATE, []
    if kind in _BOUNDS:
        bound = next(v for k, v in ctx.items() if k in {"gt", "ge", "lt", "le"})
        return _path(loc), f"must be {_BOUNDS[kind]} {bound:g} (got {_shown(got)})", []
    if kind == "extra_forbidden":
        allowed = _fields_at(model, loc[:-1])
        name = _key(str(loc[-1]))
        hint = f" (allowed: {', '.join(allowed)})" if allowed else ""
        return _path(loc), f"unknown field{hint}", did_you_mean(name, allowed)
    if kind == "missing":
        return _path(loc), "required field is missing", []
    if kind == "literal_error":
        expected = str(ctx.get("expected", ""))
        choices = [c.strip().strip("'") for c in expected.replace(" or ", ", ").split(",")]
        if len(choices) == 1:
            return _path(loc), f"must be {expected} (got {_shown(got)})", []
        suggestions = did_you_mean(_key(got), choices) if isinstance(got, str) else []
        return _path(loc), f"must be one of {expected} (got {_shown(got)})", suggestions
    if kind == "too_short":
        least = ctx.get("min_length", 1)
        return (
            _path(loc),
            f"must list at least {least} item{'' if least == 1 else 's'} (got {_shown(got)})",
            [],
        )
    if kind == "string_too_short":
        least = ctx.get("min_length", 1)
        return _path(loc), "must not be empty" if least == 1 else f"must have at least {least} characters", []
    if kind == "string_too_long":
        length = len(got) if isinstance(got, str) else "more"
        return _path(loc), f"must be at most {ctx.get('max_length')} characters (got {length})", []
    if kind == "too_long":
        count = ctx.get("actual_length")
        got_text = f"{count:,}" if isinstance(count, int) else _shown(got)
        return _path(loc), f"must list at most {ctx.get('max_length')} items (got {got_text})", []
    if kind in _PLAIN:
        return _path(loc), f"{_PLAIN[kind]} (got {_shown(got)})", []
    if kind in {"tuple_type", "list_type"}:
        written = got[:40] if isinstance(got, str) else shown(got, limit=40)
        example = f"; write [{written}]" if isinstance(got, str | int | float) else ""
        return _path(loc), f"must be a list (got {_shown(got)}{example})", []
    if kind == "string_pattern_mismatch":
        return (
            _path(loc),
            _PATTERNS.get(str(ctx.get("pattern")), "has the wrong form") + f" (got {_shown(got)})",
            [],
        )
    return _path(loc), f"{error['msg']} (got {_shown(got)})", []


# The user wrote YAML: say what the value must be in YAML words (no "tuple", no class names).
_PLAIN = {
    "finite_number": "must be a finite number (not .nan or .inf)",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "string_type": "must be a string (quote it)",
    "dict_type": "must be a mapping of fields (key: value)",
    "model_type": "must be a mapping of fields (key: value)",
    "model_attributes_type": "must be a mapping of fields (key: value)",
}

_PATTERNS = {
    "^[a-z0-9]([a-z0-9-]*[a-z0-9])?$": (
        "must be lower-case letters, digits and '-', starting and ending with a letter or digit "
        "(e.g. 'support-chat')"
    ),
}


def _shown(value: Any) -> str:
    """The value as the user wrote it: YAML dates and other parsed scalars as text, not Python reprs.

    Cut at 80 characters without building the whole repr first (an alias bomb's repr is gigabytes):
    the path already says where the value is.
    """
    if value is None or isinstance(value, str | int | float | list | dict | tuple):
        return shown(value, limit=_MAX_SHOWN)
    plain = isinstance(value, datetime.date | datetime.time)
    return shown(str(value) if plain else value, limit=_MAX_SHOWN)


_MAX_SHOWN = 80


def intent_error(err: ValidationError, model: type[BaseModel]) -> IntentError:
    """One IntentError for every problem in ``err``: the first names the path, the rest follow
    (at most ``MAX_LISTED``; the others are counted)."""
    described = [_describe(e, model) for e in err.errors(include_url=False)]
    problems = _innermost(described)
    path, message, suggestions = problems[0]
    if len(problems) == 1:
        return IntentError(message, path=path, suggestions=suggestions)
    lines = [message + did_you_mean_text(suggestions)]
    lines += [f"  also {p or '(intent)'}: {m}{did_you_mean_text(s)}" for p, m, s in problems[1:MAX_LISTED]]
    if len(problems) > MAX_LISTED:
        lines.append(f"  and {len(problems) - MAX_LISTED:,} more problems (fix these first)")
    error = IntentError("\n".join(lines), path=path)
    error.suggestions = suggestions
    return error


def _innermost(described: list[tuple[str, str, list[str]]]) -> list[tuple[str, str, list[str]]]:
    """Drop a container's error that repeats an item's (``pricing: too short`` after ``pricing[0]``
    failed): linear in the number of errors (every ancestor of every path, in one set)."""
    ancestors: set[str] = set()
    for path, _, _ in described:
        for cut, char in enumerate(path):
            if char in ".[" and cut:
                ancestors.add(path[:cut])
    return [d for d in described if d[0] not in ancestors] or described
