"""`computeops estimate` in-process: exit codes, the JSON contract, and its error messages."""

from __future__ import annotations

import json

import pytest

from computeops_cdk.cli import main

KEYS_ALWAYS = {
    "tokens_per_s", "tokens_per_s_per_accelerator", "memory_gb_per_accelerator", "fits", "bound",
    "tensor_parallel", "replicas", "model_version", "assumptions",
    "tokens_per_s_p10", "tokens_per_s_p90", "evidence",
}  # fmt: skip


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["estimate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_inference_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--workload", "inference", "--model", "Llama-3.1-70B", "--precision", "fp8",
        "--accelerator", "h100", "--count", "8", "--input-tokens", "1024", "--output-tokens", "256",
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert KEYS_ALWAYS | {"ttft_ms", "tpot_ms"} <= set(doc)
    assert doc["fits"] is True and doc["accelerator"] == "H100-SXM"
    assert doc["bound"] in ("memory", "compute", "communication")
    assert doc["tensor_parallel"] * doc["replicas"] <= 8 and doc["assumptions"]


def test_concurrency_one_is_single_request_latency(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--workload", "inference", "--model", "llama-3.1-8b", "--precision", "bf16", "--accelerator",
            "A100-80GB", "--format", "json"]  # fmt: skip
    _, out_max, _ = run(capsys, *args)
    _, out_one, _ = run(capsys, *args, "--concurrency", "1")
    one, most = json.loads(out_one), json.loads(out_max)
    assert one["concurrency_per_replica"] == 1 and one["tpot_ms"] < most["tpot_ms"]
    assert one["tokens_per_s"] < most["tokens_per_s"]


def test_training_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--workload", "training", "--params-b", "13", "--precision", "bf16", "--accelerator",
        "H100", "--count", "64", "--seq-len", "4096", "--global-batch-tokens", "4194304", "--format", "json",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert KEYS_ALWAYS | {"mfu", "step_time_s"} <= set(doc)
    assert 0 < doc["mfu"] < 1 and doc["step_time_s"] > 0
    assert any("defaulted" in a or "ZeRO" in a for a in doc["assumptions"])


def test_fine_tuning_on_a_tpu(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--workload", "fine_tuning", "--model", "gemma-2-9b", "--precision", "bf16",
        "--accelerator", "TPU-v5e", "--count", "8", "--seq-len", "2048", "--format", "json",
    )  # fmt: skip
    assert code == 0 and json.loads(out)["fits"] is True


def test_does_not_fit_is_exit_3_with_the_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys, "--workload", "inference", "--model", "llama-3.1-405b", "--precision", "bf16",
        "--accelerator", "L4", "--count", "1",
    )  # fmt: skip
    assert code == 3
    assert "does not fit on 1 x L4" in err and "GB available" in err


def test_unknown_accelerator_is_exit_2_with_suggestions(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys,
        "--workload",
        "inference",
        "--model",
        "llama-3.1-8b",
        "--precision",
        "bf16",
        "--accelerator",
        "H10O",
    )
    assert code == 2
    assert "unknown accelerator 'H10O'" in err and "did you mean" in err


def test_unknown_model_is_exit_2_with_suggestions(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys,
        "--workload",
        "inference",
        "--model",
        "mixtral-8x8b",
        "--precision",
        "bf16",
        "--accelerator",
        "H100",
    )
    assert code == 2
    assert "unknown model 'mixtral-8x8b'" in err and "mixtral-8x7b" in err


def test_table_output_lists_the_assumptions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--workload", "inference", "--model", "llama-3.1-8b", "--precision", "fp8",
        "--accelerator", "A100-80GB",
    )  # fmt: skip
    assert code == 0
    assert "tokens_per_s" in out and "no FP8 tensor cores" in out


