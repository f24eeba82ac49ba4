"""A per-catalog index the engine builds once: offers in canonical order, joined to their records.

Sorting the offers here makes a decision independent of the catalog's row order. The index is
cached on the (immutable) catalog, so repeated decisions over one catalog pay for it once.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, fields
from itertools import groupby

from ..catalog import Accelerator, Catalog, InstanceType, Offer, Provider, Region

__all__ = ["CatalogIndex", "Row", "catalog_index"]

_CACHE_KEY = "engine.index"


@dataclass(frozen=True, slots=True)
class Row:
    """One offer joined to its provider, region, instance type and accelerator records."""

    offer: Offer
    provider: Provider
    region: Region | None
    itype: InstanceType | None
    accelerator: Accelerator | None


@dataclass(frozen=True, slots=True)
class CatalogIndex:
    """Offers in canonical order plus the lookups the filters and scores need."""

    source: tuple[Offer, ...]
    """The catalog's own offers tuple, checked before the cached index is used (a second guard)."""
    rows: tuple[Row, ...]
    by_itype: tuple[tuple[Row, ...], ...]
    """``rows`` split into runs sharing (provider, instance type), in the same canonical order."""
    regions_per_itype: dict[tuple[str, str], int]
    """(provider, instance type) -> number of distinct regions offering it (any price model)."""


def _sort_key(offer: Offer) -> tuple[str, str, str, str, int, float, str, str]:
    price = -1.0 if offer.hourly_usd is None else offer.hourly_usd
    return (
        offer.provider,
        offer.instance_type,
        offer.region,
        offer.pricing,
        offer.term_months or 0,
        price,
        offer.source,
        offer.as_of,
    )


def _build(catalog: Catalog) -> CatalogIndex:
    providers = {p.id: p for p in catalog.providers}
    regions: dict[str, dict[str, Region]] = defaultdict(dict)
    for r in catalog.regions:
        regions[r.provider][r.code] = r
    itypes = {(t.provider, t.name): t for t in catalog.instance_types}
    accelerators = {a.id: a for a in catalog.accelerators}
    rows: list[Row] = []
    runs: list[tuple[Row, ...]] = []
    counts: dict[tuple[str, str], int] = {}
    # A Row is made by setting its five slots, not by its slower frozen __init__ (test_engine_index
    # compares the rows with Row(...)'s).
    new = object.__new__
    put_offer, put_provider, put_region, put_itype, put_chip = (
        getattr(Row, f.name).__set__ for f in fields(Row)
    )
    # The sort key starts with (provider, instance type): each run's offers are contiguous, so what
    # the run shares (provider, instance type, accelerator records) is looked up once per run.
    for key, offers in groupby(sorted(catalog.offers, key=_sort_key), key=_run_key):
        provider = providers.get(key[0])
        if provider is None:  # a catalog that validated never has one; skip rather than guess
            continue
        itype = itypes.get(key)
        chip = accelerators.get(itype.accelerator) if itype is not None else None
        places = regions.get(key[0], {})
        made = []
        codes = set()
        for offer in offers:
            row = new(Row)
            put_offer(row, offer)
            put_provider(row, provider)
            put_region(row, places.get(offer.region))
            put_itype(row, itype)
            put_chip(row, chip)
            made.append(row)
            codes.add(offer.region)
        run = tuple(made)
        rows.extend(run)
        runs.append(run)
        counts[key] = len(codes)
    return CatalogIndex(
        source=catalog.offers, rows=tuple(rows), by_itype=tuple(runs), regions_per_itype=counts
    )


def _run_key(offer: Offer) -> tuple[str, str]:
    return offer.provider, offer.instance_type


def catalog_index(catalog: Catalog) -> CatalogIndex:
    """The engine's index of ``catalog``, built on first use and kept with the catalog."""
    cached = catalog._index.get(_CACHE_KEY)
    if isinstance(cached, CatalogIndex) and cached.source is catalog.offers:
        return cached
    built = _build(catalog)
    catalog._index[_CACHE_KEY] = built
    return built
