"""Regression on the published measurements the model was calibrated to (rows.csv, split
"calibration"): each prediction must stay inside a tolerance band around the published value.
Rows whose workload the source does not fully describe (MLPerf's mean input lengths) get the
issue's outer band (2x), the MoE rows sharing one fitted factor a wider one; the others +-35 %."""

from __future__ import annotations

import csv
import functools
import importlib.util
import math
import statistics
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("accuracy", ROOT / "benchmarks" / "accuracy.py")
assert _spec is not None and _spec.loader is not None
accuracy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(accuracy)

with open(ROOT / "benchmarks" / "calibration" / "rows.csv", newline="") as fh:
    ROWS = list(csv.DictReader(fh))
CALIBRATION = [r for r in ROWS if r["split"] == "calibration"]
LOOSE = {"INF-01": (0.35, 2.0), "INF-03": (0.5, 2.0)}
# One MoE factor is fitted across four different MoE models and stacks: they spread +-45 %.
LOOSE |= {f"CAL-MOE-{i}": (0.55, 1.6) for i in range(1, 5)}
# One vLLM-on-ROCm factor across batch 1 to 128 of one stack (v17): the stack's step time grows
# with the batch faster than the roofline, so its rows spread 0.64-1.80 about the fit.
LOOSE |= {f"CAL-VROCM-{i}": (0.6, 1.9) for i in range(1, 21)}
# The AMD MLPerf rows are evaluated relative to INF-01 (accuracy.evaluate), not absolutely: the
# unpublished mean prompt length cancels only in the ratio, so their band is checked there.
RELATIVE = {r["id"] for r in CALIBRATION if r["relative_to"]}
ACCS = accuracy.load_accelerators()


def test_calibration_rows_match_the_shared_csv() -> None:
    with open(ROOT / "benchmarks" / "calibration" / "benchmarks-calibration.csv", newline="") as fh:
        shared = {r["id"]: float(r["value"]) for r in csv.DictReader(fh)}
    ours = {r["id"]: float(r["value"]) for r in CALIBRATION if r["id"] in shared}
    assert ours == shared  # every shared row is evaluated, with its published value
    added = [r["id"] for r in CALIBRATION if r["id"] not in shared]
    assert all(i.startswith("CAL-") for i in added)  # our own additions are labelled as such


@functools.cache
def _evaluated() -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in accuracy.evaluate()}


@pytest.mark.parametrize("row", CALIBRATION, ids=[r["id"] for r in CALIBRATION])
def test_prediction_within_band(row: dict[str, str]) -> None:
    lo, hi = LOOSE.get(row["id"], (0.65, 1.35))
    if row["id"] in RELATIVE:
        ratio = _evaluated()[row["id"]]["ratio"]
    else:
        ratio = accuracy.predict(row, ACCS) / float(row["value"])
    assert lo <= ratio <= hi, f"{row['id']}: predicted/published = {ratio:.2f}"


def test_rocm_serving_factor_fits_its_calibration_rows() -> None:
    # ROCM_SERVING_EFF is the fit of CAL-AMD-1..2 (geometric mean of predicted/published ~ 1); it
    # applies to AMD parts only, so NVIDIA rows (the INF-01 reference included) do not move with it
    from computeops_cdk.perf._calibration import ROCM_SERVING_EFF
    from computeops_cdk.perf._hardware import hardware_of

    results = _evaluated()
    amd = [results[i]["ratio"] for i in ("CAL-AMD-1", "CAL-AMD-2")]
    assert abs(math.log(math.prod(amd)) / len(amd)) < 0.02, amd
    assert all(results[i]["split"] == "calibration" for i in ("CAL-AMD-1", "CAL-AMD-2"))
    assert all(r["split"] == "heldout" for i, r in results.items() if i.startswith("HO-AMD-"))
    assert hardware_of(ACCS["MI300X"]).serving_eff == ROCM_SERVING_EFF < 1
    gpus = [a for a in ACCS.values() if a.vendor != "AMD" and not a.id.startswith("TPU-")]
    assert all(hardware_of(a).serving_eff == 1.0 for a in gpus)


