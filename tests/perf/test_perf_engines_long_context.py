"""Serving-engine generations and long-context training (v14, benchmarks/preregistration/v14.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from computeops_cdk.errors import EstimateError, IntentError
from computeops_cdk.intent import WorkloadIntent
from computeops_cdk.perf import estimate_inference, estimate_training, resolve_model

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
import accuracy

ACCS = accuracy.load_accelerators()


def _serve(**kw: object):  # type: ignore[no-untyped-def]
    return estimate_inference(
        resolve_model("llama-3-8b"),
        precision="bf16",
        accelerator=ACCS["H100-SXM"],
        count=1,
        input_tokens=202,
        output_tokens=179,
        concurrency=256,
        **kw,  # type: ignore[arg-type]
    )


def test_no_engine_is_the_unchanged_estimate_and_current_vllm_matches_it() -> None:
    plain, named = _serve(), _serve(engine="vllm")
    assert named.tokens_per_s == plain.tokens_per_s
    assert not any("serving engine" in a for a in plain.assumptions)
    assert any(
        a.startswith(
            "serving engine: vllm 0.11.1 (no version given: the model's default release, cited: "
            "github.com/vllm-project/vllm/releases/tag/v0.11.1)"
        )
        for a in named.assumptions
    )


def test_every_default_release_is_cited_or_said_to_be_an_assumption() -> None:
    """The engine table equals benchmarks/calibration/engines.csv, whose rows carry the full sources."""
    import csv

    from computeops_cdk.perf._engines import ENGINES

    path = Path(__file__).parents[2] / "benchmarks" / "calibration" / "engines.csv"
    with path.open(encoding="utf-8", newline="") as f:
        rows = {row["engine"]: row for row in csv.DictReader(f)}
    assert set(rows) == set(ENGINES)
    for name, engine in ENGINES.items():
        row = rows[name]
        assert (row["default_version"], row["version_basis"]) == (engine.default, engine.version_basis)
        assert tuple(row["runs_on"].split()) == engine.runs_on
        assert row["version_source"] and row["platform_source"]
        assert engine.version_basis in ("cited", "assumed")
        if engine.version_basis == "assumed":
            assert row["version_source"].startswith("an assumption")
    trt = _serve(engine="tensorrt-llm")
    assert any(
        "tensorrt-llm 1.0.0 (no version given: the model's default release, an assumption: " in a
        for a in trt.assumptions
    )


def test_vllm_before_0_6_is_host_bound_as_its_release_post_measured() -> None:
    old, new = _serve(engine="vllm", engine_version="0.5.3"), _serve(engine="VLLM", engine_version="0.6.0")
    assert new.tokens_per_s / old.tokens_per_s == pytest.approx(2.7, rel=0.02)  # CAL-ENG-1
    assert any("serving engine: vllm 0.5.3" in a for a in old.assumptions)


def test_unknown_engine_bad_version_and_wrong_hardware_are_clear_errors() -> None:
    with pytest.raises(EstimateError, match="did you mean 'vllm'"):
        _serve(engine="vlm")
    with pytest.raises(EstimateError, match="not a release number"):
        _serve(engine="vllm", engine_version="latest!")
    with pytest.raises(EstimateError, match="needs an engine"):
        _serve(engine_version="0.6.0")
    with pytest.raises(EstimateError, match=r"jetstream does not run on NVIDIA GPUs.*To fix: serve it with"):
        _serve(engine="jetstream")
    with pytest.raises(EstimateError, match=r"tensorrt-llm does not run on AMD GPUs.*sglang or vllm"):
        estimate_inference(
            resolve_model("llama-3-8b"),
            precision="bf16",
            accelerator=ACCS["MI300X"],
            count=1,
            input_tokens=202,
            output_tokens=179,
            engine="tensorrt-llm",
        )


def test_tpu_pytorch_xla_backend_rule() -> None:
    def tpu(version: str) -> float:
        return estimate_inference(
            resolve_model("qwen3-8b"),
            precision="bf16",
            accelerator=ACCS["TPU-v6e"],
            count=4,
            input_tokens=1024,
            output_tokens=1024,
            concurrency=64,
            engine="vllm",
            engine_version=version,
        ).tokens_per_s

    assert tpu("0.10") < tpu("0.11.1")
    assert (
        tpu("0.11.1")
        == estimate_inference(
            resolve_model("qwen3-8b"),
            precision="bf16",
            accelerator=ACCS["TPU-v6e"],
            count=4,
            input_tokens=1024,
            output_tokens=1024,
            concurrency=64,
        ).tokens_per_s
    )


def _intent(serving: dict[str, object]) -> WorkloadIntent:
    return WorkloadIntent.from_dict(
        {
            "name": "x",
            "workload": {
                "type": "inference",
                "model": {"name": "llama-3.1-8b"},
                "serving": {"output_tokens_per_s": 100, **serving},
            },
        }
    )


def test_intent_engine_fields() -> None:
    assert _intent({"engine": "TRT-LLM"}).workload.serving.engine == "tensorrt-llm"  # type: ignore[union-attr]
    with pytest.raises(IntentError, match="unknown serving engine") as err:
        _intent({"engine": "vlm"})
    assert "vllm" in err.value.suggestions
    with pytest.raises(IntentError, match=r"needs serving\.engine"):
        _intent({"engine_version": "0.6.0"})
    # no engine named: the intent dumps (and hashes) as before the fields existed
    assert "engine" not in _intent({}).canonical_json()


def test_long_context_uses_context_parallelism_where_the_batch_has_too_few_sequences() -> None:
    est = estimate_training(
        resolve_model("llama-2-7b"),
        precision="fp8",
        accelerator=ACCS["H100-SXM"],
        count=1024,
        seq_len=1024 * 1024,
        global_batch_tokens=4 * 1024 * 1024,
    )
    assert est.tokens_per_s > 0 and not est.layout_error  # v10: no layout (4 sequences, 1,024 GPUs)
    assert any("context parallel" in a for a in est.assumptions)


def test_short_sequences_keep_the_v10_layouts() -> None:
    est = estimate_training(
        resolve_model("llama-3.1-8b"),
        precision="bf16",
        accelerator=ACCS["H100-SXM"],
        count=64,
        seq_len=8192,
        global_batch_tokens=2**22,
    )
    assert not any("context parallel" in a or "long context" in a for a in est.assumptions)
