"""What a refresh did: one ``ProviderOutcome`` per provider (and per part of a provider priced by
several feeds), the ``RefreshResult`` of the whole run, and the report line of an outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._sanity import Refusal
from .feeds import Unmapped

__all__ = [
    "REPLACED",
    "ProviderOutcome",
    "RefreshResult",
    "kept_outcome",
    "outcome_line",
    "skipped_outcome",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderOutcome:
    """What the refresh did with one provider.

    Attributes:
        status: "updated", "accepted" (refusals overridden by ``accept``), "refused" (last good kept),
            "skipped" (every feed needs an API key that is not set: last good kept, not an error;
            ``refusals`` carry the ``needs_key`` notes) or "partial" (some parts of a provider
            priced by several feeds updated, the refused ones kept their last good prices).
        rows_before / rows_after: accelerator rows of the last good data and of the data now in use.
        feed_rows: rows the feed delivered (None when the fetch failed).
        models: for one part of a split provider, the price models it owns; () for a provider.
        parts: a split provider's parts, each an outcome of its own; () for one priced by one feed.
        notes: facts the report adds (rows priced by one part only, kept; keys the parts list
            unequally often, collapsed).
    """

    provider: str
    status: str
    rows_before: int
    rows_after: int
    feed_rows: int | None
    refusals: tuple[Refusal, ...] = ()
    unmapped: tuple[Unmapped, ...] = ()
    source: str = ""
    models: tuple[str, ...] = ()
    parts: tuple[ProviderOutcome, ...] = ()
    notes: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        split: dict[str, Any] = {}  # only for split providers and their parts (others keep their form)
        if self.models:
            split["models"] = list(self.models)
        if self.parts:
            split["parts"] = [p.as_json() for p in self.parts]
        if self.notes:
            split["notes"] = list(self.notes)
        return {
            **split,
            "provider": self.provider,
            "status": self.status,
            "rows_before": self.rows_before,
            "rows_after": self.rows_after,
            "feed_rows": self.feed_rows,
            "refusals": [r.as_json() for r in self.refusals],
            "unmapped": [
                {"reason": u.reason, "count": u.count, "examples": list(u.examples)} for u in self.unmapped
            ],
            "source": self.source,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class RefreshResult:
    """What a refresh changed."""

    providers: tuple[str, ...]
    """Providers whose data was replaced (updated or accepted)."""
    rows: dict[str, int]
    """Accelerator rows per replaced provider."""
    outcomes: tuple[ProviderOutcome, ...]
    catalog_path: Path
    generation: Path
    sha256: str
    cleaned: tuple[str, ...] = field(default=())
    """Leftovers of killed refreshes removed from staging/ before this one."""

    @property
    def refused(self) -> dict[str, tuple[Refusal, ...]]:
        """Providers refused in whole or in part (``partial``), with the refusals."""
        return {o.provider: o.refusals for o in self.outcomes if o.status in ("refused", "partial")}


REPLACED = ("updated", "accepted", "partial")
"""Outcomes whose provider's data was replaced (in whole or, ``partial``, in part)."""


def kept_outcome(
    provider: str,
    rows_before: int,
    refusals: tuple[Refusal, ...],
    feed_rows: int | None,
    unmapped: tuple[Unmapped, ...] = (),
    source: str = "",
) -> ProviderOutcome:
    return ProviderOutcome(
        provider=provider,
        status="refused",
        rows_before=rows_before,
        rows_after=rows_before,
        feed_rows=feed_rows,
        refusals=refusals,
        unmapped=unmapped,
        source=source,
    )


def skipped_outcome(provider: str, rows: int, lacking: list[tuple[str, str]]) -> ProviderOutcome:
    """Every feed of the provider needs an API key that is not set: not a refusal, a note."""
    return ProviderOutcome(
        provider=provider,
        status="skipped",
        rows_before=rows,
        rows_after=rows,
        feed_rows=None,
        refusals=tuple(Refusal(provider=provider, check="needs_key", detail=text) for text, _ in lacking),
    )


def outcome_line(o: ProviderOutcome) -> str:
    if o.parts:
        head = {"partial": "partly updated", "refused": "REFUSED"}.get(o.status, o.status)
        lines = [f"{o.provider}: {head}, rows {o.rows_before} -> {o.rows_after}, from {len(o.parts)} feeds:"]
        lines += [f"  {'+'.join(p.models)}: " + outcome_line(p).split(": ", 1)[1] for p in o.parts]
        return "\n".join(lines)
    if o.status == "skipped":
        return f"{o.provider}: skipped, keeping its data ({o.rows_before} rows): " + "; ".join(
            r.detail for r in o.refusals
        )
    if o.status == "refused":
        reasons = "; ".join(f"{r.check}: {r.detail}" for r in o.refusals)
        return f"{o.provider}: REFUSED, keeping its last good data ({o.rows_before} rows): {reasons}"
    line = f"{o.provider}: {o.status}, rows {o.rows_before} -> {o.rows_after}"
    if o.refusals:
        line += " (accepted despite: " + "; ".join(f"{r.check}: {r.detail}" for r in o.refusals) + ")"
    skipped = sum(u.count for u in o.unmapped)
    if skipped:
        line += (
            f"; {skipped} feed rows not mapped ("
            + "; ".join(f"{u.count} {u.reason}" for u in o.unmapped)
            + ")"
        )
    return line
