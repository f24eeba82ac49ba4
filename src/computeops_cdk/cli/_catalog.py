"""``computeops catalog``: list, show, accelerators, validate, build and refresh the market catalog."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from datetime import date
from typing import Any

from ..catalog import HOURS_PER_MONTH, PROVIDER_IDS, Catalog, InstanceType, Offer, load_catalog
from ..errors import did_you_mean, did_you_mean_text

__all__ = ["register"]

_EXIT_OK = 0
_EXIT_INVALID = 2
_FORMATTER = argparse.RawDescriptionHelpFormatter


def register(commands: Any) -> None:
    """Add ``catalog`` and its subcommands to the top-level parser."""
    parser = commands.add_parser(
        "catalog",
        help="inspect, validate, build or refresh the market catalog",
        description=(
            "The market catalog: providers, regions, accelerators, instance types and priced offers.\n"
            "It is embedded in the package (built from data/market); every price carries its source\n"
            "and the date it was read."
        ),
        epilog="examples:\n  computeops catalog list --provider lambda --accelerator H100\n"
        "  computeops catalog show p5.48xlarge\n  computeops catalog accelerators",
        formatter_class=_FORMATTER,
    )
    sub = parser.add_subparsers(dest="catalog_command", metavar="SUBCOMMAND", required=True)
    _register_list(sub)
    _register_show(sub)
    _register_accelerators(sub)
    _register_validate(sub)
    _register_build(sub)
    _register_refresh(sub)
    _register_status(sub)


def _catalog_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--catalog",
        metavar="FILE",
        help="read this catalog JSON instead of the embedded one (it is validated first)",
    )


def _register_list(sub: Any) -> None:
    p = sub.add_parser(
        "list",
        help="list offers (instance type x region x price model)",
        description="List priced offers, optionally filtered and sorted. Prices are USD per instance-hour.\n"
        f"The table shows the first {TABLE_LIMIT} by default (--limit 0 for all); json and csv list all.",
        epilog="examples:\n  computeops catalog list --provider aws --accelerator H100\n"
        "  computeops catalog list --accelerator H100 --sort price --limit 10\n"
        "  computeops catalog list --accelerator tpu-v5e --pricing spot --format json\n"
        "  computeops catalog list --format csv > offers.csv",
        formatter_class=_FORMATTER,
    )
    p.add_argument("--provider", metavar="P", help=f"only this provider ({', '.join(PROVIDER_IDS)})")
    p.add_argument(
        "--accelerator", metavar="A", help="only this accelerator (catalog id or alias, e.g. H100)"
    )
    p.add_argument("--region", metavar="R", help="only this region code (e.g. us-east-1)")
    p.add_argument("--pricing", choices=("on_demand", "spot", "reserved"), help="only this price model")
    p.add_argument(
        "--sort",
        choices=tuple(SORT_KEYS),
        default="catalog",
        help="order: catalog (provider, instance type, region, as built), price (cheapest first, unpriced "
        "last), provider, accelerator, region or instance_type (default: catalog)",
    )
    p.add_argument(
        "--limit",
        type=_limit,
        default=None,
        metavar="N",
        help=f"list at most N offers, 0 for all (default: {TABLE_LIMIT} for the table, all for json and csv)",
    )
    p.add_argument(
        "--format",
        choices=("table", "json", "csv"),
        default=None,
        help="table, json (the documented contract) or csv (default: table)",
    )
    p.add_argument("--json", action="store_true", help="same as --format json")
    _catalog_option(p)
    p.set_defaults(handler=_cmd_list)


def _register_show(sub: Any) -> None:
    p = sub.add_parser(
        "show",
        help="one instance type: specs and every offer",
        description="Show an instance type's accelerator specs and all its offers with price age.",
        epilog="examples:\n  computeops catalog show gpu_8x_h100_sxm5\n"
        "  computeops catalog show tpu-v5p-8 --json",
        formatter_class=_FORMATTER,
    )
    p.add_argument("instance_type", metavar="INSTANCE_TYPE", help="instance type name (case-insensitive)")
    p.add_argument("--provider", metavar="P", help="when several providers use the same name")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    _catalog_option(p)
    p.set_defaults(handler=_cmd_show)


def _register_accelerators(sub: Any) -> None:
    p = sub.add_parser(
        "accelerators",
        help="canonical accelerator ids, specs and aliases",
        description="Accelerators with their published specs (empty where no source states the number).",
        epilog="example:\n  computeops catalog accelerators --json",
        formatter_class=_FORMATTER,
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    _catalog_option(p)
    p.set_defaults(handler=_cmd_accelerators)


def _register_validate(sub: Any) -> None:
    p = sub.add_parser(
        "validate",
        help="check a catalog file (schema, references, sha256)",
        description="Validate a catalog JSON file. Exit 0 when valid, 2 with the JSON path of the problem.",
        epilog="examples:\n  computeops catalog validate\n  computeops catalog validate my-catalog.json",
        formatter_class=_FORMATTER,
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="catalog file. Default: the embedded catalog")
    p.set_defaults(handler=_cmd_validate)


def _register_build(sub: Any) -> None:
    p = sub.add_parser(
        "build",
        help="rebuild the catalog JSON from a market-data folder",
        description=(
            "Build the catalog deterministically from CSV market data (same input, same bytes).\n"
            "The market data lives in the repository (data/market), not in the installed package."
        ),
        epilog="examples:\n  computeops catalog build\n"
        "  computeops catalog build --source data/market --output /tmp/catalog.json",
        formatter_class=_FORMATTER,
    )
    p.add_argument(
        "--source", metavar="DIR", default="data/market", help="market-data folder. Default: data/market"
    )
    p.add_argument(
        "--output",
        metavar="FILE",
        help="where to write. Default: catalog.json in the user data directory ($COMPUTEOPS_DATA_DIR, "
        "else $XDG_DATA_HOME/computeops, else ~/.local/share/computeops); never the installed package",
    )
    p.set_defaults(handler=_cmd_build)


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
        formatter_class=_FORMATTER,
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
        formatter_class=_FORMATTER,
    )
    p.add_argument("--data-dir", metavar="DIR", help="user data directory. Default: as for refresh")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=_cmd_status)


# -- handlers ---------------------------------------------------------------------------------------


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return _EXIT_INVALID


_WHERE = {
    "provider": f"one of {', '.join(PROVIDER_IDS)}",
    "accelerator": "an id or alias from `computeops catalog accelerators`",
    "instance type": "a name from `computeops catalog list`",
    "region": "a region code from `computeops catalog list --json` (e.g. us-east-1)",
}


def _unknown(kind: str, name: str, choices: list[str]) -> int:
    hint = did_you_mean_text(did_you_mean(name, choices))
    return _error(f"unknown {kind} {name!r}{hint}. To fix: use {_WHERE[kind]}.")


TABLE_LIMIT = 50
"""Rows ``catalog list`` prints as a table unless ``--limit`` says otherwise (rich renders 4,000 rows
in seconds, and nobody reads them on a terminal: sort and filter instead)."""

SORT_KEYS: dict[str, Any] = {
    "catalog": None,
    "price": lambda o: (o.hourly_usd is None, o.hourly_usd or 0.0, o.provider, o.instance_type, o.region),
    "provider": lambda o: (o.provider, o.instance_type, o.region, o.pricing),
    "accelerator": None,  # needs the instance type: see _sorted
    "region": lambda o: (o.region.lower(), o.provider, o.instance_type, o.pricing),
    "instance_type": lambda o: (o.instance_type.lower(), o.provider, o.region, o.pricing),
}

CSV_COLUMNS = ("provider", "instance_type", "accelerator", "accelerator_count", "region", "pricing",
               "hourly_usd", "source", "as_of", "term_months", "upfront")  # fmt: skip
"""``catalog list --format csv`` columns: the JSON offer fields, in that order (empty = unknown;
``term_months`` and ``upfront`` are empty unless the offer is reserved: two reservations of one
offer differ only by their term)."""


def _limit(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--limit must be a whole number (got {value!r})") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"--limit must be >= 0, 0 for all (got {number})")
    return number


def _sorted(catalog: Catalog, offers: list[Offer], key: str) -> list[Offer]:
    if key == "accelerator":
        return sorted(
            offers, key=lambda o: (_itype(catalog, o).accelerator, o.provider, o.instance_type, o.region)
        )
    by = SORT_KEYS[key]
    return offers if by is None else sorted(offers, key=by)


def _cmd_list(args: argparse.Namespace) -> int:
    output = "json" if args.json else (args.format or "table")
    if args.json and args.format not in (None, "json"):
        return _error(f"--json and --format {args.format} disagree. To fix: give one of them.")
    catalog = load_catalog(args.catalog)
    offers = list(catalog.offers)
    if args.provider:
        if catalog.find_provider(args.provider) is None:
            return _unknown("provider", args.provider, list(PROVIDER_IDS))
        offers = [o for o in offers if o.provider == args.provider.lower()]
    if args.accelerator:
        acc = catalog.find_accelerator(args.accelerator)
        if acc is None:
            return _unknown("accelerator", args.accelerator, catalog.accelerator_names())
        offers = [o for o in offers if _itype(catalog, o).accelerator == acc.id]
    if args.region:
        codes = sorted({r.code for r in catalog.regions})
        if args.region.lower() not in {c.lower() for c in codes}:
            return _unknown("region", args.region, codes)
        offers = [o for o in offers if o.region.lower() == args.region.lower()]
    if args.pricing:
        offers = [o for o in offers if o.pricing == args.pricing]
    if not offers:
        _say_why_empty(args)
    matched = len(offers)
    offers = _sorted(catalog, offers, args.sort)
    limit = args.limit if args.limit is not None else (TABLE_LIMIT if output == "table" else 0)
    if limit and matched > limit:
        offers = offers[:limit]
        print(
            f"note: showing {limit} of {matched:,} offers (--sort {args.sort}). To see more: --limit N, "
            "--limit 0 for all, or filter with --provider/--accelerator/--region/--pricing.",
            file=sys.stderr,
        )
    if output == "json":
        doc = {"catalog": _catalog_header(catalog), "offers": [_offer_json(catalog, o) for o in offers]}
        print(json.dumps(doc, indent=2, sort_keys=True))
        return _EXIT_OK
    if output == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for o in offers:
            row = _offer_json(catalog, o)
            writer.writerow({k: "" if row.get(k) is None else row[k] for k in CSV_COLUMNS})
        return _EXIT_OK
    shown = f"{len(offers)} of {matched:,}" if len(offers) < matched else f"{matched}"
    _print_offers(catalog, offers, title=f"{shown} offers (catalog {catalog.version}, as_of {catalog.as_of})")
    return _EXIT_OK


def _say_why_empty(args: argparse.Namespace) -> None:
    """Stderr note for an empty listing: each filter is valid, their combination matches nothing."""
    given = [(flag, getattr(args, flag)) for flag in ("provider", "accelerator", "region", "pricing")]
    given = [(flag, value) for flag, value in given if value]
    text = " ".join(f"--{flag} {value}" for flag, value in given)
    if len(given) > 1:
        print(
            f"note: no offer matches {text} together. To fix: drop one filter to see what each offers "
            f"(e.g. `computeops catalog list --{given[-1][0]} {given[-1][1]}`).",
            file=sys.stderr,
        )
    else:
        print(
            "note: the catalog has no offers." if not given else f"note: no offer matches {text}.",
            file=sys.stderr,
        )


def _cmd_show(args: argparse.Namespace) -> int:
    catalog = load_catalog(args.catalog)
    provider = args.provider.lower() if args.provider else None
    if provider is not None and catalog.find_provider(provider) is None:
        return _unknown("provider", args.provider, list(PROVIDER_IDS))
    found = catalog.find_instance_type(args.instance_type, provider)
    if not found:
        elsewhere = sorted({t.provider for t in catalog.find_instance_type(args.instance_type)})
        if elsewhere:  # the name exists, just not at --provider: say where it is
            return _error(
                f"{provider} has no instance type {args.instance_type!r}; {', '.join(elsewhere)} "
                f"{'has' if len(elsewhere) == 1 else 'have'} one. To fix: use --provider {elsewhere[0]} "
                "or leave --provider out."
            )
        return _unknown("instance type", args.instance_type, sorted({t.name for t in catalog.instance_types}))
    if args.json:
        docs = [_show_json(catalog, t) for t in found]
        print(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2, sort_keys=True))
        return _EXIT_OK
    for itype in found:
        _print_instance_type(catalog, itype)
    return _EXIT_OK


def _cmd_accelerators(args: argparse.Namespace) -> int:
    catalog = load_catalog(args.catalog)
    if args.json:
        from dataclasses import asdict

        print(json.dumps([asdict(a) for a in catalog.accelerators], indent=2, sort_keys=True))
        return _EXIT_OK
    table = _table(f"{len(catalog.accelerators)} accelerators", "id", "vendor", "memory GB", "BW GB/s",
                   "BF16 TF", "FP8 TF", "FP4 TF", "aliases")  # fmt: skip
    for a in catalog.accelerators:
        nums = (a.memory_gb, a.memory_bw_gbps, a.bf16_tflops, a.fp8_tflops, a.fp4_tflops)
        table.add_row(a.id, a.vendor, *(_num(n) for n in nums), ", ".join(a.aliases))
    _console().print(table)
    return _EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    catalog = load_catalog(args.file, validate=True)
    where = args.file or "embedded catalog"
    print(f"valid: {where} (version {catalog.version}, as_of {catalog.as_of}, sha256 {catalog.sha256})")
    print(f"  {len(catalog.providers)} providers, {len(catalog.instance_types)} instance types, "
          f"{len(catalog.offers)} offers")  # fmt: skip
    return _EXIT_OK


def _cmd_build(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..catalog._build import build_catalog, write_catalog
    from ..catalog._store import data_dir

    if not (Path(args.source) / "meta.csv").is_file():
        return _error(
            f"{args.source!r} is not a market-data folder (no meta.csv). The installed package carries "
            "only the built catalog. To fix: run from a checkout of computeops-cdk (its data/market "
            "folder) or pass --source DIR."
        )
    doc = build_catalog(args.source)
    path = write_catalog(doc, args.output or data_dir() / "catalog.json")
    print(f"wrote {path}: version {doc['version']}, as_of {doc['as_of']}, sha256 {doc['sha256']}")
    print(f"  {len(doc['instance_types'])} instance types, {len(doc['offers'])} offers")
    return _EXIT_OK


_EXIT_REFUSED = 4


def _pairs(values: list[str], flag: str, shape: str, example: str) -> dict[str, str] | int:
    out = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key or not rest:
            return _error(f"{flag} {value[:80]!r} is not {shape}. To fix: e.g. {flag} {example}")
        out[key] = rest
    return out


def _cmd_refresh(args: argparse.Namespace) -> int:
    from ..catalog._refresh import DEFAULT_BASE_URL, refresh_catalog

    feeds = _pairs(args.feed, "--feed", "P=NAME", "lambda=skypilot")
    urls = _pairs(args.feed_url, "--feed-url", "NAME=URL", "gpuhunt=http://127.0.0.1:8000/v2")
    if isinstance(feeds, int) or isinstance(urls, int):
        return _EXIT_INVALID
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
    return _EXIT_OK


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
    from ..catalog._status import catalog_status

    path, catalog, statuses = catalog_status(data_dir=args.data_dir)
    where = str(path) if path is not None else "embedded catalog (no refresh yet)"
    if args.json:
        doc = {"catalog": where, **_catalog_header(catalog), "providers": [s.as_json() for s in statuses]}
        print(json.dumps(doc, indent=2, sort_keys=True))
        return _EXIT_OK
    table = _table(f"catalog {where} (as_of {catalog.as_of})", "provider", "how kept", "as_of",
                   "last refresh", "age", "tier", "offers", "rows", "refusals")  # fmt: skip
    for s in statuses:
        refusals = "; ".join(f"{r.get('check')}: {r.get('detail')}" for r in s.refusals) or "-"
        kind = f"{s.kind}; {s.key_note()}" if s.keys else s.kind
        kind = "\n".join([kind, *s.source_lines(), *_part_lines(s.parts)])
        table.add_row(s.provider, kind, s.as_of, s.last_refresh or "never", f"{s.age_hours:,.0f} h", s.tier,
                      str(s.offers), "-" if s.rows is None else str(s.rows), refusals)  # fmt: skip
    _console().print(table)
    return _EXIT_OK


def _part_lines(parts: Any) -> list[str]:
    """A split provider's parts in `catalog status`: when each last refreshed, and its tier."""
    return [
        f"{'+'.join(p['models'])}: {p.get('status', '-')}, refreshed {p.get('refreshed_at') or 'never'} "
        f"({p['age_hours']:,.0f} h, {p['tier']})"
        for p in parts
    ]