def test_vllm_rocm_factor_fits_its_preregistered_rows() -> None:
    # v17: VLLM_ROCM_FACTOR is the fit of CAL-VROCM-1..20 (AMD's vLLM 0.9.1 container README),
    # rounded to two decimals: one step either way moves the geometric mean further from 1
    from computeops_cdk.perf import _engines

    def gm(factor: float) -> float:
        rows = [r for r in accuracy.evaluate() if r["id"].startswith("CAL-VROCM-")]
        assert len(rows) == 20 and all(r["engine"] == "vllm" and r["accelerator"] == "MI300X" for r in rows)
        return math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))

    fitted = _engines.VLLM_ROCM_FACTOR
    errors = {}
    try:
        for step in (-0.01, 0.0, 0.01):
            _engines.VLLM_ROCM_FACTOR = round(fitted + step, 2)
            _engines.resolve_engine.cache_clear()
            errors[step] = abs(math.log(gm(_engines.VLLM_ROCM_FACTOR)))
    finally:
        _engines.VLLM_ROCM_FACTOR = fitted
        _engines.resolve_engine.cache_clear()
    assert errors[0.0] < min(errors[-0.01], errors[0.01]), errors
    held = [r for i, r in _evaluated().items() if i.startswith("HO-AMD-")]
    assert len(held) == 10 and all(r["split"] == "heldout" and r["engine"] == "vllm" for r in held)


def test_engine_measured_ranges_are_those_of_the_rows_naming_the_engine() -> None:
    # v17 revision: a serving estimate naming vLLM on MI300X carries the range of published /
    # estimated over the calibration and held-out rows on it that name the engine, with the rule;
    # ENGINE_MEASURED_SINCE is the earliest release those rows measured
    from computeops_cdk.perf._calibration import ENGINE_MEASURED_RANGE, ENGINE_MEASURED_SINCE
    from computeops_cdk.perf._engines import release_of

    by_key: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in accuracy.evaluate():
        key = (r["accelerator"], r["engine"])
        if r["split"] in ("calibration", "heldout") and key in ENGINE_MEASURED_RANGE:
            by_key.setdefault(key, []).append(r)
    assert set(by_key) == set(ENGINE_MEASURED_RANGE) == set(ENGINE_MEASURED_SINCE) == {("MI300X", "vllm")}
    for key, rows in by_key.items():
        ratios = [r["ratio"] for r in rows]
        assert ENGINE_MEASURED_RANGE[key] == (round(1 / max(ratios), 2), round(1 / min(ratios), 2))
        releases = [release_of(key[1], r["engine_version"] or None) for r in rows]
        assert min(releases)[:2] == ENGINE_MEASURED_SINCE[key][:2], releases


def test_tpu_serving_factor_fits_its_preregistered_rows() -> None:
    # v10: TPU_SERVING_EFF is the fit of CAL-TPU-1..3 (SGLang-JAX, Qwen3-8B, TPU v6e-4, concurrency
    # 64), the rows named for it before any was evaluated; every other row of that table is held out
    from computeops_cdk.perf._calibration import TPU_SERVING_EFF
    from computeops_cdk.perf._hardware import hardware_of

    results = _evaluated()
    cal_rows = [results[f"CAL-TPU-{i}"] for i in (1, 2, 3)]
    ratios = [r["ratio"] for r in cal_rows]
    assert abs(math.log(math.prod(ratios)) / len(ratios)) < 0.02, ratios
    assert all(r["split"] == "calibration" and r["accelerator"] == "TPU-v6e" for r in cal_rows)
    tpus = [r for i, r in results.items() if i.startswith("HO-TPUS-")]
    assert len(tpus) == 33 and all(r["split"] == "heldout" for r in tpus)
    assert all(
        hardware_of(a).serving_eff == TPU_SERVING_EFF < 1 for a in ACCS.values() if a.id.startswith("TPU-")
    )


