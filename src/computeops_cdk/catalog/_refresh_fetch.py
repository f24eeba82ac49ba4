"""One feed part of one provider fetched and checked: its adapters tried in order (the next ones are
fallbacks), the rows sanity-checked against the same part of the last good rows (``_sanity``), and
the outcome (updated, accepted, refused or skipped for a missing API key)."""

from __future__ import annotations

import csv
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import CatalogRefreshError
from ._parts import project
from ._refresh_adapters import usable_adapters
from ._refresh_outcome import ProviderOutcome, kept_outcome, skipped_outcome
from ._sanity import Refusal, check_rows
from ._sources import Feed, FeedPart, Row
from ._transport import FeedFetchError, Transport
from .feeds import FeedContext, FeedResult, Unmapped

__all__ = ["RefreshContext", "fetch_part", "raw_header"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RefreshContext:
    """What every fetch of one refresh shares: the network seam, each adapter's base URL, the
    ``--feed`` overrides, the upstream revision recorded in sources, where API keys are read, the
    progress callback and the response cache (one gpuhunt zip serves several providers)."""

    transport: Transport
    urls: Mapping[str, str]
    overrides: Mapping[str, tuple[FeedPart, ...]]
    ref: str
    env: Mapping[str, str]
    say: Callable[[str], None]
    cache: dict[str, bytes]


def fetch_part(
    provider: str,
    feed: Feed,
    part: FeedPart,
    market: Path,
    ctx: RefreshContext,
    accepted: bool,
    full: list[Row],
    *,
    whole: bool,
) -> tuple[ProviderOutcome, FeedResult | None]:
    """Fetch one part (``whole``: the provider's only one) and check it against the same part of the
    last good rows; a part's outcome counts and judges only the rows of its price models."""
    old = full if whole else project(full, part.models)
    models = () if whole else part.models
    adapters, lacking = usable_adapters(part.adapters, ctx.env)
    if not adapters:
        if lacking and all(need for _name, need in lacking) and provider not in ctx.overrides:
            return replace(skipped_outcome(provider, len(old), lacking), models=models), None
        detail = "; ".join(text for text, _need in lacking) or "feeds.csv lists no feed for it"
        refusal = Refusal(provider=provider, check="fetch", detail=f"no usable feed: {detail}")
        return replace(kept_outcome(provider, len(old), (refusal,), None), models=models), None
    failures: list[Refusal] = []
    for adapter in adapters:  # the first that answers in its format; the next ones are fallbacks
        feed_ctx = FeedContext(
            transport=ctx.transport,
            feed=feed,
            url=ctx.urls[adapter.name],
            ref=ctx.ref,
            last_good=full,
            columns=raw_header(market / feed.raw_file),
            env=ctx.env,
            cache=ctx.cache,
            say=ctx.say,
            models=part.models,
        )
        try:
            result = adapter.fetch(feed_ctx)
            break
        except CatalogRefreshError as err:
            check = "fetch" if isinstance(err, FeedFetchError) else "format"
            detail = f"{adapter.name}: {err}" if len(adapters) > 1 else str(err)
            failures.append(Refusal(provider=provider, check=check, detail=detail))
            if adapter is not adapters[-1]:
                ctx.say(f"{provider}: {adapter.name} failed ({check}); falling back to the next feed")
    else:
        return replace(kept_outcome(provider, len(old), tuple(failures), None), models=models), None
    for note in result.notes:
        ctx.say(f"{provider}: {note}")
    new = result.rows if whole else project(result.rows, part.models)
    if not whole:  # what one feed leaves out another may still price: the merge says what is dropped
        result = replace(result, unmapped=tuple(_left_to_others(u) for u in result.unmapped))
    refusals = tuple(check_rows(provider, new, old))
    source = f"{adapter.name}: {result.repo} {result.path}@{result.ref}"
    if refusals and not accepted:
        kept = kept_outcome(provider, len(old), refusals, len(new), result.unmapped, source)
        return replace(kept, models=models), result
    outcome = ProviderOutcome(
        provider=provider,
        status="accepted" if refusals else "updated",
        rows_before=len(old),
        rows_after=len(new),
        feed_rows=len(new),
        refusals=refusals,
        unmapped=result.unmapped,
        source=source,
        models=models,
    )
    return outcome, result


def _left_to_others(u: Unmapped) -> Unmapped:
    return replace(u, reason=u.reason.replace(" (dropped)", " (left to the other feeds)"))


def raw_header(path: Path) -> tuple[str, ...]:
    with path.open(newline="", encoding="utf-8") as handle:
        return tuple(next(csv.reader(handle), []))
