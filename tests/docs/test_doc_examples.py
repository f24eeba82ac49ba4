"""The code of README.md and docs/**/*.md runs: every fenced block is checked by its language.

Convention (docs/development.md, "Tests"):

* ``console``: each ``$ computeops ...`` line runs in a temporary directory holding a copy of
  examples/; the lines after it, when any, are its output (stdout and stderr), ``...`` matching any
  text (a line of its own: any lines). A trailing ``# exit N`` is the exit code expected (default 0).
  Only ``computeops`` commands may appear: anything else fails, it is not skipped.
* ``python``: run as a script there, exit 0.
* ``terraform`` / ``hcl``: ``terraform fmt`` leaves it unchanged, and a ``computeops`` provider,
  data source or resource block uses only the arguments the provider's schema has.
* ``yaml`` / ``json``: parse; a YAML document with ``workload`` validates as a WorkloadIntent.
* ``sh``, ``text``, ``mermaid`` and unlabelled blocks are shown, not run; any other language fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _blocks import ROOT, Block, blocks

import computeops_cdk
from computeops_cdk import WorkloadIntent
from computeops_cdk.terraform._provider import provider_spec

SHOWN = {"sh", "text", "mermaid", ""}
CHECKED = {"console", "python", "terraform", "hcl", "yaml", "json"}
ALL = blocks()
SRC = Path(computeops_cdk.__file__).resolve().parents[1]


def _by(*langs: str) -> list[Block]:
    return [b for b in ALL if b.lang in langs]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPUTEOPS_")}
    env["PYTHONPATH"] = str(SRC)  # the package under test, whatever the venv's editable install says
    env["PATH"] = os.pathsep.join(
        [str(ROOT / "node_modules" / ".bin"), str(Path(sys.executable).parent), env["PATH"]]
    )
    env["COLUMNS"] = "120"
    env["PYTHONHASHSEED"] = "0"
    return env


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


def test_every_block_has_a_known_language() -> None:
    unknown = [b.id for b in ALL if b.lang not in SHOWN | CHECKED]
    assert not unknown, f"fenced blocks in a language no rule checks: {unknown}"
    assert _by("console") and _by("python") and _by("terraform", "hcl")


# console ---------------------------------------------------------------------------------------


def _commands(block: Block) -> list[tuple[str, int, list[str]]]:
    """(command, expected exit code, expected output lines) of each ``$`` line of a console block."""
    out: list[tuple[str, int, list[str]]] = []
    for line in block.body.splitlines():
        if line.startswith("$ "):
            command = line[2:].strip()
            code = 0
            match = re.search(r"\s+#\s*exit (\d+)$", command)
            if match:
                code = int(match.group(1))
                command = command[: match.start()]
            out.append((command, code, []))
        else:
            assert out, f"{block.id}: output before any `$ ` line"
            out[-1][2].append(line.rstrip())
    return out


def _pattern(expected: list[str]) -> re.Pattern[str]:
    parts = []
    for line in expected:
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*".join(re.escape(piece) for piece in line.split("...")) + r"[ \t]*\n")
    return re.compile(
        "".join(parts) + r"(?:[^\n]*\n)*" if expected and expected[-1] == "..." else "".join(parts)
    )


@pytest.mark.parametrize("block", _by("console"), ids=lambda b: b.id)
def test_console_blocks_run_and_print_what_they_show(block: Block, workdir: Path) -> None:
    commands = _commands(block)
    assert commands, f"{block.id}: a console block with no `$ ` line"
    for command, code, expected in commands:
        assert command.startswith("computeops "), (
            f"{block.id}: `{command}` is not a computeops command; show it in a ```sh block instead"
        )
        argv = [sys.executable, "-m", "computeops_cdk.cli", *command.split()[1:]]
        run = subprocess.run(
            argv,
            cwd=workdir,
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=60,
        )
        assert run.returncode == code, (
            f"{block.id}: `{command}` exited {run.returncode}\n{run.stdout[-3000:]}"
        )
        if expected:
            output = run.stdout if run.stdout.endswith("\n") else run.stdout + "\n"
            assert _pattern(expected).fullmatch(output), (
                f"{block.id}: `{command}` printed\n{output[:3000]}\nwhich does not match\n"
                + "\n".join(expected)
            )


def test_the_console_pattern_matches_what_it_should() -> None:
    assert _pattern(["a ... c", "..."]).fullmatch("a b c\nmore\nlines\n")
    assert _pattern(["...", "z"]).fullmatch("x\ny\nz\n")
    assert not _pattern(["a", "b"]).fullmatch("a\nc\n")
    assert not _pattern(["a"]).fullmatch("a\nextra\n")


# python ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("block", _by("python"), ids=lambda b: b.id)
def test_python_blocks_run(block: Block, workdir: Path) -> None:
    script = workdir / "block.py"
    script.write_text(block.body, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(script)], cwd=workdir, env=_env(), capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, f"{block.id} failed:\n{run.stderr[-3000:]}"


# terraform / hcl -------------------------------------------------------------------------------


def _arguments() -> dict[tuple[str, str], set[str]]:
    spec = provider_spec()
    out = {("provider", "computeops"): {a.name for a in spec.attributes}}
    for d in spec.data_sources:
        out[("data", f"computeops_{d.name}")] = {a.name for a in d.attributes if a.required or a.optional}
    for r in spec.resources:
        out[("resource", f"computeops_{r.name}")] = {a.name for a in r.attributes if a.required or a.optional}
    return out


def _computeops_blocks(body: str) -> list[tuple[tuple[str, str], list[str]]]:
    """(block kind and type, its top-level argument names) of every computeops block in ``body``."""
    found = []
    lines = body.splitlines()
    for index, line in enumerate(lines):
        match = re.match(r'^(provider|data|resource) "(computeops(?:_\w+)?)"', line)
        if not match:
            continue
        names, depth = [], 0
        for inner in lines[index:]:
            code = inner.split("#", 1)[0]
            if depth == 1:
                arg = re.match(r"^\s*(\w+)\s*=", code)
                if arg:
                    names.append(arg.group(1))
            depth += code.count("{") - code.count("}")
            if depth == 0:
                break
        found.append(((match.group(1), match.group(2)), names))
    return found


@pytest.mark.parametrize("block", _by("terraform", "hcl"), ids=lambda b: b.id)
def test_terraform_blocks_use_the_provider_schema(block: Block) -> None:
    arguments = _arguments()
    for kind, names in _computeops_blocks(block.body):
        assert kind in arguments, f"{block.id}: {kind} is not served by the computeops provider"
        unknown = sorted(set(names) - arguments[kind])
        assert not unknown, f"{block.id}: {kind} has no argument {unknown}"
    for attr in re.findall(
        r"computeops_placement_lock\.\w+\.(\w+)|data\.computeops_placement\.\w+\.(\w+)", block.body
    ):
        name = attr[0] or attr[1]
        spec = provider_spec()
        served = {a.name for r in (*spec.resources, *spec.data_sources) for a in r.attributes}
        assert name in served, f"{block.id}: no attribute {name}"


@pytest.mark.parametrize("block", _by("terraform", "hcl"), ids=lambda b: b.id)
def test_terraform_blocks_are_fmt_clean(block: Block, tmp_path: Path) -> None:
    terraform = shutil.which("terraform") or shutil.which("tofu")
    if terraform is None:
        pytest.skip("neither terraform nor tofu is on PATH: the blocks' formatting is not checked")
    run = subprocess.run(
        [terraform, "fmt", "-"],
        input=block.body,
        capture_output=True,
        text=True,
        timeout=30,
        env={  # never the user's CLI configuration, home or data directory
            **os.environ,
            "CHECKPOINT_DISABLE": "1",
            "HOME": str(tmp_path),
            "TF_CLI_CONFIG_FILE": str(_empty(tmp_path / "terraformrc")),
            "TF_DATA_DIR": str(tmp_path / "data"),
        },
    )
    assert run.returncode == 0, f"{block.id}: terraform fmt refused it:\n{run.stderr}"
    assert run.stdout == block.body, f"{block.id}: terraform fmt would change it to\n{run.stdout}"


def _empty(path: Path) -> Path:
    path.write_text("", encoding="utf-8")
    return path


# yaml / json -----------------------------------------------------------------------------------


@pytest.mark.parametrize("block", _by("yaml"), ids=lambda b: b.id)
def test_yaml_blocks_parse_and_intents_validate(block: Block) -> None:
    document = yaml.safe_load(block.body)
    assert document is not None, f"{block.id}: empty"
    if isinstance(document, dict) and "workload" in document:
        WorkloadIntent.from_dict(document)


@pytest.mark.parametrize("block", _by("json"), ids=lambda b: b.id)
def test_json_blocks_parse(block: Block) -> None:
    json.loads(block.body)
