"""``record``: the value classes of the decide path, made as ``dataclasses.dataclass`` makes them, without it.

A cold ``computeops decide`` creates about forty classes (the catalog's, the performance model's and
the engine's records). ``dataclass`` costs about 0.45 ms of CPU for each (it writes and ``exec``s the
source of every method, one at a time) and importing it 4-7 ms more (it imports ``inspect``, with
``ast``, ``dis`` and ``tokenize``): about 25 ms of a cold decide (benchmarks/STARTUP.md). ``record``
makes the same class from the same declaration, for the options it takes (``init``, ``repr``, ``eq``,
``frozen``, ``match_args``, ``kw_only``, ``slots``): one generated ``__init__`` (``dataclass``'s
signature, defaults and ``default_factory`` handling, ``__post_init__``), frozen assignment and
deletion raising ``dataclasses.FrozenInstanceError``, the ``__slots__`` class, pickling of frozen
slotted records in ``dataclass``'s format (a list of the field values), ``__match_args__``, the
``__doc__`` made from the signature, and equality, hashing and a repr that read the fields through one
``operator.attrgetter`` per class.

``dataclasses`` still sees a record as a dataclass: ``__dataclass_fields__`` and
``__dataclass_params__`` are made on first read (``dataclasses.fields``, ``replace``, ``asdict``,
``is_dataclass``), and only then is ``dataclasses`` imported. Code on the decide path uses this
module's ``fields``, ``replace`` and ``is_record`` instead. ``tests/test_record.py`` compares records
with ``dataclass``'s classes made from the same bodies.

Equality is the comparison of the fields' tuples on every Python version, as ``dataclass`` generates
it in 3.11 and 3.12 (from 3.13 ``dataclass`` compares field by field: the same NaN object differs).
Assigning a non-field attribute to a frozen slotted record raises ``FrozenInstanceError``, where
``dataclass`` (3.11) gives ``super()``'s TypeError (its ``__setattr__`` names the class it replaced).
"""

from __future__ import annotations

import re
import sys
from _thread import allocate_lock, get_ident
from operator import attrgetter

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name too)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, TypeVar, dataclass_transform, overload

    _T = TypeVar("_T")

__all__ = ["MISSING", "Field", "field", "fields", "is_record", "record", "replace"]

_OWN_METHODS = ("__eq__", "__hash__", "__repr__")
_LEADING_NAME = re.compile(r"^(?:\s*(\w+)\s*\.)?\s*(\w+)")  # dataclass's: `ClassVar[...]`, `typing.ClassVar`
_RESERVED = "__record_"  # the generated __init__'s own names start so: no field may


class _Sentinel:
    __slots__ = ("_shown",)

    def __init__(self, shown: str) -> None:
        self._shown = shown

    def __repr__(self) -> str:
        return self._shown


MISSING: Any = _Sentinel("MISSING")
"""A field's ``default`` or ``default_factory`` when it has none (``dataclasses.MISSING``'s role)."""
_HAS_FACTORY: Any = _Sentinel("<factory>")  # the __init__ default of a default_factory field, as dataclass's


class Field:
    """One field of a record: what ``dataclasses.Field`` holds for the options ``record`` supports."""

    __slots__ = (
        "classvar",
        "compare",
        "default",
        "default_factory",
        "hash",
        "init",
        "kw_only",
        "name",
        "repr",
        "type",
    )

    def __init__(
        self,
        *,
        default: Any,
        default_factory: Any,
        init: bool,
        repr: bool,  # dataclasses.Field's names
        hash: bool | None,
        compare: bool,
        kw_only: Any,
    ) -> None:
        self.name: str = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.kw_only = kw_only
        self.classvar = False
        """A ``ClassVar`` annotation's entry (in ``__record_declared__``, never a field)."""

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in Field.__slots__)
        return f"Field({shown})"


