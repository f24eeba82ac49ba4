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


_AUTO = """
import json, sys
import cdktf
from computeops_cdk import WorkloadStack
from computeops_cdk._compat import FRAMEWORK
from computeops_cdk.errors import MissingExtraError
app = cdktf.App(outdir=sys.argv[1])
WorkloadStack(app, "auto", intent={intent!r})
app.synth()
try:
    WorkloadStack(app, "pinned", intent={intent!r}, provider="aws")
    missing = None
except MissingExtraError as err:
    missing = str(err)
print(json.dumps({{"framework": FRAMEWORK, "missing": missing}}))
"""

_MIXED = """
import json, pathlib, sys
from computeops_cdk.constructs import BudgetGuard, WorkloadStack  # loads cdktn first: the default core
import cdktf, cdktn
from computeops_cdk._compat import FRAMEWORK
from computeops_cdk.errors import MissingExtraError
out = pathlib.Path(sys.argv[1])
app = cdktf.App(outdir=str(out / "cdktf"))
stack = WorkloadStack(app, "mixed", intent={intent!r})
cdktf.Aspects.of(app).add(BudgetGuard(max_hourly_usd=1, warn_only=True))
app.synth()
native = cdktn.App(outdir=str(out / "cdktn"))
WorkloadStack(native, "native", intent={intent!r})
native.synth()
try:
    WorkloadStack(app, "pinned", intent={intent!r}, provider="aws")
    missing = None
except MissingExtraError as err:
    missing = str(err)
notes = [m.data for m in stack.node.metadata] + [m.data for m in stack.workload.node.metadata]
print(json.dumps({{"default": FRAMEWORK, "cdktf_stack": isinstance(stack, cdktf.TerraformStack),
                  "missing": missing, "notes": notes}}))
"""


def _run(code: str, outdir: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "COMPUTEOPS_CDK_FRAMEWORK"}
    intent = str(ROOT / "examples" / "support-chat.yaml")
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code.format(intent=intent)), str(outdir)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_a_cdktf_app_works_without_the_environment_variable(tmp_path: Path) -> None:
    # Regression: without COMPUTEOPS_CDK_FRAMEWORK=cdktf a cdktf.App failed at synth ("type of argument
    # stack must be cdktf.TerraformStack"), and a pin to aws asked for the cdktn binding.
    report = _run(_AUTO, tmp_path)
    assert report["framework"] == "cdktf"
    assert (tmp_path / "stacks" / "auto" / "cdk.tf.json").is_file()
    assert str(report["missing"]).startswith("your pin chose aws; install cdktf-cdktf-provider-aws")


def test_one_process_with_both_cores_builds_a_cdktf_app_with_cdktf(tmp_path: Path) -> None:
    # Issue 9: the core was whichever was imported first, so a cdktf.App in a process that had loaded
    # cdktn (here: the constructs, imported first) was refused; now the scope's core builds it.
    report = _run(_MIXED, tmp_path)
    assert report["default"] == "cdktn" and report["cdktf_stack"] is True
    doc = json.loads((tmp_path / "cdktf" / "stacks" / "mixed" / "cdk.tf.json").read_text())
    assert doc["//"]["metadata"]["version"] == "0.21.0"  # synthesized by cdktf
    prefixes = {k.split("_")[0] for k in doc["resource"]}
    assert prefixes and prefixes <= set(doc["provider"])
    record = json.loads((tmp_path / "cdktf" / "stacks" / "mixed" / "computeops-decision.json").read_text())
    assert doc["output"]["workload_provider"]["value"] == record["decision"]["provider"]
    assert (tmp_path / "cdktf" / "stacks" / "mixed" / ".checkov.yaml").is_file()
    # The App's guard visited the cdktf stack; the placement info reached the cdktf tree.
    assert any("over the budget of 1.00 USD/h" in str(n) for n in report["notes"])
    assert any(str(n).startswith("computeops placement: ") for n in report["notes"])
    # The same process builds a cdktn app with cdktn.
    native = json.loads((tmp_path / "cdktn" / "stacks" / "native" / "cdk.tf.json").read_text())
    assert native["//"]["metadata"]["version"] == "0.24.0"
    # A missing binding names the package of the app's core, not of the default one.
    assert str(report["missing"]).startswith("your pin chose aws; install cdktf-cdktf-provider-aws")


def test_an_old_node_is_one_clear_error_naming_node_22(tmp_path: Path) -> None:
    # Under Node 20 jsii crashed (markAsUncloneable) after 11 end-of-life warnings.
    fake = tmp_path / "node"
    fake.write_text("#!/bin/sh\necho v20.20.2\n")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "JSII_NODE"}
    env["PATH"] = f"{tmp_path}{os.pathsep}{env.get('PATH', '')}"
    result = subprocess.run(
        [sys.executable, "-c", "import computeops_cdk._compat"], env=env, capture_output=True, text=True
    )
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("computeops_cdk.errors.MissingExtraError: the CDK runtime needs Node.js >= 22; ")
    assert f"{fake} is v20.20.2" in last and "npm install node@22" in last
    assert "end-of-life" not in result.stderr
