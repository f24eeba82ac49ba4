"""Nebius AI Cloud: ``nebius_compute_v1_instance`` (+ ``nebius_compute_v1_gpu_cluster`` for multi-node).

Provider ``nebius/nebius`` (0.6.x, public registry), generic resources. Credentials:
``NEBIUS_IAM_TOKEN`` or a service-account file (see the provider's authentication guide). The region
is implied by the project: ``project_id`` must be a project in the placement's region.

Options: ``NebiusTarget.options``. The default ``image_family`` name is unverified and resolves to
its newest image when a disk is created (``image_id`` pins one). Only ``NETWORK_SSD_IO_M3`` and
``NETWORK_SSD_NON_REPLICATED`` (a multiple of 93 GiB) disks offer Nebius's managed-key encryption.
Without ``public_ip`` the subnet must give egress (a warning says so).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..engine import Placement
from ..errors import TargetError
from ._base import Target, TargetProps
from ._billed import unpriced
from ._boot import BOOT_OPTIONS, Rendezvous, plan_for
from ._boot_script import boot_script, cloud_config
from ._options import flag_option
from ._support import require_supported
from ._unsupported import UNSUPPORTED

__all__ = ["CHECKOV_SKIPS", "PREEMPTIBLE_PRIORITY", "RANK0_ADDRESS", "NebiusTarget", "platform_and_preset"]

NO_SECRET_STORE = "reading a secret at boot from Nebius MysteryBox is not wired by this target"
CHECKOV_SKIPS: Mapping[str, str] = {
    "CKV_COPS_5": "the default boot disk is NETWORK_SSD (erasure-coded, Nebius's recommended boot disk), for "
    "which Nebius offers no disk encryption (DISK_ENCRYPTION_MANAGED is for NETWORK_SSD_IO_M3 and "
    "NETWORK_SSD_NON_REPLICATED only); options={'boot_disk_type': 'NETWORK_SSD_IO_M3'} gives an "
    "encrypted one",
}
"""checkov checks (computeops's own CKV_COPS_*; checkov has none for nebius) the emitted resources fail on
purpose, with the reason."""

ENCRYPTABLE_DISKS = ("NETWORK_SSD_IO_M3", "NETWORK_SSD_NON_REPLICATED")
"""Disk types Nebius encrypts with its managed key when asked ("Available for disks with
NETWORK_SSD_NON_REPLICATED and NETWORK_SSD_IO_M3 types only": nebius/terraform-provider-nebius
docs/resources/compute_v1_instance.md at d030e55, ``boot_disk.managed_disk.spec.disk_encryption``)."""
BOOT_DISK_TYPES = ("NETWORK_SSD", *ENCRYPTABLE_DISKS)
NON_REPLICATED_UNIT_GIB = (
    93  # "the disk size must be a multiple of 93 GiB" (docs.nebius.com/compute/storage/types)
)

_TYPE = re.compile(r"^(gpu-[a-z0-9-]+)_(\d+gpu-\d+vcpu-\d+gb)$")
PREEMPTIBLE_PRIORITY = 5
"""``preemptible.priority`` of spot instances (required with ``on_preemption``; 1 to 5, "5 indicates the
highest priority" and it "affects the order in which Compute tries to preempt VMs", nebius/nebius
``docs/resources/compute_v1_instance.md``): the highest, so a training rank is preempted as late as the
platform allows."""
RANK0_ADDRESS = "status.network_interfaces.0.ip_address.address"
"""The first instance's private address for the other ranks' rendezvous (read-only ``status`` ->
``network_interfaces`` list -> ``ip_address.address`` in the same schema doc)."""


def platform_and_preset(instance_type: str) -> tuple[str, str]:
    """``gpu-h100-sxm_8gpu-128vcpu-1600gb`` -> (``gpu-h100-sxm``, ``8gpu-128vcpu-1600gb``).

    Raises:
        TargetError: the name is not ``<platform>_<preset>``.
    """
    match = _TYPE.match(instance_type.strip())
    if not match:
        raise TargetError(
            f"nebius target cannot map instance type {instance_type!r}: it expects '<platform>_<preset>' "
            "such as 'gpu-h100-sxm_8gpu-128vcpu-1600gb'. To fix: pin a Nebius platform/preset."
        )
    return match.group(1), match.group(2)


NO_OBJECT_STORE = (
    "reading Nebius Object Storage at boot needs an access key or a service-account grant this target"
    " does not create, and computeops writes no keys into Terraform"
)
"""Why ``weights_uri`` is refused on nebius."""


class NebiusTarget(Target):
    """Nebius target: VMs without public IPs; preemptible for spot; a GPU cluster for multi-node."""

    provider = "nebius"
    extra = None
    options: Mapping[str, str] = {
        "project_id": "project in the placement's region. Default: a Terraform variable <name>_project_id.",
        "subnet_id": "subnet id. Default: a Terraform variable <name>_subnet_id.",
        "image_family": "boot image family. Default: ubuntu22.04-cuda12.",
        "image_id": "exact boot image id (source_image_id) instead of the family. Default: none.",
        "boot_disk_gb": "boot disk size in GiB. Default: 200.",
        "boot_disk_type": "NETWORK_SSD, or NETWORK_SSD_IO_M3 / NETWORK_SSD_NON_REPLICATED, encrypted at "
        "rest. Default: NETWORK_SSD.",
        "infiniband_fabric": "InfiniBand fabric of a GPU cluster joining the instances. Default: none.",
        "ssh_public_key": "OpenSSH key of a computeops sudo user (cloud-init). Default: none.",
        "public_ip": "a public address per instance (egress). Default: False, private only.",
        **BOOT_OPTIONS,
        "weights_uri": f"not supported ({NO_OBJECT_STORE}): refused. Default: none (Hugging Face).",
        "hf_token_secret": f"not supported ({NO_SECRET_STORE}): refused. Default: none.",
    }
    unsupported = UNSUPPORTED["nebius"]  # declared in _unsupported.py

    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        from ._generic import GenericProvider

        return GenericProvider(scope, "provider-nebius", local_name="nebius")

    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        from ._generic import NebiusComputeInstance, NebiusGpuCluster, option_or_variable

        require_supported(self, placement, props)
        plan = plan_for(
            placement,
            props,
            target="nebius",
            store=None,
            unsupported_secret=NO_SECRET_STORE,
            unsupported_weights=NO_OBJECT_STORE,
        )
        platform, preset = platform_and_preset(placement.instance_type)
        opts = props.options
        project = option_or_variable(
            scope, opts, "project_id", prefix=props.name, description=f"Nebius project in {placement.region}"
        )
        subnet = option_or_variable(
            scope, opts, "subnet_id", prefix=props.name, description="Nebius subnet id"
        )
        roles: dict[str, Any] = {}
        gpu_cluster = None
        # Several instances share an InfiniBand GPU cluster only when a fabric is named (fabric names are
        # region-specific and not in our data); without one they are independent replicas.
        if placement.instances > 1 and opts.get("infiniband_fabric"):
            cluster = NebiusGpuCluster(
                scope,
                "gpu-cluster",
                provider=provider,
                parent_id=project,
                name=f"{props.name}-ib",
                infiniband_fabric=str(opts["infiniband_fabric"]),
            )
            roles["gpu_cluster"] = cluster
            gpu_cluster = {"id": cluster.attr("id")}
        public = flag_option(props, "public_ip", False, target="nebius")
        interface: dict[str, Any] = {"name": "eth0", "subnet_id": subnet, "ip_address": {}}
        if public:
            interface["public_ip_address"] = {}
        else:
            roles["warnings"] = [
                "nebius: the instances have private addresses only; the boot script needs egress to pull "
                "the image and the weights. To fix: options={'public_ip': True}, or give the subnet egress."
            ]

        def user_data(i: int) -> str | None:
            if plan is None:
                return None
            first = instances[0].attr(RANK0_ADDRESS) if i else ""
            multi = placement.instances > 1 and gpu_cluster is not None and not plan.serves
            rendezvous = Rendezvous(rank=i, master_addr=first, nodes=placement.instances) if multi else None
            key = opts.get("ssh_public_key")
            return cloud_config(boot_script(plan, rendezvous=rendezvous), ssh_key=str(key) if key else None)

        boot_disk = _boot_disk_spec(opts)
        instances: list[Any] = []
        for i in range(placement.instances):
            instances.append(
                NebiusComputeInstance(
                    scope,
                    f"instance-{i}",
                    provider=provider,
                    parent_id=project,
                    name=f"{props.name}-{i}",
                    resources={"platform": platform, "preset": preset},
                    boot_disk={
                        "attach_mode": "READ_WRITE",
                        "managed_disk": {
                            "name": f"{props.name}-{i}-boot",
                            "spec": boot_disk,
                        },
                    },
                    # ip_address {} = a private address; public_ip_address {} only with public_ip=True.
                    network_interfaces=[interface],
                    gpu_cluster=gpu_cluster,
                    preemptible={"on_preemption": "STOP", "priority": PREEMPTIBLE_PRIORITY}
                    if placement.pricing == "spot"
                    else None,
                    labels={**props.tags, "computeops-gpu": placement.accelerator.lower()},
                    cloud_init_user_data=user_data(i),
                )
            )
        size, kind = boot_disk["size_gibibytes"], boot_disk["type"]
        billed = [
            unpriced(
                f"boot disks ({kind}, {placement.instances} x {size} GiB)",
                quantity=placement.instances * size,
                unit="GiB-month",
                why="no sourced Nebius disk price in the data (data/billed_extras.json)",
            )
        ]
        return {"instance": instances[0], "instances": instances, "billed": billed, **roles}


def _image(opts: Mapping[str, Any]) -> dict[str, Any]:
    # source_image_id and source_image_family exclude each other (compute_v1_instance.md).
    image_id, family = opts.get("image_id"), opts.get("image_family")
    if image_id is not None and family is not None:
        raise TargetError(
            "nebius options 'image_id' and 'image_family' both name the boot image. To fix: give one."
        )
    if image_id is not None:
        if not isinstance(image_id, str) or not image_id.strip():
            raise TargetError(
                f"nebius option 'image_id' must be an image id (got {image_id!r}). "
                "To fix: give the id of a Nebius image, or leave it out for the image family"
            )
        return {"source_image_id": image_id}
    return {"source_image_family": {"image_family": str(family or "ubuntu22.04-cuda12")}}


def _boot_disk_spec(opts: Mapping[str, Any]) -> dict[str, Any]:
    """The managed boot disk's spec: type, size, image; managed encryption where Nebius has it."""
    kind = str(opts.get("boot_disk_type", "NETWORK_SSD"))
    size = int(opts.get("boot_disk_gb", 200))
    if kind not in BOOT_DISK_TYPES:
        raise TargetError(
            f"nebius target: boot_disk_type {kind!r} is not one of {', '.join(BOOT_DISK_TYPES)}. "
            "To fix: options={'boot_disk_type': 'NETWORK_SSD_IO_M3'} for an encrypted boot disk."
        )
    if kind == "NETWORK_SSD_NON_REPLICATED" and size % NON_REPLICATED_UNIT_GIB:
        raise TargetError(
            "nebius target: a NETWORK_SSD_NON_REPLICATED disk is a multiple of "
            f"{NON_REPLICATED_UNIT_GIB} GiB, boot_disk_gb is {size}. "
            f"To fix: options={{'boot_disk_gb': {NON_REPLICATED_UNIT_GIB * 3}}}."
        )
    spec: dict[str, Any] = {"type": kind, "size_gibibytes": size, **_image(opts)}
    if kind in ENCRYPTABLE_DISKS:
        spec["disk_encryption"] = {"type": "DISK_ENCRYPTION_MANAGED"}
    return spec
