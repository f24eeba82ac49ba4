"""What each provider's Terraform target cannot express, with the reason: the one declaration.

Each target class reads its own entry (``unsupported = UNSUPPORTED["aws"]``) and refuses a placement
that needs one of these features (``_support.require_supported``); the engine rejects such a
candidate before that (rule ``target.unsupported``, quoting the reason). It lives apart from the
target modules, and imports nothing, so that a decision reads it without importing them.

Keys are the catalog's provider ids in its provider order (the order fixes list them in); every
feature is one of ``engine.FEATURES``. Every provider with a target has an entry, empty or not.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    _V = TypeVar("_V")

__all__ = ["UNSUPPORTED"]


class _ReadOnly(Mapping[str, "_V"]):
    """A mapping nobody can change that still copies and pickles (a ``MappingProxyType`` does neither,
    and callers deep-copy or pickle a ``Pin`` that carries these tables)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, _V]) -> None:
        self._items = dict(items)

    def __getitem__(self, key: str) -> _V:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return repr(self._items)


_DECLARED: dict[str, dict[str, str]] = {
    "aws": {
        "tpu": "AWS has no TPUs; Trainium/Inferentia are different accelerators (Neuron SDK, not TPU XLA).",
    },
    "gcp": {
        "tpu_node_pool": "TPU node pools on GKE are not implemented (they need a TPU machine type and "
        "placement_policy.tpu_topology); a TPU decision becomes a TPU VM without `cluster=`",
    },
    "azure": {
        "multi_node": "InfiniBand clusters of ND-series VMs need a VM scale set with an IB-enabled image and "
        "placement; this target emits independent VMs only",
        "tpu": "Azure has no TPUs",
    },
    "oci": {
        "multi_node": "RDMA cluster networks (oci_core_cluster_network / compute clusters) are not emitted; "
        "instances would be independent",
        "kubernetes_node_pool": "OKE node pools are not implemented by this target",
        "tpu": "OCI has no TPUs",
    },
    "coreweave": {
        "gpu_vm": "CoreWeave has no VM product; GPU capacity is a node in a CKS cluster (pass `cluster=`)",
        "tpu": "CoreWeave has no TPUs",
    },
    "lambda": {
        "spot": "Lambda sells no interruptible capacity, and the community lambdalabs provider has no spot "
        "or bid arguments",
        "multi_node": "1-Click Clusters (InfiniBand) are not in the community lambdalabs provider; "
        "instances it creates are independent",
        "kubernetes_node_pool": "the community lambdalabs provider has no Kubernetes resources",
        "tpu": "Lambda has no TPUs",
    },
    "nebius": {
        "kubernetes_node_pool": "mk8s node groups (nebius_mk8s_v1_node_group) are not implemented "
        "by this target",
        "tpu": "Nebius has no TPUs",
    },
    "crusoe": {
        "spot": "the crusoecloud/crusoe provider has no spot/interruptible argument on compute instances",
        "kubernetes_node_pool": "Crusoe Managed Kubernetes node pools are not implemented by this target",
        "tpu": "Crusoe has no TPUs",
    },
    "runpod": {
        "spot": "RunPod retired spot pods; the 2.0 provider has no bid or interruptible arguments",
        "multi_node": "Instant Clusters (runpod_cluster) are not emitted by this target; "
        "pods are independent",
        "kubernetes_node_pool": "RunPod has no Kubernetes product",
        "tpu": "RunPod has no TPUs",
    },
    "vast": {
        "repeatable_plan": "Vast.ai offers are marketplace listings whose ids change: a re-plan may pick a "
        "different machine",
        "multi_node": "Vast.ai has no renter-side cluster or fabric resource; instances are "
        "independent hosts",
        "kubernetes_node_pool": "Vast.ai has no Kubernetes product",
        "tpu": "Vast.ai has no TPUs",
    },
}

UNSUPPORTED: Mapping[str, Mapping[str, str]] = _ReadOnly(
    {provider: _ReadOnly(features) for provider, features in _DECLARED.items()}
)
"""Provider id -> {feature -> why its target cannot express it}, read-only."""
