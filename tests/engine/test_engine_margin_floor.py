"""The margin line's cheapest-at-the-central-estimate search skips a candidate whose least possible
central unit cost (its price for one serving group) is not below the cheapest found so far, leaving
its sizing's central figure (one more estimate, worked out when read) unread. The lines must be the
ones the search over every candidate gives, in any order of the candidates."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from computeops_cdk.catalog import load_catalog
from computeops_cdk.engine import _decide, _margin, _sizing, decide
from computeops_cdk.engine._evaluate import Candidate
from computeops_cdk.intent import WorkloadIntent
from computeops_cdk.targets import placement_pin

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SERVING = ("support-chat", "support-chat-qwen", "eu-residency", "hipaa-us", "hipaa-us-qwen")


def _asked(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[Candidate, Sequence[Candidate], WorkloadIntent]:
    """What a decision of the example passes to margin_lines."""
    seen: list[tuple[Candidate, Sequence[Candidate], WorkloadIntent]] = []
    real = _decide.margin_lines

    def spy(chosen: Candidate, feasible: Sequence[Candidate], intent: WorkloadIntent) -> tuple[str, ...]:
        seen.append((chosen, feasible, intent))
        return real(chosen, feasible, intent)

    with monkeypatch.context() as patch:
        patch.setattr(_decide, "margin_lines", spy)
        decide(
            WorkloadIntent.from_file(EXAMPLES / f"{name}.yaml"), catalog=load_catalog(), pin=placement_pin()
        )
    (asked,) = seen
    return asked


def _every_candidate(
    chosen: Candidate, feasible: Sequence[Candidate], intent: WorkloadIntent
) -> tuple[str, ...]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_margin, "_floor_of", lambda intent: None)  # the search over every candidate
        return _margin.margin_lines(chosen, feasible, intent)


@pytest.mark.parametrize("name", SERVING)
def test_the_lines_are_those_of_the_search_over_every_candidate(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen, feasible, intent = _asked(name, monkeypatch)
    orders = [list(feasible), list(reversed(feasible))]
    for seed in range(3):
        shuffled = list(feasible)
        random.Random(seed).shuffle(shuffled)
        orders.append(shuffled)
    for order in orders:
        assert _margin.margin_lines(chosen, order, intent) == _every_candidate(chosen, order, intent)


@pytest.mark.parametrize("name", SERVING)
def test_the_floor_never_exceeds_the_central_unit_cost(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _, feasible, intent = _asked(name, monkeypatch)
    floor = _margin._floor_of(intent)
    assert floor is not None
    for c in feasible:
        cost = _margin.central_unit_cost(c, intent)
        assert cost is None or floor(c) <= cost


def test_a_candidate_that_cannot_be_cheaper_keeps_its_central_figure_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _sizing.sizer_for.cache_clear()  # sizings no other test has read
    _, feasible, _intent = _asked("hipaa-us", monkeypatch)
    pending = {id(c.sizing) for c in feasible if getattr(c.sizing, "_central_later", None) is not None}
    assert len(pending) >= 5  # every feasible candidate's was read before the floor


def _tiny_rate(rate: float) -> WorkloadIntent:
    return WorkloadIntent.from_dict(
        {
            "name": "tiny",
            "workload": {
                "type": "inference",
                "model": {"name": "mistral-7b", "precision": "fp16"},
                "serving": {"output_tokens_per_s": rate, "output_tokens": 16, "ttft_ms": 200, "tpot_ms": 200},
            },
            "constraints": {"pricing": ["spot"], "residency": {"continents": ["EU"]}},
            "preferences": {"capacity_headroom": 0},
        }
    )


@pytest.mark.parametrize("rate", [1e-7, 1e-3])
def test_a_rate_far_below_one_group_sizes_at_least_one_group(rate: float) -> None:
    # Review: ceil(rate / throughput - 1e-9) was 0 groups for a tiny rate: the margin line said
    # "... x0 ... at 0 USD" (1e-3) or divided by zero (1e-7: a ZeroDivisionError traceback), and the
    # floor, which assumes one group at least, skipped the x0 candidate the full search picked.
    decision = decide(_tiny_rate(rate), catalog=load_catalog(), pin=placement_pin())
    assert decision.chosen is not None
    text = "\n".join(decision.explanation)
    assert " x0 " not in text and " at 0 USD" not in text
    assert all(p.instances >= 1 for p in decision.ranked)


def test_at_a_tiny_rate_the_lines_are_those_of_the_search_over_every_candidate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[Candidate, Sequence[Candidate], WorkloadIntent]] = []
    real = _decide.margin_lines

    def spy(chosen: Candidate, feasible: Sequence[Candidate], intent: WorkloadIntent) -> tuple[str, ...]:
        seen.append((chosen, feasible, intent))
        return real(chosen, feasible, intent)

    monkeypatch.setattr(_decide, "margin_lines", spy)
    decide(_tiny_rate(1e-3), catalog=load_catalog(), pin=placement_pin())
    ((chosen, feasible, intent),) = seen
    assert _margin.margin_lines(chosen, feasible, intent) == _every_candidate(chosen, feasible, intent)


def test_a_negative_price_is_no_floor() -> None:
    # Review: an unvalidated catalog with a negative price reversed the floor's argument.
    intent = WorkloadIntent.from_file(EXAMPLES / "support-chat.yaml")
    floor = _margin._floor_of(intent)
    assert floor is not None

    class _Offer:
        hourly_usd = -1.0

    class _Row:
        offer = _Offer()

    class _Sizing:
        group_instances = 1

    class _Candidate:
        row, sizing = _Row(), _Sizing()

    assert floor(_Candidate()) == float("-inf")  # type: ignore[arg-type]
