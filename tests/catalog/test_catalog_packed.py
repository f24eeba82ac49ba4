"""The embedded catalog's packed form (catalog/_packed.py, catalog.packed.json): the shipped file is
current, it loads the records catalog.json gives, and a stale, foreign or damaged one is never used."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from computeops_cdk.catalog import load_catalog
from computeops_cdk.catalog._build import DEFAULT_OUTPUT, catalog_files, write_catalog
from computeops_cdk.catalog._load import (
    EMBEDDED_CATALOG,
    PACKED_CATALOG,
    _from_packed,
    catalog_from_document,
)
from computeops_cdk.catalog._packed import PACKED_FORMAT, file_sha256, pack_catalog, packed_path


def _text() -> str:
    return EMBEDDED_CATALOG.read_text(encoding="utf-8")


def test_the_shipped_packed_file_is_the_packed_form_of_the_shipped_catalog() -> None:
    """Fails when catalog.json changed without `make catalog` (computeops catalog build) rewriting
    both: the packed file would be ignored (correct, but the cold start parses the JSON again)."""
    assert (
        PACKED_CATALOG == packed_path(EMBEDDED_CATALOG) == EMBEDDED_CATALOG.with_name("catalog.packed.json")
    )
    assert PACKED_CATALOG.read_text(encoding="utf-8") == pack_catalog(_text())


def test_packing_is_deterministic() -> None:
    assert pack_catalog(_text()) == pack_catalog(_text())


def test_the_embedded_catalog_is_read_from_the_packed_file_with_the_same_records() -> None:
    packed = _from_packed()
    assert packed is not None  # the shipped pair is used
    parsed = catalog_from_document(json.loads(_text()))
    assert packed == parsed
    assert repr(packed) == repr(parsed)
    for ours, theirs in zip(packed.offers, parsed.offers, strict=True):
        for name in ours.__slots__:
            assert type(getattr(ours, name)) is type(getattr(theirs, name))
    assert load_catalog() == parsed


def _pair(tmp_path: Path, catalog_text: str, packed_text: str | bytes) -> tuple[Path, Path]:
    catalog, packed = tmp_path / "catalog.json", tmp_path / "catalog.packed.json"
    catalog.write_text(catalog_text, encoding="utf-8")
    if isinstance(packed_text, bytes):
        packed.write_bytes(packed_text)
    else:
        packed.write_text(packed_text, encoding="utf-8")
    return catalog, packed


def _repriced(text: str) -> str:
    doc = json.loads(text)
    doc["offers"][7]["hourly_usd"] = doc["offers"][7]["hourly_usd"] + 1.0
    return json.dumps(doc, sort_keys=True)


def test_a_copy_of_the_shipped_pair_is_used(tmp_path: Path) -> None:
    packed = pack_catalog(_text())
    assert packed is not None
    assert _from_packed(*_pair(tmp_path, _text(), packed)) == load_catalog()


def test_a_stale_packed_file_is_not_used(tmp_path: Path) -> None:
    """catalog.json edited (one price) after the packed file was written: its digest no longer
    matches, so the packed offers (with the old price) are never read."""
    packed = pack_catalog(_text())
    assert packed is not None
    assert _from_packed(*_pair(tmp_path, _repriced(_text()), packed)) is None


def test_a_packed_file_of_another_catalog_is_not_used(tmp_path: Path) -> None:
    foreign = pack_catalog(_repriced(_text()))
    assert foreign is not None
    assert _from_packed(*_pair(tmp_path, _text(), foreign)) is None


def _damaged(packed: str) -> list[str | bytes]:
    head, payload = packed.split("\n", 1)
    header = json.loads(head)
    at = payload.index('"hourly_usd"') + len('"hourly_usd"')  # a field name in the payload
    forged = dict(header, format="computeops-packed-catalog/0")
    return [
        "",
        b"\xff\xfe not json",
        head + "\n",  # no payload
        packed[: len(packed) // 2],  # truncated
        head + "\n" + payload[:at] + "X" + payload[at + 1 :],  # one byte changed, digest kept
        json.dumps(forged, sort_keys=True) + "\n" + payload,  # another format
        "[1, 2]\n" + payload,
        _signed(header, "[" * 100_000 + "]" * 100_000),  # digests right, nested too deeply for json
    ]


def _signed(header: dict[str, Any], payload: str) -> str:
    import hashlib

    digest = hashlib.sha256(payload.encode()).hexdigest()
    return json.dumps(dict(header, payload_sha256=digest), sort_keys=True) + "\n" + payload + "\n"


@pytest.mark.parametrize("case", range(8))
def test_a_damaged_packed_file_is_not_used(tmp_path: Path, case: int) -> None:
    packed = pack_catalog(_text())
    assert packed is not None
    assert _from_packed(*_pair(tmp_path, _text(), _damaged(packed)[case])) is None


def _repacked(packed: str, change: Any) -> str:
    """``packed`` with its payload changed by ``change`` and its payload digest made to match it
    (a packed file of a layout this code does not read)."""
    import hashlib

    head, payload = packed.rstrip("\n").split("\n", 1)
    body = json.loads(payload)
    change(body["offers"])
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    header = dict(json.loads(head), payload_sha256=hashlib.sha256(text.encode()).hexdigest())
    return json.dumps(header, sort_keys=True) + "\n" + text + "\n"


@pytest.mark.parametrize(
    "change",
    [
        lambda o: o["fields"].reverse(),  # fields of another Offer
        lambda o: o["fields"].pop(),
        lambda o: o["columns"][0].pop(),  # a column shorter than the count
        lambda o: o.update(count=o["count"] + 1),
        lambda o: o["kinds"].__setitem__(0, "z"),  # an unknown column kind
        lambda o: o["strings"].clear(),  # indexes pointing nowhere
    ],
)
def test_a_packed_file_of_another_layout_is_not_used(tmp_path: Path, change: Any) -> None:
    packed = pack_catalog(_text())
    assert packed is not None
    assert _from_packed(*_pair(tmp_path, _text(), _repacked(packed, change))) is None


def test_without_a_packed_file_the_catalog_json_is_read(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.json"
    shutil.copy(EMBEDDED_CATALOG, catalog)
    assert _from_packed(catalog, tmp_path / "catalog.packed.json") is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_place_of_the_catalog_does_not_block(tmp_path: Path) -> None:
    packed = pack_catalog(_text())
    assert packed is not None
    catalog, packed_file = tmp_path / "catalog.json", tmp_path / "catalog.packed.json"
    os.mkfifo(catalog)
    packed_file.write_text(packed, encoding="utf-8")
    with pytest.raises(OSError, match="not a regular file"):
        file_sha256(catalog)
    assert _from_packed(catalog, packed_file) is None


def test_writing_the_embedded_catalog_writes_its_packed_form_and_no_other_catalog_does(
    tmp_path: Path,
) -> None:
    text = _text()
    embedded = tmp_path / "pkg" / "catalog.json"
    files = catalog_files(embedded, text, embedded=embedded)
    assert files == {embedded: text, packed_path(embedded): pack_catalog(text)}
    assert catalog_files(tmp_path / "mine.json", text) == {tmp_path / "mine.json": text}
    assert set(catalog_files(DEFAULT_OUTPUT, text)) == {DEFAULT_OUTPUT, PACKED_CATALOG}
    write_catalog(json.loads(text), tmp_path / "catalog.json")  # a user's catalog: no packed file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalog.json"]


def test_the_header_names_the_format_and_both_digests() -> None:
    head = json.loads(PACKED_CATALOG.read_text(encoding="utf-8").split("\n", 1)[0])
    assert head["format"] == PACKED_FORMAT
    assert head["catalog_sha256"] == file_sha256(EMBEDDED_CATALOG)
    assert set(head) == {"format", "catalog_sha256", "payload_sha256"}
