"""Long-prompt serving (v15, benchmarks/preregistration/v15-long-prompt.md and its addendum):
chunked prefill, the prefix cache and the regime's band."""

from __future__ import annotations

import math
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from computeops_cdk.errors import EstimateError
from computeops_cdk.perf import estimate_inference, long_prompt, resolve_model, uncertainty
from computeops_cdk.perf._calibration import BAND_LONG_PROMPT, BAND_VALIDATED
from computeops_cdk.perf._engines import prefill_chunk

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
import accuracy

ACCS = accuracy.load_accelerators()
LLAMA_70B = resolve_model("llama-3.3-70b")


def _serve(acc: str = "A100-80GB", inp: int = 8192, out: int = 512, **kw: object):  # type: ignore[no-untyped-def]
    return estimate_inference(
        LLAMA_70B,
        precision="bf16",
        accelerator=ACCS[acc],
        count=4,
        input_tokens=inp,
        output_tokens=out,
        concurrency=1,
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("engine", "memory_gb", "name", "chunk"),
    [
        ("vllm", 80, "H100", 8192),  # 74.5 GiB, not an A100
        ("vllm", 80, "A100-80GB", 2048),  # vLLM singles out the A100
        ("vllm", 48, "L40S", 2048),
        ("sglang", 24, "L4", 2048),
        ("sglang", 80, "H100", 8192),
        ("sglang", 192, "MI300X", 16384),
        ("tensorrt-llm", 80, "H100", 8192),
        (None, 80, "H100", 8192),
    ],
)
def test_each_engine_chunks_at_its_documented_default(
    engine: str | None, memory_gb: float, name: str, chunk: int
) -> None:
    found, basis = prefill_chunk(engine, memory_gb, name)
    assert found == chunk
    assert ("assumption" in basis) == (engine in (None, "tensorrt-llm"))


def test_a_prompt_in_more_chunks_pays_the_weight_and_kv_rereads() -> None:
    # The same A100s and prompt: vLLM chunks at 2048 (4 chunks), SGLang at 8192 (one chunk).
    vllm, sglang = _serve(engine="vllm"), _serve(engine="sglang")
    assert vllm.ttft_ms > sglang.ttft_ms
    assert vllm.tokens_per_s < sglang.tokens_per_s
    # What 3 extra chunks cost at most: 3 weight reads and the KV of 6 earlier chunks, each at the
    # decode bandwidth (the model's own figures); far less than the prefill itself.
    assert vllm.ttft_ms - sglang.ttft_ms < 0.2 * sglang.ttft_ms
    notes = [a for a in vllm.assumptions if a.startswith("chunked prefill")]
    assert notes == [
        "chunked prefill: 8,192 prompt tokens in 4 chunks of 2,048 (vLLM's default max_num_batched_tokens "
        "for its API server, engine/arg_utils.py of the 0.11 line: 8192 on a GPU of 70 GiB or more that "
        "is not an A100, else 2048); each chunk re-reads the weights and the KV cache of the chunks before it"
    ]
    assert not any(a.startswith("chunked prefill") for a in sglang.assumptions)


def test_a_prompt_within_one_chunk_is_the_estimate_before_the_rule() -> None:
    """No chunking and no cache: the v15 code path adds nothing (bytes outside the regime stay)."""
    plain = _serve(inp=2048, out=256)
    assert not any("chunk" in a or "prefix cache" in a for a in plain.assumptions)
    assert plain == _serve(inp=2048, out=256, prefix_cache_share=0.0)
    # 2048 tokens are one chunk at vLLM's 2048 and at SGLang's 8192 alike
    vllm, sglang = _serve(inp=2048, out=256, engine="vllm"), _serve(inp=2048, out=256, engine="sglang")
    assert (vllm.ttft_ms, vllm.tokens_per_s) == (sglang.ttft_ms, sglang.tokens_per_s)


def test_more_chunks_cost_more_the_longer_the_prompt() -> None:
    ttfts = [_serve(inp=n * 8192, out=256).ttft_ms for n in (1, 2, 4)]
    assert ttfts[0] < ttfts[1] < ttfts[2]
    assert any("in 4 chunks of 8,192" in a for a in _serve(inp=4 * 8192, out=256).assumptions)


def test_tpus_prefill_whole_prompts() -> None:
    """TPU_SERVING_EFF was fitted on long-prompt TPU rows: the rule would count chunking twice."""
    tpu = estimate_inference(
        resolve_model("llama-3.1-8b"),
        precision="bf16",
        accelerator=ACCS["TPU-v6e"],
        count=4,
        input_tokens=32768,
        output_tokens=512,
    )
    assert not any("chunk" in a for a in tpu.assumptions)
    assert tpu.uncertainty == uncertainty("TPU-v6e", "inference")


def test_the_prefix_cache_share_is_not_prefilled() -> None:
    none, half, full = (_serve(engine="sglang", prefix_cache_share=s) for s in (0, 0.5, 1))
    assert full.ttft_ms < half.ttft_ms < none.ttft_ms
    assert any(
        a.startswith("prefix cache: 50% of each prompt's tokens served from the cache")
        and a.endswith("4,096 of 8,192 tokens prefilled")
        for a in half.assumptions
    )
    # an engine computes the last prompt token even on a full hit
    assert any(a.endswith(": 1 of 8,192 tokens prefilled") for a in full.assumptions)
    assert not any("prefix cache" in a for a in none.assumptions)


