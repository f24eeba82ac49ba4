"""A guard every target runs first: never silently emit less than the placement asks for.

The engine already rejects placements a target cannot express (rule ``target.unsupported``); this
makes a target fail loudly with its reason if one reaches it anyway (e.g. a hand-built placement).
"""

from __future__ import annotations

from ..engine import Placement
from ..errors import TargetError
from ._base import Target, TargetProps

__all__ = ["require_supported"]


def require_supported(target: Target, placement: Placement, props: TargetProps) -> None:
    """Raise ``TargetError`` when the placement needs a feature ``target`` declares unsupported.

    Checked: ``spot`` (spot pricing), ``kubernetes_node_pool`` (``cluster=`` given) and ``gpu_vm``
    (no ``cluster=``). ``multi_node`` is the engine's call: several instances may be independent replicas.
    """
    needed = []
    if placement.pricing == "spot":
        needed.append("spot")
    needed.append("kubernetes_node_pool" if props.cluster else "gpu_vm")
    for feature in needed:
        reason = target.unsupported.get(feature)
        if reason:
            raise TargetError(
                f"{target.provider} target cannot express {feature!r} for {placement.instance_type!r}: "
                f"{reason}. To fix: let the engine choose another provider, or change the pin/pricing."
            )
