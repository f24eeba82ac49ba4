"""The performance model against published measurements: per row predicted vs published.

    python benchmarks/accuracy.py [--markdown]

Rows come from benchmarks/calibration/rows.csv: ``calibration`` rows (the team's shared set,
benchmarks-calibration.csv, plus our ``CAL-*`` rows: what the constants in perf/_calibration.py
were fitted to) and ``heldout`` rows (further public measurements, never used to set a
constant); ``excluded`` rows are printed but kept out of the statistics, each with the reason in
its note. Accelerator specs come from benchmarks/calibration/accelerators.csv (a copy of the
shared market data), so the result does not depend on the catalog build.
"""

from __future__ import annotations

import csv
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from computeops_cdk.catalog import Accelerator
from computeops_cdk.perf import MODEL_VERSION, estimate_inference, estimate_training, resolve_model

HERE = Path(__file__).parent / "calibration"


def _f(text: str) -> float | None:
    return float(text) if text.strip() else None


def load_accelerators() -> dict[str, Accelerator]:
    """Accelerator records built from the copied market-data specs."""
    out = {}
    with open(HERE / "accelerators.csv", newline="") as fh:
        for r in csv.DictReader(fh):
            out[r["id"]] = Accelerator(
                id=r["id"],
                vendor=r["vendor"],
                architecture=r["architecture"],
                memory_gb=_f(r["memory_gb"]),
                memory_bw_gbps=_f(r["memory_bw_gbps"]),
                bf16_tflops=_f(r["bf16_fp16_dense_tflops"]),
                fp8_tflops=_f(r["fp8_dense_tflops"]),
                interconnect=r["interconnect_type"] or None,
                interconnect_gbps=_f(r["interconnect_gbps_per_gpu"]),
                source=r["source"],
            )
    return out


