"""AWS Price List bulk offer files: ``GET <base>/offers/v1.0/aws/AmazonEC2/current/<region>/index.csv``.

No key. One CSV per region, hundreds of MB: streamed and parsed line by line, never held whole. The
file opens with two-cell metadata rows (``"Version",...``, ``"OfferCode","AmazonEC2"``), then the
quoted header (``"SKU",...``; ``_REQUIRED`` lists the columns read); empty cells are unquoted.

Kept, as SkyPilot's fetcher filters the same file (``sky/catalog/data_fetchers/fetch_aws.py``) and
narrower (``_excluded``): plain Linux, shared tenancy, used capacity, instance-hours in USD, and the
catalog's own GPU/TPU instance types. TermType OnDemand becomes ``Price``; Reserved, standard, No
Upfront, 1yr / 3yr becomes ``ReservedPrice1yr`` / ``ReservedPrice3yr`` (with no upfront its ``Hrs``
rate is the effective hourly price). Every other row is counted under its reason. The bulk files
carry no spot prices (those need signed DescribeSpotPriceHistory calls).
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping

from ...errors import CatalogRefreshError
from .._sources import Row
from .._transport import Request, iter_lines
from .._types import RESERVED_COLUMNS
from . import FeedContext, FeedResult, Unmapped, with_reserved_columns

__all__ = ["DEFAULT_URL", "AwsBulkFeed", "OfferFile", "Tally", "parse_offer_file"]

DEFAULT_URL = "https://pricing.us-east-1.amazonaws.com"
OFFER_PATH = "/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv"
_ACCEPT = ("text/csv", "application/csv", "application/octet-stream", "text/plain")
_MAX_PREAMBLE = 20  # metadata rows before the header (AWS writes five)
_TERMS = {"1yr": RESERVED_COLUMNS[12], "3yr": RESERVED_COLUMNS[36]}
_REQUIRED = (
    "TermType",
    "Unit",
    "PricePerUnit",
    "Currency",
    "LeaseContractLength",
    "PurchaseOption",
    "OfferingClass",
    "Product Family",
    "Instance Type",
    "Tenancy",
    "Operating System",
    "License Model",
    "CapacityStatus",
    "Pre Installed S/W",
    "Region Code",
)
# Instance families that carry accelerators (P/G GPU, Trainium, Inferentia, DL1, VT1): their rows
# are parsed even when the catalog lacks the type, so a new GPU instance is named in the report.
_ACCELERATOR_FAMILY = re.compile(r'"(?:p\d|g\d|gr\d|trn\d|inf\d|dl\d|vt\d)[a-z0-9-]*\.[a-z0-9-]+"')
_OTHER = "rows of other instance types and services (not in the catalog)"
_EXAMPLES = 3


class Tally:
    """Rows left out, by reason: a count and the first few examples (bounded whatever the file)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.examples: dict[str, list[str]] = {}

    def add(self, reason: str, example: str = "") -> None:
        self.counts[reason] = self.counts.get(reason, 0) + 1
        kept = self.examples.setdefault(reason, [])
        if example and len(kept) < _EXAMPLES and example not in kept:
            kept.append(example)

    def unmapped(self) -> tuple[Unmapped, ...]:
        return tuple(
            Unmapped(reason=reason, count=n, examples=tuple(self.examples[reason]))
            for reason, n in sorted(self.counts.items())
        )


class AwsBulkFeed:
    """Adapter for AWS's Price List bulk offer files (one CSV per region, streamed)."""

    name = "aws-bulk"
    needs: tuple[str, ...] = ()

    def fetch(self, ctx: FeedContext) -> FeedResult:
        base = ctx.url.rstrip("/")
        regions = sorted({row["Region"] for row in ctx.last_good if row.get("Region")})
        types = frozenset(row["InstanceType"] for row in ctx.last_good if row.get("InstanceType"))
        prices: dict[tuple[str, str], dict[str, str]] = {}
        skipped = Tally()
        versions: set[str] = set()
        lines = 0
        for region in regions:
            url = base + OFFER_PATH.format(region=region)
            ctx.say(f"fetching aws: {url}")
            chunks = ctx.transport.fetch(Request(url=url, accept=_ACCEPT))
            offer = parse_offer_file(chunks, region=region, types=types, prices=prices, skipped=skipped)
            versions.add(offer.version)
            lines += offer.lines
        alone = "spot" in ctx.models  # no other feed prices spot: rows without on-demand are dropped
        rows, unmapped = _map(ctx.last_good, prices, ctx.columns, alone=alone)
        spot = sum(1 for row in ctx.last_good if row.get("SpotPrice"))
        notes = [f"{lines:,} price rows read from {len(regions)} regional offer file(s)"]
        if spot and alone:
            notes.append(
                f"{spot} last good spot prices not carried over: the bulk offer files have no spot prices "
                "(they need signed DescribeSpotPriceHistory calls); `--feed aws=gpuhunt` brings them"
            )
        return FeedResult(
            rows=rows,
            columns=with_reserved_columns(ctx.columns),
            repo="AWS Price List bulk offer files",
            path=base + OFFER_PATH,
            ref=", ".join(sorted(versions)) or "current",
            unmapped=unmapped + skipped.unmapped(),
            notes=tuple(notes),
        )