# -- rendering --------------------------------------------------------------------------------------


def _itype(catalog: Catalog, offer: Offer) -> InstanceType:
    return catalog.instance_type(offer.provider, offer.instance_type)


def _catalog_header(catalog: Catalog) -> dict[str, str]:
    return {"version": catalog.version, "as_of": catalog.as_of, "sha256": catalog.sha256}


def _offer_json(catalog: Catalog, offer: Offer) -> dict[str, Any]:
    itype = _itype(catalog, offer)
    return {
        "provider": offer.provider,
        "instance_type": offer.instance_type,
        "accelerator": itype.accelerator,
        "accelerator_count": itype.accelerator_count,
        "region": offer.region,
        "pricing": offer.pricing,
        "hourly_usd": offer.hourly_usd,
        "source": offer.source,
        "as_of": offer.as_of,
        **({"term_months": offer.term_months, "upfront": offer.upfront} if offer.term_months else {}),
    }


def _model(offer: Offer) -> str:
    """The price model, with a reservation's term ("reserved 12 mo")."""
    return offer.pricing if offer.term_months is None else f"{offer.pricing} {offer.term_months} mo"


def _show_json(catalog: Catalog, itype: InstanceType) -> dict[str, Any]:
    from dataclasses import asdict

    return {
        "catalog": _catalog_header(catalog),
        "instance_type": asdict(itype),
        "accelerator": asdict(catalog.accelerator(itype.accelerator)),
        "offers": [_offer_json(catalog, o) for o in catalog.offers_of(itype.provider, itype.name)],
        "attestations": [asdict(a) for a in catalog.provider(itype.provider).attestations],
    }


