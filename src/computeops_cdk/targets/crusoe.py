"""Crusoe Cloud: ``crusoe_compute_instance`` (+ ``crusoe_ib_partition`` for multi-node).

Provider ``crusoecloud/crusoe``. Credentials: ``CRUSOE_ACCESS_KEY_ID`` / ``CRUSOE_SECRET_KEY`` (or
``~/.crusoe/config``); project from ``CRUSOE_DEFAULT_PROJECT`` unless ``project_id`` is given.

Our Crusoe prices come from the Shadeform marketplace listing, so instance types and regions are
Shadeform's names (``crusoe_L40Sx4`` in ``culpeper-usa-1``); this target maps them to Crusoe's
product names and locations (tables below; locations unverified: pass ``location`` to override).

Options: ``CrusoeTarget.options``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..engine import Placement
from ..errors import TargetError
from ._base import Target, TargetProps
from ._boot import BOOT_OPTIONS, Rendezvous, plan_for
from ._boot_script import boot_script
from ._support import require_supported
from ._unsupported import UNSUPPORTED

__all__ = ["CHECKOV_SKIPS", "RANK0_ADDRESS", "CrusoeTarget", "crusoe_type"]

RANK0_ADDRESS = "network_interfaces.0.private_ipv4.address"
"""The first instance's private address for the other ranks' rendezvous (``network_interfaces`` ->
read-only ``private_ipv4.address``, crusoecloud/crusoe ``docs/resources/compute_instance.md``)."""

CHECKOV_SKIPS: Mapping[str, str] = {
    "CKV_COPS_1": "without the subnet_id option the instance gets the provider's default networking, "
    "which may attach a public IPv4; give subnet_id for a private-only interface (subnets are "
    "per account, never invented)",
    "CKV_COPS_3": "the default is Crusoe's curated NVIDIA Docker OS image, published as ':latest' (no "
    "versioned tag in the provider docs we read); pass the image option with a pinned custom image",
}
"""checkov checks (computeops's own CKV_COPS_*; checkov has none for crusoe) the emitted resources
fail on purpose, with the reason."""

# Shadeform GPU spelling -> (Crusoe product prefix, SXM/InfiniBand product for the 8x size)
_GPUS: Mapping[str, str] = {
    "A100-80GB": "a100-80gb",
    "A100-80G-sxm4": "a100-80gb-sxm-ib",
    "L40S": "l40s-48gb",
}
_SHADEFORM = re.compile(r"^crusoe_(A100-80GB|A100-80G-sxm4|L40S)(?:x(\d+))?$")
_NATIVE = re.compile(r"^[a-z0-9-]+\.\d+x$")
_LOCATIONS: Mapping[str, str] = {"culpeper-usa-1": "us-east1-a", "houston-usa-2": "us-southcentral1-a"}


def crusoe_type(instance_type: str) -> str:
    """Crusoe product name for a catalog instance type (``crusoe_L40Sx4`` -> ``l40s-48gb.4x``).

    Raises:
        TargetError: the name is neither a known Shadeform Crusoe name nor a Crusoe product name.
    """
    name = instance_type.strip()
    if _NATIVE.match(name):
        return name
    match = _SHADEFORM.match(name)
    if not match:
        raise TargetError(
            f"crusoe target cannot map instance type {name!r}: it knows the Shadeform names "
            "'crusoe_A100-80GB[xN]', 'crusoe_A100-80G-sxm4x8', 'crusoe_L40SxN' and Crusoe names like "
            "'h100-80gb-sxm-ib.8x'. To fix: pin a known type."
        )
    return f"{_GPUS[match.group(1)]}.{int(match.group(2) or 1)}x"


NO_SECRET_STORE = "Crusoe has no secret store the instance can read at boot"


NO_OBJECT_STORE = (
    "Crusoe instances have no cloud identity an object store grants a bucket to; a key would be "
    "needed, and computeops writes no keys into Terraform"
)
"""Why ``weights_uri`` is refused on crusoe."""


class CrusoeTarget(Target):
    """Crusoe target: one instance per node; InfiniBand partition when several nodes share a job."""

    provider = "crusoe"
    extra = None
    options: Mapping[str, str] = {
        "ssh_public_key": "OpenSSH public key. Default: a Terraform variable <name>_ssh_public_key.",
        "location": "Crusoe location. Default: mapped from the placement's region.",
        "image": "Default: Crusoe's curated NVIDIA Docker image for the form factor.",
        "subnet_id": "Default: Crusoe's default VPC subnet for the location.",
        "ib_network_id": "IB network of a partition joining the instances. Default: none.",
        "project_id": "Default: unset, the provider reads CRUSOE_DEFAULT_PROJECT.",
        **BOOT_OPTIONS,
        "weights_uri": f"not supported ({NO_OBJECT_STORE}): refused. Default: none (Hugging Face).",
        "hf_token_secret": f"not supported ({NO_SECRET_STORE}): refused. Default: none.",
    }
    unsupported = UNSUPPORTED["crusoe"]  # declared in _unsupported.py

    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        from ._generic import GenericProvider

        return GenericProvider(scope, "provider-crusoe", local_name="crusoe")

    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        from ._generic import CrusoeComputeInstance, CrusoeIbPartition, option_or_variable

        require_supported(self, placement, props)
        product = crusoe_type(placement.instance_type)
        # The boot options first: a bad one fails before anything is emitted.
        plan = plan_for(
            placement,
            props,
            target="crusoe",
            store=None,
            unsupported_secret=NO_SECRET_STORE,
            unsupported_weights=NO_OBJECT_STORE,
        )
        opts = props.options
        location = str(opts.get("location") or _LOCATIONS.get(placement.region, placement.region))
        key = option_or_variable(
            scope, opts, "ssh_public_key", prefix=props.name, description="OpenSSH public key"
        )
        form = "sxm" if "sxm" in product else "pcie"
        roles: dict[str, Any] = {}
        adapters = None
        # Instances share an InfiniBand partition only when an IB network is named (ids are per account);
        # without one they are independent replicas.
        if placement.instances > 1 and opts.get("ib_network_id"):
            # In the instances' project: a partition of another project (the provider's default one)
            # could not be attached to them.
            partition = CrusoeIbPartition(
                scope,
                "ib-partition",
                provider=provider,
                name=f"{props.name}-ib",
                ib_network_id=str(opts["ib_network_id"]),
                project_id=opts.get("project_id"),
            )
            roles["ib_partition"] = partition
            adapters = [{"ib_partition_id": partition.attr("id")}]
        interfaces = [{"subnet": opts["subnet_id"]}] if opts.get("subnet_id") else None

        def startup(i: int) -> str | None:
            if plan is None:
                return None
            first = instances[0].attr(RANK0_ADDRESS) if i else ""
            multi = placement.instances > 1 and adapters is not None and not plan.serves
            return boot_script(
                plan,
                rendezvous=Rendezvous(rank=i, master_addr=first, nodes=placement.instances)
                if multi
                else None,
            )

        instances: list[Any] = []
        for i in range(placement.instances):
            instances.append(
                CrusoeComputeInstance(
                    scope,
                    f"instance-{i}",
                    provider=provider,
                    name=f"{props.name}-{i}",
                    type=product,
                    ssh_key=key,
                    location=location,
                    image=str(opts.get("image", f"ubuntu22.04-nvidia-{form}-docker:latest")),
                    network_interfaces=interfaces,
                    host_channel_adapters=adapters,
                    project_id=opts.get("project_id"),
                    startup_script=startup(i),
                )
            )
        return {"instance": instances[0], "instances": instances, **roles}
