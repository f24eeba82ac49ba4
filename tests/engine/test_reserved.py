"""Reserved offers end to end (issue 12 s4): admitted only when asked, the commitment, the whole
term charged to a job shorter than it, inference priced hourly, and the catalog carrying them.

The reserved prices here are test values (on-demand x 0.6 for 1 year, x 0.4 for 3 years) written
into a copy of the market data: the embedded catalog has no reserved offers (no citable source
for them was found; a refresh from the AWS bulk files or Azure's Retail Prices API brings them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from reserved_testdata import with_reserved as _with_reserved

from computeops_cdk.catalog import HOURS_PER_MONTH, Catalog, load_catalog
from computeops_cdk.catalog._build import build_catalog
from computeops_cdk.catalog._load import catalog_from_document
from computeops_cdk.engine import decide
from computeops_cdk.engine._reserved import committed
from computeops_cdk.errors import CatalogError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def reserved_catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    return catalog_from_document(build_catalog(_with_reserved(tmp_path_factory.mktemp("reserved"))))


def _train(**constraints: Any) -> dict[str, Any]:
    return {
        "name": "short-lora",
        "workload": {
            "type": "fine_tuning",
            "model": {"name": "llama-3.1-70b"},
            "training": {"tokens": 2.0e8, "seq_len": 4096, "global_batch_tokens": 1048576, "method": "lora"},
        },
        "constraints": {"providers": {"allow": ["aws"]}, **constraints},
    }


def _serve(**constraints: Any) -> dict[str, Any]:
    return {
        "name": "chat",
        "workload": {
            "type": "inference",
            "model": {"name": "llama-3-8b"},
            "serving": {"output_tokens_per_s": 500},
        },
        "constraints": {"providers": {"allow": ["aws"]}, **constraints},
    }


def test_the_builder_makes_one_reserved_offer_per_term_with_its_term_and_upfront(
    reserved_catalog: Catalog,
) -> None:
    p5 = [o for o in reserved_catalog.offers_of("aws", "p5.48xlarge") if o.region == "us-east-1"]
    by_model = {(o.pricing, o.term_months): o for o in p5}
    on_demand = by_model[("on_demand", None)]
    one, three = by_model[("reserved", 12)], by_model[("reserved", 36)]
    assert on_demand.hourly_usd is not None and one.hourly_usd is not None and three.hourly_usd is not None
    assert (one.upfront, three.upfront, on_demand.upfront) == ("none", "none", None)
    assert one.hourly_usd < on_demand.hourly_usd and three.hourly_usd < one.hourly_usd
    assert one.term_hours == 12 * HOURS_PER_MONTH == 8760 and three.term_hours == 26280
    assert "12-month reservation, no upfront" in one.source and one.as_of == on_demand.as_of


def test_the_catalog_document_with_reserved_offers_is_schema_valid(tmp_path: Path) -> None:
    doc = build_catalog(_with_reserved(tmp_path))
    schema = json.loads((ROOT / "schemas" / "catalog.schema.json").read_text())
    jsonschema.validate(doc, schema)
    reserved = [o for o in doc["offers"] if o["pricing"] == "reserved"]
    assert reserved and all(o["term_months"] in (12, 36) and o["upfront"] == "none" for o in reserved)
    others = [o for o in doc["offers"] if o["pricing"] != "reserved"]
    assert all("term_months" not in o and "upfront" not in o for o in others)
    broken = {**reserved[0]}
    del broken["term_months"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**doc, "offers": [broken]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**doc, "offers": [{**others[0], "term_months": 12, "upfront": "none"}]}, schema)


def test_the_embedded_catalog_has_no_reserved_offers() -> None:
    assert not [o for o in load_catalog().offers if o.pricing == "reserved"]


def test_a_reservation_above_on_demand_is_refused_by_the_sanity_checks() -> None:
    from computeops_cdk.catalog._sanity import check_rows

    row = {
        "InstanceType": "p5.48xlarge",
        "AcceleratorName": "H100",
        "AcceleratorCount": "8",
        "Price": "55.04",
        "ReservedPrice1yr": "60.0",
        "Region": "us-east-1",
    }
    [refusal] = [r for r in check_rows("aws", [row], [row]) if r.check == "price.reserved_above_on_demand"]
    assert "on-demand 55.04 < reserved 60" in refusal.detail


def test_reserved_offers_stay_out_unless_the_intent_admits_reserved(reserved_catalog: Catalog) -> None:
    default = decide(_serve(), catalog=reserved_catalog)
    assert default.chosen is not None and default.chosen.pricing == "on_demand"
    assert all(p.pricing != "reserved" for p in default.ranked)
    rules = {r.rule for rej in default.rejected for r in rej.reasons if rej.pricing == "reserved"}
    assert rules and "pricing.model" in rules
    # Same decision as over the embedded catalog: reserved offers change nothing unless admitted.
    embedded = decide(_serve())
    assert default.chosen == embedded.chosen
    asked = decide(_serve(pricing=["reserved"]), catalog=reserved_catalog)
    assert asked.chosen is not None and {p.pricing for p in asked.ranked} == {"reserved"}


def test_inference_over_a_term_is_priced_hourly_and_shows_the_commitment(reserved_catalog: Catalog) -> None:
    decision = decide(_serve(pricing=["reserved"]), catalog=reserved_catalog)
    chosen = decision.chosen
    assert chosen is not None and chosen.term_months in (12, 36)
    assert chosen.total_usd is None and not chosen.whole_term_charged
    hours = chosen.term_months * HOURS_PER_MONTH
    assert chosen.commitment_usd == round(chosen.hourly_usd * hours, 2)
    # the unit cost is the hourly price over the tokens served, as for on-demand
    expected = chosen.hourly_usd / (500 * 3600) * 1e6
    assert chosen.unit_cost.value == pytest.approx(expected, rel=1e-3)
    full = json.loads(decision.to_json())
    jsonschema.validate(full, json.loads((ROOT / "schemas" / "decision.schema.json").read_text()))
    doc = full["decision"]
    assert doc["reservation"] == {
        "term_months": chosen.term_months,
        "term_hours": hours,
        "upfront": "none",
        "effective_hourly_usd": chosen.hourly_usd,
        "commitment_usd": chosen.commitment_usd,
        "whole_term_charged": False,
    }
    [line] = [x for x in decision.explanation if x.startswith("Reserved for ")]
    assert f"{chosen.commitment_usd:,.2f} USD" in line and "priced hourly" in line


def test_a_training_job_shorter_than_the_term_pays_the_whole_term(reserved_catalog: Catalog) -> None:
    decision = decide(_train(pricing=["reserved"]), catalog=reserved_catalog)
    chosen = decision.chosen
    assert chosen is not None and chosen.pricing == "reserved" and chosen.hours is not None
    hours = chosen.term_months * HOURS_PER_MONTH if chosen.term_months else 0
    assert chosen.hours < hours and chosen.whole_term_charged
    assert chosen.total_usd == pytest.approx(chosen.hourly_usd * hours, rel=1e-4)
    assert chosen.commitment_usd == chosen.total_usd
    steps = 2.0e8 / 1048576
    assert chosen.unit_cost.value == pytest.approx(chosen.total_usd / steps, rel=1e-3)
    [line] = [x for x in decision.explanation if x.startswith("Reserved for ")]
    assert "shorter than the term" in line and "whole commitment" in line
    on_demand = decide(_train(), catalog=reserved_catalog).chosen
    assert on_demand is not None and on_demand.total_usd is not None
    assert on_demand.total_usd < chosen.total_usd  # a short job is cheaper without a commitment


def test_a_budget_cap_counts_the_whole_commitment(reserved_catalog: Catalog) -> None:
    from computeops_cdk.errors import NoFeasiblePlacementError

    with pytest.raises(NoFeasiblePlacementError) as info:
        decide(_train(pricing=["reserved"], max_total_usd=5000), catalog=reserved_catalog)
    rules = {r.rule for rej in info.value.rejections for r in rej.reasons if rej.pricing == "reserved"}
    assert "price.max_total" in rules


def test_commitment_math() -> None:
    assert committed(10.0, 8760, None) == (87600.0, False, None)  # a service commits to one term
    assert committed(10.0, 8760, 48.0) == (87600.0, True, 8760.0)  # a 48 h job pays the year
    assert committed(10.0, 8760, 8760.0) == (87600.0, False, 8760.0)  # exactly one term
    assert committed(10.0, 8760, 9000.0) == (175200.0, True, 17520.0)  # two whole terms


def test_two_reserved_offers_of_one_term_are_a_duplicate(tmp_path: Path) -> None:
    doc = build_catalog(_with_reserved(tmp_path))
    reserved = next(o for o in doc["offers"] if o["pricing"] == "reserved")
    from computeops_cdk.catalog._validate import check_integrity

    with pytest.raises(CatalogError, match="duplicate entry"):
        check_integrity({**doc, "offers": [*doc["offers"], dict(reserved)]})


def test_a_reserved_lock_holds_its_term(reserved_catalog: Catalog) -> None:
    from datetime import UTC, datetime

    from computeops_cdk.engine import LockedPlacement, evaluate_drift

    intent = _serve(pricing=["reserved"])
    chosen = decide(intent, catalog=reserved_catalog).chosen
    assert chosen is not None and chosen.term_months is not None
    locked = LockedPlacement.from_placement(chosen, locked_at="2026-12-01T00:00:00Z")
    assert locked.term_months == chosen.term_months
    again = LockedPlacement.from_dict(json.loads(json.dumps(locked.to_dict())))
    assert again == locked and again.to_dict()["term_months"] == chosen.term_months
    drift = evaluate_drift(again, intent, catalog=reserved_catalog, now=datetime(2026, 12, 2, tzinfo=UTC))
    assert drift.current is not None and drift.current.term_months == chosen.term_months
    other = 36 if chosen.term_months == 12 else 12
    moved = LockedPlacement.from_dict({**locked.to_dict(), "term_months": other})
    drift = evaluate_drift(moved, intent, catalog=reserved_catalog, now=datetime(2026, 12, 2, tzinfo=UTC))
    assert drift.current is None or drift.current.term_months == other
    with pytest.raises(Exception, match="term_months: must be 12 or 36"):
        LockedPlacement.from_dict({**locked.to_dict(), "term_months": 24})
    on_demand = decide(_serve(), catalog=reserved_catalog).chosen
    assert on_demand is not None
    assert (
        "term_months"
        not in LockedPlacement.from_placement(on_demand, locked_at="2026-12-01T00:00:00Z").to_dict()
    )
