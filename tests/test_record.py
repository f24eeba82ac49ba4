"""``computeops_cdk._record.record`` gives what ``dataclasses.dataclass`` gives, method by method.

Each case defines one class body twice, once under ``record`` and once under ``dataclass`` with the
same options, and compares what users and the engine read: repr, equality (with other classes too),
hashing, frozen assignment, slots, pickling, ``fields``/``replace``/``asdict``, ``__match_args__``.
Values come from hypothesis (NaN, -0.0, None, nested tuples, nested records) so that the identity
shortcut of tuple comparison and hashing of floats are exercised too.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle
import sys
from collections.abc import Callable
from dataclasses import field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from computeops_cdk._record import record

Decorator = Callable[..., Any]


def _flat(decorate: Decorator, **options: Any) -> type:
    @decorate(**options)
    class Flat:
        """Three fields, one with a default."""

        a: Any
        b: Any
        c: Any = 0.0

    return Flat


def _one(decorate: Decorator, **options: Any) -> type:
    @decorate(**options)
    class One:
        """A single field: the tuple of one value."""

        a: Any

    return One


def _empty(decorate: Decorator, **options: Any) -> type:
    @decorate(**options)
    class Empty:
        """No fields at all."""

    return Empty


def _partial(decorate: Decorator, **options: Any) -> type:
    @decorate(**options)
    class Partial:
        """Fields left out of the repr, the comparison or the hash."""

        a: Any
        b: Any = field(default=None, repr=False)
        c: Any = field(default=None, compare=False)
        d: Any = field(default=None, hash=False)
        e: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    return Partial


_SHAPES = {"flat": (_flat, 3), "one": (_one, 1), "empty": (_empty, 0), "partial": (_partial, 4)}
_OPTIONS = [
    {"frozen": True, "slots": True, "kw_only": True},
    {"frozen": True, "slots": True},
    {"frozen": True},
    {"slots": True},
    {},
    {"frozen": True, "slots": True, "repr": False},
    {"slots": True, "eq": False},
]


def _pair(shape: str, options: dict[str, Any]) -> tuple[type, type, int]:
    make, arity = _SHAPES[shape]
    return make(record, **options), make(dataclasses.dataclass, **options), arity


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.tuples(inner, inner) | st.lists(inner, max_size=2).map(tuple),
    max_leaves=6,
)


def _build(cls: type, values: list[Any], arity: int, kw_only: bool) -> Any:
    names = [f.name for f in dataclasses.fields(cls) if f.init][:arity]
    given_values = dict(zip(names, values, strict=False))
    return cls(**given_values) if kw_only else cls(*given_values.values())


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return ("ok", fn())
    except Exception as err:  # the outcome compared includes the error
        return ("raised", type(err).__name__, str(err))


# Python 3.13's dataclass compares field by field (`self is other` first, then `a == a and ...`);
# record keeps 3.11 and 3.12's comparison of the fields' tuples on every version (review finding).
_DATACLASS_COMPARES_TUPLES = sys.version_info < (3, 13)


@pytest.mark.skipif(not _DATACLASS_COMPARES_TUPLES, reason="dataclass compares field by field from 3.13")
@settings(max_examples=300, deadline=None)
@given(
    shape=st.sampled_from(sorted(_SHAPES)),
    options=st.sampled_from(_OPTIONS),
    left=st.lists(_VALUES, min_size=4, max_size=4),
    right=st.lists(_VALUES, min_size=4, max_size=4),
    same=st.booleans(),
)
def test_the_methods_give_what_dataclass_generates(
    shape: str, options: dict[str, Any], left: list[Any], right: list[Any], same: bool
) -> None:
    ours_cls, theirs_cls, arity = _pair(shape, options)
    kw_only = options.get("kw_only", False)
    if same:
        right = left
    elif right and left:
        right = [left[0], *right[1:]]  # differ in some fields only
    ours = [_build(ours_cls, v, arity, kw_only) for v in (left, right)]
    theirs = [_build(theirs_cls, v, arity, kw_only) for v in (left, right)]
    if "repr" not in options:
        assert repr(ours[0]) == repr(theirs[0]) and repr(ours[1]) == repr(theirs[1])
    for x, y, tx, ty in ((0, 1, 0, 1), (0, 0, 0, 0), (1, 0, 1, 0)):
        assert (ours[x] == ours[y]) == (theirs[tx] == theirs[ty])
        assert (ours[x] != ours[y]) == (theirs[tx] != theirs[ty])
    assert ours[0].__eq__(theirs[0]) is NotImplemented or "eq" in options
    assert (ours[0] == theirs[0]) is False
    if options.get("eq", True):  # (without eq both hash by identity)
        ours_hash, theirs_hash = _outcome(lambda: hash(ours[0])), _outcome(lambda: hash(theirs[0]))
        assert ours_hash == theirs_hash  # the same int (same tuple hashed) or the same TypeError


@pytest.mark.parametrize("options", _OPTIONS)
@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_the_class_is_the_dataclass_it_would_be(shape: str, options: dict[str, Any]) -> None:
    ours_cls, theirs_cls, arity = _pair(shape, options)
    kw_only = options.get("kw_only", False)
    values = [1.5, "x", (None, 2), 3][:arity]
    ours, theirs = _build(ours_cls, values, arity, kw_only), _build(theirs_cls, values, arity, kw_only)
    describe = [
        (f.name, f.default, f.default_factory, f.init, f.repr, f.hash, f.compare, f.kw_only)
        for f in dataclasses.fields(theirs_cls)
    ]
    assert describe == [
        (f.name, f.default, f.default_factory, f.init, f.repr, f.hash, f.compare, f.kw_only)
        for f in dataclasses.fields(ours_cls)
    ]
    assert ours_cls.__match_args__ == theirs_cls.__match_args__
    assert ours_cls.__doc__ == theirs_cls.__doc__
    assert getattr(ours_cls, "__slots__", None) == getattr(theirs_cls, "__slots__", None)
    assert hasattr(ours, "__dict__") == hasattr(theirs, "__dict__")
    assert (ours_cls.__hash__ is None) == (theirs_cls.__hash__ is None)
    assert dataclasses.asdict(ours) == dataclasses.asdict(theirs)
    assert copy.deepcopy(ours) == ours or "eq" in options
    assert dataclasses.replace(ours) == ours or "eq" in options
    if arity:
        name = dataclasses.fields(ours_cls)[0].name
        assert _outcome(lambda: setattr(ours, name, 9)) == _outcome(lambda: setattr(theirs, name, 9))
        assert _outcome(lambda: delattr(ours, name)) == _outcome(lambda: delattr(theirs, name))
    assert _outcome(lambda: setattr(ours, "other", 1)) == _outcome(lambda: setattr(theirs, "other", 1))
    if options.get("repr", True):
        assert repr(ours_cls.__repr__).startswith(f"<function {ours_cls.__qualname__}.__repr__")


@record(frozen=True, slots=True, kw_only=True)
class _Kept:
    """A module-level record, so that pickle finds its class."""

    a: Any
    b: tuple[Any, ...] = ()


def test_a_frozen_slotted_record_pickles_and_copies() -> None:
    kept = _Kept(a=1.5, b=("x", None))
    for again in (pickle.loads(pickle.dumps(kept)), copy.copy(kept), copy.deepcopy(kept)):
        assert again == kept and hash(again) == hash(kept) and repr(again) == repr(kept)
    assert repr(kept) == "_Kept(a=1.5, b=('x', None))"


def test_nan_compares_by_identity_as_in_a_tuple() -> None:
    # dataclass compares (a, b) tuples: the same NaN object is equal to itself there, as it is here.
    ours, theirs = _flat(record, frozen=True), _flat(dataclasses.dataclass, frozen=True)
    nan = math.nan
    assert (ours(nan, 1) == ours(nan, 1)) is True
    assert (ours(nan, 1) == ours(float("nan"), 1)) is False
    if _DATACLASS_COMPARES_TUPLES:
        assert (theirs(nan, 1) == theirs(nan, 1)) is True
        assert (theirs(nan, 1) == theirs(float("nan"), 1)) is False


def test_a_record_that_holds_itself_is_shown_with_dots() -> None:
    @record(slots=True)
    class Node:
        """A mutable record that can point at itself."""

        next: Any = None

    @dataclasses.dataclass(slots=True)
    class Twin:
        """The same class under dataclass."""

        next: Any = None

    node, twin = Node(), Twin()
    node.next, twin.next = node, twin
    assert (
        repr(node)
        == repr(twin).replace("Twin", "Node")
        == "test_a_record_that_holds_itself_is_shown_with_dots.<locals>.Node(next=...)"
    )


def test_a_class_with_its_own_comparison_or_repr_is_refused() -> None:
    with pytest.raises(TypeError, match=r"Own defines __eq__, __hash__: use dataclasses\.dataclass"):

        @record(frozen=True)
        class Own:
            """Defines its equality itself."""

            a: int

            def __eq__(self, other: object) -> bool:
                return True

            __hash__ = object.__hash__


def test_the_records_of_a_decision_are_records() -> None:
    # the catalog's, the performance model's and the engine's records on the decide path
    from computeops_cdk.catalog import Accelerator, Offer
    from computeops_cdk.engine import Decision, Placement
    from computeops_cdk.perf import InferenceEstimate

    for cls in (Accelerator, Offer, Decision, Placement, InferenceEstimate):
        assert dataclasses.is_dataclass(cls)
        assert cls.__eq__.__module__ == "computeops_cdk._record", cls
        assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert sys.modules["computeops_cdk._record"].record is record
