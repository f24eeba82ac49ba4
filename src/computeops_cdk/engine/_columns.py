"""The catalog's offers as bit columns: for each value a rule reads, the set of offers having it.

Bit ``i`` of every mask is ``CatalogIndex.rows[i]``. A decision asks each rule once per value it
reads (a price model, a country, a run's sizing) and ORs the masks of the values it rejects,
instead of visiting each of the ~4,000 offers in Python; counting an outcome is ``int.bit_count``.
Built once per catalog index and kept with it (``offer_columns``), like the index itself.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from ..catalog import Catalog, Provider
from ..catalog._types import PriceModel
from ._decision import Reason
from ._index import CatalogIndex, Row
from ._rules import attestation_applies
from ._suspect import offer_key

__all__ = ["Columns", "Ladder", "Span", "offer_columns"]

_CACHE_KEY = "engine.columns"


@dataclass(frozen=True, slots=True)
class Ladder:
    """The priced offers of one run and reservation term, by ascending price."""

    term_hours: int | None
    prices: tuple[float, ...]
    above: tuple[int, ...]
    """``above[k]``: the offers priced ``prices[k]`` or more (``above[len(prices)]`` is 0)."""

    def over(self, exceeds: Callable[[float], bool], guess: float) -> int:
        """The offers whose price ``exceeds`` (a test that is monotone in the price); ``guess`` is
        about the lowest price that does, refined with ``exceeds`` itself so rounding cannot differ
        from the per-offer comparison."""
        prices = self.prices
        k = bisect.bisect_left(prices, guess)
        while k > 0 and exceeds(prices[k - 1]):
            k -= 1
        while k < len(prices) and not exceeds(prices[k]):
            k += 1
        return self.above[k]


@dataclass(frozen=True, slots=True)
class Span:
    """One run of ``CatalogIndex.by_itype`` (offers sharing provider and instance type) as bits."""

    start: int
    rows: tuple[Row, ...]
    mask: int
    by_pricing: tuple[tuple[PriceModel, int, int], ...]
    """(price model, its offers in the run, the position in ``rows`` of the first of them)."""
    ladders: tuple[Ladder, ...]


@dataclass(slots=True)
class Columns:
    """The masks of one catalog index."""

    size: int
    everything: int
    spans: tuple[Span, ...]
    span_of: tuple[int, ...]
    """Bit -> the index of its span."""
    provider: dict[str, int]
    providers: dict[str, Provider]
    """Provider id -> its record (the attestations the compliance masks read)."""
    region_code: dict[str, int]
    """Region code (any provider) -> offers there (what a region pin selects)."""
    pricing: dict[PriceModel, int]
    country: dict[str | None, int]
    """The offer's region's country (None: unknown region or country)."""
    continent: dict[str | None, int]
    region: dict[tuple[str, str], int]
    as_of: dict[str, int]
    unpriced: int
    tpu: int
    _compliance: dict[tuple[str, tuple[str, ...], tuple[str, ...]], int] = field(default_factory=dict)
    _suspects: tuple[object, dict[str, int]] | None = None

    def lacking(self, scope: str, machine: tuple[str, ...], tpu: tuple[str, ...]) -> int:
        """Offers where no provider_claimed attestation of ``scope`` applies (rules.compliance_rules),
        for a placement on the services ``machine`` (GPU offers) or ``tpu`` (TPU offers)."""
        key = (scope, machine, tpu)
        found = self._compliance.get(key)
        if found is None:
            found = 0
            for (provider_id, code), mask in self.region.items():
                held = self.providers[provider_id].attestations
                claimed = [a for a in held if a.scope == scope and a.evidence == "provider_claimed"]
                for services, part in ((machine, mask & ~self.tpu), (tpu, mask & self.tpu)):
                    if part and not any(attestation_applies(a, code, services) for a in claimed):
                        found |= part
            self._compliance[key] = found
        return found

    def suspect(self, suspects: Mapping[tuple[str, str, str, str], Reason]) -> dict[str, int]:
        """Rule -> the offers ``suspects`` (``_suspect.suspect_prices``) names (kept for that mapping)."""
        if self._suspects is not None and self._suspects[0] is suspects:
            return self._suspects[1]
        found: dict[str, int] = {}
        for span in self.spans:
            for i, row in enumerate(span.rows):
                reason = suspects.get(offer_key(row.offer))
                if reason is not None:
                    found[reason.rule] = found.get(reason.rule, 0) | 1 << (span.start + i)
        self._suspects = (suspects, found)
        return found


K = TypeVar("K")


def _or(table: dict[K, int], key: K, bit: int) -> None:
    table[key] = table.get(key, 0) | bit


def _ladders(start: int, run: tuple[Row, ...]) -> tuple[Ladder, ...]:
    terms: dict[int | None, list[tuple[float, int]]] = {}
    for i, row in enumerate(run):
        price = row.offer.hourly_usd
        if price is not None:
            terms.setdefault(row.offer.term_hours, []).append((price, start + i))
    ladders = []
    for term, offers in sorted(terms.items(), key=lambda kv: -1 if kv[0] is None else kv[0]):
        offers.sort()
        above = [0] * (len(offers) + 1)
        for k in range(len(offers) - 1, -1, -1):
            above[k] = above[k + 1] | 1 << offers[k][1]
        ladders.append(Ladder(term, tuple(p for p, _ in offers), tuple(above)))
    return tuple(ladders)


def _build(index: CatalogIndex) -> Columns:
    provider: dict[str, int] = {}
    code: dict[str, int] = {}
    pricing: dict[PriceModel, int] = {}
    country: dict[str | None, int] = {}
    continent: dict[str | None, int] = {}
    region: dict[tuple[str, str], int] = {}
    as_of: dict[str, int] = {}
    providers: dict[str, Provider] = {}
    spans, span_of, unpriced, tpu = [], [], 0, 0
    start = 0
    for n, run in enumerate(index.by_itype):
        by_pricing: dict[PriceModel, int] = {}
        first: dict[PriceModel, int] = {}
        for i, row in enumerate(run):
            bit, offer, place = 1 << (start + i), row.offer, row.region
            span_of.append(n)
            providers[offer.provider] = row.provider
            _or(provider, offer.provider, bit)
            _or(code, offer.region, bit)
            _or(country, place.country if place is not None else None, bit)
            _or(continent, place.continent if place is not None else None, bit)
            _or(region, (offer.provider, offer.region), bit)
            _or(as_of, offer.as_of, bit)
            _or(by_pricing, offer.pricing, bit)
            first.setdefault(offer.pricing, i)
            if offer.hourly_usd is None:
                unpriced |= bit
            if row.accelerator is not None and row.accelerator.is_tpu:
                tpu |= bit
        for model, mask in by_pricing.items():
            _or(pricing, model, mask)
        pricings = tuple((model, mask, first[model]) for model, mask in by_pricing.items())
        spans.append(Span(start, run, ((1 << len(run)) - 1) << start, pricings, _ladders(start, run)))
        start += len(run)
    return Columns(
        size=start,
        everything=(1 << start) - 1,
        spans=tuple(spans),
        span_of=tuple(span_of),
        provider=provider,
        providers=providers,
        region_code=code,
        pricing=pricing,
        country=country,
        continent=continent,
        region=region,
        as_of=as_of,
        unpriced=unpriced,
        tpu=tpu,
    )


def offer_columns(catalog: Catalog, index: CatalogIndex) -> Columns:
    """The bit columns of ``index`` (``catalog``'s), built on first use and kept with the catalog."""
    cached = catalog._index.get(_CACHE_KEY)
    if isinstance(cached, tuple) and cached[0] is index:
        return cached[1]  # type: ignore[no-any-return]
    built = _build(index)
    catalog._index[_CACHE_KEY] = (index, built)
    return built
