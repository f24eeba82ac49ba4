"""``price.suspect``: offers whose price contradicts the rest of the market data.

Two checks over the whole catalog (cached on it): an on-demand offer below the spot price of the
same offer (spot is sold at a discount from on-demand: the reverse is a data error), and an offer
far below the median of its other regions. Rejected unless ``constraints.accept_suspect_prices``
is true; the thresholds are documented in docs/decisions.md ("Hard constraints").
"""

from __future__ import annotations

from collections.abc import Iterable

from ..catalog import Catalog, Offer
from ._decision import Reason

__all__ = ["MIN_REGIONS", "REGIONAL_FRACTION", "SPOT_TOLERANCE", "offer_key", "price_label", "suspect_prices"]

REGIONAL_FRACTION = 0.5
"""An offer below half the median of its instance type's regions (same price model) is suspect."""
MIN_REGIONS = 3
"""The regional check needs at least this many priced regions (a median of two is no market)."""
SPOT_TOLERANCE = 0.01
"""On-demand below spot by more than 1 % (rounding in the source tables is not a contradiction)."""

_CACHE_KEY = "engine.suspect"

OfferKey = tuple[str, str, str, str]
"""(provider, instance type, region, price label)."""


def price_label(o: Offer) -> str:
    """The price model, with the term for reserved offers (``reserved/12``): a 1-year and a 3-year
    reservation are different markets and never compared with each other."""
    return o.pricing if o.term_months is None else f"{o.pricing}/{o.term_months}"


def offer_key(o: Offer) -> OfferKey:
    """The key ``suspect_prices`` uses for ``o``."""
    return (o.provider, o.instance_type, o.region, price_label(o))


def _median(values: Iterable[float]) -> float:
    """``statistics.median``'s arithmetic (a test compares them), without importing it."""
    data = sorted(values)
    middle = len(data) // 2
    return data[middle] if len(data) % 2 else (data[middle - 1] + data[middle]) / 2


def _build(catalog: Catalog) -> dict[OfferKey, Reason]:
    found: dict[OfferKey, Reason] = {}
    spot: dict[tuple[str, str, str], float] = {}
    on_demand: list[tuple[Offer, float]] = []
    by_type: dict[tuple[str, str, str], dict[str, float]] = {}
    # One pass over the priced offers for both checks; the on-demand ones are compared with the spot
    # prices once all are known, in the offers' order. The price label is made inline (price_label).
    for o in catalog.offers:
        price = o.hourly_usd
        if price is None:
            continue
        provider, itype, region = o.provider, o.instance_type, o.region
        model, term = o.pricing, o.term_months
        if model == "spot":
            spot[(provider, itype, region)] = price
        elif model == "on_demand":
            on_demand.append((o, price))
        label = model if term is None else f"{model}/{term}"
        prices = by_type.get((provider, itype, label))
        if prices is None:
            prices = by_type[(provider, itype, label)] = {}
        kept = prices.get(region)
        # min(price, kept): the kept price only when strictly lower (min returns its first argument
        # on a tie)
        prices[region] = kept if kept is not None and kept < price else price
    for o, price in on_demand:
        other = spot.get((o.provider, o.instance_type, o.region))
        if other is not None and price < other * (1 - SPOT_TOLERANCE):
            found[offer_key(o)] = Reason(
                rule="price.suspect",
                message=f"on-demand {price:,.4g} USD/h is below the spot price {other:,.4g} USD/h "
                f"of the same offer ({o.provider} {o.instance_type} in {o.region}): one of the two is "
                "wrong. To accept it: constraints.accept_suspect_prices: true",
            )
    for (provider, itype, pricing), prices in by_type.items():
        if len(prices) < MIN_REGIONS:
            continue
        median = _median(prices.values())
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


def suspect_prices(catalog: Catalog) -> dict[OfferKey, Reason]:
    """The suspect offers of ``catalog`` with their reasons (built once, kept with the catalog)."""
    cached = catalog._index.get(_CACHE_KEY)
    if isinstance(cached, tuple) and cached[0] is catalog.offers:
        return cached[1]  # type: ignore[no-any-return]
    built = _build(catalog)
    catalog._index[_CACHE_KEY] = (catalog.offers, built)
    return built
