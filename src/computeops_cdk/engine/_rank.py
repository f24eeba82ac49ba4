"""Scoring and ranking of the feasible candidates (formulas in ``_scores``).

Tie-break of the ranking (documented): weighted score descending, then unit cost ascending, then
provider, instance type, region and price model (a reservation with its term, ``reserved/12``)
ascending, then hourly price ascending. Alternatives list one placement per (provider, instance
type, price model and term): its best region.
"""

from __future__ import annotations

from ..catalog import Catalog, Region
from ..intent import WorkloadIntent
from ._decision import SCORE_DIMENSIONS
from ._evaluate import Candidate
from ._resolve import Resolved
from ._scores import (
    availability_score,
    compliance_credit,
    cost_score,
    performance_score,
    reliability_score,
    residency_score,
)
from ._suspect import price_label

__all__ = ["distinct", "rank_key", "score_all"]


def _unit_cost(c: Candidate, intent: WorkloadIntent) -> float:
    assert c.hourly is not None
    serving, training = intent.workload.serving, intent.workload.training
    if serving is not None:
        # What a million tokens actually served costs: the deployment runs at the required rate, so
        # capacity rounded up to whole instances is paid for but not used.
        return c.hourly / (serving.output_tokens_per_s * 3600) * 1e6
    assert training is not None
    # What a step really costs: the whole job as billed (start-up and billing increments included)
    # over its steps; without those it is the step time x hourly price.
    steps = training.tokens / training.global_batch_tokens
    if c.total is not None and steps > 0:
        return c.total / steps
    return training.global_batch_tokens / c.sizing.tokens_per_s * c.hourly / 3600


def _metrics(c: Candidate, training: bool) -> tuple[float | None, ...]:
    """The performance figures of a candidate (central estimate), lower is better."""
    return (c.sizing.hours,) if training else (c.sizing.tpot_ms, c.sizing.ttft_ms)


def _conservative(c: Candidate, training: bool) -> tuple[float | None, ...]:
    """The same figures at the estimate's conservative (p10) point."""
    s = c.sizing
    if training:
        return (s.hours_p10,)
    low = s.band[0]
    return tuple(None if v is None else v / low for v in (s.tpot_ms, s.ttft_ms))


def _targets(intent: WorkloadIntent) -> tuple[float | None, ...]:
    """The intent's targets for the figures of ``_metrics``, in the same order."""
    serving, training = intent.workload.serving, intent.workload.training
    if training is not None:
        return (training.deadline_hours,)
    assert serving is not None
    return (serving.tpot_ms, serving.ttft_ms)


class _Scorer:
    """Scores feasible candidates; every score but cost is memoised by the inputs it reads."""

    def __init__(
        self,
        feasible: list[Candidate],
        intent: WorkloadIntent,
        resolved: Resolved,
        index_regions: dict[tuple[str, str], int],
        catalog: Catalog,
    ) -> None:
        self.training = intent.workload.type != "inference"
        self.cheapest = min(c.unit_cost for c in feasible)
        metrics = [_metrics(c, self.training) for c in feasible]
        self.best = tuple(
            min((v for m in metrics if (v := m[i])), default=None) for i in range(len(metrics[0]))
        )
        self.targets = _targets(intent)
        self.preferred = resolved.preferred_regions
        self.preferred_records = [_region(catalog, p, r) for p, r in self.preferred]
        self.index_regions = index_regions
        self.memo: dict[tuple[object, ...], float] = {}
        self.regional: dict[tuple[str, str, tuple[str, ...]], tuple[float, float, float]] = {}

    def _static(self, c: Candidate) -> tuple[float, float, float, float, float]:
        """(performance, availability, reliability, compliance, residency), each memoised by its inputs."""
        o, row = c.row.offer, c.row
        m = _metrics(c, self.training)
        k = _conservative(c, self.training)
        performance = self.memo.get((m, k))
        if performance is None:
            performance = self.memo[(m, k)] = round(performance_score(m, self.best, self.targets, k), 4)
        assert row.itype is not None
        block = c.sizing.group_instances * row.itype.accelerator_count
        key = (o.provider, o.pricing, block, o.capacity)
        availability = self.memo.get(key)
        if availability is None:
            score = availability_score(o.pricing, block, row.provider.kind, o.capacity)
            availability = self.memo[key] = round(score, 4)
        where = self.regional.get((o.provider, o.region, c.services))
        if where is None:
            where = self.regional[(o.provider, o.region, c.services)] = (
                round(reliability_score(row.provider), 4),
                round(compliance_credit(row.provider, o.region, c.services)[0], 4),
                round(
                    residency_score(o.provider, row.region, o.region, self.preferred, self.preferred_records),
                    4,
                ),
            )
        return (performance, availability, *where)

    def parts(self, c: Candidate) -> tuple[float, ...]:
        """The six scores in SCORE_DIMENSIONS order, rounded to 4 decimals."""
        return (round(cost_score(c.unit_cost, self.cheapest), 4), *self._static(c))


def score_all(
    feasible: list[Candidate],
    intent: WorkloadIntent,
    index_regions: dict[tuple[str, str], int],
    resolved: Resolved,
    catalog: Catalog,
) -> None:
    """Fill unit cost, the six scores and the weighted score of every feasible candidate."""
    for c in feasible:
        c.unit_cost = _unit_cost(c, intent)
    scorer = _Scorer(feasible, intent, resolved, index_regions, catalog)
    weights = [intent.preferences.weights.as_dict()[d] for d in SCORE_DIMENSIONS]
    total = sum(weights)
    for c in feasible:
        c.parts = scorer.parts(c)
        c.score = round(sum(w * v for w, v in zip(weights, c.parts, strict=True)) / total, 4)


def _region(catalog: Catalog, provider: str, code: str) -> Region | None:
    try:
        return catalog.region(provider, code)
    except KeyError:
        return None


def rank_key(c: Candidate) -> tuple[float, float, str, str, str, str, float]:
    o = c.row.offer
    return (
        -c.score,
        round(c.unit_cost, 9),
        o.provider,
        o.instance_type,
        o.region,
        price_label(o),
        c.hourly or 0.0,
    )


def distinct(ranked: list[Candidate], limit: int) -> list[Candidate]:
    """The best ``limit`` candidates, one per (provider, instance type, price model): the same machine
    in another region is not an alternative worth a row (its best region stands for it)."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for c in ranked:
        o = c.row.offer
        key = (o.provider, o.instance_type, price_label(o))
        if key not in seen:
            seen.add(key)
            out.append(c)
            if len(out) == limit:
                break
    return out
