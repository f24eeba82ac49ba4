"""Price files -> instance types and offers, one small parser per provider format.

Normalisation rules (see data/market/README-catalog.md):

* one offer per (instance type, region, price model); rows that repeat a key are combined: AWS per-AZ
  rows by the **median** (spot differs per AZ), Vast host offers by the **minimum** (each listing is
  rentable as is); the offer's source says so when the combined prices differed;
* a price <= 0 or empty is not a price (no offer), except CoreWeave list entries marked "Contact sales",
  which become offers with ``hourly_usd: null`` (the engine rejects them with ``price.unknown``);
* GCP GPU VMs cost host row + accelerator row of the same region (SOURCES.md); TPU rows are whole.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import defaultdict
from typing import Any

from ..errors import CatalogError
from ._accelerators import AcceleratorResolver
from ._sources import Feed, MarketData, Row, number
from ._types import CAPACITY_LEVELS, RESERVED_COLUMNS

__all__ = ["build_offers", "tpu_chips", "vast_region_code"]

_Key = tuple[str, str, str, str] | tuple[str, str, str, str, int]
"""(provider, instance type, region, price model), plus the term in months for reserved offers."""
# TPU slice suffixes that count TensorCores (2 per chip) rather than chips (sources: _TPU_SOURCE).
_TPU_CORES_PER_CHIP = {"tpu-v2": 2, "tpu-v3": 2, "tpu-v4": 2, "tpu-v5p": 2, "tpu-v5litepod": 1, "tpu-v6e": 1}
_TPU_SOURCE = (
    "slice size from the accelerator type: v2/v3/v4/v5p suffixes count TensorCores (2 per chip, "
    "https://cloud.google.com/tpu/docs/v5p), v5litepod/v6e suffixes count chips "
    "(https://docs.cloud.google.com/tpu/docs/v5e, https://docs.cloud.google.com/tpu/docs/v6e)"
)


class _Collector:
    """Accumulates instance types and prices, then combines repeated keys into offers."""

    def __init__(self, resolver: AcceleratorResolver) -> None:
        self.resolver = resolver
        self.types: dict[tuple[str, str], dict[str, Any]] = {}
        self.prices: dict[_Key, list[float]] = defaultdict(list)
        self.origin: dict[_Key, tuple[str, str, str, str]] = {}  # source, as_of, combine, unit
        self.unpriced: set[_Key] = set()
        self.capacity: dict[_Key, str] = {}

    def add_capacity(self, keys: tuple[_Key, ...], row: Row) -> None:
        """The row's capacity signal (``Capacity`` column, written by live feeds) for its offers."""
        level = row.get("Capacity", "")
        if not level:
            return
        if level not in CAPACITY_LEVELS:
            raise CatalogError(
                f"{keys[0][0]}: Capacity {level[:20]!r} of {keys[0][1]} is not one of "
                f"{', '.join(CAPACITY_LEVELS)}."
            )
        for key in keys:
            self.capacity[key] = level

    def add_type(self, provider: str, name: str, raw: str, count: float, row: Row, source: str) -> None:
        if (provider, name) in self.types:
            return
        accelerator, reason = self.resolver.resolve(provider, name, raw)
        self.types[(provider, name)] = {
            "provider": provider,
            "name": name,
            "accelerator": accelerator,
            "accelerator_count": int(count),
            "vcpus": number(row.get("vCPUs", "")),
            "ram_gb": number(row.get("MemoryGiB", "")),
            "multi_node": False,
            "interconnect": None,
            "source": source,
            "notes": f"accelerator {raw!r} -> {accelerator}: {reason}" if reason else "",
        }

    def add_price(self, key: _Key, price: float | None, origin: tuple[str, str, str, str]) -> None:
        if price is None or price <= 0:
            return
        self.prices[key].append(price)
        self.origin.setdefault(key, origin)

    def add_unpriced(self, key: _Key, source: str, as_of: str) -> None:
        self.unpriced.add(key)
        self.origin.setdefault(key, (source, as_of, "single", ""))

    def offers(self) -> list[dict[str, Any]]:
        out = []
        for key in sorted(set(self.prices) | self.unpriced, key=_order):
            source, as_of, combine, unit = self.origin[key]
            values = self.prices.get(key, [])
            price = _combine(values, combine) if values else None
            if len(set(values)) > 1:
                source += f" ({combine} of {len(values)} {unit} prices)"
            provider, instance_type, region, pricing = key[:4]
            record: dict[str, Any] = {
                "provider": provider,
                "instance_type": instance_type,
                "region": region,
                "pricing": pricing,
                "hourly_usd": price,
                "source": source,
                "as_of": as_of,
            }
            if key in self.capacity and price is not None:  # only a live feed's offers carry one
                record["capacity"] = self.capacity[key]
            if len(key) == 5:  # reserved: its term; the feeds keep only no-upfront reservations
                record.update(term_months=key[4], upfront="none")
            out.append(record)
        return out


