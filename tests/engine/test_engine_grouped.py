"""The grouped evaluation (engine/_groups.py) finds what the offer-by-offer one does, offer by offer.

``decide`` evaluates by group of offers and makes each rejection's reasons when they are read; the
offer-by-offer ``evaluate_each`` is the reference: same feasible candidates with the same prices,
the same rejections (reasons and messages) in the same order, the same counts by rule, example
indices and pinned-out counts, over the example intents, random intents, reserved offers, pins
and the rules only some intents use (price age, suspect prices, compliance in a node pool).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from engine_testdata import inference, intent_of, make_catalog, training
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reserved_testdata import RESERVED_CHAT, with_reserved
from test_engine_properties import REGIONS, intents

from computeops_cdk.catalog import Catalog, load_catalog
from computeops_cdk.catalog._build import build_catalog
from computeops_cdk.catalog._load import catalog_from_document
from computeops_cdk.engine import Pin, decide
from computeops_cdk.engine._columns import Column, assemble, offer_columns, set_bits
from computeops_cdk.engine._decide import _caps
from computeops_cdk.engine._evaluate import Candidate, Evaluation, evaluate_each, evaluator
from computeops_cdk.engine._groups import evaluate_grouped
from computeops_cdk.engine._index import catalog_index
from computeops_cdk.engine._misses import UNRELAXABLE, nearest_misses
from computeops_cdk.engine._rank import rank, rank_key, score_all
from computeops_cdk.engine._resolve import resolve
from computeops_cdk.engine._sizing import sizer_for
from computeops_cdk.engine._suspect import suspect_prices
from computeops_cdk.errors import NoFeasiblePlacementError
from computeops_cdk.intent import WorkloadIntent
from computeops_cdk.targets import placement_pin

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
EMBEDDED = load_catalog()


def _both(intent: WorkloadIntent, catalog: Catalog, pin: Pin) -> tuple[Evaluation, Evaluation]:
    index = catalog_index(catalog)
    resolved = resolve(intent, catalog, pin)
    sizer = sizer_for(intent.workload, intent.preferences.capacity_headroom)

    def rules() -> Any:
        return evaluator(intent, resolved, pin, sizer, suspect_prices(catalog), catalog.as_of)

    return evaluate_grouped(rules(), offer_columns(catalog, index)), evaluate_each(rules(), index)


def _candidate(c: Candidate) -> tuple[object, ...]:
    return (
        c.row,
        c.sizing,
        c.hourly,
        c.total,
        c.reasons,
        c.list_hourly,
        c.terms,
        c.commitment,
        c.whole_term,
        c.services,
    )


def _assert_same(intent: WorkloadIntent, catalog: Catalog, pin: Pin) -> None:
    grouped, each = _both(intent, catalog, pin)
    assert [_candidate(c) for c in grouped.feasible] == [_candidate(c) for c in each.feasible]
    assert [_candidate(c) for c in grouped.pinned_out_feasible] == [
        _candidate(c) for c in each.pinned_out_feasible
    ]
    assert grouped.pinned_out == each.pinned_out
    assert len(grouped.rejected) == len(each.rejected)
    # the counts and examples are known before any rejection is made, and agree with the reasons
    counts = Counter(r.rule for item in each.rejected for r in item[4])
    assert grouped.by_rule == dict(sorted(counts.items()))
    reference = each.rejections()
    assert grouped.rejections().example_indices() == reference.example_indices()
    for index in grouped.rejections().example_indices().values():
        assert grouped.rejected[index] == each.rejected[index]
    assert list(grouped.rejected) == list(each.rejected)
    assert grouped.rejections() == reference


PINS = {
    "none": Pin(),
    "targets": placement_pin(),
    "cluster": placement_pin(cluster=True),
    "aws": placement_pin(provider="aws"),
    "vast": placement_pin(provider="vast"),
    "region": Pin(region="us-east-1"),
    "provider+region": Pin(provider="gcp", region="us-central1"),
}


@pytest.mark.parametrize("pin", list(PINS), ids=list(PINS))
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_examples_are_evaluated_alike_by_group_and_offer_by_offer(example: Path, pin: str) -> None:
    _assert_same(WorkloadIntent.from_file(example), EMBEDDED, PINS[pin])


@pytest.mark.parametrize(
    "constraints",
    [
        {"max_price_age_days": 0},
        {"max_price_age_days": 30, "accept_suspect_prices": True},
        {"compliance": ["hipaa", "fedramp_high"], "max_monthly_usd": 40_000},
        {"residency": {"continents": ["EU"]}, "max_hourly_usd": 12.5},
        {"residency": {"regions": ["aws:us-east-1", "gcp:us-central1", "vast:fr-france"]}},
        {"providers": {"exclude": ["aws", "vast"]}, "accelerators": {"allow": ["H100"]}},
    ],
    ids=["stale", "stale-accepting-suspects", "compliance", "continents", "regions", "exclude"],
)
def test_rules_only_some_intents_use_are_evaluated_alike(constraints: dict[str, Any]) -> None:
    intent = inference(**constraints)
    for pin in (Pin(), placement_pin(cluster=True)):
        _assert_same(intent, EMBEDDED, pin)


def test_the_total_budget_of_training_is_evaluated_alike() -> None:
    for cap in (50.0, 500.0, 5_000.0):
        _assert_same(training(deadline_hours=200.0, constraints={"max_total_usd": cap}), EMBEDDED, Pin())


def test_reserved_offers_and_their_whole_terms_are_evaluated_alike(tmp_path: Path) -> None:
    catalog = catalog_from_document(build_catalog(with_reserved(tmp_path)))
    chat = WorkloadIntent.from_dict(RESERVED_CHAT)
    _assert_same(chat, catalog, Pin())
    job = training(
        deadline_hours=100.0, constraints={"pricing": ["reserved", "on_demand"], "max_total_usd": 900.0}
    )
    _assert_same(job, catalog, Pin())
    _assert_same(job, catalog, placement_pin(provider="aws"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(intent=intents())
def test_random_intents_are_evaluated_alike(intent: WorkloadIntent) -> None:
    catalog = make_catalog()
    for pin in (Pin(), Pin(provider="aws"), Pin(region="us-east-1"), placement_pin()):
        _assert_same(intent, catalog, pin)


def test_the_summary_document_makes_only_the_example_rejections() -> None:
    decision = decide(ROOT / "examples" / "support-chat.yaml", catalog=EMBEDDED, pin=placement_pin())
    decision.to_json()
    rows = decision.rejected._rows  # type: ignore[attr-defined]  # the grouped evaluation's lazy rows
    assert 0 < rows.made() <= len(decision.rejections_by_rule())
    assert len(decision.rejected) > 1_000
    assert len(decision.to_json(rejections="all")) > len(decision.to_json())
    assert rows.made() == len(decision.rejected)


def test_an_infeasible_decision_reads_every_rejection_for_its_nearest_misses() -> None:
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(ROOT / "examples" / "infeasible-budget.yaml", catalog=EMBEDDED)
    assert caught.value.nearest_misses
    assert len(caught.value.rejections) == sum(1 for _ in caught.value.rejections)


def test_an_intent_without_sizing_reasons_still_counts_every_rule() -> None:
    intent = intent_of(
        {"type": "inference", "model": {"name": "llama-3.1-8b"}, "serving": {"output_tokens_per_s": 100}},
        {"pricing": ["spot"], "max_hourly_usd": 1.0},
    )
    _assert_same(intent, make_catalog(), Pin())


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_ranking_by_canonical_position_is_the_rank_key_order(example: Path) -> None:
    intent = WorkloadIntent.from_file(example)
    for pin in (Pin(), placement_pin()):
        grouped, _each = _both(intent, EMBEDDED, pin)
        feasible = grouped.feasible
        if not feasible:
            continue
        score_all(feasible, intent, {}, resolve(intent, EMBEDDED, pin), EMBEDDED)
        assert all(c.position >= 0 for c in feasible)
        by_key = sorted(feasible, key=rank_key)
        assert grouped.by_position  # the embedded catalog's terms are the schema's
        rank(feasible, by_position=grouped.by_position)
        assert [id(c) for c in feasible] == [id(c) for c in by_key]


def test_the_ranking_falls_back_to_rank_key_without_positions() -> None:
    intent = inference()
    grouped, each = _both(intent, make_catalog(), Pin())
    resolved = resolve(intent, make_catalog(), Pin())
    for result in (grouped, each):
        score_all(result.feasible, intent, {}, resolved, make_catalog())
        expected = sorted(result.feasible, key=rank_key)
        rank(result.feasible)
        assert result.feasible == expected


@settings(max_examples=60, deadline=None)
@given(
    keys=st.lists(st.integers(0, 70_000), min_size=0, max_size=300),
    wanted=st.sets(st.integers(0, 70_000), max_size=20),
)
def test_a_column_finds_the_offers_of_any_values_whatever_their_number(
    keys: list[int], wanted: set[int]
) -> None:
    expected = sum(1 << i for i, key in enumerate(keys) if key in wanted)
    assert Column(keys).mask(wanted) == expected


@pytest.mark.parametrize("distinct", [1, 255, 256, 257, 600])
def test_a_columns_byte_planes_are_each_offers_number_byte_by_byte(distinct: int) -> None:
    """Up to 256 values the one plane is made from the numbers directly (a cold decide's columns),
    beyond that byte by byte: the same planes as the byte-by-byte coding either way."""
    keys = [f"v{n % distinct}" for n in range(3 * distinct)][::-1]
    column = Column(keys)
    codes = [column.values.index(k) for k in keys][::-1]
    planes = [bytes(n >> 8 * j & 255 for n in codes) for j in range(1 if distinct <= 256 else 2)]
    assert column._planes == tuple(planes)
    assert column.mask({"v0"}) == sum(1 << i for i, k in enumerate(keys) if k == "v0")


def test_a_column_of_more_than_65536_distinct_values_is_coded() -> None:
    # A valid user catalog can carry a price date (or region code) per offer: 70,000 distinct dates
    # raised "a column codes at most 65,536 distinct values" (a traceback from decide).
    keys = [n * 7 % 70_001 for n in range(70_001)]
    column = Column(keys)
    assert column.mask({keys[0], keys[65_537], keys[-1]}) == 1 | 1 << 65_537 | 1 << 70_000
    assert column.mask({-1}) == 0


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 40), st.integers(0, 2**40 - 1)), max_size=150)
)  # both ways: <= 64 runs shifted
def test_assembled_run_masks_and_their_set_bits_are_the_shifted_union(runs: list[tuple[int, int]]) -> None:
    pieces, start, expected = {}, 0, 0
    for width, bits in runs:
        own = bits & ((1 << width) - 1)
        pieces[start] = own
        expected |= own << start
        start += width
    assert assemble(start, pieces) == expected
    assert list(set_bits(expected)) == [i for i in range(start) if expected >> i & 1]


def test_a_run_keeps_only_bits_of_its_own_offers() -> None:
    # Each run once kept a catalog-wide mask (its offers shifted to their place): memory grew with
    # the square of the runs (100k instance types: 918 MB against 481 MB offer by offer).
    columns = offer_columns(EMBEDDED, catalog_index(EMBEDDED))
    for span in columns.spans:
        for name in type(span).__slots__:
            value = getattr(span, name)
            if isinstance(value, int) and not isinstance(value, bool) and name != "start":
                assert value.bit_length() <= max(span.width, 64), (name, span.start)
        for _model, mask, _first in span.by_pricing:
            assert mask.bit_length() <= span.width


def _scores(feasible: list[Candidate]) -> list[tuple[object, ...]]:
    return [(c.position, c.unit_cost, c.ranked_unit_cost, c.parts, c.score) for c in feasible]


def _assert_scored_alike(intent: WorkloadIntent, catalog: Catalog, pin: Pin) -> None:
    """score_all by score class (the catalog's columns given) fills every candidate as scoring each
    candidate on its own does, and the ranking that follows is the same."""
    resolved = resolve(intent, catalog, pin)
    by_class, one_by_one = _both(intent, catalog, pin)[0], _both(intent, catalog, pin)[0]
    columns = offer_columns(catalog, catalog_index(catalog))
    for result, kept in ((by_class, columns), (one_by_one, None)):
        if result.feasible:
            score_all(result.feasible, intent, {}, resolved, catalog, kept)
            rank(result.feasible, by_position=result.by_position)
    assert _scores(by_class.feasible) == _scores(one_by_one.feasible)


@pytest.mark.parametrize("pin", list(PINS), ids=list(PINS))
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_examples_are_scored_alike_by_class_and_one_by_one(example: Path, pin: str) -> None:
    _assert_scored_alike(WorkloadIntent.from_file(example), EMBEDDED, PINS[pin])


def test_reserved_offers_are_scored_alike_by_class(tmp_path: Path) -> None:
    catalog = catalog_from_document(build_catalog(with_reserved(tmp_path)))
    _assert_scored_alike(WorkloadIntent.from_dict(RESERVED_CHAT), catalog, Pin())
    job = training(
        deadline_hours=100.0, constraints={"pricing": ["reserved", "on_demand"], "max_total_usd": 900.0}
    )
    _assert_scored_alike(job, catalog, Pin())


def test_offers_in_places_of_other_compliance_scores_are_not_scored_alike() -> None:
    # gcp's regions hold different attestations: one class per compliance score of the place, so a
    # place's own score is never taken from another region's offer at the same price
    intent = inference(providers={"allow": ["gcp", "aws"]})
    for pin in (Pin(), placement_pin(cluster=True)):
        _assert_scored_alike(intent, EMBEDDED, pin)
        grouped = _both(intent, EMBEDDED, pin)[0]
        columns = offer_columns(EMBEDDED, catalog_index(EMBEDDED))
        score_all(grouped.feasible, intent, {}, resolve(intent, EMBEDDED, pin), EMBEDDED, columns)
        compliance = {(c.row.offer.provider, c.row.offer.region, c.parts[4]) for c in grouped.feasible}
        assert len({score for _p, _r, score in compliance}) > 1


PLACES = sorted(f"{provider}:{code}" for provider, code in REGIONS)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(intent=intents(), regions=st.lists(st.sampled_from(PLACES), max_size=2))
def test_random_intents_are_scored_alike_by_class(intent: WorkloadIntent, regions: list[str]) -> None:
    if regions:  # preferred regions: the residency score reads the place (scored one by one)
        data = json.loads(intent.canonical_json())
        data.setdefault("preferences", {})["regions"] = sorted(set(regions))
        intent = WorkloadIntent.from_dict(data)
    for pin in (Pin(), Pin(provider="aws"), placement_pin(cluster=True)):
        _assert_scored_alike(intent, make_catalog(), pin)


def _assert_misses_alike(intent: WorkloadIntent, catalog: Catalog, pin: Pin) -> None:
    """The nearest misses over the relaxable rejections the masks find are those over every
    rejection, and whether every rejection carries target.unsupported is known alike."""
    grouped, each = _both(intent, catalog, pin)
    caps = _caps(intent)
    assert nearest_misses(grouped.without(UNRELAXABLE), caps) == nearest_misses(each.rejected, caps)
    assert grouped.without(UNRELAXABLE) == each.without(UNRELAXABLE)
    for rule in ("target.unsupported", "memory.fit", "pricing.model"):
        assert grouped.all_carry(rule) == each.all_carry(rule)


@pytest.mark.parametrize("pin", list(PINS), ids=list(PINS))
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_examples_nearest_misses_are_found_alike_from_the_masks(example: Path, pin: str) -> None:
    _assert_misses_alike(WorkloadIntent.from_file(example), EMBEDDED, PINS[pin])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(intent=intents())
def test_random_intents_nearest_misses_are_found_alike_from_the_masks(intent: WorkloadIntent) -> None:
    for pin in (Pin(), Pin(provider="aws"), placement_pin(cluster=True)):
        _assert_misses_alike(intent, make_catalog(), pin)


def test_every_rejection_carrying_the_target_rule_is_known_from_the_masks() -> None:
    # a TPU-only intent pinned to a cluster on a provider whose target has no TPU node pool: every
    # candidate is target.unsupported, and the fix says so
    intent = inference(accelerators={"allow": ["H100"]})
    grouped, each = _both(intent, EMBEDDED, placement_pin(provider="vast", cluster=True))
    assert grouped.all_carry("target.unsupported") == each.all_carry("target.unsupported")
    assert not grouped.all_carry("price.unknown")


def test_an_infeasible_decision_makes_only_the_rejections_a_relaxation_could_admit() -> None:
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(ROOT / "examples" / "infeasible-budget.yaml", catalog=EMBEDDED)
    decision = caught.value.decision
    assert decision is not None and caught.value.nearest_misses
    rows = decision.rejected._rows  # type: ignore[attr-defined]  # the grouped evaluation's lazy rows
    assert rows.made() < len(rows)  # not every record: only the relaxable ones were read
    assert len(rows.without(UNRELAXABLE)) < len(rows) // 4


def test_a_workloads_sizings_are_kept_with_the_columns_and_reused_alike() -> None:
    # Two intents of one workload (one sizer) with other constraints: the second decision reads the
    # first one's sizing masks, and both are evaluated as offer by offer; another headroom is another
    # sizer with its own.
    catalog = make_catalog()
    columns = offer_columns(catalog, catalog_index(catalog))
    first, second = inference(pricing=["on_demand", "spot"]), inference(max_hourly_usd=3.0)
    sizer = sizer_for(first.workload, first.preferences.capacity_headroom)
    assert sizer is sizer_for(second.workload, second.preferences.capacity_headroom)
    _assert_same(first, catalog, Pin())
    kept = columns.sized(sizer, lambda: pytest.fail("the sizings were not kept"))
    _assert_same(second, catalog, placement_pin(cluster=True))
    assert columns.sized(sizer, lambda: pytest.fail("the sizings were not kept")) is kept
    other = sizer_for(first.workload, 0.5)
    assert other is not sizer
    made = []
    columns.sized(other, lambda: made.append(1) or kept)
    assert made == [1]
