"""The CLI shows a reservation's term (issue 12 s4): decide's table and Markdown, catalog list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reserved_testdata import RESERVED_CHAT, with_reserved

from computeops_cdk.catalog._build import build_catalog, write_catalog
from computeops_cdk.cli import main


@pytest.fixture(scope="module")
def reserved_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("reserved")
    return str(write_catalog(build_catalog(with_reserved(folder)), folder / "catalog.json"))


def _intent(tmp_path: Path) -> str:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(RESERVED_CHAT), encoding="utf-8")
    return str(path)


def test_decide_shows_the_term_in_the_table_and_markdown(
    capsys: pytest.CaptureFixture[str], reserved_file: str, tmp_path: Path
) -> None:
    intent = _intent(tmp_path)
    assert main(["decide", intent, "--catalog", reserved_file]) == 0
    out = capsys.readouterr().out
    assert "reserved 12 mo" in out or "reserved 36 mo" in out
    assert main(["decide", intent, "--catalog", reserved_file, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "(reserved 12 mo)" in out or "(reserved 36 mo)" in out
    assert main(["decide", intent, "--catalog", reserved_file, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["decision"]["reservation"]["term_months"] in (12, 36)


def test_catalog_list_shows_and_exports_the_term(
    capsys: pytest.CaptureFixture[str], reserved_file: str
) -> None:
    args = ["catalog", "list", "--catalog", reserved_file, "--pricing", "reserved", "--provider", "aws"]
    assert main([*args, "--limit", "5"]) == 0
    assert "reserved 12 mo" in capsys.readouterr().out
    assert main([*args, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    offers = rows if isinstance(rows, list) else rows["offers"]
    assert offers and {(o["term_months"], o["upfront"]) for o in offers} == {(12, "none"), (36, "none")}


def test_catalog_list_csv_has_the_term_columns(
    capsys: pytest.CaptureFixture[str], reserved_file: str
) -> None:
    import csv
    import io

    args = ["catalog", "list", "--catalog", reserved_file, "--provider", "aws", "--format", "csv"]
    assert main(args) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(rows[0])[-2:] == ["term_months", "upfront"]
    terms = {(r["pricing"], r["term_months"], r["upfront"]) for r in rows}
    assert terms == {
        ("on_demand", "", ""),
        ("spot", "", ""),
        ("reserved", "12", "none"),
        ("reserved", "36", "none"),
    }
    # two reservations of one offer differ only by their term: each CSV row says which it is
    reserved = [
        (r["instance_type"], r["region"], r["term_months"]) for r in rows if r["pricing"] == "reserved"
    ]
    assert len(reserved) == len(set(reserved))


def test_decide_csv_has_the_term_columns(
    capsys: pytest.CaptureFixture[str], reserved_file: str, tmp_path: Path
) -> None:
    import csv
    import io

    assert main(["decide", _intent(tmp_path), "--catalog", reserved_file, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    placed = [r for r in rows if r["status"] != "rejected"]
    assert placed and all(r["pricing"] == "reserved" for r in placed)
    assert {r["term_months"] for r in placed} <= {"12", "36"} and {r["upfront"] for r in placed} == {"none"}
    assert all(float(r["commitment_usd"]) > 0 for r in placed)
    assert all(r["term_months"] == "" for r in rows if r["status"] == "rejected")


def test_lock_update_says_when_the_reservation_term_changes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from computeops_cdk import WorkloadIntent, decide
    from computeops_cdk.engine import LockedPlacement
    from computeops_cdk.lockfile import LockEntry, Lockfile, Pins, estimate_of

    one_year = write_catalog(
        build_catalog(with_reserved(tmp_path / "a", {"ReservedPrice1yr": 0.6})), tmp_path / "a.json"
    )
    both = write_catalog(
        build_catalog(with_reserved(tmp_path / "b", {"ReservedPrice1yr": 0.6, "ReservedPrice3yr": 0.4})),
        tmp_path / "b.json",
    )
    intent = WorkloadIntent.from_file(_intent(tmp_path))
    decision = decide(intent, catalog=str(one_year))
    assert decision.chosen is not None and decision.chosen.term_months == 12
    entry = LockEntry(
        intent=intent,
        pins=Pins(),
        placement=LockedPlacement.from_placement(decision.chosen, locked_at="2026-11-01T00:00:00Z"),
        engine_version="test",
        estimate=estimate_of(decision.chosen.estimate),
    )
    path = tmp_path / "computeops.lock.json"
    Lockfile(path=path).with_entry("chat/workload", entry).write()
    assert main(["lock", "update", str(path), "--catalog", str(both)]) == 0
    out = capsys.readouterr().out
    assert "(reserved, 12 months) -> " in out and "(reserved, 36 months)" in out, out
    assert json.loads(path.read_text())["workloads"]["chat/workload"]["placement"]["term_months"] == 36
