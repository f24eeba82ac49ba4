"""computeops's checkov policies (CKV_COPS_*) over the generic targets' resources, run the way a user
runs them: ``checkov --config-file <stack>/.checkov.yaml -d <stack>`` (issue 10 section 1).

Before, checkov had no check for lambdalabs, nebius, crusoe, runpod, vastai or a CoreWeave NodePool:
"0 failed" meant "not checked". Each target's stack must now pass > 0 checks and fail none (its
justified skips in the config), and each policy must fail the insecure variant."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import make_placement as placement
from targets_testdata import needs_checkov, synth_cases

from computeops_cdk.checkov_policies import CONFIG_FILE, POLICIES_DIR, config_text
from computeops_cdk.targets import checkov_skips
from computeops_cdk.targets._base import TargetProps
from computeops_cdk.targets.coreweave import CoreWeaveTarget
from computeops_cdk.targets.crusoe import CrusoeTarget
from computeops_cdk.targets.lambda_ import LambdaTarget
from computeops_cdk.targets.nebius import NebiusTarget
from computeops_cdk.targets.runpod import RunPodTarget
from computeops_cdk.targets.vast import VastTarget

pytestmark = [pytest.mark.synth, needs_checkov]

CASES: dict[str, tuple[Any, dict[str, Any], TargetProps]] = {
    "lambda": (LambdaTarget(), {"instance_type": "gpu_1x_h100_pcie"}, TargetProps(name="w")),
    "nebius": (NebiusTarget(), {"instance_type": "gpu-h100-sxm_1gpu-16vcpu-200gb"}, TargetProps(name="w")),
    "crusoe": (CrusoeTarget(), {"instance_type": "crusoe_L40Sx4"}, TargetProps(name="w")),
    "runpod": (
        RunPodTarget(),
        {"instance_type": "1x_H100-SXM_SECURE", "region": "US-TX-3"},
        TargetProps(name="w"),
    ),
    "vast": (VastTarget(), {"instance_type": "1x-H100_SXM-32-65536"}, TargetProps(name="w")),
    "coreweave": (
        CoreWeaveTarget(),
        {"instance_type": "hgx-h100-8x", "region": "US-EAST"},
        TargetProps(name="w", cluster="cks"),
    ),
}


def _checkov(directory: Path) -> dict[str, Any]:
    from targets_testdata import _CHECKOV

    assert _CHECKOV is not None
    command = [_CHECKOV, "--config-file", str(directory / CONFIG_FILE), "-d", str(directory)]
    result = subprocess.run([*command, "--compact", "-o", "json"], capture_output=True, text=True)
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _stack(root: Path, name: str, cases: dict[str, Any], skips: dict[str, str]) -> Path:
    doc, _ = synth_cases(f"cops-{name}", cases)
    directory = root / name
    directory.mkdir()
    (directory / "cdk.tf.json").write_text(json.dumps(doc))
    (directory / CONFIG_FILE).write_text(config_text(skips))
    return directory


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("cops")
    out = {}
    for provider, (target, fields, props) in CASES.items():
        cases = {provider: (target, placement(provider=provider, **fields), props)}
        out[provider] = _checkov(_stack(root, provider, cases, dict(checkov_skips(provider))))
    return out


@pytest.mark.parametrize("provider", list(CASES))
def test_each_generic_target_is_checked_and_passes(reports: dict[str, dict[str, Any]], provider: str) -> None:
    report = reports[provider]
    assert report["results"]["failed_checks"] == []
    passed = {c["check_id"] for c in report["results"]["passed_checks"]}
    assert passed and all(c.startswith("CKV_COPS_") for c in passed), passed


def test_every_skip_has_a_reason_in_the_config() -> None:
    for provider in CASES:
        text = config_text(dict(checkov_skips(provider)))
        for check, reason in checkov_skips(provider).items():
            assert len(reason) > 40 and f"# {check}: " in text and f"  - {check}" in text


@pytest.fixture(scope="module")
def insecure(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Variants each policy must fail: public ports and a password, an unpinned image, a NIC with a
    public address, no SSH key, no GPU taint. Scanned with no skips."""
    root = tmp_path_factory.mktemp("insecure")
    cases = {
        "runpod": (
            RunPodTarget(),
            placement(provider="runpod", instance_type="1x_H100-SXM_SECURE"),
            TargetProps(name="w", options={"ports": ["22/tcp"], "env": {"ROOT_PASSWORD": "x"}}),
        ),
        "vast": (
            VastTarget(),
            placement(provider="vast", instance_type="1x-H100_SXM-32-65536"),
            TargetProps(name="w", options={"image": "vllm/vllm-openai:latest"}),
        ),
        "lambda": (
            LambdaTarget(),
            placement(provider="lambda", instance_type="gpu_1x_h100_pcie"),
            TargetProps(name="w", options={"ssh_key_name": "k"}),
        ),
    }
    return _checkov(_stack(root, "insecure", cases, {}))


def test_the_policies_fail_insecure_resources(insecure: dict[str, Any]) -> None:
    failed: dict[str, set[str]] = {}
    for c in insecure["results"]["failed_checks"]:
        # resource ids are "resource.<case>_<logical id>": the case names the target
        failed.setdefault(c["check_id"], set()).add(c["resource"].removeprefix("resource.").split("_")[0])
    assert failed == {
        "CKV_COPS_1": {"runpod", "lambda"},  # ports on RunPod's public proxy; Lambda is always public
        "CKV_COPS_2": {"runpod"},  # a password in the environment
        "CKV_COPS_3": {"vast"},  # vllm/vllm-openai:latest
    }


def test_policy_helpers() -> None:
    import sys

    sys.path.insert(0, str(POLICIES_DIR))
    try:
        from gpu_machines import image_is_pinned  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(POLICIES_DIR))
    assert image_is_pinned("vllm/vllm-openai:v0.10.0")
    assert image_is_pinned("nvcr.io/nvidia/pytorch@sha256:" + "a" * 64)
    assert image_is_pinned("${var.image}")
    for bad in ("vllm/vllm-openai:latest", "vllm/vllm-openai", "localhost:5000/img", "", None):
        assert not image_is_pinned(bad), bad
