"""Refreshing provider price files from public feeds into a new catalog generation.

One refresh, under the data directory's lock (``_store``):

1. clean what a killed refresh left in ``staging/``; stage a copy of the market-data folder with each
   provider's last good raw file (from the current generation, else the shipped snapshot);
2. per provider: fetch through its feed adapter (``feeds/``), then run the sanity checks
   (``_sanity``) against its last good rows. A refused provider keeps its last good data, the others
   still update; ``accept`` overrides the checks for the providers the user reviewed. A provider
   whose price models come from several feeds (AWS: on-demand and reserved from the bulk offer
   files, spot from gpuhunt) is refreshed part by part and merged (``_parts``): a refused part keeps
   its last good prices while the others update, and every price model cites its own source;
3. rebuild and validate the catalog from the staged folder (a provider whose rows break the build is
   refused too, with the build's message);
4. commit the whole set at once: the staged generation is renamed into place and ``current`` is
   switched (``--output`` gets a copy, its previous file kept as ``<name>.previous``).

Nothing in the installed package or the source folder is written. Every failure is a
``CatalogRefreshError`` with what to do, never a traceback; the previous generation stays intact.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import CatalogError, CatalogRefreshError, did_you_mean, did_you_mean_text
from ._build import DEFAULT_SOURCE, build_catalog, canonical_json
from ._parts import Piece, duplicate_note, price_columns, project, resolve
from ._sanity import Refusal, check_rows, row_key
from ._sources import PRICE_SOURCES, Feed, FeedPart, MarketData, Provenance, Row, parse_feed_spec, read_csv
from ._store import Store, os_error_text
from ._transport import FeedFetchError, HttpxTransport, Transport
from .feeds import (
    Adapter,
    FeedContext,
    FeedResult,
    Unmapped,
    aws_bulk,
    azure_retail,
    gcp_billing,
    gpuhunt,
    lambda_api,
    oci_pricelist,
    runpod_graphql,
    vast_search,
)
from .feeds.skypilot import DEFAULT_URL as SKYPILOT_URL
from .feeds.skypilot import SkyPilotFeed, parse_skypilot_vms

__all__ = [
    "DEFAULT_BASE_URL",
    "ProviderOutcome",
    "RefreshResult",
    "parse_skypilot_vms",
    "refresh_catalog",
]

DEFAULT_BASE_URL = SKYPILOT_URL
"""SkyPilot feed paths of feeds.csv are appended to this (``.../catalogs/v8/lambda/vms.csv``)."""

ADAPTERS: dict[str, Adapter] = {
    "skypilot": SkyPilotFeed(),
    "gpuhunt": gpuhunt.GpuhuntFeed(),
    "lambda-api": lambda_api.LambdaApiFeed(),
    "azure-retail": azure_retail.AzureRetailFeed(),
    "gcp-billing": gcp_billing.GcpBillingFeed(),
    "oci-pricelist": oci_pricelist.OciPriceListFeed(),
    "runpod-graphql": runpod_graphql.RunPodGraphQLFeed(),
    "vast-search": vast_search.VastSearchFeed(),
    "aws-bulk": aws_bulk.AwsBulkFeed(),
}
"""Every feed adapter by the name feeds.csv's ``feed`` column and ``--feed P=NAME`` use."""
DEFAULT_URLS = {
    "skypilot": SKYPILOT_URL,
    "gpuhunt": gpuhunt.DEFAULT_URL,
    "lambda-api": lambda_api.DEFAULT_URL,
    "azure-retail": azure_retail.DEFAULT_URL,
    "gcp-billing": gcp_billing.DEFAULT_URL,
    "oci-pricelist": oci_pricelist.DEFAULT_URL,
    "runpod-graphql": runpod_graphql.DEFAULT_URL,
    "vast-search": vast_search.DEFAULT_URL,
    "aws-bulk": aws_bulk.DEFAULT_URL,
}
_COVERS = {
    "gpuhunt": tuple(gpuhunt.FILES),
    "lambda-api": ("lambda",),
    "azure-retail": ("azure",),
    "gcp-billing": ("gcp",),
    "oci-pricelist": ("oci",),
    "runpod-graphql": ("runpod",),
    "vast-search": ("vast",),
    "aws-bulk": ("aws",),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderOutcome:
    """What the refresh did with one provider.

    Attributes:
        status: "updated", "accepted" (refusals overridden by ``accept``), "refused" (last good kept),
            "skipped" (every feed of the provider needs an API key that is not set; last good
            kept, not an error; ``refusals`` carry the ``needs_key`` notes) or "partial" (a provider
            priced by several feeds: some parts updated, the refused ones kept their last good
            prices; see ``parts``).
        rows_before / rows_after: accelerator rows of the last good data and of the data now in use.
        feed_rows: rows the feed delivered (None when the fetch failed).
        models: for one part of a split provider, the price models it owns; () for a provider.
        parts: a split provider's parts, each an outcome of its own (status, rows of its price
            models, refusals, source); () for a provider priced by one feed.
        notes: facts the report adds (rows priced by one part only, kept).
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


def refresh_catalog(
    source_dir: str | Path = DEFAULT_SOURCE,
    *,
    providers: Iterable[str] | None = None,
    accept: Iterable[str] = (),
    data_dir: str | Path | None = None,
    output: str | Path | None = None,
    base_url: str = DEFAULT_BASE_URL,
    ref: str = "master",
    transport: Transport | None = None,
    as_of: str | None = None,
    now: datetime | None = None,
    env: Mapping[str, str] | None = None,
    feeds: Mapping[str, str] | None = None,
    urls: Mapping[str, str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> RefreshResult:
    """Fetch the refreshable feeds and commit a new catalog generation in the user data directory.

    Args:
        source_dir: the market-data folder (data/market) the catalog is built from; only read.
        providers: which providers to refresh. Default: every feed marked refreshable in feeds.csv.
        accept: providers whose sanity refusals are overridden (after review). Default: none.
        data_dir: the user data directory. Default: ``_store.data_dir()`` ($COMPUTEOPS_DATA_DIR, ...).
        output: also write the catalog here (atomically, the previous file kept as ``.previous``).
        base_url: where SkyPilot feed paths are fetched from. Default: the skypilot-catalog master branch.
        ref: the upstream revision recorded in offer sources. Default: "master".
        transport: the network seam. Default: HttpxTransport() (bounded: size, deadline, retries).
        as_of: the date recorded for refreshed prices. Default: the UTC date of ``now``.
        now: the refresh time recorded in the status. Default: the machine's clock (UTC).
        env: where adapters read API keys. Default: os.environ.
        feeds: provider -> adapter name, overriding feeds.csv's ``feed`` order (e.g. ``{"lambda":
            "gpuhunt"}``). Default: feeds.csv (the first adapter whose API key is set).
        urls: adapter name -> base URL, overriding the adapter's default. Default: none.
        progress: called with one human-readable line per step. Default: silent.

    Raises:
        CatalogRefreshError: bad arguments, another refresh running, or the generation could not be
            written (a full disk); the previous generation is intact. A refused provider is not an
            error: see ``RefreshResult.outcomes``.
    """
    say = progress or (lambda _line: None)
    root = Path(source_dir)
    known = MarketData(_require_market(root)).feeds()
    chosen = _choose(known, providers)
    accepted = _accepted(accept, chosen)
    overrides = _overrides(feeds or {}, chosen)
    moment = now or datetime.now(UTC)
    stamp = as_of or moment.date().isoformat()
    store = Store(data_dir)
    ctx = _Context(
        transport=transport or HttpxTransport(),
        urls={**DEFAULT_URLS, "skypilot": base_url, **_known_urls(urls or {})},
        overrides=overrides,
        ref=ref,
        env=os.environ if env is None else env,
        say=say,
        cache={},
    )
    with store.locked():
        cleaned = tuple(store.clean_staging())
        if cleaned:
            say(f"removed {len(cleaned)} leftover(s) of an interrupted refresh from {store.root / 'staging'}")
        name = moment.strftime("%Y%m%dT%H%M%S%fZ")
        try:
            return _run(store, root, name, known, chosen, accepted, ctx, stamp, moment, output, cleaned)
        except OSError as err:
            raise CatalogRefreshError(
                f"could not write the refreshed catalog: {os_error_text(err)}. Nothing was changed: "
                "the previous catalog is intact."
            ) from None
        finally:
            shutil.rmtree(store.root / "staging" / name, ignore_errors=True)


_REPLACED = ("updated", "accepted", "partial")
"""Outcomes whose provider's data was replaced (in whole or, ``partial``, in part)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Context:
    transport: Transport
    urls: Mapping[str, str]
    overrides: Mapping[str, tuple[FeedPart, ...]]
    ref: str
    env: Mapping[str, str]
    say: Callable[[str], None]
    cache: dict[str, bytes]


