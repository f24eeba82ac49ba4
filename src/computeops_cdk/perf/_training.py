"""Training and fine-tuning estimate: memory, parallel layout, MFU, step time and throughput.

* FLOPs per token: 6 x active params (forward 2 + backward 4) plus attention 12 x layers x seq x
  (heads x head_dim), the llm-foundry / Megatron "model FLOPs" convention the calibration rows use.
  LoRA skips the frozen weights' gradients: 4 x active params plus 2/3 of the attention FLOPs.
* Memory per accelerator (full): mixed-precision Adam states (16 B/param) sharded over every
  accelerator (ZeRO-3 / FSDP FULL_SHARD), two gathered layers in flight, activations of one
  micro-batch divided by the model-parallel degree, with or without full recomputation.
  LoRA: the frozen base at its precision (int4/int8 allowed: QLoRA) sharded the same way, plus
  adapters (0.5 % of the params) with their Adam states.
* MFU = peak law x width law x recompute x model-parallel loss x scale loss (x FP8 factor); every
  factor is in _calibration with the rows it was fitted to.
* Layout: tensor x pipeline x data parallel = the accelerators. A step holds
  ``global_batch_tokens // seq_len`` whole sequences and each data-parallel replica at least one,
  so ``data parallel x micro-batch <= sequences per step``. A replica runs its sequences as
  micro-batches of up to MICRO_BATCH_TOKENS; a pipeline of ``pp`` stages over ``m`` micro-batches
  idles for the bubble ``(pp - 1) / (v x m + pp - 1)`` of the step (interleaved 1F1B, ``v`` model
  chunks per stage, arXiv:2104.04473 section 2.2). When no layout can use every accelerator for
  the batch, ``layout_error`` says so with zero throughput: the deployment is too big for it.
* Step time = max(compute, exposed data-parallel traffic): 3 x bf16 params per step per rank
  (all-gather forward and backward, reduce-scatter) over the slowest link the group spans. The
  compute is the slowest replica's: ``ceil(sequences / dp)`` sequences. The layout with the
  shortest step is chosen; pipeline activations between stages are small and not modelled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from . import _calibration as cal
from ._hardware import Hardware, achieved_tflops, bytes_per_param, resolve_precision
from ._types import Bound, ModelSpec, Precision, TrainingEstimate

__all__ = ["estimate_training_hw"]

# Micro-batch the activations must hold, in tokens: the calibration runs use 6-16k tokens per
# micro-batch (TRN-01 8 x 2048, TRN-03 6 x 2048); a smaller one leaves the GEMMs underfed.
MICRO_BATCH_TOKENS = 8192
# Tensor parallelism costs more on narrow models (communication ~ tokens x hidden, compute ~
# tokens x hidden^2): loss per doubling = TP_LOSS_AT_8192 x 8192 / hidden. Fitted to TRN-33 (70B
# TP4 PP8) and TRN-25 (405B TP8 PP16). Pipeline stages pay their real bubble (module docstring).
TP_LOSS_AT_8192 = 0.05
MAX_MODEL_PARALLEL = 128
# Interleaved 1F1B: each pipeline stage holds this many model chunks, dividing the bubble by it
# (Narayanan et al., arXiv:2104.04473, section 2.2.2); Megatron / NeMo and Llama 3 (arXiv:2407.21783,
# section 3.3.2) train with it. Capped by the layers a stage holds.
VIRTUAL_STAGES = 4
# Long context (v14, benchmarks/preregistration/v14.md). From this sequence length on, layouts may
# split each sequence over CONTEXT PARALLEL ranks (ring attention: Megatron / NeMo CP, Llama 3's
# 405B at 128K, arXiv:2407.21783 section 3.3.2), and attention runs at its own rate. Below it the
# v10 model holds unchanged: its calibration rows (2K-8K) carry the attention share in their MFU,
# and NeMo's long-sequence tables run CP 1 up to 16K (NVIDIA/NeMo
# docs/source/performance/performance_long_sequence.md @9421f21).
LONG_CONTEXT_TOKENS = cal.LONG_CONTEXT_TOKENS
# Attention kernels (flash / fused attention) reach this share of the BF16 peak, in the model-FLOPs
# convention of the sources (12 x layers x heads x head_dim x seq per token, causal masking not
# discounted). Attention stays in BF16 under FP8 training (Transformer Engine's FP8 recipe covers the
# linear layers). Fitted (geometric mean of predicted/published = 1) to CAL-LC-1 and CAL-LC-2 (NeMo,
# 1M-token sequences, attention ~97 % of the FLOPs: Llama 2 7B on 1,024 H100 at CP 32, Llama 3 8B on
# 1,024 B200 at CP 16): solved 0.626, rounded to 0.63 (1.15x and 0.88x). The other 15 rows of both
# tables are held out.
ATTENTION_EFF = 0.63


@dataclass(frozen=True, slots=True)
class _Layout:
    mp: int
    tp: int
    ckpt: bool
    mem_gb: float
    mfu: float
    dp: int
    micro: int
    """Sequences per micro-batch."""
    micro_batches: int
    """Micro-batches the slowest replica runs per step."""
    share: int
    """Sequences the slowest replica runs per step."""
    virtual: int
    """Model chunks per pipeline stage (interleaved schedule)."""
    cp: int = 1
    """Context-parallel ranks each sequence is split over (1 below LONG_CONTEXT_TOKENS)."""

    @property
    def pp(self) -> int:
        return self.mp // self.tp

    @property
    def bubble(self) -> float:
        """Share of the step a pipeline idles (0 without pipeline parallelism)."""
        return (self.pp - 1) / (self.virtual * self.micro_batches + self.pp - 1)


def _flops_per_token(m: ModelSpec, seq: int, lora: bool) -> float:
    attn = 12 * m.layers * seq * m.heads * m.head_dim
    if lora:
        return 4 * m.active_params_b * 1e9 + attn * 2 / 3
    return 6 * m.active_params_b * 1e9 + attn


def _memory_gb(
    m: ModelSpec, count: int, mp: int, ckpt: bool, lora: bool, bpp: float, tokens: int, cp: int = 1
) -> float:
    n = m.params_b * 1e9
    if lora:
        states = n * bpp / count + 16 * n * cal.LORA_PARAM_FRACTION / count
    else:
        states = cal.ADAM_BYTES_PER_PARAM * n / count
    gathered = 2 * (n / m.layers) * 2 / mp
    if ckpt:
        act = tokens * m.hidden * (2 * m.layers + cal.ACT_BYTES_PER_HIDDEN)
    else:
        act = tokens * m.hidden * cal.ACT_BYTES_PER_HIDDEN * m.layers
    return (states + gathered + act / (mp * cp)) / 1e9 + cal.RUNTIME_RESERVE_GB


def _mfu(m: ModelSpec, hw: Hardware, prec: Precision, tp: int, ckpt: bool, nodes: int) -> float:
    """MFU of the busy part of a step (the pipeline bubble is applied by the caller)."""
    peak, _ = hw.peak_tflops(prec)
    base = achieved_tflops(peak, cal.TRAIN_EFF_AT_REF, max_ratio=cal.TRAIN_PEAK_RATIO_MAX) / peak
    width = min(1.2, max(0.8, math.pow(m.hidden / cal.WIDTH_REF, cal.WIDTH_EXPONENT)))
    tp_loss = min(0.2, TP_LOSS_AT_8192 * 8192 / m.hidden) * math.log2(tp)
    mp_factor = max(0.3, 1.0 - tp_loss)
    scale = max(0.5, 1.0 - cal.SCALE_LOSS_PER_DOUBLING * math.log2(nodes))
    fp8 = cal.FP8_TRAIN_FACTOR if prec in ("fp8", "fp4") else 1.0
    return base * width * (cal.RECOMPUTE_FACTOR if ckpt else 1.0) * mp_factor * scale * fp8


def _layouts(
    m: ModelSpec,
    hw: Hardware,
    prec: Precision,
    count: int,
    gpn: int,
    lora: bool,
    bpp: float,
    seq: int,
    sequences: int,
) -> list[_Layout]:
    """Every physical layout: dp x micro-batch <= sequences, pp <= layers, tp x pp x dp = count."""
    nodes = math.ceil(count / gpn)
    out: list[_Layout] = []
    cps = [1]
    while seq >= LONG_CONTEXT_TOKENS and cps[-1] * 2 <= count and seq // (cps[-1] * 2) >= 1024:
        cps.append(cps[-1] * 2)  # each rank keeps a chunk of at least 1K tokens
    for cp in cps:
        mp = 1
        while mp * cp <= count and mp <= MAX_MODEL_PARALLEL:
            tp = min(mp, gpn, 8)
            dp = count // (mp * cp)
            if count % (mp * cp) == 0 and dp <= sequences and mp // tp <= m.layers:
                share = math.ceil(sequences / dp)  # sequences the slowest replica runs per step
                micro = max(1, min(share, MICRO_BATCH_TOKENS // seq))
                for ckpt in (False, True):
                    mem = _memory_gb(m, count, mp, ckpt, lora, bpp, micro * seq, cp)
                    mfu = _mfu(m, hw, prec, tp, ckpt, nodes)
                    out.append(
                        _Layout(
                            mp=mp,
                            tp=tp,
                            ckpt=ckpt,
                            mem_gb=mem,
                            mfu=mfu,
                            dp=dp,
                            micro=micro,
                            micro_batches=math.ceil(share / micro),
                            share=share,
                            virtual=max(1, min(VIRTUAL_STAGES, m.layers // (mp // tp))),
                            cp=cp,
                        )
                    )
            mp *= 2
    return out


@lru_cache(maxsize=4096)
def estimate_training_hw(
    m: ModelSpec,
    hw: Hardware,
    precision: Precision,
    count: int,
    seq_len: int,
    global_batch_tokens: int,
    method: Literal["full", "lora"],
    gpn: int,
    fabric: bool,
) -> TrainingEstimate:
    """The estimate for validated inputs (cached)."""
    lora = method == "lora"
    if lora and precision in ("int8", "int4"):
        prec, notes = resolve_precision(hw, "bf16", training=True)
        bpp = bytes_per_param(precision)
        notes.append(f"QLoRA-style: frozen base stored at {precision}, adapters and math in {prec}")
    else:
        prec, notes = resolve_precision(hw, precision, training=True)
        bpp = bytes_per_param(prec)
    usable = hw.memory_gb * cal.MEMORY_UTILIZATION
    sequences = max(1, global_batch_tokens // seq_len)
    layouts = _layouts(m, hw, prec, count, gpn, lora, bpp, seq_len, sequences)
    if not layouts:
        return _too_big(hw, prec, precision, count, sequences, notes)
    fitting = [lay for lay in layouts if lay.mem_gb <= usable]
    if not fitting:
        worst = min(layouts, key=lambda lay: lay.mem_gb)
        return replace(_no_fit(hw, prec, precision, count, worst, notes), sequences_per_step=sequences)
    peak, peak_note = hw.peak_tflops(prec)
    if peak_note:
        notes.append(peak_note)
    fpt = _flops_per_token(m, seq_len, lora)

    long = seq_len >= LONG_CONTEXT_TOKENS
    attn_fpt = _attention_flops_per_token(m, seq_len, lora)

    def timing(lay: _Layout) -> tuple[float, float, str]:
        # The slowest replica's sequences on its mp (x cp) accelerators, plus the pipeline bubble.
        if long:
            busy = lay.share * _long_sequence_s(
                m, hw, seq_len, fpt - attn_fpt, attn_fpt, lay, peak, gpn, fabric
            )
        else:
            busy = lay.share * seq_len * fpt / (lay.mp * peak * 1e12 * lay.mfu)
        compute = busy / (1.0 - lay.bubble)
        comm, link = _dp_traffic_s(m, hw, count, lay.mp, gpn, fabric, lora)
        return compute, comm, link

    # The layout with the shortest step: a wider model-parallel group loses MFU but shrinks the
    # data-parallel traffic (and, with mp = count, removes it), which wins on slow networks.
    lay = min(fitting, key=lambda x: (max(timing(x)[:2]), x.mp))
    compute_s, comm_s, link = timing(lay)
    step = max(compute_s, comm_s)
    bound: Bound = "communication" if comm_s > compute_s else "compute"
    tokens_per_s = global_batch_tokens / step
    mfu = tokens_per_s * fpt / (count * peak * 1e12)
    notes += [
        f"{'LoRA fine-tuning' if lora else 'full training'}: {fpt / 1e9:.1f} GFLOP per token "
        f"({'4' if lora else '6'} x {m.active_params_b:g}B active params + attention at seq {seq_len})",
        f"layout: tensor parallel {lay.tp} x pipeline {lay.pp} x "
        + (f"context parallel {lay.cp} x " if lay.cp > 1 else "")
        + f"data parallel {lay.dp}, ZeRO-3/FSDP sharded states"
        + (", full activation recomputation" if lay.ckpt else ""),
        f"batch: {sequences:,} sequence(s) per step, {lay.micro_batches:,} micro-batch(es) of "
        f"{lay.micro} per replica"
        + (f", pipeline bubble {lay.bubble:.0%} of the step" if lay.pp > 1 else ""),
    ]
    if link:
        notes.append(
            f"data-parallel traffic over {link}" + (" is the bottleneck" if bound == "communication" else "")
        )
    else:
        notes.append("one replica: no data-parallel traffic")
    if hw.is_tpu and count > gpn:
        notes.append(
            f"multi-slice: {math.ceil(count / gpn)} slices of {gpn} chips joined over the data-center "
            "network, modelled as nodes on the inter-node fabric (SCALE_LOSS_PER_DOUBLING per doubling "
            "of slices; MaxText's v5e multi-slice rows are held out against it)"
        )
    if long:
        notes.append(
            f"long context: attention {attn_fpt / fpt:.0%} of the FLOPs, run in bf16 at "
            f"{ATTENTION_EFF:.0%} of the bf16 peak (ATTENTION_EFF, fitted to NeMo's 1M-token rows); "
            + (
                f"each sequence split over {lay.cp} context-parallel ranks (ring attention, KV chunks "
                "exchanged while attention computes)"
                if lay.cp > 1
                else "no context parallelism"
            )
        )
    if lora:
        notes.append("LoRA efficiency assumed equal to full training's (no published LoRA row calibrates it)")
    if hw.link_note and count > 1 and link != "the inter-node fabric":
        notes.append(hw.link_note)
    if m.is_moe:
        notes.append("MoE: FLOPs from active params; expert all-to-all cost not modelled separately")
    return TrainingEstimate(
        tokens_per_s=tokens_per_s,
        tokens_per_s_per_accelerator=tokens_per_s / count,
        mfu=mfu,
        step_time_s=step,
        memory_gb_per_accelerator=lay.mem_gb,
        fits=True,
        bound=bound,
        tensor_parallel=lay.tp,
        replicas=lay.dp,
        precision=prec,
        model_version=cal.MODEL_VERSION,
        assumptions=tuple(notes),
        memory_needed_gb=lay.mem_gb * count,
        memory_available_gb_per_accelerator=hw.memory_gb,
        memory_usable_gb_per_accelerator=hw.memory_gb * cal.MEMORY_UTILIZATION,
        activation_checkpointing=lay.ckpt,
        requested_precision=precision if prec != precision else None,
        pipeline_parallel=lay.pp,
        micro_batches=lay.micro_batches,
        sequences_per_step=sequences,
    )


def _attention_flops_per_token(m: ModelSpec, seq: int, lora: bool) -> float:
    """The attention share of ``_flops_per_token``."""
    attn = 12 * m.layers * seq * m.heads * m.head_dim
    return attn * 2 / 3 if lora else attn


def _long_sequence_s(
    m: ModelSpec,
    hw: Hardware,
    seq: int,
    linear_fpt: float,
    attn_fpt: float,
    lay: _Layout,
    peak: float,
    gpn: int,
    fabric: bool,
) -> float:
    """Seconds one sequence of ``seq`` tokens takes on a layout's mp x cp accelerators (long context).

    The linear layers run at the layout's MFU; attention at ATTENTION_EFF of the bf16 peak. With
    context parallelism, each rank holds seq / cp tokens and passes its K/V chunk around the ring
    (cp - 1 hops per layer forward, twice that backward: 3 x in all), overlapped with the attention
    it feeds: only traffic beyond the attention time is exposed. The ring crosses the node fabric
    once tp x cp exceeds the accelerators per node."""
    ranks = lay.mp * lay.cp
    linear = seq * linear_fpt / (ranks * peak * 1e12 * lay.mfu)
    attention = seq * attn_fpt / (ranks * hw.bf16_tflops * 1e12 * ATTENTION_EFF)
    if lay.cp == 1:
        return linear + attention
    kv_bytes = 2 * m.kv_heads * m.head_dim * 2 * seq / lay.cp / min(lay.tp, m.kv_heads)
    if lay.tp * lay.cp > gpn:
        link = (cal.FABRIC_GBPS_PER_GPU if fabric else cal.ETHERNET_GBPS_PER_GPU) * 1e9 * cal.LINK_EFF
    else:
        link = hw.link_gbps * 1e9 * hw.link_eff
    ring = 3 * (lay.cp - 1) * m.layers / (lay.mp // lay.tp) * kv_bytes / link
    return linear + max(attention, ring)


def _dp_traffic_s(
    m: ModelSpec, hw: Hardware, count: int, mp: int, gpn: int, fabric: bool, lora: bool
) -> tuple[float, str]:
    if count <= mp:
        return 0.0, ""
    trained = m.params_b * 1e9 * (cal.LORA_PARAM_FRACTION if lora else 1.0)
    volume = 3 * 2 * trained / mp
    if count > gpn:
        gbps = cal.FABRIC_GBPS_PER_GPU if fabric else cal.ETHERNET_GBPS_PER_GPU
        link = "the inter-node fabric" if fabric else "inter-node Ethernet (no RDMA fabric)"
        eff = cal.LINK_EFF
    else:
        gbps, link = hw.link_gbps, ("the accelerator link" if hw.link == "fast" else "PCIe")
        eff = hw.link_eff  # PCIE_LINK_EFF over PCIe: the same NCCL transport as serving's all-reduces
    return volume / (gbps * 1e9 * eff), link


def _too_big(
    hw: Hardware, prec: Precision, asked: Precision, count: int, sequences: int, notes: list[str]
) -> TrainingEstimate:
    widest = min(count, MAX_MODEL_PARALLEL)
    error = (
        f"{count} accelerators cannot all work on {sequences:,} sequence(s) per step: each data-parallel "
        f"replica needs at least one sequence and a model-parallel group spans at most {widest} "
        f"accelerators, so at most {widest * sequences:,} can be used"
    )
    notes.append(error)
    return TrainingEstimate(
        tokens_per_s=0.0,
        tokens_per_s_per_accelerator=0.0,
        mfu=0.0,
        step_time_s=math.inf,
        memory_gb_per_accelerator=0.0,
        fits=True,
        bound="compute",
        tensor_parallel=min(widest, 8),
        replicas=0,
        precision=prec,
        model_version=cal.MODEL_VERSION,
        assumptions=tuple(notes),
        memory_available_gb_per_accelerator=hw.memory_gb,
        memory_usable_gb_per_accelerator=hw.memory_gb * cal.MEMORY_UTILIZATION,
        requested_precision=asked if prec != asked else None,
        sequences_per_step=sequences,
        layout_error=error,
    )


def _no_fit(
    hw: Hardware, prec: Precision, asked: Precision, count: int, lay: _Layout, notes: list[str]
) -> TrainingEstimate:
    notes.append(
        f"does not fit: needs {lay.mem_gb:.1f} GB per accelerator even with tensor/pipeline parallel "
        f"{lay.mp} and activation recomputation (usable {hw.memory_gb * cal.MEMORY_UTILIZATION:.1f} GB)"
    )
    return TrainingEstimate(
        tokens_per_s=0.0,
        tokens_per_s_per_accelerator=0.0,
        mfu=0.0,
        step_time_s=math.inf,
        memory_gb_per_accelerator=lay.mem_gb,
        fits=False,
        bound="memory",
        tensor_parallel=lay.tp,
        replicas=0,
        precision=prec,
        model_version=cal.MODEL_VERSION,
        assumptions=tuple(notes),
        memory_needed_gb=lay.mem_gb * count,
        memory_available_gb_per_accelerator=hw.memory_gb,
        memory_usable_gb_per_accelerator=hw.memory_gb * cal.MEMORY_UTILIZATION,
        activation_checkpointing=True,
        requested_precision=asked if prec != asked else None,
    )
