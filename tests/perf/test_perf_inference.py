from __future__ import annotations

import dataclasses
import math

import pytest

from computeops_cdk.catalog import Accelerator
from computeops_cdk.errors import EstimateError
from computeops_cdk.perf import MODEL_VERSION, estimate_inference, resolve_model

L70 = resolve_model("llama-3.1-70b")
L8 = resolve_model("llama-3.1-8b")


def test_max_throughput_fills_memory_and_labels_itself(accs: dict[str, Accelerator]) -> None:
    e = estimate_inference(
        L70, precision="fp8", accelerator=accs["H100-SXM"], count=8, input_tokens=1024, output_tokens=256
    )
    assert e.fits and e.model_version == MODEL_VERSION
    assert e.tensor_parallel * e.replicas == 8
    assert e.concurrency > 16
    assert e.memory_gb_per_accelerator <= 80
    assert e.tokens_per_s == pytest.approx(8 * e.tokens_per_s_per_accelerator)
    assert any("largest batch that fits" in a for a in e.assumptions)


def test_single_request_latency_uses_the_widest_tensor_parallel(accs: dict[str, Accelerator]) -> None:
    one = estimate_inference(
        L70, precision="fp8", accelerator=accs["H100-SXM"], count=8, input_tokens=1024,
        output_tokens=256, concurrency=1,
    )  # fmt: skip
    assert one.tensor_parallel == 8 and one.concurrency == 1
    # batch-1 decode streams the weights: TPOT can never beat weights / aggregate bandwidth
    floor_ms = 70.6 / (8 * 3350) * 1e3
    assert one.tpot_ms > floor_ms
    assert one.bound == "memory"


def test_does_not_fit_is_reported_not_raised(accs: dict[str, Accelerator]) -> None:
    e = estimate_inference(
        resolve_model("llama-3.1-405b"), precision="bf16", accelerator=accs["L4"], count=1,
        input_tokens=1024, output_tokens=256,
    )  # fmt: skip
    assert not e.fits and e.tokens_per_s == 0 and math.isinf(e.ttft_ms)
    assert e.memory_gb_per_accelerator > 800 > e.memory_available_gb_per_accelerator


def test_fp8_falls_back_on_ampere_and_says_so(accs: dict[str, Accelerator]) -> None:
    e = estimate_inference(
        L8, precision="fp8", accelerator=accs["A100-80GB"], count=1, input_tokens=512, output_tokens=128
    )
    assert e.precision == "bf16" and e.requested_precision == "fp8"
    assert any("no FP8 tensor cores" in a for a in e.assumptions)


def test_fp4_needs_blackwell(accs: dict[str, Accelerator]) -> None:
    kw = {"count": 1, "input_tokens": 512, "output_tokens": 128}
    assert estimate_inference(L8, precision="fp4", accelerator=accs["B200"], **kw).precision == "fp4"
    assert estimate_inference(L8, precision="fp4", accelerator=accs["H100-SXM"], **kw).precision == "fp8"
    assert estimate_inference(L8, precision="fp4", accelerator=accs["TPU-v5e"], **kw).precision == "bf16"
    assert estimate_inference(L8, precision="bf16", accelerator=accs["T4"], **kw).precision == "fp16"


def test_missing_spec_names_it(accs: dict[str, Accelerator]) -> None:
    blind = dataclasses.replace(accs["H100-SXM"], memory_bw_gbps=None)
    with pytest.raises(EstimateError, match="no published memory_bw_gbps"):
        estimate_inference(L8, precision="bf16", accelerator=blind, count=1, input_tokens=1, output_tokens=1)


def test_latency_targets_pick_the_largest_batch_meeting_them(accs: dict[str, Accelerator]) -> None:
    kw = {"precision": "fp8", "accelerator": accs["H100-SXM"], "count": 8, "input_tokens": 1024}
    free = estimate_inference(L70, output_tokens=256, **kw)  # type: ignore[arg-type]
    slo = estimate_inference(L70, output_tokens=256, tpot_ms=30, ttft_ms=1000, **kw)  # type: ignore[arg-type]
    assert slo.slo_met is True and slo.tpot_ms <= 30 and slo.ttft_ms <= 1000
    assert slo.concurrency * slo.replicas < free.concurrency * free.replicas
    impossible = estimate_inference(L70, output_tokens=256, tpot_ms=0.5, **kw)  # type: ignore[arg-type]
    assert impossible.slo_met is False and impossible.concurrency == 1


def test_prompt_tokens_prefilled_in_decode_steps_pay_their_all_reduces(accs: dict[str, Accelerator]) -> None:
    # Continuous batching prefills the prompts of replacement requests inside decode steps; those
    # tokens are activation rows like decode tokens and go through the same tensor-parallel
    # all-reduces. So at a fixed batch, what a slower link costs per output token grows with the
    # prompt (here 64 decode tokens + ~32 vs ~500 prompt tokens per step: ~6x the volume).
    h100 = accs["H100-SXM"]
    slow_link = dataclasses.replace(h100, interconnect_gbps=h100.interconnect_gbps / 4)  # type: ignore[operator]

    def link_cost_ms(prompt: int) -> float:
        kw = {"precision": "fp8", "count": 8, "input_tokens": prompt, "output_tokens": 256}
        kw |= {"concurrency": 64, "tensor_parallel": 8}
        fast = estimate_inference(L70, accelerator=h100, **kw)  # type: ignore[arg-type]
        slow = estimate_inference(L70, accelerator=slow_link, **kw)  # type: ignore[arg-type]
        assert fast.concurrency == slow.concurrency == 64
        return slow.tpot_ms - fast.tpot_ms

    short, long = link_cost_ms(128), link_cost_ms(2048)
    assert short > 0
    assert long > 3 * short