def age(as_of: str, today: date | None = None) -> str:
    """``"2026-11-29 (1 day old)"``: the date a price was read and how old it is."""
    days = ((today or date.today()) - date.fromisoformat(as_of)).days
    return f"{as_of} ({days} day{'' if days == 1 else 's'} old)"


def _hourly(offer: Offer) -> str:
    # A missing price is shown as such, never as 0 (the engine rejects it as price.unknown).
    return "unknown" if offer.hourly_usd is None else f"{offer.hourly_usd:,.4f}"


def _num(value: float | None, fmt: str = "{:g}") -> str:
    return "" if value is None else fmt.format(value)


def _console() -> Any:
    from rich.console import Console

    # Not a terminal (pipes, tests): a wide fixed width so rows are never truncated.
    return Console(width=None if sys.stdout.isatty() else 240, highlight=False)


def _table(title: str, *columns: str) -> Any:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, overflow="fold")
    return table


def _print_offers(catalog: Catalog, offers: list[Offer], *, title: str) -> None:
    table = _table(title, "provider", "instance type", "accelerator", "region", "pricing", "USD/h", "as_of")
    for o in offers:
        itype = _itype(catalog, o)
        accel = f"{itype.accelerator} x{itype.accelerator_count}"
        table.add_row(o.provider, o.instance_type, accel, o.region, _model(o), _hourly(o), age(o.as_of))
    _console().print(table)