def test_blackwell_fp8_training_is_not_extrapolated_past_the_calibrated_peak() -> None:
    # v10: the peak law stops at TRN-33's peak (H100 FP8); B200/GB200 FP8 training rows (held out)
    # read 0.72-0.81x in v9 and stay within 10 % now, and no calibration row moves
    from computeops_cdk.perf._calibration import REF_PEAK_TFLOPS, TRAIN_PEAK_RATIO_MAX

    assert float(ACCS["H100-SXM"].fp8_tflops) == TRAIN_PEAK_RATIO_MAX * REF_PEAK_TFLOPS
    results = _evaluated()
    blackwell = [
        results[i]["ratio"] for i in ("HO-NEMO-1", "HO-NEMO-2", "HO-NEMO-5", "HO-NEMO-6", "HO-NEMO-7")
    ]
    assert all(0.9 <= x <= 1.1 for x in blackwell), blackwell
    assert abs(results["TRN-33"]["ratio"] - 1) < 0.01


def test_pcie_link_efficiency_fits_its_calibration_row() -> None:
    # PCIE_LINK_EFF is the fit of CAL-TP-1 (the only row with tensor parallelism over PCIe, was
    # HO-15); it applies to parts without a vendor link only, so NVLink/Infinity Fabric/ICI rows do
    # not move with it, and the other PCIe TP row (HO-41) stays held out to test it
    from computeops_cdk.perf._calibration import LINK_EFF, PCIE_LINK_EFF
    from computeops_cdk.perf._hardware import hardware_of

    results = _evaluated()
    assert results["CAL-TP-1"]["split"] == "calibration" and "HO-15" not in results
    assert abs(math.log(results["CAL-TP-1"]["ratio"])) < 0.02, results["CAL-TP-1"]["ratio"]
    assert results["HO-41"]["split"] == "heldout" and results["HO-14"]["split"] == "heldout"
    assert PCIE_LINK_EFF < LINK_EFF
    for acc in ACCS.values():
        pcie = not acc.interconnect
        assert hardware_of(acc).link_eff == (PCIE_LINK_EFF if pcie else LINK_EFF), acc.id


def test_fp8_training_factor_fits_its_calibration_row() -> None:
    # FP8_TRAIN_FACTOR is the fit of TRN-33 (NeMo Llama-3-70B FP8 on 64 H100) through the whole
    # model; v8's 0.9 (from the width law alone) left its own row at 0.85x. The other FP8 training
    # rows it is tested on stay held out
    results = _evaluated()
    assert results["TRN-33"]["split"] == "calibration"
    assert abs(math.log(results["TRN-33"]["ratio"])) < 0.02, results["TRN-33"]["ratio"]
    fp8_training = [r for r in results.values() if r["precision"] == "fp8" and _kind(r) == "training"]
    # CAL-LC-* (v14) set ATTENTION_EFF, the long-context attention rate, not FP8_TRAIN_FACTOR
    others = [r for r in fp8_training if r["id"] != "TRN-33" and not r["id"].startswith("CAL-LC-")]
    assert {r["split"] for r in others} == {"heldout"}


def test_pcie_serving_estimates_state_the_effective_link() -> None:
    from computeops_cdk.perf import estimate_inference, resolve_model

    estimate = estimate_inference(
        resolve_model("llama-3.1-70b"),
        precision="fp8",
        accelerator=ACCS["L40S"],
        count=4,
        input_tokens=1000,
        output_tokens=1000,
    )
    assert estimate.tensor_parallel == 4
    assert any(
        a.startswith(
            "L40S has no accelerator link in the catalog: tensor/data parallel traffic over PCIe at 14 GB/s"
        )
        and "PCIE_LINK_EFF" in a
        for a in estimate.assumptions
    ), estimate.assumptions


# Held-out rows off by more than 2x: the issue's target fails on them, and ACCURACY.md says so.
# None since v6 (ROCM_SERVING_EFF, fitted to CAL-AMD-1..2); the worst, HO-AMD-7 (vLLM on ROCm), is at
# 1.89x in v7. A new miss fails this test (and must be disclosed here and in ACCURACY.md).
# v10: two of the 33 pre-registered TPU serving rows, vLLM's TPU backend of 2025-09 on Qwen3-8B at
# concurrency 256 (2.09x and 2.13x; SGLang-JAX on the same chips and lengths reads 1.12x and 1.07x).
DISCLOSED_BEYOND_2X: set[str] = set()  # v14: the two vLLM PyTorch/XLA TPU rows now 1.77x, 1.79x


