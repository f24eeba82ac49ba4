"""Scoring and ranking of the feasible candidates (formulas in ``_scores``).

Tie-break of the ranking (documented): weighted score descending, then unit cost ascending, then
provider, instance type, region and price model (a reservation with its term, ``reserved/12``)
ascending, then hourly price ascending. Alternatives list one placement per (provider, instance
type, price model and term): its best region.
"""

from __future__ import annotations

import math

from ..catalog import Catalog, Provider, Region
from ..intent import Training, WorkloadIntent
from ._columns import Columns
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
from ._sizing import Sizing
from ._suspect import price_label

__all__ = ["distinct", "rank", "rank_key", "score_all"]


def _unit_costs(feasible: list[Candidate], intent: WorkloadIntent) -> tuple[float, list[Sizing]]:
    """Fill each candidate's unit cost; returns the cheapest and the distinct sizings."""
    serving, training = intent.workload.serving, intent.workload.training
    cheapest, sizings, seen, last = math.inf, [], set(), None
    per_hour = serving.output_tokens_per_s * 3600 if serving is not None else 0.0
    # What a million tokens actually served costs: the deployment runs at the required rate, so
    # capacity rounded up to whole instances is paid for but not used.
    for c in feasible:
        assert c.hourly is not None
        unit = c.hourly / per_hour * 1e6 if serving is not None else _step_cost(c, training)
        c.unit_cost = unit
        if unit < cheapest:
            cheapest = unit
        if c.sizing is not last:  # the candidates of a run are adjacent and share one sizing
            last = c.sizing
            if id(last) not in seen:
                seen.add(id(last))
                sizings.append(last)
    return cheapest, sizings


def _step_cost(c: Candidate, training: Training | None) -> float:
    """What a step really costs: the whole job as billed (start-up and billing increments
    included) over its steps; without those it is the step time x hourly price."""
    assert training is not None and c.hourly is not None
    steps = training.tokens / training.global_batch_tokens
    if c.total is not None and steps > 0:
        return c.total / steps
    return training.global_batch_tokens / c.sizing.tokens_per_s * c.hourly / 3600


def _metrics(s: Sizing, training: bool) -> tuple[float | None, ...]:
    """The performance figures of a sizing (central estimate), lower is better."""
    return (s.hours,) if training else (s.tpot_ms, s.ttft_ms)


def _conservative(s: Sizing, training: bool) -> tuple[float | None, ...]:
    """The same figures at the estimate's conservative (p10) point."""
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
    """Scores feasible candidates; every score but cost is memoised by the inputs it reads (the
    offers of one run are adjacent: what depends on the run is worked out once per run)."""

    def __init__(
        self, sizings: list[Sizing], intent: WorkloadIntent, resolved: Resolved, catalog: Catalog
    ) -> None:
        self.training = intent.workload.type != "inference"
        metrics = [_metrics(s, self.training) for s in sizings]  # the best over each one sizing
        self.best = tuple(
            min((v for m in metrics if (v := m[i])), default=None) for i in range(len(metrics[0]))
        )
        self.targets = _targets(intent)
        self.preferred = resolved.preferred_regions
        self.preferred_records = [_region(catalog, p, r) for p, r in self.preferred]
        self.static = _static_scores(catalog)
        self.performance: dict[tuple[object, ...], float] = {}
        self.availability: dict[tuple[str, int], dict[tuple[str, str | None], float]] = {}
        """(provider, block) -> (price model, capacity) -> availability."""
        self.regional: dict[tuple[str, tuple[str, ...]], dict[str, tuple[float, float, float]]] = {}
        """(provider, services) -> region -> (reliability, compliance, residency)."""

    def performance_of(self, s: Sizing) -> float:
        m, k = _metrics(s, self.training), _conservative(s, self.training)
        found = self.performance.get((m, k))
        if found is None:
            found = self.performance[(m, k)] = round(performance_score(m, self.best, self.targets, k), 4)
        return found

    def availability_of(self, c: Candidate) -> float:
        o, itype = c.row.offer, c.row.itype
        assert itype is not None
        block = c.sizing.group_instances * itype.accelerator_count
        return round(availability_score(o.pricing, block, c.row.provider.kind, o.capacity), 4)

    def availability_in(self, c: Candidate) -> dict[tuple[str, str | None], float]:
        """(price model, capacity) -> availability, for the candidates of ``c``'s run."""
        itype = c.row.itype
        assert itype is not None
        block = c.sizing.group_instances * itype.accelerator_count
        return self.availability.setdefault((c.row.offer.provider, block), {})

    def regional_in(self, c: Candidate) -> dict[str, tuple[float, float, float]]:
        """Region -> (reliability, compliance, residency), for the candidates of ``c``'s run."""
        return self.regional.setdefault((c.row.offer.provider, c.services), {})

    def regional_of(self, c: Candidate) -> tuple[float, float, float]:
        """(reliability, compliance, residency) of the candidate's provider and region."""
        o, row = c.row.offer, c.row
        key = (o.provider, o.region, c.services)
        known = self.static.get(key)
        if known is None or known[0] is not row.provider:  # another catalog's record: not its scores
            reliability = round(reliability_score(row.provider), 4)
            known = self.static[key] = (
                row.provider,
                reliability,
                round(compliance_credit(row.provider, o.region, c.services)[0], 4),
            )
        residency = residency_score(o.provider, row.region, o.region, self.preferred, self.preferred_records)
        return known[1], known[2], round(residency, 4)