def _print_instance_type(catalog: Catalog, itype: InstanceType) -> None:
    acc = catalog.accelerator(itype.accelerator)
    console = _console()
    console.print(
        f"[bold]{itype.provider} {itype.name}[/bold]: {itype.accelerator_count} x {acc.id}", markup=True
    )
    specs = {
        "accelerator": f"{acc.vendor} {acc.id} ({acc.architecture}, {acc.form_factor or 'form factor n/a'})",
        "memory per accelerator": _num(acc.memory_gb, "{:g} GB") or "not sourced (cannot size on it)",
        "memory bandwidth": _num(acc.memory_bw_gbps, "{:g} GB/s") or "not sourced",
        "dense BF16/FP8/FP4": " / ".join(
            _num(x, "{:g}") or "-" for x in (acc.bf16_tflops, acc.fp8_tflops, acc.fp4_tflops)
        )
        + " TFLOPs",
        "vCPUs / RAM": f"{_num(itype.vcpus) or '-'} / {_num(itype.ram_gb, '{:g} GB') or '-'}",
        "multi-node fabric": itype.interconnect
        if itype.multi_node
        else f"none ({itype.interconnect or 'single node'})",
        "source": itype.source,
    }
    if itype.notes:
        specs["notes"] = itype.notes
    for key, value in specs.items():
        console.print(f"  {key}: {value}", markup=False)
    offers = catalog.offers_of(itype.provider, itype.name)
    table = _table(
        f"{len(offers)} offers", "region", "country", "pricing", "USD/h", "USD/month", "as_of", "source"
    )
    for o in offers:
        region = catalog.find_region(o.provider, o.region)
        country = (region.country or "?") if region else "?"
        monthly = "" if o.hourly_usd is None else f"{o.hourly_usd * HOURS_PER_MONTH:,.0f}"
        table.add_row(o.region, country, _model(o), _hourly(o), monthly, age(o.as_of), o.source)
    console.print(table)
    _print_attestations(catalog, itype.provider)


