"""RunPod: ``runpod_pod`` through the official ``runpod/runpod`` 2.0 provider (beta).

Credentials: ``RUNPOD_API_KEY``. Our RunPod instance types are SkyPilot's ``<n>x_<GPU>_<CLOUD>``
names (``8x_H100-SXM_SECURE``); the GPU part maps to RunPod's GPU type id (``NVIDIA H100 80GB HBM3``)
with the table SkyPilot uses to launch pods (``sky/provision/runpod/utils.py`` ``GPU_NAME_MAP``).
The region is a RunPod data-centre id (``US-TX-3``), passed as ``data_center_ids``.

Options: ``RunPodTarget.options``. ``hf_token_secret`` names a RunPod secret, passed as
``{{ RUNPOD_SECRET_<name> }}`` so RunPod resolves it in the pod (never the token itself). RunPod runs
the container natively: the vLLM server arguments are the pod's ``args``. Pods have no load balancer
resource, so ``expose`` is not an option (each pod gets RunPod's proxy address for its HTTP port).
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Mapping
from typing import Any

from ..engine import Placement
from ..errors import TargetError, did_you_mean, did_you_mean_text
from ._base import Target, TargetProps
from ._boot import BOOT_OPTIONS, DEFAULT_VLLM_IMAGE, plan_for, refuse_script_options, vllm_args
from ._support import require_supported
from ._unsupported import UNSUPPORTED

__all__ = [
    "CHECKOV_SKIPS",
    "DEFAULT_IMAGE",
    "DEFAULT_VLLM_IMAGE",
    "GPU_TYPE_IDS",
    "RunPodTarget",
    "data_center_ids",
    "pod_shape",
]

CHECKOV_SKIPS: Mapping[str, str] = {}
"""checkov checks the emitted resources fail on purpose: none (checkov has no checks for them;
computeops's own CKV_COPS_* policies, computeops_cdk/checkov_policies, pass)."""

DEFAULT_IMAGE = "runpod/pytorch:2.8.0-py3.11-cuda12.8.1-cudnn-devel-ubuntu22.04"
"""The image RunPod's own Terraform 2.0 example launches."""

GPU_TYPE_IDS: Mapping[str, str] = {
    "A100-80GB": "NVIDIA A100 80GB PCIe",
    "A100-80GB-SXM": "NVIDIA A100-SXM4-80GB",
    "A40": "NVIDIA A40",
    "B200": "NVIDIA B200",
    "H100": "NVIDIA H100 PCIe",
    "H100-NVL": "NVIDIA H100 NVL",
    "H100-SXM": "NVIDIA H100 80GB HBM3",
    "H200-SXM": "NVIDIA H200",
    "L4": "NVIDIA L4",
    "L40": "NVIDIA L40",
    "L40S": "NVIDIA L40S",
    "MI300X": "AMD Instinct MI300X OAM",
    "RTX3090": "NVIDIA GeForce RTX 3090",
    "RTX4090": "NVIDIA GeForce RTX 4090",
    "RTX4000-Ada": "NVIDIA RTX 4000 Ada Generation",
    "RTX6000-Ada": "NVIDIA RTX 6000 Ada Generation",
    "RTXA4000": "NVIDIA RTX A4000",
    "RTXA4500": "NVIDIA RTX A4500",
    "RTXA5000": "NVIDIA RTX A5000",
    "RTXA6000": "NVIDIA RTX A6000",
}
"""SkyPilot RunPod GPU name -> ``gpu_type_id`` (skypilot-org/skypilot ``sky/provision/runpod/utils.py``)."""

_TYPE = re.compile(r"^(\d+)x_(.+)_(SECURE|COMMUNITY)$")
_DATA_CENTER = re.compile(r"^[A-Z]{2,3}-[A-Z]{2,3}-\d+$")


def pod_shape(instance_type: str) -> tuple[str, int, str]:
    """``8x_H100-SXM_SECURE`` -> (``NVIDIA H100 80GB HBM3``, 8, ``SECURE``): gpu_type_id, gpu_count, cloud.

    Raises:
        TargetError: not ``<n>x_<GPU>_<CLOUD>``, or a GPU without a known RunPod id ("did you mean").
    """
    match = _TYPE.match(instance_type.strip())
    gpu_type = GPU_TYPE_IDS.get(match.group(2)) if match else None
    if match is None or gpu_type is None:
        hint = did_you_mean_text(did_you_mean(match.group(2), GPU_TYPE_IDS) if match else [])
        raise TargetError(
            f"runpod target cannot map instance type {instance_type!r} to a RunPod GPU type id"
            f"{hint}. It expects '<count>x_<GPU>_SECURE' with GPU one of "
            f"{', '.join(sorted(GPU_TYPE_IDS))}. "
            "To fix: pin a known RunPod type."
        )
    return gpu_type, int(match.group(1)), match.group(3)


def data_center_ids(region: str) -> list[str] | None:
    """``[region]`` when the region is a RunPod data-centre id (``US-TX-3``, ``CA-MTL-1``), else None.

    None leaves placement to RunPod (a country code or an empty region carries no data-centre choice).
    """
    return [region] if _DATA_CENTER.match(region) else None


NATIVE = "RunPod runs the pod's container itself; there is no boot script"


NO_OBJECT_STORE = (
    "RunPod runs the container itself (no boot script copies weights) and a pod has no cloud identity"
    " a bucket grants access to"
)
"""Why ``weights_uri`` is refused on runpod."""


class RunPodTarget(Target):
    """RunPod target: one ``runpod_pod`` per instance."""

    provider = "runpod"
    extra = None
    options: Mapping[str, str] = {
        "image": "container image. Default: DEFAULT_IMAGE.",
        "disk_gb": "container disk in GB. Default: 50.",
        "ports": "ports to expose (list). Default: none.",
        "env": "environment variables (mapping). Default: none.",
        "model_url": "model vLLM serves (a Hugging Face id). Default: the registry's Hugging Face id.",
        "port": "port vLLM serves on. Default: 8000.",
        "command": "training arguments (a list) of the container. Default: the image's own command.",
        **BOOT_OPTIONS,
        "weights_uri": f"not supported ({NO_OBJECT_STORE}): refused. Default: none (Hugging Face).",
        "hf_token_secret": "name of the RunPod secret holding the Hugging Face token. Default: none.",
        "container_image": "same as image. Default: see image.",
        "user_data": f"not supported ({NATIVE}): refused. Default: none.",
        "user_data_append": f"not supported ({NATIVE}): refused. Default: none.",
    }
    unsupported = UNSUPPORTED["runpod"]  # declared in _unsupported.py

    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        from ._generic import GenericProvider

        return GenericProvider(scope, "provider-runpod", local_name="runpod")

    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        from ._generic import RunpodPod

        require_supported(self, placement, props)
        gpu_type, count, cloud = pod_shape(placement.instance_type)
        opts = props.options
        data_centers = data_center_ids(placement.region)
        refuse_script_options(props, target="runpod", reason=NATIVE)
        if opts.get("image") is not None:
            props = dataclasses.replace(props, options={**opts, "container_image": opts["image"]})
        plan = plan_for(
            placement, props, target="runpod", store="runpod_secret", unsupported_weights=NO_OBJECT_STORE
        )
        image = str(opts.get("image", DEFAULT_IMAGE))
        env = dict(opts["env"]) if opts.get("env") else {}
        ports = list(opts["ports"]) if opts.get("ports") else None
        args = None
        if plan is not None:
            # the plan's image (the "image" option, else the vendor's default) for serving, and on AMD
            # GPUs for training too: RunPod's own default image is a CUDA build
            image = plan.image if plan.serves or plan.amd else image
            if plan.secret is not None:
                env["HF_TOKEN"] = "{{ RUNPOD_SECRET_" + plan.secret.id + " }}"
            if plan.api_key is not None:
                # vLLM reads VLLM_API_KEY from its environment (the key is on no command line).
                env["VLLM_API_KEY"] = "{{ RUNPOD_SECRET_" + plan.api_key.id + " }}"
            if plan.serves:
                args = vllm_args(plan)
                ports = ports or [f"{plan.port}/http"]
            elif opts.get("command"):
                args = " ".join(shlex.quote(part) for part in plan.command)
        pods = [
            RunpodPod(
                scope,
                f"pod-{i}",
                provider=provider,
                name=f"{props.name}-{i}",
                image=image,
                gpu_type_id=gpu_type,
                gpu_count=count,
                cloud=cloud,
                disk=int(opts.get("disk_gb", 50)),
                data_center_ids=data_centers,
                ports=ports,
                env=env or None,
                args=args,
            )
            for i in range(placement.instances)
        ]
        return {"instance": pods[0], "instances": pods}
