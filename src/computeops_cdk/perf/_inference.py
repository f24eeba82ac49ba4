"""Serving estimate: memory fit, tensor parallelism, batch, TTFT, TPOT and throughput.

The model, per replica of ``t`` tensor-parallel accelerators serving ``B`` requests at once:

* Memory per accelerator = weights / t + runtime reserve + prefill workspace + KV cache of the
  batch (KV heads split over min(t, kv_heads) ranks; an MLA latent cache is replicated).
* Decode step = max(bytes streamed / effective bandwidth, FLOPs / achieved FLOPs)
  + tensor-parallel all-reduces (2 per layer) + a fixed per-layer overhead. Bytes streamed are the
  weights touched (all of them for a dense model; for MoE the shared weights plus the share of
  experts that ``B`` tokens' top-k routing hits, 1 - (1 - k/E)^B) plus the batch's KV cache.
* Prefill is compute bound: 2 x active params + attention FLOPs per prompt token. A prompt longer
  than the engine's chunk budget ``C`` is prefilled in ``n = ceil(P / C)`` chunks (v15): each
  extra chunk re-reads the weights, and each chunk reads the KV of the chunks before it. A share
  of the prompt served from the prefix cache is not prefilled: each chunk reads its KV instead.
* Achieved FLOPs and effective bandwidth are fitted on NVIDIA; on AMD parts both are multiplied by
  ``ROCM_SERVING_EFF`` (the ROCm serving stack's efficiency, fitted to MLPerf rows on MI300X).
* Continuous batching in steady state: each step also prefills the prompts of the requests that
  replace finished ones, so TPOT = step + (B - 1) / output_tokens x prompt prefill time, and a
  replica produces B x output_tokens per (own prefill + output_tokens x TPOT). Those prompt tokens
  ride in the step's all-reduces (v7): their compute and their all-reduce volume both count.
* Tensor parallelism stays inside a node (``gpus_per_node``) whenever the model fits there; only a
  model too big for one node gets a TP group spanning nodes, whose all-reduces then cross the
  inter-node fabric (50 GB/s per GPU, 40 us). Among the degrees that fit, the one with the highest
  throughput at the operating point wins (ties: the smaller). Accelerators beyond TP x replicas idle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from . import _calibration as cal
from ._hardware import Hardware, achieved_tflops, bytes_per_param, resolve_precision
from ._types import InferenceEstimate, ModelSpec, Uncertainty

if TYPE_CHECKING:
    from ._types import Bound, Precision

__all__ = ["estimate_inference_hw"]


# _Replica, _Point and _Coeffs are scratch records, never seen outside this module and never changed
# once made; not frozen, as a frozen dataclass's object.__setattr__ slows the model's hot path.
@dataclass(slots=True)
class _Replica:
    """Everything about one TP group that does not depend on the batch, shared by every estimate of
    its shape (``_shared_replica``). What is worked out from it for given prompt and completion
    lengths is kept in the ``_memo`` fields (left out of comparisons and the repr)."""

    t: int
    free_kv_gb: float
    static_gb: float
    weights_gb: float  # per accelerator
    kv_gb_per_token: float  # per accelerator
    max_batch: int
    w_shared: float  # bytes, whole model
    w_experts: float
    route_frac: float  # k / E (0 dense)
    kv_bytes_per_token: float  # whole model
    kv_div: int
    ach_flops: float  # per accelerator, FLOP/s
    bw: float  # bytes/s effective per accelerator
    lat: float
    link_bps: float
    moe_factor: float  # MOE_DECODE_FACTOR for MoE models, 1 for dense ones
    host_s: float  # host seconds per request in flight per decode step (a host-bound engine)
    chunk: int  # prefill chunk budget in tokens (0: prompts prefilled whole)
    cached_share: float  # share of each prompt's tokens served from the prefix cache
    coeffs_memo: dict[tuple[int, int], _Coeffs] = field(default_factory=dict, compare=False, repr=False)
    """(input, output tokens) -> the batch-independent terms of a step (``_coeffs``)."""
    points_memo: dict[tuple[int, int, int], _Point] = field(default_factory=dict, compare=False, repr=False)
    """(batch, input, output tokens) -> ``_point``, for the batches every estimate asks first."""
    meeting_memo: dict[tuple[int, int, float | None, float | None], _Point | None] = field(
        default_factory=dict, compare=False, repr=False
    )
    """(input, output tokens, ttft_ms, tpot_ms) -> ``_largest_meeting``."""


TPU_STACK_NOTE = (
    "TPU serving stack: vLLM TPU v0.11.1 on its tpu-inference (JAX) backend, the engine the TPU "
    "targets deploy; achieved FLOPs and bandwidth at {eff:.0%} of the GPU-fitted roofline "
    "(TPU_SERVING_EFF, fitted to SGLang-JAX's TPU v6e-4 Qwen3-8B rows: a JAX engine with Pallas ragged "
    "paged attention like tpu-inference); tpu-inference itself (Llama 3.3 70B on TPU v6e-8, a 2025-11 "
    "build) measured 1.31-1.41x of this estimate, vLLM's earlier PyTorch/XLA TPU backend (2025-09) "
    "0.47-1.05x"
)
"""The assumption a TPU serving estimate states (benchmarks/ACCURACY.md, "v11 note", "v12"): which
engine it describes, and what the calibration rows are. The 1.31-1.41x is HO-TPUI-* (held out, v12),
the 0.47-1.05x HO-TPUS-*-vllm-*; a test recomputes both."""


def _kv_bytes(precision: Precision) -> float:
    # FP8 deployments keep an FP8 KV cache (MLPerf, TensorRT-LLM FP8 recipes); FP32 keeps FP32;
    # everything else (including weight-only int8/int4) caches in 16-bit.
    return {"fp8": 1.0, "fp4": 1.0, "fp32": 4.0}.get(precision, 2.0)


def _replica(m: ModelSpec, hw: Hardware, prec: Precision, t: int, ctx: float, cross: bool) -> _Replica:
    """The TP group of ``t`` accelerators; ``cross``: it spans nodes (t > accelerators per node)."""
    bpp = bytes_per_param(prec)
    weights = m.params_b * 1e9 * bpp
    if m.is_moe and m.experts and m.experts_per_token:
        frac = m.experts_per_token / m.experts
        experts = (m.params_b - m.active_params_b) * 1e9 * bpp / (1 - frac)
        shared = weights - experts
    else:
        frac, experts, shared = 0.0, 0.0, weights
    kv_tok = m.kv_elements_per_token * _kv_bytes(prec)
    kv_div = 1 if m.kv_cache_dim else min(t, m.kv_heads)
    act_gb = cal.PREFILL_CHUNK_TOKENS * m.hidden * 2 * cal.ACTIVATION_FACTOR / 1e9
    static_gb = weights / t / 1e9 + cal.RUNTIME_RESERVE_GB + act_gb
    free = hw.memory_gb * cal.MEMORY_UTILIZATION - static_gb
    kv_gb_tok = kv_tok / kv_div / 1e9
    kv_ctx = m.kv_context(ctx)
    max_batch = min(cal.MAX_BATCH, math.floor(free / (kv_gb_tok * kv_ctx))) if free > 0 else 0
    peak, _ = hw.peak_tflops(prec)
    if cross:
        lat, link, eff = cal.ALLREDUCE_LATENCY_S["network"], cal.FABRIC_GBPS_PER_GPU, cal.LINK_EFF
    else:
        lat, link, eff = cal.ALLREDUCE_LATENCY_S[hw.link], hw.link_gbps, hw.link_eff
    return _Replica(
        t=t,
        free_kv_gb=free,
        static_gb=static_gb,
        weights_gb=weights / t / 1e9,
        kv_gb_per_token=kv_gb_tok,
        max_batch=max(0, max_batch),
        w_shared=shared,
        w_experts=experts,
        route_frac=frac,
        kv_bytes_per_token=kv_tok,
        kv_div=kv_div,
        # the serving stack's efficiency (ROCM_SERVING_EFF on AMD) scales the device's kernel work,
        # compute and memory alike; links and fixed per-step costs are not scaled
        ach_flops=achieved_tflops(peak, cal.PREFILL_EFF_AT_REF) * 1e12 * hw.serving_eff,
        bw=hw.bw_gbps * 1e9 * cal.DECODE_BW_EFF * hw.serving_eff,
        lat=lat,
        link_bps=link * 1e9 * eff,
        moe_factor=cal.MOE_DECODE_FACTOR if frac else 1.0,
        host_s=hw.host_s_per_seq,
        chunk=hw.prefill_chunk,
        cached_share=hw.prefix_cache_share,
    )


_shared_replica = lru_cache(maxsize=2048)(_replica)
"""``_replica``, one per shape: what the estimates share (their lru_cache is on whole estimates)."""


class _Shared:
    """What the estimates of one model on one accelerator share beyond ``_shared_replica``'s key.

    ``replicas``: (precision, TP, context, crossing nodes) -> the replica ``_shared_replica`` gave;
    ``precisions``: asked precision -> (the one modelled, the notes saying why and how);
    ``degrees``: accelerators -> the tensor-parallel degrees tried. Found by identity, once per
    estimate (the lru_cache's key hashes both records' fields on every ask)."""

    __slots__ = ("degrees", "hardware", "model", "precisions", "replicas")

    def __init__(self, model: ModelSpec, hardware: Hardware) -> None:
        self.model = model
        self.hardware = hardware
        self.replicas: dict[tuple[str, int, float, bool], _Replica] = {}
        self.precisions: dict[str, tuple[Precision, tuple[str, ...]]] = {}
        self.degrees: dict[int, tuple[int, ...]] = {}


_SHARED: dict[tuple[int, int], _Shared] = {}
"""(id(model), id(hardware)) -> their ``_Shared``: the entry holds both frozen records, so no other
object takes their ids while it is kept (equal records of other identities get their own entry)."""
_SHARED_KEPT = 256
_REPLICAS_KEPT = 2048
"""All entries' replicas together, as many as ``_shared_replica``'s lru_cache holds: caps nest."""
_replicas_added = 0


def _forget_shared() -> None:
    global _replicas_added
    _SHARED.clear()
    _replicas_added = 0


def _shared_of(m: ModelSpec, hw: Hardware) -> _Shared:
    """The ``_Shared`` of ``m`` on ``hw``, made empty on first sight (``_SHARED``)."""
    key = (id(m), id(hw))
    found = _SHARED.get(key)
    if found is not None and found.model is m and found.hardware is hw:
        return found
    if len(_SHARED) >= _SHARED_KEPT:
        _forget_shared()
    found = _SHARED[key] = _Shared(m, hw)
    return found


def _replica_kept(shared: _Shared, prec: Precision, t: int, ctx: float, cross: bool) -> _Replica:
    """``_shared_replica(m, hw, prec, t, ctx, cross)`` for ``shared``'s model and hardware."""
    kept = shared.replicas
    key = (prec, t, ctx, cross)
    found = kept.get(key)
    if found is None:
        global _replicas_added
        if _replicas_added >= _REPLICAS_KEPT:
            _forget_shared()  # this entry too, once its caller is done with it
            kept.clear()
        elif len(kept) >= _SHARED_KEPT:
            _replicas_added -= len(kept)
            kept.clear()
        _replicas_added += 1
        found = kept[key] = _shared_replica(shared.model, shared.hardware, prec, t, ctx, cross)
    return found