def load_rows() -> list[dict[str, str]]:
    with open(HERE / "rows.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def _int(text: str) -> int | None:
    return int(text) if text.strip() else None


def predict(row: dict[str, str], accs: dict[str, Accelerator]) -> float:
    """The model's prediction of ``row['metric']`` for the row's setup."""
    model = resolve_model(row["model"])
    acc = accs[row["accelerator"]]
    count = int(row["count"])
    metric = row["metric"]
    if metric == "engine_speedup":  # the newer engine release's throughput over the row's release
        return (
            _serving(row, model, acc, count, row["relative_engine_version"]).tokens_per_s
            / _serving(row, model, acc, count, row["engine_version"]).tokens_per_s
        )
    if metric in ("tokens_per_s_per_gpu", "mfu", "model_tflops_per_gpu"):
        t = estimate_training(
            model,
            precision=row["precision"],  # type: ignore[arg-type]
            accelerator=acc,
            count=count,
            seq_len=int(row["seq_len"]),
            global_batch_tokens=int(row["global_batch_tokens"]),
            method=row["method"] or "full",  # type: ignore[arg-type]
            gpus_per_node=_int(row.get("gpus_per_node") or ""),
        )
        if metric == "model_tflops_per_gpu":  # the sources' convention: 6N + attention FLOPs per token
            return t.mfu * t.tokens_per_s / t.tokens_per_s_per_accelerator / count * _peak(acc, t.precision)
        return t.mfu if metric == "mfu" else t.tokens_per_s_per_accelerator
    e = _serving(row, model, acc, count, row.get("engine_version") or None)
    return {
        "output_tokens_per_s_total": e.tokens_per_s,
        "output_tokens_per_s_per_gpu": e.tokens_per_s_per_accelerator,
        "ttft_ms": e.ttft_ms,
        "tpot_ms": e.tpot_ms,
    }[metric]


def _serving(row: dict[str, str], model: Any, acc: Accelerator, count: int, version: str | None) -> Any:
    """The row's serving estimate, with the engine (and ``version`` of it) the row names, if any."""
    return estimate_inference(
        model,
        precision=row["precision"],  # type: ignore[arg-type]
        accelerator=acc,
        count=count,
        input_tokens=int(row["input_tokens"]),
        output_tokens=int(row["output_tokens"]),
        concurrency=_int(row["concurrency"]),
        tensor_parallel=_int(row["tensor_parallel"]),
        gpus_per_node=_int(row.get("gpus_per_node") or ""),
        engine=row.get("engine") or None,
        engine_version=version if row.get("engine") else None,
    )


def _peak(acc: Accelerator, precision: str) -> float:
    """Dense TFLOPs of ``acc`` at ``precision``, as the estimate's MFU is relative to."""
    if precision in ("fp8", "fp4") and acc.fp8_tflops:
        return float(acc.fp8_tflops)
    return float(acc.bf16_tflops or 0.0)


def evaluate(*, unnamed_engine: bool = False) -> list[dict[str, Any]]:
    """Every row with its prediction, ratio (predicted / published) and absolute error.

    A row with ``relative_to`` (another row's id, same benchmark and round) is anchored on that
    row: predicted = model(row) x published(ref) / model(ref). Its ratio is then the model's
    error on this accelerator relative to the reference one, which cancels a workload parameter
    both rows share but the source does not publish (MLPerf's mean prompt length).
    """
    accs = load_accelerators()
    rows = load_rows()
    if unnamed_engine:  # the rows the bands were computed on, as an estimate naming no engine reads them
        rows = [
            {**r, "engine": ""} for r in rows if "(v14)" not in r["note"] and r["metric"] != "engine_speedup"
        ]
    by_id = {r["id"]: r for r in rows}
    out = []
    for row in rows:
        pred = predict(row, accs)
        ref_id = row.get("relative_to") or ""
        if ref_id:
            ref = by_id[ref_id]
            pred *= float(ref["value"]) / predict(ref, accs)
        pub = float(row["value"])
        out.append({**row, "predicted": pred, "ratio": pred / pub, "abs_err": abs(pred / pub - 1)})
    return out


def summary(results: list[dict[str, Any]], split: str) -> dict[str, float]:
    return summarize([r for r in results if r["split"] == split])


def summarize(results: list[dict[str, Any]]) -> dict[str, float]:
    """Median and p90 absolute error, ratio range and rows within 2x of ``results``."""
    errs = sorted(r["abs_err"] for r in results)
    ratios = [r["ratio"] for r in results]
    p90 = errs[min(len(errs) - 1, round(0.9 * (len(errs) - 1)))]
    return {
        "rows": len(errs),
        "median_pct": 100 * statistics.median(errs),
        "p90_pct": 100 * p90,
        "worst_ratio": max(ratios, key=lambda x: max(x, 1 / x)),
        "min_ratio": min(ratios),
        "max_ratio": max(ratios),
        "within_2x": sum(1 for x in ratios if 0.5 <= x <= 2),
    }


VENDOR = {"MI300X": "AMD MI300X", "TPU-v5e": "Google TPU", "TPU-v5p": "Google TPU", "TPU-v6e": "Google TPU"}
TRAINING_METRICS = ("tokens_per_s_per_gpu", "mfu", "model_tflops_per_gpu")


def groups(results: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The slices ACCURACY.md reports: by split, then held-out by vendor and workload kind."""
    shared = {r["id"] for r in results if r["split"] == "calibration" and not r["id"].startswith("CAL-")}
    held = [r for r in results if r["split"] == "heldout"]

    def vendor(r: dict[str, Any]) -> str:
        return VENDOR.get(r["accelerator"], "NVIDIA")

    def kind(r: dict[str, Any]) -> str:
        if r["metric"] in TRAINING_METRICS:
            return "training"
        return "inference, MoE" if resolve_model(r["model"]).is_moe else "inference, dense"

    out = [
        ("calibration (all)", [r for r in results if r["split"] == "calibration"]),
        ("calibration, shared set only", [r for r in results if r["id"] in shared]),
        ("**held-out (all)**", held),
    ]
    for v in ("NVIDIA", "AMD MI300X", "Google TPU"):
        out.append((f"held-out, {v}", [r for r in held if vendor(r) == v]))
    for k in ("inference, dense", "inference, MoE", "training"):
        out.append((f"held-out, {k}", [r for r in held if kind(r) == k]))
    out.append(("excluded (not in statistics)", [r for r in results if r["split"] == "excluded"]))
    return [(label, rows) for label, rows in out if rows]


def summary_table(results: list[dict[str, Any]]) -> list[str]:
    """The markdown summary table of ACCURACY.md."""
    lines = [
        "| split | rows | median abs. error | p90 abs. error | ratio range (pred/published) | within 2x |",
        "|---|---|---|---|---|---|",
    ]
    for label, rows in groups(results):
        s = summarize(rows)
        lines.append(
            f"| {label} | {s['rows']} | {s['median_pct']:.1f} % | {s['p90_pct']:.1f} % | "
            f"{s['min_ratio']:.2f} .. {s['max_ratio']:.2f} | {s['within_2x']}/{s['rows']} |"
        )
    return lines


def timing() -> list[tuple[str, float]]:
    """Microseconds per uncached estimate (the engine calls one per accelerator and instance size)."""
    from computeops_cdk.perf import _inference, _training

    accs = load_accelerators()
    model = resolve_model("llama-3.1-70b")
    h100 = accs["H100-SXM"]
    cases = {
        "inference, max throughput": lambda k: estimate_inference(
            model, precision="fp8", accelerator=h100, count=8, input_tokens=1024, output_tokens=256 + k
        ),
        "inference, TTFT/TPOT targets": lambda k: estimate_inference(
            model,
            precision="fp8",
            accelerator=h100,
            count=8,
            input_tokens=1024,
            output_tokens=256 + k,
            ttft_ms=800,
            tpot_ms=60,
        ),
        "training, 64 GPUs": lambda k: estimate_training(
            model, precision="bf16", accelerator=h100, count=64, seq_len=8192, global_batch_tokens=2**22 + k
        ),
    }
    out = []
    for label, call in cases.items():
        n, start = 500, time.perf_counter()
        for k in range(n):
            _inference.estimate_inference_hw.cache_clear()
            _training.estimate_training_hw.cache_clear()
            call(k)
        out.append((label, (time.perf_counter() - start) / n * 1e6))
    return out


def main(argv: list[str]) -> int:
    results = evaluate()
    md = "--markdown" in argv
    print(f"model_version: {MODEL_VERSION}\n")
    head = ["id", "split", "model", "accelerator", "count", "metric", "published", "predicted", "ratio"]
    print("| " + " | ".join(head) + " |" if md else "  ".join(f"{h:>12}" for h in head))
    if md:
        print("|" + "---|" * len(head))
    for r in results:
        cells = [
            r["id"],
            r["split"],
            r["model"],
            r["accelerator"],
            r["count"],
            r["metric"],
            f"{float(r['value']):.4g}",
            f"{r['predicted']:.4g}",
            f"{r['ratio']:.2f}",
        ]
        print("| " + " | ".join(cells) + " |" if md else "  ".join(f"{c:>12}" for c in cells))
    print()
    if md:
        print("\n".join(summary_table(results)) + "\n")
    excluded = [r for r in results if r["split"] == "excluded"]
    if excluded:
        ratios = ", ".join(f"{r['id']} {r['ratio']:.2f}" for r in excluded)
        print(f"   excluded: {len(excluded)} rows (see their notes), ratios {ratios}")
    for split in ("calibration", "heldout"):
        s = summary(results, split)
        print(
            f"{split:>11}: {s['rows']} rows, median |error| {s['median_pct']:.1f} %, "
            f"p90 {s['p90_pct']:.1f} %, worst ratio {s['worst_ratio']:.2f}, "
            f"{s['within_2x']}/{s['rows']} within 2x"
        )
    print()
    for label, micros in timing():
        print(f"{label}: {micros:.0f} us per uncached estimate")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
