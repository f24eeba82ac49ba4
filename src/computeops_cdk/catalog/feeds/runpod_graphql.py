"""RunPod's GraphQL API (``POST <base>/graphql``, no key for the public GPU-type fields).

The answer is ``{"data": {"gpuTypes": [...]}}`` or ``{"errors": [...]}``; a GPU type has a
``displayName``, prices per GPU-hour (``securePrice`` / ``secureSpotPrice``, ``communityPrice`` /
``communitySpotPrice``) and ``lowestPrice`` (stock) for one data centre: one query per data centre
the catalog lists (at most 64), as dstack's gpuhunt queries.

``<n>x_<GPU>_SECURE`` costs n x ``securePrice`` on-demand and n x ``secureSpotPrice`` spot (none
when 0 or null), the GPU named as SkyPilot's RunPod catalog writes it (``catalog_gpu_name``).
Community-cloud prices are reported as not mapped (the catalog has secure-cloud pods only). The data
centre's stock becomes the offer's ``Capacity`` (``high`` / ``medium`` / ``low``; ``none`` when null
or fewer than n GPUs are unreserved), which the engine's availability score reads.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any

from ...errors import CatalogRefreshError
from .._sources import Row
from .._transport import read_body
from . import FeedContext, FeedResult, group_unmapped, parse_json, post_json, price_text

__all__ = ["DEFAULT_URL", "QUERY", "RunPodGraphQLFeed", "catalog_gpu_name"]

DEFAULT_URL = "https://api.runpod.io"
QUERY = (
    "query GpuTypes($lowestPriceInput: GpuLowestPriceInput) { gpuTypes { id displayName memoryInGb "
    "securePrice communityPrice secureSpotPrice communitySpotPrice "
    "lowestPrice(input: $lowestPriceInput) { stockStatus maxUnreservedGpuCount } } }"
)
"""The one query, sent once per data centre."""
_MAX_DATA_CENTRES = 64
_MAX_BODY = 8 * 1024 * 1024
_TYPE = re.compile(r"(\d+)x_(.+)_SECURE")
_DATA_CENTRE = re.compile(r"[A-Z0-9][A-Z0-9-]{0,31}")
_RENAMES = {"A100-PCIe": "A100-80GB", "A100-SXM": "A100-80GB-SXM", "H100-PCIe": "H100"}
"""Display names SkyPilot's RunPod catalog (our rows' origin) keeps under older names."""
_STOCK = {"High": "high", "Medium": "medium", "Low": "low"}


def catalog_gpu_name(display_name: str) -> str:
    """The catalog's GPU name for a RunPod display name (``RTX PRO 6000`` -> ``RTXPRO6000``)."""
    name = display_name.replace("RTX PRO ", "RTXPRO").replace("RTX ", "RTX").replace(" ", "-")
    return _RENAMES.get(name, name)


class RunPodGraphQLFeed:
    """Adapter for RunPod's GraphQL API."""

    name = "runpod-graphql"
    needs: tuple[str, ...] = ()

    def fetch(self, ctx: FeedContext) -> FeedResult:
        url = f"{ctx.url.rstrip('/')}/graphql"
        centres = sorted({row.get("AvailabilityZone", "") for row in ctx.last_good} - {""})
        if len(centres) > _MAX_DATA_CENTRES:
            raise CatalogRefreshError(
                f"runpod: {len(centres)} data centres; at most {_MAX_DATA_CENTRES} queried"
            )
        bad = [c for c in centres if not _DATA_CENTRE.fullmatch(c)]
        if bad:
            raise CatalogRefreshError(f"runpod: data centre id {bad[0][:40]!r} is not a plain id")
        types: dict[str, dict[str, Any]] = {}
        stock: dict[tuple[str, str], tuple[str | None, int]] = {}
        for centre in centres:
            ctx.say(f"fetching runpod: {url} (data centre {centre})")
            for gpu in _gpu_types(ctx, url, centre):
                name = catalog_gpu_name(gpu["displayName"])
                types.setdefault(name, gpu)
                stock[(name, centre)] = _stock(gpu)
        rows, skipped = _rows(ctx.last_good, types, stock)
        columns = ctx.columns if "Capacity" in ctx.columns else (*ctx.columns, "Capacity")
        available = sum(1 for r in rows if r.get("Capacity") not in ("", "none"))
        return FeedResult(
            rows=rows,
            columns=columns,
            repo="RunPod GraphQL API",
            path=url,
            ref="live",
            unmapped=group_unmapped(skipped),
            notes=(f"{len(centres)} data centre(s) queried; {available} of {len(rows)} rows in stock now",),
        )


