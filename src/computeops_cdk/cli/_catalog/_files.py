"""``computeops catalog validate`` and ``build``: check a catalog file, build one from market data."""

from __future__ import annotations

import argparse
from typing import Any

from ...catalog import load_catalog
from .._parser import HelpFormatter
from ._text import EXIT_OK, error


def register(sub: Any) -> None:
    """Add ``catalog validate`` and ``catalog build``."""
    _register_validate(sub)
    _register_build(sub)


def _register_validate(sub: Any) -> None:
    p = sub.add_parser(
        "validate",
        help="check a catalog file (schema, references, sha256)",
        description="Validate a catalog JSON file. Exit 0 when valid, 2 with the JSON path of the problem.",
        epilog="examples:\n  computeops catalog validate\n  computeops catalog validate my-catalog.json",
        formatter_class=HelpFormatter,
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
        formatter_class=HelpFormatter,
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


def _cmd_validate(args: argparse.Namespace) -> int:
    catalog = load_catalog(args.file, validate=True)
    where = args.file or "embedded catalog"
    print(f"valid: {where} (version {catalog.version}, as_of {catalog.as_of}, sha256 {catalog.sha256})")
    print(f"  {len(catalog.providers)} providers, {len(catalog.instance_types)} instance types, "
          f"{len(catalog.offers)} offers")  # fmt: skip
    return EXIT_OK


def _cmd_build(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ...catalog._build import build_catalog, write_catalog
    from ...catalog._store import data_dir

    if not (Path(args.source) / "meta.csv").is_file():
        return error(
            f"{args.source!r} is not a market-data folder (no meta.csv). The installed package carries "
            "only the built catalog. To fix: run from a checkout of computeops-cdk (its data/market "
            "folder) or pass --source DIR."
        )
    doc = build_catalog(args.source)
    path = write_catalog(doc, args.output or data_dir() / "catalog.json")
    print(f"wrote {path}: version {doc['version']}, as_of {doc['as_of']}, sha256 {doc['sha256']}")
    print(f"  {len(doc['instance_types'])} instance types, {len(doc['offers'])} offers")
    return EXIT_OK
