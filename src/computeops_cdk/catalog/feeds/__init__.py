"""Price feed adapters: one module per source, each turning the source's real format into raw rows.

Every adapter reads the network only through ``Transport`` (catalog/_transport.py), returns the
provider's raw-file rows (the columns of ``data/market/raw/<provider>.csv``) plus the rows it could
not map (never dropped silently), and raises ``CatalogRefreshError`` when the body is not the format
it expects. The refresh then runs the same sanity checks on every adapter's rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from .._sources import Feed, Row
from .._transport import Transport

__all__ = ["Adapter", "FeedContext", "FeedResult", "Unmapped"]


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
        source: the provenance written to feeds.csv (``repo``, ``path``, ``ref`` become the offer source).
        unmapped: rows not mapped, by reason.
    """

    rows: list[Row]
    columns: tuple[str, ...]
    repo: str
    path: str
    ref: str
    unmapped: tuple[Unmapped, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class FeedContext:
    """Everything an adapter may use: the network seam, where to fetch, the environment (keys)."""

    transport: Transport
    feed: Feed
    base_url: str
    ref: str
    env: Mapping[str, str] = field(default_factory=dict)
    say: Callable[[str], None] = lambda _line: None


class Adapter(Protocol):
    """One source of prices for one provider."""

    name: str

    def fetch(self, ctx: FeedContext) -> FeedResult: ...


def group_unmapped(reasons: Mapping[str, list[str]], *, examples: int = 3) -> tuple[Unmapped, ...]:
    """``Unmapped`` records from reason -> row descriptions."""
    return tuple(
        Unmapped(reason=reason, count=len(rows), examples=tuple(dict.fromkeys(rows))[:examples])
        for reason, rows in sorted(reasons.items())
        if rows
    )
