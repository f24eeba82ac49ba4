"""The reference models: pydantic models generated from the intent's declarations, made on first use.

They decide whatever the fast path (``_build.py``) does not take: they coerce what pydantic v2
coerces (``"16"`` for a whole number, ``5.0`` for 5), collect every problem of a document with its
path for the IntentError (``_errors.py``), and generate the JSON Schema (``_schema.py``). Each public
model's rules run here too: its field checks as field validators, its ``_prepare`` before and its
``_check`` after the fields, their Refusals turned into pydantic errors with the same words.
"""

from __future__ import annotations

import threading
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ._errors import LONE_SURROGATE, intent_error
from ._fields import MISSING, FieldSpec, IntentModel, Refusal, is_text

__all__ = ["StrictModel", "public", "reference", "validated"]

M = TypeVar("M", bound=IntentModel)


class StrictModel(BaseModel):
    """Frozen, unknown fields forbidden, names or aliases accepted: the base of every reference model.

    NaN and infinity are rejected everywhere: ``.nan`` would slip past every bound check and
    ``.inf`` has no JSON form for the intent's canonical digest.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_booleans(cls, value: object, info: ValidationInfo) -> object:
        # Only the declared flags (StrictBool fields) are booleans; pydantic would read
        # `ttft_ms: true` (or YAML 1.1's `yes`/`on`) as 1: a silent wrong answer instead of an error.
        field = cls.model_fields.get(info.field_name or "")
        if field is not None and field.annotation is bool:
            return value
        if isinstance(value, bool):
            raise _error(
                Refusal(
                    f"got {str(value).lower()}, but this field is not a yes/no flag. To fix: write a "
                    "number or a name (quote yes/no/on/off when you mean the word)"
                )
            )
        return value

    @field_validator("*", mode="before")
    @classmethod
    def _unicode_only(cls, value: object) -> object:
        # A lone surrogate ("\ud800" in JSON) passed pydantic in a list item and crashed the intent's
        # digest at decide time (UnicodeEncodeError); refused in every string, as the fast path does.
        items = value if isinstance(value, list | tuple) else (value,)
        for index, item in enumerate(items):
            if isinstance(item, str) and not is_text(item):
                raise _error(Refusal(LONE_SURROGATE, field=f"[{index}]" if items is value else ""))
        return value


def _error(refusal: Refusal) -> PydanticCustomError:
    return PydanticCustomError(
        "intent",
        "{message}",
        {"message": refusal.message, "field": refusal.field, "suggestions": refusal.suggestions},
    )


_models: dict[type[IntentModel], type[StrictModel]] = {}
_generating = threading.RLock()  # one model per class, however many threads validate first


def reference(cls: type[IntentModel]) -> type[StrictModel]:
    """The pydantic model of ``cls`` (generated once per process)."""
    model = _models.get(cls)
    if model is None:
        with _generating:  # re-entered for the nested models
            model = _models.get(cls)
            if model is None:
                model = _models[cls] = _generate(cls)
    return model


def validated(cls: type[M], data: Any) -> M:
    """``cls`` validated by its reference model: IntentError naming the path(s) on any problem."""
    model = reference(cls)
    try:
        checked = model.model_validate(_plain(cls, data))
    except ValidationError as err:
        raise intent_error(err, model) from None
    return public(cls, checked)


def public(cls: type[M], checked: BaseModel) -> M:
    """The public model holding a reference model's (validated, coerced) values."""
    made = object.__new__(cls)
    fields = made.__dict__
    for spec in cls.__specs__:
        value = getattr(checked, spec.name)
        if spec.model is not None and isinstance(value, BaseModel):
            value = public(spec.model, value)
        fields[spec.name] = value
    return made


def _plain(cls: type[IntentModel], data: Any) -> Any:
    """``data`` with each instance of a nested field's own model as the mapping of its fields: the
    reference models take those, not the public classes. Only the declared nested fields are
    followed (a cyclic or deep value elsewhere is pydantic's to refuse); an instance of another
    model is left as it is, so it is refused as the pydantic models refused it."""
    if isinstance(data, cls):
        return {spec.name: _plain_field(spec, getattr(data, spec.name)) for spec in cls.__specs__}
    if not isinstance(data, dict):
        return data
    keys = cls.__keys__
    return {
        key: _plain_field(spec, value) if (spec := keys.get(key) if isinstance(key, str) else None) else value
        for key, value in data.items()
    }


def _plain_field(spec: FieldSpec, value: Any) -> Any:
    return _plain(spec.model, value) if spec.model is not None else value


def _annotation(spec: FieldSpec) -> Any:
    kind = spec.kind
    annotation: Any
    if kind == "model":
        assert spec.model is not None, spec.name
        annotation = reference(spec.model)
    elif kind == "literal":
        annotation = Literal[spec.choices]
    elif kind == "str_tuple":
        annotation = tuple[str, ...]
    elif kind == "literal_tuple":
        item: Any = Literal[spec.choices]
        annotation = tuple[item, ...]
    else:
        annotation = {"str": str, "float": float, "int": int, "bool": bool}[kind]
    return annotation | None if spec.default is None else annotation


def _field(spec: FieldSpec) -> Any:
    options: dict[str, Any] = {
        name: value
        for name in ("gt", "ge", "le", "min_length", "max_length", "pattern", "alias")
        if (value := getattr(spec, name)) is not None
    }
    if spec.kind == "bool":
        options["strict"] = True
    if spec.factory is not None:
        factory = spec.factory
        model = reference(factory) if isinstance(factory, type) and issubclass(factory, IntentModel) else None
        options["default_factory"] = (lambda: model.model_validate({})) if model is not None else factory
    elif spec.default is not MISSING:
        options["default"] = spec.default
    return Field(**options)


def _generate(cls: type[IntentModel]) -> type[StrictModel]:
    validators: dict[str, Any] = {}
    for spec in cls.__specs__:
        if spec.check is not None:
            validators[f"_check_{spec.name}"] = field_validator(spec.name)(_field_check(spec))
    if cls._prepare.__func__ is not IntentModel._prepare.__func__:  # type: ignore[attr-defined]
        validators["_prepare"] = model_validator(mode="before")(_prepared(cls))
    if cls._check is not IntentModel._check:
        validators["_check"] = model_validator(mode="after")(_checked(cls))
    fields: dict[str, Any] = {spec.name: (_annotation(spec), _field(spec)) for spec in cls.__specs__}
    model: type[StrictModel] = create_model(
        cls.__name__,
        __base__=StrictModel,
        __doc__=cls.__doc__,
        __module__=__name__,
        __validators__=validators,
        **fields,
    )
    return model


def _field_check(spec: FieldSpec) -> Any:
    check = spec.check
    assert check is not None

    def checked(model: type[BaseModel], value: Any) -> Any:
        try:
            check(value)
        except Refusal as refusal:
            raise _error(refusal) from None
        return value

    return classmethod(checked)


def _prepared(cls: type[IntentModel]) -> Any:
    def prepared(model: type[BaseModel], data: Any) -> Any:
        return cls._prepare(data) if isinstance(data, dict) else data

    return classmethod(prepared)


def _checked(cls: type[IntentModel]) -> Any:
    def checked(self: BaseModel) -> BaseModel:
        try:
            cls._check(self)  # type: ignore[arg-type]  # reads the same fields as attributes
        except Refusal as refusal:
            raise _error(refusal) from None
        return self

    return checked
