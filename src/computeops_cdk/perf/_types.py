"""Inputs and outputs of the performance model.

The engine and the ``estimate`` CLI only see these records and the functions re-exported by
``computeops_cdk.perf``; how the numbers are produced stays behind that module boundary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "Bound",
    "Evidence",
    "InferenceEstimate",
    "ModelSpec",
    "Precision",
    "TrainingEstimate",
    "Uncertainty",
    "WorkloadKind",
]

Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]
Bound = Literal["memory", "compute", "communication"]
WorkloadKind = Literal["inference", "training", "fine_tuning"]
Evidence = Literal["validated", "extrapolated", "upper_bound", "measured"]

PRECISIONS: tuple[Precision, ...] = ("fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4")
"""Every precision the model accepts (one that the accelerator lacks falls back; see assumptions)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Uncertainty:
    """How far reality may fall from an estimate, from the model's own held-out validation.

    ``low`` and ``high`` multiply the estimated throughput (and divide the estimated latencies):
    the 10th and 90th percentile of measured / estimated speed on the held-out rows of the same
    kind of work on validated hardware, the whole observed range where the estimate extrapolates
    from the datasheet, or the measured range of an accelerator whose held-out rows miss the
    accuracy target (``upper_bound`` when reality stays below the estimate, else ``measured``).
    """

    evidence: Evidence
    low: float
    high: float
    basis: str
    """One sentence saying where the band comes from."""


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
    experts: int = 0
    """Routed experts per MoE layer (0 for a dense model)."""
    experts_per_token: int = 0
    """Routed experts each token activates (top-k; 0 for a dense model)."""
    kv_cache_dim: int = 0
    """Cached elements per token per layer (K and V together). Default 0 means the GQA shape,
    ``2 * kv_heads * head_dim``; set for compressed caches (DeepSeek MLA: 512 + 64 = 576)."""
    aliases: tuple[str, ...] = ()
    """Other names the registry resolves to this model (case-insensitive)."""
    sliding_window: int = 0
    """Tokens a sliding-window (local) attention layer keeps in its KV cache; 0: every layer is global."""
    global_layer_every: int = 0
    """With ``sliding_window``: every n-th layer attends globally (Gemma 2: 2, Gemma 3: 6); 0 means
    every layer is local (Mistral 7B v0.1)."""

    @property
    def kv_elements_per_token(self) -> int:
        """KV-cache elements one token occupies across all layers."""
        per_layer = self.kv_cache_dim or 2 * self.kv_heads * self.head_dim
        return self.layers * per_layer

    def kv_context(self, ctx: float) -> float:
        """Tokens of full-attention cache equivalent to a request holding ``ctx`` tokens (local
        layers keep at most ``sliding_window`` of them)."""
        if not self.sliding_window or ctx <= self.sliding_window:
            return ctx
        global_layers = self.layers // self.global_layer_every if self.global_layer_every else 0
        local_layers = self.layers - global_layers
        return (global_layers * ctx + local_layers * self.sliding_window) / self.layers

    @property
    def is_moe(self) -> bool:
        """True when fewer parameters are active per token than the model holds."""
        return self.active_params_b < self.params_b


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
    slo_met: bool | None = None
    """None without TTFT/TPOT targets; otherwise whether the operating point meets all of them."""
    memory_needed_gb: float = 0.0
    """Memory one tensor-parallel group needs for the weights, runtime and one request's KV cache
    (GB, all of its accelerators together); compare with ``count * memory_gb`` when ``fits`` is False."""
    memory_available_gb_per_accelerator: float = 0.0
    """The accelerator's memory (GB) as the catalog gives it."""
    memory_usable_gb_per_accelerator: float = 0.0
    """The share of it the model may fill (the runtime's memory fraction, MEMORY_UTILIZATION 0.9):
    what ``fits`` compares the need with."""
    requested_precision: Precision | None = None
    """The precision asked for, when the model fell back to another one (see assumptions)."""
    weights_gb_per_accelerator: float = 0.0
    """The model weights' share of ``memory_gb_per_accelerator`` (weights / tensor_parallel)."""
    uncertainty: Uncertainty | None = None
    """The band of this estimate (set by ``estimate_inference``)."""


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
    memory_needed_gb: float = 0.0
    """Memory the whole job needs (GB, all accelerators together) at the modelled sharding."""
    memory_available_gb_per_accelerator: float = 0.0
    """The accelerator's memory (GB) as the catalog gives it."""
    memory_usable_gb_per_accelerator: float = 0.0
    """The share of it the model may fill (the runtime's memory fraction, MEMORY_UTILIZATION 0.9):
    what ``fits`` compares the need with."""
    activation_checkpointing: bool = False
    """True when activations only fit with full recomputation (costs ~1/3 more FLOPs)."""
    requested_precision: Precision | None = None
    """The precision asked for, when the model fell back to another one (see assumptions)."""
    pipeline_parallel: int = 1
    """Pipeline stages of the layout (tensor x pipeline x ``replicas`` = the accelerators)."""
    micro_batches: int = 1
    """Micro-batches each data-parallel replica runs per step (the pipeline bubble depends on it)."""
    sequences_per_step: int = 1
    """Whole sequences one optimizer step holds (``global_batch_tokens // seq_len``)."""
    layout_error: str = ""
    """Non-empty when no physical layout uses every accelerator for the batch (zero throughput):
    more data-parallel replicas than sequences per step would be needed."""
    uncertainty: Uncertainty | None = None
    """The band of this estimate (set by ``estimate_training``)."""