@pytest.mark.parametrize("share", [-0.1, 1.5, math.nan, math.inf])
def test_a_prefix_cache_share_out_of_range_is_a_clear_error(share: object) -> None:
    with pytest.raises(EstimateError, match=r"prefix_cache_share must be a number from 0 to 1 .*To fix"):
        _serve(prefix_cache_share=share)


@pytest.mark.parametrize("share", ["0.5", True, None, Decimal("0.5"), Fraction(1, 2)])
def test_a_prefix_cache_share_of_another_type_says_to_pass_a_float(share: object) -> None:
    # the range message was given for an in-range Decimal, with nothing about its type
    with pytest.raises(
        EstimateError, match=r"must be a Python float from 0 to 1 .*of type .*To fix: pass float"
    ):
        _serve(prefix_cache_share=share)


def test_sglangs_larger_chunk_on_a_large_gpu_is_one_chunk() -> None:
    # SGLang chunks at 16384 on a GPU of 160 GiB or more: a 12,000-token prompt was charged as two
    # 8,192-token chunks, with no note saying so (a share of 1e-300, which caches nothing, differed)
    for acc in ("MI300X", "B200"):
        plain = _serve(acc=acc, inp=12000, out=200, engine="sglang")
        tiny = _serve(acc=acc, inp=12000, out=200, engine="sglang", prefix_cache_share=1e-300)
        assert not any(a.startswith("chunked prefill") for a in plain.assumptions)
        assert (plain.ttft_ms, plain.tokens_per_s) == (tiny.ttft_ms, tiny.tokens_per_s)
        vllm = _serve(acc=acc, inp=12000, out=200, engine="vllm")  # 8192: two chunks, and it says so
        assert vllm.ttft_ms > plain.ttft_ms and any("in 2 chunks of 8,192" in a for a in vllm.assumptions)


def test_a_small_share_is_not_rounded_to_zero_in_the_note() -> None:
    note = next(a for a in _serve(prefix_cache_share=0.004).assumptions if a.startswith("prefix cache"))
    assert note.startswith("prefix cache: 0.4% of each prompt's tokens")


def test_the_regime() -> None:
    assert long_prompt(4096, 1024)
    assert not long_prompt(4095, 16)  # too short
    assert not long_prompt(8192, 2049)  # completion-heavy: not prefill-bound
    assert long_prompt(8192, 2048)


def test_an_estimate_in_the_regime_carries_the_regimes_band_on_validated_hardware() -> None:
    inside, outside = _serve(acc="H100-SXM", inp=8192, out=1024), _serve(acc="H100-SXM", inp=1024, out=256)
    assert (outside.uncertainty.low, outside.uncertainty.high) == BAND_VALIDATED["inference"]
    assert (inside.uncertainty.low, inside.uncertainty.high) == BAND_LONG_PROMPT
    assert inside.uncertainty.evidence == "validated"
    assert "long-prompt serving (v15)" in inside.uncertainty.basis
    band = uncertainty("H100-SXM", "inference", input_tokens=8192, output_tokens=1024)
    assert band == inside.uncertainty
    # a measured range stays where its rows cover the prompt: TPUs prefill whole prompts and their
    # rows reach 8,192 tokens; MI300X's rows all have short prompts (v17 revision 2: extrapolated)
    v6e = uncertainty("TPU-v6e", "inference", tpu=True)
    assert uncertainty("TPU-v6e", "inference", input_tokens=8192, output_tokens=1024, tpu=True) == v6e
    mi300x = uncertainty("MI300X", "inference", input_tokens=8192, output_tokens=1024)
    assert mi300x.evidence == "extrapolated" and mi300x != uncertainty("MI300X", "inference")


def test_long_context_training_carries_the_widened_training_band() -> None:
    from computeops_cdk.perf import estimate_training
    from computeops_cdk.perf._calibration import BAND_LONG_CONTEXT

    def train(seq: int):  # type: ignore[no-untyped-def]
        return estimate_training(
            resolve_model("llama-3.1-8b"),
            precision="bf16",
            accelerator=ACCS["H100-SXM"],
            count=16,
            seq_len=seq,
            global_batch_tokens=64 * seq,
        )

    short, long = train(8192), train(65536)
    assert (short.uncertainty.low, short.uncertainty.high) == BAND_VALIDATED["training"]
    assert (long.uncertainty.low, long.uncertainty.high) == BAND_LONG_CONTEXT
    assert long.uncertainty == uncertainty("H100-SXM", "training", seq_len=65536)
    assert "long-context training (v15)" in long.uncertainty.basis


@pytest.mark.parametrize(
    "kw",
    [
        {"input_tokens": "8192"},
        {"input_tokens": None},
        {"output_tokens": 0},
        {"seq_len": None},
        {"seq_len": True},
    ],
)
def test_uncertainty_refuses_bad_lengths(kw: dict[str, object]) -> None:
    # a str or None was a TypeError traceback; output_tokens 0 silently gave the long-prompt band
    with pytest.raises(EstimateError, match=r"must be an integer >= \d \(got .*\)\. To fix"):
        uncertainty("H100-SXM", "inference", **kw)  # type: ignore[arg-type]
