"""What every Terraform target is: a stateless description of one provider's Terraform.

A target turns a decided ``Placement`` into resources in a cdktn scope; it never scores, and declares
what it cannot do (``unsupported``, rule ``target.unsupported``). Bindings are imported only inside
``emit``/``configure``, so importing this package never loads a prebuilt binding.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..engine import FEATURES, Placement
from ..errors import TargetError

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
        image: the machine image to boot, as ``Target.image_reference`` names it (the one a lock entry
            recorded). An image option the user gives still wins. Default: None, the target's pinned
            default (``image_reference``).
        precision: the intent's precision, served with vLLM's flag for it (``fp8`` ->
            ``--quantization fp8``). Default: None, the checkpoint's dtype.
    """

    name: str
    cluster: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    model: str | None = None
    workload_type: str | None = None
    image: Mapping[str, str] | None = None
    precision: str | None = None

    def __post_init__(self) -> None:
        # Values are escaped at synthesis (``_escape``); a mapping key cannot be rewritten there, so a
        # key that Terraform would read as a template is refused here.
        _refuse_template_keys("tags", self.tags)
        _refuse_template_keys("options", self.options)


def _refuse_template_keys(where: str, value: Any) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str) and ("${" in key or "%{" in key):
                shown = key if len(key) <= 60 else key[:57] + "..."
                raise TargetError(
                    f"{where} key {shown!r} holds Terraform template syntax ('${{' or '%{{'). "
                    "To fix: use a plain key (letters, digits, '-', '_', '.', '/')."
                )
            _refuse_template_keys(f"{where}[{key!r}]", item)
    elif isinstance(value, list | tuple):
        for item in value:
            _refuse_template_keys(where, item)


class Target(ABC):
    """One provider's Terraform. Subclasses are stateless; one instance per provider in the registry.

    Every subclass's ``configure``, ``emit`` and ``kube_connection`` first register the stack-wide
    ``EscapeTemplates`` aspect (``_escape.protect_stack``), so every string a target writes reaches
    Terraform as literal text, never as a ``${...}`` template.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("configure", "emit", "kube_connection"):
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_protects_stack", False):
                setattr(cls, name, _protecting(method))

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

    def image_reference(self, placement: Placement, *, cluster: bool) -> Mapping[str, str] | None:
        """The exact machine image (never a moving reference) this target boots ``placement`` on by
        default, for a lock entry to record; a lock keeps it across library upgrades until a relock.
        Default: None, the target boots no image of its own (a container provider, a node pool).
        """
        return None

    @abstractmethod
    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        """Add the resources for ``placement`` and return the main ones by role (``"instance"``...)."""


def _protecting(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (scope as first argument) preceded by ``protect_stack(scope)``."""

    @functools.wraps(method)
    def wrapper(self: Target, scope: Any, *args: Any, **kwargs: Any) -> Any:
        from ._escape import protect_stack  # on use: importing a target must not start jsii

        protect_stack(scope)
        return method(self, scope, *args, **kwargs)

    wrapper._protects_stack = True  # type: ignore[attr-defined]
    return wrapper