def _print_attestations(catalog: Catalog, provider_id: str) -> None:
    """The provider's compliance attestations with their evidence grade, regional scope and source:
    only provider_claimed evidence satisfies a hard compliance constraint."""
    provider = catalog.provider(provider_id)
    table = _table(
        f"{provider_id} attestations ({len(provider.attestations)}; only provider_claimed satisfies a "
        "constraint)",
        "scope", "evidence", "regions", "source", "note",
    )  # fmt: skip
    for a in provider.attestations:
        regions = "all" if a.regions is None else ", ".join(a.regions)
        table.add_row(a.scope, a.evidence, regions, a.source, a.note)
    _console().print(table)
    scoped = [a for a in provider.attestations if a.services is not None]
    if not scoped:
        return
    services = _table(
        f"{provider_id} service scope (authorised service by service: a placement satisfies the "
        "attestation only if every service it runs on is in_scope)",
        "scope", "service", "name", "status", "read", "requires", "source", "note",
    )  # fmt: skip
    for a in scoped:
        for entry in a.services or ():
            # requires: what the user must set up for the authorisation to hold (the stack does not)
            services.add_row(
                a.scope, entry.service, entry.name, entry.status, entry.read, entry.requires or "-",
                entry.source, entry.note,
            )  # fmt: skip
    _console().print(services)
