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
    item = dict(_document()["offers"][0])
    del item["region"]
    with pytest.raises(KeyError):
        _records_unchecked(Offer, [item])


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


@pytest.mark.parametrize("cls", [_Checked, _Factory, _NoSlots, _Derived])
def test_a_class_whose_init_does_more_is_called(cls: type[Any]) -> None:
    assert _slot_plan(cls) is None
    assert _records_unchecked(cls, [{"value": 1}]) == (cls(value=1),)


def test_a_post_init_check_still_runs() -> None:
    with pytest.raises(ValueError, match="negative"):
        _records_unchecked(_Checked, [{"value": -1}])
