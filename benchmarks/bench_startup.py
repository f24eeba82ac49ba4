"""Start-up cost of the CLI and of a warm decision, as ratios measured side by side in one run.

Run: ``.venv/bin/python benchmarks/bench_startup.py [--repeat N] [--write benchmarks/STARTUP.md]``

Each ratio compares two things measured in the same run, interleaved (A, B, A, B, ...) so that a
busy moment of this shared machine hits both sides alike; the figures are medians.

- ``--version`` and ``--help`` against a bare ``python -c pass`` (target <= 2x), and the floor under
  them: argparse alone answering ``--version`` (no target: what any argparse CLI pays);
- a cold ``computeops decide examples/support-chat.yaml --format json`` against Python starting
  and loading the embedded catalog JSON (``json.load``), nothing else (target <= 6x), and the floor
  under it: the same baseline plus importing pydantic and defining one model (no target);
- a warm ``decide`` over the full embedded catalog (the catalog loaded and the engine's index
  built, as in a construct's second stack or the Terraform provider's second call) against
  ``json.loads`` of that catalog's text in the same process (target <= 0.5x), alone and with its
  default ``to_json()`` document (what the CLI prints and the constructs write; no target).
  ``--warm-only`` measures just these two rows.

The process rows also give the ratio of the processes' CPU times (user + system): on a busy shared
machine a process of ~300 ms is preempted far more than a ~30 ms baseline, so its wall ratio rises
with the load while the CPU ratio stays put. ``--against SRC`` (another tree's ``src`` directory)
runs the cold decide of both trees in turn in one run: before and after side by side.
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
TARGETS = {"--version": 2.0, "--help": 2.0, "cold decide": 6.0, "warm decide": 0.5}


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


_ARGPARSE_FLOOR = (
    "import argparse\np = argparse.ArgumentParser(prog='floor')\n"
    "p.add_argument('--version', action='version', version='floor 0')\np.parse_args(['--version'])"
)


_PYDANTIC_FLOOR = (
    "import json\nfrom pydantic import BaseModel\nclass Floor(BaseModel):\n    a: int = 0\n"
    "with open({catalog!r}, 'rb') as f: json.load(f)"
)


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
    # the floor under the two rows above: argparse alone answering --version (its import, one parser
    # and the help formatter every add_argument builds), no package of ours
    floor = _process([sys.executable, "-c", _ARGPARSE_FLOOR])
    rows.append(("argparse --version alone", "python -c pass", *processes_side_by_side(floor, bare, repeat)))
    decide = _process([_exe(), "decide", str(EXAMPLE), "--format", "json"])
    rows.append(
        ("cold decide", "python + json.load(catalog)", *processes_side_by_side(decide, load_json, repeat))
    )
    # the floor under the cold decide's budget: the same baseline plus what pydantic costs before any
    # model of ours exists (its import, then its first model: the plugin scan and importlib.metadata)
    pydantic = _process([sys.executable, "-c", _PYDANTIC_FLOOR.format(catalog=_catalog_path())])
    rows.append(
        (
            "pydantic + one model + json.load",
            "python + json.load(catalog)",
            *processes_side_by_side(pydantic, load_json, repeat),
        )
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs of each side (default: 15)")
    parser.add_argument("--write", metavar="FILE", help="also write the table as Markdown to FILE")
    parser.add_argument("--warm-only", action="store_true", help="measure only the warm decision rows")
    parser.add_argument(
        "--against",
        metavar="SRC",
        type=Path,
        help="another tree's src directory (e.g. a checkout of main): only the cold decide of both "
        "trees, taking turns in one run",
    )
    args = parser.parse_args()
    against = None if args.against is None else args.against.resolve()
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
