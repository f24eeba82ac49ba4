"""``computeops catalog``: list, show, accelerators, validate, build and refresh the market catalog.

One module per concern: ``_list`` and ``_show`` read the catalog, ``_files`` checks and builds catalog
files, ``_refresh`` fetches live price feeds; ``_text`` is what they share.
"""

from __future__ import annotations

from typing import Any

from .._parser import HelpFormatter
from . import _files, _list, _refresh, _show

__all__ = ["register"]


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
        formatter_class=HelpFormatter,
    )
    sub = parser.add_subparsers(dest="catalog_command", metavar="SUBCOMMAND", required=True)
    for module in (_list, _show, _files, _refresh):
        module.register(sub)
