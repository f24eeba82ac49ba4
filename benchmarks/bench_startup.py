"""Start-up cost of the CLI and of a warm decision, as ratios measured side by side in one run.

Run: ``.venv/bin/python benchmarks/bench_startup.py [--repeat N] [--write benchmarks/STARTUP.md]``

Each ratio compares two things measured in the same run, interleaved (A, B, A, B, ...) so that a
busy moment of this shared machine hits both sides alike; the figures are medians.

- ``--version`` and ``--help`` against a bare ``python -c pass`` (target <= 2x);
- a cold ``computeops decide examples/support-chat.yaml --format json`` against Python starting
  and loading the embedded catalog JSON (``json.load``), nothing else (target <= 3x);
- a warm ``decide`` over the full embedded catalog (the catalog loaded and the engine's index
  built, as in a construct's second stack or the Terraform provider's second call) against
  ``json.loads`` of that catalog's text in the same process (target <= 0.5x), alone and with its
  default ``to_json()`` document (what the CLI prints and the constructs write; no target).
  ``--warm-only`` measures just these two rows.

The process rows also give the ratio of the processes' CPU times (user + system): on a busy shared
machine a process of ~300 ms is preempted far more than a ~30 ms baseline, so its wall ratio rises
with the load while the CPU ratio stays put. ``--profile`` times the cold decide's phases (``--cpu``:
in CPU time). ``--against SRC`` (another tree's ``src`` directory, e.g. a checkout of main) runs the
cold decide, or with ``--profile`` its phases, of both trees in turn in one run: before and after
side by side.

Issue 10 measured 0.66 s for ``--version``, 12x for the cold decide and 1.05x for the warm one.
The package is measured as installed: compiled to .pyc first (``compileall``) and run with
``PYTHONDONTWRITEBYTECODE`` removed from the environment.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "support-chat.yaml"
TARGETS = {"--version": 2.0, "--help": 2.0, "cold decide": 3.0, "warm decide": 0.5}


def _exe() -> str:
    return str(Path(sys.executable).parent / "computeops")


def _env(src: Path | None = None) -> dict[str, str]:
    # An installed wheel has its .pyc files (pip compiles at install); a development tree gets them at
    # the warm-up run, unless PYTHONDONTWRITEBYTECODE (set in some shells and CI images) stops that and
    # every measured run would compile the package from source (about 80 ms more for `decide`).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONHASHSEED"] = "0"
    if src is not None:  # --against: each side runs its own tree's package
        env["PYTHONPATH"] = str(src)
    return env


def _process(command: Sequence[str], src: Path | None = None) -> Callable[[], None]:
    env = _env(src)

    def run() -> None:
        subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)

    return run


def _seconds(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def side_by_side(a: Callable[[], object], b: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median seconds of ``a`` and of ``b``, run alternately ``repeat`` times each (after one warm-up),
    in turns that start with ``a`` and with ``b`` alternately (see ``interleaved``)."""
    a(), b()  # page cache, .pyc files
    sa: list[float] = []
    sb: list[float] = []
    for turn in range(repeat):
        if turn % 2:
            sb.append(_seconds(b))
            sa.append(_seconds(a))
        else:
            sa.append(_seconds(a))
            sb.append(_seconds(b))
    return statistics.median(sa), statistics.median(sb)


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def processes_side_by_side(
    a: Callable[[], object], b: Callable[[], object], repeat: int
) -> tuple[float, float, float, float]:
    """``side_by_side`` for two process runners, also giving the median CPU seconds (user + system) of
    the processes each one starts: on a shared machine the wall times of a ~30 ms baseline move with
    every other job, their CPU times much less (the wall ratio stays the one the target is about)."""
    (wall_a, cpu_a), (wall_b, cpu_b) = interleaved((a, b), repeat)
    return wall_a, wall_b, cpu_a, cpu_b


def interleaved(runners: Sequence[Callable[[], object]], repeat: int) -> list[tuple[float, float]]:
    """(median wall seconds, median CPU seconds of the processes started) of each runner, the runners
    taking turns ``repeat`` times (after one warm-up run each). Each turn starts with the next runner:
    a process started right after another one runs about 10 % faster (caches the previous one warmed),
    so a fixed order favoured the runners after the first."""
    for fn in runners:
        fn()  # page cache, .pyc files
    wall: list[list[float]] = [[] for _ in runners]
    cpu: list[list[float]] = [[] for _ in runners]
    for turn in range(repeat):
        for at in range(len(runners)):
            side = (turn + at) % len(runners)
            fn = runners[side]
            before = _child_cpu()
            wall[side].append(_seconds(fn))
            cpu[side].append(_child_cpu() - before)
    median = statistics.median
    return [(median(w), median(c)) for w, c in zip(wall, cpu, strict=True)]


