"""A provider priced by several feeds, refreshed part by part (the rules: ``_parts``): each part
fetched and checked on its own (``_refresh_fetch``), then merged and checked across parts, with one
outcome that lists each part's and a result citing each price model's own source."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ._parts import Piece, price_columns, project, resolve, uneven_note
from ._refresh_fetch import RefreshContext, fetch_part, raw_header
from ._refresh_outcome import ProviderOutcome
from ._sanity import row_key
from ._sources import Feed, FeedPart, Provenance, Row
from .feeds import FeedResult, Unmapped

__all__ = ["refresh_parts"]


def refresh_parts(
    provider: str,
    feed: Feed,
    parts: tuple[FeedPart, ...],
    market: Path,
    ctx: RefreshContext,
    accepted: bool,
    full: list[Row],
) -> tuple[ProviderOutcome, FeedResult | None]:
    """The outcome and merged result of a provider priced by ``parts`` (see the module docstring)."""
    columns = list(raw_header(market / feed.raw_file))
    pieces: list[Piece] = []
    outcomes: list[ProviderOutcome] = []
    results: list[FeedResult | None] = []
    for part in parts:
        outcome, result = fetch_part(provider, feed, part, market, ctx, accepted, full, whole=False)
        fresh = result if outcome.status in ("updated", "accepted") else None
        if fresh is not None:
            columns += [c for c in fresh.columns if c not in columns]
        label = (
            outcome.source.split(":", 1)[0]
            if fresh is not None
            else f"last good, {feed.provenance_of(part.models[0]).source}"
        )
        pieces.append(
            Piece(
                models=part.models,
                label=label,
                new=None if fresh is None else project(fresh.rows, part.models),
                old=project(full, part.models),
                refusals=outcome.refusals,
                status=outcome.status,
            )
        )
        outcomes.append(outcome)
        results.append(fresh)
    pieces, merged = resolve(provider, pieces, columns, accepted=accepted)
    for i, piece in enumerate(pieces):
        if piece.status != outcomes[i].status or piece.refusals != outcomes[i].refusals:
            o = outcomes[i]
            if piece.status == "refused":
                outcomes[i] = replace(o, status="refused", rows_after=o.rows_before, refusals=piece.refusals)
                results[i] = None
            else:
                outcomes[i] = replace(o, status=piece.status, refusals=piece.refusals)
    collapsed = tuple(note for note in [uneven_note(pieces)] if note)
    return _merged_outcome(provider, feed, parts, full, merged, columns, outcomes, results, ctx, collapsed)


def _merged_outcome(
    provider: str,
    feed: Feed,
    parts: tuple[FeedPart, ...],
    full: list[Row],
    merged: list[Row],
    columns: list[str],
    outcomes: list[ProviderOutcome],
    results: list[FeedResult | None],
    ctx: RefreshContext,
    collapsed: tuple[str, ...],
) -> tuple[ProviderOutcome, FeedResult | None]:
    statuses = {o.status for o in outcomes}
    refusals = tuple(r for o in outcomes for r in o.refusals if o.status != "skipped")
    unmapped: tuple[Unmapped, ...] = ()  # the parts report their own; here only what the merge dropped
    sources = "; ".join(f"{'+'.join(o.models)}: {o.source or 'last good data kept'}" for o in outcomes)
    fetched = any(o.feed_rows is not None for o in outcomes)
    if not any(r is not None for r in results):
        status = "refused" if "refused" in statuses else "skipped"
        kept = ProviderOutcome(
            provider=provider,
            status=status,
            rows_before=len(full),
            rows_after=len(full),
            feed_rows=len(merged) if fetched else None,
            refusals=tuple(r for o in outcomes for r in o.refusals),
            unmapped=unmapped,
            source=sources,
            parts=tuple(outcomes),
        )
        return kept, None
    # a part skipped for a missing key is no refusal: noted in its part, the provider still "updated"
    status = "partial" if "refused" in statuses else "accepted" if "accepted" in statuses else "updated"
    have = {row_key(r) for r in merged}
    gone = sorted({" ".join(k[:2] + k[4:6]).strip() for k in map(row_key, full) if k not in have})
    if gone:
        unmapped += (
            Unmapped(
                reason="last good rows no source prices any more (dropped)",
                count=sum(1 for r in full if row_key(r) not in have),
                examples=tuple(gone[:3]),
            ),
        )
    notes = collapsed + _one_sided(parts, outcomes, merged)
    for note in notes:
        ctx.say(f"{provider}: {note}")
    provenance: list[tuple[str, Provenance]] = []
    for part, result in zip(parts, results, strict=True):
        for model in part.models:
            provenance.append(
                (model, feed.provenance_of(model))
                if result is None
                else (model, Provenance(repo=result.repo, path=result.path, commit=result.ref, as_of=""))
            )
    main = dict(provenance)["on_demand"]
    outcome = ProviderOutcome(
        provider=provider,
        status=status,
        rows_before=len(full),
        rows_after=len(merged),
        feed_rows=len(merged),
        refusals=refusals,
        unmapped=unmapped,
        source=sources,
        parts=tuple(outcomes),
        notes=notes,
    )
    result = FeedResult(
        rows=merged,
        columns=tuple(columns),
        repo=main.repo,
        path=main.path,
        ref=main.commit,
        sources=tuple(provenance),
    )
    return outcome, result


def _one_sided(
    parts: tuple[FeedPart, ...], outcomes: list[ProviderOutcome], merged: list[Row]
) -> tuple[str, ...]:
    """Report lines for rows only some parts price (the sources disagree about what exists)."""
    notes = []
    for part, outcome in zip(parts, outcomes, strict=True):
        mine, theirs = (
            price_columns(part.models),
            [c for p in parts if p is not part for c in price_columns(p.models)],
        )
        alone = [r for r in merged if any(r.get(c) for c in mine) and not any(r.get(c) for c in theirs)]
        if alone:
            names = sorted({f"{r.get('InstanceType', '')} {r.get('Region', '')}" for r in alone})
            models = "+".join(part.models)
            where = outcome.source.split(":", 1)[0] or "last good data"
            notes.append(
                f"{len(alone)} rows priced only by {models} ({where}) kept as {models} offers only "
                f"(e.g. {', '.join(names[:3])})"
            )
    return tuple(notes)
