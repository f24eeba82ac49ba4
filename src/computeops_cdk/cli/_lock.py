"""``computeops lock``: list and relock the entries of ``computeops.lock.json`` on purpose.

``lock update`` re-decides entries from the intent and pins they recorded (the same target-aware pin
as the constructs) on the given catalog and writes them, atomically. A synth relocks with
``COMPUTEOPS_RELOCK=1`` instead; both are deliberate, so a fleet never moves by itself.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._version import __version__
from ..accounts import load_accounts
from ..catalog import load_catalog
from ..engine import LockedPlacement, decide
from ..engine._accounts import UNLISTED
from ..engine._resolve import INTENT_UNLISTED
from ..errors import IntentError, LockError, did_you_mean, did_you_mean_text
from ..lockfile import LOCKFILE_NAME, LockEntry, Lockfile, editing, estimate_of
from ..targets import get_target, placement_pin
from ._parser import HelpFormatter

__all__ = ["register"]

_EPILOG = """\
examples:
  computeops lock list
  computeops lock update --workload inference-auto/workload     # relock one workload
  computeops lock update computeops.lock.json --catalog refreshed.json
  computeops lock remove --workload old-stack/workload
"""


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "lock",
        help="list, relock or remove the entries of computeops.lock.json",
        description=__doc__,
        epilog=_EPILOG,
        formatter_class=HelpFormatter,
    )
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    for verb, help_text in (
        ("list", "show every locked workload"),
        ("update", "relock: re-decide entries on the catalog and write them"),
        ("remove", "drop the entry of a workload that no longer exists"),
    ):
        sub = verbs.add_parser(verb, help=help_text, epilog=_EPILOG, formatter_class=HelpFormatter)
        sub.add_argument(
            "lockfile",
            nargs="?",
            default=LOCKFILE_NAME,
            metavar="LOCKFILE",
            help=f"default: ./{LOCKFILE_NAME}",
        )
        if verb != "list":
            sub.add_argument(
                "--workload",
                metavar="PATH",
                required=verb == "remove",
                help="construct path of the entry (default for update: every entry)",
            )
        if verb == "update":
            sub.add_argument(
                "--catalog", metavar="FILE", help="catalog JSON to decide on (default: embedded)"
            )
            sub.add_argument(
                "--accounts",
                metavar="FILE",
                help="the team's accounts file; a region or instance type the catalog does not list is "
                "a warning on stderr (default: $COMPUTEOPS_ACCOUNTS, else none)",
            )
        sub.set_defaults(handler=_HANDLERS[verb])


def _read(path: str) -> Lockfile:
    return Lockfile.read(Path(path), missing_ok=False)


def _entry(lockfile: Lockfile, workload: str) -> LockEntry:
    entry = lockfile.workloads.get(workload)
    if entry is None:
        known = list(lockfile.workloads)
        hint = did_you_mean(workload, known)
        raise LockError(
            f"{lockfile.path} has no entry {workload!r} (entries: {', '.join(known) or 'none'})"
            + (f" (did you mean {hint[0]!r}?)" if hint else "")
        )
    return entry


def _list(args: argparse.Namespace) -> int:
    lockfile = _read(args.lockfile)
    for name, entry in lockfile.workloads.items():
        p = entry.placement
        sys.stdout.write(
            f"{name}: {p.name}, {p.hourly_usd:,.2f} USD/h, {p.unit_cost.value:g} {p.unit_cost.unit}, "
            f"locked {p.locked_at} on catalog {p.catalog_version}, {len(entry.observations)} observation(s)\n"
        )
    return 0


def _update(args: argparse.Namespace) -> int:
    with editing(args.lockfile):
        return _relock(args)


def _relock(args: argparse.Namespace) -> int:
    lockfile = _read(args.lockfile)
    names = [args.workload] if args.workload else list(lockfile.workloads)
    catalog = load_catalog(args.catalog) if args.catalog else load_catalog()
    locked_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    accounts = load_accounts(args.accounts)
    calibrations = lockfile.calibrations()
    warned: set[str] = set()
    for name in names:
        entry = _entry(lockfile, name)
        pin = placement_pin(
            provider=entry.pins.provider, region=entry.pins.region, cluster=bool(entry.pins.cluster)
        )
        try:
            decision = decide(
                entry.intent,
                catalog=catalog,
                pin=pin,
                accounts=accounts,
                calibrations=calibrations,
                locked=True,  # a name the catalog dropped matches nothing (a warning), as in reevaluate
            )
        except IntentError as err:
            if not err.path.startswith("pin."):
                raise
            # the entry's pin names a region (or provider) this catalog does not list
            what = str(err).removeprefix(f"{err.path}: ").split(". To fix:")[0]
            raise LockError(
                f"{what}{did_you_mean_text(err.suggestions)}, so the entry cannot be relocked inside its "
                f"pin. To fix: change the workload's {err.path.removeprefix('pin.')} prop and synthesize "
                "(a changed pin decides afresh), or relock over a catalog that lists it",
                path=f"{lockfile.path}: workloads[{name!r}].pins.{err.path.removeprefix('pin.')}",
            ) from None
        for line in decision.explanation:  # accounts names the catalog does not list, said once
            if line.startswith((UNLISTED, INTENT_UNLISTED)) and line not in warned:
                warned.add(line)
                print(f"warning: {line.removeprefix('Warning: ')}", file=sys.stderr)
        chosen = decision.chosen
        assert chosen is not None
        new = LockedPlacement.from_placement(
            chosen, locked_at=locked_at, catalog_version=catalog.version, catalog_sha256=catalog.sha256
        )
        same = new.key == entry.placement.key and new.instances == entry.placement.instances
        # a new reservation term is a new commitment on the same machines (observations stay)
        retermed = same and new.term_months != entry.placement.term_months
        # A relock is the one way a locked image moves: to the image this version boots the placement on.
        image = get_target(chosen.provider).image_reference(chosen, cluster=bool(entry.pins.cluster))
        lockfile = lockfile.with_entry(
            name,
            replace(
                entry,
                placement=new,
                engine_version=__version__,
                estimate=estimate_of(chosen.estimate),
                # Measurements describe the machines they were taken on: kept only if those stay.
                observations=entry.observations if same else (),
                accounts_sha256=accounts.sha256 if accounts is not None else None,
                image=image,
            ),
        )
        change = "unchanged" if same and not retermed else f"{entry.placement.name} -> {new.name}"
        if image != entry.image:
            change += f"; image {_image_text(entry.image)} -> {_image_text(image)}"
        sys.stdout.write(f"{name}: relocked on catalog {catalog.version}: {change}\n")
    lockfile.write()
    return 0


def _image_text(image: Mapping[str, str] | None) -> str:
    return "none" if image is None else ":".join(image[k] for k in sorted(image))


def _remove(args: argparse.Namespace) -> int:
    with editing(args.lockfile):
        lockfile = _read(args.lockfile)
        _entry(lockfile, args.workload)
        lockfile.without(args.workload).write()
    sys.stdout.write(f"{args.workload}: entry removed from {lockfile.path}\n")
    return 0


_HANDLERS = {"list": _list, "update": _update, "remove": _remove}
