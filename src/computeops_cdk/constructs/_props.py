"""Eager checks of ``ComputeWorkload``'s props: a wrong type is a TargetError naming the prop.

Props arrive from user code (often untyped). Each is checked before the engine runs, so a mistake is
one message with the construct path, the prop, the value given and the fix, never an
AttributeError or a jsii RuntimeError from deep inside a target or the CDK runtime.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..catalog import Catalog
from ..engine._decision import DEFAULT_REJECTIONS, REJECTION_LISTINGS
from ..errors import TargetError, described, did_you_mean, did_you_mean_text
from ..targets import TARGETS
from ..targets.k8s import KubeConnection, KubernetesLayer

__all__ = ["check_options", "check_types"]


def _fail(path: str, prop: str, must: str, value: object, fix: str) -> TargetError:
    return TargetError(f"[{path}] {prop!r} must be {must} (got {described(value)}). To fix: {fix}.")


_NAMES: Mapping[str, tuple[str, str]] = {
    "provider": ("provider='aws'", "to let the engine choose"),
    "region": ("region='us-east-1'", "to let the engine choose"),
    "cluster": ("cluster='gpu-prod' (an existing EKS/GKE/AKS cluster)", "for standalone GPU instances"),
    "name": ("name='support-chat'", "to derive it from the construct id"),
}


def check_types(path: str, props: Mapping[str, Any]) -> None:
    """Raise TargetError for the first prop of the wrong type (``props`` = prop name -> value)."""
    for prop, (example, default) in _NAMES.items():
        value = props[prop]
        if value is not None and not isinstance(value, str):
            raise _fail(path, prop, "a string or None", value, f"pass {example}, or leave it out {default}")
    for prop in ("deploy_workload", "configure_provider"):
        value = props[prop]
        if not isinstance(value, bool):  # "no" would be truthy: never guess
            raise _fail(path, prop, "True or False", value, f"pass {prop}=False or {prop}=True")
    rejections = props.get("rejections", DEFAULT_REJECTIONS)
    if rejections not in REJECTION_LISTINGS:
        fix = "pass rejections='all' to list every rejection, or leave it out for one per rule"
        raise _fail(path, "rejections", "'summary' or 'all'", rejections, fix)
    catalog = props["catalog"]
    if catalog is not None and not isinstance(catalog, Catalog):
        raise _fail(
            path,
            "catalog",
            "a Catalog or None",
            catalog,
            "pass catalog=load_catalog(path), or leave it out for the embedded catalog",
        )
    kubernetes = props["kubernetes"]
    if kubernetes is not None and not isinstance(kubernetes, KubeConnection):
        raise _fail(
            path,
            "kubernetes",
            "a KubeConnection or None",
            kubernetes,
            "pass KubeConnection.kubeconfig(context=...) or KubeConnection.exec_plugin(...), or leave it out",
        )
    if kubernetes is not None and props["cluster"] is None:
        raise TargetError(
            f"[{path}] 'kubernetes' is given without 'cluster': it says how to reach a cluster, and no "
            "cluster is named, so it would be ignored. To fix: also pass cluster='<existing cluster>', "
            "or leave kubernetes out."
        )
    _check_tags(path, props["tags"])
    options = props["options"]
    if options is not None and (
        not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options)
    ):
        raise _fail(
            path,
            "options",
            "a mapping of option name (str) -> value, or None",
            options,
            "pass e.g. options={'subnet_ids': ['subnet-0abc']}",
        )


def _check_tags(path: str, tags: object) -> None:
    if tags is None:
        return
    fix = "pass e.g. tags={'team': 'ml'}, or leave it out for {'computeops/workload': <id>}"
    if not isinstance(tags, Mapping):
        raise _fail(path, "tags", "a mapping of str -> str, or None", tags, fix)
    for key, value in tags.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TargetError(
                f"[{path}] 'tags' must be a mapping of str -> str: {key!r}: {value!r} is "
                f"{type(key).__name__} -> {type(value).__name__}. "
                f"To fix: tags={{{str(key)!r}: {str(value)!r}}} (cloud tags and labels are strings)."
            )


def check_options(path: str, options: Mapping[str, Any] | None, provider: str | None, cluster: bool) -> None:
    """Refuse an option key no one would read: the pinned target's options, or (provider left to the
    engine) any target's, plus the Kubernetes layer's with ``cluster``. Run after ``check_types``."""
    if not options:
        return
    if provider is not None:
        known = dict(TARGETS[provider].options)
        whose = f"the {provider} target"
        where = f"computeops_cdk.targets.{TARGETS[provider].__module__.rsplit('.', 1)[-1]}"
    else:  # a user may pass options for every provider the engine might choose
        known = {key: doc for target in TARGETS.values() for key, doc in target.options.items()}
        whose = "any target"
        where = "each computeops_cdk.targets.<provider> module"
    if cluster:
        known.update(KubernetesLayer.options)
        whose += " or the Kubernetes layer"

    for key in options:
        if key in known:
            continue
        if key in KubernetesLayer.options:
            raise TargetError(
                f"[{path}] option {key!r} is read by the Kubernetes layer, which runs only with "
                f"'cluster'. To fix: also pass cluster='<existing cluster>', or drop {key!r}."
            )
        hint = did_you_mean_text(did_you_mean(key, known))
        listed = ", ".join(sorted(known)) or "none"
        raise TargetError(
            f"[{path}] unknown option {key!r}: not an option of {whose}{hint}. "
            f"To fix: use one of {listed} (documented in {where}), or drop it."
        )
