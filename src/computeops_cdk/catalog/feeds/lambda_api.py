"""Lambda Cloud's instance-types API (``GET <base>/instance-types``, a Bearer API key).

The answer is one JSON document: ``{"data": {"<name>": {"instance_type": {"name", ...,
"price_cents_per_hour", "specs": {...}}, "regions_with_capacity_available": [{"name", ...}]}}}``.
Lambda lists one price per instance type, the same in every region, so it is applied to every region
the catalog lists for that type; the regions with capacity now become the ``Capacity`` column
(``available`` in a listed region, else ``none``), which the engine's availability score reads. The
key comes from ``LAMBDA_API_KEY`` and is never written to a message or a log (a ``Request`` secret).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from ...errors import CatalogRefreshError
from .._transport import Request, read_body
from . import FeedContext, FeedResult, group_unmapped, parse_json

__all__ = ["DEFAULT_URL", "KEY_ENV", "LambdaApiFeed"]

DEFAULT_URL = "https://cloud.lambdalabs.com/api/v1"
KEY_ENV = "LAMBDA_API_KEY"
_MAX_BODY = 16 * 1024 * 1024


class LambdaApiFeed:
    """Adapter for Lambda's instance-types API."""

    name = "lambda-api"
    needs: tuple[str, ...] = (KEY_ENV,)

    def fetch(self, ctx: FeedContext) -> FeedResult:
        key = ctx.env.get(KEY_ENV, "")
        if not key:
            raise CatalogRefreshError(f"lambda: the instance-types API needs an API key in ${KEY_ENV}")
        url = f"{ctx.url.rstrip('/')}/instance-types"
        ctx.say(f"fetching lambda: {url} (API key from ${KEY_ENV})")
        request = Request(
            url=url,
            headers=(("Authorization", f"Bearer {key}"),),
            accept=("application/json",),
            secrets=(key,),
        )
        body = read_body(ctx.transport.fetch(request), limit=_MAX_BODY)
        types = _instance_types(body)
        rows, unmapped = [], defaultdict(list)
        listed = {row["InstanceType"] for row in ctx.last_good}
        for name in sorted(types):
            if name not in listed:
                unmapped["instance type not in the catalog (no specs to attach the price to)"].append(name)
        for row in ctx.last_good:
            entry = types.get(row["InstanceType"])
            if entry is None:
                unmapped["last good rows the feed no longer lists (dropped)"].append(row["InstanceType"])
                continue
            level = "available" if row.get("Region") in entry["capacity"] else "none"
            rows.append({**row, "Price": entry["price"], "SpotPrice": "", "Capacity": level})
        capacity = sum(len(e["capacity"]) for e in types.values())
        return FeedResult(
            rows=rows,
            columns=ctx.columns if "Capacity" in ctx.columns else (*ctx.columns, "Capacity"),
            repo="Lambda instance-types API",
            path=url,
            ref="live",
            unmapped=group_unmapped(unmapped),
            notes=(f"{capacity} (instance type, region) pairs with capacity available now",),
        )


def _instance_types(body: bytes) -> dict[str, dict[str, Any]]:
    doc = parse_json(body, "lambda: the instance-types answer")
    data = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(data, dict):
        error = doc.get("error") if isinstance(doc, dict) else None
        hint = f": {str(error)[:120]}" if error else ""
        raise CatalogRefreshError(f"lambda: the instance-types answer has no 'data' object{hint}")
    out: dict[str, dict[str, Any]] = {}
    for name, entry in data.items():
        kind = entry.get("instance_type") if isinstance(entry, dict) else None
        cents = kind.get("price_cents_per_hour") if isinstance(kind, dict) else None
        if isinstance(cents, bool) or not isinstance(cents, int | float) or not math.isfinite(cents):
            raise CatalogRefreshError(f"lambda: {str(name)[:60]!r} has no numeric price_cents_per_hour")
        regions = entry.get("regions_with_capacity_available") or []
        capacity = (
            [r.get("name") for r in regions if isinstance(r, dict)] if isinstance(regions, list) else []
        )
        out[str(name)] = {"price": repr(round(cents / 100, 6)), "capacity": capacity}
    return out
