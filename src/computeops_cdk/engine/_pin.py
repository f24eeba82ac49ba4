"""A caller's pinned choice: restricts candidates before ranking, never relaxes a constraint."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, kw_only=True)
class Pin:
    """Pin the provider and/or region of a decision.

    Attributes:
        provider: catalog provider id. Default: None, the engine chooses the provider.
        region: region code of that provider. Default: None, the engine chooses the region.
        unsupported: feature -> reason for features the pinned target cannot express (from the
            target registry); a candidate needing one is rejected with rule ``target.unsupported``.
            Default: empty, every feature is assumed expressible.
    """

    provider: str | None = None
    region: str | None = None
    unsupported: Mapping[str, str] = field(default_factory=dict)
