"""The embedded market catalog: value objects, loader, builder and refresher."""

from __future__ import annotations

from typing import Any

from ._types import (
    COMPLIANCE_SCOPES,
    HOURS_PER_MONTH,
    PRICE_MODELS,
    PROVIDER_IDS,
    Accelerator,
    Attestation,
    Catalog,
    InstanceType,
    Offer,
    Provider,
    Region,
)

__all__ = [
    "COMPLIANCE_SCOPES",
    "HOURS_PER_MONTH",
    "PRICE_MODELS",
    "PROVIDER_IDS",
    "Accelerator",
    "Attestation",
    "Catalog",
    "InstanceType",
    "Offer",
    "Provider",
    "Region",
    "load_catalog",
]


def load_catalog(path: Any = None) -> Catalog:  # PLACEHOLDER: replaced by the catalog implementation
    raise NotImplementedError
