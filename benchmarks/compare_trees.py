"""Differential check: the same commands on two source trees, byte for byte.

    python benchmarks/compare_trees.py BASE_SRC NEW_SRC [--out DIR] [--only FAMILY ...] [--strict-errors]

Each tree's CLI runs in a subprocess of this interpreter with ``PYTHONPATH=<tree>`` and
``PYTHONHASHSEED=0``, from the same temporary working directory, on the same inputs:

- ``decide``: every ``examples/*.yaml`` in every format, and ``--rejections all``;
- ``estimate``: serving and training estimates on a few accelerators and engines;
- ``synth``: every example stack of ``stacks/`` in one cdktn app (Terraform JSON, decision records and
  the lockfile), then ``reevaluate`` of that lockfile in every format with a fixed ``--now``;
- ``corpus``: a seeded corpus of mutated intents (wrong types, missing and unknown fields, bad YAML,
  duplicate keys, aliases, deep nesting, out-of-range numbers): exit code, stdout and stderr.

A difference in a successful output fails the run (exit 1). A difference in an error message (a
non-zero exit with the same code in both) is listed, and fails the run only with ``--strict-errors``.
What is not ours is masked before comparing: the clock in a lock's ``locked_at`` and the jsii
kernel's stack traces in cdktn's ``manifest.json``.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
FAMILIES = ("decide", "estimate", "synth", "corpus")
NOW = "2026-12-01T00:00:00Z"
LOCK_ENV = "COMPUTEOPS_LOCKFILE"  # where the synth writes its lock (constructs._lock.LOCKFILE_ENV)
_LOCKED_AT = re.compile(rb'("locked_at": ?")[^"]*(")')


@dataclass(frozen=True)
class Case:
    family: str
    name: str
    argv: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: bytes
    stderr: bytes


def run(src: Path, argv: tuple[str, ...], cwd: Path) -> Outcome:
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0", "COLUMNS": "160"}
    env.pop("COMPUTEOPS_RELOCK", None)
    done = subprocess.run(
        [sys.executable, "-m", "computeops_cdk.cli", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=600,
    )
    return Outcome(done.returncode, _LOCKED_AT.sub(rb"\1<time>\2", done.stdout), done.stderr)


def decide_cases(examples: list[Path]) -> Iterator[Case]:
    for example in examples:
        for fmt in ("json", "table", "markdown", "csv"):
            yield Case("decide", f"{example.stem} --format {fmt}", ("decide", str(example), "--format", fmt))
        yield Case(
            "decide",
            f"{example.stem} --rejections all",
            ("decide", str(example), "--format", "json", "--rejections", "all"),
        )


def estimate_cases() -> Iterator[Case]:
    serving = (
        "--workload",
        "inference",
        "--precision",
        "fp8",
        "--input-tokens",
        "1024",
        "--output-tokens",
        "256",
    )
    for model, acc, count in (
        ("llama-3.1-70b", "H100", 4),
        ("llama-3.1-8b", "L4", 1),
        ("qwen3-32b", "H200", 2),
    ):
        argv = (
            "estimate",
            *serving,
            "--model",
            model,
            "--accelerator",
            acc,
            "--count",
            str(count),
            "--format",
            "json",
        )
        yield Case("estimate", f"{model} on {count}x {acc}", argv)
    training = ("estimate", "--workload", "training", "--model", "llama-3.1-8b", "--precision", "bf16")
    yield Case(
        "estimate",
        "training 8B on 8x H100",
        (*training, "--accelerator", "H100", "--count", "8", "--format", "json"),
    )


# Mutations of an intent's text: each returns the new text (or None when it does not apply).
def _mutations(text: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    lines = text.splitlines()
    keyed = [
        i
        for i, line in enumerate(lines)
        if re.match(r"^\s*[a-z_]+:\s*\S", line) and not line.lstrip().startswith("#")
    ]
    for i in rng.sample(keyed, min(4, len(keyed))):
        key = lines[i].split(":", 1)[0]
        for label, value in (
            ("a string", '"x"'),
            ("a negative number", "-5"),
            ("a list", "[1, 2]"),
            ("null", "null"),
            ("huge", "1e400"),
        ):
            yield f"{key.strip()} is {label}", "\n".join([*lines[:i], f"{key}: {value}", *lines[i + 1 :]])
        yield f"{key.strip()} removed", "\n".join(lines[:i] + lines[i + 1 :])
        yield f"{key.strip()} repeated", "\n".join([*lines[: i + 1], lines[i], *lines[i + 1 :]])
        yield (
            f"{key.strip()} misspelt",
            "\n".join(
                [*lines[:i], lines[i].replace(key.strip(), key.strip()[:-1] + "z", 1), *lines[i + 1 :]]
            ),
        )
    yield "an unknown top-level key", text + "\nsurprise: true\n"
    yield "tab indentation", text.replace("  ", "\t", 1)
    yield "truncated", text[: len(text) // 2]
    yield "an alias", text + "\nx: &a [1]\ny: *a\n"
    yield "deep nesting", text + "\ndeep: " + "[" * 300 + "]" * 300 + "\n"
    yield "yes/no words", text.replace("true", "yes").replace("false", "no")
    yield "not a mapping", "- 1\n- 2\n"
    yield "empty", ""


def corpus_cases(work: Path, examples: list[Path], seed: int = 21) -> Iterator[Case]:
    rng = random.Random(seed)
    folder = work / "corpus"
    folder.mkdir(exist_ok=True)
    n = 0
    for example in examples:
        for label, text in _mutations(example.read_text(encoding="utf-8"), rng):
            path = folder / f"{n:04d}.yaml"
            path.write_text(text, encoding="utf-8")
            yield Case(
                "corpus", f"{example.stem}: {label} ({path.name})", ("decide", str(path), "--format", "json")
            )
            n += 1


def synth(src: Path, out: Path) -> Outcome:
    """Every stacks/ example in one cdktn app, synthesized into ``out`` (with its own lockfile)."""
    code = (
        "import sys\nsys.path.insert(0, sys.argv[1])\n"
        "from cdktn import App\nimport all_examples\n"
        "app = App(outdir=sys.argv[2])\nall_examples.build(app)\napp.synth()\n"
    )
    out.mkdir(parents=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(src),
        "PYTHONHASHSEED": "0",
        LOCK_ENV: str(out / "computeops.lock.json"),
    }
    env["PATH"] = f"{ROOT / 'node_modules' / '.bin'}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "stacks"), str(out)],
        cwd=out,
        env=env,
        capture_output=True,
        timeout=900,
    )
    return Outcome(done.returncode, b"", done.stderr)


def _without_stacktraces(value: object) -> object:
    """cdktn's manifest records where in the jsii kernel each annotation was made (temporary paths)."""
    if isinstance(value, dict):
        return {k: _without_stacktraces(v) for k, v in value.items() if k != "stacktrace"}
    if isinstance(value, list):
        return [_without_stacktraces(v) for v in value]
    return value