_NO_RUN = object()
"""Before the first candidate: no run yet."""


def score_all(
    feasible: list[Candidate],
    intent: WorkloadIntent,
    index_regions: dict[tuple[str, str], int],
    resolved: Resolved,
    catalog: Catalog,
    columns: Columns | None = None,
) -> None:
    """Fill unit cost, the six scores and the weighted score of every feasible candidate.

    ``columns``: when every candidate carries its canonical position (the grouped evaluation), the
    candidates alike in everything a score reads are scored once. Default: each on its own.
    """
    del index_regions  # availability reads no region count (see _scores)
    alike = _alike(feasible, columns) if columns is not None and not resolved.preferred_regions else None
    scored = feasible if alike is None else [group[0] for group in alike]
    _score(scored, intent, resolved, catalog)
    for group in alike or ():
        first = group[0]
        for c in group[1:]:
            c.unit_cost, c.ranked_unit_cost, c.parts, c.score = (
                first.unit_cost,
                first.ranked_unit_cost,
                first.parts,
                first.score,
            )


def _score(feasible: list[Candidate], intent: WorkloadIntent, resolved: Resolved, catalog: Catalog) -> None:
    cheapest, sizings = _unit_costs(feasible, intent)
    scorer = _Scorer(sizings, intent, resolved, catalog)
    weights = [intent.preferences.weights.as_dict()[d] for d in SCORE_DIMENSIONS]
    total = sum(weights)
    itype: object = _NO_RUN
    performance, availability, regional = 0.0, {}, {}
    # Many candidates share a price (an instance type in several regions), so a unit cost's scores
    # and a set of scores' weighted score are rounded once each.
    costs: dict[float, tuple[float, float]] = {}
    scores: dict[tuple[float, ...], float] = {}
    for c in feasible:
        row = c.row
        if row.itype is not itype:  # a new run: one provider, sizing, block and set of services
            itype = row.itype
            performance = scorer.performance_of(c.sizing)
            availability, regional = scorer.availability_in(c), scorer.regional_in(c)
        o = row.offer
        available = availability.get((o.pricing, o.capacity))
        if available is None:
            available = availability[(o.pricing, o.capacity)] = scorer.availability_of(c)
        where = regional.get(o.region)
        if where is None:
            where = regional[o.region] = scorer.regional_of(c)
        unit = c.unit_cost
        known = costs.get(unit)
        if known is None:
            known = costs[unit] = (round(cost_score(unit, cheapest), 4), round(unit, 9))
        cost, c.ranked_unit_cost = known
        parts = (cost, performance, available, *where)
        c.parts = parts
        score = scores.get(parts)
        if score is None:
            # sum() of the products in SCORE_DIMENSIONS order: the same float as weighted()
            products = tuple(w * v for w, v in zip(weights, parts, strict=True))
            score = scores[parts] = round(sum(products) / total, 4)
        c.score = score


def _alike(feasible: list[Candidate], columns: Columns) -> list[list[Candidate]]:
    """The candidates in groups alike in everything a score reads, each group in canonical order and
    the groups in the order of their first candidate. Only without preferred regions (the residency
    score then reads no place)."""
    groups: dict[int, list[Candidate]] = {}
    itype: object = _NO_RUN
    classes = _Classes.EMPTY
    for c in feasible:
        if c.row.itype is not itype:  # a run shares its placement services
            itype = c.row.itype
            classes = _Classes.kept(columns, c.services)
        k = classes.of[c.position]
        if k < 0:
            k = classes.fill(c.position)
        group = groups.get(k)
        if group is None:
            groups[k] = [c]
        else:
            group.append(c)
    return list(groups.values())


