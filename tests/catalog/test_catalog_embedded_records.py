"""The embedded catalog's records made by setting their slots (catalog/_load.py, a cold decide's load)
against the dataclasses' own ``__init__``: the same records, and every class whose ``__init__`` does
more than set its fields is still called."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from computeops_cdk.catalog import load_catalog
from computeops_cdk.catalog._load import (
    EMBEDDED_CATALOG,
    _records_called,
    _records_unchecked,
    _slot_plan,
    catalog_from_document,
)
from computeops_cdk.catalog._types import InstanceType, Offer, Region
from computeops_cdk.errors import CatalogError


def _document() -> dict[str, Any]:
    return json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_embedded_catalog_loads_the_records_its_classes_make() -> None:
    doc = _document()
    called = catalog_from_document(doc)  # every record through its dataclass __init__
    loaded = load_catalog()
    assert loaded == called
    assert repr(loaded) == repr(called)
    for name in ("regions", "instance_types", "offers"):
        for ours, theirs in zip(getattr(loaded, name), getattr(called, name), strict=True):
            assert type(ours) is type(theirs)
            assert hash(ours) == hash(theirs)


@pytest.mark.parametrize(
    ("cls", "key"), [(Offer, "offers"), (InstanceType, "instance_types"), (Region, "regions")]
)
def test_fields_left_out_take_their_defaults_and_given_ones_their_values(cls: type[Any], key: str) -> None:
    items = _document()[key][:40]
    trimmed = [{k: v for k, v in item.items() if k not in _optional(cls)} for item in items]
    for chosen in (items, trimmed):
        assert _records_unchecked(cls, chosen) == _records_called(cls, chosen)
        assert repr(_records_unchecked(cls, chosen)) == repr(_records_called(cls, chosen))


def _optional(cls: type[Any]) -> set[str]:
    plan = _slot_plan(cls)
    assert plan is not None
    return {name for name, _, _ in plan[1]}


def test_a_missing_required_field_is_an_error_not_an_empty_slot() -> None:
    """D3: a CatalogError naming the record and the field (a KeyError before; TypeError from
    ``Offer(**item)`` before the slots were set)."""
    items = _document()["offers"][:3]
    items[2] = {k: v for k, v in items[2].items() if k != "region"}
    with pytest.raises(CatalogError, match=r"^\$\.offers\[2\]: this Offer record has no 'region'"):
        _records_unchecked(Offer, items)


@pytest.mark.parametrize(
    ("cls", "key"), [(Offer, "offers"), (Region, "regions"), (InstanceType, "instance_types")]
)
def test_an_unknown_field_is_an_error_naming_the_record_and_the_field(cls: type[Any], key: str) -> None:
    """D3: what ``cls(**item)`` refuses (a TypeError traceback) is a CatalogError, not accepted."""
    items = _document()[key][:3]
    items[1] = {**items[1], "colour": "red"}
    with pytest.raises(
        CatalogError, match=rf"^\$\.{key}\[1\]: this {cls.__name__} record has an unknown field 'colour'"
    ):
        _records_unchecked(cls, items)
    with pytest.raises(TypeError):
        _records_called(cls, items)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Checked:
    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("negative")


@dataclass(frozen=True, slots=True, kw_only=True)
class _Factory:
    value: int
    extra: tuple[int, ...] = field(default_factory=tuple)


@dataclass(frozen=True, kw_only=True)
class _NoSlots:
    value: int


@dataclass(frozen=True, slots=True, kw_only=True)
class _Derived:
    value: int
    twice: int = field(init=False, default=0)


@dataclass(frozen=True, slots=True, kw_only=True, init=False)
class _OwnInit:
    value: int

    def __init__(self, *, value: int) -> None:  # what dataclass leaves alone with init=False
        object.__setattr__(self, "value", value * 2)


@pytest.mark.parametrize("cls", [_Checked, _Factory, _NoSlots, _Derived, _OwnInit])
def test_a_class_whose_init_does_more_is_called(cls: type[Any]) -> None:
    assert _slot_plan(cls) is None
    assert _records_unchecked(cls, [{"value": 1}]) == (cls(value=1),)


def test_a_post_init_check_still_runs() -> None:
    with pytest.raises(ValueError, match="negative"):
        _records_unchecked(_Checked, [{"value": -1}])


def test_a_hand_written_init_still_runs() -> None:
    """D4: a slotted dataclass declared with init=False keeps its own __init__."""
    assert _records_unchecked(_OwnInit, [{"value": 2}])[0].value == 4
