"""Per-provider sanity checks on a refreshed price file, against that provider's last good data.

A feed that answers 200 can still be wrong: cut to one row, prices x100, a cut row, a count of
1e6, a NUL byte in a name. Each check here returns ``Refusal``s carrying the numbers; the refresh
keeps the provider's last good data when any check refuses (unless the user ``--accept``s it) and
still updates the others. The checks read the raw-file rows (strings), so they hold for every feed
adapter alike.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ._offers import tpu_chips
from ._sources import Row
from ._types import RESERVED_COLUMNS

__all__ = ["ROUNDING", "SWING_FACTOR", "SWING_SHARE", "Refusal", "check_rows", "row_key"]

SWING_FACTOR = 3.0
"""A matched price moving by more than this factor (either way) counts as a swing."""
SWING_SHARE = 0.10
"""Refuse when more than this share of the matched prices swing (a real market moves a few)."""
MAX_FIELD = 256
"""Longest text cell; SkyPilot's longest (a GpuInfo literal) is about 140 characters."""

# Physical ranges (inclusive). Wider than any machine sold today, narrow enough that a unit slip or
# a corrupt cell (1e6 GPUs, -1 GB, 1e-9 USD/h) is caught. Prices are per accelerator-hour.
_RANGES: dict[str, tuple[float, float]] = {
    "AcceleratorCount": (1, 10_000),  # a GCP v5p-12288 slice is 6,144 chips
    "vCPUs": (1, 4096),
    "MemoryGiB": (1, 65_536),
    "GpuMemoryMiB": (1024, 1_048_576),  # 1 GiB .. 1 TiB per accelerator
    "TotalGpuMemoryMiB": (1024, 16_777_216),
}
_PRICE_PER_ACCELERATOR = (0.005, 1000.0)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,127}")
_ACCELERATOR = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+ -]{0,63}")  # Azure's 'Radeon MI25' has a space
ROUNDING = 1.001
"""Tolerance of the spot/reserved-above-on-demand checks: AWS lists spot capped at on-demand, rounded
to 4 decimals (8.22609 vs 8.2261)."""
_REGION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_KEY_COLUMNS = (
    "RowType",
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "Region",
    "AvailabilityZone",
    "AvailabilityZones",
)
_PRICE_COLUMNS = ("Price", "SpotPrice", *RESERVED_COLUMNS.values())
_GCP_PARTS = ("host_vm", "accelerator")
"""GCP rows that are parts of an offer (host + accelerator), not offers: a part's spot may exceed its
on-demand (the snapshot's A100 80GB and H200 GPU parts do) while the whole machine's does not, so
spot-above-on-demand is not judged on a part."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """Why one provider's update was refused.

    Attributes:
        provider: the provider id.
        check: what failed: ``fetch``, ``format``, ``rows.empty``, ``rows.dropped``, ``price.invalid``,
            ``price.spot_above_on_demand``, ``price.reserved_above_on_demand``, ``price.swing``,
            ``value.range``, ``value.text``, ``build``.
        detail: the numbers, e.g. "rows 374 -> 1 (falls by more than half)".
    """

    provider: str
    check: str
    detail: str

    def as_json(self) -> dict[str, str]:
        return {"provider": self.provider, "check": self.check, "detail": self.detail}


def check_rows(provider: str, new: list[Row], old: list[Row]) -> list[Refusal]:
    """Every refusal for replacing ``old`` (last good rows) by ``new`` (empty list: accept)."""
    found: list[Refusal] = []

    def refuse(check: str, detail: str) -> None:
        found.append(Refusal(provider=provider, check=check, detail=detail))

    if not new:
        refuse("rows.empty", f"the feed has no accelerator rows (last good data: {len(old)})")
        return found
    if old and len(new) * 2 < len(old):
        refuse("rows.dropped", f"rows {len(old)} -> {len(new)} (falls by more than half)")
    for check, detail in _first_per_check(_row_problems(provider, row, n) for n, row in enumerate(new, 1)):
        refuse(check, detail)
    swing = _swing(old, new)
    if swing:
        refuse("price.swing", swing)
    return found


def _first_per_check(problems: Iterable[list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """One refusal per check: the first example and how many rows share the problem."""
    first: dict[str, str] = {}
    count: dict[str, int] = {}
    for row_problems in problems:
        for check, detail in row_problems:
            first.setdefault(check, detail)
            count[check] = count.get(check, 0) + 1
    return [
        (check, detail if count[check] == 1 else f"{detail} (and {count[check] - 1} more rows)")
        for check, detail in first.items()
    ]


def _row_problems(provider: str, row: Row, n: int) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    where = f"row {n} ({row.get('InstanceType', '')[:40]!r})"
    for column, value in row.items():
        if len(value) > MAX_FIELD:
            problems.append(("value.text", f"{where}: {column} is {len(value):,} characters"))
        elif any(ord(c) < 32 for c in value):
            problems.append(("value.text", f"{where}: {column} holds a control character (e.g. NUL)"))
    if problems:
        return problems
    for column, pattern in (("InstanceType", _NAME), ("AcceleratorName", _ACCELERATOR)):
        if row.get(column) and not pattern.fullmatch(row[column]):
            problems.append(("value.text", f"{where}: {column} {row[column]!r} is not a plain name"))
    region = row.get("AvailabilityZone") if provider == "runpod" else row.get("Region")
    if region and provider != "vast" and not _REGION.fullmatch(region):
        problems.append(("value.text", f"{where}: region {region!r} is not a plain region code"))
    problems += _range_problems(row, where)
    problems += _price_problems(row, where)
    return problems


def _number(text: str | None) -> float | None:
    if text is None or not text.strip():
        return None
    return float(text)  # callers catch ValueError


def _range_problems(row: Row, where: str) -> list[tuple[str, str]]:
    problems = []
    for column, (low, high) in _RANGES.items():
        try:
            value = _number(row.get(column))
        except ValueError:
            problems.append(("value.range", f"{where}: {column} {row[column]!r} is not a number"))
            continue
        if value is not None and not (low <= value <= high):  # NaN fails both comparisons
            problems.append(("value.range", f"{where}: {column} {value:g} outside {low:g}..{high:g}"))
    return problems


def _price_problems(row: Row, where: str) -> list[tuple[str, str]]:
    problems = []
    prices: dict[str, float | None] = {}
    for column in _PRICE_COLUMNS:
        try:
            prices[column] = value = _number(row.get(column))
        except ValueError:
            problems.append(("price.invalid", f"{where}: {column} {row[column]!r} is not a number"))
            continue
        if value is None:
            continue
        # GCP's a4 hosts are listed at 0.0 (the accelerator row carries the price; SOURCES.md).
        if row.get("RowType") == "host_vm" and value == 0:
            continue
        if not math.isfinite(value) or value <= 0:
            problems.append(("price.invalid", f"{where}: {column} {value:g} is not a positive price"))
            continue
        try:
            count = _number(row.get("AcceleratorCount"))
        except ValueError:
            count = None
        if row.get("RowType") == "tpu":  # a GCP TPU row prices a whole slice: count its chips
            count = tpu_chips(row.get("AcceleratorName", "")) or count
        if count and count > 0 and math.isfinite(count):
            per = value / count
            low, high = _PRICE_PER_ACCELERATOR
            if not low <= per <= high:
                problems.append(
                    (
                        "value.range",
                        f"{where}: {column} {per:g} USD per accelerator-hour outside {low:g}..{high:g}",
                    )
                )
    on_demand, spot = prices.get("Price"), prices.get("SpotPrice")
    if row.get("RowType") in _GCP_PARTS:
        return problems
    if on_demand and spot and math.isfinite(spot) and 0 < on_demand * ROUNDING < spot:
        problems.append(("price.spot_above_on_demand", f"{where}: on-demand {on_demand:g} < spot {spot:g}"))
    for column in RESERVED_COLUMNS.values():  # a commitment never costs more per hour than no commitment
        reserved = prices.get(column)
        if on_demand and reserved and math.isfinite(reserved) and 0 < on_demand * ROUNDING < reserved:
            detail = f"{where}: on-demand {on_demand:g} < reserved {reserved:g} ({column})"
            problems.append(("price.reserved_above_on_demand", detail))
    return problems


def row_key(row: Row) -> tuple[str, ...]:
    """What identifies a raw row across feeds and refreshes (row type, instance type, accelerator,
    count, region, zone)."""
    return tuple(row.get(c, "") for c in _KEY_COLUMNS)


def _prices(rows: list[Row]) -> dict[tuple[str, ...], float]:
    out: dict[tuple[str, ...], float] = {}
    for row in rows:
        base = row_key(row)
        for column in _PRICE_COLUMNS:
            try:
                value = _number(row.get(column))
            except ValueError:
                continue
            if value is not None and math.isfinite(value) and value > 0:
                key = (*base, column)
                out[key] = min(value, out.get(key, value))  # marketplaces list several hosts per key
    return out


def _swing(old: list[Row], new: list[Row]) -> str:
    before, after = _prices(old), _prices(new)
    matched = [(before[k], after[k]) for k in before.keys() & after.keys()]
    if not matched:
        return ""
    moved = [(a, b) for a, b in matched if max(a / b, b / a) > SWING_FACTOR]
    if len(moved) <= SWING_SHARE * len(matched):
        return ""
    ratios = sorted(b / a for a, b in moved)
    return (
        f"{len(moved)} of {len(matched)} matched prices moved more than {SWING_FACTOR:g}x "
        f"(limit {SWING_SHARE:.0%}); new/old from {ratios[0]:.3g}x to {ratios[-1]:.3g}x"
    )