class OfferFile:
    """What one regional offer file held: its ``Version`` and how many price rows it had."""

    __slots__ = ("lines", "version")

    def __init__(self, version: str, lines: int) -> None:
        self.version = version
        self.lines = lines


def parse_offer_file(
    chunks: Iterable[bytes],
    *,
    region: str,
    types: frozenset[str],
    prices: dict[tuple[str, str], dict[str, str]],
    skipped: Tally,
) -> OfferFile:
    """Read one regional offer file (a chunk stream) into ``prices`` and ``skipped``, line by line.

    ``prices[(instance type, region)]`` gets ``Price`` / ``ReservedPrice1yr`` / ``ReservedPrice3yr``
    as text; ``skipped`` counts each row left out under its reason.

    Raises:
        CatalogRefreshError: not an offer file (no header within the metadata rows, a required
            column missing, a price that is not a number), or the body was cut short.
    """
    what = f"aws {region} offer file"
    lines = iter_lines(chunks, what=what)
    reader = csv.reader(lines)
    meta, header = _preamble(reader, what)
    at = {name: i for i, name in enumerate(header)}
    missing = [name for name in _REQUIRED if name not in at]
    if missing:
        raise CatalogRefreshError(f"{what}: the header lacks {', '.join(repr(m) for m in missing)}")
    catalog_row = re.compile('"(?:' + "|".join(re.escape(t) for t in sorted(types)) + ')"') if types else None
    count = 0
    for line in lines:  # csv.reader pulled only the preamble's lines: the rest is read here
        count += 1
        if catalog_row is not None and catalog_row.search(line):
            _take(_cells(line, header, what), at, region, types, prices, skipped)
        elif _ACCELERATOR_FAMILY.search(line):
            cells = _cells(line, header, what)
            name, gpu = cells[at["Instance Type"]], cells[at["GPU"]] if "GPU" in at else ""
            if name and name not in types and gpu not in ("", "0", "NA"):
                skipped.add("accelerator instance types not in the catalog", name)
            else:
                skipped.add(_OTHER)
        else:
            skipped.add(_OTHER)
    return OfferFile(meta.get("Version", ""), count)


def _preamble(reader: Iterator[list[str]], what: str) -> tuple[dict[str, str], list[str]]:
    """The metadata rows (name -> value) and the header row."""
    meta: dict[str, str] = {}
    for _ in range(_MAX_PREAMBLE):
        cells = next(reader, None)
        if cells is None:
            raise CatalogRefreshError(f"{what}: the file is empty (no header row)")
        if cells and cells[0] == "SKU":
            if meta.get("OfferCode", "AmazonEC2") != "AmazonEC2":
                raise CatalogRefreshError(f"{what}: OfferCode {meta['OfferCode']!r} is not AmazonEC2")
            return meta, cells
        if len(cells) != 2:
            raise CatalogRefreshError(
                f"{what}: expected metadata rows of two cells before the header, got {len(cells)} "
                f"({','.join(cells)[:60]!r})"
            )
        meta[cells[0]] = cells[1]
    raise CatalogRefreshError(f"{what}: no 'SKU' header within the first {_MAX_PREAMBLE} rows")


def _cells(line: str, header: list[str], what: str) -> list[str]:
    cells = next(csv.reader((line,)), [])
    if len(cells) != len(header):
        raise CatalogRefreshError(
            f"{what}: a row has {len(cells)} cells, the header {len(header)} ({line[:60]!r})"
        )
    return cells


