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


def _serve(model: str = "llama-3-8b", accelerator: str = "H100-SXM", **kw: object):  # type: ignore[no-untyped-def]
    setup = {"precision": "bf16", "count": 1, "input_tokens": 202, "output_tokens": 179, "concurrency": 256}
    return estimate_inference(resolve_model(model), accelerator=ACCS[accelerator], **(setup | kw))  # type: ignore[arg-type]


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


def _mi300x(**kw: object):  # type: ignore[no-untyped-def]
    lengths = {"input_tokens": 128, "output_tokens": 2048, "concurrency": 64}
    return _serve("llama-3.1-70b", "MI300X", precision="fp8", count=8, tensor_parallel=8, **(lengths | kw))


def test_vllm_on_amd_runs_at_its_fitted_share_and_carries_its_own_range() -> None:
    # v17: naming vLLM on an AMD part applies VLLM_ROCM_FACTOR (fitted on AMD's vLLM 0.9.1
    # container tables) and the range its held-out rows read; naming nothing, or SGLang, does not
    from computeops_cdk.perf import uncertainty
    from computeops_cdk.perf._calibration import ENGINE_MEASURED_RANGE, MEASURED_RANGE
    from computeops_cdk.perf._engines import VLLM_ROCM_FACTOR

    plain, vllm, sglang = _mi300x(), _mi300x(engine="vllm", engine_version="0.10.1"), _mi300x(engine="sglang")
    assert sglang.tokens_per_s == plain.tokens_per_s
    # fixed per-step costs (links, launches) do not scale with the factor
    assert VLLM_ROCM_FACTOR <= vllm.tokens_per_s / plain.tokens_per_s < 1
    assert any("VLLM_ROCM_FACTOR" in a for a in vllm.assumptions)

    # the stack's note states its own fitted share; the engine's note, the factor on top of it
    def stack(e: object) -> list[str]:
        return [a for a in e.assumptions if a.startswith("AMD serving stack")]  # type: ignore[attr-defined]

    assert stack(vllm) == stack(plain) == stack(sglang) and "at 72% of" in stack(plain)[0]
    factor_note = f"at {VLLM_ROCM_FACTOR:.2f}x the throughput of the AMD estimate naming no engine"
    assert any(factor_note in a for a in vllm.assumptions)
    assert not any(factor_note in a for a in sglang.assumptions)
    named = ENGINE_MEASURED_RANGE[("MI300X", "vllm")]
    assert vllm.uncertainty is not None and plain.uncertainty is not None
    assert (vllm.uncertainty.evidence, vllm.uncertainty.low, vllm.uncertainty.high) == ("measured", *named)
    assert (plain.uncertainty.low, plain.uncertainty.high) == MEASURED_RANGE[("MI300X", "inference")]
    assert plain.uncertainty.evidence == "upper_bound"
    assert any("read this estimate as an upper bound" in a for a in plain.assumptions)
    assert not any("upper bound" in a for a in vllm.assumptions)
    quoted = f"{named[0]:.2f}-{named[1]:.2f}x of this model's estimates naming vllm"
    assert any(quoted in a for a in vllm.assumptions)
    # the sizing's band is the estimate's: same range for the same engine, any spelling
    assert uncertainty("MI300X", "inference", engine="VLLM") == vllm.uncertainty
    assert uncertainty("MI300X", "inference", engine="sglang") == plain.uncertainty
    assert uncertainty("H100-SXM", "inference", engine="vllm") == uncertainty("H100-SXM", "inference")
    with pytest.raises(EstimateError, match="did you mean 'vllm'"):
        uncertainty("MI300X", "inference", engine="vlm")


def test_vllm_before_0_6_on_amd_pays_the_host_time_as_well() -> None:
    old, new = _mi300x(engine="vllm", engine_version="0.5.3"), _mi300x(engine="vllm", engine_version="0.6.0")
    assert old.tokens_per_s < new.tokens_per_s
    note = next(a for a in old.assumptions if a.startswith("serving engine: vllm 0.5.3"))
    assert "HOST_S_PER_SEQ_PRE_V06" in note and "VLLM_ROCM_FACTOR" in note


