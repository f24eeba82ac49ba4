"""Canonical accelerator ids: specs from accelerators.csv, aliases, and raw-name resolution.

Every price file names its GPUs its own way ("H100", "H100-SXM", "A100_PCIE"). The builder maps each
raw name to one canonical id (``H100-SXM``, ``A100-80GB-PCIe``, ``TPU-v5e``...). The mapping is data:
``accelerator-ids.csv`` lists the ids with their aliases and the accelerators.csv row that holds their
specs; ``accelerator-overrides.csv`` sends one provider's raw name to another variant when the instance
type says so (Lambda ``gpu_1x_h100_pcie`` -> ``H100-PCIe``), each with its reason.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import CatalogError
from ._sources import MarketData, Row, number
from ._types import accelerator_key

__all__ = ["AcceleratorResolver", "build_accelerators"]

# accelerators.csv column -> catalog field (numbers)
_SPEC_NUMBERS = {
    "memory_gb": "memory_gb",
    "memory_bw_gbps": "memory_bw_gbps",
    "bf16_fp16_dense_tflops": "bf16_tflops",
    "fp8_dense_tflops": "fp8_tflops",
    "fp32_tflops": "fp32_tflops",
    "interconnect_gbps_per_gpu": "interconnect_gbps",
    "tdp_w": "tdp_w",
}
_EXTRA_NUMBERS = {*_SPEC_NUMBERS.values(), "fp4_tflops", "int8_tops"}
_EXTRA_TEXT = {"interconnect", "form_factor", "vendor", "architecture"}


def build_accelerators(data: MarketData) -> list[dict[str, Any]]:
    """One record per canonical id, specs merged from accelerators.csv and accelerators-extra.csv."""
    specs = {row["accelerator"]: row for row in data.rows("accelerators.csv")}
    records = {row["id"]: _record(row, specs) for row in data.rows("accelerator-ids.csv")}
    for extra in data.rows("accelerators-extra.csv"):
        _apply_extra(records, extra)
    return [records[key] for key in sorted(records)]


def _record(row: Row, specs: dict[str, Row]) -> dict[str, Any]:
    spec = specs.get(row["spec_row"], {}) if row["spec_row"] else {}
    if row["spec_row"] and not spec:
        raise CatalogError(
            f"accelerator-ids.csv: {row['id']} takes its specs from accelerators.csv row "
            f"{row['spec_row']!r}, which does not exist. To fix: correct the spec_row column."
        )
    aliases = {a.strip() for a in row["aliases"].split(";") if a.strip()}
    if row["spec_row"] and row["spec_row"] != row["id"]:
        aliases.add(row["spec_row"])
    record: dict[str, Any] = {
        "id": row["id"],
        "vendor": row["vendor"] or spec.get("vendor", ""),
        "architecture": row["architecture"] or spec.get("architecture", ""),
        "form_factor": spec.get("variant_assumed", ""),
        "interconnect": spec.get("interconnect_type") or None,
        "aliases": sorted(aliases - {row["id"]}, key=str.lower),
        "source": spec.get("source", ""),
        "notes": spec.get("notes", ""),
        "fp4_tflops": None,
        "int8_tops": None,
    }
    for column, field in _SPEC_NUMBERS.items():
        record[field] = number(spec.get(column, ""))
    return record


def _apply_extra(records: dict[str, dict[str, Any]], extra: Row) -> None:
    record = records.get(extra["accelerator"])
    field = extra["field"]
    if record is None or field not in _EXTRA_NUMBERS | _EXTRA_TEXT:
        raise CatalogError(
            f"accelerators-extra.csv: unknown accelerator {extra['accelerator']!r} or field {field!r}. "
            "To fix: use an id of accelerator-ids.csv and a catalog field name."
        )
    record[field] = number(extra["value"]) if field in _EXTRA_NUMBERS else extra["value"]
    cite = f"{field}: {extra['source']}" + (f" ({extra['note']})" if extra["note"] else "")
    record["source"] = "; ".join(s for s in (record["source"], cite) if s)


class AcceleratorResolver:
    """Maps a provider's raw accelerator name (and instance type) to a canonical id."""

    def __init__(self, data: MarketData) -> None:
        self._by_key: dict[str, str] = {}
        for row in data.rows("accelerator-ids.csv"):
            names = [row["id"], row["spec_row"], *row["aliases"].split(";")]
            for name in filter(None, (n.strip() for n in names)):
                self._add(accelerator_key(name), row["id"])
        self._overrides = data.rows("accelerator-overrides.csv")

    def _add(self, key: str, canonical: str) -> None:
        if self._by_key.setdefault(key, canonical) != canonical:
            raise CatalogError(
                f"accelerator-ids.csv: alias key {key!r} names both {self._by_key[key]} and {canonical}. "
                "To fix: keep each alias on one id only."
            )

    def resolve(self, provider: str, instance_type: str, raw_name: str) -> tuple[str, str]:
        """``(canonical id, reason)``; the reason is "" unless an override applied."""
        for row in self._overrides:
            if (
                row["provider"] == provider
                and row["raw_accelerator"] == raw_name
                and re.fullmatch(row["instance_type_regex"], instance_type)
            ):
                return row["accelerator"], row["reason"]
        canonical = self._by_key.get(accelerator_key(raw_name))
        if canonical is None:
            raise CatalogError(
                f"{provider} {instance_type}: accelerator name {raw_name!r} is not in accelerator-ids.csv. "
                "To fix: add it as an alias of a canonical id (or a new id) there."
            )
        return canonical, ""
