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
import inspect
import math
import pickle
import sys
from collections.abc import Callable
from dataclasses import field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from computeops_cdk._record import MISSING, record

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
    assert str(inspect.signature(ours_cls)) == str(inspect.signature(theirs_cls))
    assert str(inspect.signature(ours_cls.__init__)) == str(inspect.signature(theirs_cls.__init__))
    assert ours_cls.__init__.__qualname__ == theirs_cls.__init__.__qualname__.replace(
        theirs_cls.__qualname__, ours_cls.__qualname__
    )
    assert _outcome(lambda: ours_cls(nope=1)) == _outcome(lambda: theirs_cls(nope=1))
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
    if options.get("frozen") and options.get("slots"):
        # dataclass (3.11) gives super()'s TypeError here: its __setattr__ names the class it replaced
        assert _outcome(lambda: setattr(ours, "other", 1)) == (
            "raised",
            "FrozenInstanceError",
            "cannot assign to field 'other'",
        )
    else:
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


# --- records made without dataclasses: the compiled __init__s, pickles, errors, the cold path ---


def test_the_compiled_inits_are_the_ones_the_records_need() -> None:
    # A stale _record_inits.py is not wrong (a source it lacks is compiled when the class is made) but
    # slow: the cold decide pays 0.1-0.3 ms per record again.
    from pathlib import Path

    import computeops_cdk._record as made

    written = Path(made.__file__).with_name("_record_inits.py").read_text(encoding="utf-8")
    assert written == made.compiled_inits_text(made.package_classes()), "run `make records`"


def test_every_record_of_the_package_has_a_compiled_init() -> None:
    import computeops_cdk._record as made

    records = [c for c in made.package_classes() if "__record_params__" in c.__dict__]
    assert len(records) >= 40
    for cls in records:
        if cls.__record_params__.generated_init:  # type: ignore[attr-defined]
            assert cls.__init__.__code__.co_filename.endswith("_record_inits.py"), cls


def test_a_record_the_table_lacks_is_compiled_when_made_and_behaves_the_same() -> None:
    @record(frozen=True, slots=True, kw_only=True)
    class Unlisted:
        """Not in the compiled table: a class made inside a test."""

        name_of_a_field_no_record_has: int
        other: tuple[int, ...] = ()

    assert Unlisted.__init__.__code__.co_filename == "<string>"
    made = Unlisted(name_of_a_field_no_record_has=1)
    assert made.other == () and made == Unlisted(name_of_a_field_no_record_has=1, other=())


def test_a_compiled_init_is_the_one_compiled_here() -> None:
    # The same source compiled here and taken from the table: the same signature, defaults and work.
    import computeops_cdk._record as made
    from computeops_cdk.catalog import Offer, load_catalog

    for cls in [c for c in made.package_classes() if "__record_params__" in c.__dict__]:
        params = cls.__record_params__  # type: ignore[attr-defined]
        if not params.generated_init:
            continue
        source, scope = made._init_source(cls, made.fields(cls), frozen=params.frozen, slots=params.slots)
        exec(source, scope)
        here, compiled = scope["__init__"], cls.__init__

        def described(init: Any) -> list[tuple[str, Any, Any]]:
            return [(p.name, p.kind, p.default) for p in inspect.signature(init).parameters.values()]

        assert described(here) == described(compiled), cls
        assert (
            here.__defaults__ == compiled.__defaults__ and here.__kwdefaults__ == compiled.__kwdefaults__
        ), cls
    offer = load_catalog().offers[0]
    source, scope = made._init_source(Offer, made.fields(Offer), frozen=True, slots=True)
    exec(source, scope)
    again = object.__new__(Offer)
    scope["__init__"](again, **{f.name: getattr(offer, f.name) for f in made.fields(Offer)})
    assert again == offer and repr(again) == repr(offer)


def test_a_frozen_record_pickles_as_the_dataclass_would() -> None:
    # The state is dataclass's (a list of the field values), so pickles cross versions both ways.
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Twin:
        """_Kept under dataclass."""

        a: Any
        b: tuple[Any, ...] = ()

    kept, twin = _Kept(a=1.5, b=("x",)), Twin(a=1.5, b=("x",))
    ours, theirs = kept.__reduce_ex__(4), twin.__reduce_ex__(4)
    assert ours[2:] == theirs[2:] and ours[2] == [1.5, ("x",)]
    restored = object.__new__(_Kept)
    restored.__setstate__(theirs[2])  # type: ignore[attr-defined]
    assert restored == kept


def test_assigning_a_field_raises_dataclasses_frozen_instance_error() -> None:
    from computeops_cdk.catalog import load_catalog

    offer = load_catalog().offers[0]
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'hourly_usd'"):
        offer.hourly_usd = 0.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'hourly_usd'"):
        del offer.hourly_usd  # type: ignore[misc]


def test_the_record_helpers_are_dataclasses_own() -> None:
    from computeops_cdk._record import fields, is_record, replace
    from computeops_cdk.catalog import load_catalog

    offer = load_catalog().offers[0]
    assert [f.name for f in fields(offer)] == [f.name for f in dataclasses.fields(offer)]
    assert [f.default for f in fields(offer) if f.default is not MISSING] == [
        f.default for f in dataclasses.fields(offer) if f.default is not dataclasses.MISSING
    ]
    cheaper = replace(offer, hourly_usd=1.0)
    assert cheaper == dataclasses.replace(offer, hourly_usd=1.0) and cheaper != offer
    assert is_record(offer) and is_record(type(offer)) and not is_record(object())
    with pytest.raises(TypeError, match="replace\\(\\) should be called on record instances"):
        replace(object())
    with pytest.raises(TypeError, match="must be called with a record type or instance"):
        fields(object())