if TYPE_CHECKING:

    @overload
    def field(
        *,
        default: _T,
        init: bool = ...,
        repr: bool = ...,
        hash: bool | None = ...,
        compare: bool = ...,
        kw_only: bool = ...,
    ) -> _T: ...

    @overload
    def field(
        *,
        default_factory: Callable[[], _T],
        init: bool = ...,
        repr: bool = ...,
        hash: bool | None = ...,
        compare: bool = ...,
        kw_only: bool = ...,
    ) -> _T: ...

    @overload
    def field(
        *,
        init: bool = ...,
        repr: bool = ...,
        hash: bool | None = ...,
        compare: bool = ...,
        kw_only: bool = ...,
    ) -> Any: ...


def field(  # the overloads above are its typing
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
    kw_only: Any = MISSING,
) -> Any:
    """A field's options, as ``dataclasses.field`` takes them (``metadata`` is not supported)."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(
        default=default,
        default_factory=default_factory,
        init=init,
        repr=repr,
        hash=hash,
        compare=compare,
        kw_only=kw_only,
    )


def fields(class_or_instance: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in ``__init__``'s order (``dataclasses.fields``)."""
    try:
        return class_or_instance.__record_fields__  # type: ignore[no-any-return]
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def is_record(class_or_instance: Any) -> bool:
    """Whether this is a record class or an instance of one."""
    cls = class_or_instance if isinstance(class_or_instance, type) else type(class_or_instance)
    return hasattr(cls, "__record_fields__")


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of the record ``obj`` with ``changes``, made by its ``__init__`` (``dataclasses.replace``)."""
    try:
        own = type(obj).__record_fields__  # type: ignore[attr-defined]
    except AttributeError:
        raise TypeError("replace() should be called on record instances") from None
    for f in own:
        if not f.init:
            if f.name in changes:
                raise ValueError(
                    f"field {f.name} is declared with init=False, it cannot be specified with replace()"
                )
            continue
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def frozen_instance_error(message: str) -> AttributeError:
    """``dataclasses.FrozenInstanceError(message)``, to raise: ``except dataclasses.FrozenInstanceError``
    still works, and ``dataclasses`` (4-7 ms to import) is imported only when one is raised."""
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(message)


class _Params:
    """What ``record`` was asked for, read by code that treats records specially (``__record_params__``)."""

    __slots__ = ("eq", "frozen", "generated_init", "init", "kw_only", "match_args", "repr", "slots")

    def __init__(
        self, *, init: bool, repr: bool, eq: bool, frozen: bool, match_args: bool, kw_only: bool, slots: bool
    ) -> None:
        self.init, self.repr, self.eq, self.frozen = init, repr, eq, frozen
        self.match_args, self.kw_only, self.slots = match_args, kw_only, slots
        self.generated_init = False
        """Whether ``record`` made ``__init__`` (not when the class has its own, as ``dataclass``)."""


class _DataclassView:
    """``__dataclass_fields__`` (or ``__dataclass_params__``) of a record, made on first read.

    ``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` read these; making them
    imports ``dataclasses``, which only code that uses it pays. Kept on the record class once made
    (one set for all threads); a plain subclass of a record gets them made on each read, so that it
    never looks like a dataclass of its own to a record made from it later."""

    __slots__ = ("_params",)

    def __init__(self, *, params: bool) -> None:
        self._params = params

    def __get__(self, obj: object, owner: type) -> Any:
        if "__record_fields__" not in owner.__dict__:
            made_fields, made_params = _as_dataclass(owner)
            return made_params if self._params else made_fields
        with _VIEW_LOCK:
            kept = owner.__dict__["__dataclass_fields__"]
            if type(kept) is _DataclassView:  # not made yet
                made_fields, made_params = _as_dataclass(owner)
                type.__setattr__(owner, "__dataclass_fields__", made_fields)
                type.__setattr__(owner, "__dataclass_params__", made_params)
        return owner.__dict__["__dataclass_params__" if self._params else "__dataclass_fields__"]


_VIEW_LOCK = allocate_lock()


def _as_dataclass(cls: type) -> tuple[dict[str, Any], Any]:
    import dataclasses

    def theirs(value: Any) -> Any:
        return dataclasses.MISSING if value is MISSING else value

    made: dict[str, Any] = {}
    for f in cls.__record_declared__:  # type: ignore[attr-defined]
        one = dataclasses.field(
            default=theirs(f.default),
            default_factory=theirs(f.default_factory),
            init=f.init,
            repr=f.repr,
            hash=f.hash,
            compare=f.compare,
            kw_only=theirs(f.kw_only),
        )
        one.name, one.type = f.name, f.type
        # what dataclass sets
        one._field_type = dataclasses._FIELD_CLASSVAR if f.classvar else dataclasses._FIELD  # type: ignore[attr-defined]
        made[f.name] = one
    given: _Params = cls.__record_params__  # type: ignore[attr-defined]
    common = {"init": given.init, "repr": given.repr, "eq": given.eq, "order": False, "unsafe_hash": False}
    params_class: Any = dataclasses._DataclassParams  # type: ignore[attr-defined]
    try:  # Python 3.12 and later take the options 3.10 added too
        params = params_class(
            **common,
            frozen=given.frozen,
            match_args=given.match_args,
            kw_only=given.kw_only,
            slots=given.slots,
            weakref_slot=False,
        )
    except TypeError:
        params = params_class(**common, frozen=given.frozen)
    return made, params


def _is_classvar(kind: object, cls: type) -> bool:
    """Whether the annotation ``kind`` is ``typing.ClassVar`` or ``ClassVar[...]``, as ``dataclass``
    decides it: a string annotation's leading name (``ClassVar[int]``, ``typing.ClassVar[int]``) is
    looked up in the class's module."""
    typing = sys.modules.get("typing")
    if typing is None:  # no module can have named typing.ClassVar
        return False

    def is_classvar(value: object) -> bool:
        return value is typing.ClassVar or (
            type(value) is typing._GenericAlias and value.__origin__ is typing.ClassVar  # type: ignore[attr-defined]
        )

    if not isinstance(kind, str):
        return is_classvar(kind)
    match = _LEADING_NAME.match(kind)
    module = sys.modules.get(cls.__module__)
    if match is None or module is None:
        return False
    prefix, name = match.groups()
    if prefix:  # `typing.ClassVar`: the name is typing's
        return module.__dict__.get(prefix) is typing and is_classvar(getattr(typing, name, None))
    return is_classvar(module.__dict__.get(name))


def _is_unsupported(kind: object, cls: type) -> bool:
    """``InitVar`` and ``KW_ONLY`` (dataclasses' own annotations), which ``record`` does not take."""
    if not isinstance(kind, str):
        return type(kind).__module__ == "dataclasses" or kind.__class__.__name__ == "InitVar"
    match = _LEADING_NAME.match(kind)
    dataclasses: Any = sys.modules.get("dataclasses")
    if match is None or dataclasses is None:  # nothing can have named them
        return False
    prefix, name = match.groups()
    module = sys.modules.get(cls.__module__)
    space = module.__dict__ if module is not None else {}
    if prefix:  # `dataclasses.KW_ONLY`: the name is dataclasses'
        if space.get(prefix) is not dataclasses:
            return False
        space = vars(dataclasses)
    value = space.get(name)
    return value is not None and (value is dataclasses.KW_ONLY or value is dataclasses.InitVar)


def _field_from(value: object) -> Field | None:
    """``value`` as a Field when it is one (ours, or ``dataclasses.field()``'s), else None."""
    if type(value) is Field:
        return value
    kind = type(value)
    if kind.__name__ == "Field" and kind.__module__ == "dataclasses":
        import dataclasses

        def ours(option: Any) -> Any:
            return MISSING if option is dataclasses.MISSING else option

        given: Any = value
        if given.metadata:
            raise TypeError("record fields take no metadata: use dataclasses.dataclass")
        return Field(
            default=ours(given.default),
            default_factory=ours(given.default_factory),
            init=given.init,
            repr=given.repr,
            hash=given.hash,
            compare=given.compare,
            kw_only=ours(given.kw_only),
        )
    return None


def _plain_field(default: object) -> Field:
    """The field an annotation with a plain default (or none: ``MISSING``) declares."""
    return Field(
        default=default,
        default_factory=MISSING,
        init=True,
        repr=True,
        hash=None,
        compare=True,
        kw_only=MISSING,
    )


def _collect(cls: type, *, kw_only: bool, frozen: bool, init: bool) -> tuple[Field, ...]:
    """The fields of ``cls`` (its record bases' first) and its ``ClassVar`` entries, in order, as
    ``dataclass`` collects them."""
    found: dict[str, Field] = {}
    bases_frozen: list[bool] = []
    for base in cls.__mro__[-1:0:-1]:
        inherited = base.__dict__.get("__record_fields__")
        if inherited is not None:
            bases_frozen.append(base.__record_params__.frozen)  # type: ignore[attr-defined]
            found.update((f.name, f) for f in base.__dict__["__record_declared__"])
        elif "__dataclass_params__" in base.__dict__:  # a dataclass (a record has __record_fields__)
            raise TypeError(
                f"{cls.__qualname__} extends the dataclass {base.__qualname__}: use dataclasses.dataclass"
            )
    annotations: dict[str, Any] = cls.__dict__.get("__annotations__", {})  # noqa: RUF063  # not inspect (4-7 ms)
    for name, kind in annotations.items():
        value = getattr(cls, name, MISSING)  # dataclass's: a base's attribute is the default too
        if type(value).__name__ == "member_descriptor":  # a slot of a base: no default
            value = MISSING
        if _is_classvar(kind, cls):  # kept in place, as dataclass keeps it among the fields
            found[name] = _classvar(cls, name, kind, value)
            continue
        if _is_unsupported(kind, cls):
            raise TypeError(f"{cls.__qualname__}.{name}: {kind} is not supported by record")
        if name.startswith(_RESERVED):
            raise TypeError(f"{cls.__qualname__}.{name}: a field name may not start with {_RESERVED!r}")
        given = _field_from(value)
        if given is None:
            given = _plain_field(value)
        elif name in cls.__dict__:  # dataclass leaves the default as the class attribute, or none
            if given.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, given.default)
        if given.kw_only is MISSING:
            given.kw_only = kw_only
        given.name, given.type = name, kind
        if given.default is not MISSING and type(given.default).__hash__ is None:
            raise ValueError(
                f"mutable default {type(given.default)} for field {name} is not allowed: use default_factory"
            )
        found[name] = given
    for name, value in cls.__dict__.items():
        if _field_from(value) is not None and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    if bases_frozen:  # after the fields' own errors, as dataclass
        if any(bases_frozen) and not frozen:
            raise TypeError("cannot inherit non-frozen dataclass from a frozen one")
        if not any(bases_frozen) and frozen:
            raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
    if init:
        _check_order(f for f in found.values() if not f.classvar)
    return tuple(found.values())


def _check_order(own: Iterable[Field]) -> None:
    """``dataclass``'s refusal of a positional field without a default after one with a default."""
    seen_default: Field | None = None
    for f in own:
        if not f.init or f.kw_only:
            continue
        if f.default is MISSING and f.default_factory is MISSING:
            if seen_default is not None:
                after = f" {seen_default.name!r}" if sys.version_info >= (3, 13) else ""
                raise TypeError(f"non-default argument {f.name!r} follows default argument{after}")
        else:
            seen_default = f


def _classvar(cls: type, name: str, kind: object, value: object) -> Field:
    """A ``ClassVar`` annotation: no field; a ``field()`` given is refused or unwrapped (``dataclass``)."""
    found = _field_from(value)
    given = found or _plain_field(value)
    if found is None:
        pass
    elif given.default_factory is not MISSING:
        raise TypeError(f"field {name} cannot have a default factory")
    elif given.kw_only is not MISSING:
        raise TypeError(f"field {name} is a ClassVar but specifies kw_only")
    elif name in cls.__dict__:
        if given.default is MISSING:
            delattr(cls, name)
        else:
            setattr(cls, name, given.default)
    given.name, given.type, given.classvar = name, kind, True
    return given


def _slotted(cls: type, names: tuple[str, ...]) -> type:
    """``cls`` made again with ``__slots__`` for ``names`` (the class statement cannot be changed after)."""
    if "__slots__" in cls.__dict__:
        raise TypeError(f"{cls.__name__} already specifies __slots__")
    inherited: set[str] = set()
    for base in cls.__mro__[1:-1]:
        slots = base.__dict__.get("__slots__", ())
        inherited.update((slots,) if isinstance(slots, str) else slots)
    namespace = dict(cls.__dict__)
    namespace["__slots__"] = tuple(name for name in names if name not in inherited)
    for name in names:
        namespace.pop(name, None)
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    return made


def _init_source(
    cls: type, own: tuple[Field, ...], *, frozen: bool, slots: bool
) -> tuple[str, dict[str, Any]]:
    """The source of ``cls.__init__`` as ``dataclass`` writes it (the same parameters, defaults and
    assignments), and the names it reads with their values."""
    names = {f.name for f in own}
    me = "__record_self__" if "self" in names else "self"
    scope: dict[str, Any] = {"__record_factory__": _HAS_FACTORY, "__record_setattr__": object.__setattr__}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for f in own:
        name = f.name
        if f.init:
            if f.default is not MISSING:
                scope[f"__record_default_{name}__"] = f.default
                param, value = f"{name}=__record_default_{name}__", name
            elif f.default_factory is not MISSING:
                scope[f"__record_factory_{name}__"] = f.default_factory
                param = f"{name}=__record_factory__"
                value = f"__record_factory_{name}__() if {name} is __record_factory__ else {name}"
            else:
                param, value = name, name
            (keyword if f.kw_only else positional).append(param)
        elif f.default is not MISSING and slots:  # without slots the class attribute is the value
            scope[f"__record_default_{name}__"] = f.default
            value = f"__record_default_{name}__"
        elif f.default_factory is not MISSING:
            scope[f"__record_factory_{name}__"] = f.default_factory
            value = f"__record_factory_{name}__()"
        else:
            continue
        if frozen:
            body.append(f"__record_setattr__({me}, {name!r}, {value})")
        else:
            body.append(f"{me}.{name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append(f"{me}.__post_init__()")
    params = ", ".join([me, *positional, *(["*", *keyword] if keyword else [])])
    return f"def __init__({params}):\n    " + "\n    ".join(body or ["pass"]) + "\n", scope


if TYPE_CHECKING:
    _Factory = Callable[..., Any]  # (the names an __init__ reads) -> that __init__
_COMPILED: dict[str, _Factory] | None = None


def _compiled() -> dict[str, _Factory]:
    """``__init__`` source -> a function making that ``__init__`` from the names it reads, compiled
    with the package (``_record_inits.py``, written by ``make records``): compiling an ``__init__``
    here costs 0.1-0.3 ms, a third of a record's making, and a cold decide makes about forty."""
    global _COMPILED
    compiled = _COMPILED
    if compiled is None:
        try:
            from ._record_inits import FACTORIES
        except ImportError:  # a copy of the package without it: each __init__ is compiled when made
            compiled = {}
        else:
            compiled = FACTORIES
        _COMPILED = compiled
    return compiled


def _init(cls: type, own: tuple[Field, ...], *, frozen: bool, slots: bool) -> Callable[..., None]:
    """``cls.__init__``, from the compiled ones when its source is there, else compiled now."""
    source, scope = _init_source(cls, own, frozen=frozen, slots=slots)
    factory = _compiled().get(source)
    if factory is not None:
        made: Callable[..., None] = factory(**scope)
    else:
        exec(source, scope)  # our own text, made from the class's field names
        made = scope["__init__"]
    made.__qualname__ = f"{cls.__qualname__}.__init__"
    made.__module__ = cls.__module__
    made.__annotations__ = {**{f.name: f.type for f in own if f.init}, "return": None}
    return made


def _signature_text(cls: type, own: tuple[Field, ...], *, made_init: bool) -> str:
    """``str(inspect.signature(cls))`` of the generated ``__init__``, as ``dataclass`` writes ``__doc__``."""
    if not made_init or any(not isinstance(f.type, str) for f in own):  # inspect reads other __init__s
        import inspect

        try:
            return str(inspect.signature(cls)).replace(" -> None", "")
        except (TypeError, ValueError):
            return ""

    def shown(f: Field) -> str:
        text = f"{f.name}: {f.type!r}"
        if f.default is not MISSING:
            return f"{text} = {f.default!r}"
        return f"{text} = <factory>" if f.default_factory is not MISSING else text

    positional = [shown(f) for f in own if f.init and not f.kw_only]
    keyword = [shown(f) for f in own if f.init and f.kw_only]
    return "(" + ", ".join([*positional, *(["*", *keyword] if keyword else [])]) + ")"


def _fields_of(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """A function giving ``(obj.a, obj.b, ...)`` for ``names``, a tuple even for one name or none."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)  # a tuple for two names or more


def _add_methods(cls: type, own: tuple[Field, ...], *, eq: bool, with_repr: bool, frozen: bool) -> None:
    qualname = cls.__qualname__
    if with_repr:
        labels = tuple(f"{f.name}=" for f in own if f.repr)
        shown = _fields_of(tuple(f.name for f in own if f.repr))
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
    compared = _fields_of(tuple(f.name for f in own if f.compare))

    def __eq__(self: object, other: object) -> bool:
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    _install(cls, __eq__, qualname)
    if not frozen:
        cls.__hash__ = None  # type: ignore[assignment]  # as dataclass: eq without frozen is unhashable
        return
    hashed = _fields_of(tuple(f.name for f in own if (f.compare if f.hash is None else f.hash)))

    def __hash__(self: object) -> int:
        return hash(hashed(self))

    _install(cls, __hash__, qualname)


def _add_frozen(cls: type, own: tuple[Field, ...]) -> None:
    for name in ("__setattr__", "__delattr__"):
        if name in cls.__dict__:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    names = frozenset(f.name for f in own)

    def __setattr__(self: object, name: str, value: object) -> None:
        if type(self) is cls or name in names:
            raise frozen_instance_error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)  # type: ignore[arg-type]

    def __delattr__(self: object, name: str) -> None:
        if type(self) is cls or name in names:
            raise frozen_instance_error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)  # type: ignore[arg-type]

    _install(cls, __setattr__, cls.__qualname__)
    _install(cls, __delattr__, cls.__qualname__)


def compiled_inits_text(classes: Iterable[type]) -> str:
    """The text of ``_record_inits.py`` for the records among ``classes``: one function per distinct
    ``__init__`` source, taking the names that source reads and returning the ``__init__``."""
    made: dict[str, tuple[str, ...]] = {}
    for cls in classes:
        params: _Params | None = cls.__dict__.get("__record_params__")
        if params is None or not params.generated_init:
            continue
        source, scope = _init_source(
            cls,
            cls.__record_fields__,  # type: ignore[attr-defined]
            frozen=params.frozen,
            slots=params.slots,
        )
        made[source] = tuple(scope)
    lines = [
        '"""The ``__init__`` of each record of the package, compiled with it (see ``_record._compiled``).',
        "",
        "Written by ``make records``; tests/test_record.py fails when it is not what the records need.",
        '"""',
        "# fmt: off",
        "# ruff: noqa",
        "# mypy: ignore-errors",
        "",
    ]
    for at, source in enumerate(sorted(made)):
        lines.append(f"def _init_{at}({', '.join(made[source])}):")
        lines.extend(f"    {line}" for line in source.splitlines())
        lines.extend(["    return __init__", ""])
    lines.append("FACTORIES: dict = {  # the source of an __init__ -> the function above that makes it")
    lines.extend(f"    {source!r}: _init_{at}," for at, source in enumerate(sorted(made)))
    lines.append("}")
    return "\n".join(lines) + "\n"


def package_classes() -> list[type]:
    """The classes defined at module level in the package's modules, every module imported
    (``__main__`` modules are not run)."""
    import importlib
    import os
    import pkgutil

    here = os.path.dirname(os.path.abspath(__file__))
    classes: list[type] = []
    for info in sorted(pkgutil.walk_packages([here], "computeops_cdk."), key=lambda m: m.name):
        if info.name.rsplit(".", 1)[-1] in ("__main__", "_record_inits"):
            continue
        module = importlib.import_module(info.name)
        classes.extend(v for v in vars(module).values() if isinstance(v, type) and v.__module__ == info.name)
    return classes


def write_compiled_inits() -> str:
    """Write ``_record_inits.py`` for every record of the package (``make records``); its path."""
    import os

    target = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_record_inits.py")
    staged = f"{target}.{os.getpid()}.tmp"
    with open(staged, "w", encoding="utf-8", newline="\n") as out:
        out.write(compiled_inits_text(package_classes()))
    os.replace(staged, target)
    return target


def _getstate(self: object) -> list[object]:
    """A frozen slotted record's pickled state: its field values, in order (``dataclass``'s format)."""
    return [getattr(self, f.name) for f in fields(self)]


def _setstate(self: object, state: list[object]) -> None:
    for f, value in zip(fields(self), state, strict=False):  # as dataclass's: zip, not checked
        object.__setattr__(self, f.name, value)


def _replace_method(self: _T, /, **changes: Any) -> _T:
    """``copy.replace`` (Python 3.13) of a record."""
    return replace(self, **changes)


def _install(cls: type, method: Callable[..., object], qualname: str) -> None:
    method.__qualname__ = f"{qualname}.{method.__name__}"
    setattr(cls, method.__name__, method)


def _make(
    given: type,
    *,
    init: bool,
    with_repr: bool,
    eq: bool,
    frozen: bool,
    match_args: bool,
    kw_only: bool,
    slots: bool,
) -> type:
    own_methods = [name for name in _OWN_METHODS if name in given.__dict__]
    if own_methods:
        raise TypeError(f"{given.__qualname__} defines {', '.join(own_methods)}: use dataclasses.dataclass")
    declared = _collect(given, kw_only=kw_only, frozen=frozen, init=init)
    own = tuple(f for f in declared if not f.classvar)
    cls = _slotted(given, tuple(f.name for f in own)) if slots else given
    cls.__record_fields__ = own  # type: ignore[attr-defined]
    cls.__record_declared__ = declared  # type: ignore[attr-defined]
    cls.__record_params__ = _Params(  # type: ignore[attr-defined]
        init=init, repr=with_repr, eq=eq, frozen=frozen, match_args=match_args, kw_only=kw_only, slots=slots
    )
    cls.__dataclass_fields__ = _DataclassView(params=False)  # type: ignore[attr-defined]
    cls.__dataclass_params__ = _DataclassView(params=True)  # type: ignore[attr-defined]
    if init and "__init__" not in cls.__dict__:  # dataclass keeps a class's own __init__ too
        cls.__init__ = _init(cls, own, frozen=frozen, slots=slots)  # type: ignore[misc]
        cls.__record_params__.generated_init = True  # type: ignore[attr-defined]
    _add_methods(cls, own, eq=eq, with_repr=with_repr, frozen=frozen)
    if frozen:
        _add_frozen(cls, own)
    if not cls.__doc__:
        cls.__doc__ = cls.__name__ + _signature_text(cls, own, made_init=cls.__record_params__.generated_init)  # type: ignore[attr-defined]
    if match_args and "__match_args__" not in cls.__dict__:
        cls.__match_args__ = tuple(f.name for f in own if f.init and not f.kw_only)  # type: ignore[attr-defined, misc]
    if slots and frozen:  # pickling sets the slots past the frozen __setattr__
        if "__getstate__" not in cls.__dict__:
            cls.__getstate__ = _getstate  # type: ignore[assignment]
        if "__setstate__" not in cls.__dict__:
            cls.__setstate__ = _setstate  # type: ignore[attr-defined]
    if sys.version_info >= (3, 13) and "__replace__" not in cls.__dict__:  # as dataclass
        cls.__replace__ = _replace_method  # type: ignore[attr-defined]
    return cls


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
        return _make(
            given,
            init=init,
            with_repr=repr,
            eq=eq,
            frozen=frozen,
            match_args=match_args,
            kw_only=kw_only,
            slots=slots,
        )

    return wrap if cls is None else wrap(cls)


if TYPE_CHECKING:

    @dataclass_transform(field_specifiers=(field, Field))
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
