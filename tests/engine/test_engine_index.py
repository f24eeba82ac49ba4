"""The engine's index of a catalog (engine/_index.py), built run by run (a cold decide's first call),
against the offer-by-offer join it replaced: the same rows, runs and counts, in the same order."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import replace

import pytest
from engine_testdata import make_catalog, offer

from computeops_cdk.catalog import Catalog, load_catalog
from computeops_cdk.engine._index import CatalogIndex, Row, _build, _sort_key


def _joined_offer_by_offer(catalog: Catalog) -> CatalogIndex:
    providers = {p.id: p for p in catalog.providers}
    regions = {(r.provider, r.code): r for r in catalog.regions}
    itypes = {(t.provider, t.name): t for t in catalog.instance_types}
    accelerators = {a.id: a for a in catalog.accelerators}
    rows = []
    places: dict[tuple[str, str], set[str]] = defaultdict(set)
    for o in sorted(catalog.offers, key=_sort_key):
        provider = providers.get(o.provider)
        if provider is None:
            continue
        itype = itypes.get((o.provider, o.instance_type))
        chip = accelerators.get(itype.accelerator) if itype is not None else None
        rows.append(Row(o, provider, regions.get((o.provider, o.region)), itype, chip))
        places[(o.provider, o.instance_type)].add(o.region)
    runs: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        runs.setdefault((row.offer.provider, row.offer.instance_type), []).append(row)
    return CatalogIndex(
        source=catalog.offers,
        rows=tuple(rows),
        by_itype=tuple(tuple(run) for run in runs.values()),
        regions_per_itype={key: len(codes) for key, codes in places.items()},
    )


def _same(built: CatalogIndex, expected: CatalogIndex) -> None:
    assert built == expected
    assert list(built.regions_per_itype.items()) == list(expected.regions_per_itype.items())
    for ours, theirs in zip(built.rows, expected.rows, strict=True):  # the catalog's own records
        assert all(getattr(ours, f) is getattr(theirs, f) for f in Row.__slots__)
    assert [len(run) for run in built.by_itype] == [len(run) for run in expected.by_itype]


@pytest.mark.parametrize("seed", [None, 0, 1])
def test_the_embedded_catalog_is_indexed_as_offer_by_offer(seed: int | None) -> None:
    catalog = load_catalog()
    if seed is not None:
        offers = list(catalog.offers)
        random.Random(seed).shuffle(offers)
        catalog = replace(catalog, offers=tuple(offers))
    _same(_build(catalog), _joined_offer_by_offer(catalog))


def test_unknown_providers_regions_and_instance_types_are_indexed_as_before() -> None:
    odd = (
        offer("nobody", "x1", "us-east-1", 1.0),  # no such provider: skipped
        offer("aws", "no-such-type", "us-east-1", 2.0),  # no instance type record
        offer("aws", "p5.48xlarge", "mars-1", 3.0),  # no region record
        offer("aws", "p5.48xlarge", "us-east-1", 4.0, "spot"),
    )
    catalog = make_catalog(offers=tuple(reversed(odd)) + make_catalog().offers)
    built = _build(catalog)
    _same(built, _joined_offer_by_offer(catalog))
    assert all(row.offer.provider != "nobody" for row in built.rows)
