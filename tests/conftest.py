"""Shared fixtures. Synth grouping: jsii bindings are costly to load, so every synth test module
builds its stacks once (module/session-scoped fixtures) and asserts many things on the result."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# jsii starts `node` from PATH: the repository's Node 22 comes first (the machine's Node is older).
_NODE_BIN = ROOT / "node_modules" / ".bin"
if _NODE_BIN.is_dir() and not os.environ.get("PATH", "").startswith(str(_NODE_BIN)):
    os.environ["PATH"] = f"{_NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
os.environ.setdefault("CHECKPOINT_DISABLE", "1")
os.environ.setdefault("CDKTN_DISABLE_TELEMETRY", "true")
# The repository root holds a cdktf.json, so a workload constructed here would lock itself into
# ./computeops.lock.json: tests decide afresh unless they name a lockfile (tests/constructs/test_lock.py).
os.environ["COMPUTEOPS_LOCKFILE"] = "off"
os.environ.pop("COMPUTEOPS_RELOCK", None)
# cdktn's Testing.synth makes a `cdktf.outdir.*` folder in Node's temporary directory for each stack
# and never removes it (about 300 per run of the suite). The processes the suite starts (Node for
# jsii, the CLI, terraform) get a temporary directory of the session's own, removed at exit; this
# process keeps the machine's (pytest's tmp_path stays where it was).
tempfile.gettempdir()
SESSION_TMP = tempfile.mkdtemp(prefix="computeops-tests-")
os.environ["TMPDIR"] = SESSION_TMP
atexit.register(shutil.rmtree, SESSION_TMP, ignore_errors=True)  # after jsii's own exit handler stops Node


def make_placement(**overrides: object):  # type: ignore[no-untyped-def]
    """A hand-built Placement (no engine): an 8x H100 on-demand aws inference box unless overridden."""
    from computeops_cdk.engine import EstimateSummary, Placement, UnitCost

    training = overrides.pop("training", False)
    fields: dict[str, object] = {
        "provider": "aws",
        "instance_type": "p5.48xlarge",
        "accelerator": "H100-SXM",
        "accelerators_per_instance": 8,
        "instances": 1,
        "region": "us-east-1",
        "country": "US",
        "continent": "NA",
        "pricing": "on_demand",
        "hourly_usd": 55.04,
        "monthly_usd": 55.04 * 730,
        "unit_cost": UnitCost(
            unit="usd_per_training_step" if training else "usd_per_million_output_tokens", value=0.5
        ),
        "total_usd": None,
        "hours": None,
        "estimate": EstimateSummary(
            tokens_per_s=1000.0, ttft_ms=None, tpot_ms=None, model="test", tensor_parallel=None, replicas=None
        ),
        "attestations": (),
        "scores": {},
        "score": 0.5,
    }
    fields.update(overrides)
    return Placement(**fields)  # type: ignore[arg-type]