def _order(key: _Key) -> tuple[str, str, str, str, int]:
    return (key[0], key[1], key[2], key[3], key[4] if len(key) == 5 else 0)


def _combine(values: list[float], rule: str) -> float:
    value = statistics.median(values) if rule == "median" else min(values)
    return round(value, 6)


def vast_region_code(location: str) -> str:
    """Our region code for a Vast location string "place, CC, continent": ``<cc>-<place slug>``.

    "Michigan, US, NA" -> "us-michigan"; ", US, NA" (no place) -> "us".
    """
    parts = [p.strip() for p in location.split(",")]
    if len(parts) != 3 or not parts[1]:
        raise CatalogError(f"vast: region {location!r} is not 'place, CC, continent'.")
    place = parts[0].replace("ð", "d").replace("þ", "th").replace("Ð", "D").replace("Þ", "Th")
    ascii_place = unicodedata.normalize("NFKD", place).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_place.lower()).strip("-")
    return f"{parts[1].lower()}-{slug}" if slug else parts[1].lower()


def build_offers(data: MarketData) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(instance_types, offers)`` for every provider, sorted."""
    collector = _Collector(AcceleratorResolver(data))
    feeds = data.feeds()
    for provider, feed in sorted(feeds.items()):
        parser = _PARSERS.get(provider, _parse_simple)
        parser(collector, provider, data, feed)
    _parse_coreweave(collector, data.rows("coreweave.csv"))
    types = _finish_types(data, collector.types)
    return types, collector.offers()


def _origin(
    feed: Feed, pricing: str, combine: str = "single", unit: str = "", suffix: str = ""
) -> tuple[str, str, str, str]:
    """(source, as_of, combine rule, unit) of ``feed``'s ``pricing`` prices (each price model cites
    the feed it came from: a provider's models may come from different feeds, price-sources.csv)."""
    origin = feed.provenance_of(pricing)
    return origin.source + suffix, origin.as_of, combine, unit


def _parse_simple(c: _Collector, provider: str, data: MarketData, feed: Feed) -> None:
    """Lambda, Nebius, OCI, Azure, AWS, Crusoe: one row per instance type per region (or AZ)."""
    rows = data.rows(feed.raw_file)
    combine, unit = ("median", "AZ") if provider == "aws" else ("single", "")
    suffix = " via the Shadeform marketplace catalog" if provider == "crusoe" else ""
    for row in rows:
        name, region = row["InstanceType"], row["Region"]
        c.add_type(provider, name, row["AcceleratorName"], float(row["AcceleratorCount"]), row, feed.source)
        on_demand = _origin(feed, "on_demand", combine, unit, suffix)
        c.add_price((provider, name, region, "on_demand"), number(row["Price"]), on_demand)
        spot = _origin(feed, "spot", combine, unit, suffix)
        c.add_price((provider, name, region, "spot"), number(row.get("SpotPrice", "")), spot)
        c.add_capacity(((provider, name, region, "on_demand"), (provider, name, region, "spot")), row)
        for months, column in RESERVED_COLUMNS.items():  # only feeds with reservations write these
            term = f" ({months}-month reservation, no upfront)"
            reserved = _origin(feed, "reserved", combine, unit, suffix + term)
            c.add_price((provider, name, region, "reserved", months), number(row.get(column, "")), reserved)


def _parse_runpod(c: _Collector, provider: str, data: MarketData, feed: Feed) -> None:
    """RunPod: ``Region`` is a country, ``AvailabilityZone`` the data centre = our region code."""
    rows = data.rows(feed.raw_file)
    for row in rows:
        name, region = row["InstanceType"], row["AvailabilityZone"]
        c.add_type(provider, name, row["AcceleratorName"], float(row["AcceleratorCount"]), row, feed.source)
        c.add_price((provider, name, region, "on_demand"), number(row["Price"]), _origin(feed, "on_demand"))
        c.add_price((provider, name, region, "spot"), number(row["SpotPrice"]), _origin(feed, "spot"))
        c.add_capacity(((provider, name, region, "on_demand"), (provider, name, region, "spot")), row)


def _parse_vast(c: _Collector, provider: str, data: MarketData, feed: Feed) -> None:
    """Vast: marketplace host offers; several hosts per (type, region) -> the cheapest listing."""
    rows = data.rows(feed.raw_file)
    for row in rows:
        name, region = row["InstanceType"], vast_region_code(row["Region"])
        c.add_type(provider, name, row["AcceleratorName"], float(row["AcceleratorCount"]), row, feed.source)
        on_demand, spot = (
            _origin(feed, "on_demand", "min", "host offer"),
            _origin(feed, "spot", "min", "host offer"),
        )
        c.add_price((provider, name, region, "on_demand"), number(row["Price"]), on_demand)
        c.add_price((provider, name, region, "spot"), number(row["SpotPrice"]), spot)