def _run(
    store: Store,
    root: Path,
    name: str,
    feeds: dict[str, Feed],
    chosen: list[str],
    accepted: set[str],
    ctx: _Context,
    stamp: str,
    moment: datetime,
    output: str | Path | None,
    cleaned: tuple[str, ...],
) -> RefreshResult:
    staged = store.new_staging(name)
    market = staged / "market"
    shutil.copytree(root, market)
    state = store.state()
    _carry_over(store.current(), market, state, feeds)
    staged_feeds = MarketData(market).feeds()
    outcomes: dict[str, ProviderOutcome] = {}
    fresh: dict[str, FeedResult] = {}
    for provider in chosen:
        outcome, result = _refresh_one(provider, staged_feeds[provider], market, ctx, provider in accepted)
        outcomes[provider] = outcome
        if result is not None and outcome.status in _REPLACED:
            fresh[provider] = result
        ctx.say(_outcome_line(outcome))
    doc = _build(market, staged_feeds, fresh, outcomes, stamp, ctx.say)
    (staged / "catalog.json").write_text(canonical_json(doc), encoding="utf-8", newline="")
    previous = state.get("providers", {}) if isinstance(state.get("providers"), dict) else {}
    status = _state(name, moment, doc, feeds, outcomes, previous)
    (staged / "state.json").write_text(json_text(status), encoding="utf-8")
    out_tmp = _stage_output(Path(output), canonical_json(doc)) if output is not None else None
    try:
        generation = store.commit(staged, name)
        if output is not None and out_tmp is not None:
            _replace_keeping_previous(out_tmp, Path(output))
    finally:
        if out_tmp is not None:
            out_tmp.unlink(missing_ok=True)
    ctx.say(f"committed {generation} (sha256 {doc['sha256'][:12]}, {len(doc['offers'])} offers)")
    replaced = [p for p in chosen if outcomes[p].status in _REPLACED]
    return RefreshResult(
        providers=tuple(replaced),
        rows={p: outcomes[p].rows_after for p in replaced},
        outcomes=tuple(outcomes[p] for p in chosen),
        catalog_path=Path(output) if output is not None else store.catalog_path,
        generation=generation,
        sha256=doc["sha256"],
        cleaned=cleaned,
    )


