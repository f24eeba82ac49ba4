"""GCP's Cloud Billing Catalog API (``GET <base>/v1/services/<id>/skus``, an API key).

The answer is JSON pages of ``skus`` (``description``, ``category``, ``serviceRegions``,
``pricingInfo``) and a ``nextPageToken``. Two services are read, every page followed (at most 100
each): Compute Engine (vCPU, RAM, GPU and TPU v5e/v5p/v6e SKUs) and Cloud TPU (TPU v2/v3/v4).

Machine prices are assembled as the catalog's GCP rows are priced (data/market/SOURCES.md, 1):
``host_vm`` = vCPUs x the series' Core price + MemoryGiB x its Ram price (the series is the machine
type's first token: ``a3-megagpu-8g`` -> ``A3 Instance``); ``accelerator`` = count x the GPU SKU's
price; ``tpu`` = slice size x the TPU SKU's price per unit (``_TPU_CORES_PER_UNIT``; ``Pod`` SKUs
for slices over 8 cores and every v4 slice). Spot comes from ``Preemptible`` SKUs (for TPU SKUs,
whose usage type is ``OnDemand`` either way, from a description that says ``Preemptible``).

Not covered, each reported as not mapped: committed-use SKUs (no reserved GCP offers from this
feed), custom / premium / sole-tenant / reserved SKUs, and catalog rows whose parts the answer does
not price in that region (dropped, so the row-count check sees them). The key rides in the
``X-goog-api-key`` header (not the URL) as a ``Request`` secret, never in a message or a log.
"""

from __future__ import annotations

import re
import urllib.parse
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from ...errors import CatalogRefreshError
from .._sources import Row, number
from .._transport import Request, read_body
from . import FeedContext, FeedResult, group_unmapped, parse_json, price_text

__all__ = ["COMPUTE_SERVICE", "DEFAULT_URL", "KEY_ENV", "TPU_SERVICE", "GcpBillingFeed"]

DEFAULT_URL = "https://cloudbilling.googleapis.com"
KEY_ENV = "GOOGLE_BILLING_API_KEY"
COMPUTE_SERVICE = "6F81-5844-456A"
"""Compute Engine: vCPU, RAM, GPU and TPU v5e/v5p/v6e SKUs."""
TPU_SERVICE = "E000-3F24-B8AA"
"""Cloud TPU: TPU v2/v3/v4 SKUs."""
_MAX_PAGES = 100  # per service; Compute Engine is ~30 pages of 5,000
_MAX_PAGE = 32 * 1024 * 1024
_PAGE_SIZE = 5000
_TOKEN = re.compile(r"[A-Za-z0-9._~+/=-]{1,2048}")

_SERIES = re.compile(r"(?:^|\s)([A-Z]\d+[A-Z]?) Instance (Core|Ram)\b")
_GPU = re.compile(r"Nvidia (?:Tesla )?(.+?)(?: GPU\b| \(1 gpu slice\))", re.IGNORECASE)
_TPU = re.compile(r"\bTpu[- ]?(v\d+)([a-z]*)", re.IGNORECASE)
_GPU_NAMES = {
    "a100": "A100",
    "a100 80gb": "A100-80GB",
    "h100 80gb": "H100",
    "h100 80gb mega": "H100-MEGA",
    "h100 mega 80gb": "H100-MEGA",
    "h100 80gb plus": "H100-MEGA",
    "h200 141gb": "H200",
    "b200": "B200",
    "l4": "L4",
    "t4": "T4",
    "v100": "V100",
    "p100": "P100",
    "p4": "P4",
    "k80": "K80",
}
"""The GPU named in a SKU description (after ``Nvidia [Tesla]``) -> the catalog's accelerator name,
as the GCP rows of SkyPilot's catalog name them (data/market/raw/gcp.csv)."""
_TPU_CORES_PER_UNIT = {"v2": 8, "v3": 8, "v4": 8, "v5p": 2, "v5litepod": 1, "v6e": 1}
"""TensorCores (v2/v3/v4/v5p slice suffixes) or chips (v5e/v6e suffixes) one SKU unit prices."""
_SKIP_WORDS = ("custom", "premium", "reserved", "sole tenancy", "virtual workstation")

_Key = tuple[str, ...]


class GcpBillingFeed:
    """Adapter for GCP's Cloud Billing Catalog API."""

    name = "gcp-billing"
    needs: tuple[str, ...] = (KEY_ENV,)

    def fetch(self, ctx: FeedContext) -> FeedResult:
        key = ctx.env.get(KEY_ENV, "")
        if not key:
            raise CatalogRefreshError(f"gcp: the Cloud Billing Catalog API needs an API key in ${KEY_ENV}")
        base = ctx.url.rstrip("/")
        prices = _Prices()
        pages = sum(
            _read_service(ctx, base, service, key, prices.add) for service in (COMPUTE_SERVICE, TPU_SERVICE)
        )
        rows, unpriced = _assemble(ctx.last_good, prices)
        unpriced["SKU prices no catalog row uses (other machine series, GPUs or regions)"] = prices.unused()
        return FeedResult(
            rows=rows,
            columns=ctx.columns,
            repo="GCP Cloud Billing Catalog API",
            path=f"{base}/v1/services/{COMPUTE_SERVICE}+{TPU_SERVICE}/skus",
            ref="live",
            unmapped=group_unmapped({**prices.skipped, **unpriced}),
            notes=(f"{pages} page(s), {prices.count} SKUs read from 2 services",),
        )


