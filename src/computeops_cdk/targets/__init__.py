"""The target registry: one stateless ``Target`` per provider, looked up by catalog provider id.

Target modules are imported explicitly (never from a built name) on the registry's first use: a
decision needs only what each target cannot do, declared in ``_unsupported`` and read without
importing a target module. The Kubernetes/Helm layer (``k8s``) is not a provider target: it runs on
the cluster of any target that can add a GPU node pool.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from ..engine import Pin
from ..errors import TargetError, did_you_mean, did_you_mean_text
from ._base import FEATURES, INTERNAL_OPTIONS, Target, TargetProps
from ._unsupported import UNSUPPORTED

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


def _targets() -> tuple[Target, ...]:
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

    return (
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


class _Registry(Mapping[str, Target]):
    """Provider id -> target, read-only; the target modules are imported on the first read."""

    def __init__(self) -> None:
        self._loaded: Mapping[str, Target] | None = None

    def _all(self) -> Mapping[str, Target]:
        if self._loaded is None:
            self._loaded = MappingProxyType({target.provider: target for target in _targets()})
        return self._loaded

    def __getitem__(self, provider: str) -> Target:
        return self._all()[provider]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return f"TARGETS({', '.join(UNSUPPORTED)})"


TARGETS: Mapping[str, Target] = _Registry()
"""Provider id -> its target, in the catalog's provider order (the providers of ``UNSUPPORTED``)."""


def supported_providers() -> tuple[str, ...]:
    """Provider ids that have a Terraform target, sorted."""
    return tuple(sorted(UNSUPPORTED))


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
    if isinstance(provider, str) and provider in UNSUPPORTED:
        return UNSUPPORTED[provider]
    return get_target(provider).unsupported  # raises the registry's error for an unknown provider


def placement_pin(*, provider: str | None = None, region: str | None = None, cluster: bool = False) -> Pin:
    """The engine ``Pin`` for a placement that must become Terraform through these targets.

    ``computeops decide`` and ``ComputeWorkload`` both decide with it (same bytes). It carries every
    target's unsupported features and requires ``kubernetes_node_pool`` when ``cluster`` is set, and
    ``repeatable_plan`` when the engine chooses the provider (pinning one that cannot promise it,
    such as Vast.ai, is an explicit best-effort choice).

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
        targets=dict(UNSUPPORTED),  # what each target declares, without importing the targets
        require=tuple(require),
    )
