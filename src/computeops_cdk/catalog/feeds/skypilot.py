"""The SkyPilot catalog (skypilot-org/skypilot-catalog ``catalogs/v8/<provider>/vms.csv``).

The format: a CSV written by Python's csv module (CRLF line ends, every row terminated), one row per
instance type and region, CPU-only rows with an empty ``AcceleratorName``, and ``GpuInfo`` a Python
literal dict (``{'Gpus': [{'MemoryInfo': {'SizeInMiB': 81920}, ...}]}``). Converted here to the raw
columns of data/market (GPU memory per GPU in MiB). Values pass through as text: the refresh's
sanity checks judge them, so a bad value is a refusal with numbers, not a traceback.
"""

from __future__ import annotations

import ast
import csv
import math
from collections import defaultdict
from typing import Any

from ...errors import CatalogRefreshError
from .._sources import Row
from .._transport import Request, iter_lines
from . import FeedContext, FeedResult, group_unmapped

__all__ = ["RAW_COLUMNS", "SkyPilotFeed", "parse_skypilot_vms"]

RAW_COLUMNS = (
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "GpuMemoryMiB",
    "Price",
    "SpotPrice",
    "Region",
)
_FEED_COLUMNS = tuple(c for c in RAW_COLUMNS if c not in ("GpuMemoryMiB", "SpotPrice"))
_ACCEPT = ("text/csv", "text/plain", "application/octet-stream")
_MAX_FIELD = 64 * 1024  # below csv's own 128 KiB limit, so an oversized cell is our error, not csv's


class SkyPilotFeed:
    """Adapter for one provider's SkyPilot ``vms.csv`` (the path comes from feeds.csv)."""

    name = "skypilot"
    needs: tuple[str, ...] = ()

    def fetch(self, ctx: FeedContext) -> FeedResult:
        url = f"{ctx.url.rstrip('/')}/{_skypilot_path(ctx.feed)}"
        ctx.say(f"fetching {ctx.feed.provider}: {url}")
        chunks = ctx.transport.fetch(Request(url=url, accept=_ACCEPT))
        rows, unmapped = parse_skypilot_lines(iter_lines(chunks, what=ctx.feed.provider), ctx.feed.provider)
        return FeedResult(
            rows=rows,
            columns=RAW_COLUMNS,
            repo=SKYPILOT_REPO,
            path=_skypilot_path(ctx.feed),
            ref=ctx.ref,
            unmapped=unmapped,
        )


SKYPILOT_REPO = "skypilot-org/skypilot-catalog"
DEFAULT_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master"


def _skypilot_path(feed: Any) -> str:
    """The vms.csv path: feeds.csv's own when it names the SkyPilot catalog, else the v8 default."""
    if feed.repo == SKYPILOT_REPO and str(feed.path).endswith("vms.csv"):
        return str(feed.path)
    return f"catalogs/v8/{feed.provider}/vms.csv"


def parse_skypilot_vms(body: bytes, *, provider: str) -> list[Row]:
    """GPU rows of a SkyPilot ``vms.csv`` body, in data/market raw columns (GPU memory per GPU, MiB)."""
    rows, _ = parse_skypilot_lines(iter_lines([body], what=provider), provider)
    return rows


def parse_skypilot_lines(lines: Any, provider: str) -> tuple[list[Row], tuple[Any, ...]]:
    """Rows and the unmapped groups from an iterator of text lines."""
    reader = csv.DictReader(_bounded(lines, provider))
    try:
        header = reader.fieldnames or []
    except csv.Error as err:
        raise CatalogRefreshError(f"{provider}: the feed is not CSV ({err})") from None
    missing = [c for c in _FEED_COLUMNS if c not in header]
    if missing:
        raise CatalogRefreshError(
            f"{provider}: the feed is not a SkyPilot vms.csv (missing columns {', '.join(missing)}). "
            "To fix: check --base-url points at skypilot-catalog."
        )
    rows: list[Row] = []
    skipped: dict[str, list[str]] = defaultdict(list)
    try:
        for line, row in enumerate(reader, start=2):
            if None in row or None in row.values():
                raise CatalogRefreshError(
                    f"{provider}: feed line {line} has {len(header) + len(row.get(None) or [])} cells "
                    f"where the header has {len(header)}: a cut or malformed row"
                )
            if not row["AcceleratorName"]:
                skipped["no accelerator (CPU-only instance type)"].append(row["InstanceType"][:60])
                continue
            rows.append(_raw_row(row, provider, line))
    except csv.Error as err:
        raise CatalogRefreshError(f"{provider}: the feed is not valid CSV ({err})") from None
    return rows, group_unmapped(skipped)


def _bounded(lines: Any, provider: str) -> Any:
    for line in lines:
        if len(line) > _MAX_FIELD:
            raise CatalogRefreshError(f"{provider}: a feed line is {len(line):,} characters; not a price row")
        yield line


def _raw_row(row: dict[str, str], provider: str, line: int) -> Row:
    return {
        "InstanceType": row["InstanceType"],
        "AcceleratorName": row["AcceleratorName"],
        "AcceleratorCount": _integral(row["AcceleratorCount"]),
        "vCPUs": _integral(row["vCPUs"]),
        "MemoryGiB": _integral(row["MemoryGiB"]),
        "GpuMemoryMiB": _gpu_memory_mib(row.get("GpuInfo") or "", provider, line),
        "Price": row["Price"],
        "SpotPrice": row.get("SpotPrice") or "",
        "Region": row["Region"],
    }


def _integral(value: str) -> str:
    """SkyPilot writes counts as floats ("208.0"); keep integers integral, anything else as given."""
    try:
        number = float(value)
    except ValueError:
        return value
    return str(int(number)) if math.isfinite(number) and number.is_integer() else value


def _gpu_memory_mib(gpu_info: str, provider: str, line: int) -> str:
    """Per-GPU memory from SkyPilot's GpuInfo (a Python-literal dict); "" when absent."""
    if not gpu_info:
        return ""
    try:
        info = ast.literal_eval(gpu_info)  # a literal, never code: literal_eval evaluates no calls
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        info = None
    shape = "{'Gpus': [{'MemoryInfo': {'SizeInMiB': ...}}]}"
    bad = CatalogRefreshError(f"{provider}: feed line {line}: GpuInfo is not {shape} ({gpu_info[:60]!r})")
    if not isinstance(info, dict):
        raise bad
    gpus = info.get("Gpus") or []
    if not isinstance(gpus, list) or (gpus and not isinstance(gpus[0], dict)):
        raise bad
    memory = gpus[0].get("MemoryInfo") or {} if gpus else {}
    if not isinstance(memory, dict):
        raise bad
    size = memory.get("SizeInMiB")
    if size is None:
        return ""
    if isinstance(size, bool) or not isinstance(size, int | float):
        return str(size)[:60]  # the range check refuses it with its value
    return _integral(str(size))
