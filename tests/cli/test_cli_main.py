"""The top-level parser: a mistyped subcommand, choice or flag gets "did you mean", exit 2."""

from __future__ import annotations

import pytest

from computeops_cdk.cli import main


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    assert exit_info.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


def test_mistyped_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    line = usage_error(capsys, "decid")
    assert line.startswith(
        "computeops: error: argument COMMAND: invalid choice: 'decid' (choose from 'decide', "
    )
    assert line.endswith(") (did you mean 'decide'?)")


def test_mistyped_nested_subcommand_and_choice(capsys: pytest.CaptureFixture[str]) -> None:
    assert usage_error(capsys, "catalog", "lst").endswith("(did you mean 'list'?)")
    assert usage_error(capsys, "estimate", "--workload", "trainig").endswith("(did you mean 'training'?)")


def test_mistyped_flag_of_a_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    # The top parser offers every subcommand's flags; `catalog refresh --accept` is close too.
    assert usage_error(capsys, "catalog", "list", "--acelerator", "H100") == (
        "computeops: error: unrecognized arguments: --acelerator H100 (did you mean '--accelerator' or "
        "'--accept'?)"
    )


def test_no_hint_when_nothing_is_close(capsys: pytest.CaptureFixture[str]) -> None:
    assert usage_error(capsys, "catalog", "list", "--zzzzzz") == (
        "computeops: error: unrecognized arguments: --zzzzzz"
    )


def test_a_reader_closing_the_pipe_is_not_a_traceback() -> None:
    # `computeops catalog list --json | head -1`: the JSON (over a megabyte) outgrows the pipe buffer,
    # so the writer is still printing when the reader goes away.
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "computeops_cdk.cli", "catalog", "list", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    with proc, proc.stderr:
        assert proc.stdout.read(1) == b"{"
        proc.stdout.close()
        stderr = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 141
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"computeops {version('computeops-cdk')}\n"