def _precision_kept(shared: _Shared, precision: Precision) -> tuple[Precision, tuple[str, ...]]:
    """The precision modelled for ``precision`` on ``shared``'s hardware and the notes it starts with."""
    found = shared.precisions.get(precision)
    if found is None:
        hw = shared.hardware
        prec, notes = resolve_precision(hw, precision, training=False)
        if prec in ("int8", "int4"):
            notes.append(f"{prec} weight-only quantization: weights stored at {prec}, math in 16-bit")
        peak_note = hw.peak_tflops(prec)[1]
        if peak_note:
            notes.append(peak_note)
        found = shared.precisions[precision] = (prec, tuple(notes))
    return found


def _degrees_kept(shared: _Shared, count: int) -> tuple[int, ...]:
    """``_tp_candidates(model, count)`` for ``shared``'s model."""
    found = shared.degrees.get(count)
    if found is None:
        found = shared.degrees[count] = tuple(_tp_candidates(shared.model, count))
    return found


@dataclass(slots=True)
class _Point:
    batch: int
    ttft_s: float
    tpot_s: float
    tokens_per_s: float  # one replica
    bound: Bound


def _weights_read(r: _Replica, tokens: float) -> float:
    if r.route_frac == 0.0:
        return r.w_shared
    touched = 1.0 - math.pow(1.0 - r.route_frac, tokens)
    return r.w_shared + r.w_experts * touched


