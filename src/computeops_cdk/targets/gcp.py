"""Google Cloud: GPU VMs (A2/A3/A4/G2, N1 + attached GPUs), TPU VMs, or a GKE GPU node pool.

Bindings: ``cdktn-provider-google`` (``hashicorp/google``) for everything but TPUs, and
``cdktn-provider-google-beta`` (``hashicorp/google-beta``) for ``google_tpu_v2_vm``, which the GA
provider 21.x does not have. Both are imported inside ``configure``/``emit`` only, submodule by
submodule, so importing this module costs nothing.

Options (``TargetProps.options``):

- ``project``: GCP project id. Default: not set in Terraform; the google provider reads
  ``GOOGLE_PROJECT`` (or ``GOOGLE_CLOUD_PROJECT``/``CLOUDSDK_CORE_PROJECT``) from the environment at plan
  time, so the synthesized stack carries no project id.
- ``zone``: zone for the VM / TPU / node locations. Default: the first zone (alphabetically) in which
  the market data lists the accelerator for this region; ``<region>-a`` where the data lists the
  accelerator in that zone or does not say.
- ``network`` / ``subnetwork``: existing VPC network / subnetwork (name or self link). Default: a new
  custom-mode VPC network and one regional subnetwork (``cidr``, default ``10.64.0.0/20``) with private
  Google access and flow logs.
- ``service_account_email``: service account for the VMs. Default: a new service account with no
  roles granted (grant what the workload needs), never the Compute Engine default account.
- ``kms_key_self_link``: Cloud KMS key for the boot disks. Default: Google-managed encryption (see
  ``CHECKOV_SKIPS``).
- ``image``: boot image. Default: ``DEFAULT_IMAGE`` (a Deep Learning VM family with NVIDIA drivers).
- ``boot_disk_gb``: boot disk size. Default: 200.
- ``secure_boot``: Shielded VM secure boot. Default: True (vTPM and integrity monitoring are always on).
  Set False for an image whose NVIDIA kernel module is not signed.
- ``tpu_runtime_version``: TPU software version. Default: per generation, see ``TPU_RUNTIMES``.
- ``gke_location``: location of the GKE cluster given as ``cluster``. Default: the region.
- ``gpu_driver_version``: GKE driver install (``LATEST``, ``DEFAULT``, ``INSTALLATION_DISABLED``).
  Default: ``LATEST``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import Placement
from ..errors import TargetError
from ._base import Target, TargetProps
from ._options import whole_option
from ._support import require_supported

__all__ = ["CHECKOV_SKIPS", "DEFAULT_IMAGE", "TPU_RUNTIMES", "GcpTarget"]

DEFAULT_IMAGE = (
    "projects/deeplearning-platform-release/global/images/family/common-cu128-ubuntu-2204-nvidia-570"
)
"""Deep Learning VM image family with CUDA 12.8 and the NVIDIA 570 driver (family name as used in many
public configurations; not checked against the image list: pass ``image`` to choose another)."""

TPU_RUNTIMES: Mapping[str, str] = {
    "v2": "tpu-ubuntu2204-base",
    "v3": "tpu-ubuntu2204-base",
    "v4": "tpu-ubuntu2204-base",
    "v5litepod": "v2-alpha-tpuv5-lite",
    "v5p": "v2-alpha-tpuv5",
    "v6e": "v2-alpha-tpuv6e",
}
"""Default TPU VM software version per generation (Cloud TPU docs, "TPU software versions")."""

CHECKOV_SKIPS: Mapping[str, str] = {
    "CKV_GCP_38": "boot disks default to Google-managed encryption: a customer key is an account-specific "
    "resource the library cannot invent. Pass the `kms_key_self_link` option and the check passes.",
}
"""checkov checks the emitted GCP resources fail on purpose, with the reason (for ``--skip-check``)."""

# Accelerator-optimised families: the machine type carries its GPUs, so google_compute_instance must
# not list guest_accelerator; GKE still wants guest_accelerator on the node pool.
# family -> (market-data GPU name, GKE/Compute accelerator type)
_BUNDLED: Mapping[str, tuple[str, str]] = {
    "a2-highgpu": ("A100", "nvidia-tesla-a100"),
    "a2-megagpu": ("A100", "nvidia-tesla-a100"),
    "a2-ultragpu": ("A100-80GB", "nvidia-a100-80gb"),
    "a3-highgpu": ("H100", "nvidia-h100-80gb"),
    "a3-edgegpu": ("H100", "nvidia-h100-80gb"),
    "a3-megagpu": ("H100-MEGA", "nvidia-h100-mega-80gb"),
    "a3-ultragpu": ("H200", "nvidia-h200-141gb"),
    "a4-highgpu": ("B200", "nvidia-b200"),
}
_G2_GPUS = {4: 1, 8: 1, 12: 1, 16: 1, 24: 2, 32: 1, 48: 4, 96: 8}  # g2-standard-<vCPU> -> L4 count
# N1 machine types take GPUs as guest accelerators.
_N1_GPUS: Mapping[str, str] = {
    "T4": "nvidia-tesla-t4",
    "V100": "nvidia-tesla-v100",
    "P4": "nvidia-tesla-p4",
    "P100": "nvidia-tesla-p100",
}
_HYPERDISK_ONLY = ("a3-ultragpu", "a4-highgpu")  # these families boot from Hyperdisk only

# Zones from /work/shared/market-data/raw/gcp.csv (SkyPilot catalog v8): where the data does not list
# the accelerator in `<region>-a`, the alphabetically first zone where it does list it.
_REGION_FIRST_ZONE: Mapping[str, str] = {
    "asia-south2": "asia-south2-b",
    "europe-central2": "europe-central2-b",
    "europe-west1": "europe-west1-b",
    "europe-west6": "europe-west6-b",
    "europe-west8": "europe-west8-c",
    "europe-west9": "europe-west9-c",
    "us-central2": "us-central2-b",
    "us-east1": "us-east1-b",
    "us-west2": "us-west2-b",
    "us-west3": "us-west3-b",
}
_GPU_ZONE: Mapping[tuple[str, str], str] = {
    ("A100", "us-west1"): "us-west1-b",
    ("A100", "us-west4"): "us-west4-b",
    ("A100-80GB", "asia-southeast1"): "asia-southeast1-c",
    ("A100-80GB", "us-east4"): "us-east4-c",
    ("B200", "asia-northeast1"): "asia-northeast1-b",
    ("B200", "asia-southeast1"): "asia-southeast1-b",
    ("B200", "europe-north1"): "europe-north1-b",
    ("B200", "europe-west4"): "europe-west4-b",
    ("B200", "us-central1"): "us-central1-b",
    ("B200", "us-east4"): "us-east4-b",
    ("B200", "us-south1"): "us-south1-b",
    ("B200", "us-west2"): "us-west2-c",
    ("H100", "asia-east1"): "asia-east1-c",
    ("H100", "asia-northeast1"): "asia-northeast1-b",
    ("H100", "asia-south1"): "asia-south1-c",
    ("H100", "asia-southeast1"): "asia-southeast1-b",
    ("H100", "australia-southeast1"): "australia-southeast1-c",
    ("H100", "europe-north1"): "europe-north1-c",
    ("H100", "europe-west2"): "europe-west2-b",
    ("H100", "europe-west4"): "europe-west4-b",
    ("H100", "northamerica-northeast2"): "northamerica-northeast2-c",
    ("H100-MEGA", "asia-northeast1"): "asia-northeast1-b",
    ("H100-MEGA", "asia-south1"): "asia-south1-c",
    ("H100-MEGA", "asia-southeast1"): "asia-southeast1-b",
    ("H100-MEGA", "australia-southeast1"): "australia-southeast1-c",
    ("H100-MEGA", "europe-west4"): "europe-west4-b",
    ("H100-MEGA", "northamerica-northeast2"): "northamerica-northeast2-c",
    ("H200", "asia-south1"): "asia-south1-b",
    ("H200", "asia-south2"): "asia-south2-c",
    ("H200", "us-central1"): "us-central1-b",
    ("H200", "us-east4"): "us-east4-b",
    ("H200", "us-south1"): "us-south1-b",
    ("H200", "us-west1"): "us-west1-c",
    ("L4", "northamerica-northeast1"): "northamerica-northeast1-b",
    ("P100", "australia-southeast1"): "australia-southeast1-b",
    ("P100", "us-central1"): "us-central1-c",
    ("P4", "europe-west4"): "europe-west4-b",
    ("T4", "asia-northeast3"): "asia-northeast3-b",
    ("T4", "europe-west3"): "europe-west3-b",
    ("T4", "me-west1"): "me-west1-b",
    ("T4", "northamerica-northeast1"): "northamerica-northeast1-c",
    ("V100", "asia-east1"): "asia-east1-c",
}
_TPU_ZONE: Mapping[tuple[str, str], str] = {
    ("v2", "asia-east1"): "asia-east1-c",
    ("v2", "europe-west4"): "europe-west4-a",
    ("v2", "us-central1"): "us-central1-a",
    ("v3", "europe-west4"): "europe-west4-a",
    ("v3", "us-central1"): "us-central1-a",
    ("v3", "us-east1"): "us-east1-d",
    ("v4", "us-central2"): "us-central2-b",
    ("v5litepod", "asia-east1"): "asia-east1-a",
    ("v5litepod", "asia-northeast1"): "asia-northeast1-b",
    ("v5litepod", "asia-southeast1"): "asia-southeast1-b",
    ("v5litepod", "europe-north1"): "europe-north1-a",
    ("v5litepod", "europe-west1"): "europe-west1-b",
    ("v5litepod", "europe-west3"): "europe-west3-c",
    ("v5litepod", "europe-west4"): "europe-west4-a",
    ("v5litepod", "northamerica-northeast1"): "northamerica-northeast1-b",
    ("v5litepod", "southamerica-west1"): "southamerica-west1-b",
    ("v5litepod", "us-central1"): "us-central1-a",
    ("v5litepod", "us-east1"): "us-east1-b",
    ("v5litepod", "us-east4"): "us-east4-b",
    ("v5litepod", "us-east5"): "us-east5-a",
    ("v5litepod", "us-south1"): "us-south1-a",
    ("v5litepod", "us-west1"): "us-west1-c",
    ("v5litepod", "us-west4"): "us-west4-a",
    ("v5p", "europe-west1"): "europe-west1-b",
    ("v5p", "europe-west4"): "europe-west4-b",
    ("v5p", "us-central1"): "us-central1-a",
    ("v5p", "us-east1"): "us-east1-d",
    ("v5p", "us-east5"): "us-east5-a",
    ("v5p", "us-south1"): "us-south1-a",
    ("v6e", "asia-northeast1"): "asia-northeast1-b",
    ("v6e", "asia-south1"): "asia-south1-b",
    ("v6e", "asia-southeast1"): "asia-southeast1-b",
    ("v6e", "europe-west4"): "europe-west4-a",
    ("v6e", "southamerica-west1"): "southamerica-west1-a",
    ("v6e", "us-central1"): "us-central1-a",
    ("v6e", "us-east1"): "us-east1-d",
    ("v6e", "us-east4"): "us-east4-a",
    ("v6e", "us-east5"): "us-east5-a",
    ("v6e", "us-south1"): "us-south1-a",
    ("v6e", "us-west1"): "us-west1-c",
}
# Accelerator ids (catalog canonical or market-data spelling) -> TPU generation as in slice names.
_TPU_GENERATIONS: Mapping[str, str] = {
    "tpu-v2": "v2",
    "tpu-v3": "v3",
    "tpu-v4": "v4",
    "tpu-v5e": "v5litepod",
    "tpu-v5litepod": "v5litepod",
    "tpu-v5p": "v5p",
    "tpu-v6e": "v6e",
}
_TPU_SLICE = re.compile(r"^(?:tpu-)?(v2|v3|v4|v5litepod|v5p|v6e)-(\d+)$")
_BUNDLED_TYPE = re.compile(r"^([a-z]\d-[a-z]+gpu)-(\d+)g$")
_G2_TYPE = re.compile(r"^g2-standard-(\d+)$")
_N1_TYPE = re.compile(r"^n1-(?:standard|highmem|highcpu)-\d+$")


@dataclass(frozen=True, slots=True, kw_only=True)
class GpuMachine:
    """How a GCP GPU instance type maps to Terraform arguments."""

    machine_type: str
    gpu: str
    """Market-data GPU name (zone lookup)."""
    accelerator_type: str
    """Compute/GKE accelerator type string, e.g. ``nvidia-h100-80gb``."""
    count: int
    attach: bool
    """True for N1: the VM needs a ``guest_accelerator`` block; False when the machine type bundles them."""

    @property
    def family(self) -> str:
        return self.machine_type.rsplit("-", 1)[0]


@dataclass(frozen=True, slots=True, kw_only=True)
class TpuSlice:
    """A TPU slice: ``accelerator_type`` as ``google_tpu_v2_vm`` expects it (``v5litepod-8``)."""

    generation: str
    size: int

    @property
    def accelerator_type(self) -> str:
        return f"{self.generation}-{self.size}"


def map_instance_type(placement: Placement) -> GpuMachine | TpuSlice:
    """Map a placement's GCP instance type to a GPU machine or a TPU slice.

    Raises:
        TargetError: the instance type is not one this target knows how to express.
    """
    name = placement.instance_type.strip()
    lowered = name.lower()
    slice_match = _TPU_SLICE.match(lowered) or _TPU_SLICE.match(placement.accelerator.lower())
    if slice_match:
        return TpuSlice(generation=slice_match.group(1), size=int(slice_match.group(2)))
    if lowered == "tpu-vm":
        generation = _TPU_GENERATIONS.get(placement.accelerator.lower())
        if generation and placement.accelerators_per_instance > 0:
            return TpuSlice(generation=generation, size=placement.accelerators_per_instance)
    bundled = _BUNDLED_TYPE.match(lowered)
    if bundled and bundled.group(1) in _BUNDLED:
        gpu, accel = _BUNDLED[bundled.group(1)]
        return GpuMachine(
            machine_type=lowered, gpu=gpu, accelerator_type=accel, count=int(bundled.group(2)), attach=False
        )
    g2 = _G2_TYPE.match(lowered)
    if g2 and int(g2.group(1)) in _G2_GPUS:
        count = _G2_GPUS[int(g2.group(1))]
        return GpuMachine(
            machine_type=lowered, gpu="L4", accelerator_type="nvidia-l4", count=count, attach=False
        )
    gpu = placement.accelerator.upper()
    if _N1_TYPE.match(lowered) and gpu in _N1_GPUS and placement.accelerators_per_instance > 0:
        return GpuMachine(
            machine_type=lowered,
            gpu=gpu,
            accelerator_type=_N1_GPUS[gpu],
            count=placement.accelerators_per_instance,
            attach=True,
        )
    raise TargetError(
        f"gcp target cannot map instance type {name!r} (accelerator {placement.accelerator!r}) to Terraform. "
        "It knows A2/A3/A4 (e.g. 'a3-highgpu-8g'), G2 ('g2-standard-8'), N1 with T4/V100/P4/P100 "
        "('n1-standard-8'), and TPU slices ('tpu-v5p-8', 'v5litepod-4'). "
        "To fix: pin a supported instance type, or report the catalog name so the target can learn it."
    )


def default_zone(placement: Placement, machine: GpuMachine | TpuSlice) -> str:
    """The zone used when the ``zone`` option is not given (see the module docstring)."""
    region = placement.region
    if isinstance(machine, TpuSlice):
        return _TPU_ZONE.get((machine.generation, region), f"{region}-a")
    return _GPU_ZONE.get((machine.gpu, region)) or _REGION_FIRST_ZONE.get(region, f"{region}-a")


def _labels(props: TargetProps, extra: Mapping[str, str]) -> dict[str, str]:
    # GCP label keys/values: lowercase letters, digits, '_' and '-', at most 63 characters.
    def clean(text: str) -> str:
        return re.sub(r"[^a-z0-9_-]", "-", text.lower())[:63]

    merged = {**props.tags, **extra}
    return {clean(k): clean(v) for k, v in sorted(merged.items()) if clean(k)[:1].isalpha()}


class GcpTarget(Target):
    """Google Cloud target. See the module docstring for options and defaults."""

    provider = "gcp"
    extra = "gcp"
    options: Mapping[str, str] = {
        "project": "GCP project id. Default: unset, the provider reads GOOGLE_PROJECT at plan time.",
        "zone": "zone of the VM / TPU / node locations. Default: the first zone the market data lists.",
        "network": "existing VPC network (name or self link). Default: a new custom-mode network.",
        "subnetwork": "existing subnetwork (name or self link). Default: a new regional subnetwork.",
        "cidr": "range of the new subnetwork. Default: 10.64.0.0/20.",
        "service_account_email": "service account of the VMs. Default: a new one with no roles.",
        "kms_key_self_link": "Cloud KMS key for the boot disks. Default: Google-managed encryption.",
        "image": "boot image. Default: DEFAULT_IMAGE (a Deep Learning VM family).",
        "boot_disk_gb": "boot disk size in GB. Default: 200.",
        "secure_boot": "Shielded VM secure boot. Default: True.",
        "tpu_runtime_version": "TPU software version. Default: per generation (TPU_RUNTIMES).",
        "gke_location": "location of the GKE cluster given as cluster. Default: the region.",
        "gpu_driver_version": "GKE driver install (LATEST, DEFAULT, INSTALLATION_DISABLED). Default: LATEST.",
    }
    unsupported: Mapping[str, str] = {
        "tpu_node_pool": "TPU node pools on GKE are not implemented (they need a TPU machine type and "
        "placement_policy.tpu_topology); a TPU decision becomes a TPU VM without `cluster=`",
    }

    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        mod = _google("provider", props)
        project = props.options.get("project")
        return mod.GoogleProvider(scope, "google", region=region, project=project)

    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        require_supported(self, placement, props)
        machine = map_instance_type(placement)
        zone = str(props.options.get("zone") or default_zone(placement, machine))
        if props.cluster:
            if isinstance(machine, TpuSlice):
                raise TargetError(
                    "gcp target: TPU node pools on GKE are not implemented (they need a TPU machine type "
                    "and placement_policy.tpu_topology). To fix: drop `cluster=` to get a TPU VM."
                )
            return {"node_pool": self._node_pool(scope, placement, machine, zone, provider, props)}
        network, subnetwork = self._network(scope, placement.region, provider, props)
        email = self._service_account(scope, provider, props)
        if isinstance(machine, TpuSlice):
            return self._tpus(scope, placement, machine, zone, (network, subnetwork), email, props)
        return self._vms(scope, placement, machine, zone, subnetwork, email, provider, props)

    def _network(self, scope: Any, region: str, provider: Any, props: TargetProps) -> tuple[Any, Any]:
        if props.options.get("subnetwork"):
            return props.options.get("network"), props.options["subnetwork"]
        net_mod = _google("compute_network", props)
        sub_mod = _google("compute_subnetwork", props)
        network = props.options.get("network")
        if not network:
            network = net_mod.ComputeNetwork(
                scope, "network", name=f"{props.name}-net", auto_create_subnetworks=False, provider=provider
            ).id
            # The VPC already denies ingress implicitly; an explicit lowest-priority deny-all rule makes
            # that visible (and auditable) in the stack.
            fw_mod = _google("compute_firewall", props)
            fw_mod.ComputeFirewall(
                scope,
                "deny-ingress",
                name=f"{props.name}-deny-ingress",
                network=network,
                direction="INGRESS",
                priority=65534,
                source_ranges=["0.0.0.0/0"],
                deny=[fw_mod.ComputeFirewallDeny(protocol="all")],
                log_config={"metadata": "INCLUDE_ALL_METADATA"},
                provider=provider,
            )
        subnet = sub_mod.ComputeSubnetwork(
            scope,
            "subnetwork",
            name=f"{props.name}-subnet",
            region=region,
            network=network,
            ip_cidr_range=str(props.options.get("cidr", "10.64.0.0/20")),
            private_ip_google_access=True,
            log_config={
                "aggregation_interval": "INTERVAL_5_SEC",
                "flow_sampling": 0.5,
                "metadata": "INCLUDE_ALL_METADATA",
            },
            provider=provider,
        )
        return network, subnet.id

    def _service_account(self, scope: Any, provider: Any, props: TargetProps) -> str:
        if props.options.get("service_account_email"):
            return str(props.options["service_account_email"])
        mod = _google("service_account", props)
        account_id = re.sub(r"[^a-z0-9-]", "-", f"{props.name}-gpu".lower())[:30].strip("-")
        account = mod.ServiceAccount(
            scope,
            "service-account",
            account_id=account_id.rjust(6, "x"),
            display_name=f"computeops-cdk {props.name} (no roles granted)",
            provider=provider,
        )
        return str(account.email)

    def _vms(
        self,
        scope: Any,
        placement: Placement,
        machine: GpuMachine,
        zone: str,
        subnetwork: Any,
        email: str,
        provider: Any,
        props: TargetProps,
    ) -> dict[str, Any]:
        mod = _google("compute_instance", props)
        spot = placement.pricing == "spot"
        policies: list[str] = []
        if placement.instances > 1:
            pol_mod = _google("compute_resource_policy", props)
            policy = pol_mod.ComputeResourcePolicy(
                scope,
                "placement",
                name=f"{props.name}-compact",
                region=placement.region,
                group_placement_policy={"collocation": "COLLOCATED", "vm_count": placement.instances},
                provider=provider,
            )
            policies = [policy.id]
        disk_type = "hyperdisk-balanced" if machine.family in _HYPERDISK_ONLY else "pd-balanced"
        labels = _labels(props, {"computeops-gpu": machine.gpu, "computeops-pricing": placement.pricing})
        instances = [
            mod.ComputeInstance(
                scope,
                f"instance-{i}",
                name=f"{props.name}-{i}",
                zone=zone,
                machine_type=machine.machine_type,
                boot_disk={
                    "initialize_params": {
                        "image": str(props.options.get("image", DEFAULT_IMAGE)),
                        "size": whole_option(props, "boot_disk_gb", 200, target="gcp", unit="GB"),
                        "type": disk_type,
                    },
                    "kms_key_self_link": props.options.get("kms_key_self_link"),
                },
                # No access_config block: no external IP. Reach the VM through IAP or a bastion.
                network_interface=[mod.ComputeInstanceNetworkInterface(subnetwork=subnetwork)],
                guest_accelerator=(
                    [mod.ComputeInstanceGuestAccelerator(type=machine.accelerator_type, count=machine.count)]
                    if machine.attach
                    else None
                ),
                scheduling={
                    # GPU VMs cannot live-migrate: host maintenance must stop them.
                    "on_host_maintenance": "TERMINATE",
                    "automatic_restart": not spot,
                    "preemptible": spot,
                    "provisioning_model": "SPOT" if spot else "STANDARD",
                    "instance_termination_action": "STOP" if spot else None,
                },
                shielded_instance_config={
                    "enable_secure_boot": bool(props.options.get("secure_boot", True)),
                    "enable_vtpm": True,
                    "enable_integrity_monitoring": True,
                },
                metadata={
                    "block-project-ssh-keys": "true",
                    "enable-oslogin": "TRUE",
                    "serial-port-enable": "false",
                },
                service_account={"email": email, "scopes": ["cloud-platform"]},
                resource_policies=policies or None,
                labels=labels,
                provider=provider,
            )
            for i in range(placement.instances)
        ]
        return {"instance": instances[0], "instances": instances}

    def _tpus(
        self,
        scope: Any,
        placement: Placement,
        tpu: TpuSlice,
        zone: str,
        network: tuple[Any, Any],
        email: str,
        props: TargetProps,
    ) -> dict[str, Any]:
        mod = _google_beta("google_tpu_v2_vm", props)
        beta = _beta_provider(scope, placement.region, props)
        runtime = str(props.options.get("tpu_runtime_version", TPU_RUNTIMES[tpu.generation]))
        spot = placement.pricing == "spot"
        labels = _labels(
            props, {"computeops-tpu": tpu.accelerator_type, "computeops-pricing": placement.pricing}
        )
        vms = [
            mod.GoogleTpuV2Vm(
                scope,
                f"tpu-{i}",
                name=f"{props.name}-{i}",
                zone=zone,
                accelerator_type=tpu.accelerator_type,
                runtime_version=runtime,
                network_config={
                    "network": network[0],
                    "subnetwork": network[1],
                    "enable_external_ips": False,
                },
                scheduling_config={"spot": True} if spot else None,
                shielded_instance_config={"enable_secure_boot": True},
                service_account={"email": email, "scope": ["https://www.googleapis.com/auth/cloud-platform"]},
                labels=labels,
                provider=beta,
            )
            for i in range(placement.instances)
        ]
        return {"tpu": vms[0], "tpus": vms}

    def _node_pool(
        self,
        scope: Any,
        placement: Placement,
        machine: GpuMachine,
        zone: str,
        provider: Any,
        props: TargetProps,
    ) -> Any:
        mod = _google("container_node_pool", props)
        spot = placement.pricing == "spot"
        return mod.ContainerNodePool(
            scope,
            "node-pool",
            name=re.sub(r"[^a-z0-9-]", "-", f"{props.name}-gpu".lower())[:40],
            cluster=props.cluster,
            location=str(props.options.get("gke_location", placement.region)),
            node_locations=[zone],
            node_count=placement.instances,
            management={"auto_repair": True, "auto_upgrade": True},
            node_config={
                "machine_type": machine.machine_type,
                # Struct objects, not dicts: jsii does not convert dicts inside lists to structs and
                # would drop multi-word keys such as gpu_driver_installation_config.
                "guest_accelerator": [
                    mod.ContainerNodePoolNodeConfigGuestAccelerator(
                        type=machine.accelerator_type,
                        count=machine.count,
                        gpu_driver_installation_config={
                            "gpu_driver_version": str(props.options.get("gpu_driver_version", "LATEST"))
                        },
                    )
                ],
                "spot": spot,
                "image_type": "COS_CONTAINERD",
                "labels": {
                    "computeops.io/gpu": machine.gpu.lower(),
                    "computeops.io/gpu-count": str(machine.count),
                },
                "taint": [
                    mod.ContainerNodePoolNodeConfigTaint(
                        key="nvidia.com/gpu", value="present", effect="NO_SCHEDULE"
                    )
                ],
                "shielded_instance_config": {"enable_secure_boot": True, "enable_integrity_monitoring": True},
                "workload_metadata_config": {"mode": "GKE_METADATA"},
                "metadata": {"disable-legacy-endpoints": "true"},
                "resource_labels": _labels(props, {"computeops-gpu": machine.gpu}),
            },
            provider=provider,
        )


def _google(submodule: str, props: TargetProps) -> Any:
    from .._compat import import_binding

    return import_binding("google", submodule, chosen_by=_chooser(props))


def _google_beta(submodule: str, props: TargetProps) -> Any:
    from .._compat import import_binding

    return import_binding("google_beta", submodule, chosen_by=_chooser(props))


def _chooser(props: TargetProps) -> str:
    return str(props.options.get("chosen_by", "the engine"))


def _beta_provider(scope: Any, region: str, props: TargetProps) -> Any:
    """The stack's google-beta provider, created once: a second unaliased block is a Terraform error."""
    from .._compat import TerraformStack

    stack = TerraformStack.of(scope)
    for node in stack.node.find_all():
        if getattr(node, "terraform_resource_type", None) == "google-beta":
            return node
    mod = _google_beta("provider", props)
    return mod.GoogleBetaProvider(stack, "google-beta", region=region, project=props.options.get("project"))