def test_help_teaches(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["estimate", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "known models:" in out and "deepseek-r1" in out


def test_catalog_option_reads_the_given_file(capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    import computeops_cdk.catalog as catalog_pkg

    embedded = Path(catalog_pkg.__file__).parent / "data" / "catalog.json"
    args = [
        "--workload",
        "inference",
        "--model",
        "llama-3.1-8b",
        "--precision",
        "bf16",
        "--accelerator",
        "L4",
    ]
    code, out, _ = run(capsys, *args, "--catalog", str(embedded), "--format", "json")
    assert code == 0 and json.loads(out)["accelerator"] == "L4"
    code, _, err = run(capsys, *args, "--catalog", str(embedded.parent / "missing.json"))
    assert code == 2 and "does not exist" in err


COMMON = ["--model", "llama-3.1-8b", "--precision", "bf16", "--accelerator", "H100"]
INFERENCE = ["--workload", "inference", *COMMON]
TRAINING = ["--workload", "training", *COMMON, "--count", "8"]


@pytest.mark.parametrize(
    ("flag", "value", "expected"),
    [
        ("--count", "0", "argument --count: must be >= 1 (got 0)"),
        ("--count", "x", "argument --count: must be a whole number (got 'x')"),
        ("--input-tokens", "-1", "argument --input-tokens: must be >= 1 (got -1)"),
        ("--ttft-ms", "nan", "argument --ttft-ms: must be a finite number > 0 (got 'nan')"),
        ("--params-b", "0", "argument --params-b: must be a finite number > 0 (got '0')"),
    ],
)
def test_bad_numbers_name_the_flag(
    capsys: pytest.CaptureFixture[str], flag: str, value: str, expected: str
) -> None:
    args = (
        [a for a in INFERENCE if a not in ("--model", "llama-3.1-8b")] if flag == "--params-b" else INFERENCE
    )
    with pytest.raises(SystemExit) as exit_info:
        main(["estimate", *args, flag, value])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.endswith(f"computeops estimate: error: {expected}\n")


def test_training_flags_on_inference_are_an_error_not_ignored(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *INFERENCE, "--seq-len", "100", "--no-fabric")
    assert code == 2 and out == ""
    assert err == (
        "error: --seq-len, --no-fabric only apply to training and fine_tuning, not to --workload inference. "
        "To fix: drop --seq-len, --no-fabric, or change --workload.\n"
    )


def test_inference_flags_on_training_are_an_error_not_ignored(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, *TRAINING, "--concurrency", "4")
    assert code == 2
    assert err == (
        "error: --concurrency only applies to inference, not to --workload training. "
        "To fix: drop --concurrency, or change --workload.\n"
    )


def test_a_batch_smaller_than_one_sequence_is_rejected(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, *TRAINING, "--global-batch-tokens", "10")
    assert code == 2
    assert err == (
        "error: global_batch_tokens (10) must be >= seq_len (4096): a step holds at least one sequence. "
        "To fix: raise global_batch_tokens or lower seq_len.\n"
    )


def test_help_says_which_flags_belong_to_which_workload(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["estimate", "--help"])
    out = capsys.readouterr().out
    assert "inference only:" in out and "training and fine_tuning only:" in out
    assert "--seq-len N" in out and "Default: 4096" in out and "Default: 1024" in out


def test_a_prompt_beyond_the_context_window_is_invalid_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *INFERENCE, "--count", "8", "--input-tokens", "500000")
    assert code == 2 and out == ""
    assert err == (
        "error: input_tokens + output_tokens (500,256) exceed the context window of llama-3.1-8b "
        "(131,072 tokens). To fix: shorten the prompt or the completion.\n"
    )


def test_estimate_engine_flags(capsys: pytest.CaptureFixture[str]) -> None:
    """--engine names the serving engine; an unknown one is exit 2 with did-you-mean."""
    base = ["estimate", "--workload", "inference", "--model", "llama-3-8b", "--precision", "bf16",
            "--accelerator", "H100", "--format", "json"]  # fmt: skip
    assert main([*base, "--engine", "vllm", "--engine-version", "0.5.3"]) == 0
    assert "serving engine: vllm 0.5.3" in capsys.readouterr().out
    assert main([*base, "--engine", "vlm"]) == 2
    assert "did you mean 'vllm'" in capsys.readouterr().err
    # an engine that does not run on the accelerator is an error, not a silent fallback
    amd = [*base[:-3], "MI300X", "--format", "json"]
    assert main([*amd, "--engine", "tensorrt-llm"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "error: serving engine tensorrt-llm does not run on AMD GPUs" in err


def test_estimate_prefix_cache_share_flag(capsys: pytest.CaptureFixture[str]) -> None:
    """--prefix-cache-share lowers the prefill and says so; out of 0..1 is exit 2 naming the flag."""
    base = ["estimate", "--workload", "inference", "--model", "llama-3.3-70b", "--precision", "fp8"]
    base += ["--accelerator", "H100", "--count", "2", "--input-tokens", "8192", "--format", "json"]
    assert main(base) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*base, "--prefix-cache-share", "0.5"]) == 0
    cached = json.loads(capsys.readouterr().out)
    assert cached["ttft_ms"] < plain["ttft_ms"]
    assert any(a.startswith("prefix cache: 50%") for a in cached["assumptions"])
    for bad in ("1.5", "-0.1", "half"):
        with pytest.raises(SystemExit):
            main([*base, "--prefix-cache-share", bad])
        err = capsys.readouterr().err
        assert "argument --prefix-cache-share: must be a number from 0 to 1" in err and "To fix" in err


def test_estimate_states_its_band_as_a_decision_does(capsys: pytest.CaptureFixture[str]) -> None:
    """The band's ends and its evidence are part of the estimate (v17: naming vLLM on MI300X moves
    the band from the unnamed estimate's upper bound to its own measured range)."""
    from computeops_cdk.perf._calibration import ENGINE_MEASURED_RANGE, MEASURED_RANGE

    base = ["--workload", "inference", "--model", "llama-3.1-70b", "--precision", "fp8",
            "--accelerator", "MI300X", "--count", "8", "--format", "json"]  # fmt: skip
    docs = {}
    for engine in (None, "vllm"):
        code, out, _ = run(capsys, *base, *(("--engine", engine) if engine else ()))
        assert code == 0
        docs[engine] = json.loads(out)
    for engine, evidence, (low, high) in (
        (None, "upper_bound", MEASURED_RANGE[("MI300X", "inference")]),
        ("vllm", "measured", ENGINE_MEASURED_RANGE[("MI300X", "vllm")]),
    ):
        doc = docs[engine]
        assert doc["evidence"] == evidence
        assert doc["tokens_per_s_p10"] == pytest.approx(doc["tokens_per_s"] * low, abs=1e-3)
        assert doc["tokens_per_s_p90"] == pytest.approx(doc["tokens_per_s"] * high, abs=1e-3)
    assert docs["vllm"]["tokens_per_s"] < docs[None]["tokens_per_s"]
    # an estimate that does not fit has no band to state: the keys stay, empty
    code, out, _ = run(capsys, "--workload", "inference", "--model", "llama-3.1-405b", "--precision",
                       "bf16", "--accelerator", "L40S", "--count", "1", "--format", "json")  # fmt: skip
    assert code == 3
    misfit = json.loads(out)
    assert set(misfit) >= KEYS_ALWAYS
    assert (misfit["tokens_per_s_p10"], misfit["tokens_per_s_p90"], misfit["evidence"]) == (None, None, None)