def _comm(m: ModelSpec, r: _Replica, tokens: float) -> float:
    if r.t == 1:
        return 0.0
    volume = 2 * (r.t - 1) / r.t * tokens * m.hidden * 2
    return 2 * m.layers * (r.lat + volume / r.link_bps)


@dataclass(slots=True)
class _Coeffs:
    """Batch-independent terms of one replica's step: every time below is linear in the batch B
    (except an MoE's expert reads, kept in ``_weights_read``)."""

    kv_per_req_s: float  # KV streaming per request in flight
    cmp_per_req_s: float  # decode FLOPs per request in flight
    comm_fixed_s: float
    comm_per_req_s: float
    overhead_s: float
    pf_tok_s: float  # compute time of one prompt token
    pf_step_tok_s: float  # one prompt token prefilled inside a decode step: compute + its all-reduce volume
    prefill_s: float  # one prompt, alone
    pf_inp: int  # prompt tokens prefilled (the rest come from the prefix cache)


def _coeffs(m: ModelSpec, r: _Replica, inp: int, out: int) -> _Coeffs:
    found = r.coeffs_memo.get((inp, out))
    if found is None:
        found = r.coeffs_memo[(inp, out)] = _coeffs_of(m, r, inp, out)
    return found


def _coeffs_of(m: ModelSpec, r: _Replica, inp: int, out: int) -> _Coeffs:
    q_dim = m.heads * m.head_dim
    dense_flops = 2 * m.active_params_b * 1e9
    ctx_avg = inp + out / 2
    overhead = m.layers * cal.STEP_OVERHEAD_S_PER_LAYER
    comm1 = _comm(m, r, 1)
    comm_fixed = 2 * m.layers * r.lat if r.t > 1 else 0.0
    pf_tok = r.moe_factor * (dense_flops + 2 * m.layers * inp * q_dim) / (r.t * r.ach_flops)
    cached = math.floor(inp * r.cached_share)
    pf_inp = max(1, inp - cached)  # an engine computes the last prompt token even on a full hit
    # prefill of one prompt: compute bound, but never faster than reading the weights once
    prefill = max(pf_inp * pf_tok, _weights_read(r, pf_inp) / r.t / r.bw) + _comm(m, r, pf_inp) + overhead
    chunks = math.ceil(pf_inp / r.chunk) if r.chunk else 1
    if chunks > 1 or cached:
        kv_tok_s = r.kv_bytes_per_token / r.kv_div / r.bw
        earlier = r.chunk * chunks * (chunks - 1) / 2 if chunks > 1 else 0.0
        rereads = (chunks - 1) * _weights_read(r, r.chunk) / r.t / r.bw if chunks > 1 else 0.0
        prefill += rereads + kv_tok_s * (earlier + chunks * cached)
    return _Coeffs(
        kv_per_req_s=m.kv_context(ctx_avg) * r.kv_bytes_per_token / r.kv_div / r.bw,
        cmp_per_req_s=(dense_flops + 4 * m.layers * ctx_avg * q_dim) / (r.t * r.ach_flops),
        comm_fixed_s=comm_fixed,
        comm_per_req_s=comm1 - comm_fixed,
        overhead_s=overhead,
        pf_tok_s=pf_tok,
        # a prompt token chunked into a decode step is an activation row like a decode token: it
        # goes through the step's all-reduces (the volume, not more calls: they are the same calls)
        pf_step_tok_s=pf_tok + comm1 - comm_fixed,
        prefill_s=prefill,
        pf_inp=pf_inp,
    )