def test_a_vllm_release_older_than_the_amd_rows_extrapolates() -> None:
    # the factor applies at every release (v17, section 4); the measured band only where the rows
    # measured (0.9.1 and later): vLLM 0.4.3 on MI300X carries the extrapolated band and says so
    from computeops_cdk.perf import uncertainty
    from computeops_cdk.perf._calibration import BAND_EXTRAPOLATED, ENGINE_MEASURED_RANGE

    old, new = _mi300x(engine="vllm", engine_version="0.4.3"), _mi300x(engine="vllm", engine_version="0.9.1")
    assert old.uncertainty is not None and new.uncertainty is not None
    assert (old.uncertainty.evidence, old.uncertainty.low, old.uncertainty.high) == (
        "extrapolated",
        *BAND_EXTRAPOLATED,
    )
    assert (new.uncertainty.low, new.uncertainty.high) == ENGINE_MEASURED_RANGE[("MI300X", "vllm")]
    assert any("covers a release before 0.9.0: this estimate extrapolates" in a for a in old.assumptions)
    assert not any("reach" in a and "naming vllm" in a for a in old.assumptions)
    assert uncertainty("MI300X", "inference", engine="vllm", engine_version="0.4.3") == old.uncertainty
    assert uncertainty("MI300X", "inference", engine="vllm", engine_version="0.10.1") == new.uncertainty
    with pytest.raises(EstimateError, match="not a release number"):
        uncertainty("MI300X", "inference", engine="vllm", engine_version="latest!")


def test_a_long_prompt_is_outside_what_the_measured_gpu_ranges_measured() -> None:
    # every row behind a GPU's measured range, (MI300X, vllm) and MI300X naming no engine, has a
    # short prompt (v17 revision, section 3): an estimate with a prompt in the long-prompt regime
    # must not claim "measured" or "upper_bound"; its band holds both that range and the
    # long-prompt band, so sizing is not less careful
    from computeops_cdk.perf import uncertainty
    from computeops_cdk.perf._calibration import BAND_LONG_PROMPT, ENGINE_MEASURED_RANGE, MEASURED_RANGE

    lengths = {"input_tokens": 8192, "output_tokens": 512}
    for engine, measured, short_evidence in (
        ("vllm", ENGINE_MEASURED_RANGE[("MI300X", "vllm")], "measured"),
        (None, MEASURED_RANGE[("MI300X", "inference")], "upper_bound"),
    ):
        long = _mi300x(engine=engine, **lengths)
        short = _mi300x(engine=engine, input_tokens=2048, output_tokens=512)
        assert long.uncertainty is not None and short.uncertainty is not None
        assert short.uncertainty.evidence == short_evidence
        assert long.uncertainty.evidence == "extrapolated"
        assert (long.uncertainty.low, long.uncertainty.high) == (
            min(measured[0], BAND_LONG_PROMPT[0]),
            max(measured[1], BAND_LONG_PROMPT[1]),
        )
        assert (
            f"({measured[0]:.2f}-{measured[1]:.2f}x) have prompts under 4,096 tokens"
            in long.uncertainty.basis
        )
        unmeasured = "measurement on MI300X has a prompt of 4,096 tokens or more: this estimate extrapolates"
        assert any(unmeasured in a for a in long.assumptions)
        assert not any(unmeasured in a for a in short.assumptions)
        assert not any("upper bound" in a or " reach " in a for a in long.assumptions)
        assert uncertainty("MI300X", "inference", engine=engine, **lengths) == long.uncertainty
    # TPUs prefill whole prompts and their rows reach the regime: the range stays, whether or not
    # the caller says the part is a TPU (the default once gave a false "under 4,096" basis)
    v6e = uncertainty("TPU-v6e", "inference", tpu=True)
    assert v6e.evidence == "measured"
    assert uncertainty("TPU-v6e", "inference", **lengths) == v6e
    assert uncertainty("TPU-v6e", "inference", tpu=True, **lengths) == v6e


def test_the_ranges_measured_on_long_prompts_are_those_of_the_rows() -> None:
    # MEASURED_RANGE is computed over every held-out row on the part, whatever engine it names;
    # ENGINE_MEASURED_RANGE over the rows naming the engine, calibration and held-out
    from computeops_cdk.perf import long_prompt
    from computeops_cdk.perf._calibration import ENGINE_MEASURED_RANGE, MEASURED_LONG_PROMPTS, MEASURED_RANGE

    rows = [r for r in accuracy.load_rows() if r["split"] != "excluded" and r["input_tokens"]]

    def reaches(r: dict[str, str]) -> bool:
        return long_prompt(int(r["input_tokens"]), int(r["output_tokens"]))

    derived = {
        (acc, kind)
        for acc, kind in MEASURED_RANGE
        if kind == "inference"
        and any(reaches(r) for r in rows if r["split"] == "heldout" and r["accelerator"] == acc)
    } | {
        key
        for key in ENGINE_MEASURED_RANGE
        if any(reaches(r) for r in rows if (r["accelerator"], r["engine"]) == key)
    }
    assert derived == MEASURED_LONG_PROMPTS == {("TPU-v6e", "inference")}