def _gpu_types(ctx: FeedContext, url: str, centre: str) -> list[dict[str, Any]]:
    variables = {"lowestPriceInput": {"gpuCount": 1, "secureCloud": True, "dataCenterId": centre}}
    request = post_json(url, {"query": QUERY, "variables": variables})
    doc = _envelope(read_body(ctx.transport.fetch(request), limit=_MAX_BODY), centre)
    gpus = doc.get("gpuTypes")
    if not isinstance(gpus, list) or not all(isinstance(g, dict) for g in gpus):
        raise CatalogRefreshError(f"runpod: {centre}: data.gpuTypes is not a list of objects")
    for gpu in gpus:
        if not isinstance(gpu.get("displayName"), str) or not gpu["displayName"]:
            raise CatalogRefreshError(f"runpod: {centre}: a GPU type has no displayName")
    return gpus


def _envelope(body: bytes, centre: str) -> dict[str, Any]:
    """``data`` of a GraphQL answer; its ``errors`` (even beside partial data) refuse the feed."""
    doc = parse_json(body, f"runpod: {centre}: the GraphQL answer")
    if not isinstance(doc, dict):
        raise CatalogRefreshError(f"runpod: {centre}: the GraphQL answer is not an object")
    errors = doc.get("errors")
    if errors:
        first = errors[0] if isinstance(errors, list) and errors else errors
        message = first.get("message") if isinstance(first, dict) else first
        raise CatalogRefreshError(f"runpod: {centre}: GraphQL errors: {str(message)[:160]}")
    data = doc.get("data")
    if not isinstance(data, dict):
        raise CatalogRefreshError(f"runpod: {centre}: the GraphQL answer has no 'data' object")
    return data


def _stock(gpu: dict[str, Any]) -> tuple[str | None, int]:
    found = gpu.get("lowestPrice")
    lowest: dict[str, Any] = found if isinstance(found, dict) else {}
    status = lowest.get("stockStatus")
    free = lowest.get("maxUnreservedGpuCount")
    count = free if isinstance(free, int) and not isinstance(free, bool) and free >= 0 else 0
    return _STOCK.get(status) if isinstance(status, str) else None, count


def _rows(
    last_good: list[Row],
    types: dict[str, dict[str, Any]],
    stock: dict[tuple[str, str], tuple[str | None, int]],
) -> tuple[list[Row], dict[str, list[str]]]:
    rows: list[Row] = []
    skipped: dict[str, list[str]] = defaultdict(list)
    named = set()
    for row in last_good:
        match = _TYPE.fullmatch(row.get("InstanceType", ""))
        gpu = types.get(match.group(2)) if match else None
        centre = row.get("AvailabilityZone", "")
        if match is None or gpu is None:
            skipped["catalog rows whose GPU type the API no longer lists (dropped)"].append(
                row["InstanceType"]
            )
            continue
        named.add(match.group(2))
        count = int(match.group(1))
        price = _price(gpu, "securePrice")
        if price is None:
            skipped["catalog rows without a secure-cloud price now (dropped)"].append(row["InstanceType"])
            continue
        spot = _price(gpu, "secureSpotPrice")
        level, free = stock.get((match.group(2), centre), (None, 0))
        capacity = level if level is not None and free >= count else "none"
        rows.append(
            {
                **row,
                "Price": price_text(price * count),
                "SpotPrice": price_text(spot * count) if spot is not None else "",
                "Capacity": capacity,
            }
        )
    for name in sorted(set(types) - named):
        skipped["GPU types the catalog has no instance type for"].append(name)
    community = sorted(n for n, g in types.items() if _price(g, "communityPrice") is not None)
    for name in community:
        skipped["community-cloud prices (the catalog lists secure-cloud pods only)"].append(name)
    return rows, skipped


def _price(gpu: dict[str, Any], field: str) -> float | None:
    value = gpu.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CatalogRefreshError(
            f"runpod: {gpu.get('displayName')!r}: {field} {str(value)[:30]!r} is not a number"
        )
    return float(value) if value != 0 else None  # 0 = not offered; a negative price is refused later
