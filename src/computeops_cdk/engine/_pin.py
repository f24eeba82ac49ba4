"""A caller's pinned choice: restricts candidates before ranking, never relaxes a constraint."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..errors import IntentError, described, did_you_mean

__all__ = ["FEATURES", "Pin"]

# Features a Terraform target may lack; here because the engine validates a Pin and never imports
# the targets (they re-export this tuple as ``targets.FEATURES``).
FEATURES: tuple[str, ...] = (
    "gpu_vm",  # a single GPU virtual machine / bare-metal instance
    "tpu",  # Google TPU VMs
    "spot",  # interruptible capacity through Terraform
    "multi_node",  # several instances joined by a fast fabric for one job
    "kubernetes_node_pool",  # a GPU node pool in an existing managed cluster (`cluster=`)
    "tpu_node_pool",  # a TPU node pool in an existing managed cluster (`cluster=` on a TPU)
    "repeatable_plan",  # the same plan provisions the same machine shape again
)


def _check_name(value: object, path: str, example: str) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise IntentError(
            f"must be a non-empty string or None (got {described(value)}). "
            f"To fix: pass e.g. {path.removeprefix('pin.')}={example!r}, "
            "or leave it out to let the engine choose",
            path=path,
        )


def _check_features(names: Iterable[object], path: str) -> None:
    for position, name in enumerate(names):
        if name not in FEATURES:
            raise IntentError(
                f"unknown feature {name!r}. To fix: use one of {', '.join(FEATURES)}",
                path=f"{path}[{position}]" if path.endswith("require") else f"{path}[{name!r}]",
                suggestions=did_you_mean(str(name), FEATURES),
            )


def _check_unsupported(value: object, path: str) -> None:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise IntentError(
            f"must be a mapping of feature name -> reason (got {described(value)}). "
            "To fix: pass e.g. {'spot': 'no interruptible capacity'}",
            path=path,
        )
    _check_features(value, path)


@dataclass(frozen=True, slots=True, kw_only=True)
class Pin:
    """Pin the provider and/or region of a decision.

    Offers outside the pin are not candidates: they are counted in ``Decision.pinned_out`` (rules
    ``pin.provider`` and ``pin.region``), not listed among the rejections. A pinned candidate is still
    checked against every hard constraint of the intent.

    Attributes:
        provider: catalog provider id. Default: None, the engine chooses the provider.
        region: region code of that provider. Default: None, the engine chooses the region.
        unsupported: feature -> reason for features the pinned target cannot express (from the
            target registry); a candidate needing one is rejected with rule ``target.unsupported``.
            Default: empty, every feature is assumed expressible.
        targets: provider -> its target's unsupported features, for every provider that has a
            Terraform target. When given it replaces ``unsupported`` per provider, and candidates of a
            provider without a target are rejected with ``target.unsupported``. Default: None, every
            provider is assumed to have a target.
        require: extra features every candidate's target must express: ``kubernetes_node_pool``
            when a cluster is given (a GPU machine is then a pool node, not a VM), ``repeatable_plan``
            when the plan must provision the same machine again. Default: none.

    Every feature name must be one of ``FEATURES``; a wrong type or an unknown name is an
    ``IntentError`` at construction (path ``pin.<attribute>``), never silently ignored.
    """

    provider: str | None = None
    region: str | None = None
    unsupported: Mapping[str, str] = field(default_factory=dict)
    targets: Mapping[str, Mapping[str, str]] | None = None
    require: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.provider, "pin.provider", "aws")
        _check_name(self.region, "pin.region", "us-east-1")
        _check_unsupported(self.unsupported, "pin.unsupported")
        if self.targets is not None:
            if not isinstance(self.targets, Mapping):
                raise IntentError(
                    "must be a mapping of provider id -> {feature: reason} or None "
                    f"(got {described(self.targets)}). "
                    "To fix: pass targets.placement_pin(...), which fills it from the target registry",
                    path="pin.targets",
                )
            for provider, features in self.targets.items():
                _check_unsupported(features, f"pin.targets[{provider!r}]")
        if not isinstance(self.require, tuple | list) or not all(isinstance(f, str) for f in self.require):
            raise IntentError(
                f"must be a tuple of feature names (got {described(self.require)}). "
                "To fix: pass e.g. require=('kubernetes_node_pool',)",
                path="pin.require",
            )
        _check_features(self.require, "pin.require")
