"""The six soft scores, each in [0, 1], and the weighted rank.

The formulas, their reasons and data sources are documented for users in docs/decisions.md
("Scores, rank and trade-off"); in short:

- cost = cheapest feasible unit cost / this unit cost.
- performance: mean speed over the figures (TPOT and TTFT; training: time to train), each valued
  against its target at the estimate's p10 point (``target_score``), else against the fastest
  feasible (``speed_score``).
- availability = price-model base x block-size factor x marketplace factor x capacity factor.
- reliability = provider kind base, blended with the published SLA when there is one.
- compliance = mean over the scopes of the best credit of evidence ``attestation_applies`` admits.
- residency = 1.0 in a preferred region, less in its country or continent; 1.0 when none is.

score = sum(weight x dimension score) / sum(weights).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..catalog import COMPLIANCE_SCOPES, Provider, Region
from ._rules import attestation_applies

__all__ = [
    "CAPACITY_FACTOR",
    "EVIDENCE_CREDIT",
    "availability_score",
    "compliance_credit",
    "cost_score",
    "performance_score",
    "reliability_score",
    "residency_score",
    "speed_score",
    "target_score",
    "weighted",
]

PRICING_BASE: Mapping[str, float] = {"reserved": 1.0, "on_demand": 0.8, "spot": 0.4}
"""Reserved capacity is guaranteed; on-demand can be out of stock; spot can be taken back."""
CAPACITY_FACTOR: Mapping[str, float] = {
    "high": 1.0,
    "available": 1.0,
    "medium": 0.9,
    "low": 0.75,
    "none": 0.25,
}
"""Availability kept by an offer's capacity signal (judgement weights, not measured): out of stock
now is not impossible later, so "none" lowers the score rather than filtering the offer."""
MARKETPLACE_FACTOR = 0.6
"""Marketplace listings come and go (one host, one owner)."""
KIND_BASE: Mapping[str, float] = {"hyperscaler": 0.9, "neocloud": 0.75, "marketplace": 0.4}
NO_SLA_FACTOR = 0.8
EVIDENCE_CREDIT: Mapping[str, float] = {"provider_claimed": 1.0, "third_party": 0.5, "keyword_only": 0.25}
PREFERRED_COUNTRY = 0.6
PREFERRED_CONTINENT = 0.3


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))


def cost_score(unit_cost: float, cheapest: float) -> float:
    """Cheapest feasible unit cost over this one (1.0 for the cheapest)."""
    return _clamp(cheapest / unit_cost) if unit_cost > 0 else 1.0


def speed_score(value: float, best: float) -> float:
    """1 / (1 + log2(value / best)) for a time where lower is better: 1.0 at the best, 0.5 at 2x."""
    if best <= 0 or value <= best:
        return 1.0
    return _clamp(1.0 / (1.0 + math.log2(value / best)))


TARGET_SATURATION = 0.5
"""A figure at or below this share of its target (a 2x margin) scores 1.0 (``target_score``)."""


def target_score(value: float, target: float) -> float:
    """Speed against a target: 1.0 up to TARGET_SATURATION x target, then linear, 0.5 at target."""
    q = value / target
    if q <= TARGET_SATURATION:
        return 1.0
    return _clamp(1.0 - (q - TARGET_SATURATION))


def performance_score(
    values: Sequence[float | None],
    best: Sequence[float | None],
    targets: Sequence[float | None] = (),
    conservative: Sequence[float | None] = (),
) -> float:
    """Mean speed score over the figures a candidate has (times: lower is better): ``target_score``
    at the conservative value with a target, else ``speed_score`` (central figures vs ``best``)."""
    targets = tuple(targets) or (None,) * len(values)
    conservative = tuple(conservative) or tuple(values)
    ratios = []
    for v, b, t, c in zip(values, best, targets, conservative, strict=True):
        if t is not None and c is not None and t > 0:
            ratios.append(target_score(c, t))
        elif v is not None and b is not None and v > 0:
            ratios.append(speed_score(v, b))
    return sum(ratios) / len(ratios) if ratios else 1.0


BLOCK_FREE = 8
"""Accelerators (one HGX node) up to which a block is as obtainable as one machine."""
BLOCK_LOSS: Mapping[str, float] = {"spot": 0.2}
"""Availability lost per doubling of the block beyond BLOCK_FREE, by price model (default 0.1):
spot's large blocks are reclaimed first."""


def availability_score(pricing: str, block: int, kind: str, capacity: str | None = None) -> float:
    """Price-model base x block-size factor x marketplace factor x capacity factor (``block``:
    accelerators that must be obtained together; ``capacity``: the offer's signal, None for none)."""
    loss = BLOCK_LOSS.get(pricing, 0.1)
    size = 1.0 / (1.0 + loss * math.log2(block / BLOCK_FREE)) if block > BLOCK_FREE else 1.0
    factor = MARKETPLACE_FACTOR if kind == "marketplace" else 1.0
    signal = CAPACITY_FACTOR.get(capacity, 1.0) if capacity is not None else 1.0
    return _clamp(PRICING_BASE.get(pricing, 0.5) * size * factor * signal)


def reliability_score(provider: Provider) -> float:
    """Provider kind, blended with the published SLA when there is one."""
    base = KIND_BASE.get(provider.kind, 0.5)
    if provider.sla_percent is None:
        return _clamp(NO_SLA_FACTOR * base)
    return _clamp(0.5 * base + 0.5 * _clamp(provider.sla_percent - 99.0))


def compliance_credit(
    provider: Provider, code: str, services: tuple[str, ...] = ("vm",)
) -> tuple[float, tuple[str, ...]]:
    """(score, scopes that only weaker-than-provider_claimed evidence backs) for a placement in one
    region on ``services`` (rules.placement_services; default: a VM). Scoped as the filter scopes:
    an attestation counts only where rules.attestation_applies accepts it."""
    total, weak = 0.0, []
    for scope in COMPLIANCE_SCOPES:
        best = 0.0
        for att in provider.attestations:
            if att.scope != scope:
                continue
            if not attestation_applies(att, code, services):
                continue
            best = max(best, EVIDENCE_CREDIT.get(att.evidence, 0.0))
        if 0 < best < 1:
            weak.append(scope)
        total += best
    return total / len(COMPLIANCE_SCOPES), tuple(weak)


def residency_score(
    provider: str,
    region: Region | None,
    code: str,
    preferred: Sequence[tuple[str, str]],
    preferred_regions: Sequence[Region | None],
) -> float:
    """1.0 in a preferred region, less in its country or continent; 1.0 when none is preferred."""
    if not preferred:
        return 1.0
    if (provider, code) in preferred:
        return 1.0
    if region is None:
        return 0.0
    if region.country is not None and any(
        p is not None and p.country == region.country for p in preferred_regions
    ):
        return PREFERRED_COUNTRY
    if any(p is not None and p.continent == region.continent for p in preferred_regions):
        return PREFERRED_CONTINENT
    return 0.0


def weighted(scores: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """sum(weight x score) / sum(weights) over the score dimensions."""
    total = sum(weights.values())
    return sum(weights[k] * scores[k] for k in weights) / total if total > 0 else 0.0
