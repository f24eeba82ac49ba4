"""The CLI shows a reservation's term (issue 12 s4): decide's table and Markdown, catalog list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reserved_testdata import with_reserved

from computeops_cdk.catalog._build import build_catalog, write_catalog
from computeops_cdk.cli import main


@pytest.fixture(scope="module")
def reserved_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("reserved")
    return str(write_catalog(build_catalog(with_reserved(folder)), folder / "catalog.json"))


def _intent(tmp_path: Path) -> str:
    path = tmp_path / "chat.json"
    doc = {
        "name": "chat",
        "workload": {
            "type": "inference",
            "model": {"name": "llama-3-8b"},
            "serving": {"output_tokens_per_s": 500},
        },
        "constraints": {"providers": {"allow": ["aws"]}, "pricing": ["reserved"]},
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
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