def _require_market(root: Path) -> Path:
    if not (root / "feeds.csv").is_file():
        raise CatalogRefreshError(
            f"{str(root)!r} is not a market-data folder (no feeds.csv). To fix: run from a checkout of "
            "computeops-cdk (its data/market folder) or pass --source DIR; the installed package "
            "carries only the built catalog, not the market data it is built from."
        )
    return root


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
        if name not in chosen:
            chosen.append(name)
    return chosen


def _overrides(feeds: Mapping[str, str], chosen: list[str]) -> dict[str, tuple[FeedPart, ...]]:
    out: dict[str, tuple[FeedPart, ...]] = {}
    for provider, spec in feeds.items():
        if provider not in chosen:
            raise CatalogRefreshError(
                f"--feed {provider}={spec}: {provider!r} is not refreshed here ({', '.join(chosen)}). "
                f"To fix: name one of those{did_you_mean_text(did_you_mean(provider, chosen))}"
            )
        try:
            out[provider] = parse_feed_spec(spec, what=f"--feed {provider}={spec}")
        except CatalogError as err:
            raise CatalogRefreshError(str(err)) from None
        for part in out[provider]:
            for name in part.adapters:
                _known_adapter(provider, spec, name)
    return out


def _known_adapter(provider: str, spec: str, name: str) -> None:
    if name not in ADAPTERS:
        raise CatalogRefreshError(
            f"--feed {provider}={spec}: no feed adapter {name!r}; adapters: "
            f"{', '.join(sorted(ADAPTERS))}. To fix: use one of those"
            f"{did_you_mean_text(did_you_mean(name, list(ADAPTERS)))}"
        )
    covers = _COVERS.get(name)
    if covers is not None and provider not in covers:
        raise CatalogRefreshError(
            f"--feed {provider}={spec}: the {name} feed has no {provider} prices (it covers "
            f"{', '.join(covers)}). To fix: choose another feed for {provider}"
        )


def _known_urls(urls: Mapping[str, str]) -> dict[str, str]:
    for name in urls:
        if name not in ADAPTERS:
            raise CatalogRefreshError(
                f"--feed-url {name}=...: no feed adapter {name!r}; adapters: {', '.join(sorted(ADAPTERS))}"
                f"{did_you_mean_text(did_you_mean(name, list(ADAPTERS)))}"
            )
    return dict(urls)


