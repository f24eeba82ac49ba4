"""Training layouts are physical: whole sequences per data-parallel replica, the real pipeline bubble.

Regression for the audit (issue 11): `estimate --accelerator TPU-v6e --count 256 --global-batch-tokens
4096 --seq-len 4096` gave `tensor parallel 8 x pipeline 8 x data parallel 4` at 1.3M tok/s (one
sequence split over 4 replicas), and a 64-sequence LoRA step was laid out as data parallel 128.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from computeops_cdk.perf import estimate_training, resolve_model, uncertainty

from .conftest import ACCELERATORS

L8 = resolve_model("llama-3.1-8b")


def test_one_sequence_cannot_feed_256_chips() -> None:
    t = estimate_training(
        L8,
        precision="bf16",
        accelerator=ACCELERATORS["TPU-v6e"],
        count=256,
        seq_len=4096,
        global_batch_tokens=4096,
    )
    assert t.tokens_per_s == 0 and t.layout_error
    assert "256 accelerators cannot all work on 1 sequence(s) per step" in t.layout_error
    assert "at most 128 can be used" in t.layout_error


def test_a_64_sequence_lora_step_has_at_most_64_replicas() -> None:
    t = estimate_training(
        L8,
        precision="bf16",
        accelerator=ACCELERATORS["TPU-v6e"],
        count=256,
        seq_len=4096,
        global_batch_tokens=64 * 4096,
        method="lora",
    )
    assert t.fits and not t.layout_error
    assert t.sequences_per_step == 64
    assert t.replicas <= 64
    assert t.tensor_parallel * t.pipeline_parallel * t.replicas == 256


def test_the_pipeline_pays_its_bubble_for_few_micro_batches() -> None:
    # 8 sequences on 8 x 8 GPUs with 8 pipeline stages: one micro-batch per replica leaves the
    # pipeline idle most of the step; the same layout with 64 sequences per replica barely idles.
    kw = {"precision": "bf16", "accelerator": ACCELERATORS["H100-SXM"], "count": 8, "seq_len": 4096}
    few = estimate_training(L8, global_batch_tokens=4096, **kw)  # type: ignore[arg-type]
    many = estimate_training(L8, global_batch_tokens=512 * 4096, **kw)  # type: ignore[arg-type]
    assert few.replicas == 1  # one sequence: one replica, the model spread over all 8
    assert few.tokens_per_s_per_accelerator < many.tokens_per_s_per_accelerator


MODELS = st.sampled_from(["llama-3.1-8b", "llama-3.1-70b", "mistral-7b", "qwen2.5-32b"])
ACCS = st.sampled_from(["H100-SXM", "A100-80GB", "TPU-v6e", "TPU-v5p", "MI300X"])


@settings(max_examples=60, deadline=None)
@given(
    model=MODELS,
    acc=ACCS,
    count=st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128, 256, 512]),
    seq=st.sampled_from([1024, 2048, 4096, 8192]),
    sequences=st.integers(1, 600),
    lora=st.booleans(),
)
def test_every_layout_is_physical(
    model: str, acc: str, count: int, seq: int, sequences: int, lora: bool
) -> None:
    t = estimate_training(
        resolve_model(model),
        precision="bf16",
        accelerator=ACCELERATORS[acc],
        count=count,
        seq_len=seq,
        global_batch_tokens=sequences * seq,
        method="lora" if lora else "full",
    )
    assert t.sequences_per_step == sequences
    if t.layout_error:
        # only when even the widest model-parallel group leaves more replicas than sequences
        assert count > min(count, 128) * sequences and t.tokens_per_s == 0
        return
    if not t.fits:
        return
    # every accelerator is used, each replica holds at least one whole sequence
    assert t.tensor_parallel * t.pipeline_parallel * t.replicas == count
    assert 1 <= t.replicas <= sequences
    assert t.pipeline_parallel <= resolve_model(model).layers
    # the micro-batches cover the replica's share of the batch
    assert t.micro_batches >= 1
    assert t.micro_batches <= math.ceil(sequences / t.replicas)
    # no more tokens per second than the accelerators' peak could process at 100 % utilisation
    assert 0 < t.mfu < 1


@settings(max_examples=40, deadline=None)
@given(acc=ACCS, kind=st.sampled_from(["inference", "training"]))
def test_every_estimate_carries_a_band_around_its_central_value(acc: str, kind: str) -> None:
    band = uncertainty(acc, kind)  # type: ignore[arg-type]
    assert 0 < band.low <= band.high
    assert band.evidence in ("validated", "extrapolated", "upper_bound", "measured")
    # an upper bound lies wholly below the estimate; a validated or extrapolated band straddles it
    if band.evidence == "upper_bound":
        assert band.high < 1
    elif band.evidence != "measured":
        assert band.low < 1 < band.high