def _read_service(
    ctx: FeedContext, base: str, service: str, key: str, take: Callable[[dict[str, Any]], None]
) -> int:
    """Feed every SKU of ``service`` to ``take``, page after page (``nextPageToken``); the pages read."""
    token = ""
    for page in range(1, _MAX_PAGES + 1):
        query = {"currencyCode": "USD", "pageSize": str(_PAGE_SIZE)}
        if token:
            query["pageToken"] = token
        url = f"{base}/v1/services/{service}/skus?{urllib.parse.urlencode(query)}"
        ctx.say(f"fetching gcp: {url} (API key from ${KEY_ENV})")
        request = Request(
            url=url, headers=(("X-goog-api-key", key),), accept=("application/json",), secrets=(key,)
        )
        doc = _page(read_body(ctx.transport.fetch(request), limit=_MAX_PAGE), service)
        for sku in doc["skus"]:
            take(sku)
        token = doc.get("nextPageToken") or ""
        if not isinstance(token, str) or (token and not _TOKEN.fullmatch(token)):
            raise CatalogRefreshError(f"gcp: services/{service}: nextPageToken is not a page token")
        if not token:
            return page
    raise CatalogRefreshError(f"gcp: services/{service}: more than {_MAX_PAGES} pages; refused as unbounded")


def _page(body: bytes, service: str) -> dict[str, Any]:
    where = f"gcp: services/{service}/skus"
    doc = parse_json(body, f"{where}: a page")
    if isinstance(doc, dict) and isinstance(doc.get("error"), dict):
        raise CatalogRefreshError(f"{where} answered an error: {str(doc['error'].get('message', ''))[:120]}")
    skus = doc.get("skus", []) if isinstance(doc, dict) else None
    if not isinstance(skus, list) or not all(isinstance(s, dict) for s in skus):
        raise CatalogRefreshError(f"{where}: a page has no 'skus' list of objects")
    return {"skus": skus, "nextPageToken": doc.get("nextPageToken")}


class _Prices:
    """Unit prices by part: ("core"|"ram", series, region, spot), ("gpu", name, region, spot),
    ("tpu", version, pod, region, spot); the first SKU to price a part wins (API order)."""

    def __init__(self) -> None:
        self.unit: dict[_Key, float] = {}
        self.skipped: dict[str, list[str]] = defaultdict(list)
        self.count = 0
        self.used: set[_Key] = set()

    def add(self, sku: dict[str, Any]) -> None:
        self.count += 1
        description = str(sku.get("description") or "")[:200]
        found = sku.get("category")
        category: dict[str, Any] = found if isinstance(found, dict) else {}
        usage, group = category.get("usageType"), category.get("resourceGroup")
        regions = [r for r in sku.get("serviceRegions") or [] if isinstance(r, str)]
        if category.get("resourceFamily") != "Compute":
            self.skipped["not compute SKUs (storage, network, licences)"].append(description)
            return
        if usage not in ("OnDemand", "Preemptible"):
            reason = "committed-use SKUs (Commit1Yr/Commit3Yr: no reserved GCP offers from this feed)"
            self.skipped[reason].append(description)
            return
        if any(word in description.lower() for word in _SKIP_WORDS):
            self.skipped["custom, premium, sole-tenant, reserved or workstation SKUs"].append(description)
            return
        part = self._part(description, group, usage == "Preemptible")
        if part is None:
            return
        price = _unit_price(sku, description, "GiBy.h" if part[0] == "ram" else "h")
        if price is None:
            self.skipped["not priced in USD per hour (or per GiB-hour)"].append(description)
            return
        for region in regions:
            key = (*part[:-1], region, part[-1])
            if key in self.unit and self.unit[key] != price:
                self.skipped["a second SKU pricing the same part in a region (the first kept)"].append(
                    f"{description} {region}"
                )
                continue
            self.unit.setdefault(key, price)

    def _part(self, description: str, group: Any, preemptible: bool) -> tuple[str, ...] | None:
        spot = "spot" if preemptible else "on_demand"
        if group == "TPU" or _TPU.search(description):
            match = _TPU.search(description)
            if match is None:
                self.skipped["TPU SKUs without a TPU version in the description"].append(description)
                return None
            version = match.group(1).lower() + match.group(2).lower()
            version = "v5litepod" if version == "v5e" else version
            pod = "pod" if "Pod" in description else "device"
            return ("tpu", version, pod, "spot" if "Preemptible" in description else "on_demand")
        if group == "GPU":
            match = _GPU.search(description)
            name = _GPU_NAMES.get(match.group(1).strip().lower()) if match else None
            if name is None:
                self.skipped["GPU SKUs naming a GPU the catalog has no name for"].append(description)
                return None
            return ("gpu", name, spot)
        if group in ("CPU", "RAM"):
            match = _SERIES.search(description)
            if match is None:
                self.skipped["CPU/RAM SKUs without an '<series> Instance Core/Ram' description"].append(
                    description
                )
                return None
            kind = "core" if match.group(2) == "Core" else "ram"
            return (kind, match.group(1).lower(), spot)
        self.skipped["other compute SKUs (not a vCPU, RAM, GPU or TPU price)"].append(description)
        return None

    def get(self, *key: str) -> float | None:
        if key in self.unit:
            self.used.add(key)
        return self.unit.get(key)

    def unused(self) -> list[str]:
        """Parts priced by some SKU that no catalog row asked for (other series, GPUs, regions)."""
        return [" ".join(k) for k in sorted(set(self.unit) - self.used)]