def test_heldout_rows_meet_the_issue_targets() -> None:
    # median |error| <= 15 % (issue 11; was 20 %), no row off by more than 2x, on rows never fitted
    results = accuracy.evaluate()
    s = accuracy.summary(results, "heldout")
    assert s["median_pct"] <= 15  # issue 11: median <= 15 %, none beyond 2x
    held = [r for r in results if r["split"] == "heldout"]
    beyond = {r["id"] for r in held if not 0.5 <= r["ratio"] <= 2}
    assert beyond == DISCLOSED_BEYOND_2X
    assert all(0.4 <= r["ratio"] <= 2.5 for r in held), "a disclosed miss got worse"


def _kind(row: dict[str, str]) -> str:
    return "training" if row["metric"] in accuracy.TRAINING_METRICS else "inference"


def test_validated_accelerators_are_those_with_measurements() -> None:
    from computeops_cdk.perf import _calibration as cal

    measured = [r for r in ROWS if r["split"] in ("calibration", "heldout")]
    assert {r["accelerator"] for r in measured if _kind(r) == "inference"} == cal.VALIDATED_INFERENCE
    assert {r["accelerator"] for r in measured if _kind(r) == "training"} == cal.VALIDATED_TRAINING


def test_measured_ranges_are_those_of_the_heldout_rows() -> None:
    # every (accelerator, kind) whose held-out median error misses the 20 % target carries the
    # range of published/estimated its rows show, recomputed here from rows.csv
    from computeops_cdk.perf._calibration import MEASURED_RANGE

    by_key: dict[tuple[str, str], list[float]] = {}
    for r in accuracy.evaluate(unnamed_engine=True):
        if r["split"] == "heldout":
            by_key.setdefault((r["accelerator"], _kind(r)), []).append(r["ratio"])
    expected = {
        key: (round(1 / max(ratios), 2), round(1 / min(ratios), 2))
        for key, ratios in by_key.items()
        if statistics.median(abs(x - 1) for x in ratios) > 0.20
    }
    assert expected == MEASURED_RANGE


def test_estimates_say_whether_a_measurement_of_their_kind_backs_them() -> None:
    from computeops_cdk.perf import estimate_inference, estimate_training, resolve_model

    model = resolve_model("llama-3.1-8b")
    # (accelerator, inference extrapolates, training extrapolates)
    for acc, inf_label, trn_label in (
        ("H100-SXM", False, False),
        ("MI300X", False, True),
        ("TPU-v6e", False, False),  # v10: SGLang-JAX / vLLM TPU serving rows (HO-TPUS-*)
        ("TPU-v5e", True, False),  # v9: MaxText's v5e training rows (HO-TPU-MS-*)
    ):
        inference = estimate_inference(
            model, precision="bf16", accelerator=ACCS[acc], count=8, input_tokens=512, output_tokens=128
        )
        training = estimate_training(
            model, precision="bf16", accelerator=ACCS[acc], count=8, seq_len=4096, global_batch_tokens=2**22
        )
        for estimate, kind, labelled in (
            (inference, "inference", inf_label),
            (training, "training", trn_label),
        ):
            notes = [a for a in estimate.assumptions if a.startswith(f"no published {kind} measurement on")]
            assert bool(notes) is labelled, (acc, kind, estimate.assumptions)
            assert not labelled or acc in notes[0]


def test_mi300x_serving_estimates_quote_the_measured_range() -> None:
    from computeops_cdk.perf import estimate_inference, resolve_model

    estimate = estimate_inference(
        resolve_model("llama-3.1-70b"),
        precision="fp8",
        accelerator=ACCS["MI300X"],
        count=8,
        input_tokens=512,
        output_tokens=256,
    )
    assert any(
        a.startswith("published inference measurements on MI300X reach 0.53-0.88x") and "upper bound" in a
        for a in estimate.assumptions
    ), estimate.assumptions
    # and say that the fitted AMD serving-stack factor is part of the estimate
    assert any(
        a.startswith(
            "AMD serving stack (vLLM on ROCm): achieved FLOPs and bandwidth at 72% of the "
            "NVIDIA-fitted roofline (ROCM_SERVING_EFF, fitted to AMD's MLPerf v4.1 MI300X results)"
        )
        for a in estimate.assumptions
    ), estimate.assumptions


