"""AMD GPUs boot AMD's ROCm images with the GPUs passed as devices, not NVIDIA's runtime flag.

Before: an MI300X placement booted ``vllm/vllm-openai`` (a CUDA build) with ``docker run --gpus
all``, which needs the NVIDIA container toolkit: the server never started on the machine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from boot_tools import boot_texts, check_boot
from conftest import make_placement as placement
from targets_testdata import resources, synth_cases

from computeops_cdk.engine import Placement
from computeops_cdk.targets._base import Target, TargetProps
from computeops_cdk.targets._boot import (
    DEFAULT_ROCM_TRAINING_IMAGE,
    DEFAULT_VLLM_ROCM_IMAGE,
    VLLM_SERVER,
    is_amd,
)
from computeops_cdk.targets.oci import OciTarget
from computeops_cdk.targets.runpod import RunPodTarget

MODEL = "meta-llama/Llama-3.1-8B-Instruct"
DEVICES = "--device /dev/kfd --device /dev/dri --group-add video --security-opt seccomp=unconfined"


def test_amd_ids_are_the_catalogs_amd_accelerators_and_no_other() -> None:
    catalog = Path(__file__).parents[2] / "src" / "computeops_cdk" / "catalog" / "data" / "catalog.json"
    vendors = {}
    for line in catalog.read_text(encoding="utf-8").splitlines():
        if line.startswith("{") and '"vendor":' in line and '"architecture":' in line:
            record = json.loads(line.rstrip(","))
            vendors[record["id"]] = record["vendor"]
    assert "AMD" in vendors.values() and len(set(vendors.values())) > 1
    amd = {acc for acc, vendor in vendors.items() if vendor == "AMD"}
    assert amd == {acc for acc in vendors if is_amd(acc)}


def test_the_rocm_image_runs_the_vllm_release_amd_decisions_are_sized_for() -> None:
    # a decision naming no engine on AMD is sized for the stacks' vLLM: the image must be that release
    from computeops_cdk.engine._sizing import STACK_SERVING_ENGINE

    engine, release = STACK_SERVING_ENGINE["amd"]
    assert engine == "vllm" and f"_vllm_{release}_" in DEFAULT_VLLM_ROCM_IMAGE


@pytest.fixture(scope="module")
def booted() -> dict[str, Any]:
    serve = {"model": MODEL}
    amd = {"accelerator": "MI300X", "accelerators_per_instance": 8}
    pod = {"accelerator": "MI300X", "accelerators_per_instance": 1}
    cases: dict[str, tuple[Target, Placement, TargetProps]] = {
        "amdserve": (
            OciTarget(),
            placement(provider="oci", instance_type="BM.GPU.MI300X.8", region="us-chicago-1", **amd),
            TargetProps(name="amdserve", options={"availability_domain": "AD-1"}, **serve),
        ),
        "amdtrain": (
            OciTarget(),
            placement(
                provider="oci", instance_type="BM.GPU.MI300X.8", region="us-chicago-1", training=True, **amd
            ),
            TargetProps(
                name="amdtrain",
                options={"availability_domain": "AD-1"},
                model=MODEL,
                workload_type="training",
            ),
        ),
        "nvserve": (
            OciTarget(),
            placement(provider="oci", instance_type="BM.GPU.H100.8", region="us-chicago-1"),
            TargetProps(name="nvserve", options={"availability_domain": "AD-1"}, **serve),
        ),
        "amdpod": (
            RunPodTarget(),
            placement(provider="runpod", instance_type="1x_MI300X_SECURE", region="EU-RO-1", **pod),
            TargetProps(name="amdpod", **serve),
        ),
        "amdpodtrain": (
            RunPodTarget(),
            placement(
                provider="runpod", instance_type="1x_MI300X_SECURE", region="EU-RO-1", training=True, **pod
            ),
            TargetProps(name="amdpodtrain", model=MODEL, workload_type="training"),
        ),
    }
    doc, _ = synth_cases("amd", cases)
    return doc


def _script(doc: dict[str, Any], name: str) -> str:
    (vm,) = resources(doc, "oci_core_instance", name)
    (text,) = boot_texts({"resource": {"oci_core_instance": {"vm": vm}}})
    return check_boot(text, terraform=False)  # base64 user_data: Terraform does not interpolate it


@pytest.mark.synth
@pytest.mark.parametrize(
    ("name", "image", "container"),
    [
        ("amdserve", DEFAULT_VLLM_ROCM_IMAGE, "--name vllm --restart unless-stopped"),
        ("amdtrain", DEFAULT_ROCM_TRAINING_IMAGE, "--name trainer --restart on-failure:3"),
    ],
)
def test_an_amd_machine_runs_amds_image_with_the_gpu_devices(
    booted: dict[str, Any], name: str, image: str, container: str
) -> None:
    script = _script(booted, name)
    assert f"IMAGE={image}" in script
    assert f"docker run -d {container} {DEVICES} --ipc host" in script
    assert "--gpus" not in script and "NVIDIA" not in script
    # an image without AMD's driver fails at boot with the reason, not later inside vLLM
    assert "if [ ! -e /dev/kfd ]; then" in script and "AMD GPU driver (amdgpu, ROCm)" in script


@pytest.mark.synth
def test_an_amd_server_is_the_images_command_checked_with_its_python(booted: dict[str, Any]) -> None:
    script = _script(booted, "amdserve")
    # the image starts a shell: the server is its command, checked with the image's own Python
    assert '--entrypoint python3 "$IMAGE" -m vllm.entrypoints.openai.api_server --model' in script
    assert "curl -fsS http://127.0.0.1:8000/health || exit 1" not in script
    assert "--tensor-parallel-size 8 --max-num-seqs 256" in script


@pytest.mark.synth
def test_an_nvidia_machine_keeps_the_cuda_image_and_gpus_flag(booted: dict[str, Any]) -> None:
    script = _script(booted, "nvserve")
    assert "IMAGE=vllm/vllm-openai:v0.10.0" in script and "--gpus all --ipc host" in script
    assert "/dev/kfd" not in script and "NVIDIA container toolkit" in script


@pytest.mark.synth
def test_an_amd_pod_runs_the_server_as_the_rocm_images_command(booted: dict[str, Any]) -> None:
    (pod,) = resources(booted, "runpod_pod", "amdpod")
    assert pod["image"] == DEFAULT_VLLM_ROCM_IMAGE
    assert pod["gpu_type_id"] == "AMD Instinct MI300X OAM"
    flags = "--tensor-parallel-size 1 --max-num-seqs 256"
    assert pod["args"] == f"{VLLM_SERVER} --model {MODEL} --host 0.0.0.0 --port 8000 {flags}"


def _plan(accelerator: str, **options: object) -> Any:
    from computeops_cdk.targets._boot import plan_for

    amd = placement(provider="oci", instance_type="BM.GPU.X.8", accelerator=accelerator)
    return plan_for(amd, TargetProps(name="t", model=MODEL, options=options), target="oci", store=None)


def test_an_amd_part_without_a_documented_default_image_needs_one() -> None:
    from computeops_cdk.errors import TargetError

    # MI355X needs ROCm 7, which the default images are not; a newer Instinct id counts as AMD too
    for accelerator in ("MI355X", "MI400X"):
        with pytest.raises(TargetError, match=rf"no default container image runs on {accelerator}.*To fix"):
            _plan(accelerator)
    plan = _plan("MI355X", container_image="example.org/rocm7/vllm:1")
    assert plan.amd and plan.image == "example.org/rocm7/vllm:1"
    assert not _plan("H100-SXM").amd


def test_only_amds_shell_images_get_the_server_as_their_command() -> None:
    from computeops_cdk.targets._boot import vllm_args

    assert vllm_args(_plan("MI300X")).startswith(f"{VLLM_SERVER} --model ")
    # an image whose entrypoint is the server takes the arguments alone, as on NVIDIA
    assert vllm_args(_plan("MI300X", container_image="example.org/vllm-openai-rocm:1")).startswith("--model ")


@pytest.mark.synth
def test_an_amd_pod_trains_in_amds_pytorch_image(booted: dict[str, Any]) -> None:
    (pod,) = resources(booted, "runpod_pod", "amdpodtrain")
    assert pod["image"] == DEFAULT_ROCM_TRAINING_IMAGE
