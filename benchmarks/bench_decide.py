"""Decision latency: the embedded catalog, synthetic catalogs of 10k and 100k offers, and a cold CLI.

Run: ``.venv/bin/python benchmarks/bench_decide.py [--write benchmarks/DECIDE.md] [--repeat N]``

- *warm*: ``decide`` on an already loaded catalog (what a construct or a service pays per decision);
  the first call on a catalog also builds the engine's index of it and fills the estimate cache,
  reported separately as *first call*.
- *synthetic*: the real offers replicated into synthetic copies of their regions (same country and
  continent, region code suffixed), so the rule mix stays realistic while the offer count grows.
- *cold CLI*: ``computeops decide examples/support-chat.yaml --format json`` as a fresh process
  (interpreter start, imports, catalog load, decision, JSON output).

Targets (issue 2): <= 20 ms per decision over the full catalog, <= 1 s at 100k offers, cold CLI
<= 0.5 s. Timings are wall-clock medians (and minimums) over ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from computeops_cdk.catalog import Catalog, load_catalog
from computeops_cdk.engine import decide
from computeops_cdk.errors import NoFeasiblePlacementError
from computeops_cdk.intent import WorkloadIntent

ROOT = Path(__file__).resolve().parent.parent
INTENTS = ("support-chat.yaml", "llama-8b-pretrain.yaml", "hipaa-us.yaml", "infeasible-budget.yaml")
NOTES = """\
- *median / min*: `decide` on an already loaded catalog (what a construct or a long-lived process pays).
- *first call*: the first decision on a catalog object also builds the engine's index of it (offers in
  canonical order joined to their records) and fills the performance-estimate cache.
- *10k / 100k*: the real offers replicated into synthetic regions (same country and continent), so the
  mix of rules stays realistic; `infeasible-budget.yaml` also builds the nearest misses and the
  `decision: null` document with every rejection.
- *cold CLI*: a fresh `computeops decide examples/support-chat.yaml --format json` process: interpreter
  start, imports (pydantic models, perf, catalog), loading the embedded catalog, one first-call decision
  and writing the JSON (every rejection included).
"""
TARGET_MS = {"full": 20.0, "100k": 1000.0, "cold": 500.0}


def scaled(catalog: Catalog, offers: int) -> Catalog:
    """The catalog with its offers replicated into synthetic regions until it holds ``offers`` offers."""
    copies = math.ceil(offers / len(catalog.offers))
    regions = list(catalog.regions)
    new_offers = list(catalog.offers)
    for k in range(1, copies):
        regions += [replace(r, code=f"{r.code}-s{k}") for r in catalog.regions]
        new_offers += [replace(o, region=f"{o.region}-s{k}") for o in catalog.offers]
    return replace(catalog, regions=tuple(regions), offers=tuple(new_offers[:offers]))


def _run(intent: WorkloadIntent, catalog: Catalog) -> None:
    with contextlib.suppress(NoFeasiblePlacementError):  # the infeasible example is timed too
        decide(intent, catalog=catalog)


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median, min) wall time in milliseconds."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), min(samples)


def cold_cli(repeat: int) -> tuple[float, float]:
    exe = Path(sys.executable).parent / "computeops"
    command = [str(exe), "decide", str(ROOT / "examples" / "support-chat.yaml"), "--format", "json"]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return timed(lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env), repeat)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--write", metavar="FILE", help="also write the table as Markdown to FILE")
    args = parser.parse_args()

    base = load_catalog()
    rows: list[tuple[str, str, int, float, float, str]] = []
    for size_label, catalog in (
        ("full", base),
        ("10k", scaled(base, 10_000)),
        ("100k", scaled(base, 100_000)),
    ):
        for name in INTENTS:
            intent = WorkloadIntent.from_file(ROOT / "examples" / name)
            fresh = replace(catalog)  # a copy has its own empty cache: the first call builds the index
            first = timed(lambda i=intent, c=fresh: _run(i, c), 1)[0]
            repeat = args.repeat if size_label != "100k" else max(3, args.repeat // 3)
            median, fastest = timed(lambda i=intent, c=fresh: _run(i, c), repeat)
            target = TARGET_MS.get(size_label)
            verdict = "" if target is None else ("ok" if median <= target else "OVER")
            rows.append(
                (size_label, name, len(catalog.offers), first, median, f"{fastest:.1f} {verdict}".strip())
            )
    cold_median, cold_min = cold_cli(max(5, args.repeat // 2))
    rows.append(
        (
            "cold CLI",
            "support-chat.yaml --format json",
            len(base.offers),
            math.nan,
            cold_median,
            f"{cold_min:.1f} {'ok' if cold_median <= TARGET_MS['cold'] else 'OVER'}",
        )
    )

    header = ("catalog", "intent", "offers", "first call ms", "median ms", "min ms / target")
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *(
            f"| {a} | {b} | {c:,} | {'-' if math.isnan(d) else f'{d:.1f}'} | {e:.1f} | {f} |"
            for a, b, c, d, e, f in rows
        ),
    ]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    machine = (
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPU(s), "
        f"{platform.machine()}, load average {load} at the end"
    )
    text = "\n".join(lines)
    print(f"computeops decide benchmark ({machine})\n")
    print(text)
    if args.write:
        Path(args.write).write_text(
            "# `decide` benchmark\n\n"
            f"Measured with `benchmarks/bench_decide.py` on {machine}; wall-clock times.\n"
            "Targets: <= 20 ms per decision over the full catalog, <= 1 s at 100k offers, "
            "cold `computeops decide` <= 0.5 s.\n\n" + text + "\n\n" + NOTES,
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
