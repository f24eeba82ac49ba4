"""JSON intent text to plain data, with the bounds YAML intents have: duplicate keys, integer
digits and depth."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import IntentError, shown
from ._bounds import MAX_DEPTH, MAX_DIGITS

__all__ = ["json_data"]


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json.loads keeps the last of two equal keys silently; in an intent that hides a typo.
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
