"""What every Terraform target is: a stateless description of one provider's Terraform.

A target turns a ``Placement`` (already decided, already scored) into resources in a cdktn scope.
Targets never score and never call the engine; they declare what they cannot do, with a reason,
so the engine can reject a pinned placement they could not express (rule ``target.unsupported``).

Binding imports (``cdktn_provider_aws`` ...) happen only inside ``emit``/``configure``, so
importing this package or the registry never loads a prebuilt binding.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..engine import FEATURES, Placement

__all__ = ["FEATURES", "INTERNAL_OPTIONS", "Target", "TargetProps"]

INTERNAL_OPTIONS: frozenset[str] = frozenset({"chosen_by", "kubernetes_provider"})
"""Keys of ``TargetProps.options`` the construct itself sets (who chose the target; the shared
kubernetes provider block): never user options, so a user passing one is refused."""

# FEATURES (what a target may lack) lives in the engine, which validates Pin feature names with it and
# must not import the targets; it is re-exported here and as ``targets.FEATURES``.


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetProps:
    """Options the construct passes through to a target.

    Attributes:
        name: base name for resources (the construct id, sanitized).
        cluster: name of an existing managed Kubernetes cluster to add a node pool to.
            Default: None, a standalone GPU VM (or TPU VM) is emitted instead.
        tags: labels/tags put on every taggable resource. Default: none (``ComputeWorkload`` passes
            ``{"computeops/workload": id}`` unless given others).
        options: target-specific options (documented per target in ``Target.options``), e.g.
            ``{"project": "my-gcp-project"}``. Default: none, every option takes its documented default.
        model: the Hugging Face id (or name) of the model the workload runs, for the boot script of
            standalone machines. Default: None, no boot script is generated (``ComputeWorkload``
            always passes the intent's model).
        workload_type: the intent's workload type (``inference``, ``training``, ``fine_tuning``).
            Default: None, derived from the placement's unit of cost.
    """

    name: str
    cluster: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    model: str | None = None
    workload_type: str | None = None


class Target(ABC):
    """One provider's Terraform. Subclasses are stateless; one instance per provider in the registry."""

    provider: str
    """Catalog provider id (``aws``, ``gcp``, ...)."""
    extra: str | None
    """pip extra that installs the prebuilt binding, None when the target uses generic resources."""
    unsupported: Mapping[str, str]
    """Feature -> reason, for every feature in FEATURES this target cannot express."""
    options: Mapping[str, str] = MappingProxyType({})
    """User option name -> one-line doc with its default: every key of ``TargetProps.options`` the
    target reads (the construct refuses any other key, with did-you-mean). Default: none."""
    runs_on_kubernetes: bool = False
    """True when the target's capacity is a Kubernetes object in the cluster (CoreWeave's NodePool):
    the construct then passes the workload layer's kubernetes provider as ``options["kubernetes_provider"]``
    so a stack has one kubernetes provider block."""

    @abstractmethod
    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        """Add the provider block for ``region`` to ``scope`` and return the provider construct."""

    def kube_connection(self, scope: Any, *, cluster: str, region: str) -> Mapping[str, Any] | None:
        """Provider arguments (``host``, ``cluster_ca_certificate``, ``exec``) that reach ``cluster``.

        Used by the Kubernetes/Helm layer when the caller gives no connection. Default: None, the
        layer then uses the kubeconfig context named like the cluster.
        """
        return None

    @abstractmethod
    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        """Add the resources for ``placement`` and return the main ones by role (``"instance"``...)."""
