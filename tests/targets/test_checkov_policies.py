"""computeops's checkov policies (CKV_COPS_*) over the generic targets' resources, run the way a user
runs them: plain ``checkov`` in the stack directory, which reads the ``.checkov.yaml`` and the copy of
the policies written beside the stack (issue 10 section 1).

Before, checkov had no check for lambdalabs, nebius, crusoe, runpod, vastai or a CoreWeave NodePool:
"0 failed" meant "not checked". Each target's stack must now pass > 0 checks and fail none (its
justified skips in the config), and each policy must fail the insecure variant."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import make_placement as placement
from targets_testdata import needs_checkov, synth_cases

from computeops_cdk.checkov_policies import CONFIG_FILE, POLICIES_DIR, VENDORED_DIR, config_text, write_config
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
    # In the stack directory, as its .checkov.yaml says (the policies' path is relative to it).
    result = subprocess.run(
        [*command, "--compact", "-o", "json"], capture_output=True, text=True, cwd=directory
    )
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _stack(root: Path, name: str, cases: dict[str, Any], skips: dict[str, str]) -> Path:
    doc, _ = synth_cases(f"cops-{name}", cases)
    directory = root / name
    directory.mkdir()
    (directory / "cdk.tf.json").write_text(json.dumps(doc))
    write_config(directory, skips)
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


def test_nebius_disk_encryption_policy(tmp_path: Path) -> None:
    """CKV_COPS_5 fails the default NETWORK_SSD boot disk (Nebius cannot encrypt that type: skipped
    in the stack's config with the reason) and passes an encrypted NETWORK_SSD_IO_M3 one."""
    nebius = placement(provider="nebius", instance_type="gpu-h100-sxm_1gpu-16vcpu-200gb")
    cases = {
        "plain": (NebiusTarget(), nebius, TargetProps(name="w")),
        "iom3": (
            NebiusTarget(),
            nebius,
            TargetProps(name="w", options={"boot_disk_type": "NETWORK_SSD_IO_M3"}),
        ),
    }
    report = _checkov(_stack(tmp_path, "enc", cases, {}))
    results = {
        (c["check_id"], c["resource"].removeprefix("resource.").split("_")[0], verdict)
        for verdict in ("passed", "failed")
        for c in report["results"][f"{verdict}_checks"]
        if c["check_id"] == "CKV_COPS_5"
    }
    assert results == {("CKV_COPS_5", "plain", "failed"), ("CKV_COPS_5", "iom3", "passed")}
    assert (
        "CKV_COPS_5" in checkov_skips("nebius")
        and "NETWORK_SSD_IO_M3" in checkov_skips("nebius")["CKV_COPS_5"]
    )


def test_nebius_boot_disk_type_is_checked() -> None:
    from computeops_cdk.errors import TargetError
    from computeops_cdk.targets.nebius import _boot_disk_spec

    assert _boot_disk_spec({})["type"] == "NETWORK_SSD" and "disk_encryption" not in _boot_disk_spec({})
    spec = _boot_disk_spec({"boot_disk_type": "NETWORK_SSD_NON_REPLICATED", "boot_disk_gb": 279})
    assert spec["disk_encryption"] == {"type": "DISK_ENCRYPTION_MANAGED"}
    with pytest.raises(TargetError, match="multiple of 93 GiB"):
        _boot_disk_spec({"boot_disk_type": "NETWORK_SSD_NON_REPLICATED", "boot_disk_gb": 200})
    with pytest.raises(TargetError, match="NETWORK_SSD_IO_M3"):
        _boot_disk_spec({"boot_disk_type": "NETWORK_HDD"})


def test_the_config_is_portable(tmp_path: Path) -> None:
    """No absolute path in .checkov.yaml: the stack directory copied elsewhere (another machine, a CI
    checkout without computeops installed) gives the same result with plain ``checkov`` in it, and
    from another directory with the documented ``--external-checks-dir``."""
    target, fields, props = CASES["vast"]
    cases = {"vast": (target, placement(provider="vast", **fields), props)}
    original = _stack(tmp_path, "orig", cases, dict(checkov_skips("vast")))
    text = (original / CONFIG_FILE).read_text()
    assert str(tmp_path) not in text and str(POLICIES_DIR) not in text
    moved = tmp_path / "elsewhere" / "stack"
    shutil.copytree(original, moved)
    shutil.rmtree(original)
    in_place = _checkov(moved)
    other = tmp_path / "other"
    other.mkdir()
    command = [
        _checkov_binary(),
        "--config-file",
        str(moved / CONFIG_FILE),
        "-d",
        str(moved),
        "--external-checks-dir",
        str(moved / VENDORED_DIR),
        "--compact",
        "-o",
        "json",
    ]
    from_elsewhere = json.loads(subprocess.run(command, capture_output=True, text=True, cwd=other).stdout)
    for report in (in_place, from_elsewhere):
        passed = {c["check_id"] for c in report["results"]["passed_checks"]}
        assert report["results"]["failed_checks"] == [] and {"CKV_COPS_2", "CKV_COPS_3"} <= passed, passed


def _checkov_binary() -> str:
    from targets_testdata import _CHECKOV

    assert _CHECKOV is not None
    return _CHECKOV
