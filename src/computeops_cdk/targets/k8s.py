"""The Kubernetes/Helm workload layer (``cdktn-provider-kubernetes``, ``cdktn-provider-helm``).

Runs on any provider's cluster, after a target has added the GPU node pool: inference is a
``helm_release`` of the vLLM production-stack chart sized from the decision, training a
``kubernetes_job_v1`` (Indexed, with a headless rendezvous service, across several nodes). Pods select
our label ``computeops.io/gpu`` on pools a target creates (``node.kubernetes.io/instance-type`` on
others) and tolerate ``nvidia.com/gpu:NoSchedule`` and AKS spot pools' automatic taint.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..engine import Placement

__all__ = [
    "CHECKOV_SKIPS",
    "CPU_PER_GPU",
    "DEFAULT_TRAINING_IMAGE",
    "DEFAULT_VLLM_IMAGE",
    "GPU_COUNT_LABEL",
    "GPU_LABEL",
    "GPU_TAINT_KEY",
    "MEMORY_GIB_PER_GPU",
    "VLLM_CHART",
    "VLLM_CHART_VERSION",
    "VLLM_REPOSITORY",
    "KubeConnection",
    "KubernetesLayer",
    "WorkloadSpec",
    "gpu_label_value",
    "gpu_tolerations",
    "is_training",
    "node_selector",
    "pool_labels",
    "serving_shape",
    "vllm_values",
]

CHECKOV_SKIPS: Mapping[str, str] = {}
"""checkov checks the emitted Kubernetes/Helm resources fail on purpose: none."""
GPU_LABEL = "computeops.io/gpu"
GPU_COUNT_LABEL = "computeops.io/gpu-count"
GPU_TAINT_KEY = "nvidia.com/gpu"
VLLM_REPOSITORY = "https://vllm-project.github.io/production-stack"
VLLM_CHART = "vllm-stack"
VLLM_CHART_VERSION = "0.1.12"
"""Pinned so plans repeat."""
DEFAULT_VLLM_IMAGE = "vllm/vllm-openai:v0.10.0"
DEFAULT_TRAINING_IMAGE = "nvcr.io/nvidia/pytorch:24.12-py3"
CPU_PER_GPU = 2
MEMORY_GIB_PER_GPU = 8
"""Pod requests per GPU: a floor that still fits the smallest GPU instances (g5.xlarge: 4 vCPU,
16 GiB per GPU) after the kubelet's reservations; requests, not limits, so pods may use more."""
_SMOKE_COMMAND = ("python", "-c", "import torch; print(torch.cuda.device_count(), 'GPUs visible')")


def import_binding(binding: str, submodule: str, *, provider: str) -> Any:
    # Imported on use: importing this module (aws.py shares its labels) must not start jsii.
    from .._compat import import_binding as _import

    return _import(binding, submodule, provider=provider)


def gpu_label_value(accelerator: str) -> str:
    """Our node-label value for a catalog accelerator id (``H100-SXM`` -> ``h100-sxm``)."""
    return re.sub(r"[^a-z0-9.-]+", "-", accelerator.lower()).strip("-.")


def is_training(placement: Placement) -> bool:
    """True for training and fine-tuning placements (their unit cost is per training step)."""
    return placement.unit_cost.unit == "usd_per_training_step"


def pool_labels(placement: Placement, gpus_per_node: int) -> dict[str, str]:
    """Node labels of a GPU pool a target creates: exactly what ``node_selector`` selects, plus the
    GPU count. Every pool-creating target uses this, so the workload's pods always find their nodes."""
    return {GPU_LABEL: gpu_label_value(placement.accelerator), GPU_COUNT_LABEL: str(gpus_per_node)}


def node_selector(placement: Placement, *, own_pool: bool = True) -> dict[str, str]:
    """Labels a GPU pod selects: our label on pools we create, else the kubelet's instance type."""
    if own_pool:
        return {GPU_LABEL: gpu_label_value(placement.accelerator)}
    return {"node.kubernetes.io/instance-type": placement.instance_type}


def gpu_tolerations(placement: Placement) -> list[dict[str, str]]:
    """Tolerations for the GPU taint every target sets, plus AKS spot pools' automatic taint."""
    tolerations = [{"key": GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}]
    if placement.provider == "azure" and placement.pricing == "spot":
        tolerations.append(
            {
                "key": "kubernetes.azure.com/scalesetpriority",
                "operator": "Equal",
                "value": "spot",
                "effect": "NoSchedule",
            }
        )
    return tolerations


