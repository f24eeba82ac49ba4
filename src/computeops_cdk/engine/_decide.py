"""``decide``: filter by hard constraints, size, cost, score, rank and explain. Pure and deterministic.

Tie-break of the ranking (documented): weighted score descending, then unit cost ascending, then
provider, instance type, region and price model ascending, then hourly price ascending.
Alternatives list one placement per (provider, instance type, price model): its best region.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..catalog import HOURS_PER_MONTH, Catalog, Region, load_catalog
from ..errors import NoFeasiblePlacementError
from ..intent import WorkloadIntent
from ._decision import SCORE_DIMENSIONS, Decision, EstimateSummary, Placement, UnitCost
from ._evaluate import Candidate, Evaluation, evaluate
from ._explain import explanation, trade_off
from ._index import catalog_index
from ._misses import nearest_misses
from ._pin import Pin
from ._resolve import Resolved, resolve
from ._scores import (
    availability_score,
    compliance_credit,
    cost_score,
    performance_score,
    reliability_score,
    residency_score,
)
from ._sizing import sizer_for

__all__ = ["DEFAULT_ALTERNATIVES", "decide"]

DEFAULT_ALTERNATIVES = 10
"""Ranked alternatives a Decision lists after the chosen placement."""


def _unit_cost(c: Candidate, intent: WorkloadIntent) -> float:
    assert c.hourly is not None
    serving, training = intent.workload.serving, intent.workload.training
    if serving is not None:
        # What a million tokens actually served costs: the deployment runs at the required rate, so
        # capacity rounded up to whole instances is paid for but not used.
        return c.hourly / (serving.output_tokens_per_s * 3600) * 1e6
    assert training is not None
    return training.global_batch_tokens / c.sizing.tokens_per_s * c.hourly / 3600


def _metrics(c: Candidate, training: bool) -> tuple[float | None, ...]:
    """The performance figures of a candidate, lower is better."""
    return (c.sizing.hours,) if training else (c.sizing.tpot_ms, c.sizing.ttft_ms)


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
        self.preferred = resolved.preferred_regions
        self.preferred_records = [_region(catalog, p, r) for p, r in self.preferred]
        self.index_regions = index_regions
        self.memo: dict[tuple[object, ...], float] = {}
        self.regional: dict[tuple[str, str], tuple[float, float, float]] = {}

    def _static(self, c: Candidate) -> tuple[float, float, float, float, float]:
        """(performance, availability, reliability, compliance, residency), each memoised by its inputs."""
        o, row = c.row.offer, c.row
        m = _metrics(c, self.training)
        performance = self.memo.get(m)
        if performance is None:
            performance = self.memo[m] = round(performance_score(m, self.best), 4)
        key = (o.provider, o.instance_type, o.pricing)
        availability = self.memo.get(key)
        if availability is None:
            regions = self.index_regions.get((o.provider, o.instance_type), 1)
            availability = self.memo[key] = round(
                availability_score(o.pricing, regions, row.provider.kind), 4
            )
        where = self.regional.get((o.provider, o.region))
        if where is None:
            where = self.regional[(o.provider, o.region)] = (
                round(reliability_score(row.provider), 4),
                round(compliance_credit(row.provider, o.region)[0], 4),
                round(
                    residency_score(o.provider, row.region, o.region, self.preferred, self.preferred_records),
                    4,
                ),
            )
        return (performance, availability, *where)

    def parts(self, c: Candidate) -> tuple[float, ...]:
        """The six scores in SCORE_DIMENSIONS order, rounded to 4 decimals."""
        return (round(cost_score(c.unit_cost, self.cheapest), 4), *self._static(c))


def _score(
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


def _rank_key(c: Candidate) -> tuple[float, float, str, str, str, str, float]:
    o = c.row.offer
    return (
        -c.score,
        round(c.unit_cost, 9),
        o.provider,
        o.instance_type,
        o.region,
        o.pricing,
        c.hourly or 0.0,
    )


def _distinct(ranked: list[Candidate], limit: int) -> list[Candidate]:
    """The best ``limit`` candidates, one per (provider, instance type, price model): the same machine
    in another region is not an alternative worth a row (its best region stands for it)."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for c in ranked:
        o = c.row.offer
        key = (o.provider, o.instance_type, o.pricing)
        if key not in seen:
            seen.add(key)
            out.append(c)
            if len(out) == limit:
                break
    return out