def _catalog_path() -> str:
    from computeops_cdk.catalog._load import EMBEDDED_CATALOG

    return str(EMBEDDED_CATALOG)


Row = tuple[str, str, float, float, float | None, float | None]
"""(what, baseline, seconds, baseline seconds, CPU seconds, baseline CPU seconds or None in-process)."""


def processes(repeat: int) -> list[Row]:
    """The fresh-process measurements, wall and CPU."""
    import computeops_cdk

    package = Path(computeops_cdk.__file__).parent
    # as installed: every module compiled (the warm-up alone would compile only what it imports)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(package)], check=False, stdout=subprocess.DEVNULL
    )
    bare = _process([sys.executable, "-c", "pass"])
    load_json = _process(
        [sys.executable, "-c", f"import json\nwith open({_catalog_path()!r}, 'rb') as f: json.load(f)"]
    )
    rows: list[Row] = []
    for flag in ("--version", "--help"):
        rows.append((flag, "python -c pass", *processes_side_by_side(_process([_exe(), flag]), bare, repeat)))
    decide = _process([_exe(), "decide", str(EXAMPLE), "--format", "json"])
    rows.append(
        ("cold decide", "python + json.load(catalog)", *processes_side_by_side(decide, load_json, repeat))
    )
    return rows


def _compiled(src: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(src / "computeops_cdk")],
        check=False,
        stdout=subprocess.DEVNULL,
    )


def cold_against(repeat: int, against: Path) -> list[Row]:
    """The cold decide of this tree and of the tree at ``against`` (its ``src`` directory), both
    against the same baseline, the three taking turns: before and after in one run."""
    ours = ROOT / "src"
    for src in (ours, against):
        _compiled(src)
    load_json = _process(
        [sys.executable, "-c", f"import json\nwith open({_catalog_path()!r}, 'rb') as f: json.load(f)"]
    )
    command = [_exe(), "decide", str(EXAMPLE), "--format", "json"]
    (ours_wall, ours_cpu), (theirs_wall, theirs_cpu), (base_wall, base_cpu) = interleaved(
        (_process(command, ours), _process(command, against), load_json), repeat
    )
    against_row = f"cold decide ({against})"
    baseline = "python + json.load(catalog)"
    return [
        (against_row, baseline, theirs_wall, base_wall, theirs_cpu, base_cpu),
        ("cold decide (this tree)", baseline, ours_wall, base_wall, ours_cpu, base_cpu),
    ]


def warm(repeat: int) -> list[Row]:
    """A warm decision, alone and with its default JSON document (what the constructs write and the
    CLI prints), each against parsing the catalog's JSON text, in this process."""
    import json

    from computeops_cdk.catalog import load_catalog
    from computeops_cdk.engine import decide
    from computeops_cdk.errors import NoFeasiblePlacementError
    from computeops_cdk.intent import WorkloadIntent

    text = Path(_catalog_path()).read_text(encoding="utf-8")
    catalog = load_catalog()
    intent = WorkloadIntent.from_file(EXAMPLE)

    def one() -> None:
        with contextlib.suppress(NoFeasiblePlacementError):
            decide(intent, catalog=catalog)

    def documented() -> None:
        with contextlib.suppress(NoFeasiblePlacementError):
            decide(intent, catalog=catalog).to_json()

    rows: list[Row] = []
    for what, fn in (("warm decide", one), ("warm decide + to_json", documented)):
        rows.append(
            (what, "json.loads(catalog text)", *_in_process(fn, lambda: json.loads(text), repeat * 4))
        )
    return rows


def _in_process(
    a: Callable[[], object], b: Callable[[], object], repeat: int
) -> tuple[float, float, float, float]:
    """Median wall and CPU seconds of ``a`` and ``b`` run alternately in this process: (wall a, wall
    b, CPU a, CPU b). The CPU times leave out the moments another process had the core."""
    a(), b()
    wall: tuple[list[float], list[float]] = ([], [])
    cpu: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for n, fn in enumerate((a, b)):
            start, start_cpu = time.perf_counter(), time.process_time()
            fn()
            wall[n].append(time.perf_counter() - start)
            cpu[n].append(time.process_time() - start_cpu)
    median = statistics.median
    return median(wall[0]), median(wall[1]), median(cpu[0]), median(cpu[1])