def test_tensor_parallel_across_nodes_costs_communication(accs: dict[str, Accelerator]) -> None:
    kw = {"precision": "bf16", "accelerator": accs["H100-SXM"], "count": 16, "input_tokens": 1024}
    inside = estimate_inference(
        L70,
        output_tokens=256,
        concurrency=1,
        tensor_parallel=16,
        gpus_per_node=16,
        **kw,  # type: ignore[arg-type]
    )
    across = estimate_inference(
        L70,
        output_tokens=256,
        concurrency=1,
        tensor_parallel=16,
        gpus_per_node=8,
        **kw,  # type: ignore[arg-type]
    )
    assert across.tpot_ms > inside.tpot_ms
    assert any("spans nodes" in a for a in across.assumptions)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"count": 0}, "count must be a positive integer"),
        ({"input_tokens": -3}, "input_tokens must be a positive integer"),
        ({"ttft_ms": 0}, "ttft_ms must be a finite number of milliseconds > 0"),
        ({"precision": "fp6"}, "unknown precision 'fp6'"),
        ({"tensor_parallel": 16}, "tensor_parallel (16) cannot exceed count (8)"),
        # were a TypeError, and "accelerator 'accelerator' has no published memory_gb, ..."
        (
            {"ttft_ms": "800"},
            "ttft_ms must be a finite number of milliseconds > 0 (at most 1.798e+308; got '800')",
        ),
        (
            {"accelerator": "H100"},
            "accelerator must be a catalog Accelerator (got str 'H100'). "
            "To fix: pass load_catalog().find_accelerator(name).",
        ),
    ],
)
def test_bad_arguments_are_clear(
    accs: dict[str, Accelerator], kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"precision": "bf16", "accelerator": accs["H100-SXM"], "count": 8}
    args |= {"input_tokens": 10, "output_tokens": 10}
    args.update(kwargs)
    with pytest.raises(EstimateError) as err:
        estimate_inference(L8, **args)  # type: ignore[arg-type]
    assert message in str(err.value)


def test_deterministic(accs: dict[str, Accelerator]) -> None:
    kw = {
        "precision": "fp8",
        "accelerator": accs["H200"],
        "count": 8,
        "input_tokens": 700,
        "output_tokens": 300,
    }
    first = estimate_inference(resolve_model("mixtral-8x22b"), **kw)  # type: ignore[arg-type]
    from computeops_cdk.perf import _inference

    _inference.estimate_inference_hw.cache_clear()
    assert estimate_inference(resolve_model("mixtral-8x22b"), **kw) == first  # type: ignore[arg-type]


def test_tensor_parallel_stays_inside_a_node_when_the_model_fits(accs: dict[str, Accelerator]) -> None:
    kw = {"precision": "fp8", "accelerator": accs["H100-SXM"], "count": 32, "gpus_per_node": 8}
    for conc in (1, None):
        e = estimate_inference(L70, input_tokens=1024, output_tokens=256, concurrency=conc, **kw)  # type: ignore[arg-type]
        assert e.tensor_parallel <= 8
    big = estimate_inference(
        resolve_model("llama-3.1-405b"), precision="bf16", accelerator=accs["H100-SXM"], count=16,
        gpus_per_node=8, input_tokens=1024, output_tokens=256,
    )  # fmt: skip
    assert big.fits and big.tensor_parallel == 16  # 810 GB of weights need two nodes


def test_the_operating_point_note_says_why_that_batch(accs: dict[str, Accelerator]) -> None:
    # With latency targets the batch is not "the largest that fits"; when no batch meets them the
    # batch-1 figures are returned, and the note must not claim maximum throughput.
    h100 = accs["H100-SXM"]
    met = estimate_inference(
        L8, precision="bf16", accelerator=h100, count=1, input_tokens=1024, output_tokens=256, ttft_ms=500
    )
    missed = estimate_inference(
        L8, precision="bf16", accelerator=h100, count=1, input_tokens=1024, output_tokens=256, ttft_ms=1e-9
    )
    assert met.slo_met is True and met.assumptions[0].endswith("(largest batch meeting the latency targets)")
    assert missed.slo_met is False and missed.assumptions[0].endswith(
        "1 request(s) in flight per replica (no batch meets the latency targets: single-request figures)"
    )


def test_a_model_name_instead_of_a_spec_is_clear(accs: dict[str, Accelerator]) -> None:
    # was AttributeError: 'str' object has no attribute 'estimated_fields'
    with pytest.raises(EstimateError) as err:
        estimate_inference(
            "llama-3.1-8b",  # type: ignore[arg-type]
            precision="bf16",
            accelerator=accs["H100-SXM"],
            count=1,
            input_tokens=10,
            output_tokens=10,
        )
    assert str(err.value) == (
        "model must be a ModelSpec (got str 'llama-3.1-8b'). "
        "To fix: pass resolve_model(name) or model_from_params(...)."
    )
    with pytest.raises(EstimateError, match=r"^model name must be a string \(got int 5\)$"):
        resolve_model(5)  # type: ignore[arg-type]
