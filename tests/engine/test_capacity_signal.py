"""An offer's capacity signal (RunPod stock, Lambda regions with capacity) in the availability score.

Offers without a signal (every snapshot offer) score exactly as before, so decisions on the
embedded catalog and the goldens do not change.
"""

from __future__ import annotations

import dataclasses

import pytest
from engine_testdata import inference, make_catalog

from computeops_cdk.catalog import load_catalog
from computeops_cdk.engine import decide
from computeops_cdk.engine._scores import CAPACITY_FACTOR, availability_score


def test_the_capacity_factor_scales_availability_and_no_signal_changes_nothing() -> None:
    base = availability_score("on_demand", 8, "neocloud")
    assert availability_score("on_demand", 8, "neocloud", None) == base
    assert availability_score("on_demand", 8, "neocloud", "available") == base
    assert availability_score("on_demand", 8, "neocloud", "high") == base
    assert availability_score("on_demand", 8, "neocloud", "low") == pytest.approx(base * 0.75)
    assert availability_score("on_demand", 8, "neocloud", "none") == pytest.approx(base * 0.25)
    assert list(CAPACITY_FACTOR) == ["high", "available", "medium", "low", "none"]


def _with_capacity(catalog: object, provider: str, level: str | None) -> object:
    offers = tuple(
        dataclasses.replace(o, capacity=level) if o.provider == provider else o
        for o in catalog.offers  # type: ignore[attr-defined]
    )
    return dataclasses.replace(catalog, offers=offers)


def test_out_of_stock_offers_score_lower_availability_in_a_decision() -> None:
    catalog = make_catalog()
    chosen = decide(inference(), catalog=catalog).chosen
    assert chosen is not None
    out = decide(inference(), catalog=_with_capacity(catalog, chosen.provider, "none"))
    again = [p for p in out.ranked if (p.provider, p.instance_type, p.region, p.pricing) == (
        chosen.provider, chosen.instance_type, chosen.region, chosen.pricing)]  # fmt: skip
    assert again and again[0].scores["availability"] == pytest.approx(
        chosen.scores["availability"] * 0.25, abs=1e-4
    )


def test_a_capacity_free_catalog_decides_byte_for_byte_as_before() -> None:
    catalog = load_catalog()
    assert all(o.capacity is None for o in catalog.offers)
    same = _with_capacity(catalog, "lambda", None)
    assert decide(inference(), catalog=same).to_json() == decide(inference(), catalog=catalog).to_json()
