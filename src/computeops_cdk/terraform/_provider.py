"""The provider's description: its configuration, data source, resource and functions."""

from __future__ import annotations

from ._address import ADDRESS
from ._framework import ProviderSpec
from ._functions import functions
from ._lock import lock_resource
from ._placement import data_source
from ._settings import PROVIDER_ATTRIBUTES, SETTINGS

__all__ = ["provider_spec"]


def provider_spec() -> ProviderSpec:
    return ProviderSpec(
        address=ADDRESS,
        description="Decide where AI workloads run, and keep the decision in state (computeops-cdk).",
        attributes=PROVIDER_ATTRIBUTES,
        configure=SETTINGS.configure,
        data_sources=[data_source()],
        resources=[lock_resource()],
        functions=functions(),
    )
