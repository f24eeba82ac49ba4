"""Accelerator records for the perf tests, built from the copied market-data specs
(benchmarks/calibration/accelerators.csv) so the tests do not depend on the catalog build.

The records come from the accuracy benchmark's own loader, so tests and benchmark read that file
one way."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from computeops_cdk.catalog import Accelerator

_ACCURACY = Path(__file__).resolve().parents[2] / "benchmarks" / "accuracy.py"


def load_accelerators() -> dict[str, Accelerator]:
    """``benchmarks/accuracy.py``'s ``load_accelerators()`` (the benchmark is a script, not a package)."""
    spec = importlib.util.spec_from_file_location("accuracy", _ACCURACY)
    assert spec is not None and spec.loader is not None
    accuracy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(accuracy)
    return accuracy.load_accelerators()  # type: ignore[no-any-return]


ACCELERATORS = load_accelerators()


@pytest.fixture
def accs() -> dict[str, Accelerator]:
    return ACCELERATORS
