"""Physics sanity as properties: what must hold for any model, accelerator and load."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from computeops_cdk.perf import estimate_inference, estimate_training, model_from_params, resolve_model

from .conftest import ACCELERATORS

GPUS = st.sampled_from(["H100-SXM", "H200", "A100-80GB", "L40S", "MI300X", "B200"])
DENSE = st.sampled_from(["llama-3.1-8b", "mistral-7b", "qwen2.5-14b", "gemma-2-9b", "llama-3.1-70b"])
LENGTHS = st.integers(min_value=16, max_value=4096)
FEW = settings(max_examples=30, deadline=None)


@FEW
@given(gpu=GPUS, model=DENSE, inp=LENGTHS, out=LENGTHS, conc=st.integers(1, 64), boost=st.floats(1.0, 4.0))
def test_more_bandwidth_never_slows_decode(
    gpu: str, model: str, inp: int, out: int, conc: int, boost: float
) -> None:
    acc = ACCELERATORS[gpu]
    faster = dataclasses.replace(acc, memory_bw_gbps=acc.memory_bw_gbps * boost)  # type: ignore[operator]
    kw = {"precision": "bf16", "count": 8, "input_tokens": inp, "output_tokens": out, "concurrency": conc}
    base = estimate_inference(resolve_model(model), accelerator=acc, tensor_parallel=8, **kw)  # type: ignore[arg-type]
    fast = estimate_inference(resolve_model(model), accelerator=faster, tensor_parallel=8, **kw)  # type: ignore[arg-type]
    assert fast.tpot_ms <= base.tpot_ms
    assert fast.tokens_per_s >= base.tokens_per_s


@FEW
@given(
    gpu=st.sampled_from(["H100-SXM", "H200", "L40S", "MI300X", "B200"]),
    model=DENSE,
    tp=st.sampled_from([1, 2, 4, 8]),
)
def test_fp8_halves_weight_memory(gpu: str, model: str, tp: int) -> None:
    kw = {
        "accelerator": ACCELERATORS[gpu],
        "count": 8,
        "input_tokens": 128,
        "output_tokens": 128,
        "tensor_parallel": tp,
    }
    bf16 = estimate_inference(resolve_model(model), precision="bf16", **kw)  # type: ignore[arg-type]
    fp8 = estimate_inference(resolve_model(model), precision="fp8", **kw)  # type: ignore[arg-type]
    assert fp8.precision == "fp8"
    assert abs(fp8.weights_gb_per_accelerator * 2 - bf16.weights_gb_per_accelerator) < 1e-9


@FEW
@given(gpu=GPUS, model=DENSE, inp=LENGTHS, out=LENGTHS, small=st.integers(1, 32), extra=st.integers(1, 64))
def test_larger_batch_raises_throughput_and_tpot(
    gpu: str, model: str, inp: int, out: int, small: int, extra: int
) -> None:
    kw = {
        "precision": "bf16",
        "accelerator": ACCELERATORS[gpu],
        "count": 8,
        "input_tokens": inp,
        "output_tokens": out,
    }
    lo = estimate_inference(resolve_model(model), concurrency=small, tensor_parallel=8, **kw)  # type: ignore[arg-type]
    hi = estimate_inference(resolve_model(model), concurrency=small + extra, tensor_parallel=8, **kw)  # type: ignore[arg-type]
    if hi.concurrency > lo.concurrency:  # the bigger batch fits in memory
        assert hi.tokens_per_s > lo.tokens_per_s
        assert hi.tpot_ms >= lo.tpot_ms


@FEW
@given(
    gpu=GPUS,
    model=st.sampled_from(["llama-3.1-8b", "qwen2.5-32b", "llama-3.1-70b", "mixtral-8x7b"]),
    count=st.sampled_from([1, 2, 4, 8, 16, 32, 64]),
    fabric=st.booleans(),
)
def test_more_accelerators_never_reduce_training_throughput(
    gpu: str, model: str, count: int, fabric: bool
) -> None:
    # A realistic pretraining batch (4M tokens): with a tiny batch on Ethernet, adding nodes can
    # genuinely slow a job (data-parallel traffic outgrows compute); see test_perf_training.
    kw = {
        "precision": "bf16",
        "accelerator": ACCELERATORS[gpu],
        "seq_len": 4096,
        "global_batch_tokens": 2**22,
    }
    few = estimate_training(resolve_model(model), count=count, multi_node_fabric=fabric, **kw)  # type: ignore[arg-type]
    more = estimate_training(resolve_model(model), count=2 * count, multi_node_fabric=fabric, **kw)  # type: ignore[arg-type]
    assert more.tokens_per_s >= few.tokens_per_s


@FEW
@given(gpu=GPUS, inp=LENGTHS, out=LENGTHS)
def test_moe_decodes_faster_than_dense_of_equal_size(gpu: str, inp: int, out: int) -> None:
    # A single stream reads only the routed experts (2 of 8 here). At mid-size batches every
    # expert is read anyway and the fitted MoE kernel factor (_calibration.MOE_DECODE_FACTOR)
    # can make an MoE step as slow as a dense one, as measured serving stacks show.
    conc = 1
    moe = resolve_model("mixtral-8x7b")
    dense = model_from_params(moe.params_b, layers=moe.layers, hidden=moe.hidden, kv_heads=moe.kv_heads)
    dense = dataclasses.replace(dense, heads=moe.heads, head_dim=moe.head_dim)
    kw = {"precision": "bf16", "accelerator": ACCELERATORS[gpu], "count": 8, "tensor_parallel": 8}
    a = estimate_inference(moe, input_tokens=inp, output_tokens=out, concurrency=conc, **kw)  # type: ignore[arg-type]
    b = estimate_inference(dense, input_tokens=inp, output_tokens=out, concurrency=conc, **kw)  # type: ignore[arg-type]
    assert a.tpot_ms < b.tpot_ms


@FEW
@given(
    gpu=GPUS,
    model=st.sampled_from(["llama-3.1-8b", "qwen2.5-14b", "llama-3.1-70b", "mixtral-8x7b"]),
    inp=LENGTHS,
    out=LENGTHS,
    tpot=st.floats(5, 200),
    ttft=st.floats(50, 5000),
)
def test_slo_batch_is_the_largest_meeting_the_targets(
    gpu: str, model: str, inp: int, out: int, tpot: float, ttft: float
) -> None:
    kw = {"precision": "bf16", "accelerator": ACCELERATORS[gpu], "count": 8, "tensor_parallel": 8}
    kw |= {"input_tokens": inp, "output_tokens": out}
    best = estimate_inference(resolve_model(model), ttft_ms=ttft, tpot_ms=tpot, **kw)  # type: ignore[arg-type]
    if not best.fits or not best.slo_met:
        return
    assert best.tpot_ms <= tpot and best.ttft_ms <= ttft
    bigger = estimate_inference(resolve_model(model), concurrency=best.concurrency + 1, **kw)  # type: ignore[arg-type]
    if bigger.concurrency > best.concurrency:  # one more request still fits in memory
        assert bigger.tpot_ms > tpot or bigger.ttft_ms > ttft
