"""``computeops catalog refresh`` and ``status``: live price feeds into the user data directory."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._parser import HelpFormatter
from ._text import EXIT_INVALID, EXIT_OK, catalog_header, error, rich_console, rich_table


def register(sub: Any) -> None:
    """Add ``catalog refresh`` and ``catalog status``."""
    _register_refresh(sub)
    _register_status(sub)


def _register_refresh(sub: Any) -> None:
    p = sub.add_parser(
        "refresh",
        help="download public price feeds into a new catalog in the user data directory",
        description=(
            "Fetch the feeds marked refreshable in data/market/feeds.csv, check each provider's\n"
            "rows against its last good data, and commit a new catalog generation in the user data\n"
            "directory ($COMPUTEOPS_DATA_DIR, else $XDG_DATA_HOME/computeops, else\n"
            "~/.local/share/computeops) in one atomic switch. A provider whose feed fails or looks wrong\n"
            "(rows fall by more than half, a price <= 0 or not finite, spot above on-demand, many prices\n"
            "moving > 3x, values outside physical ranges) keeps its last good data; the others update.\n"
            "The package's own files and the source folder are never written. Decisions use the\n"
            "refreshed catalog only when pointed at it (--catalog FILE or COMPUTEOPS_CATALOG).\n"
            "Progress goes to stderr.\n"
            "Exit codes: 0 every provider updated, 4 at least one refused (the others were committed),\n"
            "2 nothing committed (bad arguments, another refresh running, disk full)."
        ),
        epilog="examples:\n  computeops catalog refresh\n  computeops catalog refresh --provider lambda\n"
        "  computeops catalog refresh --accept nebius   # after reviewing a refusal\n"
        "  computeops decide job.yaml --catalog ~/.local/share/computeops/current/catalog.json",
        formatter_class=HelpFormatter,
    )
    p.add_argument("--provider", action="append", metavar="P", help="refresh only this provider (repeatable)")
    p.add_argument(
        "--accept",
        action="append",
        default=[],
        metavar="P",
        help="take this provider's feed even if a sanity check refuses it (after review; repeatable)",
    )
    p.add_argument(
        "--source", metavar="DIR", default="data/market", help="market-data folder. Default: data/market"
    )
    p.add_argument("--data-dir", metavar="DIR", help="user data directory. Default: see above")
    p.add_argument(
        "--output", metavar="FILE", help="also write the catalog here (atomically; keeps FILE.previous)"
    )
    p.add_argument(
        "--base-url",
        metavar="URL",
        help="SkyPilot feed base URL. Default: skypilot-catalog on GitHub (master)",
    )
    p.add_argument(
        "--feed",
        action="append",
        default=[],
        metavar="P=NAME",
        help="use this feed adapter for provider P (skypilot, gpuhunt, lambda-api, azure-retail, aws-bulk, "
        "...), or split P's price models between feeds ('on_demand+reserved:aws-bulk;spot:gpuhunt'); "
        "repeatable. Default: data/market/feeds.csv's (aws: on-demand and reserved from aws-bulk, spot "
        "from gpuhunt; others: the first whose API key is set)",
    )
    p.add_argument(
        "--feed-url",
        action="append",
        default=[],
        metavar="NAME=URL",
        help="base URL of a feed adapter (a mirror, a local server); repeatable",
    )
    p.add_argument("--json", action="store_true", help="print the refresh report as JSON on stdout")
    p.set_defaults(handler=_cmd_refresh)


def _register_status(sub: Any) -> None:
    p = sub.add_parser(
        "status",
        help="per provider: price source, last refresh, age tier, rows, refusals",
        description=(
            "Where each provider's prices come from and how old they are: fresh (<= 24 h), aging\n"
            "(<= 7 days) or stale, with the rows in use and the last refresh's refusals. Reads the\n"
            "refreshed catalog in the user data directory, or the embedded one before any refresh."
        ),
        epilog="examples:\n  computeops catalog status\n  computeops catalog status --json",
        formatter_class=HelpFormatter,
    )
    p.add_argument("--data-dir", metavar="DIR", help="user data directory. Default: as for refresh")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=_cmd_status)


_EXIT_REFUSED = 4


def _pairs(values: list[str], flag: str, shape: str, example: str) -> dict[str, str] | int:
    out = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key or not rest:
            return error(f"{flag} {value[:80]!r} is not {shape}. To fix: e.g. {flag} {example}")
        out[key] = rest
    return out


def _cmd_refresh(args: argparse.Namespace) -> int:
    from ...catalog._refresh import DEFAULT_BASE_URL, refresh_catalog

    feeds = _pairs(args.feed, "--feed", "P=NAME", "lambda=skypilot")
    urls = _pairs(args.feed_url, "--feed-url", "NAME=URL", "gpuhunt=http://127.0.0.1:8000/v2")
    if isinstance(feeds, int) or isinstance(urls, int):
        return EXIT_INVALID
    result = refresh_catalog(
        args.source,
        providers=args.provider,
        accept=args.accept,
        data_dir=args.data_dir,
        base_url=args.base_url or DEFAULT_BASE_URL,
        output=args.output,
        feeds=feeds,
        urls=urls,
        progress=lambda line: print(line, file=sys.stderr),
    )
    if args.json:
        doc = {
            "catalog": str(result.catalog_path),
            "generation": str(result.generation),
            "sha256": result.sha256,
            "providers": [o.as_json() for o in result.outcomes],
        }
        print(json.dumps(doc, indent=2, sort_keys=True))
    else:
        for o in result.outcomes:
            _print_outcome(o)
        print(f"wrote {result.catalog_path} (sha256 {result.sha256})")
        print(f"use it with: --catalog {result.catalog_path}  or  COMPUTEOPS_CATALOG={result.catalog_path}")
    if result.refused:
        names = ", ".join(sorted(result.refused))
        print(
            f"note: refused {names}{_partly(result.outcomes)}; they keep their last good data. "
            "To fix: review the numbers above; "
            f"if the feed is right, run again with --accept {sorted(result.refused)[0]}.",
            file=sys.stderr,
        )
        return _EXIT_REFUSED
    return EXIT_OK


def _partly(outcomes: Any) -> str:
    """`` (aws in part: its other feeds updated)`` for providers refused in part, else ""."""
    partial = [o.provider for o in outcomes if o.status == "partial"]
    return f" ({', '.join(partial)} in part: its other feeds updated)" if partial else ""


def _print_outcome(o: Any, indent: str = "") -> None:
    """One provider's (or one feed part's) lines of the refresh report."""
    name = "+".join(o.models) if o.models else o.provider
    if o.parts:
        state = {"partial": "partly updated"}.get(o.status, o.status)
        print(f"{indent}{name}: {state}, {o.rows_before} -> {o.rows_after} rows, from {len(o.parts)} feeds")
        for part in o.parts:
            _print_outcome(part, indent + "  ")
        for note in o.notes:
            print(f"{indent}  {note}")
        for u in o.unmapped:
            if u.reason.endswith("(dropped)"):
                print(f"{indent}  not mapped: {u.count} rows, {u.reason} (e.g. {', '.join(u.examples)})")
        return
    if o.status == "skipped":
        print(f"{indent}{name}: skipped, kept its data ({o.rows_before} rows): no API key")
        for r in o.refusals:
            print(f"{indent}  {r.detail}")
    elif o.status == "refused":
        print(f"{indent}{name}: refused, kept its last good data ({o.rows_before} rows)")
        for r in o.refusals:
            print(f"{indent}  {r.check}: {r.detail}")
    else:
        print(f"{indent}{name}: {o.status}, {o.rows_before} -> {o.rows_after} rows ({o.source})")
        for r in o.refusals:
            print(f"{indent}  accepted despite {r.check}: {r.detail}")
    for u in o.unmapped:
        print(f"{indent}  not mapped: {u.count} rows, {u.reason} (e.g. {', '.join(u.examples)})")


def _cmd_status(args: argparse.Namespace) -> int:
    from ...catalog._status import catalog_status

    path, catalog, statuses = catalog_status(data_dir=args.data_dir)
    where = str(path) if path is not None else "embedded catalog (no refresh yet)"
    if args.json:
        doc = {"catalog": where, **catalog_header(catalog), "providers": [s.as_json() for s in statuses]}
        print(json.dumps(doc, indent=2, sort_keys=True))
        return EXIT_OK
    table = rich_table(f"catalog {where} (as_of {catalog.as_of})", "provider", "how kept", "as_of",
                   "last refresh", "age", "tier", "offers", "rows", "refusals")  # fmt: skip
    for s in statuses:
        refusals = "; ".join(f"{r.get('check')}: {r.get('detail')}" for r in s.refusals) or "-"
        kind = f"{s.kind}; {s.key_note()}" if s.keys else s.kind
        kind = "\n".join([kind, *s.source_lines(), *_part_lines(s.parts)])
        table.add_row(s.provider, kind, s.as_of, s.last_refresh or "never", f"{s.age_hours:,.0f} h", s.tier,
                      str(s.offers), "-" if s.rows is None else str(s.rows), refusals)  # fmt: skip
    rich_console().print(table)
    return EXIT_OK


def _part_lines(parts: Any) -> list[str]:
    """A split provider's parts in `catalog status`: when each last refreshed, and its tier."""
    return [
        f"{'+'.join(p['models'])}: {p.get('status', '-')}, refreshed {p.get('refreshed_at') or 'never'} "
        f"({p['age_hours']:,.0f} h, {p['tier']})"
        for p in parts
    ]
