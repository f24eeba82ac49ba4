"""The building blocks of the intent models: field declarations, the frozen base class, refusals.

Why the models are not pydantic classes: importing pydantic and building the intent's twelve model
classes cost about 95 ms CPU of a cold ``computeops decide`` whose whole budget (3x Python starting
and reading the catalog) is about 100 ms (benchmarks/STARTUP.md). So the public models are plain
frozen classes declared here, and a document in the plain form (every value of its field's own
type: what YAML and JSON give) is checked and built in pure Python (``_build.py``). Anything else, an
error to report or a value pydantic would coerce (``"16"`` for a whole number), goes to pydantic models
generated from these same declarations (``_reference.py``): they stay the reference for every
message, every coercion and the JSON Schema.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from .._record import frozen_instance_error
from ..errors import did_you_mean, shown

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name too)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Self

__all__ = [
    "CONTINENTS",
    "REGION_ID",
    "FieldSpec",
    "IntentModel",
    "Refusal",
    "check_names",
    "choice",
    "choices",
    "flag",
    "integer",
    "is_text",
    "nested",
    "number",
    "text",
    "texts",
]

CONTINENTS: tuple[str, ...] = ("AF", "AN", "AS", "EU", "NA", "OC", "SA")
"""Continent codes as the catalog's regions use them (AF Africa ... SA South America)."""

REGION_ID = re.compile(r"^(?P<provider>[a-z0-9]+):(?P<code>[A-Za-z0-9._-]+)$")
"""A region id in an intent: ``provider:region-code`` (for example ``aws:us-east-1``)."""


