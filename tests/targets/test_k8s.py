"""Kubernetes/Helm layer: vLLM release values and training Jobs from a placement (one synth per shape)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from conftest import make_placement

from computeops_cdk.engine import EstimateSummary
from computeops_cdk.targets.k8s import (
    KubeConnection,
    gpu_label_value,
    gpu_tolerations,
    node_selector,
    serving_shape,
)


def _synth(name: str, placement: Any, kind: str, connection: KubeConnection, **spec: Any) -> dict[str, Any]:
    from computeops_cdk._compat import TerraformStack, Testing
    from computeops_cdk.targets.k8s import KubernetesLayer, WorkloadSpec

    stack = TerraformStack(Testing.app(), name)
    layer = KubernetesLayer()
    layer.configure(stack, connection)
    layer.emit(stack, placement, WorkloadSpec(kind=kind, name=name, model_url="org/model", **spec))
    return json.loads(Testing.synth(stack))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def stacks() -> dict[str, dict[str, Any]]:
    tp4 = EstimateSummary(
        tokens_per_s=1.0, ttft_ms=None, tpot_ms=None, model="t", tensor_parallel=4, replicas=6
    )
    eks = KubeConnection.exec_plugin(
        host="https://eks", cluster_ca_certificate="CA", command="aws", args=["eks", "get-token"]
    )
    return {
        "serve": _synth("serve", make_placement(instances=3, estimate=tp4), "inference", eks),
        "serve_native": _synth(
            "native",
            make_placement(provider="azure", pricing="spot", instance_type="Standard_ND96isr_H100_v5"),
            "inference",
            KubeConnection.kubeconfig(context="aks"),
            own_pool=False,
        ),
        "train": _synth("train", make_placement(instances=2, training=True), "training", eks),
        "tune": _synth(
            "tune",
            make_placement(training=True, accelerators_per_instance=4),
            "fine_tuning",
            KubeConnection.kubeconfig(),
            image="registry.example/trainer:1.2",
            command=("torchrun", "train.py"),
        ),
    }


def _values(doc: dict[str, Any]) -> dict[str, Any]:
    (release,) = doc["resource"]["helm_release"].values()
    (values,) = release["values"]
    return yaml.safe_load(values)  # type: ignore[no-any-return]


pytestmark = pytest.mark.synth


def test_inference_is_the_vllm_production_stack_chart(stacks: dict[str, dict[str, Any]]) -> None:
    (release,) = stacks["serve"]["resource"]["helm_release"].values()
    assert release["repository"] == "https://vllm-project.github.io/production-stack"
    assert release["chart"] == "vllm-stack"
    assert release["version"] == "0.1.12"
    assert release["namespace"] == "${kubernetes_namespace_v1.namespace.metadata[0].name}"
    assert "kubernetes_job_v1" not in stacks["serve"]["resource"]


def test_vllm_values_size_replicas_and_gpus_from_the_estimate(stacks: dict[str, dict[str, Any]]) -> None:
    (model,) = _values(stacks["serve"])["servingEngineSpec"]["modelSpec"]
    assert model["modelURL"] == "org/model"
    assert (model["replicaCount"], model["requestGPU"]) == (6, 4)
    assert model["vllmConfig"] == {"tensorParallelSize": 4}
    assert model["nodeSelectorTerms"] == [
        {"matchExpressions": [{"key": "computeops.io/gpu", "operator": "In", "values": ["h100-sxm"]}]}
    ]
    assert model["tolerations"] == [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}]
    assert model["shmSize"] == "20Gi"
    assert (model["repository"], model["tag"]) == ("vllm/vllm-openai", "v0.10.0")


def test_foreign_pool_uses_instance_type_and_aks_spot_toleration(stacks: dict[str, dict[str, Any]]) -> None:
    (model,) = _values(stacks["serve_native"])["servingEngineSpec"]["modelSpec"]
    (term,) = model["nodeSelectorTerms"]
    assert term["matchExpressions"][0]["key"] == "node.kubernetes.io/instance-type"
    assert term["matchExpressions"][0]["values"] == ["Standard_ND96isr_H100_v5"]
    assert {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot"} | {
        "effect": "NoSchedule"
    } in model["tolerations"]


def test_providers_get_exec_auth_or_kubeconfig(stacks: dict[str, dict[str, Any]]) -> None:
    (kube,) = stacks["serve"]["provider"]["kubernetes"]
    assert kube["host"] == "https://eks"
    assert kube["exec"] == [
        {
            "api_version": "client.authentication.k8s.io/v1beta1",
            "args": ["eks", "get-token"],
            "command": "aws",
        }
    ]
    (helm,) = stacks["serve"]["provider"]["helm"]
    assert helm["kubernetes"]["exec"]["command"] == "aws"
    (kube,) = stacks["serve_native"]["provider"]["kubernetes"]
    assert kube == {"config_context": "aks", "config_path": "~/.kube/config"}


def test_training_is_an_indexed_job_requesting_gpus(stacks: dict[str, dict[str, Any]]) -> None:
    doc = stacks["train"]
    assert "helm_release" not in doc["resource"]
    (job,) = doc["resource"]["kubernetes_job_v1"].values()
    spec = job["spec"]
    assert (spec["completions"], spec["parallelism"], spec["completion_mode"]) == (2, 2, "Indexed")
    assert job["wait_for_completion"] is False
    pod = spec["template"]["spec"]
    assert pod["node_selector"] == {"computeops.io/gpu": "h100-sxm"}
    assert pod["toleration"] == [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}]
    assert pod["subdomain"] == "train"
    (container,) = pod["container"]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "8"}
    assert container["resources"]["requests"]["nvidia.com/gpu"] == "8"
    security = container["security_context"]
    assert security["run_as_non_root"] is True and security["allow_privilege_escalation"] is False
    assert security["capabilities"] == {"drop": ["ALL"]}
    assert {"empty_dir": {"medium": "Memory"}, "name": "shm"} in pod["volume"]
    (service,) = doc["resource"]["kubernetes_service_v1"].values()
    assert service["spec"]["cluster_ip"] == "None"


def test_single_node_fine_tuning_uses_the_given_image_and_command(stacks: dict[str, dict[str, Any]]) -> None:
    doc = stacks["tune"]
    assert "kubernetes_service_v1" not in doc["resource"]
    (job,) = doc["resource"]["kubernetes_job_v1"].values()
    assert job["spec"]["completion_mode"] == "NonIndexed"
    (container,) = job["spec"]["template"]["spec"]["container"]
    assert container["image"] == "registry.example/trainer:1.2"
    assert container["command"] == ["torchrun", "train.py"]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "4"}


def test_label_helpers_without_synth() -> None:
    assert gpu_label_value("H100-SXM") == "h100-sxm"
    assert gpu_label_value("TPU v5e / lite") == "tpu-v5e-lite"
    placement = make_placement(instances=2)
    assert node_selector(placement) == {"computeops.io/gpu": "h100-sxm"}
    assert node_selector(placement, own_pool=False) == {"node.kubernetes.io/instance-type": "p5.48xlarge"}
    assert len(gpu_tolerations(make_placement(pricing="spot"))) == 1  # only AKS adds a spot taint
    # Without an estimate's shape: one tensor-parallel group per instance.
    assert serving_shape(placement) == (2, 8)
