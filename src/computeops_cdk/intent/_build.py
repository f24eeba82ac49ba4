"""Build an intent model from a document: the fast path, and the reference models for the rest.

The fast path takes only what it can decide with certainty: every key a field's name or alias (once),
every value of its field's own Python type (``str``, ``int``, ``float`` or ``int`` for a number,
``bool`` for a flag, a list or tuple of ``str``, a mapping or an instance for a nested model) within
its bounds, and every rule (``_check``) passed. On anything else it gives up, and the pydantic models
generated from the same declarations (``_reference.py``) decide: they coerce what pydantic coerces
and report every problem with its path. So a document is accepted, converted and refused exactly as
the reference models do (``tests/intent/test_intent_fast_path.py`` compares the two).
"""

from __future__ import annotations

import math
import re

from ._fields import MISSING, FieldSpec, IntentModel, Refusal, is_text

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name too)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    M = TypeVar("M", bound=IntentModel)

__all__ = ["build", "built_fast"]


_NO: Any = object()
"""A value the fast path does not take (the reference models decide)."""

_EXACT_FLOAT = 2**53
"""Integers up to this convert to a float exactly; larger ones are left to the reference models."""

_patterns: dict[str, re.Pattern[str]] = {}


def build(cls: type[M], data: Any) -> M:
    """``cls`` built from the mapping ``data``; IntentError naming the path(s) on any problem."""
    made = built_fast(cls, data)
    if made is not None:
        return made
    from ._reference import validated  # pydantic: only for what the fast path does not take

    return validated(cls, data)


def built_fast(cls: type[M], data: Any) -> M | None:
    """``cls`` built from ``data`` without pydantic, or None when the reference models must decide."""
    if type(data) is not dict:
        return None
    try:
        data = cls._prepare(data)
    except Exception:  # a value whose comparison or format raises: the reference models report it
        return None
    keys = cls.__keys__
    values: dict[str, Any] = {}
    for key, given in data.items():
        spec = keys.get(key) if type(key) is str else None
        if spec is None or spec.name in values:
            return None  # an unknown field, or a field given by its name and its alias
        value = _value(spec, given)
        if value is _NO:
            return None
        values[spec.name] = value
    made = object.__new__(cls)
    fields = made.__dict__
    for spec in cls.__specs__:
        if spec.name in values:
            fields[spec.name] = values[spec.name]
        elif spec.default is not MISSING:
            fields[spec.name] = spec.default
        elif spec.factory is not None:
            fields[spec.name] = spec.factory()
        else:
            return None  # a required field is missing
    try:
        made._check()
    except Refusal:
        return None
    return made


def _value(spec: FieldSpec, given: Any) -> Any:
    if given is None:
        return None if spec.default is None else _NO
    value = _typed(spec, given)
    if value is _NO or not _within(spec, value):
        return _NO
    if spec.check is not None:
        try:
            spec.check(value)
        except Refusal:
            return _NO
    return value


def _typed(spec: FieldSpec, given: Any) -> Any:
    kind, kind_of = spec.kind, type(given)
    if kind == "float":
        if kind_of is float:
            return given if math.isfinite(given) else _NO
        if kind_of is int and -_EXACT_FLOAT <= given <= _EXACT_FLOAT:
            return float(given)
        return _NO
    if kind == "int":
        return given if kind_of is int else _NO
    if kind == "str":
        return given if kind_of is str and is_text(given) and _matches(spec, given) else _NO
    if kind == "bool":
        return given if kind_of is bool else _NO
    if kind == "literal":
        return given if kind_of is str and given in spec.choices else _NO
    if kind in ("str_tuple", "literal_tuple"):
        if kind_of is not list and kind_of is not tuple:
            return _NO
        if spec.max_length is not None and len(given) > spec.max_length:
            return _NO  # before reading a million items
        if any(type(item) is not str or not is_text(item) for item in given):
            return _NO
        if kind == "literal_tuple" and any(item not in spec.choices for item in given):
            return _NO
        return tuple(given)
    model = spec.model
    assert model is not None, spec.name
    if isinstance(given, model):
        return given  # a model is immutable and was validated when made (a subclass's stays one)
    made = built_fast(model, given)
    return _NO if made is None else made


def _matches(spec: FieldSpec, value: str) -> bool:
    if spec.pattern is None:
        return True
    # pydantic's patterns end at the end of the text; Python's `$` also matches before a final "\n"
    if "\n" in value:
        return False
    compiled = _patterns.get(spec.pattern)
    if compiled is None:
        compiled = _patterns[spec.pattern] = re.compile(spec.pattern)
    return compiled.match(value) is not None


def _within(spec: FieldSpec, value: Any) -> bool:
    if spec.gt is not None and not value > spec.gt:
        return False
    if spec.ge is not None and not value >= spec.ge:
        return False
    if spec.le is not None and not value <= spec.le:
        return False
    if spec.min_length is not None or spec.max_length is not None:
        length = len(value)
        if spec.min_length is not None and length < spec.min_length:
            return False
        if spec.max_length is not None and length > spec.max_length:
            return False
    return True
