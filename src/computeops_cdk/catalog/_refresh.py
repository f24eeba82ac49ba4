"""Refreshing provider price files from public feeds into a new catalog generation.

One refresh, under the data directory's lock (``_store``):

1. clean what a killed refresh left in ``staging/``; stage a copy of the market-data folder with each
   provider's last good raw file (from the current generation, else the shipped snapshot);
2. per provider: fetch through its feed adapter (``_refresh_fetch``), then run the sanity checks
   (``_sanity``) against its last good rows. A refused provider keeps its last good data, the others
   still update; ``accept`` overrides the checks for the providers the user reviewed. A provider
   priced by several feeds is refreshed part by part and merged (``_refresh_parts``);
3. rebuild and validate the catalog from the staged folder (a provider whose rows break the build is
   refused too, with the build's message);
4. commit the whole set at once: the staged generation is renamed into place and ``current`` is
   switched (``--output`` gets a copy, its previous file kept as ``<name>.previous``).

Nothing in the installed package or the source folder is written. Every failure is a
``CatalogRefreshError`` with what to do, never a traceback; the previous generation stays intact.
This module runs the steps and writes the staged generation's market files through ``_write_csv``.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import CatalogError, CatalogRefreshError
from ._build import DEFAULT_SOURCE, build_catalog, canonical_json, check_output_target
from ._refresh_adapters import DEFAULT_URLS, known_urls
from ._refresh_fetch import RefreshContext, fetch_part
from ._refresh_options import accepted_providers, choose_providers, feed_overrides, require_market
from ._refresh_outcome import REPLACED, ProviderOutcome, RefreshResult, kept_outcome, outcome_line
from ._refresh_parts import refresh_parts
from ._refresh_state import json_text, refresh_state
from ._sanity import Refusal
from ._sources import PRICE_SOURCES, Feed, MarketData, Row, read_csv
from ._store import Store, os_error_text
from ._transport import HttpxTransport, Transport
from .feeds import FeedResult
from .feeds.skypilot import DEFAULT_URL as SKYPILOT_URL
from .feeds.skypilot import parse_skypilot_vms

__all__ = [
    "DEFAULT_BASE_URL",
    "ProviderOutcome",
    "RefreshResult",
    "parse_skypilot_vms",
    "refresh_catalog",
]


DEFAULT_BASE_URL = SKYPILOT_URL
"""SkyPilot feed paths of feeds.csv are appended to this (``.../catalogs/v8/lambda/vms.csv``)."""


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
    known = MarketData(require_market(root)).feeds()
    chosen = choose_providers(known, providers)
    accepted = accepted_providers(accept, chosen)
    overrides = feed_overrides(feeds or {}, chosen)
    moment = now or datetime.now(UTC)
    stamp = as_of or moment.date().isoformat()
    store = Store(data_dir)
    ctx = RefreshContext(
        transport=transport or HttpxTransport(),
        urls={**DEFAULT_URLS, "skypilot": base_url, **known_urls(urls or {})},
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


def _run(
    store: Store,
    root: Path,
    name: str,
    feeds: dict[str, Feed],
    chosen: list[str],
    accepted: set[str],
    ctx: RefreshContext,
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
        if result is not None and outcome.status in REPLACED:
            fresh[provider] = result
        ctx.say(outcome_line(outcome))
    doc = _build(market, staged_feeds, fresh, outcomes, stamp, ctx.say)
    (staged / "catalog.json").write_text(canonical_json(doc), encoding="utf-8", newline="")
    previous = state.get("providers", {}) if isinstance(state.get("providers"), dict) else {}
    status = refresh_state(name, moment, doc, feeds, outcomes, previous)
    (staged / "state.json").write_text(json_text(status), encoding="utf-8")
    out_file = check_output_target(Path(output)) if output is not None else None  # a link's file
    out_tmp = _stage_output(out_file, canonical_json(doc)) if out_file is not None else None
    try:
        generation = store.commit(staged, name)
        if out_file is not None and out_tmp is not None:
            _replace_keeping_previous(out_tmp, out_file)
    finally:
        if out_tmp is not None:
            out_tmp.unlink(missing_ok=True)
    ctx.say(f"committed {generation} (sha256 {doc['sha256'][:12]}, {len(doc['offers'])} offers)")
    replaced = [p for p in chosen if outcomes[p].status in REPLACED]
    return RefreshResult(
        providers=tuple(replaced),
        rows={p: outcomes[p].rows_after for p in replaced},
        outcomes=tuple(outcomes[p] for p in chosen),
        catalog_path=Path(output) if output is not None else store.catalog_path,
        generation=generation,
        sha256=doc["sha256"],
        cleaned=cleaned,
    )


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
    provider: str, feed: Feed, market: Path, ctx: RefreshContext, accepted: bool
) -> tuple[ProviderOutcome, FeedResult | None]:
    full = read_csv(market / feed.raw_file)
    parts = ctx.overrides.get(provider, feed.parts)
    if len(parts) > 1:
        return refresh_parts(provider, feed, parts, market, ctx, accepted, full)
    return fetch_part(provider, feed, parts[0], market, ctx, accepted, full, whole=True)


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
                outcomes[provider] = kept_outcome(
                    provider, old.rows_before, (refusal,), old.feed_rows, old.unmapped, old.source
                )
                say(outcome_line(outcomes[provider]))
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


def _write_csv(path: Path, rows: list[Row], *, columns: Iterable[str] | None = None) -> None:
    names = list(columns) if columns is not None else list(rows[0]) if rows else []
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8", newline="")


def _stage_output(target: Path, text: str) -> Path:
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