def _unit_price(sku: dict[str, Any], description: str, unit: str) -> float | None:
    """USD per ``unit`` from the first pricing expression's first tier; None when not in those units."""
    try:
        expression = sku["pricingInfo"][0]["pricingExpression"]
        rate = expression["tieredRates"][0]["unitPrice"]
        if expression.get("usageUnit") != unit or rate.get("currencyCode") != "USD":
            return None
        units, nanos = rate.get("units", "0"), rate.get("nanos", 0)
    except (KeyError, IndexError, TypeError, AttributeError):
        raise CatalogRefreshError(
            f"gcp: SKU {description[:80]!r} has no readable pricingInfo unitPrice"
        ) from None
    # The API's Money: units an int64 as a string, nanos an int32 of at most 999,999,999 in size and
    # never of the other sign than units. Anything else (a float, whose int() dropped the fraction
    # of a dollar; a nanos of 2e9, two more dollars no units field says) is refused.
    whole, fraction = _whole(units, 2**63), _whole(nanos, 10**9)
    if whole is None or fraction is None or whole * fraction < 0:
        raise CatalogRefreshError(f"gcp: SKU {description[:80]!r}: unitPrice is not a Money amount")
    return whole + fraction / 1e9


_INTEGER = re.compile(r"-?[0-9]{1,19}")


def _whole(value: Any, bound: int) -> int | None:
    """``value`` (an integer or its decimal string) when its size is below ``bound``, else None."""
    if isinstance(value, str):
        number = int(value) if _INTEGER.fullmatch(value) else None
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        return None
    return number if number is not None and abs(number) < bound else None


def _assemble(last_good: list[Row], prices: _Prices) -> tuple[list[Row], dict[str, list[str]]]:
    """The last good rows priced from the SKUs; rows whose parts are not all priced are reported."""
    rows: list[Row] = []
    unpriced: dict[str, list[str]] = defaultdict(list)
    for row in last_good:
        pricer = _PRICERS.get(row.get("RowType", ""))
        if pricer is None:
            unpriced["rows of an unknown RowType (dropped)"].append(str(row.get("RowType"))[:40])
            continue
        on_demand, spot = pricer(row, prices, "on_demand"), pricer(row, prices, "spot")
        where = " ".join(row.get(c, "") for c in ("RowType", "InstanceType", "AcceleratorName", "Region"))
        if on_demand is None:
            unpriced["catalog rows whose parts the SKUs do not price in that region (dropped)"].append(
                " ".join(where.split())
            )
            continue
        spot_text = price_text(spot) if spot is not None else ""
        rows.append({**row, "Price": price_text(on_demand), "SpotPrice": spot_text})
    return rows, unpriced


def _host(row: Row, prices: _Prices, pricing: str) -> float | None:
    series = row["InstanceType"].split("-")[0]
    core = prices.get("core", series, row["Region"], pricing)
    ram = prices.get("ram", series, row["Region"], pricing)
    vcpus, memory = number(row.get("vCPUs", "")), number(row.get("MemoryGiB", ""))
    if core is None or ram is None or vcpus is None or memory is None:
        return None
    return vcpus * core + memory * ram


def _accelerator(row: Row, prices: _Prices, pricing: str) -> float | None:
    unit = prices.get("gpu", row["AcceleratorName"], row["Region"], pricing)
    count = number(row.get("AcceleratorCount", ""))
    return None if unit is None or count is None else unit * count


def _tpu(row: Row, prices: _Prices, pricing: str) -> float | None:
    match = re.fullmatch(r"tpu-(v\w+?)-(\d+)", row.get("AcceleratorName", ""))
    if match is None or match.group(1) not in _TPU_CORES_PER_UNIT:
        return None
    version, size = match.group(1), int(match.group(2))
    per_unit = _TPU_CORES_PER_UNIT[version]
    pod = "pod" if version in ("v2", "v3", "v4") and (size > 8 or version == "v4") else "device"
    unit = prices.get("tpu", version, pod, row["Region"], pricing)
    return None if unit is None else unit * size / per_unit


_PRICERS: dict[str, Callable[[Row, _Prices, str], float | None]] = {
    "host_vm": _host,
    "accelerator": _accelerator,
    "tpu": _tpu,
}