def _point(m: ModelSpec, r: _Replica, batch: int, inp: int, out: int, c: _Coeffs | None = None) -> _Point:
    c = c or _coeffs(m, r, inp, out)
    t_mem = r.moe_factor * (_weights_read(r, batch) / r.t / r.bw + batch * c.kv_per_req_s)
    t_cmp = r.moe_factor * batch * c.cmp_per_req_s
    t_comm = c.comm_fixed_s + batch * c.comm_per_req_s
    step = max(t_mem, t_cmp) + t_comm + c.overhead_s + batch * r.host_s
    pf_tokens = (batch - 1) / out * c.pf_inp  # prompt tokens prefilled per step (replacing finished requests)
    tpot = step + pf_tokens * c.pf_step_tok_s
    ttft = cal.REQUEST_OVERHEAD_S + c.prefill_s + (step if batch > 1 else 0.0)
    tokens_per_s = batch * out / (c.prefill_s + out * tpot)
    pf_cmp = pf_tokens * c.pf_tok_s
    bound: Bound = "compute" if t_cmp + pf_cmp > t_mem else "memory"
    if t_comm + pf_tokens * (c.pf_step_tok_s - c.pf_tok_s) > max(t_mem, t_cmp + pf_cmp):
        bound = "communication"
    return _Point(batch=batch, ttft_s=ttft, tpot_s=tpot, tokens_per_s=tokens_per_s, bound=bound)


