"""What the ``catalog`` subcommands share: errors that name a fix, rich tables, an offer as JSON."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from typing import Any

from ...catalog import PROVIDER_IDS, Catalog, InstanceType, Offer
from ...errors import did_you_mean, did_you_mean_text

EXIT_OK = 0
EXIT_INVALID = 2


def catalog_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--catalog",
        metavar="FILE",
        help="read this catalog JSON instead of the embedded one (it is validated first)",
    )


def error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_INVALID


_WHERE = {
    "provider": f"one of {', '.join(PROVIDER_IDS)}",
    "accelerator": "an id or alias from `computeops catalog accelerators`",
    "instance type": "a name from `computeops catalog list`",
    "region": "a region code from `computeops catalog list --json` (e.g. us-east-1)",
}


def unknown(kind: str, name: str, choices: list[str]) -> int:
    hint = did_you_mean_text(did_you_mean(name, choices))
    return error(f"unknown {kind} {name!r}{hint}. To fix: use {_WHERE[kind]}.")


def instance_type_of(catalog: Catalog, offer: Offer) -> InstanceType:
    return catalog.instance_type(offer.provider, offer.instance_type)


def catalog_header(catalog: Catalog) -> dict[str, str]:
    return {"version": catalog.version, "as_of": catalog.as_of, "sha256": catalog.sha256}


def offer_json(catalog: Catalog, offer: Offer) -> dict[str, Any]:
    itype = instance_type_of(catalog, offer)
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


def price_model(offer: Offer) -> str:
    """The price model, with a reservation's term ("reserved 12 mo")."""
    return offer.pricing if offer.term_months is None else f"{offer.pricing} {offer.term_months} mo"


def age(as_of: str, today: date | None = None) -> str:
    """``"2026-11-29 (1 day old)"``: the date a price was read and how old it is."""
    days = ((today or date.today()) - date.fromisoformat(as_of)).days
    return f"{as_of} ({days} day{'' if days == 1 else 's'} old)"


def hourly(offer: Offer) -> str:
    # A missing price is shown as such, never as 0 (the engine rejects it as price.unknown).
    return "unknown" if offer.hourly_usd is None else f"{offer.hourly_usd:,.4f}"


def num(value: float | None, fmt: str = "{:g}") -> str:
    return "" if value is None else fmt.format(value)


def rich_console() -> Any:
    from rich.console import Console

    # Not a terminal (pipes, tests): a wide fixed width so rows are never truncated.
    return Console(width=None if sys.stdout.isatty() else 240, highlight=False)


def rich_table(title: str, *columns: str) -> Any:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, overflow="fold")
    return table