def _parse_gcp(c: _Collector, provider: str, data: MarketData, feed: Feed) -> None:
    """GCP: GPU VM = host_vm row + accelerator row (same region, same count); TPU rows priced whole."""
    rows = data.rows(feed.raw_file)
    hosts = {r["host"]: r for r in data.rows("gcp-hosts.csv")}
    accel = {
        (r["AcceleratorName"], int(float(r["AcceleratorCount"])), r["Region"]): r
        for r in rows
        if r["RowType"] == "accelerator"
    }
    for row in rows:
        if row["RowType"] == "tpu":
            _add_tpu(c, row, feed)
        elif row["RowType"] == "host_vm" and row["InstanceType"] in hosts:
            host = hosts[row["InstanceType"]]
            part = accel.get((host["accelerator"], int(host["count"]), row["Region"]))
            if part is None:
                continue
            name = row["InstanceType"]
            c.add_type(
                provider,
                name,
                host["accelerator"],
                float(host["count"]),
                row,
                f"{feed.source}; {host['source']}",
            )
            for pricing, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
                total = _gcp_sum(number(row[column]), number(part[column]))
                suffix = f" (host_vm + {host['accelerator']} x{host['count']} accelerator rows)"
                c.add_price(
                    (provider, name, row["Region"], pricing), total, _origin(feed, pricing, suffix=suffix)
                )


def _gcp_sum(host: float | None, part: float | None) -> float | None:
    # A missing or zero accelerator price means no price; a zero host price is the a4 all-in quirk.
    if host is None or part is None or part <= 0 or host < 0:
        return None
    return round(host + part, 6)


def tpu_chips(name: str) -> int | None:
    """Chips in a TPU slice (``tpu-v5p-8`` -> 4, ``tpu-v6e-8`` -> 8); None when not a slice name."""
    match = re.fullmatch(r"(tpu-v\w+?)-(\d+)", name)
    if match is None or match.group(1) not in _TPU_CORES_PER_CHIP:
        return None
    return max(1, int(match.group(2)) // _TPU_CORES_PER_CHIP[match.group(1)])


def _add_tpu(c: _Collector, row: Row, feed: Feed) -> None:
    name = row["AcceleratorName"]
    chips = tpu_chips(name)
    if chips is None:
        raise CatalogError(f"gcp: TPU accelerator type {name!r} is not <generation>-<size>.")
    generation = name.rsplit("-", 1)[0]
    c.add_type("gcp", name, generation, chips, {}, f"{feed.source}; {_TPU_SOURCE}")
    for pricing, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
        c.add_price(("gcp", name, row["Region"], pricing), number(row[column]), _origin(feed, pricing))


def _parse_coreweave(c: _Collector, rows: list[Row]) -> None:
    """CoreWeave list prices (coreweave.csv); an empty on-demand price means "Contact sales"."""
    for row in rows:
        name = row["InstanceType"]
        c.add_type(
            "coreweave", name, row["AcceleratorName"], float(row["AcceleratorCount"]), row, row["Source"]
        )
        for region in row["Regions"].split(";"):
            key: _Key = ("coreweave", name, region, "on_demand")
            price = number(row["Price"])
            if price is None:
                c.add_unpriced(
                    key, row["Source"] + " (on-demand: Contact sales, no public price)", row["AsOf"]
                )
            else:
                c.add_price(key, price, (row["Source"], row["AsOf"], "single", ""))
            spot = (row["Source"] + " (spot price labelled NA)", row["AsOf"], "single", "")
            c.add_price(("coreweave", name, region, "spot"), number(row["SpotPrice"]), spot)


def _finish_types(data: MarketData, types: dict[tuple[str, str], dict[str, Any]]) -> list[dict[str, Any]]:
    """Apply corrections.csv and interconnects.csv, then sort."""
    for fix in data.rows("corrections.csv"):
        record = types.get((fix["provider"], fix["instance_type"]))
        if record is None or str(record[fix["field"]]) != fix["source_value"]:
            raise CatalogError(
                f"corrections.csv: {fix['provider']} {fix['instance_type']} {fix['field']} "
                f"is not {fix['source_value']} in the source. To fix: update or drop the row."
            )
        record[fix["field"]] = int(fix["corrected_value"])
        change = f"{fix['field']} corrected from {fix['source_value']} to {fix['corrected_value']}"
        note = f"{change}: {fix['source']}"
        record["notes"] = "; ".join(n for n in (record["notes"], note) if n)
    for rule in data.rows("interconnects.csv"):
        for (provider, name), record in types.items():
            if provider == rule["provider"] and re.fullmatch(rule["instance_type_regex"], name):
                record["interconnect"] = rule["interconnect"]
                record["multi_node"] = rule["multi_node"] == "true"
                record["source"] += f"; interconnect: {rule['source']}"
    return [types[key] for key in sorted(types)]


_PARSERS = {"gcp": _parse_gcp, "runpod": _parse_runpod, "vast": _parse_vast}
