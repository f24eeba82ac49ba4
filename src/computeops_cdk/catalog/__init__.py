"""The embedded market catalog: value objects, loader, builder and refresher."""

from __future__ import annotations

from ._load import load_catalog
from ._types import (
    COMPLIANCE_SCOPES,
    HOURS_PER_MONTH,
    PRICE_MODELS,
    PROVIDER_IDS,
    RESERVED_TERMS_MONTHS,
    SERVICE_KINDS,
    Accelerator,
    Attestation,
    Catalog,
    InstanceType,
    Offer,
    Provider,
    Region,
    ServiceScope,
)

__all__ = [
    "COMPLIANCE_SCOPES",
    "HOURS_PER_MONTH",
    "PRICE_MODELS",
    "PROVIDER_IDS",
    "RESERVED_TERMS_MONTHS",
    "SERVICE_KINDS",
    "Accelerator",
    "Attestation",
    "Catalog",
    "InstanceType",
    "Offer",
    "Provider",
    "Region",
    "ServiceScope",
    "load_catalog",
]
