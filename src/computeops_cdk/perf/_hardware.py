"""What an accelerator can do: supported precisions, achievable FLOPs, bandwidths, link speeds.

Precision support is decided from the architecture (physics), not from a flag: FP8 tensor cores
exist on NVIDIA Ada, Hopper and Blackwell and AMD CDNA 3/4; FP4 only on NVIDIA Blackwell and AMD
CDNA 4 (MI355X); BF16 from NVIDIA Ampere, AMD CDNA 2 and every TPU. A precision the part lacks
falls back to the nearest one it has, and the estimate says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import EstimateError
from . import _calibration as cal

if TYPE_CHECKING:
    from ._types import Precision

__all__ = ["Hardware", "bytes_per_param", "hardware_of"]

_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
    "fp4": 0.5,
}

_FP8_ARCH = ("ada", "hopper", "blackwell", "cdna 3", "cdna3", "cdna 4", "cdna4")
_FP4_ARCH = ("blackwell", "cdna 4", "cdna4")
_NO_BF16_ARCH = ("volta", "turing", "pascal", "maxwell", "kepler")


def bytes_per_param(precision: str) -> float:
    """Storage bytes per weight at ``precision`` (int4/fp4 pack two weights per byte)."""
    return _BYTES[precision]


@dataclass(frozen=True, slots=True)
class Hardware:
    """An accelerator reduced to the numbers the model uses (validated, never None)."""

    name: str
    memory_gb: float
    bw_gbps: float
    bf16_tflops: float
    fp8_tflops: float | None
    fp4_tflops: float | None
    fp32_tflops: float | None
    link: str
    """'fast' (NVLink, Infinity Fabric, ICI), or 'pcie' when the part has no vendor link."""
    link_gbps: float
    """Accelerator-to-accelerator bandwidth per direction, GB/s."""
    is_tpu: bool
    link_note: str | None
    """Set when the link bandwidth is assumed rather than published."""
    arch: str
    max_slice_chips: int | None = None
    """TPUs: the most chips one slice (one ICI domain) holds; more chips are several slices joined
    over the data-center network (multi-slice). None for GPUs and TPUs without a cited figure."""
    link_eff: float = cal.LINK_EFF
    """Share of ``link_gbps`` collectives achieve: ``LINK_EFF`` on vendor links, ``PCIE_LINK_EFF``
    over PCIe (fitted: NCCL over PCIe is bounded by the root complex, not the GPU's x16 link)."""
    serving_eff: float = 1.0
    """Share of the NVIDIA-fitted serving roofline this vendor's serving stack reaches (inference
    only): ``ROCM_SERVING_EFF`` on AMD CDNA parts, ``TPU_SERVING_EFF`` on TPUs, 1 elsewhere."""
    host_s_per_seq: float = 0.0
    """Host (CPU) seconds per request in flight that every decode step waits for: 0 unless a named
    serving engine's generation is host-bound (``_engines``). Inference only."""
    prefill_chunk: int = 0
    """Tokens per prefill chunk (the engine's per-step token budget); 0: prompts are prefilled
    whole (TPUs, whose fitted efficiency already holds what chunking costs). Inference only."""
    prefix_cache_share: float = 0.0
    """Share of each prompt's tokens read from the prefix cache, not prefilled. Inference only."""

    def supports(self, precision: str) -> bool:
        """Whether the part has native tensor math (or storage, for int8/int4) at ``precision``."""
        if precision == "fp8":
            return self.fp8_tflops is not None or any(a in self.arch for a in _FP8_ARCH)
        if precision == "fp4":
            return self.fp4_tflops is not None or any(a in self.arch for a in _FP4_ARCH)
        if precision == "bf16":
            return not any(a in self.arch for a in _NO_BF16_ARCH)
        return True

    def peak_tflops(self, precision: str) -> tuple[float, str | None]:
        """Dense tensor TFLOPs at a supported ``precision`` and a note when it is derived."""
        if precision == "fp8":
            if self.fp8_tflops is not None:
                return self.fp8_tflops, None
            return 2 * self.bf16_tflops, f"{self.name} FP8 peak not in the catalog: assumed 2x BF16"
        if precision == "fp4":
            if self.fp4_tflops is not None:
                return self.fp4_tflops, None
            fp8, _ = self.peak_tflops("fp8")
            return 2 * fp8, f"{self.name} FP4 peak not in the catalog: assumed 2x FP8"
        if precision == "fp32":
            if self.fp32_tflops is not None and self.fp32_tflops > self.bf16_tflops / 2:
                return self.fp32_tflops, None
            return self.bf16_tflops / 2, "FP32 matmuls run as TF32 at half the BF16 tensor rate"
        return self.bf16_tflops, None


# Largest single slice (one ICI domain) per TPU generation, by architecture: v5e and v6e "TPU Pod
# size 256 chips" (docs.cloud.google.com/tpu/docs/v5e, .../v6e); v5p "single-slice training supports
# up to 6144 chips", larger jobs are multi-slice (docs.cloud.google.com/tpu/docs/v5p-training).
_TPU_SLICE_CHIPS: dict[str, int] = {"tpu v5e": 256, "tpu v6e": 256, "tpu v5p": 6144}


def hardware_of(acc: Any) -> Hardware:
    """Validate a catalog ``Accelerator`` and reduce it to :class:`Hardware`.

    Raises:
        EstimateError: a spec the model needs (memory, bandwidth, BF16 TFLOPs) is missing.
    """
    name = str(getattr(acc, "id", "accelerator"))
    missing = [
        label
        for attr, label in (
            ("memory_gb", "memory_gb"),
            ("memory_bw_gbps", "memory_bw_gbps"),
            ("bf16_tflops", "bf16_tflops"),
        )
        if not getattr(acc, attr, None)
    ]
    if missing:
        raise EstimateError(
            f"accelerator {name!r} has no published {', '.join(missing)} in the catalog, so its "
            "performance cannot be estimated. To fix: choose an accelerator with full specs "
            "(`computeops catalog accelerators`)."
        )
    arch = f"{getattr(acc, 'architecture', '') or ''}".lower()
    vendor = f"{getattr(acc, 'vendor', '') or ''}".lower()
    is_tpu = bool(getattr(acc, "is_tpu", False))  # the catalog's one definition (Accelerator.is_tpu)
    is_amd = vendor == "amd" or "cdna" in arch
    interconnect = getattr(acc, "interconnect", None)
    link_gbps = getattr(acc, "interconnect_gbps", None)
    fast = bool(interconnect) and str(interconnect).lower() not in ("pcie", "none")
    known = next((gbps for key, gbps in cal.LINK_GBPS_BY_ARCH.items() if key in arch), None)
    if fast and not link_gbps and known:
        link_gbps = known
        link_note = (
            f"{name}'s {interconnect} bandwidth not in the catalog: {known:g} GB/s (cited in _calibration)"
        )
    elif fast and not link_gbps:
        # A vendor link without a published per-GPU figure (Infinity Fabric, NVLink 2): count it
        # as PCIe-class bandwidth with fast-link latency rather than inventing a number.
        link_gbps = cal.PCIE_GBPS * cal.LINK_DIRECTIONS
        link_note = (
            f"{name}'s {interconnect} bandwidth is not published in the catalog: modelled at "
            f"PCIe Gen4 speed ({cal.PCIE_GBPS:g} GB/s per accelerator), a conservative floor"
        )
    elif not fast:
        link_note = (
            f"{name} has no accelerator link in the catalog: tensor/data parallel traffic over PCIe "
            f"at {cal.PCIE_GBPS * cal.PCIE_LINK_EFF:.0f} GB/s per direction effective (PCIE_LINK_EFF, "
            "fitted to a measured TP4-over-PCIe serving row)"
        )
    else:
        link_note = None
    return Hardware(
        name=name,
        memory_gb=float(acc.memory_gb),
        bw_gbps=float(acc.memory_bw_gbps),
        bf16_tflops=float(acc.bf16_tflops),
        fp8_tflops=_opt(getattr(acc, "fp8_tflops", None)),
        fp4_tflops=_opt(getattr(acc, "fp4_tflops", None)),
        fp32_tflops=_opt(getattr(acc, "fp32_tflops", None)),
        link="fast" if fast else "pcie",
        # per direction: catalog figures are bidirectional aggregates
        link_gbps=float(link_gbps) / cal.LINK_DIRECTIONS if fast and link_gbps else cal.PCIE_GBPS,
        is_tpu=is_tpu,
        max_slice_chips=next((n for key, n in _TPU_SLICE_CHIPS.items() if key in arch), None)
        if is_tpu
        else None,
        link_note=link_note,
        arch=arch,
        link_eff=cal.LINK_EFF if fast else cal.PCIE_LINK_EFF,
        serving_eff=cal.ROCM_SERVING_EFF if is_amd else cal.TPU_SERVING_EFF if is_tpu else 1.0,
        prefill_chunk=0 if is_tpu else cal.PREFILL_CHUNK_TOKENS,
    )


def _opt(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and value > 0 else None


def achieved_tflops(peak: float, eff_at_ref: float, *, max_ratio: float = math.inf) -> float:
    """Sustained TFLOPs for a part of ``peak`` dense TFLOPs (see _calibration's peak law).
    ``max_ratio`` caps ``peak / REF_PEAK_TFLOPS``: the law is not extrapolated beyond the largest
    peak it was fitted on for the workload kind (training: ``TRAIN_PEAK_RATIO_MAX``)."""
    ratio = min(peak / cal.REF_PEAK_TFLOPS, max_ratio)
    return peak * eff_at_ref * math.pow(ratio, -cal.PEAK_EFF_EXPONENT)


def resolve_precision(hw: Hardware, precision: Precision, *, training: bool) -> tuple[Precision, list[str]]:
    """The precision actually modelled on ``hw`` and the notes explaining any fallback."""
    notes: list[str] = []
    chosen: Precision = precision
    if training and precision in ("int8", "int4"):
        chosen = "bf16"
        notes.append(f"{precision} is a serving format: full training modelled in bf16")
    if chosen == "fp4" and not hw.supports("fp4"):
        chosen = "fp8"
        notes.append(f"{hw.name} has no FP4 tensor cores (Blackwell or MI355X only): fell back to fp8")
    if chosen == "fp4" and training:
        chosen = "fp8"
        notes.append("FP4 training is not modelled: fell back to fp8")
    if chosen == "fp8" and not hw.supports("fp8"):
        chosen = "bf16"
        notes.append(
            f"{hw.name} has no FP8 tensor cores (Ada, Hopper, Blackwell, MI300 or newer): fell back to bf16"
        )
    if chosen == "bf16" and not hw.supports("bf16"):
        chosen = "fp16"
        notes.append(f"{hw.name} has no BF16 support: modelled in fp16 (same size)")
    return chosen, notes
