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
    _CODE_BASE,
    PACKED_FORMAT,
    _expanded,
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


def _code(name: str, at: int, code: int) -> Any:
    """The coded column of field ``name`` with its character ``at`` made ``chr(code)``."""

    def change(body: dict[str, Any]) -> None:
        column = _column(body, name)
        column[1] = column[1][:at] + chr(code) + column[1][at + 1 :]

    return change


def _price(at: int, value: Any) -> Any:
    """The price column's table with its value ``at`` made ``value``."""
    return lambda body: _column(body, "hourly_usd")[0].__setitem__(at, value)


def _shorter(name: str) -> Any:
    """The coded column of field ``name`` one character short."""
    return lambda body: _column(body, name).__setitem__(1, _column(body, name)[1][:-1])


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
    "a string index of -1": _set("provider", 0, -1),  # the last string
    "a string index of True": _set("provider", 0, True),  # the second string
    "a string index of 1.0": _set("provider", 0, 1.0),
    "a code below the region table": _code("region", 0, _CODE_BASE - 1),  # the place -1
    "a code past the region table": _code("region", 5, _CODE_BASE + 10_000),
    "a code past the price table": _code("hourly_usd", 9, _CODE_BASE + 10_000),
    "a code above the BMP": _code("hourly_usd", 9, 0x1F600),  # one character, two code units
    "a coded column one short": _shorter("pricing"),
    "a price table that is a number": lambda body: _column(body, "hourly_usd").__setitem__(0, 1.5),
    "a coded column of three parts": lambda body: _column(body, "hourly_usd").append([]),
    "a coded column as a list": lambda body: _column(body, "region").__setitem__(1, [256, 257]),
    "a price model not in the schema, in its table": lambda body: _column(body, "pricing")[0].append("free"),
    "a negative price": _price(0, -1.5),
    "a price of True": _price(0, True),
    "a NaN price": _price(0, float("nan")),
    "an infinite price": _price(0, float("inf")),
    "a price as a string": _price(0, "1.5"),
    "a price as a list": _price(0, [1.5]),
    "a region column relabelled as values": _relabel("region", "v"),
    "a region column relabelled as runs": _relabel("region", "vr"),
    "a provider column relabelled as coded": _relabel("provider", "t"),
    "a provider column relabelled as values": _relabel("provider", "vr"),
    "a price model not in the schema": lambda body: _column(body, "pricing")[0].__setitem__(
        _column(body, "pricing")[0].index("spot"), "free"
    ),
    "a capacity not in the schema": _set("capacity", 0, 0),  # the first string, a provider
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


def test_a_lone_surrogate_in_a_coded_column_is_not_used(tmp_path: Path) -> None:
    # JSON can spell one ("\\ud800"); the column's code points cannot be read from it
    packed = pack_catalog(_text())
    assert packed is not None
    head, payload = packed.rstrip("\n").split("\n", 1)
    body = json.loads(payload)
    _code("region", 3, 0xD800)(body)
    text = json.dumps(body, ensure_ascii=True, separators=(",", ":"))
    assert "\\ud800" in text
    forged = _signed(json.loads(head), text)
    assert _from_packed(*_pair(tmp_path, _text(), forged)) is None


def test_the_columns_without_runs_are_coded() -> None:
    """Region, price model and price (no runs: each offer of a run has its own) as their distinct
    values and a character per offer: a list of 4,200 JSON numbers per column took most of the packed
    file's parse (3.2 -> 2.0 ms in fresh processes)."""
    packed = pack_catalog(_text())
    assert packed is not None
    offers = json.loads(packed.split("\n", 1)[1])["offers"]
    kinds = dict(zip(offers["fields"], offers["kinds"], strict=True))
    assert kinds["region"] == kinds["pricing"] == kinds["hourly_usd"] == "t"
    assert {kind for name, kind in kinds.items() if name not in ("region", "pricing", "hourly_usd")} == {"sr"}
    table, coded = offers["columns"][offers["fields"].index("hourly_usd")]
    assert len(coded) == offers["count"] and len(table) < offers["count"] / 2


def test_values_equal_in_python_but_not_in_json_keep_their_own_entries(tmp_path: Path) -> None:
    # 1 and 1.0 (and -0.0 and 0.0) are equal and hash alike: a table keyed by the values alone would
    # give one offer the other's JSON value, and another repr
    doc = json.loads(_text())
    prices = (1, 1.0, 0.0, -0.0, 1, 2.5)
    at = range(0, 6 * 50, 50)  # offers of different runs: the price column has no runs
    for n, price in zip(at, prices, strict=True):
        doc["offers"][n]["hourly_usd"] = price
    text = json.dumps(doc, sort_keys=True)
    packed = pack_catalog(text)
    assert packed is not None
    offers = json.loads(packed.split("\n", 1)[1])["offers"]
    n = offers["fields"].index("hourly_usd")
    assert offers["kinds"][n] == "t"
    values = _expanded("t", offers["columns"][n], offers["strings"])
    assert [repr(values[i]) for i in at] == ["1", "1.0", "0.0", "-0.0", "1", "2.5"]
    found = _from_packed(*_pair(tmp_path, text, packed))
    if found is not None:  # -0.0 is refused as a price (not > 0 is fine: zero), so check what it gives
        assert [repr(found.offers[i].hourly_usd) for i in at] == [repr(p) for p in prices]


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
