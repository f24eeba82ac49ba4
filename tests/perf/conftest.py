"""Accelerator records for the perf tests, built from the copied market-data specs
(benchmarks/calibration/accelerators.csv) so the tests do not depend on the catalog build."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from computeops_cdk.catalog import Accelerator

CALIBRATION = Path(__file__).resolve().parents[2] / "benchmarks" / "calibration"


def _f(text: str) -> float | None:
    return float(text) if text.strip() else None


def load_accelerators() -> dict[str, Accelerator]:
    out = {}
    with open(CALIBRATION / "accelerators.csv", newline="") as fh:
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
            )
    return out


ACCELERATORS = load_accelerators()


@pytest.fixture
def accs() -> dict[str, Accelerator]:
    return ACCELERATORS
