"""A corrupt catalog fails loudly: CatalogError with the JSON path of the problem, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from computeops_cdk.catalog import load_catalog
from computeops_cdk.catalog._build import canonical_json, content_sha256
from computeops_cdk.errors import CatalogError


@pytest.fixture
def embedded_doc() -> dict[str, Any]:
    """A fresh, mutable copy of the embedded catalog document."""
    from computeops_cdk.catalog._load import EMBEDDED_CATALOG

    doc: dict[str, Any] = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    return doc


FIX = "To fix: rebuild it with `computeops catalog build` or restore the file."


def _write(tmp_path: Path, doc: dict[str, Any], *, reseal: bool = True) -> Path:
    if reseal:  # keep the digest right so the check under test is the one that fires
        doc["sha256"] = content_sha256(doc)
    path = tmp_path / "catalog.json"
    path.write_text(canonical_json(doc), encoding="utf-8")
    return path


def _error(path: Path) -> CatalogError:
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    return info.value


def test_negative_price_names_the_json_path(tmp_path: Path, embedded_doc: dict[str, Any]) -> None:
    embedded_doc["offers"][12]["hourly_usd"] = -3
    err = _error(_write(tmp_path, embedded_doc))
    assert str(err) == f"$.offers[12].hourly_usd: -3 is less than the minimum of 0. {FIX}"
    assert err.path == "$.offers[12].hourly_usd"


def test_zero_price_is_not_a_price(tmp_path: Path, embedded_doc: dict[str, Any]) -> None:
    embedded_doc["offers"][3]["hourly_usd"] = 0
    err = _error(_write(tmp_path, embedded_doc))
    assert (
        str(err) == f"$.offers[3].hourly_usd: 0 is not a price (an unknown price is null, never zero). {FIX}"
    )


def test_missing_field(tmp_path: Path, embedded_doc: dict[str, Any]) -> None:
    del embedded_doc["instance_types"][5]["accelerator_count"]
    err = _error(_write(tmp_path, embedded_doc))
    assert str(err) == f"$.instance_types[5]: 'accelerator_count' is a required property. {FIX}"


def test_unknown_price_model(tmp_path: Path, embedded_doc: dict[str, Any]) -> None:
    embedded_doc["offers"][0]["pricing"] = "savings_plan"
    err = _error(_write(tmp_path, embedded_doc))
    assert str(err).startswith(
        "$.offers[0].pricing: 'savings_plan' is not one of ['on_demand', 'spot', 'reserved']"
    )


def test_offer_pointing_at_unknown_instance_type(tmp_path: Path, embedded_doc: dict[str, Any]) -> None:
    offer = embedded_doc["offers"][7]
    offer["instance_type"] = "p9.mega"
    err = _error(_write(tmp_path, embedded_doc))
    assert (
        str(err)
        == f"$.offers[7].instance_type: 'p9.mega' is not an instance type of {offer['provider']}. {FIX}"
    )


def test_offer_pointing_at_unknown_region(tmp_path: Path, embedded_doc: dict[str, Any]) -> None:
    offer = embedded_doc["offers"][7]
    offer["region"] = "mars-north-1"
    err = _error(_write(tmp_path, embedded_doc))
    assert str(err) == f"$.offers[7].region: 'mars-north-1' is not a region of {offer['provider']}. {FIX}"


def test_instance_type_pointing_at_unknown_accelerator(tmp_path: Path, embedded_doc: dict[str, Any]) -> None:
    embedded_doc["instance_types"][0]["accelerator"] = "H900"
    err = _error(_write(tmp_path, embedded_doc))
    assert str(err) == f"$.instance_types[0].accelerator: 'H900' is not an accelerator id. {FIX}"


def test_duplicate_offer(tmp_path: Path, embedded_doc: dict[str, Any]) -> None:
    embedded_doc["offers"].insert(1, dict(embedded_doc["offers"][0]))
    err = _error(_write(tmp_path, embedded_doc))
    assert err.path == "$.offers[1]"
    assert "duplicate entry" in str(err)


def test_hand_edited_content_fails_the_digest(tmp_path: Path, embedded_doc: dict[str, Any]) -> None:
    embedded_doc["offers"][0]["hourly_usd"] = 0.01
    err = _error(_write(tmp_path, embedded_doc, reseal=False))
    assert err.path == "$.sha256"
    assert "does not match the content digest" in str(err)


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "catalog.json"
    path.write_text('{"version": ', encoding="utf-8")
    err = _error(path)
    assert str(err).startswith(f"$: catalog file {str(path)!r} is not valid JSON (Expecting value at line 1")


def test_missing_file(tmp_path: Path) -> None:
    err = _error(tmp_path / "nope.json")
    assert "does not exist" in str(err)
    assert "To fix:" in str(err)


def test_a_directory_is_not_a_catalog(tmp_path: Path) -> None:
    err = _error(tmp_path)
    assert str(err) == (
        f"catalog file {str(tmp_path)!r} is a directory. To fix: pass the catalog JSON file itself."
    )


def test_a_binary_file_is_not_a_catalog(tmp_path: Path) -> None:
    path = tmp_path / "catalog.json"
    path.write_bytes(b"\x88\xff\x00garbage")
    err = _error(path)
    assert str(err).startswith(f"catalog file {str(path)!r} cannot be read ('utf-8' codec can't decode")
    assert "To fix: pass a catalog JSON file" in str(err)


def test_a_valid_user_file_loads(tmp_path: Path, embedded_doc: dict[str, Any]) -> None:
    path = tmp_path / "copy.json"
    path.write_text(json.dumps(embedded_doc), encoding="utf-8")
    assert load_catalog(path).sha256 == embedded_doc["sha256"]


def test_a_path_of_the_wrong_type_is_a_catalog_error() -> None:
    # was a TypeError from pathlib
    with pytest.raises(CatalogError) as caught:
        load_catalog(42)  # type: ignore[arg-type]
    assert str(caught.value).endswith(
        "catalog path must be a str or os.PathLike (got int). "
        "To fix: pass the catalog JSON file's path, or omit it to use the embedded catalog."
    )