def _take(
    cells: list[str],
    at: Mapping[str, int],
    region: str,
    types: frozenset[str],
    prices: dict[tuple[str, str], dict[str, str]],
    skipped: Tally,
) -> None:
    def cell(name: str) -> str:
        return cells[at[name]] if name in at else ""

    name = cell("Instance Type")
    if name not in types:  # the name only appeared in another column (a description)
        skipped.add(_OTHER)
        return
    where = f"{name} {region} {cell('TermType')} {cell('Operating System')} {cell('Tenancy')}"[:100]
    reason = _excluded(cell)
    if reason:
        skipped.add(reason, where)
        return
    if cell("Region Code") != region:
        skipped.add("rows of another region than the file's", f"{where} {cell('Region Code')}"[:100])
        return
    column = "Price" if cell("TermType") == "OnDemand" else _TERMS[cell("LeaseContractLength")]
    try:
        price = float(cell("PricePerUnit"))
    except ValueError:
        raise CatalogRefreshError(
            f"aws {region}: {where}: PricePerUnit {cell('PricePerUnit')[:30]!r} is not a number"
        ) from None
    if not math.isfinite(price) or price <= 0:
        skipped.add("zero or invalid prices", where)
        return
    entry = prices.setdefault((name, region), {})
    text = repr(round(price, 6))
    if column in entry and entry[column] != text:
        skipped.add("conflicting duplicate prices (the lower kept)", f"{where} {entry[column]} vs {text}")
        text = min(entry[column], text, key=float)
    entry[column] = text


def _excluded(get: Callable[[str], str]) -> str:
    """Why a catalog instance type's row is not one of ours, or "" when it is (``get``: a column's
    cell in this row)."""
    if get("Operating System") != "Linux" or get("License Model") not in ("", "No License required"):
        return "not plain Linux (Windows, RHEL, SUSE, Ubuntu Pro, BYOL)"
    if get("Pre Installed S/W") not in ("", "NA"):
        return "pre-installed software (SQL Server, ...)"
    if get("Tenancy") != "Shared":
        return "not shared tenancy (Dedicated, Host, Reserved)"
    if get("CapacityStatus") != "Used":
        return "capacity reservation rows (CapacityStatus not Used)"
    if get("MarketOption") not in ("", "OnDemand") or not get("Product Family").startswith(
        "Compute Instance"
    ):
        return "not an instance-hour price (Capacity Blocks, other product families)"
    if get("Currency") != "USD" or get("Unit") != "Hrs":
        return "not USD per hour (upfront fees, other currencies)"
    term = get("TermType")
    if term == "OnDemand":
        return ""
    if term != "Reserved":
        return f"term type {get('TermType')[:20]!r}"
    if get("OfferingClass") != "standard" or get("PurchaseOption") != "No Upfront":
        return "reserved terms other than standard No Upfront (convertible, partial or all upfront)"
    if get("LeaseContractLength") not in _TERMS:
        return "reserved terms other than 1yr / 3yr"
    return ""


def _map(
    last_good: list[Row],
    prices: Mapping[tuple[str, str], Mapping[str, str]],
    columns: tuple[str, ...],
    *,
    alone: bool = True,
) -> tuple[list[Row], tuple[Unmapped, ...]]:
    """The last good rows (per AZ) with the feed's region prices; spot cleared (the feed has none).
    ``alone``: no other feed prices this provider's spot, so a row without an on-demand price here
    is dropped (else another feed may still price it)."""
    rows: list[Row] = []
    used: set[tuple[str, str]] = set()
    reasons = Tally()
    for row in last_good:
        key = (row.get("InstanceType", ""), row.get("Region", ""))
        got = prices.get(key)
        if got is None or "Price" not in got:
            reason = (
                "last good rows the feed no longer prices on demand (dropped)"
                if alone
                else "last good rows the feed does not price on demand (kept where another feed prices them)"
            )
            reasons.add(reason, " ".join(key))
            continue
        used.add(key)
        new = {column: row.get(column, "") for column in with_reserved_columns(columns)}
        new["Price"] = got["Price"]
        if "SpotPrice" in new:
            new["SpotPrice"] = ""
        for column in RESERVED_COLUMNS.values():
            new[column] = got.get(column, "")
        rows.append(new)
    for key in sorted(k for k in prices if k not in used):
        reasons.add("instance type and region not in the catalog", " ".join(key))
    return rows, reasons.unmapped()
