"""The demo drives the real cdktn CLI (Node 22) on an example app and reports the placement."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

pytestmark = pytest.mark.synth


def test_demo_synthesizes_an_example_with_cdktn(tmp_path: Path) -> None:
    if not (ROOT / "node_modules" / ".bin" / "cdktn").exists():
        pytest.fail("node_modules/.bin/cdktn is missing: run `npm ci` (make test does)")
    # inference-auto needs no prebuilt binding, so this exercises the CLI path cheaply.
    result = subprocess.run(
        [sys.executable, "-m", "computeops_cdk.cli._demo", "inference-auto", "--output", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = tmp_path / "inference-auto" / "stacks" / "inference-auto"
    record = json.loads((out / "computeops-decision.json").read_text())["decision"]
    lines = result.stdout.splitlines()
    assert lines[1] == "==> cdktn synth stacks/inference-auto"
    assert lines[2].startswith(
        f"    chosen: {record['provider']} {record['instance_type']} x{record['instances']} "
    )
    assert lines[3] == (
        f"    lock:      written to {tmp_path / 'inference-auto' / 'computeops.lock.json'} "
        "(a fresh decision, now kept between synths)"
    )
    assert lines[4].startswith(f"    terraform: {out / 'cdk.tf.json'}")
    # Then the lock is re-evaluated against the same catalog with the locked offer 50 % dearer.
    assert any(line.startswith("==> computeops reevaluate ") for line in lines)
    assert lines[-2].startswith("    exit 4: drift found") or lines[-2].startswith("    exit 0")
    assert "moved from" in result.stdout and "+50.0 %" in result.stdout
    assert (
        json.loads((out / "cdk.tf.json").read_text())["output"]["workload_provider"]["value"]
        == record["provider"]
    )


def test_demo_rejects_an_unknown_example() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "computeops_cdk.cli._demo", "nope"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 2
    assert result.stderr.startswith(
        "error: unknown example(s) ['nope']; available: inference-auto, training-pinned,"
    )


def test_demo_suggests_a_close_example_name() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "computeops_cdk.cli._demo", "inference-aut"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.rstrip().endswith(
        "(did you mean 'inference-auto' or 'inference-azure' or 'inference-aws'?). "
        "To fix: name examples from that list, or none to synthesize them all."
    )
