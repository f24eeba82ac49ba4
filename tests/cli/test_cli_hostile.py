"""Every ``computeops`` command against a hostile environment (red team, after issue 10 section 2):
stdout on a full device is exit 2 with a message, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUPPORT_CHAT = str(ROOT / "examples" / "support-chat.yaml")
FULL = "/dev/full"  # Linux: every write fails with ENOSPC, as on a full disk


@pytest.mark.skipif(not os.path.exists(FULL), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["decide", SUPPORT_CHAT, "--format", "json"],
        ["decide", SUPPORT_CHAT, "--top", "0", "--format", "markdown"],
        ["catalog", "accelerators", "--json"],
    ],
    ids=["version", "decide-json", "decide-markdown", "accelerators"],
)
def test_stdout_on_a_full_disk_is_exit_2_with_a_message(argv: list[str]) -> None:
    # Before: `computeops decide ... > decision.json` on a full disk was an OSError traceback (exit 1).
    with open(FULL, "w", encoding="utf-8") as full:
        done = subprocess.run(
            [sys.executable, "-m", "computeops_cdk.cli", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "error: cannot write the output (No space left on device). Nothing more was written. "
        "To fix: free space on the device stdout goes to, or redirect it elsewhere.\n"
    )


@pytest.mark.parametrize("special", ["fifo", "/dev/zero"])
def test_version_with_the_catalog_env_naming_a_fifo_or_a_device_answers(tmp_path: Path, special: str) -> None:
    # Before: `COMPUTEOPS_CATALOG=<a FIFO> computeops --version` blocked in open() forever, and
    # /dev/zero was read without end. The timeout only keeps a regression from hanging the suite.
    catalog = tmp_path / "catalog.json"
    if special == "fifo":
        os.mkfifo(catalog)
    else:
        catalog = Path(special)
    done = subprocess.run(
        [sys.executable, "-m", "computeops_cdk.cli", "--version"],
        env={**os.environ, "COMPUTEOPS_CATALOG": str(catalog)},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0 and "catalog unreadable from $COMPUTEOPS_CATALOG" in done.stdout


def _cli_redirected(redirect: str, *argv: str, **streams: Any) -> subprocess.CompletedProcess[str]:
    """``computeops *argv`` with the shell's ``redirect`` applied to the child's own descriptors
    (closing or re-pointing fd 1 and 2 as a user's shell would: ``subprocess.DEVNULL`` is an open
    stream, not a closed one)."""
    command = ["sh", "-c", f'exec "$@" {redirect}', "sh", sys.executable, "-m", "computeops_cdk.cli", *argv]
    return subprocess.run(command, text=True, check=False, **streams)


def test_stdout_open_for_reading_only_is_exit_2_with_a_message() -> None:
    # Before: `computeops decide ... 1</dev/null` was an OSError (EBADF) traceback, exit 1.
    done = _cli_redirected("1</dev/null", "decide", SUPPORT_CHAT, stderr=subprocess.PIPE)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "cannot write the output" in done.stderr and "writable stdout" in done.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_failing_stderr_keeps_the_exit_code() -> None:
    # Before: with stdout and stderr both on /dev/full, printing the message raised again: exit 1.
    done = _cli_redirected(">/dev/full 2>/dev/full", "decide", SUPPORT_CHAT)
    assert done.returncode == 2


@pytest.mark.parametrize(
    ("argv", "code"),
    [(["decide", "missing-intent.yaml"], 2), (["decide", SUPPORT_CHAT, "--format", "json"], 0)],
    ids=["error", "decision"],
)
def test_stderr_closed_keeps_messages_out_of_stdout(argv: list[str], code: int) -> None:
    # Before: with fd 2 closed (sys.stderr is None) print(..., file=sys.stderr) wrote the error
    # message into stdout, which a pipeline reads as the output.
    done = _cli_redirected("2>&-", *argv, stdout=subprocess.PIPE)
    assert done.returncode == code
    if code:
        assert done.stdout == ""
    else:
        assert json.loads(done.stdout)["decision"]["provider"]


@pytest.mark.parametrize("stderr_open", [True, False], ids=["stderr-open", "stderr-closed"])
@pytest.mark.parametrize(
    "argv",
    [["--version"], ["decide", SUPPORT_CHAT], ["catalog", "accelerators", "--json"]],
    ids=["version", "decide", "accelerators"],
)
def test_stdout_closed_is_exit_2_with_a_message(argv: list[str], stderr_open: bool) -> None:
    # Before: `computeops decide ... >&-` (sys.stdout is None) was an AttributeError traceback
    # (exit 1). The shell closes fd 1 (and fd 2) in the child: DEVNULL would be an open stdout.
    closing = ">&-" if stderr_open else ">&- 2>&-"
    done = _cli_redirected(closing, *argv, stderr=subprocess.PIPE)
    assert done.returncode == 2, done.stderr
    expected = (
        "error: cannot write the output (stdout is closed). Nothing was run. "
        "To fix: give the command a stdout, e.g. redirect it to a file or to /dev/null.\n"
    )
    assert done.stderr == (expected if stderr_open else "")
