"""examples/ci/reevaluate.yml: valid YAML, the jobs the CI page documents, command lines the CLI parses."""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest
import yaml
from _blocks import ROOT

from computeops_cdk.cli import build_parser

WORKFLOW = ROOT / "examples" / "ci" / "reevaluate.yml"


def _workflow() -> dict[Any, Any]:
    loaded = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def _command_lines() -> list[list[str]]:
    """Every `computeops ...` line the workflow runs, with its variables as a run would expand them."""
    doc = _workflow()
    env = {key: str(value) for key, value in doc["env"].items()}
    lines = []
    for job in doc["jobs"].values():
        for step in job["steps"]:
            for line in str(step.get("run", "")).splitlines():
                line = line.strip()
                if not line.startswith("computeops "):
                    continue
                line = line.replace("${{ steps.catalog.outputs.args }}", "--catalog refreshed.json")
                assert "${{" not in line, line
                words = shlex.split(line)
                if ">" in words:
                    words = words[: words.index(">")]
                words = [re.sub(r"\$\{?(\w+)\}?", lambda m: env[m.group(1)], w) for w in words]
                lines.append(words)
    return lines


def test_the_workflow_has_its_triggers_and_jobs() -> None:
    doc = _workflow()
    triggers = doc[True]  # YAML 1.1 reads the key `on` as true, as GitHub's own parser does not
    assert set(triggers) == {"schedule", "workflow_dispatch", "pull_request"}
    assert triggers["schedule"][0]["cron"].count(" ") == 4
    assert set(doc["jobs"]) == {"comment", "relock"}
    assert doc["jobs"]["comment"]["if"] == "github.event_name == 'pull_request'"
    assert doc["jobs"]["relock"]["if"] == "github.event_name != 'pull_request'"
    assert doc["permissions"] == {"contents": "write", "pull-requests": "write"}
    for job in doc["jobs"].values():
        names = [step.get("uses", step.get("name", step.get("id"))) for step in job["steps"]]
        assert names[:2] == ["actions/checkout@v4", "actions/setup-python@v5"]


def test_the_reevaluate_exit_codes_drive_the_steps() -> None:
    """4 (drift) comments or relocks; anything but 0 and 4 fails the job."""
    for job in _workflow()["jobs"].values():
        steps = {step.get("id") or step.get("name"): step for step in job["steps"]}
        assert "reevaluate" in steps
        assert 'echo "code=$?" >> "$GITHUB_OUTPUT"' in steps["reevaluate"]["run"]
        fail = steps["fail on an infeasible lock or invalid input"]
        assert fail["if"] == "steps.reevaluate.outputs.code != '0' && steps.reevaluate.outputs.code != '4'"
    relock = {s.get("name"): s for s in _workflow()["jobs"]["relock"]["steps"]}
    assert relock["open or update the relock pull request"]["if"] == "steps.reevaluate.outputs.code == '4'"


@pytest.mark.parametrize("words", _command_lines(), ids=lambda w: " ".join(w[:3]))
def test_every_command_line_parses_with_the_real_parser(words: list[str]) -> None:
    command = words[1]
    args = build_parser(command).parse_args(words[1:])
    assert callable(args.handler)
    if command == "reevaluate":
        assert args.format == "markdown"
        assert args.files == ["computeops.lock.json"]


def test_the_workflow_runs_reevaluate_refresh_and_lock_update() -> None:
    commands = {tuple(words[1:3]) for words in _command_lines()}
    assert ("reevaluate", "computeops.lock.json") in commands
    assert ("catalog", "refresh") in commands
    assert ("lock", "update") in commands
