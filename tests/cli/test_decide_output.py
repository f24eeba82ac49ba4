"""Issue 10 section 4: decide output fit for CI, pull requests and narrow terminals."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from computeops_cdk.cli import main
from computeops_cdk.engine import decide
from computeops_cdk.schemas import load_schema
from computeops_cdk.targets import placement_pin

ROOT = Path(__file__).resolve().parents[2]
SUPPORT_CHAT = str(ROOT / "examples" / "support-chat.yaml")
INFEASIBLE = str(ROOT / "examples" / "infeasible-budget.yaml")
SCHEMA = load_schema("decision")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["decide", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_rejections_summary_is_the_default_and_all_lists_every_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, summary_out, _ = run(capsys, SUPPORT_CHAT, "--format", "json")
    assert code == 0
    code, all_out, _ = run(capsys, SUPPORT_CHAT, "--format", "json", "--rejections", "all")
    assert code == 0
    summary, full = json.loads(summary_out), json.loads(all_out)
    for doc in (summary, full):
        jsonschema.validate(doc, SCHEMA)
    # The contract's fields stay; the counts by rule are complete either way.
    assert summary.keys() == full.keys()
    assert summary["rejections_by_rule"] == full["rejections_by_rule"]
    assert summary["summary"]["rejected"] == full["summary"]["rejected"] == len(full["rejected"]) > 3000
    assert (summary["summary"]["rejections_listed"], full["summary"]["rejections_listed"]) == (
        "summary",
        "all",
    )
    # summary: for each rule, the first rejection (canonical order) carrying it, with all its reasons.
    firsts = {}
    for rejection in full["rejected"]:
        for reason in rejection["reasons"]:
            firsts.setdefault(reason["rule"], rejection)
    expected = [r for r in full["rejected"] if any(r is f for f in firsts.values())]
    assert summary["rejected"] == expected
    assert {x["rule"] for r in summary["rejected"] for x in r["reasons"]} == set(full["rejections_by_rule"])
    assert len(summary_out) < 60_000 < 1_000_000 < len(all_out)  # was 2.0 MB for every decision


def test_the_default_matches_the_python_api_default(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, SUPPORT_CHAT, "--format", "json", "--rejections", "summary")
    assert code == 0 and out == decide(SUPPORT_CHAT, pin=placement_pin()).to_json()


def test_infeasible_json_honours_rejections(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, INFEASIBLE, "--format", "json")
    code_all, out_all, _ = run(capsys, INFEASIBLE, "--format", "json", "--rejections", "all")
    assert code == code_all == 3
    summary, full = json.loads(out), json.loads(out_all)
    jsonschema.validate(summary, SCHEMA)
    assert summary["decision"] is None and summary["nearest_misses"] == full["nearest_misses"]
    assert len(full["rejected"]) == full["summary"]["rejected"] > len(summary["rejected"]) > 0


def test_csv_lists_the_ranked_placements_then_the_listed_rejections(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, SUPPORT_CHAT, "--format", "csv", "--top", "3")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    decision = decide(SUPPORT_CHAT, pin=placement_pin(), alternatives=3)
    ranked = [r for r in rows if r["status"] != "rejected"]
    assert [r["status"] for r in ranked] == ["chosen", "alternative", "alternative", "alternative"]
    assert [(r["provider"], r["instance_type"], float(r["unit_cost"])) for r in ranked] == [
        (p.provider, p.instance_type, p.unit_cost.value) for p in decision.ranked
    ]
    rejected = [r for r in rows if r["status"] == "rejected"]
    assert len(rejected) == len(decision.listed_rejections("summary"))
    assert all(r["rules"] and r["reasons"] and r["unit_cost"] == "" for r in rejected)
    code, out, _ = run(capsys, SUPPORT_CHAT, "--format", "csv", "--rejections", "all")
    assert sum(1 for r in csv.DictReader(io.StringIO(out)) if r["status"] == "rejected") == len(
        decision.rejected
    )


def test_infeasible_csv_still_lists_the_rejections(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, INFEASIBLE, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 3 and rows and {r["status"] for r in rows} == {"rejected"}
    assert err.startswith("error: no feasible placement")


def _table(columns: int) -> str:
    env = {**os.environ, "COLUMNS": str(columns), "PYTHONHASHSEED": "0"}
    result = subprocess.run(
        [sys.executable, "-m", "computeops_cdk.cli", "decide", SUPPORT_CHAT],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    return result.stdout


def test_a_narrow_terminal_drops_columns_and_wraps_instead_of_cutting_cells() -> None:
    narrow = _table(80)
    assert all(len(line) <= 80 for line in narrow.splitlines())
    assert "…" not in narrow and not re.search(r"\w\.\.\.", narrow)  # was `nebi... | gpu-h... | 0.40...`
    header = next(line for line in narrow.splitlines() if "provider" in line and "region" in line)
    for column in ("provider", "instance type", "region", "unit cost (est.)"):
        assert column in header
    assert "USD/month" not in header and "hidden at 80 columns" in narrow
    chosen = decide(SUPPORT_CHAT, pin=placement_pin()).chosen
    assert chosen is not None
    marked = next(line for line in narrow.splitlines() if "✔" in line)
    assert chosen.provider in marked and chosen.region in marked
    wide = _table(200)
    assert "USD/month" in wide and "hidden at" not in wide


def test_plot_draws_the_trade_off_as_png_and_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png, svg = tmp_path / "t.png", tmp_path / "t.svg"
    code, out, err = run(capsys, SUPPORT_CHAT, "--format", "json", "--plot", str(png))
    assert code == 0 and json.loads(out)["decision"] and f"wrote {png}" in err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert run(capsys, SUPPORT_CHAT, "--format", "json", "--plot", str(svg))[0] == 0
    text = svg.read_text(encoding="utf-8")
    chosen = decide(SUPPORT_CHAT, pin=placement_pin()).chosen
    assert chosen is not None
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    for label in ("Pareto front", f"chosen: {chosen.provider} {chosen.instance_type}", "unit cost"):
        assert label in text


@pytest.mark.parametrize("suffix", [".svg", ".png"])
def test_the_same_decision_draws_the_same_picture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    # Review: an SVG's element ids were salted at random (matplotlib's svg.hashsalt unset), so two
    # runs of the same decision wrote different files.
    first, second = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
    assert run(capsys, SUPPORT_CHAT, "--format", "json", "--plot", str(first))[0] == 0
    assert run(capsys, SUPPORT_CHAT, "--format", "json", "--plot", str(second))[0] == 0
    assert first.read_bytes() == second.read_bytes()


def test_plot_refuses_another_suffix_before_deciding(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, SUPPORT_CHAT, "--plot", "trade-off.pdf")
    assert (code, out) == (2, "")
    assert err == (
        "error: --plot 'trade-off.pdf': the file name must end in .png or .svg (got .pdf). "
        "To fix: e.g. --plot trade-off.svg\n"
    )


def test_the_pareto_front_keeps_only_points_nothing_beats_on_both() -> None:
    from computeops_cdk.cli._plot import pareto_front

    points = [(10.0, 5.0), (20.0, 6.0), (15.0, 7.0), (5.0, 4.0), (20.0, 8.0)]
    assert pareto_front(points) == [3, 0, 1]  # (15, 7) and (20, 8) are beaten by (20, 6)
