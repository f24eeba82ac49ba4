"""OCI's public price list (``GET <base>/products/?currencyCode=USD``, no key): one JSON document.

The answer's ``items`` each have a ``displayName`` (``OCI - Compute - GPU - H100``), ``metricName``
(``GPU Per Hour``, ...), ``serviceCategory`` and per-currency ``prices`` (``PAY_AS_YOU_GO``, ...).
OCI's list prices have no region dimension, so a shape's price is applied to every region the
catalog lists the shape in. A GPU shape's item is found by its name (``_shape_token``); only ``GPU
Per Hour`` items price a shape: price = per-GPU PAY_AS_YOU_GO x the shape's GPU count.

Preemptible capacity is billed at 50 % of on-demand by OCI policy
(https://docs.oracle.com/en-us/iaas/Content/Compute/Concepts/preemptible.htm, the factor SkyPilot's
OCI fetcher uses too); the spot price is that half, only for the shapes the catalog already lists
as preemptible (the price list does not say which allow it).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any

from ...errors import CatalogRefreshError
from .._transport import Request, read_body
from . import FeedContext, FeedResult, group_unmapped, parse_json, price_text

__all__ = ["DEFAULT_URL", "PREEMPTIBLE_SHARE", "OciPriceListFeed"]

DEFAULT_URL = "https://apexapps.oracle.com/pls/apex/cetools/api/v1"
PREEMPTIBLE_SHARE = 0.5
"""Preemptible = 50 % of on-demand (OCI policy, cited in the module docstring)."""
_MAX_BODY = 64 * 1024 * 1024
_PREFIX = re.compile(r"^(?:OCI - |Oracle Cloud Infrastructure - )?Compute - GPU(?: Standard)? - ")
_SHAPE = re.compile(r"^(?:BM|VM)\.(GPU\d?)(?:\.([A-Za-z0-9-]+))?\.(\d+)$")
_GENERATIONS = {"GPU4": "E4", "GPU3": "E3", "GPU2": "V2"}
"""Shape generation -> the price-list item suffix that bills it (older shapes are named by it)."""
_NOT_RENTALS = ("metered", "cloud@customer", "ai enterprise", "vmware")


class OciPriceListFeed:
    """Adapter for OCI's public price list."""

    name = "oci-pricelist"
    needs: tuple[str, ...] = ()

    def fetch(self, ctx: FeedContext) -> FeedResult:
        url = f"{ctx.url.rstrip('/')}/products/?currencyCode=USD"
        ctx.say(f"fetching oci: {url}")
        items = _items(
            read_body(ctx.transport.fetch(Request(url=url, accept=("application/json",))), limit=_MAX_BODY)
        )
        per_gpu, skipped = _gpu_prices(items)
        rows, used = [], set()
        for row in ctx.last_good:
            token = _shape_token(row.get("InstanceType", ""))
            price = per_gpu.get(token) if token else None
            count = _count(row.get("AcceleratorCount", ""))
            if price is None or count is None:
                skipped["catalog shapes the price list does not price (dropped)"].append(row["InstanceType"])
                continue
            used.add(token)
            on_demand = price * count
            spot = price_text(on_demand * PREEMPTIBLE_SHARE) if row.get("SpotPrice") else ""
            rows.append({**row, "Price": price_text(on_demand), "SpotPrice": spot})
        for token in sorted(set(per_gpu) - used):
            skipped["GPU price-list items with no shape in the catalog"].append(token)
        return FeedResult(
            rows=rows,
            columns=ctx.columns,
            repo="OCI price list",
            path=f"{ctx.url.rstrip('/')}/products/",
            ref="live",
            unmapped=group_unmapped(skipped),
            notes=(f"{len(items)} price-list items, {len(per_gpu)} GPU parts priced per GPU-hour",),
        )


def _items(body: bytes) -> list[dict[str, Any]]:
    doc = parse_json(body, "oci: the price list")
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise CatalogRefreshError("oci: the price list has no 'items' list of objects")
    return items


def _gpu_prices(items: list[dict[str, Any]]) -> tuple[dict[str, float], dict[str, list[str]]]:
    """Item suffix (``H100``, ``A100 - v2``, ``E4``) -> USD per GPU-hour, and what was skipped."""
    out: dict[str, float] = {}
    skipped: dict[str, list[str]] = defaultdict(list)
    for item in items:
        name = str(item.get("displayName") or "")[:120]
        match = _PREFIX.match(name)
        if match is None or item.get("serviceCategory") != "Compute - GPU":
            continue  # not a GPU compute item (storage, networking, AI services, ...): not a row
        if any(word in name.lower() for word in _NOT_RENTALS):
            skipped["GPU items that are not cloud rentals (Metered, Cloud@Customer, licences)"].append(name)
            continue
        if item.get("metricName") != "GPU Per Hour":
            skipped["GPU items not billed per GPU-hour"].append(
                f"{name} ({str(item.get('metricName'))[:30]})"
            )
            continue
        price = _payg(item, name)
        if price is None:
            skipped["GPU items without a USD PAY_AS_YOU_GO price"].append(name)
            continue
        suffix = name[match.end() :].strip()
        if suffix in out and out[suffix] != price:
            skipped["a second item for the same GPU part (the first kept)"].append(name)
            continue
        out.setdefault(suffix, price)
    return out, skipped


def _payg(item: dict[str, Any], name: str) -> float | None:
    for localization in item.get("currencyCodeLocalizations") or []:
        if not isinstance(localization, dict) or localization.get("currencyCode") != "USD":
            continue
        for price in localization.get("prices") or []:
            if isinstance(price, dict) and price.get("model") == "PAY_AS_YOU_GO":
                value = price.get("value")
                if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                    raise CatalogRefreshError(
                        f"oci: {name!r}: PAY_AS_YOU_GO value {str(value)[:30]!r} is not a number"
                    )
                return float(value)
    return None


def _shape_token(shape: str) -> str | None:
    """The price-list suffix billing a GPU shape: ``BM.GPU.A100-v2.8`` -> ``A100 - v2``."""
    match = _SHAPE.fullmatch(shape)
    if match is None:
        return None
    generation, model = match.group(1), match.group(2)
    if model is None:
        return _GENERATIONS.get(generation)
    return model.replace("-", " - ")


def _count(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None
