"""The embedded catalog's packed form (catalog/_packed.py, catalog.packed.json): the shipped file is
current, it loads the records catalog.json gives, and a stale, foreign or damaged one is never used."""

from __future__ import annotations

import hashlib
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
    MAX_CATALOG_BYTES,
    PACKED_CATALOG,
    _from_packed,
    catalog_from_document,
    read_document,
)
from computeops_cdk.catalog._packed import (
    PACKED_FORMAT,
    file_sha256,
    pack_catalog,
    packed_path,
    unpack_catalog,
)
from computeops_cdk.errors import CatalogError


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
        file_sha256(catalog, limit=MAX_CATALOG_BYTES)
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
    assert file_sha256(EMBEDDED_CATALOG, limit=MAX_CATALOG_BYTES) == (
        head["catalog_sha256"],
        EMBEDDED_CATALOG.stat().st_size,
    )
    assert set(head) == {"format", "catalog_sha256", "payload_sha256"}


# Review of the packed path (D1): a payload whose digest was recomputed is still only used when it is
# a layout pack_catalog writes, checked before anything is expanded.


def _rebodied(packed: str, change: Any) -> str:
    """``packed`` with its whole payload (document and offers) changed by ``change`` and its payload
    digest made to match (NaN written as JSON's NaN, as ``json`` reads it)."""
    import hashlib

    head, payload = packed.rstrip("\n").split("\n", 1)
    body = json.loads(payload)
    change(body)
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    header = dict(json.loads(head), payload_sha256=hashlib.sha256(text.encode()).hexdigest())
    return json.dumps(header, sort_keys=True) + "\n" + text + "\n"


def _column(body: dict[str, Any], name: str) -> list[Any]:
    offers = body["offers"]
    column: list[Any] = offers["columns"][offers["fields"].index(name)]
    return column


def _set(name: str, at: int, value: Any) -> Any:
    return lambda body: _column(body, name).__setitem__(at, value)


def _split_last_run(name: str, extra: Any) -> Any:
    """The field's last run one shorter, followed by a run of the same value of length ``extra``."""

    def change(body: dict[str, Any]) -> None:
        column = _column(body, name)
        column[-1] -= 1
        column += [column[-2], extra]

    return change


def _relabel(name: str, kind: str) -> Any:
    def change(body: dict[str, Any]) -> None:
        offers = body["offers"]
        offers["kinds"][offers["fields"].index(name)] = kind

    return change


_FORGED = {
    "a run length of 2**62": _set("capacity", 1, 2**62),
    "a run of length True": _split_last_run("capacity", True),  # [x] * True is [x]
    "a negative run length": lambda body: (
        _column(body, "capacity").extend([None, -1, None, 1]) or _split_last_run("capacity", 0)(body)
    ),  # one shorter, -1, then 1 more: the count before
    "a string index of -1": _set("region", 0, -1),  # the last string
    "a string index of True": _set("region", 0, True),  # the second string
    "a string index of 1.0": _set("region", 0, 1.0),
    "a negative price": _set("hourly_usd", 0, -1.5),
    "a price of True": _set("hourly_usd", 0, True),
    "a NaN price": _set("hourly_usd", 0, float("nan")),
    "an infinite price": _set("hourly_usd", 0, float("inf")),
    "a price as a string": _set("hourly_usd", 0, "1.5"),
    "a price as a list": _set("hourly_usd", 0, [1.5]),
    "a region column relabelled as values": _relabel("region", "v"),
    "a provider column relabelled as values": _relabel("provider", "vr"),
    "a price model not in the schema": lambda body: body["offers"]["strings"].__setitem__(
        body["offers"]["strings"].index("spot"), "free"
    ),
    "a string table holding a number": lambda body: body["offers"]["strings"].append(7),
    "a count of True": lambda body: body["offers"].update(count=True),
    "an integer version": lambda body: body["document"].update(version=2026),
    "regions as an object": lambda body: body["document"].update(regions={}),
    "a document key more": lambda body: body["document"].update(extra=1),
    "a payload key more": lambda body: body.update(extra=1),
    "a region with an unknown field": lambda body: body["document"]["regions"][0].update(colour="red"),
    "a region without its code": lambda body: body["document"]["regions"][0].pop("code"),
}


@pytest.mark.parametrize("what", sorted(_FORGED))
def test_a_forged_payload_with_its_digest_recomputed_is_not_used(tmp_path: Path, what: str) -> None:
    packed = pack_catalog(_text())
    assert packed is not None
    assert _from_packed(*_pair(tmp_path, _text(), packed)) is not None  # the same file unforged is used
    assert _from_packed(*_pair(tmp_path, _text(), _rebodied(packed, _FORGED[what]))) is None


def test_a_huge_run_is_refused_before_it_is_expanded() -> None:
    """A run of 10**7 in the capacity column (10**8 took 1.58 GB before): refused on its sum, so
    unpacking allocates no more than a rejected packed file's parse does."""
    import tracemalloc

    text = _text()
    packed = pack_catalog(text)
    assert packed is not None
    forged = _rebodied(packed, _set("capacity", 1, 10**7)).encode()
    digest = hashlib.sha256(text.encode()).hexdigest()
    tracemalloc.start()
    try:
        found = unpack_catalog(digest, forged, lambda doc, offers: offers, catalog_bytes=len(text))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found is None
    assert peak < 20 * 2**20  # 10**7 list slots alone are 76 MiB


def test_a_catalog_json_over_the_limit_is_refused_by_its_size_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """D2: a (sparse) catalog.json over the 64 MiB limit is refused on its size, not hashed first
    (2 GiB took 9.5 s before the same CatalogError)."""
    import hashlib

    packed = pack_catalog(_text())
    assert packed is not None
    catalog, packed_file = _pair(tmp_path, _text(), packed)
    with catalog.open("r+b") as handle:
        handle.truncate(MAX_CATALOG_BYTES + 1)

    def unwanted(*args: object, **kwargs: object) -> None:
        raise AssertionError("a file over the limit was hashed")

    monkeypatch.setattr(hashlib, "file_digest", unwanted)
    assert _from_packed(catalog, packed_file) is None
    with pytest.raises(OSError, match="over the 67,108,864 limit"):
        file_sha256(catalog, limit=MAX_CATALOG_BYTES)
    with pytest.raises(CatalogError, match="over the 64 MiB limit"):
        read_document(catalog, strict=False)


def test_building_through_a_link_to_the_embedded_catalog_writes_the_packed_file_beside_it(
    tmp_path: Path,
) -> None:
    """D5: `catalog build --output link.json`, link.json a link to the package's catalog.json (what
    check_output_target supports on purpose): the packed file goes beside catalog.json, where the
    loader reads it, not beside the link."""
    from computeops_cdk.catalog._build import write_texts_atomic

    text = _text()
    embedded = tmp_path / "pkg" / "catalog.json"
    embedded.parent.mkdir()
    embedded.write_text("{}", encoding="utf-8")
    link = tmp_path / "work" / "link.json"
    link.parent.mkdir()
    link.symlink_to(embedded)
    files = catalog_files(link, text, embedded=embedded)
    assert files == {link: text, packed_path(embedded): pack_catalog(text)}
    write_texts_atomic(files)
    assert link.is_symlink()
    assert embedded.read_text(encoding="utf-8") == text
    assert packed_path(embedded).read_text(encoding="utf-8") == pack_catalog(text)
    assert sorted(p.name for p in link.parent.iterdir()) == ["link.json"]
    assert _from_packed(embedded, packed_path(embedded)) is not None
