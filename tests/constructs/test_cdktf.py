"""Smoke suite on the legacy cdktf 0.21 core (COMPUTEOPS_CDK_FRAMEWORK=cdktf, fresh interpreter)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT

pytestmark = [pytest.mark.cdktf, pytest.mark.synth]

_CODE = """
import json, sys
from computeops_cdk._compat import App, FRAMEWORK
from computeops_cdk.constructs import WorkloadStack
from computeops_cdk.errors import MissingExtraError
app = App(outdir=sys.argv[1])
WorkloadStack(app, "smoke", intent={intent!r})
app.synth()
try:
    WorkloadStack(app, "pinned", intent={intent!r}, provider="aws")
    missing = None
except MissingExtraError as err:
    missing = [err.extra, str(err)]
cores = sorted({{m.split(".")[0] for m in sys.modules if m.split(".")[0] in ("cdktn", "cdktf")}})
print(json.dumps({{"framework": FRAMEWORK, "cores": cores, "missing": missing}}))
"""


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    outdir = tmp_path_factory.mktemp("cdktf.out")
    code = _CODE.format(intent=str(ROOT / "examples" / "support-chat.yaml"))
    env = {**os.environ, "COMPUTEOPS_CDK_FRAMEWORK": "cdktf"}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), str(outdir)], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return outdir / "stacks" / "smoke", json.loads(result.stdout.strip().splitlines()[-1])


def test_runs_on_cdktf_without_loading_cdktn(smoke: tuple[Path, dict[str, object]]) -> None:
    _, report = smoke
    assert report["framework"] == "cdktf"
    assert report["cores"] == ["cdktf"]


def test_generic_resource_stack_and_decision_record(smoke: tuple[Path, dict[str, object]]) -> None:
    stack_dir, _ = smoke
    doc = json.loads((stack_dir / "cdk.tf.json").read_text())
    assert doc["//"]["metadata"]["version"] == "0.21.0"
    record = json.loads((stack_dir / "computeops-decision.json").read_text())
    # Every emitted resource belongs to a provider block the stack configures (generic resources:
    # the Terraform type's prefix is the provider's local name, e.g. lambdalabs_instance).
    prefixes = {k.split("_")[0] for k in doc["resource"]}
    assert prefixes and prefixes <= set(doc["provider"])
    assert doc["output"]["workload_provider"]["value"] == record["decision"]["provider"]


def test_a_missing_cdktf_binding_names_the_cdktf_package(smoke: tuple[Path, dict[str, object]]) -> None:
    _, report = smoke
    extra, message = report["missing"]  # type: ignore[misc]
    assert extra == "aws"
    assert message.startswith("your pin chose aws; install cdktf-cdktf-provider-aws")
    assert message.endswith("To fix: pip install cdktf-cdktf-provider-aws.")
