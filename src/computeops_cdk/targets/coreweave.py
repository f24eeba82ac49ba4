"""CoreWeave: GPU capacity is a CKS node pool, added as the ``NodePool`` custom resource.

CoreWeave has no VM product: ``coreweave_cks_node_pool`` is not in the v0.21.0 release of
``coreweave/coreweave``, so this target applies the CKS ``NodePool`` CR with ``kubernetes_manifest``,
which needs the cluster's API server at plan time (the cluster must exist first). Credentials:
``KUBE_CONFIG_PATH`` unless the construct passes its provider in ``options["kubernetes_provider"]``.
Spot sets ``spec.computeClass = "spot"``. The table below maps the catalog's pricing-page names
(``hgx-h100-8x``) to CKS instance ids (unverified against CoreWeave's list); a CKS id passes through.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..engine import Placement
from ..errors import TargetError
from ._base import Target, TargetProps
from ._support import require_supported
from ._unsupported import UNSUPPORTED
from .k8s import GPU_TAINT_KEY, pool_labels

__all__ = ["CHECKOV_SKIPS", "CKS_INSTANCE_IDS", "CoreWeaveTarget", "cks_instance_id"]

CHECKOV_SKIPS: Mapping[str, str] = {}
"""checkov checks the emitted resources fail on purpose: none (checkov has no checks for them;
computeops's own CKV_COPS_* policies, computeops_cdk/checkov_policies, pass)."""

CKS_INSTANCE_IDS: Mapping[str, str] = {
    "hgx-h100-8x": "gd-8xh100ib-i128",
    "hgx-h200-8x": "gd-8xh200ib-i128",
    "a100-80gb-8x": "gd-8xa100-i128",
    "l40-8x": "gd-8xl40-i128",
    "l40s-8x": "gd-8xl40s-i128",
    "gh200-1x": "gd-1xgh200",
    "hgx-b200-8x": "b200-8x",
    "hgx-b300-8x": "b300-8x",
    "gb200-nvl72-4x": "gb200-4x",
    "rtxpro6000-bse-8x": "rtxp6000-8x",
}
"""Catalog (pricing-page) name -> CKS instance id."""

_CKS_ID = re.compile(r"^(gd-\d+x[a-z0-9]+(-i\d+)?|[a-z0-9]+-\d+x)$")


def cks_instance_id(instance_type: str) -> str:
    """The CKS instance id for a catalog name (``hgx-h100-8x`` -> ``gd-8xh100ib-i128``); ``gd-...`` ids pass.

    Raises:
        TargetError: neither a known catalog name nor a ``gd-`` CKS id.
    """
    name = instance_type.strip()
    instance_id = CKS_INSTANCE_IDS.get(name) or (
        name if _CKS_ID.match(name) and name.startswith("gd-") else None
    )
    if instance_id is None:
        raise TargetError(
            f"coreweave target cannot map instance type {name!r} to a CKS instance id; it knows "
            f"{', '.join(sorted(CKS_INSTANCE_IDS))} and 'gd-...' ids. To fix: pin one of those."
        )
    return instance_id


class CoreWeaveTarget(Target):
    """CoreWeave target: a CKS ``NodePool`` for ``cluster=``; no standalone VM."""

    provider = "coreweave"
    extra = None
    options: Mapping[str, str] = {}  # no user option: the construct passes the kubernetes provider
    runs_on_kubernetes = True
    unsupported = UNSUPPORTED["coreweave"]  # declared in _unsupported.py

    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        from ._generic import GenericProvider

        _require_cluster(props)
        if props.options.get("kubernetes_provider") is not None:
            return props.options["kubernetes_provider"]
        return GenericProvider(scope, "provider-kubernetes", local_name="kubernetes")

    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        from ._generic import KubernetesManifest

        _require_cluster(props)
        require_supported(self, placement, props)
        instance_id = cks_instance_id(placement.instance_type)
        pool = KubernetesManifest(
            scope,
            "node-pool",
            provider=provider,
            manifest={
                "apiVersion": "compute.coreweave.com/v1alpha1",
                "kind": "NodePool",
                "metadata": {"name": re.sub(r"[^a-z0-9-]", "-", f"{props.name}-gpu".lower())},
                "spec": {
                    "instanceType": instance_id,
                    "targetNodes": placement.instances,
                    # `spot` nodes are preemptible (coreweave_cks_node_pool docs, which wrap this CR).
                    "computeClass": "spot" if placement.pricing == "spot" else "default",
                    "nodeLabels": pool_labels(placement, placement.accelerators_per_instance),
                    "nodeTaints": [{"key": GPU_TAINT_KEY, "value": "present", "effect": "NoSchedule"}],
                },
            },
        )
        return {"node_pool": pool}


def _require_cluster(props: TargetProps) -> None:
    if not props.cluster:
        reason = UNSUPPORTED["coreweave"]["gpu_vm"]
        raise TargetError(f"coreweave target: {reason}. To fix: pass cluster='<CKS cluster name>'.")
