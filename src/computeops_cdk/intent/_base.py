"""The base of every intent model, and the rules the models share.

Validators raise ``fail(...)`` instead of a bare ValueError so the error carries the sub-field it
is about and any "did you mean" suggestions; ``_errors.py`` turns those into an IntentError.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import FrozenInstanceError
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from ..errors import IntentError, did_you_mean, shown
from ._errors import LONE_SURROGATE, intent_error

__all__ = ["CONTINENTS", "REGION_ID", "IntentModel", "check_names", "fail", "is_text"]

CONTINENTS: tuple[str, ...] = ("AF", "AN", "AS", "EU", "NA", "OC", "SA")
"""Continent codes as the catalog's regions use them (AF Africa ... SA South America)."""

REGION_ID = re.compile(r"^(?P<provider>[a-z0-9]+):(?P<code>[A-Za-z0-9._-]+)$")
"""A region id in an intent: ``provider:region-code`` (for example ``aws:us-east-1``)."""


def fail(message: str, *, field: str = "", suggestions: Sequence[str] = ()) -> PydanticCustomError:
    """An error for ``field`` (relative to the model being validated), ready to ``raise``."""
    return PydanticCustomError(
        "intent", "{message}", {"message": message, "field": field, "suggestions": tuple(suggestions)}
    )


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
            raise fail(
                f"unknown {what} {shown(value)} (known: {', '.join(known)})",
                field=f"{field}[{index}]",
                suggestions=did_you_mean(value, known),
            )


class IntentModel(BaseModel):
    """Frozen, unknown fields forbidden, names or aliases accepted: the base of every intent model.

    Build one with keyword fields (nested models as mappings or instances); a bad field is an
    IntentError naming its path. ``replace(**changes)`` makes a validated changed copy. NaN and
    infinity are refused everywhere: ``.nan`` would slip past every bound check and ``.inf`` has no
    JSON form for the intent's canonical digest.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, allow_inf_nan=False)

    def __init__(self, /, **data: Any) -> None:
        """Build from keyword fields; a bad field is an IntentError naming its path (as ``from_dict``
        raises), not pydantic's ValidationError."""
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise intent_error(err, type(self)) from None

    # A nested model is validated by pydantic itself, keeping its errors' paths: only a direct call
    # runs the __init__ above (pydantic calls an __init__ it does not take as its own).
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @field_validator("*", mode="before")
    @classmethod
    def _no_booleans(cls, value: object, info: ValidationInfo) -> object:
        # Only the declared flags are booleans; pydantic would read `ttft_ms: true` (or YAML 1.1's
        # `yes`/`on`) as 1: a silent wrong answer instead of an error.
        field = cls.model_fields.get(info.field_name or "")
        if isinstance(value, bool) and (field is None or field.annotation is not bool):
            raise fail(
                f"got {str(value).lower()}, but this field is not a yes/no flag. To fix: write a "
                "number or a name (quote yes/no/on/off when you mean the word)"
            )
        return value

    @field_validator("*", mode="before")
    @classmethod
    def _unicode_only(cls, value: object) -> object:
        # A lone surrogate ("\ud800" in JSON) passed pydantic in a list item and crashed the intent's
        # digest at decide time (UnicodeEncodeError): refused in every string.
        items = value if isinstance(value, list | tuple) else (value,)
        for index, item in enumerate(items):
            if isinstance(item, str) and not is_text(item):
                raise fail(LONE_SURROGATE, field=f"[{index}]" if items is value else "")
        return value

    def to_dict(self, *, exclude_none: bool = False) -> dict[str, Any]:
        """JSON-ready mapping by the names users write (``apiVersion``), every default filled in;
        ``exclude_none`` leaves out unset optionals at every level."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=exclude_none)

    def replace(self, /, **changes: Any) -> Self:
        """A copy with ``changes`` (field names or aliases), validated like a new model."""
        fields = type(self).model_fields
        names = {field.alias: name for name, field in fields.items() if field.alias}
        data = {name: getattr(self, name) for name in fields}
        data.update({names.get(key, key): value for key, value in changes.items()})
        return type(self)(**data)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(
            f"cannot assign to field {name!r}: {type(self).__name__} is frozen. To change it: "
            f".replace({name}=...)"
        )

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    def __setstate__(self, state: Any) -> None:
        """Unpickle pydantic's state (``__dict__`` and its bookkeeping), or the mapping of every field
        that pickles of the plain classes of earlier versions held, validated as the constructor
        validates: a forged state's name='${file(...)}' or preferences='garbage' would otherwise make
        an unvalidated intent. Nested models arrive built, through their own __setstate__."""
        cls = type(self).__name__
        fields = state.get("__dict__", state) if isinstance(state, dict) else None
        known = type(self).model_fields
        if isinstance(fields, dict) and fields.keys() < known.keys():
            # an earlier version's pickle, without fields added since with a default (serving.engine)
            added = known.keys() - fields.keys()
            if all(not known[name].is_required() for name in added):
                fields = {**fields, **{name: known[name].get_default() for name in added}}
        if not isinstance(fields, dict) or fields.keys() != known.keys():
            raise TypeError(
                f"cannot unpickle {cls}: the pickle was made by another version of computeops-cdk (its "
                "fields differ from this version's). To fix: rebuild the intent from its document "
                "(WorkloadIntent.from_file(path) or WorkloadIntent.from_dict(data)) and pickle that"
            )
        try:
            made = type(self)(**fields)
        except IntentError as error:
            raise TypeError(
                f"cannot unpickle {cls}: its state is not a valid {cls} ({error}). To fix: rebuild "
                "the intent from its document (WorkloadIntent.from_file(path) or "
                "WorkloadIntent.from_dict(data)) and pickle that"
            ) from None
        super().__setstate__(made.__getstate__())
