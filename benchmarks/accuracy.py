"""The performance model against published measurements: per row predicted vs published.

    python benchmarks/accuracy.py [--markdown]

Rows come from benchmarks/calibration/rows.csv: ``calibration`` rows (the team's shared set,
benchmarks-calibration.csv, which the constants in perf/_calibration.py were fitted to) and
``heldout`` rows (further public measurements, never used to set a constant); ``excluded`` rows are
printed but kept out of the statistics, each with the reason in its note. Accelerator specs
come from benchmarks/calibration/accelerators.csv (a copy of the shared market data), so the
result does not depend on the catalog build.
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
    if metric in ("tokens_per_s_per_gpu", "mfu"):
        t = estimate_training(
            model,
            precision=row["precision"],  # type: ignore[arg-type]
            accelerator=acc,
            count=count,
            seq_len=int(row["seq_len"]),
            global_batch_tokens=int(row["global_batch_tokens"]),
            method=row["method"] or "full",  # type: ignore[arg-type]
        )
        return t.mfu if metric == "mfu" else t.tokens_per_s_per_accelerator
    e = estimate_inference(
        model,
        precision=row["precision"],  # type: ignore[arg-type]
        accelerator=acc,
        count=count,
        input_tokens=int(row["input_tokens"]),
        output_tokens=int(row["output_tokens"]),
        concurrency=_int(row["concurrency"]),
        tensor_parallel=_int(row["tensor_parallel"]),
    )
    return {
        "output_tokens_per_s_total": e.tokens_per_s,
        "output_tokens_per_s_per_gpu": e.tokens_per_s_per_accelerator,
        "ttft_ms": e.ttft_ms,
        "tpot_ms": e.tpot_ms,
    }[metric]


def evaluate() -> list[dict[str, Any]]:
    accs = load_accelerators()
    out = []
    for row in load_rows():
        pred = predict(row, accs)
        pub = float(row["value"])
        out.append({**row, "predicted": pred, "ratio": pred / pub, "abs_err": abs(pred / pub - 1)})
    return out


def summary(results: list[dict[str, Any]], split: str) -> dict[str, float]:
    errs = sorted(r["abs_err"] for r in results if r["split"] == split)
    ratios = [r["ratio"] for r in results if r["split"] == split]
    p90 = errs[min(len(errs) - 1, round(0.9 * (len(errs) - 1)))]
    return {
        "rows": len(errs),
        "median_pct": 100 * statistics.median(errs),
        "p90_pct": 100 * p90,
        "worst_ratio": max(ratios, key=lambda x: max(x, 1 / x)),
        "within_2x": sum(1 for x in ratios if 0.5 <= x <= 2),
    }


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
