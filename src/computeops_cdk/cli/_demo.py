"""``python -m computeops_cdk.cli._demo``: run ``cdktn synth`` on the example apps under ``stacks/``.

Run by ``make demo`` after the decide step. For each example it prints a progress line, the
placement the engine chose (read back from the decision record written beside the stack), whether it
came from the app's ``computeops.lock.json`` or was decided afresh and locked, and where the
synthesized Terraform JSON is. Then it re-evaluates the first example's lock against a copy of the
catalog in which the locked offer costs 50 % more (``computeops reevaluate``), as a scheduled CI job
would after a price change. Uses the repository's cdktn CLI (``node_modules/.bin``, Node 22)
and this interpreter's directory first on PATH, so ``python main.py`` in each ``cdktf.json`` is the
interpreter that has computeops-cdk installed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

from ..errors import did_you_mean, did_you_mean_text

__all__ = ["main"]

DECISION_FILE = "computeops-decision.json"  # same name as constructs.DECISION_FILE (no cdktn import here)
LOCKFILE = "computeops.lock.json"  # lockfile.LOCKFILE_NAME
FIRST = ("inference-auto", "training-pinned")


def _root() -> Path:
    here = Path.cwd()
    if (here / "stacks").is_dir():
        return here
    return Path(__file__).resolve().parents[3]


def _env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    path = [str(root / "node_modules" / ".bin"), str(Path(sys.executable).parent), env.get("PATH", "")]
    env["PATH"] = os.pathsep.join(path)
    env.setdefault("CHECKPOINT_DISABLE", "1")
    env.setdefault("CDKTN_DISABLE_TELEMETRY", "true")
    return env


def _summary(record: Path) -> str:
    chosen = json.loads(record.read_text())["decision"]
    unit = chosen["unit_cost"]
    unit_text = (
        "USD/1M output tokens" if unit["unit"] == "usd_per_million_output_tokens" else "USD/training step"
    )
    return (
        f"{chosen['provider']} {chosen['instance_type']} x{chosen['instances']} "
        f"({chosen['accelerators_per_instance']} x {chosen['accelerator']} each) in {chosen['region']}, "
        f"{chosen['pricing']}, {chosen['hourly_usd']:,.2f} USD/h, {unit['value']:.4g} {unit_text}"
    )


def _lockfile(root: Path, name: str, output: Path | None) -> Path:
    """Where an example's lock lives: beside its cdktf.json, or under ``--output`` when given."""
    return (output / name if output else root / "stacks" / name) / LOCKFILE


