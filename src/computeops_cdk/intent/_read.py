"""Intent text to plain data: YAML (its plain subset without PyYAML, the rest with it) and JSON,
both bounded.

JSON intents get the limits YAML intents have: duplicate keys, integer digits and depth.
"""

from __future__ import annotations

import json

from ..errors import IntentError, shown

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name too)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

__all__ = ["MAX_DEPTH", "MAX_DIGITS", "json_data", "yaml_data"]

MAX_DEPTH = 32
"""The deepest nesting an intent may have (a valid one is 5 levels deep)."""
MAX_DIGITS = 20
"""The longest integer read: every intent number is below 10**17, and int() of 5,000 digits raises."""


def yaml_data(text: str, *, source: str) -> Any:
    """The plain data of intent YAML ``text`` (``_yaml``'s rules); an IntentError names the line and
    column. The plain subset intents are written in is read without importing PyYAML
    (``_yaml_subset``, to the same data); everything else, errors included, is PyYAML's."""
    from ._yaml_subset import subset_data

    read, data = subset_data(text)
    if read:
        return data
    from ._yaml import yaml_data as parsed

    return parsed(text, source=source)


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # The JSON twin of _mapping_without_duplicates (json.loads keeps the last value silently).
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _json_int(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_DIGITS:
        raise ValueError(
            f"an integer of {len(literal.lstrip('-')):,} digits is out of range for every intent field"
        )
    return int(literal)


def json_data(text: str, file: str | Path) -> Any:
    """A JSON intent's data, with the limits YAML intents have (duplicate keys, digits, depth)."""
    try:
        data = json.loads(text, object_pairs_hook=_object_without_duplicates, parse_int=_json_int)
    except _DuplicateKey as err:
        raise IntentError(
            f"{file}: invalid JSON: duplicate key {shown(err.key)} (each field may appear once)"
        ) from None
    except json.JSONDecodeError as err:
        raise IntentError(
            f"{file}: invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}"
        ) from None
    except ValueError as err:  # _json_int's message
        raise IntentError(f"{file}: invalid JSON: {err}") from None
    except RecursionError:
        raise IntentError(
            f"{file}: invalid JSON: nested deeper than {MAX_DEPTH} levels (an intent is 5 levels deep)"
        ) from None
    if _depth_of(data) > MAX_DEPTH:
        raise IntentError(
            f"{file}: invalid JSON: nested deeper than {MAX_DEPTH} levels (an intent is 5 levels deep)"
        )
    return data


def _depth_of(data: Any) -> int:
    """The nesting depth of parsed JSON (iterative: no recursion on hostile input)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            break
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return deepest
