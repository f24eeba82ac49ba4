"""``record``: ``dataclasses.dataclass`` whose ``__eq__``, ``__hash__`` and ``__repr__`` are shared code.

Python 3.11's ``dataclass`` writes the source of each method of each class and ``exec``s it, one
method at a time: about 0.5-1 ms of CPU per class, and a cold ``computeops decide`` creates about
forty of them at import (benchmarks/STARTUP.md). ``record`` takes ``dataclass``'s own options and
lets ``dataclass`` make the class (fields, ``__init__``, frozen assignment, slots, pickling,
``__match_args__``), then gives it equality, hashing and a repr that read the fields through one
``operator.attrgetter`` made per class, instead of three more ``exec``s. The methods give what the
generated ones give: ``__eq__`` compares the same tuple of compared fields when the classes are the
same (else ``NotImplemented``), ``__hash__`` hashes that tuple for a frozen class (a mutable one is
unhashable), and ``__repr__`` is ``Name(field=value!r, ...)`` over the fields with ``repr=True``,
``...`` on recursion. ``tests/test_record.py`` compares them with ``dataclass``'s on the same classes.
Equality is the comparison of the fields' tuples on every Python version, as ``dataclass`` generates
it in 3.11 and 3.12 (from 3.13 ``dataclass`` compares field by field: the same NaN object differs).
"""

from __future__ import annotations

import dataclasses
from _thread import get_ident
from operator import attrgetter

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name too)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    _T = TypeVar("_T")

__all__ = ["record"]

_OWN_METHODS = ("__eq__", "__hash__", "__repr__")


def _fields_of(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """A function giving ``(obj.a, obj.b, ...)`` for ``names``, a tuple even for one name or none."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)  # a tuple for two names or more


def _add_methods(cls: type, *, eq: bool, with_repr: bool, frozen: bool) -> None:
    fields = dataclasses.fields(cls)
    qualname = cls.__qualname__
    if with_repr:
        labels = tuple(f"{field.name}=" for field in fields if field.repr)
        shown = _fields_of(tuple(field.name for field in fields if field.repr))
        running: set[tuple[int, int]] = set()

        def __repr__(self: object) -> str:
            key = id(self), get_ident()
            if key in running:  # the record holds itself (dataclass's reprlib-style guard)
                return "..."
            running.add(key)
            try:
                values = shown(self)
                parts = ", ".join([label + repr(value) for label, value in zip(labels, values, strict=True)])
                return f"{self.__class__.__qualname__}({parts})"
            finally:
                running.discard(key)

        _install(cls, __repr__, qualname)
    if not eq:
        return
    compared = _fields_of(tuple(field.name for field in fields if field.compare))

    def __eq__(self: object, other: object) -> bool:
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    _install(cls, __eq__, qualname)
    if not frozen:
        cls.__hash__ = None  # type: ignore[assignment]  # as dataclass: eq without frozen is unhashable
        return
    hashed = _fields_of(
        tuple(field.name for field in fields if (field.compare if field.hash is None else field.hash))
    )

    def __hash__(self: object) -> int:
        return hash(hashed(self))

    _install(cls, __hash__, qualname)


def _install(cls: type, method: Callable[..., object], qualname: str) -> None:
    method.__qualname__ = f"{qualname}.{method.__name__}"
    setattr(cls, method.__name__, method)


def _record(
    cls: type | None = None,
    /,
    *,
    init: bool = True,
    repr: bool = True,  # dataclass's names
    eq: bool = True,
    frozen: bool = False,
    match_args: bool = True,
    kw_only: bool = False,
    slots: bool = False,
) -> Any:
    def wrap(given: type) -> type:
        own = [name for name in _OWN_METHODS if name in given.__dict__]
        if own:
            raise TypeError(f"{given.__qualname__} defines {', '.join(own)}: use dataclasses.dataclass")
        made: type = dataclasses.dataclass(
            given,
            init=init,
            repr=False,
            eq=False,
            frozen=frozen,
            match_args=match_args,
            kw_only=kw_only,
            slots=slots,
        )
        _add_methods(made, eq=eq, with_repr=repr, frozen=frozen)
        return made

    return wrap if cls is None else wrap(cls)


if TYPE_CHECKING:

    @dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
    def record(
        *,
        init: bool = True,
        repr: bool = True,
        eq: bool = True,
        frozen: bool = False,
        match_args: bool = True,
        kw_only: bool = False,
        slots: bool = False,
    ) -> Callable[[type[_T]], type[_T]]:
        """``dataclasses.dataclass`` with these options (the others are not supported)."""
        ...

else:
    record = _record
