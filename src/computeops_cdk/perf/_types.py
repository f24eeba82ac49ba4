"""Inputs and outputs of the performance model.

The engine and the ``estimate`` CLI only see these records and the functions re-exported by
``computeops_cdk.perf``; how the numbers are produced stays behind that module boundary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]
Bound = Literal["memory", "compute", "communication"]
WorkloadKind = Literal["inference", "training", "fine_tuning"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelSpec:
    """A transformer's architecture. ``active_params_b`` differs from ``params_b`` only for MoE."""

    name: str
    params_b: float
    active_params_b: float
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    max_context: int
    source: str = ""
    estimated_fields: tuple[str, ...] = ()
    """Fields filled from documented defaults rather than a published config."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InferenceEstimate:
    """Serving estimate for ``count`` accelerators (tensor-parallel groups x data-parallel replicas)."""

    tokens_per_s: float
    tokens_per_s_per_accelerator: float
    ttft_ms: float
    tpot_ms: float
    memory_gb_per_accelerator: float
    fits: bool
    bound: Bound
    tensor_parallel: int
    replicas: int
    concurrency: int
    """Requests in flight per replica at the estimated operating point."""
    precision: Precision
    """The precision actually modelled (may differ from the one asked for; see assumptions)."""
    model_version: str
    assumptions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingEstimate:
    """Training or fine-tuning estimate for ``count`` accelerators."""

    tokens_per_s: float
    tokens_per_s_per_accelerator: float
    mfu: float
    step_time_s: float
    memory_gb_per_accelerator: float
    fits: bool
    bound: Bound
    tensor_parallel: int
    replicas: int
    precision: Precision
    model_version: str
    assumptions: tuple[str, ...] = ()
