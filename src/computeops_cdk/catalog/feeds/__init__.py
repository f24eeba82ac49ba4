"""Price feed adapters: one module per source, each turning the source's real format into raw rows.

Every adapter reads the network only through ``Transport`` (catalog/_transport.py), returns the
provider's raw-file rows (the columns of ``data/market/raw/<provider>.csv``) plus the rows it could
not map (never dropped silently), and raises ``CatalogRefreshError`` when the body is not the format
it expects. The refresh then runs the same sanity checks on every adapter's rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...errors import CatalogRefreshError
from .._sources import PRICE_MODELS, Feed, Provenance, Row
from .._transport import Request, Transport
from .._types import RESERVED_COLUMNS

__all__ = [
    "Adapter",
    "FeedContext",
    "FeedResult",
    "Unmapped",
    "group_unmapped",
    "map_prices",
    "parse_json",
    "post_json",
    "price_text",
    "with_reserved_columns",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Unmapped:
    """Rows of a feed that did not become offers, grouped by reason (with a few examples)."""

    reason: str
    count: int
    examples: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class FeedResult:
    """What an adapter read.

    Attributes:
        rows: rows in the provider's raw-file columns.
        columns: the raw file's header, in order.
        repo / path / ref: the provenance written to feeds.csv (they become the offers' source).
        unmapped: rows not mapped, by reason.
        notes: other facts worth a line in the report (e.g. availability signals).
        sources: (price model, provenance) of each model when the rows were merged from several
            feeds (``as_of`` "" = this refresh); () when ``repo`` / ``path`` / ``ref`` cite them all.
    """

    rows: list[Row]
    columns: tuple[str, ...]
    repo: str
    path: str
    ref: str
    unmapped: tuple[Unmapped, ...] = ()
    notes: tuple[str, ...] = ()
    sources: tuple[tuple[str, Provenance], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class FeedContext:
    """Everything an adapter may use.

    Attributes:
        transport: the network seam.
        feed: the provider's feeds.csv row.
        url: this adapter's base URL (its default, or the user's ``--feed-url``).
        ref: the upstream revision to record where the source has none of its own.
        last_good: the provider's last good raw rows (where mapping adapters take the specs from).
        columns: the provider's raw-file header.
        env: where API keys are read.
        cache: bodies already fetched in this refresh (one aggregated download serves several providers).
        say: progress lines.
        models: the price models this adapter's rows are taken for (the refresh keeps only these).
    """

    transport: Transport
    feed: Feed
    url: str
    ref: str
    last_good: list[Row] = field(default_factory=list)
    columns: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cache: dict[str, bytes] = field(default_factory=dict)
    say: Callable[[str], None] = lambda _line: None
    models: tuple[str, ...] = PRICE_MODELS


class Adapter(Protocol):
    """One source of prices for one provider."""

    name: str
    needs: tuple[str, ...]
    """Environment variables (API keys) the adapter cannot work without."""

    def fetch(self, ctx: FeedContext) -> FeedResult: ...


def map_prices(
    last_good: list[Row],
    prices: Mapping[tuple[str, str], Mapping[str, str]],
    *,
    region_column: str = "Region",
) -> tuple[list[Row], tuple[Unmapped, ...]]:
    """The last good rows whose (instance type, region) the feed prices, with the feed's prices.

    ``prices`` maps ``(instance type, region)`` to ``{"Price": ..., "SpotPrice": ...,
    "ReservedPrice1yr": ..., "ReservedPrice3yr": ...}`` (text, USD per instance-hour; a missing key
    means the feed has no such price; see ``with_reserved_columns``). Feed keys the catalog has no
    row for, and last good rows the feed no longer lists, are reported (never dropped silently).
    """
    rows: list[Row] = []
    used: set[tuple[str, str]] = set()
    reasons: dict[str, list[str]] = {}
    for row in last_good:
        key = (row.get("InstanceType", ""), row.get(region_column, ""))
        got = prices.get(key)
        if got is None:
            reasons.setdefault("last good rows the feed no longer lists (dropped)", []).append(" ".join(key))
            continue
        used.add(key)
        new = dict(row)
        new["Price"] = got.get("Price", "")
        if "SpotPrice" in row:
            new["SpotPrice"] = got.get("SpotPrice", "")
        for column in RESERVED_COLUMNS.values():  # reserved offers, when the feed prices them
            if column in got or column in row:
                new[column] = got.get(column, "")
        rows.append(new)
    extra = sorted(" ".join(k) for k in prices if k not in used)
    if extra:
        reasons["instance type or region not in the catalog"] = extra
    return rows, group_unmapped(reasons)


def with_reserved_columns(columns: tuple[str, ...]) -> tuple[str, ...]:
    """A raw-file header with the reserved-price columns added (for feeds that price reservations)."""
    return columns + tuple(c for c in RESERVED_COLUMNS.values() if c not in columns)


def price_text(value: float) -> str:
    """A price as the raw files write it (rounded to 6 decimals)."""
    return repr(round(value, 6))


def post_json(url: str, doc: Any) -> Request:
    """A POST of ``doc`` as JSON (keys sorted) that takes a JSON answer."""
    return Request(
        url=url,
        method="POST",
        headers=(("Content-Type", "application/json"),),
        body=json.dumps(doc, sort_keys=True).encode(),
        accept=("application/json",),
    )


def parse_json(body: bytes, what: str) -> Any:  # JSON: callers narrow it with isinstance
    """A feed's JSON answer, or ``CatalogRefreshError("<what> is not JSON (...)")`` (a cut or HTML
    body, or nesting deep enough to exhaust the parser): one refusal for every JSON feed."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as err:
        raise CatalogRefreshError(f"{what} is not JSON ({str(err)[:80]})") from None


def group_unmapped(reasons: Mapping[str, list[str]], *, examples: int = 3) -> tuple[Unmapped, ...]:
    """``Unmapped`` records from reason -> row descriptions."""
    return tuple(
        Unmapped(reason=reason, count=len(rows), examples=tuple(dict.fromkeys(rows))[:examples])
        for reason, rows in sorted(reasons.items())
        if rows
    )
