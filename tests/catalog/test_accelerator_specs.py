"""Curated spec cells (accelerators-extra.csv): each one lands in the catalog with its citation."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from computeops_cdk.catalog import Catalog, load_catalog

_EXTRA = Path(__file__).resolve().parents[2] / "data" / "market" / "accelerators-extra.csv"
_NUMERIC = {
    "memory_gb",
    "memory_bw_gbps",
    "bf16_tflops",
    "fp8_tflops",
    "fp4_tflops",
    "fp32_tflops",
    "int8_tops",
    "interconnect_gbps",
    "tdp_w",
}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _extra_rows() -> list[dict[str, str]]:
    with _EXTRA.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("row", _extra_rows(), ids=lambda r: f"{r['accelerator']}.{r['field']}")
def test_every_curated_cell_is_in_the_catalog_with_its_source(catalog: Catalog, row: dict[str, str]) -> None:
    assert row["source"].strip(), "a curated spec cell without a source"
    acc = catalog.accelerator(row["accelerator"])
    value = getattr(acc, row["field"])
    if row["field"] in _NUMERIC:
        assert value == float(row["value"])
    else:
        assert value == row["value"]
    assert f"{row['field']}: {row['source']}" in acc.source


def test_mi300x_infinity_fabric_bandwidth_is_sourced(catalog: Catalog) -> None:
    mi300x = catalog.accelerator("MI300X")
    assert (mi300x.interconnect, mi300x.interconnect_gbps) == ("Infinity Fabric", 896.0)
    assert "interconnect_gbps: https://www.wheelersnetwork.com/2024/01/" in mi300x.source


def test_most_offered_workstation_gpus_are_now_sizable(catalog: Catalog) -> None:
    # The three fields the performance model needs (perf._hardware.hardware_of).
    for acc_id in ("RTXA6000", "L40", "RTX4000-Ada", "RTXA4000", "RTXA4500", "RTX6000-Ada", "A100-40GB-PCIe"):
        acc = catalog.accelerator(acc_id)
        assert acc.memory_gb and acc.memory_bw_gbps and acc.bf16_tflops, acc_id