def test_tpu_serving_estimates_carry_the_measured_range_as_their_band() -> None:
    # v10: TPU v6e serving stays off on one of the two engines measured (vLLM's TPU backend at
    # 0.47-1.05x), so its estimates carry the whole measured range, not the validated p10-p90
    from computeops_cdk.perf import estimate_inference, resolve_model

    estimate = estimate_inference(
        resolve_model("llama-3.1-8b"),
        precision="bf16",
        accelerator=ACCS["TPU-v6e"],
        count=4,
        input_tokens=1024,
        output_tokens=256,
    )
    band = estimate.uncertainty
    assert band is not None and (band.evidence, band.low, band.high) == ("measured", 0.47, 1.41)
    assert any(
        a.startswith(
            "TPU serving stack: vLLM TPU v0.11.1 on its tpu-inference (JAX) backend, the engine the TPU "
            "targets deploy; achieved FLOPs and bandwidth at 64%"
        )
        for a in estimate.assumptions
    )
    assert any(
        a.startswith("published inference measurements on TPU-v6e reach 0.47-1.41x")
        for a in estimate.assumptions
    )


def _measured_speed(r: dict[str, Any]) -> float:
    """Measured / estimated speed of a row: latency rows are times (lower is faster)."""
    return float(r["ratio"]) if r["metric"] in ("ttft_ms", "tpot_ms") else 1 / float(r["ratio"])


def test_uncertainty_bands_are_those_of_the_heldout_rows() -> None:
    # the bands every estimate carries are recomputed here from rows.csv: p10-p90 per kind on
    # validated hardware (MI300X serving, a known upper bound, left out), and the whole range
    from computeops_cdk.perf._calibration import BAND_EXTRAPOLATED, BAND_VALIDATED, MEASURED_RANGE

    held = [
        r
        for r in accuracy.evaluate(unnamed_engine=True)
        if r["split"] == "heldout" and (r["accelerator"], _kind(r)) not in MEASURED_RANGE
    ]
    every: list[float] = []
    for kind in ("inference", "training"):
        speeds = [_measured_speed(r) for r in held if _kind(r) == kind]
        q = statistics.quantiles(speeds, n=10, method="inclusive")
        assert BAND_VALIDATED[kind] == (round(q[0], 2), round(q[-1], 2)), kind
        every += speeds
    assert (round(min(every), 2), round(max(every), 2)) == BAND_EXTRAPOLATED


def test_the_long_prompt_band_is_that_of_the_regimes_heldout_rows_widened() -> None:
    # v15 addendum, section 3: p10-p90 of the regime's held-out GPU serving rows, widened about
    # its midpoint to the extrapolated band's width (fewer than 10 rows), low end at most the
    # validated inference band's
    from computeops_cdk.perf import long_prompt
    from computeops_cdk.perf._calibration import BAND_EXTRAPOLATED, BAND_LONG_PROMPT, BAND_VALIDATED

    rows = [
        r
        for r in accuracy.evaluate(unnamed_engine=True)
        if r["split"] == "heldout"
        and _kind(r) == "inference"
        and not r["accelerator"].startswith("TPU")
        and long_prompt(int(r["input_tokens"]), int(r["output_tokens"]))
    ]
    assert sorted(r["id"] for r in rows) == ["HO-43", "HO-46", "HO-NV-2", "HO-NV-3", "HO-NV-4", "HO-NV-5"]
    q = statistics.quantiles([_measured_speed(r) for r in rows], n=10, method="inclusive")
    middle, width = (q[0] + q[-1]) / 2, BAND_EXTRAPOLATED[1] - BAND_EXTRAPOLATED[0]
    low, high = min(middle - width / 2, BAND_VALIDATED["inference"][0]), middle + width / 2
    assert (round(low, 2), round(high, 2)) == BAND_LONG_PROMPT


def test_the_long_context_band_widens_the_training_band_to_its_heldout_rows() -> None:
    from computeops_cdk.perf._calibration import BAND_LONG_CONTEXT, BAND_VALIDATED, LONG_CONTEXT_TOKENS

    rows = [
        r
        for r in accuracy.evaluate()
        if r["split"] == "heldout" and _kind(r) == "training" and int(r["seq_len"]) >= LONG_CONTEXT_TOKENS
    ]
    assert len(rows) == 12 and all(r["id"].startswith("HO-LC-") for r in rows)
    q = statistics.quantiles([_measured_speed(r) for r in rows], n=10, method="inclusive")
    low, high = BAND_VALIDATED["training"]
    assert (min(low, round(q[0], 2)), max(high, round(q[-1], 2))) == BAND_LONG_CONTEXT


