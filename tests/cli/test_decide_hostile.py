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


def test_a_plot_through_a_link_to_a_descriptor_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Today's review: a link to /proc/self/fd/N (N a regular file) passed the regular-file check and
    # the rename replaced the link with the picture.
    redirected = tmp_path / "out.txt"
    redirected.write_text("redirected", encoding="utf-8")
    with redirected.open("a", encoding="utf-8") as handle:
        link = tmp_path / "t.svg"
        link.symlink_to(f"/proc/self/fd/{handle.fileno()}")
        code, out, err = run(capsys, SUPPORT_CHAT, "--format", "json", "--plot", str(link))
    assert (code, out) == (2, "")
    assert err.startswith(f"error: --plot {str(link)!r}: cannot write the picture: it is or links to '/proc")
    assert link.is_symlink() and redirected.read_text(encoding="utf-8") == "redirected"


def test_a_plot_through_a_link_to_a_file_keeps_the_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = tmp_path / "pictures" / "t.svg"
    picture.parent.mkdir()
    picture.write_text("previous", encoding="utf-8")
    link = tmp_path / "t.svg"
    link.symlink_to(picture)
    assert run(capsys, SUPPORT_CHAT, "--plot", str(link))[0] == 0
    assert link.is_symlink() and picture.read_text(encoding="utf-8").lstrip().startswith("<?xml")
    assert [p.name for p in picture.parent.iterdir()] == ["t.svg"]


@pytest.mark.parametrize("flag", ["--provider", "--region"])
def test_a_megabyte_flag_value_is_cut_in_the_message(capsys: pytest.CaptureFixture[str], flag: str) -> None:
    code, out, err = run(capsys, SUPPORT_CHAT, flag, "x" * 1_000_000)
    assert (code, out) == (2, "")
    assert f"error: {flag}: unknown " in err and len(err) < 1_000