# The cold decide's phases, in the order `computeops decide --format json` pays them, each timed in a
# fresh interpreter (what the ratio's numerator is made of; printed by --profile). The collector is
# handled as each tree's console script does: a CLI that imports the command with it paused and then
# freezes what was imported (cli._parser_unscanned) gets the same here; the catalog is loaded with it
# paused, as decide() loads it for the CLI.
_PHASES = """
import time, sys, gc
t = [time.perf_counter()]
def mark(): t.append(time.perf_counter())
import computeops_cdk.cli as cli
paused = hasattr(cli, "_parser_unscanned")
if paused: gc.disable()
import json, os
if not hasattr(cli, "_plain"): import argparse  # the tree's parser needs it for a plain decide
mark()
for name in sys.argv[2].split(","): __import__(name)  # what the tree's own cold decide imports
mark()
subset = os.path.join(os.path.dirname(cli.__file__), "..", "intent", "_yaml_subset.py")
if not os.path.exists(subset): import yaml
mark()
import computeops_cdk.catalog; mark()
import computeops_cdk.perf; mark()
import computeops_cdk.intent; mark()
import computeops_cdk.engine; mark()
import computeops_cdk.targets; mark()
import computeops_cdk.cli._decide; mark()
run_paused = 'decide' in getattr(cli, '_RUN_PAUSED', ())  # the console runs decide with it paused
if paused: gc.freeze(); None if run_paused else gc.enable()
argv = ["decide", sys.argv[1], "--format", "json"]
args = cli._plain(argv) if hasattr(cli, "_plain") else None  # read as the tree's console reads it
if args is None:
    from computeops_cdk.cli._parser import build_parser
    args = build_parser("decide").parse_args(argv)
mark()
from computeops_cdk.intent import WorkloadIntent
intent = WorkloadIntent.from_file(sys.argv[1]); mark()
from computeops_cdk.catalog import load_catalog
gc.disable(); catalog = load_catalog(); None if run_paused else gc.enable(); mark()
from computeops_cdk.engine import decide
from computeops_cdk.targets import placement_pin
decision = decide(intent, catalog=catalog, pin=placement_pin()); mark()
text = decision.to_json(); mark()
decide(intent, catalog=catalog, pin=placement_pin()); mark()
print(" ".join(f"{(b - a) * 1000:.2f}" for a, b in zip(t, t[1:])))
"""
PHASE_NAMES = (
    "json (and argparse where the tree's plain decide needs it)",
    "the rest of the standard library the tree's cold decide imports (hashlib, datetime, ...)",
    "yaml (PyYAML's import; none where intent/_yaml_subset reads the example)",
    "catalog modules",
    "performance model modules",
    "intent models",
    "engine modules",
    "targets (the unsupported-feature declarations)",
    "cli._decide (rest)",
    "the argument parser built, the arguments parsed",
    "intent file parsed and validated",
    "embedded catalog loaded (json.loads and the records)",
    "first decide (index, suspect prices, sizing: the perf model's estimates)",
    "to_json (summary rejections)",
    "(a second decide, for comparison: warm)",
)


_STDLIB_OF = """
import sys
started = set(sys.modules)
from computeops_cdk.cli import main
main(["decide", sys.argv[1], "--format", "json"])
made = [m for m in sys.modules if m not in started and m.split(".")[0] not in ("computeops_cdk", "yaml")]
sys.stderr.write("\\n" + ",".join(made))
"""


def _stdlib_of(src: Path | None) -> str:
    """The standard-library modules (comma-separated, in import order) a cold decide of the tree at
    ``src`` imports, so its profile's standard-library phase holds exactly those."""
    done = subprocess.run(
        [sys.executable, "-c", _STDLIB_OF, str(EXAMPLE)],
        capture_output=True,
        text=True,
        check=True,
        env=_env(src),
    )
    return done.stderr.splitlines()[-1]


def _phases(code: str, src: Path | None, stdlib: str) -> list[float]:
    done = subprocess.run(
        [sys.executable, "-c", code, str(EXAMPLE), stdlib],
        capture_output=True,
        text=True,
        check=True,
        env=_env(src),
    )
    return [float(x) for x in done.stdout.split()]


def _cpu_ms_of(command: Sequence[str], src: Path | None) -> float:
    before = _child_cpu()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(src))
    return (_child_cpu() - before) * 1000