def synth_files(out: Path) -> dict[str, bytes]:
    files = {}
    for p in sorted(out.rglob("*.json")):
        data = _LOCKED_AT.sub(rb"\1<time>\2", p.read_bytes())
        if p.name == "manifest.json":
            data = json.dumps(_without_stacktraces(json.loads(data)), indent=2).encode()
        files[str(p.relative_to(out))] = data
    return files


def _diff(a: bytes, b: bytes) -> str:
    return "".join(
        difflib.unified_diff(
            a.decode(errors="replace").splitlines(True),
            b.decode(errors="replace").splitlines(True),
            "base",
            "new",
            n=2,
        )
    )


class Report:
    def __init__(self, out: Path | None) -> None:
        self.out = out
        self.rows: dict[str, list[int]] = {}  # family -> [cases, identical, output diffs, message diffs]
        self.failures: list[str] = []
        self.messages: list[str] = []

    def add(self, family: str, name: str, base: Outcome, new: Outcome) -> None:
        row = self.rows.setdefault(family, [0, 0, 0, 0])
        row[0] += 1
        if base == new:
            row[1] += 1
            return
        error_only = base.code == new.code != 0 and base.stdout == new.stdout
        row[3 if error_only else 2] += 1
        diffs = _diff(base.stdout, new.stdout) + _diff(base.stderr, new.stderr)
        text = f"## {family}: {name}\nexit {base.code} -> {new.code}\n{diffs}"
        (self.messages if error_only else self.failures).append(text)
        if self.out:
            self.out.mkdir(parents=True, exist_ok=True)
            with open(self.out / f"{family}.diff", "a", encoding="utf-8") as handle:
                handle.write(text + "\n")

    def table(self) -> str:
        lines = [
            "| family | cases | identical | output differs | only the message differs |",
            "|---|---:|---:|---:|---:|",
        ]
        lines += [f"| {f} | {c} | {i} | {o} | {m} |" for f, (c, i, o, m) in self.rows.items()]
        return "\n".join(lines)


