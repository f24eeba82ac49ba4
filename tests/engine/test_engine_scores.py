"""The six score formulas, one by one, and how they combine."""

from __future__ import annotations

import pytest
from engine_testdata import PROVIDERS, REGIONS, inference, make_catalog

from computeops_cdk.catalog import Attestation, Provider
from computeops_cdk.engine import decide
from computeops_cdk.engine._scores import (
    availability_score,
    compliance_credit,
    cost_score,
    performance_score,
    reliability_score,
    residency_score,
    weighted,
)
from computeops_cdk.intent import WorkloadIntent

AWS, LAMBDA, VAST = PROVIDERS


def test_cost_is_cheapest_over_this() -> None:
    assert cost_score(0.5, 0.5) == 1.0
    assert cost_score(2.0, 0.5) == 0.25


def test_performance_is_a_log_scaled_speed_per_figure() -> None:
    # twice as slow on one figure, as fast on the other: (0.5 + 1.0) / 2
    assert performance_score((50.0, 400.0), (25.0, 400.0)) == pytest.approx(0.75)
    assert performance_score((10.0,), (10.0,)) == 1.0
    assert performance_score((None,), (None,)) == 1.0
    # 16x slower keeps a fifth of the credit (a linear ratio would leave 1/16)
    assert performance_score((160.0,), (10.0,)) == pytest.approx(0.2)


def test_speed_score_falls_monotonically_and_stays_in_range() -> None:
    from computeops_cdk.engine._scores import speed_score

    values = [1.0, 1.5, 2.0, 4.0, 100.0, 1e9]
    scores = [speed_score(v, 1.0) for v in values]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] == 1.0 and scores[2] == pytest.approx(0.5) and 0.0 < scores[-1] < 0.04


def test_availability_prefers_reserved_over_on_demand_over_spot_and_small_blocks() -> None:
    reserved, on_demand, spot = (
        availability_score(p, 8, "hyperscaler") for p in ("reserved", "on_demand", "spot")
    )
    assert reserved > on_demand > spot
    assert availability_score("on_demand", 8, "neocloud") == pytest.approx(0.8)
    assert availability_score("on_demand", 1, "neocloud") == availability_score("on_demand", 8, "neocloud")
    assert availability_score("on_demand", 8, "marketplace") == pytest.approx(0.48)
    # a 256-chip slice is harder to get than an 8-chip one, and more so on spot (5 doublings)
    assert availability_score("on_demand", 256, "hyperscaler") == pytest.approx(0.8 / 1.5)
    assert availability_score("spot", 256, "hyperscaler") == pytest.approx(0.4 / 2.0)


def test_reliability_blends_kind_and_published_sla() -> None:
    assert reliability_score(AWS) == pytest.approx(0.5 * 0.9 + 0.5 * 0.5)  # SLA 99.5 %
    assert reliability_score(LAMBDA) == pytest.approx(0.8 * 0.75)  # no published SLA
    assert reliability_score(VAST) < reliability_score(LAMBDA) < reliability_score(AWS)


def test_compliance_credits_evidence_grades_in_region() -> None:
    score, weak = compliance_credit(AWS, "us-east-1")
    assert score == pytest.approx(2 / 7) and weak == ()  # hipaa + soc2; fedramp_high not in this region
    assert compliance_credit(AWS, "us-gov-west-1")[0] == pytest.approx(3 / 7)
    score, weak = compliance_credit(LAMBDA, "us-east-1")
    assert score == pytest.approx(0.25 / 7) and weak == ("soc2",)
    third = Provider(
        id="x",
        display_name="x",
        kind="neocloud",
        attestations=(Attestation(scope="iso27001", evidence="third_party", source="s"),),
    )
    assert compliance_credit(third, "r")[0] == pytest.approx(0.5 / 7)


def test_residency_preferred_region_then_country_then_continent() -> None:
    regions = {(r.provider, r.code): r for r in REGIONS}
    preferred = [("aws", "us-east-1")]
    records = [regions[("aws", "us-east-1")]]
    assert residency_score("aws", regions[("aws", "us-east-1")], "us-east-1", preferred, records) == 1.0
    assert residency_score("lambda", regions[("lambda", "us-east-1")], "us-east-1", preferred, records) == 0.6
    assert residency_score("aws", regions[("aws", "eu-central-1")], "eu-central-1", preferred, records) == 0.0
    assert residency_score("vast", regions[("vast", "us")], "us", [], []) == 1.0  # no preference: neutral


def test_weighted_is_the_weighted_mean() -> None:
    scores = {"cost": 1.0, "performance": 0.0}
    assert weighted(scores, {"cost": 3.0, "performance": 1.0}) == 0.75


def test_scores_in_a_decision_are_in_unit_range_and_cheapest_gets_full_cost() -> None:
    decision = decide(inference(), catalog=make_catalog())
    for placement in decision.ranked:
        assert all(0.0 <= v <= 1.0 for v in placement.scores.values())
        assert 0.0 <= placement.score <= 1.0
    best_unit = min(p.unit_cost.value for p in decision.ranked)
    assert all(p.scores["cost"] == 1.0 for p in decision.ranked if p.unit_cost.value == best_unit)


def test_weights_change_the_ranking() -> None:
    by_cost = decide(inference(), catalog=make_catalog())
    by_reliability = decide(
        inference().replace(
            preferences=inference().preferences.replace(
                weights=inference().preferences.weights.replace(cost=0.0, performance=0.0, reliability=5.0)
            )
        ),
        catalog=make_catalog(),
    )
    assert by_cost.chosen is not None and by_reliability.chosen is not None
    assert by_cost.chosen.provider == "vast"  # cheapest unit cost
    assert by_reliability.chosen.provider == "aws"  # hyperscaler with a published SLA


def test_preferred_regions_move_the_choice() -> None:
    intent = WorkloadIntent.from_dict(
        {
            **inference().to_dict(),
            "preferences": {"regions": ["lambda:europe-central-1"], "weights": {"residency": 50}},
        }
    )
    decision = decide(intent, catalog=make_catalog())
    assert decision.chosen is not None
    assert (decision.chosen.provider, decision.chosen.region) == ("lambda", "europe-central-1")
