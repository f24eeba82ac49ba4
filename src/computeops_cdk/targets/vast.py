"""Vast.ai: a marketplace offer query (``data.vastai_gpu_offers``) + ``vastai_instance``.

Provider: community ``realnedsanders/vastai`` (0.3.x). Credentials: ``VASTAI_API_KEY``.
Vast sells offers, not machine types: the target turns the decision into an offer query (GPU name,
GPU count, country, datacenter hosts only, a price ceiling from the decision's hourly price) and
rents the cheapest match at apply time. A re-plan may pick another machine (see ``unsupported``).
Options: ``VastTarget.options`` (``price_headroom``: marketplace prices move between catalog build and
apply).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from ..engine import Placement
from ..errors import TargetError
from ._base import Target, TargetProps
from ._boot import BOOT_OPTIONS, DEFAULT_VLLM_IMAGE, plan_for, refuse_script_options, vllm_command
from ._support import require_supported
from ._unsupported import UNSUPPORTED

__all__ = ["CHECKOV_SKIPS", "DEFAULT_IMAGE", "VastTarget", "vast_gpu_name"]

CHECKOV_SKIPS: Mapping[str, str] = {}
"""checkov checks the emitted resources fail on purpose: none (checkov has no checks for them;
computeops's own CKV_COPS_* policies, computeops_cdk/checkov_policies, pass)."""

DEFAULT_IMAGE = DEFAULT_VLLM_IMAGE
"""Default container image: the vLLM release the Kubernetes layer serves (a published tag, never
``latest``, so a re-apply runs the same software). Override with the ``image`` option."""

_TYPE = re.compile(r"^(\d+)x-(.+)-\d+-\d+$")


def vast_gpu_name(instance_type: str) -> tuple[str, int]:
    """``2x-H100_SXM-32-65536`` -> (``H100 SXM``, 2): Vast's exact GPU name and the GPU count.

    Raises:
        TargetError: the name is not SkyPilot's ``<n>x-<GPU>-<vCPU>-<RAM>`` Vast form.
    """
    match = _TYPE.match(instance_type.strip())
    if not match:
        raise TargetError(
            f"vast target cannot map instance type {instance_type!r}: it expects "
            "'<count>x-<GPU_NAME>-<cpus>-<mem>' such as '1x-RTX_4090-32-65536'. "
            "To fix: pin a Vast instance type from the catalog."
        )
    return match.group(2).replace("_", " "), int(match.group(1))


NATIVE = "this target starts only the vLLM server on Vast.ai (its onstart command)"
NO_SECRET_STORE = "Vast.ai has no secret store an instance can read at boot (public models only)"


NO_OBJECT_STORE = (
    "Vast.ai runs the container itself (no boot script copies weights) and an instance has no cloud "
    "identity a bucket grants access to"
)
"""Why ``weights_uri`` is refused on vast."""


class VastTarget(Target):
    """Vast.ai target: offer query + one instance per decided instance."""

    provider = "vast"
    extra = None
    options: Mapping[str, str] = {
        "image": "container image. Default: DEFAULT_IMAGE.",
        "disk_gb": "disk in GB. Default: 100.",
        "price_headroom": "fraction added to the decided hourly price for the offer ceiling. Default: 0.10.",
        "model_url": "model vLLM serves (a Hugging Face id). Default: the registry's Hugging Face id.",
        "port": "port vLLM serves on. Default: 8000.",
        **BOOT_OPTIONS,
        "weights_uri": f"not supported ({NO_OBJECT_STORE}): refused. Default: none (Hugging Face).",
        "container_image": "same as image. Default: see image.",
        "hf_token_secret": f"not supported ({NO_SECRET_STORE}): refused. Default: none.",
        "command": f"not supported ({NATIVE}): refused. Default: none.",
        "user_data": f"not supported ({NATIVE}): refused. Default: none.",
        "user_data_append": f"not supported ({NATIVE}): refused. Default: none.",
    }
    unsupported = UNSUPPORTED["vast"]  # declared in _unsupported.py

    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        from ._generic import GenericProvider

        return GenericProvider(scope, "provider-vastai", local_name="vastai")

    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        from ._generic import VastaiGpuOffers, VastaiInstance

        require_supported(self, placement, props)
        gpu_name, count = vast_gpu_name(placement.instance_type)
        opts = props.options
        refuse_script_options(props, target="vast", reason=NATIVE)
        if opts.get("command") is not None:
            raise TargetError(f"vast option 'command' cannot apply: {NATIVE}. To fix: drop it.")
        if opts.get("image") is not None:
            props = dataclasses.replace(props, options={**opts, "container_image": opts["image"]})
        plan = plan_for(
            placement,
            props,
            target="vast",
            store=None,
            unsupported_secret=NO_SECRET_STORE,
            unsupported_weights=NO_OBJECT_STORE,
        )
        spot = placement.pricing == "spot"
        ceiling = round(placement.hourly_usd * (1.0 + float(opts.get("price_headroom", 0.10))), 4)
        offers = VastaiGpuOffers(
            scope,
            "offers",
            provider=provider,
            gpu_name=gpu_name,
            num_gpus=count,
            max_price_per_hour=ceiling,
            region=placement.country,
            datacenter_only=True,
            offer_type="bid" if spot else "on-demand",
        )
        image = str(opts.get("image", DEFAULT_IMAGE))
        onstart = None
        if plan is not None and plan.serves:
            # Vast runs `onstart` in the container (its entrypoint replaced): start the server from it.
            image = plan.image  # the "image" option, else vLLM's image for the GPU's vendor
            onstart = f"{vllm_command(plan)} >> /var/log/computeops-vllm.log 2>&1 &"
        instances = [
            VastaiInstance(
                scope,
                f"instance-{i}",
                provider=provider,
                # Offer i of the cheapest matches: one machine per instance.
                offer_id=offers.number_attr(f"offers.{i}.id")
                if i
                else offers.number_attr("most_affordable.id"),
                disk_gb=int(opts.get("disk_gb", 100)),
                image=image,
                onstart=onstart,
                env=dict(plan.env) if plan is not None and plan.env else None,
                label=f"{props.name}-{i}",
                # bid_price is per GPU-hour; bid the decided price so the instance is interruptible.
                bid_price=round(placement.hourly_usd / count, 4) if spot else None,
                cancel_unavail=True,
            )
            for i in range(placement.instances)
        ]
        return {"offers": offers, "instance": instances[0], "instances": instances}
