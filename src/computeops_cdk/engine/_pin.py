"""A caller's pinned choice: restricts candidates before ranking, never relaxes a constraint."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


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
    """

    provider: str | None = None
    region: str | None = None
    unsupported: Mapping[str, str] = field(default_factory=dict)
    targets: Mapping[str, Mapping[str, str]] | None = None
    require: tuple[str, ...] = ()
