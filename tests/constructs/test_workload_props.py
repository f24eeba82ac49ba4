"""ComputeWorkload's props are checked eagerly: a wrong type is a TargetError naming the prop and the fix."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from conftest import ROOT

from computeops_cdk.errors import IntentError, TargetError

pytestmark = pytest.mark.synth

SUPPORT_CHAT = ROOT / "examples" / "support-chat.yaml"


def _stack() -> Any:
    from computeops_cdk._compat import App, TerraformStack

    return TerraformStack(App(), "s")


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"cluster": 5},
            "[s/w] 'cluster' must be a string or None (got int 5). To fix: pass cluster='gpu-prod' "
            "(an existing EKS/GKE/AKS cluster), or leave it out for standalone GPU instances.",
        ),
        (
            {"provider": 5},
            "[s/w] 'provider' must be a string or None (got int 5). "
            "To fix: pass provider='aws', or leave it out to let the engine choose.",
        ),
        ({"region": 5}, "[s/w] 'region' must be a string or None (got int 5). To fix: pass region="),
        ({"name": 3}, "[s/w] 'name' must be a string or None (got int 3)."),
        (
            {"tags": ["a"]},
            "[s/w] 'tags' must be a mapping of str -> str, or None (got list ['a']). "
            "To fix: pass e.g. tags={'team': 'ml'}",
        ),
        (
            {"tags": {"a": 1}},
            "[s/w] 'tags' must be a mapping of str -> str: 'a': 1 is str -> int. To fix: tags={'a': '1'}",
        ),
        (
            {"deploy_workload": "no"},
            "[s/w] 'deploy_workload' must be True or False (got str 'no'). "
            "To fix: pass deploy_workload=False or deploy_workload=True.",
        ),
        ({"configure_provider": 0}, "[s/w] 'configure_provider' must be True or False (got int 0)."),
        ({"options": ["x"]}, "[s/w] 'options' must be a mapping of option name (str) -> value, or None"),
        ({"catalog": "catalog.json"}, "[s/w] 'catalog' must be a Catalog or None (got str 'catalog.json')."),
        ({"kubernetes": "ctx"}, "[s/w] 'kubernetes' must be a KubeConnection or None (got str 'ctx')."),
    ],
)
def test_a_prop_of_the_wrong_type_names_prop_value_and_fix(props: dict[str, Any], message: str) -> None:
    from computeops_cdk.constructs import ComputeWorkload

    with pytest.raises(TargetError) as err:
        ComputeWorkload(_stack(), "w", intent=SUPPORT_CHAT, **props)
    assert str(err.value).startswith(message)


def test_kubernetes_without_cluster_is_refused_not_ignored() -> None:
    from computeops_cdk.constructs import ComputeWorkload
    from computeops_cdk.targets.k8s import KubeConnection

    with pytest.raises(TargetError) as err:
        ComputeWorkload(_stack(), "w", intent=SUPPORT_CHAT, kubernetes=KubeConnection.kubeconfig())
    assert str(err.value) == (
        "[s/w] 'kubernetes' is given without 'cluster': it says how to reach a cluster, and no cluster "
        "is named, so it would be ignored. To fix: also pass cluster='<existing cluster>', or leave "
        "kubernetes out."
    )


def test_an_intent_mapping_is_accepted_and_validated_like_decide() -> None:
    from computeops_cdk.constructs import ComputeWorkload

    doc = yaml.safe_load(SUPPORT_CHAT.read_text())
    from_mapping = ComputeWorkload(_stack(), "m", intent=doc, provider="aws")
    from_file = ComputeWorkload(_stack(), "f", intent=SUPPORT_CHAT, provider="aws")
    assert from_mapping.decision.to_json() == from_file.decision.to_json()
    doc["workload"]["serving"]["output_tokens_per_s"] = -5
    # As decide() words it, after the construct path (issue 10: which workload of the app is wrong).
    with pytest.raises(
        IntentError, match=r"^\[s/bad\] workload.serving.output_tokens_per_s: must be > 0 \(got -5\)$"
    ):
        ComputeWorkload(_stack(), "bad", intent=doc)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"provider": "aws", "options": {"subnet_idz": ["subnet-1"]}},
            "[s/w] unknown option 'subnet_idz': not an option of the aws target "
            "(did you mean 'subnet_ids'?). "
            "To fix: use one of ami_name, api_key_secret, certificate_arn, command, container_image, "
            "efa_network_cards, env, eval_entrypoint, expose, hf_token_secret, image_id, model_url, port, "
            "root_volume_gib, subnet_ids, user_data, user_data_append, vpc_endpoints, vpc_id, weights_uri "
            "(documented in computeops_cdk.targets.aws), or drop it.",
        ),
        (
            {"options": {"subnet_idz": ["subnet-1"]}},
            "[s/w] unknown option 'subnet_idz': not an option of any target (did you mean 'subnet_id' or "
            "'subnet_ids'",
        ),
        (
            {"provider": "aws", "options": {"namespace": "ml"}},
            "[s/w] option 'namespace' is read by the Kubernetes layer, which runs only with 'cluster'. "
            "To fix: also pass cluster='<existing cluster>', or drop 'namespace'.",
        ),
        (
            {"provider": "aws", "cluster": "gpu-prod", "options": {"namespce": "ml"}},
            "[s/w] unknown option 'namespce': not an option of the aws target or the Kubernetes layer "
            "(did you mean 'namespace'?).",
        ),
        # Keys the construct sets itself are not user options.
        ({"provider": "aws", "options": {"chosen_by": "me"}}, "[s/w] unknown option 'chosen_by'"),
    ],
)
def test_an_option_no_one_reads_is_refused_with_did_you_mean(props: dict[str, Any], message: str) -> None:
    from computeops_cdk.constructs import ComputeWorkload

    with pytest.raises(TargetError) as err:
        ComputeWorkload(_stack(), "w", intent=SUPPORT_CHAT, **props)
    assert str(err.value).startswith(message)


def test_options_for_several_providers_are_accepted_when_the_engine_chooses() -> None:
    from computeops_cdk.constructs import ComputeWorkload

    options = {"project": "p", "subnet_ids": ["subnet-1"], "image": "img", "ssh_key_name": "k"}
    workload = ComputeWorkload(_stack(), "w", intent=SUPPORT_CHAT, options=options)
    assert dict(workload.props.options).items() >= options.items()


def test_target_errors_raised_while_emitting_carry_the_construct_path() -> None:
    from computeops_cdk.constructs import ComputeWorkload

    # A bad option value, found by the target inside emit.
    with pytest.raises(TargetError) as err:
        ComputeWorkload(
            _stack(), "w", intent=SUPPORT_CHAT, provider="aws", options={"root_volume_gib": "big"}
        )
    assert str(err.value) == (
        "[s/w] aws option 'root_volume_gib' must be a whole number of GiB >= 1 (got 'big'). "
        "To fix: options={'root_volume_gib': 500} (the default)"
    )
    # A TPU placement on a GKE cluster: the gcp target declares TPU node pools unsupported, so the
    # engine rejects the pinned candidates (the target's own emit check stays as a second line).
    doc = yaml.safe_load(SUPPORT_CHAT.read_text())
    doc["constraints"] = {"accelerators": {"allow": ["tpu-v5e"]}}
    doc["workload"]["model"] = {"name": "llama-3.1-8b", "precision": "bf16"}
    doc["workload"]["serving"] = {"output_tokens_per_s": 1000}
    with pytest.raises(TargetError) as err:
        ComputeWorkload(_stack(), "tpu", intent=doc, provider="gcp", cluster="gke")
    message = str(err.value)
    assert message.startswith("[s/tpu] the pinned placement (provider=gcp) violates the intent's hard")
    # TPU candidates fall to target.unsupported; the nearest viable ones are GPUs the allow-list keeps out.
    assert "accelerator.not_allowed" in message and "target.unsupported" in message


def test_a_chat_intent_naming_a_hub_repo_is_served_that_repo_at_its_precision() -> None:
    import json

    from computeops_cdk._compat import Testing
    from computeops_cdk.constructs import ComputeWorkload

    doc = yaml.safe_load(SUPPORT_CHAT.read_text())
    # Regression: the registry's first hub id (the base repo) was served for an Instruct intent, and
    # the intent's fp8 (which the sizing assumed) reached no server flag.
    doc["workload"]["model"]["name"] = "meta-llama/Llama-3.1-70B-Instruct"
    stack = _stack()
    w = ComputeWorkload(stack, "w", intent=doc, provider="aws")
    (instance,) = json.loads(Testing.synth(stack))["resource"]["aws_instance"].values()
    assert "MODEL=meta-llama/Llama-3.1-70B-Instruct\n" in instance["user_data"]
    assert "--quantization fp8" in instance["user_data"]
    assert w.props.precision == "fp8"
    doc["workload"]["model"]["name"] = "llama-3.1-70b"  # a registry name: the registry's repo, as before
    assert (
        ComputeWorkload(_stack(), "r", intent=doc, provider="aws").props.model == "meta-llama/Llama-3.1-70B"
    )


def test_synth_warns_when_the_boot_would_predictably_fail_or_idle() -> None:
    from computeops_cdk.constructs import ComputeWorkload

    def warnings(intent: Any, **options: Any) -> list[str]:
        w = ComputeWorkload(_stack(), "w", intent=intent, provider="aws", options=options or None)
        return [str(m.data) for m in w.node.metadata if "warn" in m.type]

    # A gated model (meta-llama) without a token or weights: the download at boot would be a 401.
    assert any("gated Hugging Face model" in w for w in warnings(SUPPORT_CHAT))
    secret = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf"
    assert not any("gated" in w for w in warnings(SUPPORT_CHAT, hf_token_secret=secret))
    # Training without a command: the default checks the GPUs and exits while the machines bill.
    training = ROOT / "examples" / "lora-finetune.yaml"
    assert any("no 'command' is given" in w for w in warnings(training))
    assert not any("no 'command'" in w for w in warnings(training, command=["torchrun", "train.py"]))


def test_the_gcp_example_says_where_its_project_comes_from() -> None:
    text = (ROOT / "stacks" / "finetune-gcp" / "main.py").read_text()
    assert "GOOGLE_PROJECT" not in text and "gcp_project" in text


def test_a_stack_refuses_an_engine_it_would_not_run() -> None:
    # the stacks boot vLLM; an intent naming SGLang was sized for SGLang (on AMD about 1.85x vLLM's
    # measured throughput) and silently ran vLLM
    from computeops_cdk.constructs import ComputeWorkload

    doc = yaml.safe_load(SUPPORT_CHAT.read_text())
    doc["workload"]["serving"]["engine"] = "sglang"
    with pytest.raises(TargetError) as err:
        ComputeWorkload(_stack(), "w", intent=doc, provider="aws")
    message = str(err.value)
    assert message.startswith("[s/w] serving.engine is sglang, but this stack runs vLLM")
    assert "To fix: name serving.engine: vllm (or none)" in message and "user_data" in message
    with pytest.raises(TargetError, match="deploy_workload=False"):
        ComputeWorkload(_stack(), "k", intent=doc, provider="aws", cluster="gpu-prod")
    # your own boot script, or your own workload on the cluster, runs what you chose
    ComputeWorkload(_stack(), "own", intent=doc, provider="aws", options={"user_data": "#!/bin/sh\n"})
    ComputeWorkload(_stack(), "c", intent=doc, provider="aws", cluster="gpu-prod", deploy_workload=False)
    doc["workload"]["serving"]["engine"] = "vllm"
    ComputeWorkload(_stack(), "v", intent=doc, provider="aws")
