"""Azure's Retail Prices API (``GET <base>/api/retail/prices?$filter=...``, no key).

The answer is JSON pages of ``Items`` and a ``NextPageLink``; one query per region of the last good
data, every page followed (at most 200 pages, only links on the base URL's host). Linux Consumption
prices become on-demand and spot (a ``Spot`` meter); Windows, Low Priority, DevTest and non-USD
items are skipped as not comparable.

``Reservation`` items of "1 Year" / "3 Years" become reserved offers (12 / 36 months): their
``retailPrice`` is the **whole term's** price although ``unitOfMeasure`` says "1 Hour" (E4ds v4 in
westeurope: Consumption 0.346 USD, 1-year Reservation 1788.0 = 0.204 USD/h), so the hourly price is
retailPrice / (months x 730 h). Azure bills a reservation upfront or monthly at the same total,
recorded as upfront "none". A reservation below 5 % of on-demand per hour is not a whole-term price
(the API would have changed): reported, not kept.
"""

from __future__ import annotations

import math
import urllib.parse
from collections import defaultdict
from typing import Any

from ...errors import CatalogRefreshError
from .._transport import Request, read_body
from .._types import HOURS_PER_MONTH, RESERVED_COLUMNS
from . import FeedContext, FeedResult, group_unmapped, map_prices, parse_json, with_reserved_columns

__all__ = ["DEFAULT_URL", "AzureRetailFeed"]

DEFAULT_URL = "https://prices.azure.com"
_MAX_PAGES = 200
_MAX_PAGE = 16 * 1024 * 1024
_TERMS = {"1 Year": 12, "3 Years": 36}
_MIN_RESERVED_SHARE = 0.05


class AzureRetailFeed:
    """Adapter for Azure's Retail Prices API."""

    name = "azure-retail"
    needs: tuple[str, ...] = ()

    def fetch(self, ctx: FeedContext) -> FeedResult:
        base = ctx.url.rstrip("/")
        regions = sorted({row["Region"] for row in ctx.last_good if row.get("Region")})
        prices: dict[tuple[str, str], dict[str, str]] = {}
        skipped: dict[str, list[str]] = defaultdict(list)
        pages = 0
        for region in regions:
            query = f"serviceName eq 'Virtual Machines' and armRegionName eq '{region}'"
            url: str | None = f"{base}/api/retail/prices?{urllib.parse.urlencode({'$filter': query})}"
            while url is not None:
                pages += 1
                if pages > _MAX_PAGES:
                    raise CatalogRefreshError(f"azure: more than {_MAX_PAGES} pages; refused as unbounded")
                ctx.say(f"fetching azure: {url}")
                page = _page(
                    read_body(
                        ctx.transport.fetch(Request(url=url, accept=("application/json",))), limit=_MAX_PAGE
                    )
                )
                for item in page["Items"]:
                    _take(item, prices, skipped)
                url = _next(page.get("NextPageLink"), base)
        _drop_implausible_reservations(prices, skipped)
        rows, unmapped = map_prices(ctx.last_good, prices, region_column="Region")
        return FeedResult(
            rows=rows,
            columns=with_reserved_columns(ctx.columns),
            repo="Azure Retail Prices API",
            path=f"{base}/api/retail/prices",
            ref="live",
            unmapped=unmapped + group_unmapped(skipped),
            notes=(f"{pages} page(s) read for {len(regions)} region(s)",),
        )


def _page(body: bytes) -> dict[str, Any]:
    doc = parse_json(body, "azure: a Retail Prices page")
    if not isinstance(doc, dict) or not isinstance(doc.get("Items"), list):
        raise CatalogRefreshError("azure: a Retail Prices page has no 'Items' list")
    return doc


def _next(link: Any, base: str) -> str | None:
    if link in (None, ""):
        return None
    if not isinstance(link, str):
        raise CatalogRefreshError(f"azure: NextPageLink is not a URL ({str(link)[:60]!r})")
    # Follow only the API's own host (the answer chooses the next URL; never let it send us elsewhere).
    ours, theirs = urllib.parse.urlsplit(base), urllib.parse.urlsplit(link)
    if (theirs.scheme, theirs.hostname) != (ours.scheme, ours.hostname):
        raise CatalogRefreshError(f"azure: NextPageLink points away from {ours.hostname} ({link[:80]!r})")
    if theirs.port != ours.port:  # the public API writes :443 explicitly; keep the base's own port
        return str(urllib.parse.urlunsplit(theirs._replace(netloc=ours.netloc)))
    return str(link)


def _take(item: Any, prices: dict[tuple[str, str], dict[str, str]], skipped: dict[str, list[str]]) -> None:
    if not isinstance(item, dict):
        raise CatalogRefreshError("azure: a Retail Prices item is not an object")
    sku, region = item.get("armSkuName"), item.get("armRegionName")
    meter = str(item.get("meterName") or item.get("skuName") or "")
    product = str(item.get("productName") or "")
    kind = item.get("type")
    where = f"{sku} {region} {meter}"[:100]
    if not isinstance(sku, str) or not isinstance(region, str) or not sku:
        skipped["items without an armSkuName/armRegionName"].append(where)
        return
    reserved = kind == "Reservation" and not product.endswith("Windows")
    if reserved and item.get("reservationTerm") not in _TERMS:
        skipped["reservations of another term than 1 or 3 years"].append(where)
        return
    if not reserved and (kind != "Consumption" or product.endswith("Windows") or "Low Priority" in meter):
        skipped["Windows, Low Priority or DevTest prices (not comparable)"].append(where)
        return
    if item.get("currencyCode") != "USD" or item.get("unitOfMeasure") != "1 Hour":
        skipped["not USD per hour"].append(where)
        return
    price = item.get("retailPrice")
    if isinstance(price, bool) or not isinstance(price, int | float) or not math.isfinite(price):
        raise CatalogRefreshError(f"azure: {where}: retailPrice {str(price)[:30]!r} is not a number")
    if reserved:  # the whole term's price: spread over its hours
        months = _TERMS[str(item["reservationTerm"])]
        column, price = RESERVED_COLUMNS[months], float(price) / (months * HOURS_PER_MONTH)
    else:
        column = "SpotPrice" if meter.endswith("Spot") else "Price"
    entry = prices.setdefault((sku, region), {})
    if column not in entry or price < float(entry[column]):
        entry[column] = repr(round(float(price), 6))


def _drop_implausible_reservations(
    prices: dict[tuple[str, str], dict[str, str]], skipped: dict[str, list[str]]
) -> None:
    """Reservation prices below 5 % of on-demand per hour are not whole-term prices: reported."""
    for (sku, region), entry in prices.items():
        on_demand = float(entry["Price"]) if "Price" in entry else None
        for column in RESERVED_COLUMNS.values():
            if column in entry and on_demand and float(entry[column]) < _MIN_RESERVED_SHARE * on_demand:
                reason = "reservation prices that do not read as whole-term prices (< 5 % of on-demand)"
                skipped[reason].append(f"{sku} {region} {column} {entry.pop(column)}")
