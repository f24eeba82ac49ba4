"""The target registry: one stateless ``Target`` per provider, looked up by catalog provider id.

Every target module is imported explicitly below (never by building a module name from a
string), and importing a target module never imports a prebuilt binding: bindings are loaded
inside ``configure``/``emit`` only, so looking up a target, or asking what it cannot do, is cheap.

Registered: aws, gcp, azure (prebuilt bindings) and oci, coreweave, lambda, nebius, crusoe, runpod,
vast (typed generic resources, no binding). The Kubernetes/Helm workload layer (``k8s``) is not a
provider target: it runs on the cluster of any target that can add a GPU node pool.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import MappingProxyType

from ..engine import Pin
from ..errors import TargetError, did_you_mean, did_you_mean_text
from ._base import FEATURES, INTERNAL_OPTIONS, Target, TargetProps
from .aws import AwsTarget
from .azure import AzureTarget
from .coreweave import CoreWeaveTarget
from .crusoe import CrusoeTarget
from .gcp import GcpTarget
from .lambda_ import LambdaTarget
from .nebius import NebiusTarget
from .oci import OciTarget
from .runpod import RunPodTarget
from .vast import VastTarget

__all__ = [
    "FEATURES",
    "INTERNAL_OPTIONS",
    "TARGETS",
    "Target",
    "TargetProps",
    "checkov_skips",
    "get_target",
    "placement_pin",
    "supported_providers",
    "unsupported_features",
]

_ALL: tuple[Target, ...] = (
    AwsTarget(),
    GcpTarget(),
    AzureTarget(),
    OciTarget(),
    CoreWeaveTarget(),
    LambdaTarget(),
    NebiusTarget(),
    CrusoeTarget(),
    RunPodTarget(),
    VastTarget(),
)
TARGETS: Mapping[str, Target] = MappingProxyType({target.provider: target for target in _ALL})
"""Provider id -> its target, in the catalog's provider order."""


def supported_providers() -> tuple[str, ...]:
    """Provider ids that have a Terraform target, sorted."""
    return tuple(sorted(TARGETS))


def get_target(provider: str) -> Target:
    """The target for ``provider``.

    Raises:
        TargetError: no target for that provider, with the supported ones and a "did you mean".
    """
    try:
        return TARGETS[provider]
    except (KeyError, TypeError):  # TypeError: an unhashable value, refused below like any unknown one
        pass
    suggestion = did_you_mean_text(did_you_mean(provider, TARGETS) if isinstance(provider, str) else [])
    raise TargetError(
        f"no Terraform target for provider {provider!r}{suggestion}. "
        f"To fix: use one of {', '.join(supported_providers())}."
    )


def checkov_skips(provider: str) -> Mapping[str, str]:
    """Check id -> reason for each checkov check ``provider``'s resources fail on purpose (the
    ``CHECKOV_SKIPS`` next to its target's resources, plus the Kubernetes layer's). Written into the
    ``.checkov.yaml`` beside every synthesized stack.

    Raises:
        TargetError: no target for that provider.
    """
    from . import k8s

    module = sys.modules[type(get_target(provider)).__module__]
    return MappingProxyType({**k8s.CHECKOV_SKIPS, **getattr(module, "CHECKOV_SKIPS", {})})


def unsupported_features(provider: str) -> Mapping[str, str]:
    """Feature -> reason for what ``provider``'s target cannot express (what ``Pin.unsupported`` takes).

    Raises:
        TargetError: no target for that provider.
    """
    return get_target(provider).unsupported


def placement_pin(*, provider: str | None = None, region: str | None = None, cluster: bool = False) -> Pin:
    """The engine ``Pin`` for a placement that must become Terraform through these targets.

    Both ``computeops decide`` and ``ComputeWorkload`` decide with it, so the CLI's answer and the
    construct's decision record are the same bytes. It carries every target's unsupported features
    (a provider without a target is rejected with ``target.unsupported``) and requires:

    - ``kubernetes_node_pool`` when ``cluster`` is set (the GPUs join a node pool of that cluster);
    - ``repeatable_plan`` when the provider is left to the engine: an engine-chosen placement must
      plan the same machine again. Pinning a provider whose target cannot promise that (Vast.ai's
      marketplace listings) is an explicit, best-effort choice, and is allowed.

    Args:
        provider: pinned provider id. Default: None, the engine chooses.
        region: pinned region code. Default: None, the engine chooses.
        cluster: a managed Kubernetes cluster is given. Default: False, standalone machines.
    """
    require: list[str] = []
    if cluster:
        require.append("kubernetes_node_pool")
    if provider is None:
        require.append("repeatable_plan")
    return Pin(
        provider=provider,
        region=region,
        targets={p: target.unsupported for p, target in TARGETS.items()},
        require=tuple(require),
    )