def _point_kept(m: ModelSpec, r: _Replica, batch: int, inp: int, out: int) -> _Point:
    """``_point``, kept with the replica (for the batches many estimates of it ask)."""
    key = (batch, inp, out)
    found = r.points_memo.get(key)
    if found is None:
        found = r.points_memo[key] = _point(m, r, batch, inp, out)
    return found


def _dense_limit(r: _Replica, c: _Coeffs, inp: int, out: int, ttft: float | None, tpot: float | None) -> int:
    """Largest batch meeting the targets for a dense model, solved from the linear terms.

    tpot(B) = max(mem(B), cmp(B)) + comm(B) + overhead + (B - 1) I/O pf: each branch of the max
    is linear in B, so the bound is the smaller of two linear solutions (same for ttft).
    """
    mem_a, mem_b = r.w_shared / r.t / r.bw, c.kv_per_req_s
    base_a = c.comm_fixed_s + c.overhead_s
    best = float(r.max_batch)
    for limit, extra_a, extra_b in (
        (tpot, -c.pf_inp * c.pf_step_tok_s / out, c.pf_inp * c.pf_step_tok_s / out),
        (ttft, cal.REQUEST_OVERHEAD_S + c.prefill_s, 0.0),
    ):
        if limit is None:
            continue
        for a, b in ((mem_a, mem_b), (0.0, c.cmp_per_req_s)):
            slope = b + c.comm_per_req_s + r.host_s + extra_b
            room = limit / 1e3 - (a + base_a + extra_a)
            best = min(best, room / slope if slope > 0 else (best if room >= 0 else 0.0))
    return max(1, min(r.max_batch, math.floor(best)))