def _r(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _placement(c: Candidate, intent: WorkloadIntent) -> Placement:
    row, s = c.row, c.sizing
    assert row.itype is not None and c.hourly is not None
    unit = "usd_per_million_output_tokens" if intent.workload.type == "inference" else "usd_per_training_step"
    return Placement(
        provider=row.offer.provider,
        instance_type=row.offer.instance_type,
        accelerator=row.itype.accelerator,
        accelerators_per_instance=row.itype.accelerator_count,
        instances=s.instances,
        region=row.offer.region,
        country=row.region.country if row.region else None,
        continent=row.region.continent if row.region else "",
        pricing=row.offer.pricing,
        hourly_usd=round(c.hourly, 4),
        monthly_usd=round(c.hourly * HOURS_PER_MONTH, 2),
        unit_cost=UnitCost(unit=unit, value=round(c.unit_cost, 4)),  # type: ignore[arg-type]
        total_usd=_r(c.total, 2),
        hours=_r(s.hours, 2),
        estimate=EstimateSummary(
            tokens_per_s=round(s.tokens_per_s, 1),
            ttft_ms=_r(s.ttft_ms, 2),
            tpot_ms=_r(s.tpot_ms, 2),
            model=s.model_version,
            assumptions=s.assumptions,
            mfu=_r(s.mfu, 4),
            step_time_s=_r(s.step_time_s, 4),
            tensor_parallel=s.tensor_parallel,
            replicas=s.replicas,
            memory_gb_per_accelerator=_r(s.memory_gb_per_accelerator, 2),
        ),
        attestations=_attested(c),
        scores=dict(zip(SCORE_DIMENSIONS, c.parts, strict=True)),
        score=c.score,
        price_source=row.offer.source,
        price_as_of=row.offer.as_of,
    )


def _attested(c: Candidate) -> tuple[str, ...]:
    """Scopes the provider itself attests (provider_claimed) in the candidate's region."""
    code = c.row.offer.region
    scopes = {
        a.scope
        for a in c.row.provider.attestations
        if a.evidence == "provider_claimed" and (a.regions is None or code in a.regions)
    }
    return tuple(sorted(scopes))


def _caps(intent: WorkloadIntent) -> dict[str, float | None]:
    k, s, t = intent.constraints, intent.workload.serving, intent.workload.training
    return {
        "max_hourly_usd": k.max_hourly_usd,
        "max_monthly_usd": k.max_monthly_usd,
        "max_total_usd": k.max_total_usd,
        "deadline_hours": t.deadline_hours if t else None,
        "ttft_ms": s.ttft_ms if s else None,
        "tpot_ms": s.tpot_ms if s else None,
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class _Header:
    """What every Decision of one run shares, chosen or not."""

    intent: WorkloadIntent
    catalog: Catalog
    result: Evaluation

    def decision(
        self,
        *,
        chosen: Placement | None = None,
        alternatives: tuple[Placement, ...] = (),
        explanation: tuple[str, ...] = (),
        trade_off: str = "",
        nearest_misses: tuple[str, ...] = (),
    ) -> Decision:
        return Decision(
            intent_name=self.intent.name,
            intent_sha256=self.intent.sha256,
            catalog_version=self.catalog.version,
            catalog_as_of=self.catalog.as_of,
            catalog_sha256=self.catalog.sha256,
            chosen=chosen,
            alternatives=alternatives,
            rejected=self.result.rejections(),
            explanation=explanation,
            trade_off=trade_off,
            considered=len(self.result.feasible) + len(self.result.rejected),
            feasible=len(self.result.feasible),
            pinned_out=dict(sorted(self.result.pinned_out.items())),
            nearest_misses=nearest_misses,
        )


def _infeasible(header: _Header) -> NoFeasiblePlacementError:
    result = header.result
    misses = nearest_misses(result.rejected, _caps(header.intent))
    if result.pinned_out_feasible:
        best = min(result.pinned_out_feasible, key=lambda c: (c.unit_cost, c.hourly or 0.0))
        o = best.row.offer
        misses.append(
            f"removing the pin would admit {o.provider} {o.instance_type} in {o.region} ({o.pricing})"
        )
    draft = header.decision()
    by_rule = draft.rejections_by_rule()
    lines = [
        f"no feasible placement for intent {header.intent.name!r}: all {len(draft.rejected):,} candidates "
        "were rejected",
        "rejections by rule: " + ", ".join(f"{r} {n:,}" for r, n in by_rule.items()),
    ]
    if misses:
        lines.append("nearest misses:\n" + "\n".join(f"  - {m}" for m in misses))
    lines.append("To fix: relax one of the constraints above, or widen providers, regions or accelerators.")
    document = header.decision(explanation=tuple(lines), nearest_misses=tuple(misses)).to_dict()
    return NoFeasiblePlacementError(
        "\n".join(lines), rejections=draft.rejected, nearest_misses=misses, document=document
    )


def decide(
    intent: WorkloadIntent | str | Path,
    *,
    catalog: Catalog | None = None,
    pin: Pin | None = None,
    alternatives: int = DEFAULT_ALTERNATIVES,
) -> Decision:
    """Choose where ``intent`` runs: the best feasible placement, ranked alternatives and rejections.

    Args:
        intent: a WorkloadIntent, or the path of a YAML/JSON intent file.
        catalog: the market catalog. Default: the embedded catalog (``load_catalog()``).
        pin: restrict the provider and/or region. Default: no pin.
        alternatives: how many ranked alternatives to list after the chosen one. Default: 10.

    Raises:
        IntentError: the intent (or the pin) names an accelerator, region or provider the catalog lacks.
        NoFeasiblePlacementError: every candidate breaks a hard constraint; carries the rejections, the
            nearest misses and the JSON document with ``decision: null``.
    """
    if not isinstance(intent, WorkloadIntent):
        intent = WorkloadIntent.from_file(intent)
    catalog = catalog if catalog is not None else load_catalog()
    pin = pin if pin is not None else Pin()
    index = catalog_index(catalog)
    resolved = resolve(intent, catalog, index, pin)
    result = evaluate(intent, index, resolved, pin, sizer_for(intent.workload))
    header = _Header(intent=intent, catalog=catalog, result=result)
    if not result.feasible:
        raise _infeasible(header)
    _score(result.feasible, intent, index.regions_per_itype, resolved, catalog)
    result.feasible.sort(key=_rank_key)
    top = [_placement(c, intent) for c in _distinct(result.feasible, max(0, alternatives) + 1)]
    chosen, runner_up = top[0], (top[1] if len(top) > 1 else None)
    draft = header.decision()
    pinned = "".join(f"; {n:,} outside the pin ({rule})" for rule, n in draft.pinned_out.items())
    lines = explanation(
        intent,
        catalog,
        chosen,
        runner_up,
        counts={"considered": draft.considered, "feasible": draft.feasible, "rejected": len(draft.rejected)},
        by_rule=draft.rejections_by_rule(),
        weights=intent.preferences.weights.as_dict(),
        weak_evidence=compliance_credit(result.feasible[0].row.provider, chosen.region)[1],
        pinned=pinned,
    )
    return header.decision(
        chosen=chosen, alternatives=tuple(top[1:]), explanation=lines, trade_off=trade_off(chosen, runner_up)
    )