# --- review of the dataclass-free records: bodies where record and dataclass once differed ---

_REVIEWED_BODIES = {
    # a subclass re-annotating an attribute keeps the inherited value as its default
    "inherited default": "@D()\nclass Base:\n    a: int = 1\n@D()\nclass C(Base):\n    a: int\n",
    "mixin default": "class Mixin:\n    k = 3\n@D()\nclass C(Mixin):\n    k: int\n",
    # init=False with a plain default is left to the class attribute (no slots)
    "init=False default": "@D()\nclass C:\n    a: int = 0\n    b: int = F(default=5, init=False)\n",
    # no order check when record makes no __init__
    "init=False class": "@D(init=False)\nclass C:\n    a: int = 1\n    b: int\n",
    # ClassVar: looked up in the module as dataclass does, kept in place, field() unwrapped
    "aliased ClassVar": "CV = ClassVar\n@D()\nclass C:\n    limit: CV[int] = 3\n    a: int = 1\n",
    "ClassVar-like name": "class ClassVarLike:\n    pass\n@D()\nclass C:\n    a: ClassVarLike = None\n",
    "base field made ClassVar": "@D()\nclass Base:\n    a: int = 1\n    b: int = 2\n"
    "@D()\nclass C(Base):\n    a: ClassVar[int] = 5\n",
    "ClassVar made field": "@D()\nclass Base:\n    c: ClassVar[int] = 1\n    a: int = 2\n"
    "@D()\nclass C(Base):\n    c: int = 3\n",
    "ClassVar with field()": "@D()\nclass C:\n    k: ClassVar[int] = F(default=3)\n    a: int = 1\n",
    "ClassVar with factory": "@D()\nclass C:\n    k: ClassVar[list] = F(default_factory=list)\n",
    # the frozen-inheritance messages, after the fields' own errors
    "frozen from non-frozen": "@D()\nclass Base:\n    a: int = 1\n"
    "@D(frozen=True)\nclass C(Base):\n    b: int = 2\n",
    "non-frozen from frozen": "@D(frozen=True)\nclass Base:\n    a: int = 1\n"
    "@D()\nclass C(Base):\n    b: list = []\n",
    # __doc__ from the real signature when record makes no __init__
    "doc without init": "@D(init=False)\nclass C:\n    a: int = 1\n",
    "doc of own init": "@D()\nclass C:\n    a: int\n"
    "    def __init__(self, text: str) -> None:\n        pass\n",
}


def _reviewed(decorate: Decorator, field_of: Any, body: str) -> Any:
    space: dict[str, Any] = {"D": decorate, "F": field_of, "ClassVar": __import__("typing").ClassVar}
    code = "from __future__ import annotations\n" + body
    try:
        exec(compile(code, "<body>", "exec"), space)
    except Exception as err:  # the class's creation error is compared too
        return ("raised", type(err).__name__, str(err))
    cls = space["C"]
    shown: list[Any] = [
        [(f.name, f.default, f.init) for f in dataclasses.fields(cls)],
        list(cls.__dataclass_fields__),
        str(inspect.signature(cls)),
        cls.__doc__,
        {k: v for k, v in vars(cls).items() if k in ("a", "b", "c", "k", "limit")},
        hasattr(cls, "__replace__"),
    ]
    made = _outcome(cls)
    shown.append(_outcome(lambda: repr(made)))
    if made[0] == "ok" and hasattr(made[1], "__dict__"):
        shown.append(vars(made[1]))
    return shown


@pytest.mark.parametrize("case", sorted(_REVIEWED_BODIES))
def test_a_reviewed_body_makes_what_dataclass_makes(case: str) -> None:
    body = _REVIEWED_BODIES[case]
    ours = _reviewed(record, field, body).__repr__().replace("record", "X")
    theirs = _reviewed(dataclasses.dataclass, field, body).__repr__().replace("record", "X")
    assert ours == theirs


def test_a_record_refuses_what_it_does_not_take() -> None:
    # KW_ONLY as a real annotation (no string annotations) and names the generated __init__ uses
    with pytest.raises(TypeError, match="is not supported by record"):

        @record()
        class KwOnly:
            """dataclasses.KW_ONLY is not supported."""

            a: int
            _: dataclasses.KW_ONLY  # type: ignore[valid-type]
            b: int = 0

    with pytest.raises(TypeError, match="a field name may not start with '__record_'"):

        @record()
        class Clash:
            """A field named like the generated __init__'s own names."""

            __record_factory__: int = 0


def test_reading_a_plain_subclass_through_dataclasses_leaves_it_plain() -> None:
    # The lazy view used to cache itself on the plain class, which then refused a record made from it.
    @record(frozen=True)
    class Root:
        """A record."""

        a: int = 1

    class Middle(Root):
        """Not a record."""

    assert [f.name for f in dataclasses.fields(Middle)] == ["a"]

    @record(frozen=True)
    class Leaf(Middle):
        """A record again."""

        b: int = 2

    assert repr(Leaf()).endswith("Leaf(a=1, b=2)")


def test_every_thread_reads_the_same_dataclass_fields() -> None:
    import threading

    for _ in range(30):

        @record(frozen=True, slots=True)
        class Fresh:
            """A record whose view nobody has read."""

            a: int = 1

        seen: list[object] = []
        start = threading.Barrier(8)

        def read(cls: type = Fresh, seen: list[object] = seen, start: threading.Barrier = start) -> None:
            start.wait()
            seen.append(dataclasses.fields(cls)[0])

        threads = [threading.Thread(target=read) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len({id(f) for f in seen}) == 1