def _tp_candidates(m: ModelSpec, count: int) -> list[int]:
    out, t = [], 1
    while t <= count and t <= m.heads:
        if m.heads % t == 0:
            out.append(t)
        t *= 2
    return out


def _largest_meeting(
    m: ModelSpec, r: _Replica, inp: int, out: int, ttft: float | None, tpot: float | None
) -> _Point | None:
    """The largest batch's point meeting the targets (None if batch 1 misses), kept with the replica."""
    key = (inp, out, ttft, tpot)
    if key in r.meeting_memo:
        return r.meeting_memo[key]
    found = r.meeting_memo[key] = _search_meeting(m, r, inp, out, ttft, tpot)
    return found


def _search_meeting(
    m: ModelSpec, r: _Replica, inp: int, out: int, ttft: float | None, tpot: float | None
) -> _Point | None:
    c = _coeffs(m, r, inp, out)

    def ok(p: _Point) -> bool:
        return (ttft is None or p.ttft_s * 1e3 <= ttft) and (tpot is None or p.tpot_s * 1e3 <= tpot)

    top = _point_kept(m, r, r.max_batch, inp, out)
    if ok(top):  # the SLOs do not bind: the memory limit does
        return top
    if not ok(_point_kept(m, r, 1, inp, out)):
        return None
    lo, hi = 1, r.max_batch - 1
    if r.route_frac == 0.0:  # dense: the linear solution, checked (rounding) on both sides
        guess = _dense_limit(r, c, inp, out, ttft, tpot)
        if ok(_point(m, r, guess, inp, out, c)):
            lo = guess
            if guess >= hi or not ok(_point(m, r, guess + 1, inp, out, c)):
                return _point(m, r, guess, inp, out, c)
        else:
            hi = guess - 1
    while lo < hi:  # latency grows with the batch: binary search the largest batch meeting the SLOs
        mid = (lo + hi + 1) // 2
        if ok(_point(m, r, mid, inp, out, c)):
            lo = mid
        else:
            hi = mid - 1
    return _point(m, r, lo, inp, out, c)


@dataclass(frozen=True, slots=True)
class _Choice:
    """One tensor-parallel degree at its operating point, comparable by ``key``."""

    key: tuple[float, float, float, float]  # (SLO met, total tokens/s, -TPOT, -TP): larger is better
    replica: _Replica
    point: _Point
    replicas: int
    total: float  # tokens/s of the replicas that are busy
    slo_met: bool | None


def _operate(
    m: ModelSpec,
    r: _Replica,
    replicas: int,
    inp: int,
    out: int,
    concurrency: int | None,
    ttft_ms: float | None,
    tpot_ms: float | None,
    best: _Choice | None,
) -> _Choice | None:
    """``r``'s operating point: the given concurrency, else the largest batch meeting the latency
    targets, else the largest batch that fits. None when it cannot beat ``best``."""
    slo = ttft_ms is not None or tpot_ms is not None
    slo_met: bool | None = None
    busy = replicas
    if concurrency is not None:
        busy = min(replicas, concurrency)
        p = _point_kept(m, r, min(r.max_batch, math.ceil(concurrency / busy)), inp, out)
        if slo:
            slo_met = _meets(p, ttft_ms, tpot_ms)
    elif slo:
        if best is not None and best.key[0] == 1.0:
            # a replica's throughput only grows with its batch: skip TP degrees whose
            # memory-limited maximum cannot beat an SLO-meeting candidate already found
            ceiling = replicas * _point_kept(m, r, r.max_batch, inp, out).tokens_per_s
            if ceiling <= best.key[1]:
                return None
        found = _largest_meeting(m, r, inp, out, ttft_ms, tpot_ms)
        slo_met = found is not None
        p = found if found is not None else _point_kept(m, r, 1, inp, out)
    else:
        p = _point_kept(m, r, r.max_batch, inp, out)
    total = busy * p.tokens_per_s
    key = (1.0 if slo_met is not False else 0.0, total, -p.tpot_s, -float(r.t))
    return _Choice(key=key, replica=r, point=p, replicas=replicas, total=total, slo_met=slo_met)


