"""Refreshing raw price files from public feeds, then rebuilding the catalog.

The feeds are the SkyPilot catalog CSVs (``catalogs/v8/<provider>/vms.csv`` in
skypilot-org/skypilot-catalog), read in their real format and converted to the columns of
``data/market/raw/<provider>.csv``. Network access goes through a one-method ``Transport`` so tests
serve recorded responses from a local HTTP server. Nothing on disk changes unless every feed was
fetched, parsed and the rebuilt catalog validated; each file is then replaced atomically.
"""

from __future__ import annotations

import ast
import csv
import io
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Protocol

import httpx

from ..errors import CatalogError, CatalogRefreshError, did_you_mean, did_you_mean_text
from ._build import DEFAULT_OUTPUT, build_catalog, canonical_json, write_texts_atomic
from ._sources import Feed, MarketData, read_csv

__all__ = [
    "DEFAULT_BASE_URL",
    "HttpxTransport",
    "RefreshResult",
    "Transport",
    "parse_skypilot_vms",
    "refresh_catalog",
]

DEFAULT_BASE_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master"
"""Feed paths of feeds.csv are appended to this (``.../catalogs/v8/lambda/vms.csv``)."""

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
_FEED_COLUMNS = (
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "Price",
    "Region",
)


class Transport(Protocol):
    """The one seam to the network: fetch a URL's body or raise ``httpx.HTTPError``."""

    def get(self, url: str) -> bytes: ...


class HttpxTransport:
    """The real transport: an httpx GET with a timeout, redirects followed, non-2xx an error."""

    def __init__(self, *, timeout_s: float = 30.0) -> None:
        self.timeout_s = timeout_s

    def get(self, url: str) -> bytes:
        with httpx.Client(timeout=self.timeout_s, follow_redirects=True) as client:
            response = client.get(url)
            response.raise_for_status()
            return response.content


@dataclass(frozen=True, slots=True, kw_only=True)
class RefreshResult:
    """What a refresh changed: the providers refreshed, GPU rows per provider, the new catalog."""

    providers: tuple[str, ...]
    rows: dict[str, int]
    catalog_path: Path
    sha256: str


