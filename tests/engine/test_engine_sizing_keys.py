"""The sizing's cache keys (engine/_sizing.py ``_key``): each record is hashed once, not once per
cache lookup (a cold decide's first call hashed accelerator and model records ~1,100 times), and the
keys keep what the records gave: equal records share entries, unequal ones never do, everything
kept is bounded."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest
from engine_testdata import H100, ITYPES, inference, make_catalog

import computeops_cdk.engine._sizing as sizing
from computeops_cdk.catalog import Accelerator, load_catalog
from computeops_cdk.engine import decide
from computeops_cdk.engine._sizing import Sizer, model_spec


def _counting_hashes(monkeypatch: pytest.MonkeyPatch, cls: type) -> list[object]:
    hashed: list[object] = []
    own = vars(cls)["__hash__"]

    def counted(self: object) -> int:
        hashed.append(self)
        return int(own(self))

    monkeypatch.setattr(cls, "__hash__", counted)
    return hashed


def test_a_decide_hashes_each_accelerator_record_about_once(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = load_catalog("src/computeops_cdk/catalog/data/catalog.json")  # records of its own
    sizing._KEYS.clear()
    sizing._INFERENCE.clear()
    hashed = _counting_hashes(monkeypatch, Accelerator)
    decide("examples/support-chat.yaml", catalog=catalog)
    mine = [acc for acc in hashed if any(acc is a for a in catalog.accelerators)]
    distinct = {id(acc) for acc in mine}
    # before: every sizing hashed its accelerator for the Sizer's cache (twice on a miss) and the
    # estimates' cache (once more): ~4 per shape, ~560 hashes of ~50 records
    assert distinct and len(mine) <= 2 * len(distinct)


def test_equal_records_of_another_identity_share_the_sizings_and_estimates() -> None:
    workload = inference().workload
    sizer = Sizer(workload, model_spec(workload))
    first = sizer.size(ITYPES[0], H100)
    estimates = len(sizing._INFERENCE)
    again = sizer.size(ITYPES[0], replace(H100))
    other = Sizer(workload, model_spec(workload))  # another Sizer, an equal model of another identity
    third = other.size(ITYPES[0], replace(H100))
    assert again == first == third and len(sizer._cache) == 1
    assert len(sizing._INFERENCE) == estimates  # the estimate was found, not made again


def test_unequal_records_never_share_an_entry() -> None:
    workload = inference().workload
    sizer = Sizer(workload, model_spec(workload))
    fast = replace(H100, memory_bw_gbps=(H100.memory_bw_gbps or 0.0) * 3)
    slow = sizer.size(ITYPES[0], H100)
    faster = sizer.size(ITYPES[0], fast)
    assert faster != slow and faster.tokens_per_s > slow.tokens_per_s
    assert faster == Sizer(workload, model_spec(workload)).size(ITYPES[0], replace(fast))


def test_the_keys_and_the_estimates_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sizing, "_KEYS_KEPT", 8)
    monkeypatch.setattr(sizing, "_ESTIMATES_KEPT", 8)
    sizing._KEYS.clear()
    sizing._INFERENCE.clear()
    workload = inference().workload
    sizer = Sizer(workload, model_spec(workload))
    made = [sizer.size(ITYPES[0], replace(H100, id=f"H100-copy-{n}")) for n in range(30)]
    assert 0 < len(sizing._KEYS) <= 8 and 0 < len(sizing._INFERENCE) <= 8
    # forgotten keys and estimates are made again, to the same figures
    assert sizer.size(ITYPES[0], replace(H100, id="H100-copy-0")) == made[0]
    fresh = Sizer(workload, model_spec(workload))
    assert [fresh.size(ITYPES[0], replace(H100, id=f"H100-copy-{n}")) for n in range(30)] == made


def test_the_sizings_a_sizer_keeps_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # reviewer 4: over 200 catalogs of other accelerators in one process, each Sizer kept every
    # sizing (and the record its key holds) of every catalog, about 0.55 MB per catalog
    monkeypatch.setattr(sizing, "_SIZINGS_KEPT", 8)
    workload = inference().workload
    sizer = Sizer(workload, model_spec(workload))
    made = [sizer.size(ITYPES[0], replace(H100, id=f"H100-kept-{n}")) for n in range(30)]
    assert 0 < len(sizer._cache) <= 8
    fresh = Sizer(workload, model_spec(workload))
    assert [fresh.size(ITYPES[0], replace(H100, id=f"H100-kept-{n}")) for n in range(30)] == made


def test_a_key_is_found_by_identity_and_equal_by_value() -> None:
    a, b = replace(H100), replace(H100)
    assert sizing._key(a) is sizing._key(a)
    assert sizing._key(a) is not sizing._key(b) and sizing._key(a) == sizing._key(b)
    assert hash(sizing._key(a)) == hash(a) == hash(b)
    assert sizing._key(a) != sizing._key(replace(H100, id="other"))
    assert sizing._key(a).__eq__(a) is NotImplemented  # a key never equals a record


def test_threads_sizing_together_get_the_figures_of_one_thread() -> None:
    catalog = make_catalog()
    alone = decide(inference(), catalog=catalog).to_json(rejections="all")
    sizing._KEYS.clear()
    sizing._INFERENCE.clear()
    sizing.sizer_for.cache_clear()
    results: list[str] = []

    def one() -> None:
        results.append(decide(inference(), catalog=make_catalog()).to_json(rejections="all"))

    threads = [threading.Thread(target=one) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [alone] * 6


def test_a_catalog_file_with_other_specs_is_sized_with_its_own_after_the_embedded_one(tmp_path: Path) -> None:
    # The sizings and estimates kept for the embedded catalog's records are never read for another
    # catalog's unequal ones: the same bytes as a process that never decided over the embedded one.
    import json

    doc = json.loads(Path("src/computeops_cdk/catalog/data/catalog.json").read_text(encoding="utf-8"))
    for acc in doc["accelerators"]:
        if acc.get("memory_bw_gbps"):
            acc["memory_bw_gbps"] = acc["memory_bw_gbps"] * 2
    from computeops_cdk.catalog._build import content_sha256

    doc["sha256"] = content_sha256(doc)
    other = tmp_path / "catalog.json"
    other.write_text(json.dumps(doc), encoding="utf-8")
    embedded = decide("examples/support-chat.yaml").to_json(rejections="all")
    after = decide("examples/support-chat.yaml", catalog=load_catalog(other)).to_json(rejections="all")
    sizing._KEYS.clear()
    sizing._INFERENCE.clear()
    sizing.sizer_for.cache_clear()
    alone = decide("examples/support-chat.yaml", catalog=load_catalog(other)).to_json(rejections="all")
    assert after == alone != embedded
