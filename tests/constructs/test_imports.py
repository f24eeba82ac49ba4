"""Only what is chosen is imported; a missing binding is a clear MissingExtraError.

Each test runs in a fresh interpreter so the module cache shows exactly what one synth imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT, SESSION_TMP

pytestmark = pytest.mark.synth

_SYNTH = """
import json, sys
from computeops_cdk._compat import App, Testing
from computeops_cdk.constructs import WorkloadStack
stack = WorkloadStack(App(), "s", intent={intent!r}{pin})
Testing.synth(stack)
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules if m.startswith("cdktn_provider")}})))
"""

# A meta-path finder that makes one binding look uninstalled, without uninstalling it.
_BLOCK = """
import importlib.abc, sys
class _Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, _Block())
"""


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True, check=False
    )


def _bindings(intent: str, pin: str = "") -> list[str]:
    result = _run(_SYNTH.format(intent=str(ROOT / "examples" / intent), pin=pin))
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_an_aws_placement_imports_the_aws_binding_only_and_a_cluster_adds_kubernetes_helm() -> None:
    # One interpreter: the first report is taken before any cluster stack exists.
    code = _SYNTH.format(intent=str(ROOT / "examples" / "support-chat.yaml"), pin=', provider="aws"')
    code += textwrap.dedent(
        """
        stack = WorkloadStack(App(), "k", intent={intent!r}, provider="aws", cluster="prod")
        Testing.synth(stack)
        print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules if m.startswith("cdktn_provider")}})))
        """
    ).format(intent=str(ROOT / "examples" / "support-chat.yaml"))
    result = _run(code)
    assert result.returncode == 0, result.stderr[-2000:]
    aws_only, with_cluster = (json.loads(line) for line in result.stdout.strip().splitlines()[-2:])
    assert aws_only == ["cdktn_provider_aws"]
    assert with_cluster == ["cdktn_provider_aws", "cdktn_provider_helm", "cdktn_provider_kubernetes"]


def test_the_suite_gives_the_processes_it_starts_a_temporary_directory_of_their_own(tmp_path: Path) -> None:
    # conftest's SESSION_TMP, removed at exit: Node puts every Testing.synth folder under TMPDIR.
    assert os.environ["TMPDIR"] == SESSION_TMP and Path(SESSION_TMP).is_dir()
    assert Path(tempfile.gettempdir()) != Path(SESSION_TMP)
    node_tmp = tmp_path / "node-tmp"
    node_tmp.mkdir()
    code = "from computeops_cdk._compat import Testing\nprint(Testing.app().outdir)"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "TMPDIR": str(node_tmp)},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    made = Path(result.stdout.strip().splitlines()[-1])
    assert made.parent == node_tmp and made.name.startswith("cdktf.outdir.")


def test_a_generic_resource_placement_imports_no_binding() -> None:
    # support-chat left to the engine lands on a provider without a prebuilt binding.
    assert _bindings("support-chat.yaml") == []


def _missing(blocked: str, intent: str, pin: str = "") -> str:
    code = _BLOCK.format(blocked=blocked) + textwrap.dedent(
        """
        from computeops_cdk.errors import MissingExtraError
        try:
        """
    )
    body = _SYNTH.format(intent=str(ROOT / "examples" / intent), pin=pin)
    code += (
        textwrap.indent(body, "    ") + "\nexcept MissingExtraError as err:\n    print(err.extra, '|', err)\n"
    )
    result = _run(code)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip().splitlines()[-1]


def test_missing_extra_names_the_engines_choice_and_the_extra() -> None:
    # llama-8b-pretrain left to the engine lands on a GCP TPU.
    line = _missing("cdktn_provider_google_beta", "llama-8b-pretrain.yaml")
    assert line == (
        "gcp | the engine chose gcp; install computeops-cdk[gcp] (the google_beta binding, "
        "cdktn-provider-google-beta, is not installed). To fix: pip install 'computeops-cdk[gcp]'."
    )


def test_missing_extra_for_a_pinned_provider_says_so() -> None:
    line = _missing("cdktn_provider_aws", "support-chat.yaml", ', provider="aws"')
    assert line.startswith("aws | your pin chose aws; install computeops-cdk[aws] (the aws binding")


def test_each_binding_names_the_distribution_the_extras_install() -> None:
    # MissingExtraError names the binding's distribution: for cdktn the one computeops-cdk's extra
    # installs (pyproject), for cdktf the legacy prebuilt package of the same provider.
    import tomllib

    from computeops_cdk._compat import _BINDINGS

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for cdktn_module, cdktf_module, extra in _BINDINGS.values():
        distribution = cdktn_module.replace("_", "-")
        assert any(req.startswith(f"{distribution}>=") for req in extras[extra]), (distribution, extra)
        assert cdktf_module.replace("_", "-") == "cdktf-cdktf-" + distribution.removeprefix("cdktn-")