def refresh_catalog(
    source_dir: str | Path,
    *,
    providers: Iterable[str] | None = None,
    base_url: str = DEFAULT_BASE_URL,
    ref: str = "master",
    transport: Transport | None = None,
    output: str | Path = DEFAULT_OUTPUT,
    as_of: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> RefreshResult:
    """Fetch the refreshable feeds, rewrite their raw CSVs and rebuild the catalog into ``output``.

    Args:
        source_dir: the market-data folder (data/market) whose raw files are refreshed.
        providers: which providers to refresh. Default: every feed marked refreshable in feeds.csv.
        base_url: where feed paths are fetched from. Default: the skypilot-catalog master branch.
        ref: the upstream revision recorded in offer sources. Default: "master".
        transport: the network seam. Default: HttpxTransport().
        output: the catalog file to rebuild. Default: the embedded package catalog.
        as_of: the date recorded for the refreshed prices. Default: today (UTC date of the machine).
        progress: called with one human-readable line per step. Default: silent.

    Raises:
        CatalogRefreshError: a feed could not be fetched or parsed, or the rebuilt catalog is invalid;
            no file was changed.
    """
    say = progress or (lambda _line: None)
    root = Path(source_dir)
    feeds = MarketData(root).feeds()
    chosen = _choose(feeds, providers)
    stamp = as_of or date.today().isoformat()
    fetch = transport or HttpxTransport()
    texts: dict[str, str] = {}
    counts: dict[str, int] = {}
    for provider in chosen:
        url = f"{base_url.rstrip('/')}/{feeds[provider].path}"
        say(f"fetching {provider}: {url}")
        body = _fetch(fetch, provider, url)
        rows = parse_skypilot_vms(body, provider=provider)
        say(f"parsed {provider}: {len(rows)} GPU rows")
        texts[feeds[provider].raw_file] = _raw_csv(rows)
        counts[provider] = len(rows)
    texts["feeds.csv"] = _feeds_csv(root, chosen, ref, stamp)
    doc = _rebuild_staged(root, texts, say)
    out = Path(output)
    # One staged write: a bad --output fails before any raw file or feeds.csv changes.
    write_texts_atomic({**{root / name: text for name, text in texts.items()}, out: canonical_json(doc)})
    say(f"wrote {out} (sha256 {doc['sha256'][:12]}, {len(doc['offers'])} offers)")
    return RefreshResult(providers=tuple(chosen), rows=counts, catalog_path=out, sha256=doc["sha256"])


def _choose(feeds: dict[str, Feed], providers: Iterable[str] | None) -> list[str]:
    refreshable = sorted(p for p, f in feeds.items() if f.refreshable)
    if providers is None:
        return refreshable
    chosen = []
    for name in providers:
        if name not in refreshable:
            extra = did_you_mean_text(did_you_mean(name, refreshable))
            raise CatalogRefreshError(
                f"provider {name!r} has no refreshable price feed; refreshable: {', '.join(refreshable)}. "
                f"To fix: choose one of those or edit data/market/feeds.csv{extra}"
            )
        chosen.append(name)
    return chosen


def _fetch(transport: Transport, provider: str, url: str) -> bytes:
    try:
        return transport.get(url)
    except httpx.HTTPError as err:
        detail = (
            f"HTTP {err.response.status_code}"
            if isinstance(err, httpx.HTTPStatusError)
            else f"{type(err).__name__}: {err}"
        )
        raise CatalogRefreshError(
            f"{provider}: could not fetch {url} ({detail}). Nothing was changed. "
            "To fix: check the network or --base-url and retry."
        ) from err


def parse_skypilot_vms(body: bytes, *, provider: str) -> list[dict[str, str]]:
    """GPU rows of a SkyPilot ``vms.csv`` body, in data/market raw columns (GPU memory per GPU, MiB)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CatalogRefreshError(f"{provider}: the feed is not UTF-8 text. Nothing was changed.") from err
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in _FEED_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise CatalogRefreshError(
            f"{provider}: the feed is not a SkyPilot vms.csv (missing columns {', '.join(missing)}). "
            "Nothing was changed. To fix: check --base-url points at skypilot-catalog."
        )
    rows = [_raw_row(row, provider, n) for n, row in enumerate(reader, start=2) if row["AcceleratorName"]]
    if not rows:
        raise CatalogRefreshError(f"{provider}: the feed has no GPU rows. Nothing was changed.")
    return rows


def _raw_row(row: dict[str, Any], provider: str, line: int) -> dict[str, str]:
    try:
        count = float(row["AcceleratorCount"])
        float(row["Price"] or 0)
        float(row.get("SpotPrice") or 0)
        memory = _gpu_memory_mib(row.get("GpuInfo") or "")
    except (ValueError, SyntaxError) as err:
        raise CatalogRefreshError(
            f"{provider}: feed line {line} is malformed ({err}). Nothing was changed."
        ) from err
    return {
        "InstanceType": row["InstanceType"],
        "AcceleratorName": row["AcceleratorName"],
        "AcceleratorCount": str(int(count)),
        "vCPUs": _trim(row["vCPUs"]),
        "MemoryGiB": _trim(row["MemoryGiB"]),
        "GpuMemoryMiB": memory,
        "Price": row["Price"],
        "SpotPrice": row.get("SpotPrice") or "",
        "Region": row["Region"],
    }


def _trim(value: str) -> str:
    # SkyPilot writes counts as floats ("208.0"); keep integers integral like the transcribed files.
    return value[:-2] if value.endswith(".0") else value


def _gpu_memory_mib(gpu_info: str) -> str:
    """Per-GPU memory from SkyPilot's GpuInfo (a Python-literal dict); "" when absent."""
    if not gpu_info:
        return ""
    info = ast.literal_eval(gpu_info)  # a literal, never code: literal_eval evaluates no calls
    gpus = info.get("Gpus") or [{}]
    size = gpus[0].get("MemoryInfo", {}).get("SizeInMiB")
    return "" if size is None else str(int(size))


def _raw_csv(rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=RAW_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _feeds_csv(root: Path, chosen: list[str], ref: str, stamp: str) -> str:
    rows = read_csv(root / "feeds.csv")
    for row in rows:
        if row["provider"] in chosen:
            row["commit"], row["as_of"] = ref, stamp
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _rebuild_staged(root: Path, texts: dict[str, str], say: Callable[[str], None]) -> dict[str, Any]:
    """Build from a staged copy with the new files, so a bad feed never touches data/market."""
    with tempfile.TemporaryDirectory(prefix="computeops-refresh-") as tmp:
        staged = Path(tmp) / "market"
        shutil.copytree(root, staged)
        for name, text in texts.items():
            (staged / name).write_text(text, encoding="utf-8", newline="")
        say("rebuilding the catalog from the refreshed files")
        try:
            return build_catalog(staged)
        except CatalogError as err:
            raise CatalogRefreshError(
                f"the refreshed data does not build: {err}. Nothing was changed."
            ) from err
