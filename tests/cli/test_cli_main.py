"""The top-level parser: a mistyped subcommand, choice or flag gets "did you mean", exit 2."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

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
    # The top parser offers every subcommand's flags; `catalog refresh --accept` (0.60 similar) is
    # below the did-you-mean cutoff since issue 10, so only the flag meant is offered.
    assert usage_error(capsys, "catalog", "list", "--acelerator", "H100") == (
        "computeops: error: unrecognized arguments: --acelerator H100 (did you mean '--accelerator'?)"
    )


def test_no_hint_when_nothing_is_close(capsys: pytest.CaptureFixture[str]) -> None:
    assert usage_error(capsys, "catalog", "list", "--zzzzzz") == (
        "computeops: error: unrecognized arguments: --zzzzzz"
    )


def test_a_reader_closing_the_pipe_is_not_a_traceback() -> None:
    # `computeops catalog list --json | head -1`: the JSON (over a megabyte) outgrows the pipe buffer,
    # so the writer is still printing when the reader goes away.
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


def test_version_names_the_package_the_catalog_and_the_performance_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from computeops_cdk import __version__
    from computeops_cdk.catalog import load_catalog
    from computeops_cdk.perf import MODEL_VERSION

    catalog = load_catalog()
    expected = (
        f"computeops {__version__} (catalog {catalog.version}, sha256 {catalog.sha256[:12]}; "
        f"performance model {MODEL_VERSION})\n"
    )
    for argv in (["--version"], ["--version", "decide"]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 0 and capsys.readouterr().out == expected


def test_version_reports_the_catalog_computeops_catalog_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from computeops_cdk.catalog._build import canonical_json
    from computeops_cdk.catalog._load import EMBEDDED_CATALOG

    doc = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    doc["version"] = "2027.01.02"
    chosen = tmp_path / "catalog.json"
    chosen.write_text(canonical_json(doc), encoding="utf-8")
    monkeypatch.setenv("COMPUTEOPS_CATALOG", str(chosen))
    with pytest.raises(SystemExit):
        main(["--version"])
    out = capsys.readouterr().out
    assert "(catalog 2027.01.02, sha256 " in out and " from $COMPUTEOPS_CATALOG; performance model " in out


def test_the_package_version_is_the_installed_one_and_the_model_version_is_perfs() -> None:
    from importlib.metadata import version

    from computeops_cdk import __version__, _version
    from computeops_cdk.perf import MODEL_VERSION

    assert version("computeops-cdk") == __version__
    from computeops_cdk.catalog._load import CATALOG_ENV

    assert _version.PERF_MODEL_VERSION == MODEL_VERSION
    assert _version.CATALOG_ENV == CATALOG_ENV


def test_the_catalog_meta_read_from_the_file_tail_is_the_catalogs(tmp_path: Path) -> None:
    from computeops_cdk._version import embedded_catalog_meta
    from computeops_cdk.catalog import load_catalog

    catalog = load_catalog()
    assert embedded_catalog_meta() == {"sha256": catalog.sha256, "version": catalog.version}
    odd = tmp_path / "odd.json"
    odd.write_text('{"version": "x"}', encoding="utf-8")  # not the canonical layout: no guess
    assert embedded_catalog_meta(str(odd)) is None
    assert embedded_catalog_meta(str(tmp_path / "missing.json")) is None


_IMPORTED = (
    "import sys, runpy; sys.argv = ['computeops', {flag!r}]\n"
    "try:\n    runpy.run_module('computeops_cdk.cli', run_name='__main__')\n"
    "except SystemExit:\n    pass\n"
    "print(' '.join(sys.modules), file=sys.stderr)\n"
)
_HEAVY = {"pydantic", "rich", "jsonschema", "yaml", "httpx", "cdktn", "jsii", "matplotlib"}
_OURS = {"computeops_cdk.engine", "computeops_cdk.catalog", "computeops_cdk.intent", "computeops_cdk.perf"}


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_no_heavy_module(flag: str) -> None:
    # Start-up is measured in benchmarks/bench_startup.py; this checks what keeps it fast, untimed:
    # the top-level parser registers the subcommands by name, without importing their modules.
    result = subprocess.run(
        [sys.executable, "-c", _IMPORTED.format(flag=flag)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("computeops " if flag == "--version" else "usage: computeops")
    imported = set(result.stderr.split())
    assert imported & (_HEAVY | _OURS) == set()
    assert "computeops_cdk.cli._parser" in imported  # argparse answered


def test_the_command_table_gives_each_subcommand_its_own_help() -> None:

    from computeops_cdk.cli import build_parser
    from computeops_cdk.cli._parser import COMMANDS, command_of

    full = build_parser()
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in sub._choices_actions}
    assert {name: text for name, _, text in COMMANDS} == helps
    assert (command_of(["--help"]), command_of(["decid"]), command_of(["catalog", "list"])) == (
        "",
        None,
        "catalog",
    )


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["decide", None], "argv item 1 (None) is of type NoneType, not str"),
        (["decide", "examples/support-chat.yaml", 8], "argv item 2 (8) is of type int, not str"),
        ([b"decide"], "argv item 0 (b'decide') is of type bytes, not str"),
        (["catalog", "list", ["x" * 100]], "argv item 2 (['" + "x" * 35 + "...) is of type list, not str"),
    ],
    ids=["none", "int", "bytes", "list"],
)
def test_an_argv_item_that_is_not_a_str_is_exit_2(
    argv: list[object], shown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # main(["decide", None]) was an AttributeError traceback
    assert main(argv) == 2  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert err.startswith(f"computeops: error: {shown}") and "To fix: pass strings" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["decide", "examples/support-chat.yaml", "--catalog=--"],
        ["decide", "examples/support-chat.yaml", "--plot=--"],
        ["decide", "examples/support-chat.yaml", "--accounts=--"],
        ["decide", "examples/support-chat.yaml", "--provider=--"],
        ["decide", "--region=--", "examples/support-chat.yaml", "--format", "json"],
        ["decide", "examples/support-chat.yaml", "--format=--"],
        ["estimate", "--model=--", "--workload", "inference"],
        ["catalog", "list", "--catalog=--"],
    ],
)
def test_an_option_given_as_dash_dash_is_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # argparse gives `--catalog=--` the value [] (the catalog was silently ignored, --plot=-- was a
    # TypeError traceback)
    option = next(word for word in argv if word.endswith("=--")).partition("=")[0]
    for console in (False, True):
        from computeops_cdk.cli import _main

        assert _main(list(argv), console=console) == 2
        err = capsys.readouterr().err
        assert err == (
            f"computeops: error: argument {option}: '--' is not a value (it ends the options). To fix: "
            f"give {option} its value ({option}=VALUE), or leave it out\n"
        )


def test_words_after_a_bare_dash_dash_are_not_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decide", "--", "--catalog=--"]) == 2
    assert "'--' is not a value" not in capsys.readouterr().err