@lru_cache(maxsize=8192)
def estimate_inference_hw(
    m: ModelSpec,
    hw: Hardware,
    precision: Precision,
    count: int,
    inp: int,
    out: int,
    concurrency: int | None,
    ttft_ms: float | None,
    tpot_ms: float | None,
    gpn: int,
    tp_pin: int | None = None,
    band: Uncertainty | None = None,
    validation: tuple[str, ...] = (),
) -> InferenceEstimate:
    """The estimate for validated inputs (cached: the engine asks the same questions repeatedly),
    with its uncertainty ``band`` and the ``validation`` notes ending its assumptions."""
    shared = _shared_of(m, hw)
    prec, first_notes = _precision_kept(shared, precision)
    notes = list(first_notes)
    ctx = inp + out / 2
    degrees = (tp_pin,) if tp_pin else _degrees_kept(shared, count)
    best: _Choice | None = None
    fits_in_node = False
    for t in degrees:
        if t > gpn and fits_in_node:
            break  # tensor parallelism stays inside a node whenever the model fits there
        r = _replica_kept(shared, prec, t, ctx, t > gpn)
        if r.max_batch < 1:
            continue
        fits_in_node = fits_in_node or t <= gpn
        choice = _operate(m, r, count // t, inp, out, concurrency, ttft_ms, tpot_ms, best)
        if choice is not None and (best is None or choice.key > best.key):
            best = choice
    if best is None:
        return _no_fit(m, hw, prec, precision, degrees, ctx, gpn, notes, band, validation, shared)
    r, p, replicas = best.replica, best.point, best.replicas
    mem = r.static_gb + p.batch * m.kv_context(ctx) * r.kv_gb_per_token
    notes += _notes(
        m, r, p, count, replicas, gpn, concurrency, hw.link_note, best.slo_met, hw.serving_eff, hw.is_tpu
    )
    return InferenceEstimate(
        tokens_per_s=best.total,
        tokens_per_s_per_accelerator=best.total / count,
        ttft_ms=p.ttft_s * 1e3,
        tpot_ms=p.tpot_s * 1e3,
        memory_gb_per_accelerator=mem,
        fits=True,
        bound=p.bound,
        tensor_parallel=r.t,
        replicas=replicas,
        concurrency=p.batch,
        precision=prec,
        model_version=cal.MODEL_VERSION,
        assumptions=(*notes, *validation),
        slo_met=best.slo_met,
        memory_needed_gb=r.t * (r.static_gb + m.kv_context(ctx) * r.kv_gb_per_token),
        memory_available_gb_per_accelerator=hw.memory_gb,
        memory_usable_gb_per_accelerator=hw.memory_gb * cal.MEMORY_UTILIZATION,
        requested_precision=precision if prec != precision else None,
        weights_gb_per_accelerator=r.weights_gb,
        uncertainty=band,
    )


def _meets(p: _Point, ttft_ms: float | None, tpot_ms: float | None) -> bool:
    return (ttft_ms is None or p.ttft_s * 1e3 <= ttft_ms) and (tpot_ms is None or p.tpot_s * 1e3 <= tpot_ms)


def _notes(
    m: ModelSpec,
    r: _Replica,
    p: _Point,
    count: int,
    replicas: int,
    gpn: int,
    conc: int | None,
    hw_link_note: str | None = None,
    slo_met: bool | None = None,
    serving_eff: float = 1.0,
    tpu: bool = False,
) -> list[str]:
    if conc is not None:
        why = ""
    elif slo_met is None:
        why = " (largest batch that fits: maximum sustained throughput)"
    elif slo_met:
        why = " (largest batch meeting the latency targets)"
    else:  # the batch-1 figures are returned; saying "maximum throughput" here would mislead
        why = " (no batch meets the latency targets: single-request figures)"
    notes = [
        f"tensor parallel {r.t} x {replicas} replica(s), {p.batch} request(s) in flight per replica{why}",
        f"continuous batching; decode streams weights and KV cache at {cal.DECODE_BW_EFF:.0%} of "
        "datasheet bandwidth; prefill is compute bound",
    ]
    if m.is_moe:
        notes.append(
            f"MoE: {m.active_params_b:g}B of {m.params_b:g}B params active per token drive FLOPs; "
            "all experts are held in memory; a batch reads the experts its tokens route to; "
            f"MoE kernels modelled at 1/{cal.MOE_DECODE_FACTOR:g} of the roofline (fitted)"
        )
    if serving_eff != 1.0 and not tpu:
        # the stack's own constant: a named engine's factor on top of it is in the engine's note
        notes.append(
            f"AMD serving stack (vLLM on ROCm): achieved FLOPs and bandwidth at {cal.ROCM_SERVING_EFF:.0%} "
            "of the NVIDIA-fitted roofline (ROCM_SERVING_EFF, fitted to AMD's MLPerf v4.1 MI300X results)"
        )
    elif serving_eff != 1.0:
        notes.append(TPU_STACK_NOTE.format(eff=serving_eff))
    if r.t > 1 and r.t <= gpn and hw_link_note:
        notes.append(hw_link_note)
    if r.t > gpn:
        notes.append(f"tensor parallel {r.t} spans nodes of {gpn}: all-reduces cross the network fabric")
    if count > r.t * replicas:
        notes.append(f"{count - r.t * replicas} accelerator(s) idle: {count} is not a multiple of TP {r.t}")
    if conc is not None and p.batch * min(replicas, conc) < conc:
        notes.append(f"only {p.batch} request(s) per replica fit in memory: the rest queue")
    if m.estimated_fields:
        notes.append(f"model shape partly defaulted: {', '.join(m.estimated_fields)}")
    return notes


def _no_fit(
    m: ModelSpec,
    hw: Hardware,
    prec: Precision,
    asked: Precision,
    cands: tuple[int, ...],
    ctx: float,
    gpn: int,
    notes: list[str],
    band: Uncertainty | None,
    validation: tuple[str, ...],
    shared: _Shared,
) -> InferenceEstimate:
    t = (cands or (1,))[-1]
    r = _replica_kept(shared, prec, t, ctx, t > gpn)
    per_acc = r.static_gb + m.kv_context(ctx) * r.kv_gb_per_token
    notes.append(
        f"does not fit: needs {per_acc:.1f} GB per accelerator at tensor parallel {r.t} "
        f"(usable {hw.memory_gb * cal.MEMORY_UTILIZATION:.1f} GB of {hw.memory_gb:g} GB)"
    )
    return InferenceEstimate(
        tokens_per_s=0.0,
        tokens_per_s_per_accelerator=0.0,
        ttft_ms=math.inf,
        tpot_ms=math.inf,
        memory_gb_per_accelerator=per_acc,
        fits=False,
        bound="memory",
        tensor_parallel=r.t,
        replicas=0,
        concurrency=0,
        precision=prec,
        model_version=cal.MODEL_VERSION,
        assumptions=(*notes, *validation),
        memory_needed_gb=per_acc * r.t,
        memory_available_gb_per_accelerator=hw.memory_gb,
        memory_usable_gb_per_accelerator=hw.memory_gb * cal.MEMORY_UTILIZATION,
        requested_precision=asked if prec != asked else None,
        weights_gb_per_accelerator=r.weights_gb,
        uncertainty=band,
    )
