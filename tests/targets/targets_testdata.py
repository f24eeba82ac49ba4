"""Helpers shared by the target tests (a plain module: test files import it by name).

``synth_cases`` builds one stack per test module (called from a module-scoped fixture), so each
binding is imported once per test run; ``resources`` and ``checkov_failures`` read its JSON.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from computeops_cdk.engine import Placement
from computeops_cdk.targets._base import Target, TargetProps

_CHECKOV = shutil.which("checkov", path=str(Path(sys.executable).parent))

needs_checkov = pytest.mark.skipif(_CHECKOV is None, reason="no checkov")
"""Skip a test when checkov is not installed in the test interpreter's environment."""


def synth_cases(
    stack_id: str, cases: Mapping[str, tuple[Target, Placement, TargetProps]]
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Emit each case under a construct named by its key in one stack; return (synth JSON, roles).

    Each provider gets one block, configured from its first case, as the construct does (it aliases
    blocks of other regions). Roles are what each ``emit`` returned, by case key.
    """
    from constructs import Construct

    from computeops_cdk._compat import TerraformStack, Testing

    stack = TerraformStack(Testing.app(), stack_id)
    providers: dict[str, Any] = {}
    roles = {}
    for key, (target, placement, props) in cases.items():
        if target.provider not in providers:
            providers[target.provider] = target.configure(stack, region=placement.region, props=props)
        roles[key] = target.emit(
            Construct(stack, key), placement, provider=providers[target.provider], props=props
        )
    return json.loads(Testing.synth(stack)), roles


def resources(
    doc: Mapping[str, Any], kind: str, prefix: str, section: str = "resource"
) -> list[dict[str, Any]]:
    """The ``kind`` blocks of ``doc[section]`` emitted under construct ``prefix``, by logical id."""
    found = doc[section].get(kind, {})
    return [found[name] for name in sorted(found) if name.startswith(f"{prefix}_")]


def checkov_failures(
    doc: Mapping[str, Any], skips: Mapping[str, str], tmp_path: Path
) -> list[tuple[str, str]]:
    """(check id, resource) of every check checkov fails on ``doc``, run as a user runs it: with the
    ``.checkov.yaml`` a synth writes for the target's ``skips`` (and computeops's policies)."""
    from computeops_cdk.checkov_policies import CONFIG_FILE, write_config

    assert _CHECKOV is not None
    (tmp_path / "cdk.tf.json").write_text(json.dumps(doc))
    write_config(tmp_path, skips)
    args = [_CHECKOV, "--config-file", str(tmp_path / CONFIG_FILE), "-d", str(tmp_path), "--quiet"]
    report = json.loads(
        subprocess.run(
            [*args, "--compact", "-o", "json"], capture_output=True, text=True, cwd=tmp_path
        ).stdout
    )
    return [(c["check_id"], c["resource"]) for c in report["results"]["failed_checks"]]