def profile(repeat: int, *, cpu: bool = False, against: Path | None = None) -> str:
    """Median milliseconds of each cold-decide phase over ``repeat`` fresh interpreters (``cpu``: the
    interpreter's CPU time, ``time.process_time``, instead of the wall clock). With ``against`` (a
    tree's ``src`` directory) that tree's phases too, the two trees taking turns. With ``cpu``, each
    turn also runs the whole ``computeops decide`` process of each tree and the baseline (Python and
    ``json.load`` of the catalog), so the phases can be read against both, in the same conditions."""
    code = _PHASES.replace("time.perf_counter()", "time.process_time()") if cpu else _PHASES
    trees: list[Path | None] = [None] if against is None else [against, ROOT / "src"]
    for src in trees:
        if src is not None:
            _compiled(src)
    stdlib = [_stdlib_of(src) for src in trees]
    decide = [_exe(), "decide", str(EXAMPLE), "--format", "json"]
    baseline = [sys.executable, "-c", f"import json\nwith open({_catalog_path()!r}, 'rb') as f: json.load(f)"]
    runs: list[list[list[float]]] = [[] for _ in trees]
    processes: list[list[float]] = [[] for _ in trees]
    baselines: list[float] = []
    for _ in range(repeat):
        for n, src in enumerate(trees):
            runs[n].append(_phases(code, src, stdlib[n]))
            if cpu:
                processes[n].append(_cpu_ms_of(decide, src))
        if cpu:
            baselines.append(_cpu_ms_of(baseline, None))
    columns = [[statistics.median(column) for column in zip(*tree, strict=True)] for tree in runs]
    heads = "ms (median)" if against is None else f"{against} | this tree"
    lines = [f"| phase of a cold decide | {'CPU ' if cpu else ''}{heads} |", "|---" * (1 + len(trees)) + "|"]

    def row(name: str, values: Sequence[float]) -> str:
        return f"| {name} | " + " | ".join(f"{ms:.1f}" for ms in values) + " |"

    lines += [row(name, values) for name, *values in zip(PHASE_NAMES, *columns, strict=True)]
    totals = [sum(medians[:-1]) for medians in columns]
    lines.append(row("total before the second decide", totals))
    if cpu:
        whole = [statistics.median(tree) for tree in processes]
        base = statistics.median(baselines)
        lines.append(row("the whole `computeops decide` process (CPU, same turns)", whole))
        lines.append(
            row(
                "outside the phases: interpreter start, console script, exit",
                [w - t for w, t in zip(whole, totals, strict=True)],
            )
        )
        lines.append(
            row("baseline: Python + json.load of the catalog (CPU, same turns)", [base] * len(trees))
        )
        lines.append("| CPU ratio of the process | " + " | ".join(f"{w / base:.2f}x" for w in whole) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs of each side (default: 15)")
    parser.add_argument("--write", metavar="FILE", help="also write the table as Markdown to FILE")
    parser.add_argument("--profile", action="store_true", help="print the cold decide's phases instead")
    parser.add_argument(
        "--cpu", action="store_true", help="with --profile: CPU time per phase, steadier on a busy machine"
    )
    parser.add_argument("--warm-only", action="store_true", help="measure only the warm decision rows")
    parser.add_argument(
        "--against",
        metavar="SRC",
        type=Path,
        help="another tree's src directory (e.g. a checkout of main): only the cold decide (or, with "
        "--profile, its phases) of both trees, taking turns in one run",
    )
    args = parser.parse_args()
    against = None if args.against is None else args.against.resolve()
    if args.profile:
        print(profile(args.repeat, cpu=args.cpu, against=against))
        return 0
    if against is not None:
        rows: list[Row] = cold_against(args.repeat, against)
    else:
        rows = [*([] if args.warm_only else processes(args.repeat)), *warm(args.repeat)]
    head = "| measured | against | ms | baseline ms | ratio | CPU ms | baseline CPU ms | CPU ratio | target |"
    lines = [head, "|---" * 9 + "|"]
    for what, against, ours, base, ours_cpu, base_cpu in rows:
        ratio, target = ours / base, TARGETS.get(what)
        cpu = "- | - | -"
        if ours_cpu is not None and base_cpu:
            cpu = f"{ours_cpu * 1000:.1f} | {base_cpu * 1000:.1f} | {ours_cpu / base_cpu:.2f}x"
        verdict = "-" if target is None else f"<= {target}x {'ok' if ratio <= target else 'OVER'}"
        times = f"{ours * 1000:.1f} | {base * 1000:.1f}"
        lines.append(f"| {what} | {against} | {times} | {ratio:.2f}x | {cpu} | {verdict} |")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    machine = (
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPU(s), "
        f"load average {load} at the end"
    )
    text = "\n".join(lines)
    print(f"computeops start-up benchmark ({machine}; medians of {args.repeat} alternating runs)\n")
    print(text)
    if args.write:
        Path(args.write).write_text(
            f"# Start-up benchmark\n\nMeasured with `benchmarks/bench_startup.py` on {machine}; "
            f"medians of {args.repeat} alternating runs (warm: {args.repeat * 4}).\n\n{text}\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