class _Classes:
    """Offer (its canonical position) -> its score class, for placements on one set of services.

    Two offers of one run (same sizing, block and provider) share a class when they have the same
    price model, term, price and capacity signal and their places the same compliance score: every
    score then reads the same values. Kept with the catalog's columns, filled run by run.
    """

    EMPTY: _Classes

    def __init__(
        self, columns: Columns | None, services: tuple[str, ...], keys: dict[tuple[object, ...], int]
    ) -> None:
        self.columns, self.services = columns, services
        self.of = [-1] * (columns.size if columns is not None else 0)
        self._keys = keys
        """Class key -> number, shared by the classes of every set of services of the catalog."""
        self._credits: dict[tuple[str, str], tuple[object, float]] = {}
        """(provider, region) -> (its provider record, the place's rounded compliance credit)."""

    @staticmethod
    def kept(columns: Columns, services: tuple[str, ...]) -> _Classes:
        """The classes for ``services`` kept with ``columns`` (made empty on first use)."""
        found = columns.kept.get(("score classes", services))
        if not isinstance(found, _Classes):
            keys = columns.kept.setdefault("score class keys", {})
            assert isinstance(keys, dict)
            found = columns.kept[("score classes", services)] = _Classes(columns, services, keys)
        return found

    def fill(self, position: int) -> int:
        """Number the classes of the run holding ``position``; returns that offer's class."""
        assert self.columns is not None
        span = self.columns.spans[self.columns.span_of[position]]
        credits = self._credits
        for i, row in enumerate(span.rows):
            o = row.offer
            known = credits.get((o.provider, o.region))
            if known is None or known[0] is not row.provider:  # another record: not its credit
                credit = compliance_credit(row.provider, o.region, self.services)[0]
                known = credits[(o.provider, o.region)] = (row.provider, round(credit, 4))
            place = known[1]
            key = (self.services, span.start, o.pricing, o.term_months, o.hourly_usd, o.capacity, place)
            self.of[span.start + i] = self._keys.setdefault(key, len(self._keys))
        return self.of[position]


_Classes.EMPTY = _Classes(None, (), {})


_STATIC_KEY = "engine.static_scores"


def _static_scores(catalog: Catalog) -> dict[tuple[str, str, tuple[str, ...]], tuple[Provider, float, float]]:
    """(provider, region, services) -> (the provider record, reliability, compliance), kept with the
    catalog: both scores read only the catalog's (immutable) provider records, not the intent."""
    found = catalog._index.get(_STATIC_KEY)
    if not isinstance(found, dict):
        found = catalog._index[_STATIC_KEY] = {}
    return found


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


def rank(feasible: list[Candidate], *, by_position: bool | None = None) -> None:
    """Sort scored candidates into rank order (``rank_key``), best first.

    A canonical position (``_index``) orders exactly as ``rank_key``'s tie-break does (the labels
    ``on_demand`` < ``reserved/12`` < ``reserved/36`` < ``spot`` sort as models and terms do), so
    candidates carrying one sort by score, unit cost and position. ``by_position``: whether they all
    do (``Evaluation.by_position``); default: checked candidate by candidate.
    """
    if by_position is None:  # not known: every candidate checked
        by_position = all(c.position >= 0 and c.row.offer.term_months in _TERMS for c in feasible)
    if by_position:
        feasible.sort(key=lambda c: (-c.score, c.ranked_unit_cost, c.position))
    else:
        feasible.sort(key=rank_key)


_TERMS = frozenset({None, 12, 36})
"""Reservation terms whose price labels sort as the canonical order does (the catalog schema's)."""


def distinct(ranked: list[Candidate], limit: int) -> list[Candidate]:
    """The best ``limit`` candidates, one per (provider, instance type, price model)."""
    seen: set[tuple[int, str, int | None]] = set()
    out = []
    for c in ranked:
        o = c.row.offer
        # the instance type's one record stands for (provider, instance type); model and term for
        # the price label
        key = (id(c.row.itype), o.pricing, o.term_months)
        if key not in seen:
            seen.add(key)
            out.append(c)
            if len(out) == limit:
                break
    return out
