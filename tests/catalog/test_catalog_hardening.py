"""Hostile catalogs (issue 10, sections 1 and 2): every one is a CatalogError naming the JSON path,
never a traceback, never live Terraform, never an answer that depends on record order."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from computeops_cdk.catalog import load_catalog
from computeops_cdk.catalog._build import canonical_json, content_sha256
from computeops_cdk.cli import main as cli_main
from computeops_cdk.errors import CatalogError

INJECTION = 'us-east-1${file("/etc/passwd")}'


@pytest.fixture
def doc() -> dict[str, Any]:
    from computeops_cdk.catalog._load import EMBEDDED_CATALOG

    loaded: dict[str, Any] = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    return loaded


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    doc["sha256"] = content_sha256(doc)  # the digest is right: the check under test must fire
    path = tmp_path / "catalog.json"
    path.write_text(canonical_json(doc), encoding="utf-8")
    return path


def _error(path: Path) -> CatalogError:
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    assert len(str(info.value)) < 600, "an echoed value must be cut"
    return info.value


def _index(doc: dict[str, Any], section: str, **match: Any) -> int:
    return next(i for i, r in enumerate(doc[section]) if all(r[k] == v for k, v in match.items()))


# -- 1. identifiers that would become Terraform ----------------------------------------------------


def _rename_lambda_region(doc: dict[str, Any], new: str) -> str:
    """Rename a lambda region and its offers (as a hand-edited or hostile feed would); the first path."""
    i = _index(doc, "regions", provider="lambda")
    old = doc["regions"][i]["code"]
    doc["regions"][i]["code"] = new
    offers = [j for j, o in enumerate(doc["offers"]) if o["provider"] == "lambda" and o["region"] == old]
    for j in offers:
        doc["offers"][j]["region"] = new
    return f"$.offers[{offers[0]}].region"  # keys in document order: offers come before regions


def test_the_reproducer_region_is_refused_at_load(tmp_path: Path, doc: dict[str, Any]) -> None:
    first = _rename_lambda_region(doc, INJECTION)
    err = _error(_write(tmp_path, doc))
    assert err.path == first
    assert "is not a valid region code (letters, digits and '-'" in str(err) and "To fix" in str(err)


def test_catalog_validate_refuses_the_reproducer(
    tmp_path: Path, doc: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    first = _rename_lambda_region(doc, INJECTION)
    assert cli_main(["catalog", "validate", str(_write(tmp_path, doc))]) == 2
    err = capsys.readouterr().err
    assert f"{first}: " in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("section", "field", "value"),
    [
        ("instance_types", "name", "gpu_1x_a10%{ if true }x%{ endif }"),
        ("instance_types", "name", "gpu_1x_a10\x00"),
        ("instance_types", "name", "gpu_1x_a10\n"),
        ("instance_types", "accelerator", "A10${path.module}"),
        ("offers", "region", "us-east-1 ; rm -rf"),
        ("offers", "instance_type", 'p5"}}'),
        ("regions", "code", "x" * 200),
    ],
)
def test_identifiers_must_match_strict_patterns(
    tmp_path: Path, doc: dict[str, Any], section: str, field: str, value: str
) -> None:
    doc[section][0][field] = value
    err = _error(_write(tmp_path, doc))
    assert err.path == f"$.{section}[0].{field}"


def test_an_alias_with_template_syntax_is_refused(tmp_path: Path, doc: dict[str, Any]) -> None:
    doc["accelerators"][0]["aliases"] = ["${jsonencode(var)}"]
    assert _error(_write(tmp_path, doc)).path == "$.accelerators[0].aliases[0]"


def test_an_attestation_region_is_an_identifier_too(tmp_path: Path, doc: dict[str, Any]) -> None:
    i = next(i for i, p in enumerate(doc["providers"]) if any(a["regions"] for a in p["attestations"]))
    j = next(j for j, a in enumerate(doc["providers"][i]["attestations"]) if a["regions"])
    doc["providers"][i]["attestations"][j]["regions"][0] = "us-east-1${x}"
    assert _error(_write(tmp_path, doc)).path == f"$.providers[{i}].attestations[{j}].regions[0]"


# -- 2. numbers, dates, nesting, duplicates ------------------------------------------------------


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_finite_numbers_name_their_path(tmp_path: Path, doc: dict[str, Any], literal: str) -> None:
    doc["offers"][3]["hourly_usd"] = 12345.678
    path = _write(tmp_path, doc)
    path.write_text(path.read_text().replace("12345.678", literal, 1))
    err = _error(path)
    assert err.path == "$.offers[3].hourly_usd"
    assert "finite" in str(err)


def test_deep_nesting_is_an_error_not_a_recursion_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    assert _error(path).path == "$"


def test_nesting_inside_a_field_names_the_field(tmp_path: Path, doc: dict[str, Any]) -> None:
    nested: Any = "x"
    for _ in range(500):
        nested = [nested]
    doc["offers"][2]["source"] = nested
    assert _error(_write(tmp_path, doc)).path == "$.offers[2].source"


@pytest.mark.parametrize(
    ("where", "set_value"),
    [
        ("$.as_of", lambda d: d.__setitem__("as_of", "2026-02-30")),
        ("$.offers[5].as_of", lambda d: d["offers"][5].__setitem__("as_of", "2026-13-01")),
        ("$.version", lambda d: d.__setitem__("version", "2026.02.30")),
    ],
)
def test_impossible_dates(tmp_path: Path, doc: dict[str, Any], where: str, set_value: Any) -> None:
    set_value(doc)
    err = _error(_write(tmp_path, doc))
    assert err.path == where and "date" in str(err)


def test_a_price_of_a_billionth_of_a_dollar_is_refused(tmp_path: Path, doc: dict[str, Any]) -> None:
    doc["offers"][4]["hourly_usd"] = 1e-9
    err = _error(_write(tmp_path, doc))
    assert err.path == "$.offers[4].hourly_usd" and "USD" in str(err)


def test_a_price_of_a_million_dollars_an_hour_per_gpu_is_refused(tmp_path: Path, doc: dict[str, Any]) -> None:
    doc["offers"][4]["hourly_usd"] = 5e8
    assert _error(_write(tmp_path, doc)).path == "$.offers[4].hourly_usd"


@pytest.mark.parametrize(
    ("section", "field", "value"),
    [
        ("instance_types", "accelerator_count", 1_000_000),
        ("instance_types", "vcpus", 1e7),
        ("instance_types", "ram_gb", 1e9),
        ("accelerators", "memory_gb", 1e6),
        ("accelerators", "bf16_tflops", 1e9),
        ("accelerators", "memory_gb", 0),
    ],
)
def test_values_outside_physical_ranges(
    tmp_path: Path, doc: dict[str, Any], section: str, field: str, value: float
) -> None:
    doc[section][1][field] = value
    assert _error(_write(tmp_path, doc)).path == f"$.{section}[1].{field}"


def test_a_huge_integer_is_refused(tmp_path: Path, doc: dict[str, Any]) -> None:
    doc["instance_types"][1]["accelerator_count"] = 777_777
    path = _write(tmp_path, doc)
    path.write_text(path.read_text().replace("777777", "1" + "0" * 5000, 1))  # past int("...")'s limit
    err = _error(path)
    assert err.path == "$.instance_types[1].accelerator_count" and "5,001 digits" in str(err)


def test_an_integer_of_309_zeros_is_refused(tmp_path: Path, doc: dict[str, Any]) -> None:
    doc["instance_types"][1]["accelerator_count"] = 10**309
    assert _error(_write(tmp_path, doc)).path == "$.instance_types[1].accelerator_count"


def test_duplicate_provider_entries(tmp_path: Path, doc: dict[str, Any]) -> None:
    doc["providers"].append(dict(doc["providers"][0]))
    err = _error(_write(tmp_path, doc))
    assert err.path == f"$.providers[{len(doc['providers']) - 1}]" and "duplicate" in str(err)


def test_duplicate_json_keys(tmp_path: Path, doc: dict[str, Any]) -> None:
    path = _write(tmp_path, doc)
    lines = path.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if '"hourly_usd"' in line and '"offers"' not in line)
    lines[i] = lines[i].replace('"hourly_usd":', '"hourly_usd":1.0,"hourly_usd":', 1)
    path.write_text("\n".join(lines) + "\n")
    err = _error(path)
    offer = i - next(j for j, line in enumerate(lines) if line.startswith('"offers"')) - 1
    assert err.path == f"$.offers[{offer}]" and "duplicate key 'hourly_usd'" in str(err)


def test_an_alias_shared_by_two_accelerators(tmp_path: Path, doc: dict[str, Any]) -> None:
    first = doc["accelerators"][0]
    doc["accelerators"][5]["aliases"] = sorted([*doc["accelerators"][5]["aliases"], first["id"].lower()])
    err = _error(_write(tmp_path, doc))
    assert err.path.startswith("$.accelerators[5].aliases")
    assert first["id"] in str(err)


def test_the_digest_and_the_answer_do_not_depend_on_record_order(tmp_path: Path, doc: dict[str, Any]) -> None:
    original = load_catalog()
    assert content_sha256(doc) == doc["sha256"], "the embedded digest is unchanged"
    for section in ("providers", "regions", "accelerators", "instance_types", "offers"):
        doc[section].reverse()
    path = tmp_path / "shuffled.json"
    path.write_text(json.dumps(doc))  # the original sha256, records reversed
    shuffled = load_catalog(path)
    assert shuffled.sha256 == original.sha256
    assert shuffled.offers == original.offers and shuffled.providers == original.providers


# -- files ---------------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "catalog.json"
    os.mkfifo(fifo)
    assert "not a regular file" in str(_error(fifo))


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_dev_zero_is_refused() -> None:
    assert "not a regular file" in str(_error(Path("/dev/zero")))


def test_a_path_with_a_nul_byte_is_a_catalog_error() -> None:
    with pytest.raises(CatalogError, match="NUL"):
        load_catalog("catalog\x00.json")


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    from computeops_cdk.catalog._load import MAX_CATALOG_BYTES

    path = tmp_path / "big.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_CATALOG_BYTES + 1)  # sparse: no disk used
    assert "MiB" in str(_error(path))
