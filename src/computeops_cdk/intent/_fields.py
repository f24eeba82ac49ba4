"""Shared building blocks of the intent models: the strict base class and the error helper.

Validators raise ``fail(...)`` instead of a bare ValueError so the error carries the sub-field it
is about and any "did you mean" suggestions; ``_errors.py`` turns those into an IntentError.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from ..errors import did_you_mean, shown

__all__ = ["CONTINENTS", "REGION_ID", "StrictModel", "check_names", "fail"]

CONTINENTS: tuple[str, ...] = ("AF", "AN", "AS", "EU", "NA", "OC", "SA")
"""Continent codes as the catalog's regions use them (AF Africa ... SA South America)."""

REGION_ID = re.compile(r"^(?P<provider>[a-z0-9]+):(?P<code>[A-Za-z0-9._-]+)$")
"""A region id in an intent: ``provider:region-code`` (for example ``aws:us-east-1``)."""


class StrictModel(BaseModel):
    """Frozen, unknown fields forbidden, names or aliases accepted: the base of every intent model.

    NaN and infinity are rejected everywhere: ``.nan`` would slip past every bound check and
    ``.inf`` has no JSON form for the intent's canonical digest.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, allow_inf_nan=False)

    def __init__(self, /, **data: Any) -> None:
        """Build from keyword fields; a bad field is an IntentError naming its path (as ``from_dict``
        raises), not pydantic's ValidationError (``WorkloadIntent(name="Chat", workload={})`` gave that)."""
        try:
            super().__init__(**data)
        except ValidationError as err:
            from ._errors import intent_error  # _errors imports this module

            raise intent_error(err, type(self)) from None

    # Validation (model_validate, nested models) keeps pydantic's own path: only a direct call runs
    # the method above. pydantic routes validation through an __init__ not marked as its own.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @field_validator("*", mode="before")
    @classmethod
    def _no_booleans(cls, value: object, info: ValidationInfo) -> object:
        # Only the declared flags (StrictBool fields) are booleans; pydantic would read
        # `ttft_ms: true` (or YAML 1.1's `yes`/`on`) as 1: a silent wrong answer instead of an error.
        field = cls.model_fields.get(info.field_name or "")
        if field is not None and field.annotation is bool:
            return value
        if isinstance(value, bool):
            raise fail(
                f"got {str(value).lower()}, but this field is not a yes/no flag. To fix: write a "
                "number or a name (quote yes/no/on/off when you mean the word)"
            )
        return value


def fail(message: str, *, field: str = "", suggestions: Sequence[str] = ()) -> PydanticCustomError:
    """An error for ``field`` (relative to the model being validated), ready to ``raise``."""
    return PydanticCustomError(
        "intent",
        "{message}",
        {"message": message, "field": field, "suggestions": tuple(suggestions)},
    )


def check_names(values: Iterable[str], known: Sequence[str], *, what: str, field: str) -> None:
    """Raise for the first value not in ``known``, with its index and close matches."""
    for index, value in enumerate(values):
        if value not in known:
            raise fail(
                f"unknown {what} {shown(value)} (known: {', '.join(known)})",
                field=f"{field}[{index}]",
                suggestions=did_you_mean(value, known),
            )
