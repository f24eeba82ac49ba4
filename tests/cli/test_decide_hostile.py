"""``computeops decide`` with hostile arguments (red team, after issue 10 sections 2 and 4): every bad
``--plot`` target is exit 2 before deciding, and the picture is of the decision printed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from computeops_cdk.cli import main

ROOT = Path(__file__).resolve().parents[2]
SUPPORT_CHAT = str(ROOT / "examples" / "support-chat.yaml")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["decide", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("where", ["missing-folder", "a-directory", "a-fifo"])
def test_an_unwritable_plot_is_exit_2_before_deciding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    # Before: the decision was printed, then matplotlib's FileNotFoundError was a traceback (exit 1).
    target = {
        "missing-folder": tmp_path / "no-such-folder" / "t.svg",
        "a-directory": tmp_path / "t.svg",
        "a-fifo": tmp_path / "t.png",
    }[where]
    if where == "a-directory":
        target.mkdir()
    elif where == "a-fifo":
        os.mkfifo(target)
    code, out, err = run(capsys, SUPPORT_CHAT, "--format", "json", "--plot", str(target))
    assert (code, out) == (2, "")
    assert err.startswith(f"error: --plot {str(target)!r}: cannot write the picture: ")
    assert "Nothing was written. To fix:" in err and "Traceback" not in err


def test_the_plot_leaves_no_temporary_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "t.svg"
    target.write_text("previous", encoding="utf-8")
    assert run(capsys, SUPPORT_CHAT, "--plot", str(target))[0] == 0
    assert [p.name for p in tmp_path.iterdir()] == ["t.svg"]
    assert target.read_text(encoding="utf-8").lstrip().startswith("<?xml")


def test_the_plot_marks_the_placement_decided_under_the_accounts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: the plot's decision left --accounts out, so it marked a provider the team has no account at.
    accounts = tmp_path / "computeops.accounts.yaml"
    accounts.write_text("version: 1\nproviders:\n  aws: {}\n  gcp: {}\n", encoding="utf-8")
    svg = tmp_path / "t.svg"
    code, out, _ = run(
        capsys, SUPPORT_CHAT, "--format", "json", "--accounts", str(accounts), "--plot", str(svg)
    )
    chosen = json.loads(out)["decision"]
    assert code == 0 and chosen["provider"] in ("aws", "gcp")
    text = svg.read_text(encoding="utf-8")
    assert f"chosen: {chosen['provider']} {chosen['instance_type']} ({chosen['region']})" in text