def _accepted(accept: Iterable[str], chosen: list[str]) -> set[str]:
    out = set()
    for name in accept:
        if name not in chosen:
            extra = did_you_mean_text(did_you_mean(name, chosen))
            raise CatalogRefreshError(
                f"--accept {name!r} names a provider this refresh does not fetch ({', '.join(chosen)}). "
                f"To fix: accept one of those{extra}"
            )
        out.add(name)
    return out


def _carry_over(current: Path | None, market: Path, state: dict[str, Any], feeds: dict[str, Feed]) -> None:
    """Put each previously refreshed provider's last good raw file and feed row into the staging copy."""
    if current is None:
        return
    kept = state.get("providers", {})
    refreshed = {p for p, s in kept.items() if isinstance(s, dict) and s.get("refreshed_at")}
    if not refreshed:
        return
    old_rows = {r["provider"]: r for r in read_csv(current / "market" / "feeds.csv")}
    rows = read_csv(market / "feeds.csv")
    for row in rows:
        provider = row["provider"]
        if provider in refreshed and provider in old_rows and provider in feeds:
            shutil.copyfile(current / "market" / feeds[provider].raw_file, market / feeds[provider].raw_file)
            row.update({k: old_rows[provider][k] for k in ("repo", "path", "commit", "as_of")})
    _write_csv(market / "feeds.csv", rows)
    shutil.copyfile(current / "market" / "meta.csv", market / "meta.csv")
    kept_sources = [
        r for r in _optional_csv(current / "market" / PRICE_SOURCES) if r["provider"] in refreshed
    ]
    staged = [r for r in _optional_csv(market / PRICE_SOURCES) if r["provider"] not in refreshed]
    _write_csv(market / PRICE_SOURCES, staged + kept_sources, columns=_SOURCE_COLUMNS)


def _optional_csv(path: Path) -> list[Row]:
    """A market file a folder written before it existed lacks (price-sources.csv): no rows."""
    return read_csv(path) if path.is_file() else []


_SOURCE_COLUMNS = ("provider", "pricing", "repo", "path", "commit", "as_of")


def _refresh_one(
    provider: str, feed: Feed, market: Path, ctx: _Context, accepted: bool
) -> tuple[ProviderOutcome, FeedResult | None]:
    full = read_csv(market / feed.raw_file)
    parts = ctx.overrides.get(provider, feed.parts)
    if len(parts) > 1:
        return _refresh_parts(provider, feed, parts, market, ctx, accepted, full)
    return _fetch_part(provider, feed, parts[0], market, ctx, accepted, full, whole=True)


