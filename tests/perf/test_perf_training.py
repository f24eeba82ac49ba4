from __future__ import annotations

import math

import pytest

from computeops_cdk.catalog import Accelerator
from computeops_cdk.errors import EstimateError
from computeops_cdk.perf import estimate_training, resolve_model

L8 = resolve_model("llama-3.1-8b")
L70 = resolve_model("llama-3.1-70b")


def test_full_training_shards_states_and_reports_mfu(accs: dict[str, Accelerator]) -> None:
    t = estimate_training(
        L70, precision="bf16", accelerator=accs["H100-SXM"], count=64, seq_len=8192, global_batch_tokens=2**22
    )
    assert t.fits and t.bound == "compute"
    assert 0.2 < t.mfu < 0.7
    # 16 bytes of Adam state per parameter, sharded over all 64 accelerators, fit in 80 GB
    assert 16 * 70.6 / 64 < t.memory_gb_per_accelerator <= 80
    assert t.step_time_s == pytest.approx(2**22 / t.tokens_per_s)
    assert t.tensor_parallel * (64 // t.tensor_parallel) == 64


def test_lora_needs_less_memory_and_fewer_flops_than_full(accs: dict[str, Accelerator]) -> None:
    kw = {"precision": "bf16", "accelerator": accs["A100-80GB"], "count": 8, "seq_len": 4096}
    full = estimate_training(L8, global_batch_tokens=2**20, **kw)  # type: ignore[arg-type]
    lora = estimate_training(L8, global_batch_tokens=2**20, method="lora", **kw)  # type: ignore[arg-type]
    assert lora.memory_gb_per_accelerator < full.memory_gb_per_accelerator
    assert lora.step_time_s < full.step_time_s


def test_qlora_fits_where_full_training_cannot(accs: dict[str, Accelerator]) -> None:
    kw = {"accelerator": accs["L4"], "count": 1, "seq_len": 2048, "global_batch_tokens": 2**16}
    assert not estimate_training(L8, precision="bf16", **kw).fits  # type: ignore[arg-type]
    q = estimate_training(L8, precision="int4", method="lora", **kw)  # type: ignore[arg-type]
    assert q.fits and q.precision == "bf16" and any("QLoRA" in a for a in q.assumptions)


def test_does_not_fit_is_reported(accs: dict[str, Accelerator]) -> None:
    t = estimate_training(
        resolve_model("llama-3.1-405b"), precision="bf16", accelerator=accs["H100-SXM"], count=8,
        seq_len=8192, global_batch_tokens=2**22,
    )  # fmt: skip
    assert not t.fits and t.tokens_per_s == 0 and math.isinf(t.step_time_s)
    assert t.memory_gb_per_accelerator > 80


def test_ethernet_between_nodes_slows_training_and_shrinks_data_parallelism(
    accs: dict[str, Accelerator],
) -> None:
    kw = {"precision": "bf16", "accelerator": accs["H100-SXM"], "count": 32, "seq_len": 4096}
    fabric = estimate_training(L8, global_batch_tokens=2**19, **kw)  # type: ignore[arg-type]
    ether = estimate_training(L8, global_batch_tokens=2**19, multi_node_fabric=False, **kw)  # type: ignore[arg-type]
    assert ether.tokens_per_s < fabric.tokens_per_s
    # gradients over 100 Gb/s Ethernet cost more than model parallelism: fewer data-parallel replicas
    assert ether.replicas < fabric.replicas


def test_single_gpu_nodes_on_ethernet_pipeline_instead_of_data_parallel(accs: dict[str, Accelerator]) -> None:
    t = estimate_training(
        L8, precision="bf16", accelerator=accs["H100-SXM"], count=4, seq_len=2048, global_batch_tokens=2**16,
        gpus_per_node=1, multi_node_fabric=False, method="full",
    )  # fmt: skip
    # 3 x 16 GB of gradient/parameter traffic per step over 100 Gb/s would take longer than the
    # compute: the model is pipelined across the four nodes instead (one replica, no DP traffic)
    assert t.replicas == 1 and t.bound == "compute"
    assert "pipeline 4" in " ".join(t.assumptions)


def test_fp8_training_uses_fp8_where_supported(accs: dict[str, Accelerator]) -> None:
    kw = {"count": 8, "seq_len": 4096, "global_batch_tokens": 2**20}
    h = estimate_training(L8, precision="fp8", accelerator=accs["H100-SXM"], **kw)  # type: ignore[arg-type]
    b = estimate_training(L8, precision="bf16", accelerator=accs["H100-SXM"], **kw)  # type: ignore[arg-type]
    assert h.precision == "fp8" and h.tokens_per_s > b.tokens_per_s
    a = estimate_training(L8, precision="fp8", accelerator=accs["A100-80GB"], **kw)  # type: ignore[arg-type]
    assert a.precision == "bf16" and a.requested_precision == "fp8"


def test_bad_method(accs: dict[str, Accelerator]) -> None:
    with pytest.raises(EstimateError, match="method must be 'full' or 'lora'"):
        estimate_training(
            L8, precision="bf16", accelerator=accs["H100-SXM"], count=8, seq_len=1, global_batch_tokens=1,
            method="qlora",  # type: ignore[arg-type]
        )  # fmt: skip


def test_tpu_chips_beyond_one_pod_are_slices_over_the_network(accs: dict[str, Accelerator]) -> None:
    # issue 11 (multi-slice TPU training): v8 treated 2,048 v5e chips as one ICI domain, i.e. at the
    # MFU of one slice with no cross-slice cost; a v5e slice is at most 256 chips (one pod)
    model = resolve_model("maxtext-16b")
    kw = {"precision": "bf16", "accelerator": accs["TPU-v5e"], "seq_len": 2048}
    one = estimate_training(model, count=256, global_batch_tokens=6 * 256 * 2048, **kw)  # type: ignore[arg-type]
    eight = estimate_training(model, count=2048, global_batch_tokens=6 * 2048 * 2048, **kw)  # type: ignore[arg-type]
    as_slices = estimate_training(
        model,
        count=2048,
        global_batch_tokens=6 * 2048 * 2048,
        gpus_per_node=256,
        **kw,  # type: ignore[arg-type]
    )
    assert eight.mfu == as_slices.mfu < one.mfu  # the default is the slice, and slices cost
    assert any(a.startswith("multi-slice: 8 slices of 256 chips") for a in eight.assumptions)
    assert not any(a.startswith("multi-slice") for a in one.assumptions)
    # v5p slices reach 6,144 chips: 512 chips stay one ICI domain
    v5p = estimate_training(
        L70, precision="bf16", accelerator=accs["TPU-v5p"], count=512, seq_len=4096, global_batch_tokens=2**22
    )
    assert not any(a.startswith("multi-slice") for a in v5p.assumptions)
