"""Vast.ai's public offer search (``POST <base>/api/v0/bundles/`` with a JSON filter, no key).

The request body is ``search_filter()`` (``limit`` and ``order`` instead of paging); the answer's
``offers`` are live marketplace listings (``gpu_name``, ``num_gpus``, ``cpu_cores``, ``cpu_ram``
in MB, ``dph_total`` per hour, ``min_bid``, ``geolocation``, ``rentable``, ``reliability``).

Listings come and go (their ids change hourly), so they are aggregated, not copied: a listing counts
for the catalog instance type ``<num_gpus>x-<gpu_name, spaces as _>-<vCPUs>-<RAM MiB>`` (SkyPilot's
Vast naming) in its region when it is rentable, at least ``RELIABILITY_FLOOR`` reliable and has at
least the type's vCPUs and RAM. Per (instance type, region) the on-demand price is the **median**
``dph_total`` and the spot price the median ``min_bid`` (one underpriced host should not set the
market); the region is the geolocation with its country's continent (``Michigan, US, NA``).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from typing import Any

from ...errors import CatalogRefreshError
from .._sources import Row, number
from .._transport import read_body
from . import FeedContext, FeedResult, group_unmapped, parse_json, post_json

__all__ = ["DEFAULT_URL", "MAX_LISTINGS", "RELIABILITY_FLOOR", "VastSearchFeed", "search_filter"]

DEFAULT_URL = "https://console.vast.ai"
RELIABILITY_FLOOR = 0.95
"""Listings less reliable than this (Vast's own 0..1 host reliability) do not count."""
MAX_LISTINGS = 1000
"""Listings read per refresh (the search's ``limit``; cheapest first)."""
_MAX_BODY = 32 * 1024 * 1024


def search_filter() -> dict[str, Any]:
    """The search body this adapter posts."""
    return {
        "limit": MAX_LISTINGS,
        "num_gpus": {"gte": 1},
        "order": [["dph_total", "asc"]],
        "reliability": {"gte": RELIABILITY_FLOOR},
        "rentable": {"eq": True},
        "rented": {"eq": False},
        "type": "on-demand",
    }


class VastSearchFeed:
    """Adapter for Vast.ai's offer search."""

    name = "vast-search"
    needs: tuple[str, ...] = ()

    def fetch(self, ctx: FeedContext) -> FeedResult:
        url = f"{ctx.url.rstrip('/')}/api/v0/bundles/"
        ctx.say(f"fetching vast: {url} (at most {MAX_LISTINGS} listings)")
        request = post_json(url, search_filter())
        listings = _listings(read_body(ctx.transport.fetch(request), limit=_MAX_BODY))
        rows, skipped, counted = _aggregate(ctx.last_good, listings)
        notes = [f"{len(listings)} listing(s) read, {counted} counted into {len(rows)} (type, region) rows"]
        if len(listings) >= MAX_LISTINGS:
            notes.append(
                f"the search's limit of {MAX_LISTINGS} was reached: only the cheapest listings were seen"
            )
        return FeedResult(
            rows=rows,
            columns=ctx.columns,
            repo="Vast.ai offer search",
            path=url,
            ref="live",
            unmapped=group_unmapped(skipped),
            notes=tuple(notes),
        )


def _listings(body: bytes) -> list[dict[str, Any]]:
    doc = parse_json(body, "vast: the offer search answer")
    offers = doc.get("offers") if isinstance(doc, dict) else None
    if not isinstance(offers, list) or not all(isinstance(o, dict) for o in offers):
        raise CatalogRefreshError("vast: the offer search answer has no 'offers' list of objects")
    if len(offers) > MAX_LISTINGS:
        raise CatalogRefreshError(f"vast: {len(offers)} listings, more than the {MAX_LISTINGS} asked for")
    return offers


def _aggregate(
    last_good: list[Row], listings: list[dict[str, Any]]
) -> tuple[list[Row], dict[str, list[str]], int]:
    """One row per (instance type, region) of the last good data that live listings price."""
    template: dict[tuple[str, str], Row] = {}
    by_gpu: dict[tuple[int, str], dict[str, Row]] = defaultdict(dict)  # -> instance type -> a row of it
    continent: dict[str, str] = {}
    for row in last_good:
        template.setdefault((row["InstanceType"], row["Region"]), row)
        gpu = (int(float(row["AcceleratorCount"])), row["InstanceType"].split("-")[1])
        by_gpu[gpu].setdefault(row["InstanceType"], row)
        continent.setdefault(row.get("CountryCode", ""), row.get("ContinentCode", ""))
    prices: dict[tuple[str, str], list[tuple[float, float | None]]] = defaultdict(list)
    skipped: dict[str, list[str]] = defaultdict(list)
    for listing in listings:
        reason, keys, price = _place(listing, by_gpu, continent)
        if reason:
            skipped[reason].append(_describe(listing))
            continue
        hits = [k for k in keys if k in template]
        if not hits:
            skipped["listings for an instance type or region not in the catalog"].append(_describe(listing))
        for key in hits:
            prices[key].append(price)
    rows = [_row(template[key], values) for key, values in sorted(prices.items())]
    for key in sorted(set(template) - set(prices)):
        skipped["catalog rows no counted listing prices now (dropped)"].append(" ".join(key))
    return rows, skipped, sum(len(v) for v in prices.values())


def _place(
    listing: dict[str, Any], by_gpu: dict[tuple[int, str], dict[str, Row]], continent: dict[str, str]
) -> tuple[str, list[tuple[str, str]], tuple[float, float | None]]:
    """(why the listing does not count or "", the (type, region) keys it counts for, its prices)."""
    none: tuple[float, float | None] = (0.0, None)
    if listing.get("rentable") is not True:
        return "listings not rentable now", [], none
    reliability = _num(listing.get("reliability"), "reliability")
    if reliability is None or reliability < RELIABILITY_FLOOR:
        return f"listings below the reliability floor of {RELIABILITY_FLOOR}", [], none
    total = _num(listing.get("dph_total"), "dph_total")
    if total is None:
        return "listings without a dph_total price", [], none
    bid = _num(listing.get("min_bid"), "min_bid")
    gpu, count = str(listing.get("gpu_name") or ""), listing.get("num_gpus")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        return "listings without a GPU count", [], none
    types = list(by_gpu.get((count, gpu.replace(" ", "_")), {}).values())
    if not types:
        return "listings of a GPU and count the catalog has no instance type for", [], none
    place = [p.strip() for p in str(listing.get("geolocation") or "").split(",")]
    if len(place) != 2 or not place[1] or place[1] not in continent:
        return "listings whose geolocation is not 'place, CC' of a country the catalog lists", [], none
    region = f"{place[0]}, {place[1]}, {continent[place[1]]}"
    cpus, ram = _num(listing.get("cpu_cores"), "cpu_cores"), _num(listing.get("cpu_ram"), "cpu_ram")
    fits = [
        t["InstanceType"]
        for t in types
        if cpus is not None
        and ram is not None
        and cpus >= (number(t.get("vCPUs", "")) or 0)
        and ram >= (number(t.get("MemoryGiB", "")) or 0) * 1024
    ]
    if not fits:
        return "listings with fewer vCPUs or less RAM than the catalog's instance type", [], none
    return "", [(name, region) for name in fits], (total, bid)


def _row(template: Row, values: list[tuple[float, float | None]]) -> Row:
    on_demand = statistics.median(v[0] for v in values)
    bids = [v[1] for v in values if v[1] is not None and v[1] > 0]
    spot = statistics.median(bids) if bids else None
    return {
        **template,
        "Price": repr(round(on_demand, 6)),
        "SpotPrice": repr(round(spot, 6)) if spot is not None else "",
    }


def _num(value: Any, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CatalogRefreshError(f"vast: a listing's {field} {str(value)[:30]!r} is not a number")
    return float(value)


def _describe(listing: dict[str, Any]) -> str:
    gpu, where = str(listing.get("gpu_name"))[:40], str(listing.get("geolocation"))[:40]
    return f"{listing.get('num_gpus')}x {gpu} {where}"
