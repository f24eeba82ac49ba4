"""GCP instance types as Terraform sees them: GPU machine types, TPU slices, and default zones.

Pure data and mapping, no bindings: ``gcp.py`` emits the resources from what this module returns.
The zone tables come from the market data, so they change with it, never with the emitting code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..engine import Placement
from ..errors import TargetError

__all__ = ["GpuMachine", "TpuSlice", "default_zone", "map_instance_type", "zones_named"]

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
# g2-standard-<vCPU> -> L4 count (Compute Engine docs, "GPU machine types", G2 table:
# https://cloud.google.com/compute/docs/gpus). The market data has no G2 rows; this maps pinned names.
_G2_GPUS = {4: 1, 8: 1, 12: 1, 16: 1, 24: 2, 32: 1, 48: 4, 96: 8}
# N1 machine types take GPUs as guest accelerators.
_N1_GPUS: Mapping[str, str] = {
    "T4": "nvidia-tesla-t4",
    "V100": "nvidia-tesla-v100",
    "P4": "nvidia-tesla-p4",
    "P100": "nvidia-tesla-p100",
}
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


def zones_named(region: str) -> list[str]:
    """The zones of ``region`` the market data kept here names (for a "did you mean"), sorted."""
    named = {*_REGION_FIRST_ZONE.values(), *_GPU_ZONE.values(), *_TPU_ZONE.values()}
    return sorted(z for z in named if z.startswith(f"{region}-"))


def default_zone(placement: Placement, machine: GpuMachine | TpuSlice) -> str:
    """The zone used when the ``zone`` option is not given: the first zone (alphabetically) in which the
    market data lists the accelerator for the region, else ``<region>-a``."""
    region = placement.region
    if isinstance(machine, TpuSlice):
        return _TPU_ZONE.get((machine.generation, region), f"{region}-a")
    return _GPU_ZONE.get((machine.gpu, region)) or _REGION_FIRST_ZONE.get(region, f"{region}-a")