class Refusal(Exception):
    """A rule of the intent refused a value: ``field`` is relative to the model (or field) checked.

    The fast path gives up on any Refusal and lets the reference models report the whole document's
    problems; the reference models turn it into pydantic's error with the same words.
    """

    def __init__(self, message: str, *, field: str = "", suggestions: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.suggestions = tuple(suggestions)


def is_text(value: str) -> bool:
    """Whether ``value`` is Unicode text: no lone surrogate (``"\\ud800"`` from a JSON escape or the
    Python API), which no UTF-8 output, digest or Terraform string can hold."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_names(values: Iterable[str], known: Sequence[str], *, what: str, field: str) -> None:
    """Refuse the first value not in ``known``, with its index and close matches."""
    for index, value in enumerate(values):
        if value not in known:
            raise Refusal(
                f"unknown {what} {shown(value)} (known: {', '.join(known)})",
                field=f"{field}[{index}]",
                suggestions=did_you_mean(value, known),
            )


MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()
"""A required field's default: the field has none."""


class FieldSpec:
    """One declared field: its kind (the Python type of its values), default and bounds.

    ``kind`` is one of ``str``, ``float``, ``int``, ``bool``, ``literal``, ``str_tuple``,
    ``literal_tuple`` and ``model``. A default of None makes the field optional (``X | None``).
    """

    __slots__ = (
        "alias",
        "check",
        "choices",
        "default",
        "factory",
        "ge",
        "gt",
        "kind",
        "le",
        "max_length",
        "min_length",
        "model",
        "name",
        "pattern",
    )

    def __init__(self, kind: str, **options: Any) -> None:
        self.kind = kind
        self.name = ""
        self.alias: str | None = options.pop("alias", None)
        self.default: Any = options.pop("default", MISSING)
        self.factory: Callable[[], Any] | None = options.pop("default_factory", None)
        self.gt: float | None = options.pop("gt", None)
        self.ge: float | None = options.pop("ge", None)
        self.le: float | None = options.pop("le", None)
        self.min_length: int | None = options.pop("min_length", None)
        self.max_length: int | None = options.pop("max_length", None)
        self.pattern: str | None = options.pop("pattern", None)
        self.choices: tuple[str, ...] = tuple(options.pop("choices", ()))
        self.model: type[IntentModel] | None = options.pop("model", None)
        self.check: Callable[[Any], None] | None = options.pop("check", None)
        if options:
            raise TypeError(f"unknown field options: {', '.join(sorted(options))}")

    @property
    def key(self) -> str:
        """The name users write (the alias where there is one)."""
        return self.alias or self.name


# Field specifiers: ``name: str = text(max_length=63)`` declares a field and its rules. They return
# Any so the annotation, not the specifier, is the field's static type. The constructor takes
# ``**data: Any`` on purpose (no PEP 681 transform): nested models may be given as mappings, lists
# for tuples, and whatever the reference models coerce, as the pydantic models took them.


def text(**options: Any) -> Any:
    """A string field (``min_length``, ``max_length``, ``pattern``, ``alias``, ``default``)."""
    return FieldSpec("str", **options)


def number(**options: Any) -> Any:
    """A number field, stored as a float (``gt``, ``ge``, ``le``, ``default``)."""
    return FieldSpec("float", **options)


def integer(**options: Any) -> Any:
    """A whole-number field (``gt``, ``ge``, ``le``, ``default``)."""
    return FieldSpec("int", **options)


def flag(**options: Any) -> Any:
    """A yes/no field: only true or false, never 1 or "yes" (``default``)."""
    return FieldSpec("bool", **options)


def choice(values: Sequence[str], **options: Any) -> Any:
    """One of ``values`` (a Literal field)."""
    return FieldSpec("literal", choices=values, **options)


def texts(**options: Any) -> Any:
    """A list of strings, stored as a tuple (``min_length``, ``max_length``, ``check``, ``default``)."""
    return FieldSpec("str_tuple", **options)


def choices(values: Sequence[str], **options: Any) -> Any:
    """A list of ``values``, stored as a tuple."""
    return FieldSpec("literal_tuple", choices=values, **options)


def nested(model: type[IntentModel], **options: Any) -> Any:
    """A nested model: a mapping of its fields, or an instance of it."""
    return FieldSpec("model", model=model, **options)


class IntentModel:
    """Frozen, unknown fields forbidden, names or aliases accepted: the base of every intent model.

    Build one with keyword fields (nested models as mappings or instances); a bad field is an
    IntentError naming its path. ``replace(**changes)`` makes a validated changed copy.
    """

    __specs__: ClassVar[tuple[FieldSpec, ...]] = ()
    __keys__: ClassVar[Mapping[str, FieldSpec]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        specs = [*cls.__specs__]
        for name, value in list(vars(cls).items()):
            if isinstance(value, FieldSpec):
                value.name = name
                specs.append(value)
                delattr(cls, name)  # an instance holds every field; the class holds no stale default
        cls.__specs__ = tuple(specs)
        cls.__keys__ = {**{s.name: s for s in specs}, **{s.alias: s for s in specs if s.alias}}

    def __init__(self, /, **data: Any) -> None:
        from ._build import build

        self.__dict__.update(build(type(self), data).__dict__)

    @classmethod
    def _prepare(cls, data: dict[Any, Any]) -> dict[Any, Any]:
        """The document before its fields are read (a default derived from other fields)."""
        return data

    def _check(self) -> None:
        """The rules across fields, once every field is valid (raise Refusal).

        Called with the reference model's instance too: read fields as attributes, call no method.
        """

    def to_dict(self, *, exclude_none: bool = False) -> dict[str, Any]:
        """JSON-ready mapping by the names users write (``apiVersion``), every default filled in;
        ``exclude_none`` leaves out unset optionals at every level."""
        out: dict[str, Any] = {}
        for spec in self.__specs__:
            value = getattr(self, spec.name)
            if value is None and exclude_none:
                continue
            if isinstance(value, IntentModel):
                value = value.to_dict(exclude_none=exclude_none)
            elif isinstance(value, tuple):
                value = list(value)
            out[spec.key] = value
        return out

    def replace(self, /, **changes: Any) -> Self:
        """A copy with ``changes`` (field names or aliases), validated like a new model."""
        data = {spec.name: getattr(self, spec.name) for spec in self.__specs__}
        for key, value in changes.items():
            spec = self.__keys__.get(key)
            data[spec.name if spec is not None else key] = value
        return type(self)(**data)

    def __setstate__(self, state: Any) -> None:
        """Unpickle this version's state: the mapping of every field, as pickling wrote it (the
        format is Python's default, unchanged). Anything else is refused here, not at the first
        field read: a pickle of an earlier version's pydantic model held pydantic's own state
        (``__dict__``, ``__pydantic_fields_set__``, ...) and unpickled into an object whose every
        field access raised AttributeError."""
        names = {spec.name for spec in self.__specs__}
        cls = type(self).__name__
        if isinstance(state, dict) and state.keys() == names:
            # The values are validated as the constructor validates them (a nested model arrives
            # built, through its own __setstate__): a forged state's name='${file(...)}' or
            # preferences='garbage' made an unvalidated intent before.
            from ..errors import IntentError
            from ._build import build

            try:
                made = build(type(self), dict(state))
            except IntentError as error:
                raise TypeError(
                    f"cannot unpickle {cls}: its state is not a valid {cls} ({error}). To fix: rebuild "
                    "the intent from its document (WorkloadIntent.from_file(path) or "
                    "WorkloadIntent.from_dict(data)) and pickle that"
                ) from None
            self.__dict__.update({name: made.__dict__[name] for name in state})
            return
        earlier = isinstance(state, dict) and "__pydantic_fields_set__" in state
        what = (
            "an earlier computeops-cdk whose intent models were pydantic models"
            if earlier
            else ("another version of computeops-cdk (its fields differ from this version's)")
        )
        raise TypeError(
            f"cannot unpickle {cls}: the pickle was made by {what}. To fix: rebuild the intent "
            "from its document (WorkloadIntent.from_file(path) or WorkloadIntent.from_dict(data)) "
            "and pickle that"
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise frozen_instance_error(
            f"cannot assign to field {name!r}: {type(self).__name__} is frozen. To change it: "
            f".replace({name}=...)"
        )

    def __delattr__(self, name: str) -> None:
        raise frozen_instance_error(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self).__name__, *self.__dict__.values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items())
        return f"{type(self).__name__}({fields})"
