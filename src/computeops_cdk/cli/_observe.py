"""``computeops observe``: measure a running vLLM deployment and record it in its lock entry.

Two scrapes of Prometheus text (one URL scraped twice ``--interval`` seconds apart, or two saved
files/URLs taken that far apart) give output tokens/s, TTFT/TPOT percentiles, requests in flight,
KV-cache and GPU utilisation. The observation is compared with the locked estimate and recorded in
``computeops.lock.json`` (atomically; nothing is recorded from bad metrics). The next decision for the
same model, precision and accelerator (a synth that decides afresh, ``computeops reevaluate``) applies
the measured efficiency instead of the datasheet extrapolation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..catalog import load_catalog
from ..errors import LockError, MetricsError
from ..lockfile import LOCKFILE_NAME, LockEntry, Lockfile, Observation, editing
from ..observe import SCRAPE_TIMEOUT_S, measure, read_scrape
from ._args import number_in, whole_at_least
from ._parser import HelpFormatter
from ._reevaluate import observed_lines

__all__ = ["register"]

MAX_INTERVAL_S = 3600.0

_EPILOG = """\
examples:
  computeops observe --metrics http://10.0.0.12:8000/metrics --interval 60 --workload chat/workload
  computeops observe --metrics before.prom --metrics after.prom --interval 300   # two saved scrapes
  computeops observe --metrics http://lb.internal:8000/metrics --replicas 1 --no-record --format json

The scraped servers: --replicas says how many model replicas the metrics cover (default 1: one vLLM
server). A counter that fell between the scrapes (a restart), a scrape without vLLM series, or a
server that does not answer within --timeout is an error and records nothing (exit 2).
"""


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "observe",
        help="measure a running vLLM deployment (/metrics) and record it against its locked estimate",
        description=__doc__,
        epilog=_EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "--metrics",
        action="append",
        required=True,
        metavar="URL_OR_FILE",
        help="a /metrics URL (scraped twice) or, given twice, the two scrapes in order",
    )
    parser.add_argument(
        "--interval",
        type=number_in("--interval", 0, MAX_INTERVAL_S, low_open=True),
        default=60.0,
        metavar="S",
        help="seconds between the two scrapes (default 60)",
    )
    parser.add_argument(
        "--lockfile", default=LOCKFILE_NAME, metavar="FILE", help=f"default: ./{LOCKFILE_NAME}"
    )
    parser.add_argument(
        "--workload", metavar="PATH", help="the lock entry measured (default: the only one in the lockfile)"
    )
    parser.add_argument(
        "--replicas",
        type=whole_at_least("--replicas", 1),
        default=1,
        metavar="N",
        help="model replicas the metrics cover (default 1)",
    )
    parser.add_argument(
        "--timeout",
        type=number_in("--timeout", 0, 300, low_open=True),
        default=SCRAPE_TIMEOUT_S,
        metavar="S",
        help=f"seconds one scrape may take, body included (default {SCRAPE_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--catalog", metavar="FILE", help="catalog JSON describing the machine (default: embedded)"
    )
    parser.add_argument("--no-record", action="store_true", help="print the observation, do not record it")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.set_defaults(handler=run)


def _record(path: Path, name: str, measured: LockEntry, observation: Observation) -> None:
    """Add ``observation`` to the entry as it is now (read again under ``editing``: a relock or a
    synth may have written the lockfile during the scrapes), if it still locks the machines measured."""
    with editing(path):
        lockfile = Lockfile.read(path, missing_ok=False)
        entry = lockfile.workloads.get(name)
        if entry is None or entry.placement != measured.placement:
            raise LockError(
                f"{path}: the entry {name!r} was {'removed' if entry is None else 'relocked'} while the "
                "metrics were scraped; nothing was recorded. To fix: observe the deployment it locks now"
            )
        lockfile.with_entry(name, entry.observed(observation)).write()


def run(args: argparse.Namespace) -> int:
    if len(args.metrics) > 2:
        raise MetricsError("give --metrics once (a URL scraped twice) or twice (the two scrapes), not more")
    lockfile = Lockfile.read(Path(args.lockfile), missing_ok=False)
    name = _workload(lockfile, args.workload)
    entry = lockfile.workloads[name]
    first = read_scrape(args.metrics[0], timeout_s=args.timeout)
    if len(args.metrics) == 1:
        time.sleep(args.interval)
        second = read_scrape(args.metrics[0], timeout_s=args.timeout)
    else:
        second = read_scrape(args.metrics[1], timeout_s=args.timeout)
    observation = measure(
        first,
        second,
        interval_s=args.interval,
        entry=entry,
        catalog=load_catalog(args.catalog) if args.catalog else load_catalog(),
        replicas=args.replicas,
        observed_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    if not args.no_record:
        _record(lockfile.path, name, entry, observation)
    if args.format == "json":
        sys.stdout.write(
            json.dumps({"workload": name, "observation": observation.to_dict()}, indent=2) + "\n"
        )
        return 0
    where = "not recorded (--no-record)" if args.no_record else f"recorded in {lockfile.path}"
    sys.stdout.write(f"{name}: {where}\n")
    for line in observed_lines(observation, entry):
        sys.stdout.write(f"  - {line}\n")
    o = observation
    latency = ", ".join(
        f"{label} p50 {p50:,.1f} ms / p90 {p90:,.1f} ms"
        for label, p50, p90 in (
            ("TTFT", o.ttft_ms_p50, o.ttft_ms_p90),
            ("TPOT", o.tpot_ms_p50, o.tpot_ms_p90),
        )
        if p50 is not None and p90 is not None
    )
    extras = [f"{o.requests_running:,.1f} requests in flight"]
    if o.kv_cache_usage is not None:
        extras.append(f"KV cache {o.kv_cache_usage:.0%}")
    if o.gpu_utilization is not None:
        extras.append(f"GPU utilisation {o.gpu_utilization:.0f} %")
    sys.stdout.write(f"  - {latency or 'no request finished in the interval'}; {', '.join(extras)}\n")
    return 0


def _workload(lockfile: Lockfile, given: str | None) -> str:
    names = list(lockfile.workloads)
    if given is not None:
        if given not in lockfile.workloads:
            raise LockError(f"{lockfile.path} has no entry {given!r} (entries: {', '.join(names) or 'none'})")
        return given
    if len(names) != 1:
        raise LockError(
            f"{lockfile.path} has {len(names)} entries ({', '.join(names) or 'none'}). "
            "To fix: name the one measured with --workload"
        )
    return names[0]
