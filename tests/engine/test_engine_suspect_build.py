"""``price.suspect``'s table (engine/_suspect.py), built in one pass over the offers and without
``statistics`` (a cold decide's first call), against the two-pass build it replaced: the same
reasons, in the same order, and ``statistics.median``'s arithmetic."""

from __future__ import annotations

import random
import statistics
from collections import defaultdict
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from computeops_cdk.catalog import Catalog, load_catalog
from computeops_cdk.engine._decision import Reason
from computeops_cdk.engine._suspect import (
    MIN_REGIONS,
    REGIONAL_FRACTION,
    SPOT_TOLERANCE,
    OfferKey,
    _build,
    _median,
    offer_key,
    price_label,
)


def _two_passes(catalog: Catalog) -> dict[OfferKey, Reason]:
    priced = [o for o in catalog.offers if o.hourly_usd is not None]
    found: dict[OfferKey, Reason] = {}
    spot = {(o.provider, o.instance_type, o.region): o.hourly_usd for o in priced if o.pricing == "spot"}
    for o in priced:
        assert o.hourly_usd is not None
        other = spot.get((o.provider, o.instance_type, o.region))
        if o.pricing == "on_demand" and other is not None and o.hourly_usd < other * (1 - SPOT_TOLERANCE):
            found[offer_key(o)] = Reason(
                rule="price.suspect",
                message=f"on-demand {o.hourly_usd:,.4g} USD/h is below the spot price {other:,.4g} USD/h "
                f"of the same offer ({o.provider} {o.instance_type} in {o.region}): one of the two is "
                "wrong. To accept it: constraints.accept_suspect_prices: true",
            )
    by_type: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)
    for o in priced:
        assert o.hourly_usd is not None
        prices = by_type[(o.provider, o.instance_type, price_label(o))]
        prices[o.region] = min(o.hourly_usd, prices.get(o.region, o.hourly_usd))
    for (provider, itype, pricing), prices in by_type.items():
        if len(prices) < MIN_REGIONS:
            continue
        median = statistics.median(prices.values())
        for region, price in prices.items():
            key = (provider, itype, region, pricing)
            if price < REGIONAL_FRACTION * median and key not in found:
                found[key] = Reason(
                    rule="price.suspect",
                    message=f"{pricing} {price:,.4g} USD/h is {price / median:.0%} of the median "
                    f"{median:,.4g} USD/h of {provider} {itype} over its {len(prices)} regions (below "
                    f"{REGIONAL_FRACTION:.0%}). To accept it: constraints.accept_suspect_prices: true",
                )
    return found


@pytest.mark.parametrize("seed", [None, 0, 1, 2])
def test_the_table_is_the_two_pass_one_in_the_same_order(seed: int | None) -> None:
    catalog = load_catalog()
    if seed is not None:
        offers = list(catalog.offers)
        random.Random(seed).shuffle(offers)
        # and prices moved about, so that both checks find more than the embedded catalog's 64
        rng = random.Random(seed)
        offers = [
            replace(o, hourly_usd=o.hourly_usd * rng.choice((0.3, 1.0, 1.0, 2.0)))
            if o.hourly_usd is not None
            else o
            for o in offers
        ]
        catalog = replace(catalog, offers=tuple(offers))
    built = _build(catalog)
    assert list(built.items()) == list(_two_passes(catalog).items())
    assert built


@given(st.lists(st.one_of(st.integers(0, 10**6), st.floats(0, 1e6, allow_nan=False)), min_size=1))
def test_the_median_is_statistics_median(values: list[float]) -> None:
    ours, theirs = _median(values), statistics.median(values)
    assert (ours, type(ours)) == (theirs, type(theirs))
