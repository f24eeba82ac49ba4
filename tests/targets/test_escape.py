"""No string reaches Terraform as a template (issue 10 section 1): ``${`` -> ``$${``, ``%{`` -> ``%%{``
in everything every target writes, cdktn references left working.

The reproducer ``us-east-1${file("/etc/passwd")}`` is refused when a catalog is loaded
(tests/catalog/test_catalog_hardening.py); here it reaches the targets by the other paths: a
hand-built placement, an option, a tag.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import make_placement as placement
from targets_testdata import resources, synth_cases

from computeops_cdk.errors import TargetError
from computeops_cdk.targets import TARGETS
from computeops_cdk.targets._base import TargetProps
from computeops_cdk.targets._escape import escape_templates
from computeops_cdk.targets.crusoe import CrusoeTarget
from computeops_cdk.targets.lambda_ import LambdaTarget
from computeops_cdk.targets.nebius import NebiusTarget
from computeops_cdk.targets.runpod import RunPodTarget
from computeops_cdk.targets.vast import VastTarget

pytestmark = pytest.mark.synth

EVIL = 'us-east-1${file("/etc/passwd")}'
SAFE = 'us-east-1$${file("/etc/passwd")}'
DIRECTIVE = '%{ for f in fileset("/", "**") }${f}%{ endfor }'
DIRECTIVE_SAFE = '%%{ for f in fileset("/", "**") }$${f}%%{ endfor }'


def test_the_helper_escapes_literals_and_keeps_tokens() -> None:
    assert escape_templates(EVIL) == SAFE
    assert escape_templates(DIRECTIVE) == DIRECTIVE_SAFE
    assert escape_templates("a-${TfToken[TOKEN.12]}-${x}") == "a-${TfToken[TOKEN.12]}-$${x}"
    assert escape_templates({"k": ["${a}", 1, None, {"n": "%{b}"}]}) == {
        "k": ["$${a}", 1, None, {"n": "%%{b}"}]
    }
    assert escape_templates("plain {braces} $ and %") == "plain {braces} $ and %"


def test_every_target_registers_the_escape() -> None:
    for target in TARGETS.values():
        for name in ("configure", "emit", "kube_connection"):
            method = getattr(type(target), name)
            if name in type(target).__dict__:
                assert getattr(method, "_protects_stack", False), f"{target.provider}.{name}"


def test_a_template_in_a_tag_or_option_key_is_refused() -> None:
    with pytest.raises(TargetError, match="template syntax"):
        TargetProps(name="x", tags={'${file("/etc/passwd")}': "v"})
    with pytest.raises(TargetError, match="template syntax"):
        TargetProps(name="x", options={"env": {"%{ if true }": "v"}})


def _props(**options: Any) -> TargetProps:
    return TargetProps(name="evil", tags={"team": EVIL}, options=options)


@pytest.fixture(scope="module")
def synth() -> tuple[dict[str, Any], dict[str, Any]]:
    cases = {
        "lambda": (
            LambdaTarget(),
            placement(provider="lambda", instance_type="gpu_1x_h100_pcie", region=EVIL),
            _props(ssh_key_name=DIRECTIVE),
        ),
        "runpod": (
            RunPodTarget(),
            placement(provider="runpod", instance_type="1x_H100-SXM_SECURE", region=EVIL),
            _props(env={"NOTE": DIRECTIVE}),
        ),
        "vast": (
            VastTarget(),
            placement(provider="vast", instance_type="1x-H100_SXM-32-65536", region="us", country=EVIL),
            _props(),
        ),
        "nebius": (
            NebiusTarget(),
            placement(provider="nebius", instance_type="gpu-h100-sxm_1gpu-16vcpu-200gb", region=EVIL),
            _props(project_id=EVIL, subnet_id=DIRECTIVE, image_family=EVIL),
        ),
        "crusoe": (
            CrusoeTarget(),
            placement(provider="crusoe", instance_type="crusoe_L40Sx4", region=EVIL),
            _props(ssh_public_key=EVIL, image=DIRECTIVE),
        ),
    }
    doc, roles = synth_cases("escape", cases)
    return doc, roles


def test_a_hostile_region_reaches_lambda_escaped(synth: tuple[dict[str, Any], dict[str, Any]]) -> None:
    doc, _ = synth
    (instance,) = resources(doc, "lambdalabs_instance", "lambda")
    assert instance["region_name"] == SAFE
    assert instance["ssh_key_names"] == [DIRECTIVE_SAFE]


def test_options_and_tags_reach_every_generic_target_escaped(
    synth: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    doc, _ = synth
    (pod,) = resources(doc, "runpod_pod", "runpod")
    assert pod["env"]["NOTE"] == DIRECTIVE_SAFE
    (offers,) = resources(doc, "vastai_gpu_offers", "vast", section="data")
    assert offers["region"] == SAFE
    (nebius,) = resources(doc, "nebius_compute_v1_instance", "nebius")
    assert nebius["parent_id"] == SAFE and nebius["labels"]["team"] == SAFE
    assert nebius["network_interfaces"][0]["subnet_id"] == DIRECTIVE_SAFE
    image = nebius["boot_disk"]["managed_disk"]["spec"]["source_image_family"]["image_family"]
    assert image == SAFE
    (crusoe,) = resources(doc, "crusoe_compute_instance", "crusoe")
    assert crusoe["location"] == SAFE and crusoe["ssh_key"] == SAFE and crusoe["image"] == DIRECTIVE_SAFE


def test_no_unescaped_template_is_left_anywhere(synth: tuple[dict[str, Any], dict[str, Any]]) -> None:
    doc, _ = synth
    # Every `${` left is a reference the targets made (a cdktn token resolved at synth), never ours.
    import json
    import re

    text = json.dumps(doc)
    for match in re.finditer(r"(?<!\$)\$\{([^}]*)\}", text):
        assert match.group(1).startswith(("var.", "data.", "lambdalabs_", "nebius_", "crusoe_")), match.group(
            0
        )
    assert not re.search(r"(?<!%)%\{", text)


@pytest.mark.parametrize("provider", ["runpod", "aws"])
def test_through_the_construct_options_tags_and_outputs_are_escaped(provider: str) -> None:
    import json

    from computeops_cdk._compat import Testing
    from computeops_cdk.constructs import WorkloadStack

    options = {"env": {"NOTE": EVIL}} if provider == "runpod" else {"ami_name": EVIL}
    stack = WorkloadStack(
        Testing.app(),
        f"escape-{provider}",
        intent=Path(__file__).resolve().parents[2] / "examples" / "support-chat.yaml",
        provider=provider,
        tags={"team": EVIL},
        options=options,
    )
    doc = json.loads(Testing.synth(stack))
    text = json.dumps(doc)
    assert EVIL not in text.replace(SAFE, "")
    if provider == "runpod":
        assert {pod["env"]["NOTE"] for pod in doc["resource"]["runpod_pod"].values()} == {SAFE}
    else:
        (instance,) = doc["resource"]["aws_instance"].values()
        assert instance["tags"]["team"] == SAFE
        (ami,) = doc["data"]["aws_ami"].values()
        assert ami["filter"][0]["values"] == [SAFE]
        (provider_block,) = doc["provider"]["aws"]
        assert provider_block["default_tags"][0]["tags"]["team"] == SAFE


def test_every_default_image_is_a_pinned_tag() -> None:
    # Vast.ai's default was vllm/vllm-openai:latest: a re-apply could run different software.
    from computeops_cdk.targets import k8s, runpod, vast

    for image in (
        vast.DEFAULT_IMAGE,
        runpod.DEFAULT_IMAGE,
        k8s.DEFAULT_VLLM_IMAGE,
        k8s.DEFAULT_TRAINING_IMAGE,
    ):
        name, _, tag = image.rpartition(":")
        assert name and tag and tag != "latest", image
    assert vast.DEFAULT_IMAGE == k8s.DEFAULT_VLLM_IMAGE == "vllm/vllm-openai:v0.10.0"


def test_a_boot_script_reaches_terraform_escaped_once() -> None:
    # The boot script is plain shell ("${DEVICES[@]}", user env values); escaping it at the source as
    # well as at synth made "$$${": the machine then ran a broken script. One escape, at synth.
    cases = {
        "runpod": (
            RunPodTarget(),
            placement(provider="runpod", instance_type="1x_H100-SXM_SECURE", region="US-TX-3"),
            TargetProps(name="w", options={"env": {"GREETING": "${HOME} %{x}"}}),
        ),
    }
    doc, _ = synth_cases("escape-once", cases)
    text = json.dumps(doc)
    assert "$${HOME} %%{x}" in text and "$$${" not in text and "%%%{" not in text