@dataclass(frozen=True, slots=True, kw_only=True)
class KubeConnection:
    """How the kubernetes and helm providers reach the cluster. Build with the factories.

    Attributes:
        settings: provider arguments shared by ``kubernetes`` and helm's ``kubernetes`` attribute
            (``host``, ``cluster_ca_certificate``, ``exec`` or ``config_path``/``config_context``).
    """

    settings: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def kubeconfig(cls, path: str = "~/.kube/config", context: str | None = None) -> KubeConnection:
        """A kubeconfig file and context. Default: ``~/.kube/config`` and its current context."""
        settings: dict[str, Any] = {"config_path": path}
        if context:
            settings["config_context"] = context
        return cls(settings=settings)

    @classmethod
    def exec_plugin(
        cls, *, host: Any, cluster_ca_certificate: Any, command: str, args: Sequence[str]
    ) -> KubeConnection:
        """An API endpoint plus a credential plugin (``aws eks get-token``, ``kubelogin``, ...)."""
        exec_block = {
            "api_version": "client.authentication.k8s.io/v1beta1",
            "command": command,
            "args": list(args),
        }
        return cls(
            settings={"host": host, "cluster_ca_certificate": cluster_ca_certificate, "exec": exec_block}
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkloadSpec:
    """What runs on the GPU nodes (derived from the intent by the construct).

    Attributes:
        kind: ``inference``, ``training`` or ``fine_tuning``.
        name: Kubernetes name for the release / job (DNS-1123).
        model_url: the model to serve (a Hugging Face id or a path vLLM accepts).
        namespace: namespace, created by the layer. Default: ``name``.
        image: container image. Default: ``DEFAULT_VLLM_IMAGE`` for inference,
            ``DEFAULT_TRAINING_IMAGE`` for training.
        command: training entrypoint. Default: a GPU smoke check (replace with your trainer).
        own_pool: True when a target created the GPU pool (select ``computeops.io/gpu``).
            Default: True.
    """

    kind: str
    name: str
    model_url: str
    namespace: str | None = None
    image: str | None = None
    command: Sequence[str] = _SMOKE_COMMAND
    own_pool: bool = True


class KubernetesLayer:
    """Stateless: configure the kubernetes/helm providers, then emit the workload for a placement."""

    options: Mapping[str, str] = {
        "model_url": "model the vLLM release serves. Default: the registry's Hugging Face id, else the name.",
        "image": "container image. Default: DEFAULT_VLLM_IMAGE (inference), DEFAULT_TRAINING_IMAGE (jobs).",
        "command": "training entrypoint (a list). Default: a GPU smoke check (replace with your trainer).",
        "namespace": "namespace, created by the layer. Default: the resource name.",
    }
    """Options of ``ComputeWorkload(options=...)`` this layer reads (with ``cluster=``): name -> doc."""

    def configure(self, scope: Any, connection: KubeConnection) -> dict[str, Any]:
        """Add ``kubernetes`` and ``helm`` provider blocks; return them by name."""
        _protect(scope)
        kube = import_binding("kubernetes", "provider", provider="kubernetes")
        helm = import_binding("helm", "provider", provider="kubernetes")
        settings = dict(connection.settings)
        exec_block = settings.pop("exec", None)
        # Struct classes, not dicts, inside lists: jsii converts dict keys only outside lists.
        kube_exec = [kube.KubernetesProviderExec(**exec_block)] if exec_block else None
        helm_exec = helm.HelmProviderKubernetesExec(**exec_block) if exec_block else None
        return {
            "kubernetes": kube.KubernetesProvider(scope, "kubernetes", exec=kube_exec, **settings),
            "helm": helm.HelmProvider(
                scope, "helm", kubernetes=helm.HelmProviderKubernetes(exec=helm_exec, **settings)
            ),
        }

    def emit(self, scope: Any, placement: Placement, spec: WorkloadSpec) -> dict[str, Any]:
        """Add the namespace and the release (inference) or job (training); return them by role."""
        _protect(scope)
        namespace = _namespace(scope, spec)
        if spec.kind == "inference":
            return {"namespace": namespace, "release": _vllm_release(scope, placement, spec, namespace)}
        return {"namespace": namespace, **_training_job(scope, placement, spec, namespace)}


def _protect(scope: Any) -> None:
    # Like every target (``Target`` does it for them): no string reaches Terraform as a template.
    from ._escape import protect_stack

    protect_stack(scope)


def _namespace(scope: Any, spec: WorkloadSpec) -> Any:
    mod = import_binding("kubernetes", "namespace_v1", provider="kubernetes")
    # namespace_v1's metadata is a list block in provider 3.x (one element).
    return mod.NamespaceV1(
        scope, "namespace", metadata=[mod.NamespaceV1Metadata(name=spec.namespace or spec.name)]
    )


def _namespace_name(namespace: Any) -> Any:
    return namespace.metadata.get(0).name


def serving_shape(placement: Placement) -> tuple[int, int]:
    """(replicas, GPUs per replica) from the decision's estimate, else one replica per instance."""
    total = placement.instances * placement.accelerators_per_instance
    per_replica = placement.estimate.tensor_parallel or placement.accelerators_per_instance
    replicas = placement.estimate.replicas or max(1, total // per_replica)
    return replicas, per_replica


def vllm_values(placement: Placement, spec: WorkloadSpec) -> dict[str, Any]:
    """The chart values: one modelSpec entry sized from the decision."""
    replicas, per_replica = serving_shape(placement)
    repository, _, tag = (spec.image or DEFAULT_VLLM_IMAGE).partition(":")
    terms = [
        {"matchExpressions": [{"key": k, "operator": "In", "values": [v]}]}
        for k, v in node_selector(placement, own_pool=spec.own_pool).items()
    ]
    model = {
        "name": spec.name,
        "repository": repository,
        "tag": tag or "latest",
        "modelURL": spec.model_url,
        "replicaCount": replicas,
        "requestCPU": CPU_PER_GPU * per_replica,
        "requestMemory": f"{MEMORY_GIB_PER_GPU * per_replica}Gi",
        "requestGPU": per_replica,
        "vllmConfig": {"tensorParallelSize": per_replica},
        "shmSize": "20Gi",
        "nodeSelectorTerms": terms,
        "tolerations": gpu_tolerations(placement),
    }
    # An empty runtime class: the NVIDIA AMIs / managed drivers register nvidia as the default runtime;
    # the chart's "nvidia" RuntimeClass exists only where the GPU operator installed it (§11.3).
    return {"servingEngineSpec": {"runtimeClassName": "", "modelSpec": [model]}}


def _vllm_release(scope: Any, placement: Placement, spec: WorkloadSpec, namespace: Any) -> Any:
    mod = import_binding("helm", "release", provider="kubernetes")
    return mod.Release(
        scope,
        "vllm",
        name=spec.name,
        namespace=_namespace_name(namespace),
        repository=VLLM_REPOSITORY,
        chart=VLLM_CHART,
        version=VLLM_CHART_VERSION,
        values=[yaml.safe_dump(vllm_values(placement, spec), sort_keys=True)],
        wait=False,
    )


def _container(job: Any, placement: Placement, spec: WorkloadSpec) -> Any:
    count = placement.accelerators_per_instance
    gpus = str(count)
    return job.JobV1SpecTemplateSpecContainer(
        name="trainer",
        image=spec.image or DEFAULT_TRAINING_IMAGE,
        image_pull_policy="Always",
        command=list(spec.command),
        # Extended resources need requests == limits; CPU/memory get requests only (no throttling).
        resources={
            "limits": {"nvidia.com/gpu": gpus},
            "requests": {
                "nvidia.com/gpu": gpus,
                "cpu": str(CPU_PER_GPU * count),
                "memory": f"{MEMORY_GIB_PER_GPU * count}Gi",
            },
        },
        security_context={
            "allow_privilege_escalation": False,
            "privileged": False,
            "run_as_non_root": True,
            "run_as_user": "1000",
            "read_only_root_filesystem": True,
            "capabilities": {"drop": ["ALL"]},
            "seccomp_profile": {"type": "RuntimeDefault"},
        },
        volume_mount=[
            job.JobV1SpecTemplateSpecContainerVolumeMount(name="shm", mount_path="/dev/shm"),
            job.JobV1SpecTemplateSpecContainerVolumeMount(name="scratch", mount_path="/tmp"),
        ],
    )


def _training_job(scope: Any, placement: Placement, spec: WorkloadSpec, namespace: Any) -> dict[str, Any]:
    job_mod = import_binding("kubernetes", "job_v1", provider="kubernetes")
    nodes = placement.instances
    labels = {"app.kubernetes.io/name": spec.name, "app.kubernetes.io/managed-by": "computeops-cdk"}
    resources: dict[str, Any] = {}
    pod_spec: dict[str, Any] = {
        "restart_policy": "Never",
        "automount_service_account_token": False,
        "node_selector": node_selector(placement, own_pool=spec.own_pool),
        "toleration": [job_mod.JobV1SpecTemplateSpecToleration(**t) for t in gpu_tolerations(placement)],
        "container": [_container(job_mod, placement, spec)],
        "volume": [
            job_mod.JobV1SpecTemplateSpecVolume(name="shm", empty_dir={"medium": "Memory"}),
            job_mod.JobV1SpecTemplateSpecVolume(name="scratch", empty_dir={}),
        ],
    }
    if nodes > 1:
        # Indexed pods get stable hostnames <job>-<index>.<service>: the rendezvous torchrun needs.
        svc_mod = import_binding("kubernetes", "service_v1", provider="kubernetes")
        resources["service"] = svc_mod.ServiceV1(
            scope,
            "rendezvous",
            metadata={"name": spec.name, "namespace": _namespace_name(namespace), "labels": labels},
            spec={
                "cluster_ip": "None",
                "selector": labels,
                "port": [svc_mod.ServiceV1SpecPort(name="rdzv", port=29500)],
            },
        )
        pod_spec["subdomain"] = spec.name
    resources["job"] = job_mod.JobV1(
        scope,
        "job",
        metadata={"name": spec.name, "namespace": _namespace_name(namespace), "labels": labels},
        spec={
            "completions": nodes,
            "parallelism": nodes,
            "completion_mode": "Indexed" if nodes > 1 else "NonIndexed",
            "backoff_limit": 0,
            "template": {"metadata": {"labels": labels}, "spec": pod_spec},
        },
        wait_for_completion=False,
    )
    return resources