def compare(
    base: Path, new: Path, families: tuple[str, ...], out: Path | None, examples: list[Path] = EXAMPLES
) -> Report:
    report = Report(out)
    with tempfile.TemporaryDirectory(prefix="compare-trees-") as tmp:
        work = Path(tmp)
        cases: list[Case] = []
        if "decide" in families:
            cases += decide_cases(examples)
        if "estimate" in families:
            cases += estimate_cases()
        if "corpus" in families:
            cases += corpus_cases(work, examples)
        for case in cases:
            report.add(case.family, case.name, run(base, case.argv, work), run(new, case.argv, work))
        if "synth" in families:
            # Both synthesize into the same path (it is written into the Terraform backend), then move.
            outs = {side: work / f"synth-{side}" for side in ("base", "new")}
            made = {}
            for side, src in (("base", base), ("new", new)):
                made[side] = synth(src, work / "synth")
                (work / "synth").rename(outs[side])
            report.add("synth", "cdktn synth of stacks/ (exit)", made["base"], made["new"])
            files = {side: synth_files(outs[side]) for side in outs}
            for name in sorted(set(files["base"]) | set(files["new"])):
                a, b = files["base"].get(name, b"<missing>"), files["new"].get(name, b"<missing>")
                report.add("synth", name, Outcome(0, a, b""), Outcome(0, b, b""))
            for fmt in ("json", "table", "markdown"):
                argv = ("reevaluate", "--now", NOW, "--format", fmt, "computeops.lock.json")
                seen = {}
                for side, src in (("base", base), ("new", new)):  # each lock read from the same path
                    shutil.copyfile(outs[side] / "computeops.lock.json", work / "computeops.lock.json")
                    seen[side] = run(src, argv, work)
                report.add("reevaluate", f"the synth's lock --format {fmt}", seen["base"], seen["new"])
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="the 'before' tree's src directory")
    parser.add_argument("new", type=Path, help="the 'after' tree's src directory")
    parser.add_argument("--out", type=Path, help="write every difference here (one .diff file per family)")
    parser.add_argument("--only", nargs="+", choices=FAMILIES, default=list(FAMILIES))
    parser.add_argument(
        "--strict-errors", action="store_true", help="a changed error message fails the run too"
    )
    args = parser.parse_args(argv)
    if args.out and args.out.exists():
        shutil.rmtree(args.out)
    report = compare(args.base.resolve(), args.new.resolve(), tuple(args.only), args.out)
    print(report.table())
    for text in report.failures[:5]:
        print("\n" + text[:2000])
    if report.messages:
        print(
            f"\n{len(report.messages)} error message(s) changed" + (f"; see {args.out}" if args.out else "")
        )
    return exit_code(report, strict_errors=args.strict_errors)


def exit_code(report: Report, *, strict_errors: bool) -> int:
    """1 when a successful output differs (or, with ``strict_errors``, any error message), else 0."""
    return 1 if report.failures or (strict_errors and report.messages) else 0


if __name__ == "__main__":
    raise SystemExit(main())