def test_the_tpu_serving_note_names_the_deployed_engine_and_the_older_backends_measured_range() -> None:
    # v11: the stack deploys vllm-tpu (tpu-inference, JAX); the estimate says so, and the range it
    # quotes for vLLM's PyTorch/XLA backend is the held-out vLLM rows' published / estimated
    from computeops_cdk.perf._inference import TPU_STACK_NOTE
    from computeops_cdk.targets._boot import DEFAULT_VLLM_TPU_IMAGE

    assert DEFAULT_VLLM_TPU_IMAGE.endswith(":v0.11.1") and "vLLM TPU v0.11.1" in TPU_STACK_NOTE
    rows = [r for r in ROWS if r["id"].startswith("HO-TPUS-") and "-vllm-" in r["id"]]
    assert len(rows) == 18 and all(r["split"] == "heldout" for r in rows)
    # the note describes the estimate naming no engine (v14 kept it): rows read without their engine
    unnamed = {r["id"]: r for r in accuracy.evaluate(unnamed_engine=True)}
    speeds = [1 / unnamed[r["id"]]["ratio"] for r in rows]
    assert f"PyTorch/XLA TPU backend (2025-09) {min(speeds):.2f}-{max(speeds):.2f}x" in TPU_STACK_NOTE


def test_the_deployed_tpu_engine_has_held_out_rows_quoted_in_the_note() -> None:
    # v12: vLLM TPU on tpu-inference, the backend the stacks deploy, measured by Google's recipe
    # (HO-TPUI-*); pre-registered held out, nothing fitted on them; the note quotes their range
    from computeops_cdk.perf._inference import TPU_STACK_NOTE

    rows = [r for r in ROWS if r["id"].startswith("HO-TPUI-")]
    assert len(rows) == 2 and all(r["split"] == "heldout" for r in rows)
    assert all("tpu-inference" in r["source"] and "nightly-20251129-28607fc" in r["source"] for r in rows)
    # the note describes the estimate naming no engine (v14 kept it): rows read without their engine
    unnamed = {r["id"]: r for r in accuracy.evaluate(unnamed_engine=True)}
    speeds = [1 / unnamed[r["id"]]["ratio"] for r in rows]
    assert "tpu-inference itself (Llama 3.3 70B on TPU v6e-8, a 2025-11 build) measured " in TPU_STACK_NOTE
    assert f"{min(speeds):.2f}-{max(speeds):.2f}x of this estimate" in TPU_STACK_NOTE


def test_the_v13_tpu_serving_rows_stay_excluded_as_pre_registered() -> None:
    # v13: a further search found two vLLM-on-TPU measurements from before tpu-inference; the
    # pre-registration put both in "excluded" before they were evaluated (a February-2025 example the
    # recipe later withdrew; a one-wave run over a Vertex endpoint), so they never enter the
    # statistics, the measured ranges or the bands, whatever they read (4.28x and 1.91x)
    rows = {r["id"]: r for r in ROWS if r["id"].startswith("HO-TPUV-")}
    assert set(rows) == {"HO-TPUV-8-sharegpt", "HO-TPUV-8-vertex-50"}
    assert all(r["split"] == "excluded" and "pre-registered excluded" in r["note"] for r in rows.values())
    assert (
        "tpu-recipes" in rows["HO-TPUV-8-sharegpt"]["source"]
        and "@ed1b224" in rows["HO-TPUV-8-sharegpt"]["source"]
    )
    assert "@1594cb5" in rows["HO-TPUV-8-vertex-50"]["source"]
    results = accuracy.evaluate()
    assert not {r["id"] for r in results if r["split"] == "heldout"} & set(rows)
    with_them = accuracy.summary(results, "heldout")
    without = accuracy.summary([r for r in results if r["id"] not in rows], "heldout")
    assert with_them == without