def _fetch_part(
    provider: str,
    feed: Feed,
    part: FeedPart,
    market: Path,
    ctx: _Context,
    accepted: bool,
    full: list[Row],
    *,
    whole: bool,
) -> tuple[ProviderOutcome, FeedResult | None]:
    """Fetch one part (``whole``: the provider's only one) and check it against the same part of the
    last good rows; a part's outcome counts and judges only the rows of its price models."""
    old = full if whole else project(full, part.models)
    models = () if whole else part.models
    adapters, lacking = _adapters(part.adapters, ctx)
    if not adapters:
        if lacking and all(need for _name, need in lacking) and provider not in ctx.overrides:
            return replace(_skipped(provider, len(old), lacking), models=models), None
        detail = "; ".join(text for text, _need in lacking) or "feeds.csv lists no feed for it"
        refusal = Refusal(provider=provider, check="fetch", detail=f"no usable feed: {detail}")
        return replace(_kept(provider, len(old), (refusal,), None), models=models), None
    failures: list[Refusal] = []
    for adapter in adapters:  # the first that answers in its format; the next ones are fallbacks
        feed_ctx = FeedContext(
            transport=ctx.transport,
            feed=feed,
            url=ctx.urls[adapter.name],
            ref=ctx.ref,
            last_good=full,
            columns=_header(market / feed.raw_file),
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
        return replace(_kept(provider, len(old), tuple(failures), None), models=models), None
    for note in result.notes:
        ctx.say(f"{provider}: {note}")
    new = result.rows if whole else project(result.rows, part.models)
    if not whole:  # what one feed leaves out another may still price: the merge says what is dropped
        result = replace(result, unmapped=tuple(_left_to_others(u) for u in result.unmapped))
    refusals = tuple(check_rows(provider, new, old))
    source = f"{adapter.name}: {result.repo} {result.path}@{result.ref}"
    if refusals and not accepted:
        kept = _kept(provider, len(old), refusals, len(new), result.unmapped, source)
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


def _refresh_parts(
    provider: str,
    feed: Feed,
    parts: tuple[FeedPart, ...],
    market: Path,
    ctx: _Context,
    accepted: bool,
    full: list[Row],
) -> tuple[ProviderOutcome, FeedResult | None]:
    """A provider priced by several feeds: each part fetched and checked on its own, then merged and
    checked across parts (``_parts.resolve``); the result cites each price model's own source."""
    columns = list(_header(market / feed.raw_file))
    pieces: list[Piece] = []
    outcomes: list[ProviderOutcome] = []
    results: list[FeedResult | None] = []
    for part in parts:
        outcome, result = _fetch_part(provider, feed, part, market, ctx, accepted, full, whole=False)
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
    collapsed = tuple(note for note in map(duplicate_note, pieces) if note)
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
    ctx: _Context,
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


def _left_to_others(u: Unmapped) -> Unmapped:
    return replace(u, reason=u.reason.replace(" (dropped)", " (left to the other feeds)"))


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


def _adapters(names: tuple[str, ...], ctx: _Context) -> tuple[list[Adapter], list[tuple[str, str]]]:
    """The adapters whose API keys are set, in order, and (why, missing key or "") for each one
    left out."""
    usable: list[Adapter] = []
    lacking: list[tuple[str, str]] = []
    for name in names:
        adapter = ADAPTERS.get(name)
        if adapter is None:
            lacking.append((f"feeds.csv names an unknown feed {name!r}", ""))
            continue
        missing = [var for var in adapter.needs if not ctx.env.get(var)]
        if not missing:
            usable.append(adapter)
            continue
        need = "$" + ", $".join(missing)
        lacking.append((f"{name} needs {need} (To fix: set it in the environment)", need))
    return usable, lacking


def _skipped(provider: str, rows: int, lacking: list[tuple[str, str]]) -> ProviderOutcome:
    """Every feed of the provider needs an API key that is not set: not a refusal, a note."""
    return ProviderOutcome(
        provider=provider,
        status="skipped",
        rows_before=rows,
        rows_after=rows,
        feed_rows=None,
        refusals=tuple(Refusal(provider=provider, check="needs_key", detail=text) for text, _ in lacking),
    )


def _header(path: Path) -> tuple[str, ...]:
    with path.open(newline="", encoding="utf-8") as handle:
        return tuple(next(csv.reader(handle), []))


def _kept(
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


def _outcome_line(o: ProviderOutcome) -> str:
    if o.parts:
        head = {"partial": "partly updated", "refused": "REFUSED"}.get(o.status, o.status)
        lines = [f"{o.provider}: {head}, rows {o.rows_before} -> {o.rows_after}, from {len(o.parts)} feeds:"]
        lines += [f"  {'+'.join(p.models)}: " + _outcome_line(p).split(": ", 1)[1] for p in o.parts]
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


def _apply(market: Path, feeds: dict[str, Feed], fresh: Mapping[str, FeedResult], stamp: str) -> None:
    """Write the fresh providers' raw files and feed rows into the staged folder."""
    for provider, result in fresh.items():
        _write_csv(market / feeds[provider].raw_file, result.rows, columns=result.columns)
    rows = read_csv(market / "feeds.csv")
    for row in rows:
        got = fresh.get(row["provider"])
        if got is not None:
            as_of = dict(got.sources)["on_demand"].as_of if got.sources else ""
            row.update({"repo": got.repo, "path": got.path, "commit": got.ref, "as_of": as_of or stamp})
    _write_csv(market / "feeds.csv", rows)
    # each price model's own source, for providers priced by several feeds (the others: none)
    sources = [r for r in _optional_csv(market / PRICE_SOURCES) if r["provider"] not in fresh]
    for provider, result in sorted(fresh.items()):
        for model, origin in result.sources:
            sources.append(
                {"provider": provider, "pricing": model, "repo": origin.repo, "path": origin.path,
                 "commit": origin.commit, "as_of": origin.as_of or stamp}
            )  # fmt: skip
    _write_csv(market / PRICE_SOURCES, sources, columns=_SOURCE_COLUMNS)
    if fresh:
        _write_csv(
            market / "meta.csv",
            [{"key": "version", "value": stamp.replace("-", ".")}, {"key": "as_of", "value": stamp}],
        )


def _build(
    market: Path,
    feeds: dict[str, Feed],
    fresh: dict[str, FeedResult],
    outcomes: dict[str, ProviderOutcome],
    stamp: str,
    say: Callable[[str], None],
) -> dict[str, Any]:
    """Build from the staged folder; a provider whose fresh rows break the build is refused."""
    pristine = market.parent / "pristine"
    shutil.copytree(market, pristine)
    try:
        _apply(market, feeds, fresh, stamp)
        say("rebuilding the catalog from the refreshed files")
        try:
            return build_catalog(market)
        except CatalogError:
            pass
        for provider in sorted(fresh):  # which provider's rows break it? try each alone
            _reset(market, pristine)
            _apply(market, feeds, {provider: fresh[provider]}, stamp)
            try:
                build_catalog(market)
            except CatalogError as err:
                refusal = Refusal(
                    provider=provider, check="build", detail=f"the refreshed data does not build: {err}"
                )
                old = outcomes[provider]
                outcomes[provider] = _kept(
                    provider, old.rows_before, (refusal,), old.feed_rows, old.unmapped, old.source
                )
                say(_outcome_line(outcomes[provider]))
        good = {p: r for p, r in fresh.items() if outcomes[p].status != "refused"}
        _reset(market, pristine)
        _apply(market, feeds, good, stamp)
        try:
            return build_catalog(market)
        except CatalogError as err:
            raise CatalogRefreshError(
                f"the refreshed data does not build: {err}. Nothing was changed."
            ) from err
    finally:
        shutil.rmtree(pristine, ignore_errors=True)


def _reset(market: Path, pristine: Path) -> None:
    shutil.rmtree(market)
    shutil.copytree(pristine, market)


def _state(
    name: str,
    moment: datetime,
    doc: dict[str, Any],
    feeds: dict[str, Feed],
    outcomes: dict[str, ProviderOutcome],
    previous: dict[str, Any],
) -> dict[str, Any]:
    when = moment.isoformat(timespec="seconds")
    providers: dict[str, Any] = {}
    for provider in sorted(feeds):
        entry = dict(previous.get(provider) or {})
        outcome = outcomes.get(provider)
        if outcome is not None:
            entry["last_attempt"] = when
            entry["last_outcome"] = outcome.as_json()
            if outcome.status in _REPLACED:
                entry["refreshed_at"] = when
                entry["source"] = outcome.source
                entry["rows"] = outcome.rows_after
            if outcome.parts and outcome.status in _REPLACED:
                entry["parts"] = _part_states(outcome, entry.get("parts"), when)
            elif outcome.status in _REPLACED:
                entry.pop("parts", None)  # priced by one feed again
        providers[provider] = entry
    return {"generation": name, "created_at": when, "catalog_sha256": doc["sha256"], "providers": providers}


def _part_states(outcome: ProviderOutcome, previous: Any, when: str) -> list[dict[str, Any]]:
    """Each part's last refresh, source and rows (a refused part keeps its previous ones)."""
    before = (
        {"+".join(p.get("models", [])): p for p in previous if isinstance(p, dict)}
        if isinstance(previous, list)
        else {}
    )
    out = []
    for part in outcome.parts:
        key = "+".join(part.models)
        entry = dict(before.get(key) or {"models": list(part.models)})
        entry["status"] = part.status
        if part.status in ("updated", "accepted"):
            entry.update(refreshed_at=when, source=part.source, rows=part.rows_after)
        out.append(entry)
    return out


def json_text(doc: Any) -> str:
    import json

    return json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n"


def _write_csv(path: Path, rows: list[Row], *, columns: Iterable[str] | None = None) -> None:
    names = list(columns) if columns is not None else list(rows[0]) if rows else []
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8", newline="")


def _stage_output(target: Path, text: str) -> Path:
    if target.is_dir():
        raise CatalogError(
            f"cannot write {str(target)!r}: it is a directory. Nothing was changed. To fix: give a file "
            f"path, e.g. {str(target / 'catalog.json')!r}."
        )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8", newline="")
    except OSError as err:
        raise CatalogError(
            f"cannot write {str(target)!r} ({err.strerror or err}). Nothing was changed. "
            "To fix: choose a writable location (--output FILE)."
        ) from err
    return tmp


def _replace_keeping_previous(tmp: Path, target: Path) -> None:
    if target.is_file():
        previous = target.with_name(target.name + ".previous")
        previous.unlink(missing_ok=True)
        os.link(target, previous)
    os.replace(tmp, target)