def _synth(root: Path, name: str, cdktn: Path, output: Path | None) -> bool:
    app_dir = root / "stacks" / name
    synth_out = (output / name) if output else app_dir / "cdktf.out"
    print(f"==> cdktn synth stacks/{name}", flush=True)
    started = time.perf_counter()
    env = {**_env(root), "COMPUTEOPS_LOCKFILE": str(_lockfile(root, name, output))}
    result = subprocess.run(
        [str(cdktn), "synth", "--output", str(synth_out)],
        cwd=app_dir,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    out_dir = synth_out / "stacks" / name
    if result.returncode != 0 or not (out_dir / "cdk.tf.json").exists():
        print(f"    failed after {seconds:.1f} s:", file=sys.stderr)
        print(textwrap_tail(result.stdout + result.stderr), file=sys.stderr)
        return False
    print(f"    chosen: {_summary(out_dir / DECISION_FILE)}")
    print(f"    lock:      {_lock_line(out_dir / DECISION_FILE, root)}")
    print(f"    terraform: {_shown(out_dir / 'cdk.tf.json', root)}  ({seconds:.1f} s)")
    print(f"    decision:  {_shown(out_dir / DECISION_FILE, root)}")
    return True


def _lock_line(record: Path, root: Path) -> str:
    lock = json.loads(record.read_text()).get("lock")
    if not lock:
        return "none (COMPUTEOPS_LOCKFILE=off)"
    where = _shown(Path(lock["file"]), root)
    if lock["status"] == "locked":
        return f"from {where} (locked {lock['locked_at']}; the catalog no longer moves it)"
    return f"{lock['status']} to {where} (a fresh decision, now kept between synths)"


def _changed_catalog(lock_path: Path, target: Path) -> Path:
    """The embedded catalog with the locked offer 50 % dearer, re-hashed: a week of market movement."""
    from ..catalog._build import content_sha256
    from ..catalog._load import EMBEDDED_CATALOG

    placement = json.loads(lock_path.read_text())["workloads"]
    locked = next(iter(placement.values()))["placement"]
    key = (locked["provider"], locked["instance_type"], locked["region"], locked["pricing"])
    doc = json.loads(Path(EMBEDDED_CATALOG).read_text(encoding="utf-8"))
    for offer in doc["offers"]:
        if (offer["provider"], offer["instance_type"], offer["region"], offer["pricing"]) == key:
            offer["hourly_usd"] = round(offer["hourly_usd"] * 1.5, 4)
    doc["version"] = f"{doc['version']}.1"
    doc["sha256"] = content_sha256(doc)
    target.write_text(json.dumps(doc), encoding="utf-8")
    return target


def _reevaluate(root: Path, name: str, output: Path | None) -> None:
    lock_path = _lockfile(root, name, output)
    if not lock_path.exists():
        return
    with tempfile.TemporaryDirectory(prefix="computeops-demo-") as scratch:
        changed = _changed_catalog(lock_path, Path(scratch) / "catalog-next-week.json")
        shown = _shown(lock_path, root)
        # Two days on, past the 24 h minimum hold a fresh lock gets (a scheduled job's view).
        locked = next(iter(json.loads(lock_path.read_text())["workloads"].values()))["placement"]
        later = datetime.fromisoformat(locked["locked_at"].replace("Z", "+00:00")) + timedelta(days=2)
        now = later.strftime("%Y-%m-%dT%H:%M:%SZ")
        print(f"==> computeops reevaluate {shown} --catalog <the locked offer 50 % dearer> --now {now}")
        argv = ["reevaluate", str(lock_path), "--catalog", str(changed), "--now", now]
        result = subprocess.run(
            [sys.executable, "-m", "computeops_cdk.cli", *argv],
            env={**_env(root), "COLUMNS": "140"},
            capture_output=True,
            text=True,
            check=False,
        )
    print(textwrap_tail(result.stdout, lines=40))
    meaning = {
        0: "nothing to act on",
        4: "drift found: a CI job would open a pull request",
        3: "nothing feasible",
    }
    print(f"    exit {result.returncode}: {meaning.get(result.returncode, result.stderr.strip())}")


def _shown(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def textwrap_tail(text: str, lines: int = 25) -> str:
    """The last ``lines`` lines of a tool's output, indented."""
    return "\n".join("    " + line for line in text.strip().splitlines()[-lines:])


def main(argv: Sequence[str] | None = None) -> int:
    """Synthesize the example stacks; exit 1 when any fails."""
    parser = argparse.ArgumentParser(prog="python -m computeops_cdk.cli._demo", description=__doc__)
    parser.add_argument("stacks", nargs="*", help="example names under stacks/ (default: all)")
    parser.add_argument(
        "--output", type=Path, help="write <OUTPUT>/<name>/ instead of stacks/<name>/cdktf.out (default)"
    )
    args = parser.parse_args(argv)
    root = _root()
    cdktn = root / "node_modules" / ".bin" / "cdktn"
    if not cdktn.exists():
        print(f"error: {cdktn} not found. To fix: run `make demo` (it runs `npm ci`).", file=sys.stderr)
        return 2
    found = {p.parent.name for p in (root / "stacks").glob("*/cdktf.json")}
    # The two the README walks through first (engine's choice, then a pin), the rest by name.
    available = [n for n in FIRST if n in found] + sorted(found - set(FIRST))
    names = args.stacks or available
    unknown = [n for n in names if n not in available]
    if unknown:
        hint = did_you_mean_text(did_you_mean(unknown[0], available))
        print(
            f"error: unknown example(s) {unknown}; available: {', '.join(available)}{hint}. "
            "To fix: name examples from that list, or none to synthesize them all.",
            file=sys.stderr,
        )
        return 2
    print(f"Synthesizing {len(names)} example stack(s) with cdktn (CDK Terrain) ...")
    output = args.output.resolve() if args.output else None
    if output is not None:
        output.mkdir(parents=True, exist_ok=True)  # cdktn creates only the last level
    ok = [_synth(root, name, cdktn, output) for name in names]
    if all(ok):
        _reevaluate(root, names[0], output)
    if all(ok):
        where = f"{output}/<name>" if output else "stacks/<name>/cdktf.out"
        print(f"Done: each {where}/stacks/<name>/ holds cdk.tf.json; run terraform or tofu init/plan there.")
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
