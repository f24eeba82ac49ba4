"""``computeops catalog list``: the priced offers, filtered, sorted and limited, as a table, JSON or CSV."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import Any

from ...catalog import PROVIDER_IDS, Catalog, Offer, load_catalog
from .._parser import HelpFormatter
from ._text import (
    EXIT_OK,
    age,
    catalog_header,
    catalog_option,
    error,
    hourly,
    instance_type_of,
    offer_json,
    price_model,
    rich_console,
    rich_table,
    unknown,
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "list",
        help="list offers (instance type x region x price model)",
        description="List priced offers, optionally filtered and sorted. Prices are USD per instance-hour.\n"
        f"The table shows the first {TABLE_LIMIT} by default (--limit 0 for all); json and csv list all.",
        epilog="examples:\n  computeops catalog list --provider aws --accelerator H100\n"
        "  computeops catalog list --accelerator H100 --sort price --limit 10\n"
        "  computeops catalog list --accelerator tpu-v5e --pricing spot --format json\n"
        "  computeops catalog list --format csv > offers.csv",
        formatter_class=HelpFormatter,
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
    catalog_option(p)
    p.set_defaults(handler=_cmd_list)


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
            offers,
            key=lambda o: (instance_type_of(catalog, o).accelerator, o.provider, o.instance_type, o.region),
        )
    by = SORT_KEYS[key]
    return offers if by is None else sorted(offers, key=by)


def _cmd_list(args: argparse.Namespace) -> int:
    output = "json" if args.json else (args.format or "table")
    if args.json and args.format not in (None, "json"):
        return error(f"--json and --format {args.format} disagree. To fix: give one of them.")
    catalog = load_catalog(args.catalog)
    offers = list(catalog.offers)
    if args.provider:
        if catalog.find_provider(args.provider) is None:
            return unknown("provider", args.provider, list(PROVIDER_IDS))
        offers = [o for o in offers if o.provider == args.provider.lower()]
    if args.accelerator:
        acc = catalog.find_accelerator(args.accelerator)
        if acc is None:
            return unknown("accelerator", args.accelerator, catalog.accelerator_names())
        offers = [o for o in offers if instance_type_of(catalog, o).accelerator == acc.id]
    if args.region:
        codes = sorted({r.code for r in catalog.regions})
        if args.region.lower() not in {c.lower() for c in codes}:
            return unknown("region", args.region, codes)
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
        doc = {"catalog": catalog_header(catalog), "offers": [offer_json(catalog, o) for o in offers]}
        print(json.dumps(doc, indent=2, sort_keys=True))
        return EXIT_OK
    if output == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for o in offers:
            row = offer_json(catalog, o)
            writer.writerow({k: "" if row.get(k) is None else row[k] for k in CSV_COLUMNS})
        return EXIT_OK
    shown = f"{len(offers)} of {matched:,}" if len(offers) < matched else f"{matched}"
    _print_offers(catalog, offers, title=f"{shown} offers (catalog {catalog.version}, as_of {catalog.as_of})")
    return EXIT_OK


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


def _print_offers(catalog: Catalog, offers: list[Offer], *, title: str) -> None:
    table = rich_table(
        title, "provider", "instance type", "accelerator", "region", "pricing", "USD/h", "as_of"
    )
    for o in offers:
        itype = instance_type_of(catalog, o)
        accel = f"{itype.accelerator} x{itype.accelerator_count}"
        table.add_row(o.provider, o.instance_type, accel, o.region, price_model(o), hourly(o), age(o.as_of))
    rich_console().print(table)
