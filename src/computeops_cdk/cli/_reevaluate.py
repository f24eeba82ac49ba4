"""``computeops reevaluate``: re-decide every locked workload against today's catalog (drift rules).

Reads lockfiles (``computeops.lock.json``) and decision records (``computeops-decision.json``), applies
``engine.evaluate_drift`` to each workload, and reports ``ok`` / ``cheaper`` / ``price_changed`` /
``infeasible``. Exit codes: 0 nothing to act on, 4 drift found (a cheaper placement beyond the
hysteresis, or an infeasible lock with a replacement), 3 a locked workload has nothing feasible, 2
invalid input. ``--format markdown`` is a pull-request comment whose text depends only on the inputs
(no clock in it), so a bot can update one comment in place.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..accounts import Accounts, load_accounts, sha256_label
from ..catalog import Catalog, load_catalog
from ..engine import (
    DEFAULT_HYSTERESIS_PERCENT,
    DEFAULT_MIN_HOLD_HOURS,
    Calibration,
    Drift,
    DriftPolicy,
    LockedPlacement,
    Pin,
    evaluate_drift,
    parse_utc,
)
from ..errors import IntentError, LockError
from ..intent import WorkloadIntent
from ..lockfile import MAX_LOCKFILE_BYTES, LockEntry, Lockfile, Observation, check_pins, load_json
from ..targets import placement_pin
from ._args import number_in
from ._parser import HelpFormatter

__all__ = ["EXIT_DRIFT", "Subject", "register", "render_markdown", "subjects_from"]

EXIT_OK = 0
EXIT_INFEASIBLE = 3
EXIT_DRIFT = 4
MARKER = "<!-- computeops-reevaluate -->"
_NO_TIME = "1970-01-01T00:00:00Z"

_EPILOG = f"""\
examples:
  computeops reevaluate                                   # ./computeops.lock.json
  computeops reevaluate computeops.lock.json --catalog refreshed.json --format markdown > comment.md
  computeops reevaluate cdktf.out/stacks/*/computeops-decision.json --format json

drift rules (README "Keeping a decision"): a lock is `infeasible` when its offer is gone or a hard
constraint now rejects it; `cheaper` when a placement at least --hysteresis-percent cheaper per unit
of useful work AND with a strictly better weighted score exists and the lock is older than
--min-hold-hours; `price_changed` when only its own price moved; otherwise `ok`.

exit codes: 0 nothing to act on, 4 drift found, 3 a locked workload has nothing feasible,
2 invalid input (defaults: hysteresis {DEFAULT_HYSTERESIS_PERCENT:g} %, hold {DEFAULT_MIN_HOLD_HOURS:g} h)
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class Subject:
    """One workload to re-evaluate: where it came from, its intent, pin and lock."""

    name: str
    source: str
    intent: WorkloadIntent
    pin: Pin
    locked: LockedPlacement
    entry: LockEntry | None = None
    calibrations: tuple[Calibration, ...] = ()


def _now(text: str) -> datetime:
    try:
        return parse_utc(text, what="--now")
    except LockError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "reevaluate",
        help="re-decide locked workloads against today's catalog: ok, cheaper, price_changed, infeasible",
        description=__doc__,
        epilog=_EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "files",
        nargs="*",
        metavar="LOCKFILE|DECISION.json",
        help="lockfiles and/or decision records (default: ./computeops.lock.json)",
    )
    parser.add_argument(
        "--catalog", metavar="FILE", help="today's catalog JSON (default: the embedded catalog)"
    )
    parser.add_argument(
        "--hysteresis-percent",
        type=number_in("--hysteresis-percent", 0, 100, high_open=True),
        default=DEFAULT_HYSTERESIS_PERCENT,
        metavar="P",
        help="a move must save at least P %% per unit of useful work "
        f"(default: {DEFAULT_HYSTERESIS_PERCENT:g})",
    )
    parser.add_argument(
        "--min-hold-hours",
        type=number_in("--min-hold-hours", 0, 24 * 3650, high_open=True),
        default=DEFAULT_MIN_HOLD_HOURS,
        metavar="H",
        help=f"never propose moving a lock younger than H hours (default: {DEFAULT_MIN_HOLD_HOURS:g})",
    )
    parser.add_argument(
        "--accounts",
        metavar="FILE",
        help="the team's accounts (computeops.accounts.yaml): locks are re-checked under them; a "
        "region or instance type it names that the catalog does not list is a line of each "
        "workload's detail, not an error (default: $COMPUTEOPS_ACCOUNTS, else none)",
    )
    parser.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    parser.add_argument(
        "--now",
        type=_now,
        default=None,
        metavar="TIME",
        help="evaluate as of this UTC time, e.g. 2026-12-01T12:00:00Z (default: the clock)",
    )
    parser.set_defaults(handler=run)


def subjects_from(path: Path) -> list[Subject]:
    """The workloads a lockfile or a decision record holds (LockError when it is neither)."""
    if not path.is_file():
        raise LockError(
            f"{path} is not a file. To fix: name a computeops.lock.json or computeops-decision.json"
        )
    if path.stat().st_size > MAX_LOCKFILE_BYTES:
        raise LockError(
            f"{path} is larger than {MAX_LOCKFILE_BYTES // (1024 * 1024)} MiB: not a lockfile or record"
        )
    try:
        document = load_json(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise LockError(f"{path} is not valid JSON ({err})") from None
    if isinstance(document, dict) and "lockfile_version" in document:
        lockfile = Lockfile.from_document(document, path=path)
        return [
            Subject(
                name=name,
                source=str(path),
                intent=entry.intent,
                pin=placement_pin(
                    provider=entry.pins.provider, region=entry.pins.region, cluster=bool(entry.pins.cluster)
                ),
                locked=entry.placement,
                entry=entry,
                calibrations=calibrations,
            )
            for calibrations in (lockfile.calibrations(),)
            for name, entry in lockfile.workloads.items()
        ]
    if isinstance(document, dict) and "decision" in document and "intent" in document:
        return [_from_record(document, path)]
    raise LockError(
        f"{path} is neither a lockfile (lockfile_version) nor a decision record (intent, decision). "
        "To fix: name a computeops.lock.json or a computeops-decision.json"
    )


def _from_record(document: dict[str, Any], path: Path) -> Subject:
    spec = (document.get("intent") or {}).get("spec")
    chosen = document.get("decision")
    if not isinstance(spec, dict) or not isinstance(chosen, dict):
        raise LockError(
            f"{path}: the record has no intent.spec or no decision (written by an older version, or an "
            "infeasible decision). To fix: decide again, or re-evaluate the app's computeops.lock.json"
        )
    try:
        intent = WorkloadIntent.from_dict(spec)
    except IntentError as err:
        raise LockError(f"{path}: intent.spec is invalid: {err}") from None
    pin_doc = document.get("pin") or {}
    if not isinstance(pin_doc, dict):
        raise LockError(f"{path}: pin must be an object (got {type(pin_doc).__name__})")
    check_pins(pin_doc.get("provider"), pin_doc.get("region"), f"{path}: pin")
    lock_doc = document.get("lock") or {}
    catalog = document.get("catalog") or {}
    locked = LockedPlacement.from_dict(
        {**chosen, "locked_at": lock_doc.get("locked_at", _NO_TIME), **_catalog_fields(catalog)},
        path=f"{path}: decision",
    )
    return Subject(
        name=str(lock_doc.get("workload") or document["intent"].get("name", path.stem)),
        source=str(path),
        intent=intent,
        pin=placement_pin(
            provider=pin_doc.get("provider"),
            region=pin_doc.get("region"),
            cluster="kubernetes_node_pool" in (pin_doc.get("require") or ()),
        ),
        locked=locked,
    )


def _catalog_fields(catalog: dict[str, Any]) -> dict[str, str]:
    return {
        "catalog_version": str(catalog.get("version", "")),
        "catalog_sha256": str(catalog.get("sha256", "")),
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class _Row:
    subject: Subject
    drift: Drift
    notes: tuple[str, ...]


def run(args: argparse.Namespace) -> int:
    files = [Path(f) for f in args.files] or [Path("computeops.lock.json")]
    subjects = [s for f in files for s in subjects_from(f)]
    if not subjects:
        raise LockError(
            f"no locked workloads in {', '.join(map(str, files))}. To fix: synthesize the app first"
        )
    catalog = load_catalog(args.catalog) if args.catalog else load_catalog()
    now = args.now or datetime.now(UTC).replace(microsecond=0)
    policy = DriftPolicy(hysteresis_percent=args.hysteresis_percent, min_hold_hours=args.min_hold_hours)
    accounts = load_accounts(args.accounts)
    rows = [_evaluate(s, catalog, now, policy, accounts) for s in subjects]
    if args.format == "json":
        sys.stdout.write(
            json.dumps(_document(rows, catalog, now, policy), indent=2, ensure_ascii=False) + "\n"
        )
    elif args.format == "markdown":
        sys.stdout.write(render_markdown(rows, catalog, policy))
    else:
        _render_table(rows, catalog, policy)
    if any(r.drift.status == "infeasible" and r.drift.proposed is None for r in rows):
        return EXIT_INFEASIBLE
    return EXIT_DRIFT if any(r.drift.actionable for r in rows) else EXIT_OK


def _evaluate(
    subject: Subject, catalog: Catalog, now: datetime, policy: DriftPolicy, accounts: Accounts | None
) -> _Row:
    drift = evaluate_drift(
        subject.locked,
        subject.intent,
        now=now,
        catalog=catalog,
        pin=subject.pin,
        policy=policy,
        calibrations=subject.calibrations,
        accounts=accounts,
    )
    notes: list[str] = []
    if subject.locked.locked_at == _NO_TIME:
        notes.append("the record carries no lock time: the minimum hold is not applied")
    now_sha256 = accounts.sha256 if accounts is not None else None
    if subject.entry is not None and subject.entry.accounts_sha256 != now_sha256:
        notes.append(
            f"the accounts file changed since the lock ({sha256_label(subject.entry.accounts_sha256)} -> "
            f"{sha256_label(now_sha256)}): re-evaluated under today's accounts"
        )
    if subject.entry is not None and subject.entry.observations:
        notes += observed_lines(subject.entry.observations[-1], subject.entry)
    return _Row(subject=subject, drift=drift, notes=tuple(notes))


def observed_lines(observation: Observation, entry: LockEntry) -> list[str]:
    """Estimate vs observed, and whether the deployment still meets its intent by that measurement."""
    lines = [f"Observed {observation.observed_at}: {observation.describe()}."]
    serving = entry.intent.workload.serving
    if serving is None:
        return lines
    misses = []
    for label, target, measured in (
        ("TTFT", serving.ttft_ms, observation.ttft_ms_p90),
        ("TPOT", serving.tpot_ms, observation.tpot_ms_p90),
    ):
        if target is not None and measured is not None and measured > target:
            misses.append(f"p90 {label} {measured:,.1f} ms > {target:g} ms")
    if observation.efficiency is not None:
        # The whole deployment at the measured efficiency (the scrape may cover one replica of many).
        capacity = float(entry.estimate["tokens_per_s"]) * observation.efficiency
        if capacity < serving.output_tokens_per_s:
            misses.append(
                f"capacity at the observed efficiency {capacity:,.0f} tok/s < "
                f"{serving.output_tokens_per_s:,.0f} required"
            )
    if misses:
        lines.append("Does NOT meet its intent by that measurement: " + "; ".join(misses) + ".")
    else:
        lines.append("Meets its intent by that measurement (latency percentiles and corrected capacity).")
    return lines


def _document(rows: Sequence[_Row], catalog: Catalog, now: datetime, policy: DriftPolicy) -> dict[str, Any]:
    counts = {
        status: sum(r.drift.status == status for r in rows)
        for status in ("ok", "cheaper", "price_changed", "infeasible")
    }
    return {
        "reevaluated_at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "catalog": {"version": catalog.version, "as_of": catalog.as_of, "sha256": catalog.sha256},
        "policy": {"hysteresis_percent": policy.hysteresis_percent, "min_hold_hours": policy.min_hold_hours},
        "summary": counts,
        "workloads": [
            {
                "workload": r.subject.name,
                "source": r.subject.source,
                **r.drift.to_dict(),
                "notes": list(r.notes),
            }
            for r in rows
        ],
    }


# -- text ----------------------------------------------------------------------------------------

_ICON = {"ok": "ok", "cheaper": "⚠ cheaper", "price_changed": "price changed", "infeasible": "✖ infeasible"}


def _short(p: Any) -> str:
    return f"{p.provider} {p.instance_type} x{p.instances} {p.region} ({p.pricing})"


def _monthly(row: _Row) -> tuple[str, str, str]:
    d = row.drift
    now = f"{d.current.monthly_usd:,.0f}" if d.current else "-"
    proposed = f"{d.proposed.monthly_usd:,.0f}" if d.proposed else "-"
    saving = "-"
    if d.saving_percent is not None and d.saving_usd_per_month is not None:
        saving = f"{d.saving_percent:g} % ({d.saving_usd_per_month:,.0f} USD/month)"
    return now, proposed, saving


def _headline(rows: Sequence[_Row]) -> str:
    acting = [r for r in rows if r.drift.actionable]
    if not acting:
        return f"computeops reevaluate: {len(rows)} locked workload(s), nothing to act on"
    return f"computeops reevaluate: {len(acting)} of {len(rows)} locked workload(s) need attention"


def _render_table(rows: Sequence[_Row], catalog: Catalog, policy: DriftPolicy) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=sys.stdout, width=shutil.get_terminal_size((160, 40)).columns, highlight=False)
    table = Table(title=_headline(rows), title_justify="left")
    for header in ("workload", "status", "locked", "proposed", "USD/month now", "proposed", "saving"):
        table.add_column(header, justify="right" if header.endswith(("now", "saving")) else "left")
    for row in rows:
        now, proposed, saving = _monthly(row)
        d = row.drift
        table.add_row(
            row.subject.name,
            _ICON[d.status],
            d.locked.name,
            _short(d.proposed) if d.proposed else "-",
            now,
            proposed,
            saving,
        )
    console.print(table)
    for row in rows:
        console.print(f"[bold]{row.subject.name}[/bold] ({row.subject.source})", markup=True)
        for line in (row.drift.summary, *row.drift.detail, *row.notes):
            console.print(f"  - {line}", markup=False)
    console.print(_footer(catalog, policy), markup=False)


def _footer(catalog: Catalog, policy: DriftPolicy) -> str:
    return (
        f"catalog {catalog.version} (as of {catalog.as_of}, sha256 {catalog.sha256[:16]}); hysteresis "
        f"{policy.hysteresis_percent:g} %, minimum hold {policy.min_hold_hours:g} h"
    )


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")


def render_markdown(rows: Sequence[_Row], catalog: Catalog, policy: DriftPolicy) -> str:
    """A pull-request comment: summary table, then a collapsible detail per workload. No clock in it."""
    lines = [MARKER, f"### {_headline(rows)}", ""]
    lines += [
        "| workload | status | locked | proposed | USD/month now → proposed | saving |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        now, proposed, saving = _monthly(row)
        d = row.drift
        arrow = f"{now} → {proposed}" if d.proposed else now
        lines.append(
            f"| `{_md(row.subject.name)}` | {_ICON[d.status]} | {_md(d.locked.name)} | "
            f"{_md(_short(d.proposed)) if d.proposed else '-'} | {arrow} | {saving} |"
        )
    for row in rows:
        lines += [
            "",
            f"<details><summary><code>{_md(row.subject.name)}</code>: {row.drift.status}</summary>",
            "",
        ]
        lines += [f"- {_md(line)}" for line in (row.drift.summary, *row.drift.detail, *row.notes)]
        lines += ["", f"<sub>from {_md(row.subject.source)}</sub>", "", "</details>"]
    lines += ["", f"<sub>{_md(_footer(catalog, policy))}</sub>", ""]
    return "\n".join(lines)
