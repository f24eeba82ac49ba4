"""What a cold ``computeops decide`` imports: only what a decision needs (benchmarks/STARTUP.md).

Start-up time is measured in benchmarks/, never asserted here; these tests pin the imports that made
it slow, so a change that puts one back on the path fails in review rather than in a benchmark.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import computeops_cdk.engine as engine
from computeops_cdk.engine import _drift

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-chat.yaml"

# Modules a decision over the embedded catalog has no use for: the ten target modules (the pin reads
# targets/_unsupported), drift and locks, the accounts (none given) and the training model (a serving
# intent), the table renderer, schema validation, HTTP, the bindings.
_OFF_PATH = (
    "computeops_cdk.targets.aws",
    "computeops_cdk.targets.gcp",
    "computeops_cdk.targets.vast",
    "computeops_cdk.targets._boot",
    "computeops_cdk.targets._boot_script",
    "computeops_cdk.engine._drift",
    "computeops_cdk.accounts",  # no accounts given: engine._accounts.team_accounts
    "computeops_cdk.perf._training",  # a serving intent
    "statistics",  # engine._suspect's median is its own
    "computeops_cdk.catalog._validate",  # the embedded catalog is not validated at load
    "rich",
    "jsonschema",
    "httpx",
    "jsii",
    "cdktn",
)


def _imports_of_a_cold_decide(*argv: str) -> tuple[int, list[str], str]:
    code = (
        "import json, sys\n"
        "from computeops_cdk.cli import main\n"
        f"code = main({list(argv)!r})\n"
        "sys.stderr.write(json.dumps({'code': code, 'modules': sorted(sys.modules)}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    report = json.loads(done.stderr.splitlines()[-1])
    return report["code"], report["modules"], done.stdout


def test_a_cold_json_decide_imports_nothing_it_does_not_use() -> None:
    code, modules, out = _imports_of_a_cold_decide("decide", str(EXAMPLE), "--format", "json")
    assert code == 0
    assert json.loads(out)["decision"]["provider"]
    loaded = [name for name in _OFF_PATH if name in modules]
    assert loaded == []


def test_the_embedded_catalog_paths_are_made_on_first_use_and_name_the_files_opened() -> None:
    from computeops_cdk.catalog import _load, load_catalog
    from computeops_cdk.catalog._packed import packed_path

    embedded, packed = _load.EMBEDDED_CATALOG, _load.PACKED_CATALOG
    assert embedded == Path(_load._EMBEDDED_FILE)
    assert embedded == Path(_load.__file__).parent / "data" / "catalog.json"
    assert packed == packed_path(embedded) == Path(_load._PACKED_FILE)
    assert _load.EMBEDDED_CATALOG is embedded  # made once, then a module attribute
    assert _load.__getattr__("EMBEDDED_CATALOG") is embedded  # what the module reads itself
    assert load_catalog(validate=True) == load_catalog()  # which reads catalog.json by that Path
    assert _load.EMBEDDED_CATALOG is embedded and _load.PACKED_CATALOG is packed
    assert "PACKED_CATALOG" in vars(_load)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _load.no_such_name  # noqa: B018


def test_the_drift_names_of_the_engine_resolve_on_first_use() -> None:
    # engine/__init__ imports _drift on first use of one of its names (a decision never needs it).
    for name in engine._DRIFT_NAMES:
        assert name in engine.__all__
        assert getattr(engine, name) is getattr(_drift, name)
        assert name in dir(engine)
    for name in engine.__all__:
        assert getattr(engine, name) is not None
    with pytest.raises(AttributeError, match="no_such_name"):
        engine.no_such_name  # noqa: B018


_FROZEN = (
    "import gc, sys\n"
    "from computeops_cdk.cli import main\n"
    "sys.argv = ['computeops', 'decide', {intent!r}, '--format', 'json']\n"
    "before = sum(g['collections'] for g in gc.get_stats())\n"
    "code = main({argv})\n"
    "passes = sum(g['collections'] for g in gc.get_stats()) - before\n"
    "print(code, gc.get_freeze_count() > 0, passes, file=sys.stderr)\n"
)


def test_the_console_script_skips_the_shutdown_collection_and_callers_keep_theirs() -> None:
    # Called as the console script (no argv), main() imports the command's modules with the cyclic
    # collector paused and freezes what they made out of it (about 70 passes, 15 ms CPU of a cold
    # decide, went into the imports), and freezes the process's objects before the interpreter exits
    # (its shutdown collection cost ~35 ms CPU); a caller passing argv keeps a collector that still
    # collects, and pays those passes. Same bytes either way.
    outputs, passes = [], []
    for argv, frozen in (("", "True"), (repr(["decide", str(EXAMPLE), "--format", "json"]), "False")):
        code = _FROZEN.format(intent=str(EXAMPLE), argv=argv)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert done.stderr.split()[:2] == ["0", frozen]
        passes.append(int(done.stderr.split()[2]))
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])["decision"]["provider"]
    assert passes[0] * 3 < passes[1]


def test_the_engine_reads_the_variable_the_accounts_module_names() -> None:
    # engine._accounts checks $COMPUTEOPS_ACCOUNTS itself so that a decision without accounts does
    # not import the accounts module; both must name the same variable.
    from computeops_cdk import accounts
    from computeops_cdk.engine import _accounts

    assert _accounts._ACCOUNTS_ENV == accounts.ACCOUNTS_ENV


def _modules_after(code: str) -> list[str]:
    """sys.modules of a fresh interpreter after running ``code``."""
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    modules: list[str] = json.loads(done.stdout.splitlines()[-1])
    return modules


def test_the_model_registry_reads_its_file_without_importlib_resources() -> None:
    # importlib.resources pulls tempfile, shutil, zipfile, random, threading and the compressors:
    # about 10 ms of CPU of a cold decide once pydantic is off the path (benchmarks/STARTUP.md).
    modules = _modules_after("from computeops_cdk import perf\nassert perf.resolve_model('llama-3.1-70b')")
    heavy = ("importlib.resources", "tempfile", "shutil", "zipfile", "random", "threading", "lzma", "bz2")
    assert [name for name in heavy if name in modules] == []


_PASSES = (
    "import gc, sys\n"
    "from computeops_cdk.cli import main\n"
    "sys.argv = ['computeops', *{argv!r}]\n"
    "{before}\n"
    "start = sum(g['collections'] for g in gc.get_stats())\n"
    "code = main()\n"
    "passes = sum(g['collections'] for g in gc.get_stats()) - start\n"
    "print(code, passes, gc.isenabled(), file=sys.stderr)\n"
)


@pytest.mark.parametrize("before", ["", "gc.disable()"])
def test_the_console_decide_runs_with_the_collector_paused_and_restores_it(before: str) -> None:
    # cli._RUN_PAUSED: around the engine's own pause (reading the intent, writing the output) the
    # collector's passes walked the catalog's records made while it was paused, freeing nothing.
    argv = ["decide", str(EXAMPLE), "--format", "json"]
    code = _PASSES.format(argv=argv, before=before)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.split() == ["0", "0", str(not before)]
    assert json.loads(done.stdout)["decision"]["provider"]


@pytest.mark.parametrize(
    "argv",
    [
        ["decide", str(EXAMPLE), "--bogus"],  # argparse's exit 2
        ["decide", "--help"],  # argparse's exit 0
        ["decide", str(EXAMPLE), "--top", "-1"],
    ],
)
def test_the_collector_is_restored_on_argparse_exits_too(argv: list[str]) -> None:
    # Review of the paused decide: main() left the collector off when argparse exited (SystemExit).
    code = (
        "import gc, sys\n"
        "from computeops_cdk.cli import main\n"
        f"sys.argv = ['computeops', *{argv!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(gc.isenabled(), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stderr.split()[-1] == "True", done.stderr


def test_the_model_registry_is_read_from_a_zip_install_too(tmp_path: Path) -> None:
    # Review: reading models.json by path was a NotADirectoryError traceback when the package runs
    # from a zip archive; `estimate --help` printed its help before that change.
    import zipfile

    package = Path(engine.__file__).resolve().parents[1]
    archive = tmp_path / "computeops.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in package.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                out.write(path, path.relative_to(package.parent).as_posix())
    env = {"PYTHONPATH": str(archive), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "computeops_cdk.cli", "estimate", "--help"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "--model" in done.stdout


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_do_not_import_shutil(flag: str) -> None:
    # argparse's own width lookup imports shutil, and with it bz2, lzma and fnmatch, on every
    # add_argument: a fifth of what `computeops --version` adds to Python's start (benchmarks/STARTUP.md).
    code = (
        "import json, sys\n"
        "from computeops_cdk.cli import main\n"
        "try:\n"
        f"    main([{flag!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = json.loads(done.stderr.splitlines()[-1])
    assert [name for name in ("shutil", "bz2", "lzma", "fnmatch") if name in modules] == []


@pytest.mark.parametrize(("columns", "widest"), [("50", 48), ("120", 118)])
def test_help_wraps_to_the_width_argparse_would_use(columns: str, widest: int) -> None:
    # The formatter wraps to the width (argparse keeps 2 columns free); which width, for every
    # $COLUMNS and stdout, is test_the_width_is_the_one_shutil_would_give's.
    env = {**os.environ, "COLUMNS": columns}
    script = "import sys\nfrom computeops_cdk.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    done = subprocess.run(
        [sys.executable, "-c", script, "decide", "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    # the argument sections argparse wraps (the description and the examples are printed as written)
    text = done.stdout
    prose = text[text.index("positional arguments:") : text.index("\nexamples:")].splitlines()
    assert max(len(line) for line in prose) <= widest
    assert max(len(line) for line in prose) > widest - 12  # wrapped to that width, not to a narrower one


_WIDTHS = (
    "import json, shutil, sys\n"
    "from computeops_cdk.cli._parser import _terminal_width\n"
    "ours = _terminal_width()\n"
    "sys.stderr.write(json.dumps([ours, shutil.get_terminal_size().columns]))\n"
)


@pytest.mark.parametrize("columns", [None, "50", "0", "-3", "x"])
@pytest.mark.parametrize("tty_columns", [None, 97, 0])
def test_the_width_is_the_one_shutil_would_give(columns: str | None, tty_columns: int | None) -> None:
    # cli._parser._terminal_width stands in for shutil.get_terminal_size (whose import costs --help a
    # fifth of its start): the two must agree for every $COLUMNS and stdout, a terminal of some
    # width (a pty), one reporting 0 columns, or a pipe (None).
    import fcntl
    import pty
    import struct
    import termios

    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = columns
    leader = follower = None
    if tty_columns is not None:
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, tty_columns, 0, 0))
    try:
        done = subprocess.run(
            [sys.executable, "-c", _WIDTHS],
            stdout=follower if follower is not None else subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            check=True,
        )
    finally:
        for fd in (leader, follower):
            if fd is not None:
                os.close(fd)
    ours, theirs = json.loads(done.stderr)
    assert ours == theirs
