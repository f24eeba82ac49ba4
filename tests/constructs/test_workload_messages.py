"""Issue 10 (messages and records): the construct path in intent errors, intent paths relative to the
app, the decision record's rejection listing, and a missing k8s extra named as such."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from computeops_cdk.cli import main as cli_main
from computeops_cdk.errors import IntentError, TargetError

pytestmark = pytest.mark.synth

SUPPORT_CHAT = ROOT / "examples" / "support-chat.yaml"


def _stack() -> object:
    from computeops_cdk._compat import App, TerraformStack

    return TerraformStack(App(), "app-stack")


def test_an_invalid_intent_names_the_construct_path(tmp_path: Path) -> None:
    from computeops_cdk.constructs import ComputeWorkload

    doc = yaml.safe_load(SUPPORT_CHAT.read_text())
    doc["constraints"]["residency"] = {"countries": ["fr"]}
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(IntentError) as caught:
        ComputeWorkload(_stack(), "chat", intent=bad)
    assert str(caught.value).startswith("[app-stack/chat] constraints.residency.countries[0]: 'fr' is not")
    assert str(caught.value).endswith("(did you mean 'FR'?)")
    assert caught.value.path == "constraints.residency.countries[0]"
    # A name only the catalog can check (decided at construction) names the construct too.
    doc = yaml.safe_load(SUPPORT_CHAT.read_text())
    doc["constraints"]["accelerators"] = {"allow": ["H1OO"]}
    with pytest.raises(IntentError) as caught:
        ComputeWorkload(_stack(), "chat2", intent=doc)
    assert str(caught.value).startswith("[app-stack/chat2] constraints.accelerators.allow[0]: ")


def test_a_relative_intent_path_is_relative_to_the_app_not_the_current_directory(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "cdktf.json").write_text('{"language": "python", "app": "python main.py"}', encoding="utf-8")
    (app / "intent.yaml").write_text(SUPPORT_CHAT.read_text(), encoding="utf-8")
    (app / "main.py").write_text(
        textwrap.dedent(
            """
            from computeops_cdk._compat import App
            from computeops_cdk.constructs import WorkloadStack
            stack = WorkloadStack(App(), "s", intent="intent.yaml", provider="lambda")
            print(stack.decision.intent_name)
            """
        ),
        encoding="utf-8",
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run(
        [sys.executable, str(app / "main.py")], cwd=elsewhere, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "support-chat"


def test_the_record_lists_rejections_as_the_cli_does_with_the_same_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from computeops_cdk._compat import App
    from computeops_cdk.constructs import WorkloadStack

    app = App(outdir=str(tmp_path))
    WorkloadStack(app, "all", intent=SUPPORT_CHAT, provider="lambda", rejections="all")
    WorkloadStack(app, "summary", intent=SUPPORT_CHAT, provider="lambda")
    app.synth()
    for name, flags in (("all", ["--rejections", "all"]), ("summary", [])):
        argv = ["decide", str(SUPPORT_CHAT), "--format", "json", "--provider", "lambda", *flags]
        assert cli_main(argv) == 0
        record = json.loads((tmp_path / "stacks" / name / "computeops-decision.json").read_text("utf-8"))
        # The record is the CLI's document plus the stack's cost (its last explanation line too).
        cost = record.pop("stack_cost")
        assert record["explanation"].pop() == cost["explanation"]
        assert json.dumps(record, indent=2, ensure_ascii=False) + "\n" == capsys.readouterr().out
    full = json.loads((tmp_path / "stacks" / "all" / "computeops-decision.json").read_text())
    assert len(full["rejected"]) == full["summary"]["rejected"]


def test_a_wrong_rejections_prop_is_refused() -> None:
    from computeops_cdk.constructs import ComputeWorkload

    with pytest.raises(TargetError, match=r"\[app-stack/w\] 'rejections' must be 'summary' or 'all'"):
        ComputeWorkload(_stack(), "w", intent=SUPPORT_CHAT, provider="lambda", rejections="some")


def test_a_cluster_without_the_k8s_extra_names_the_extra_not_a_choice() -> None:
    block = textwrap.dedent(
        """
        import importlib.abc, sys
        class _Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "cdktn_provider_kubernetes":
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None
        sys.meta_path.insert(0, _Block())
        from computeops_cdk._compat import App, Testing
        from computeops_cdk.constructs import WorkloadStack
        from computeops_cdk.errors import MissingExtraError
        try:
            WorkloadStack(App(), "s", intent=sys.argv[1], provider="gcp", cluster="prod")
        except MissingExtraError as err:
            print(err.extra, "|", err)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", block, str(SUPPORT_CHAT)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == (
        "k8s | cluster= runs the workload through the Kubernetes and Helm providers; install "
        "computeops-cdk[k8s] (the kubernetes binding, cdktn-provider-kubernetes, is not installed). "
        "To fix: pip install 'computeops-cdk[k8s]'."
    )
