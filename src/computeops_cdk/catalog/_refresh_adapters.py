"""The feed adapters a refresh can use, by the name feeds.csv and ``--feed`` give them: their default
URLs, the providers each covers, the checks of a name the user gave (``--feed``, ``--feed-url``) and
which of a part's adapters can run (their API keys set)."""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import CatalogRefreshError, did_you_mean, did_you_mean_text
from .feeds import (
    Adapter,
    aws_bulk,
    azure_retail,
    gcp_billing,
    gpuhunt,
    lambda_api,
    oci_pricelist,
    runpod_graphql,
    vast_search,
)
from .feeds.skypilot import DEFAULT_URL as SKYPILOT_URL
from .feeds.skypilot import SkyPilotFeed

__all__ = ["ADAPTERS", "DEFAULT_URLS", "known_adapter", "known_urls", "usable_adapters"]


_TABLE: dict[str, tuple[Adapter, str, tuple[str, ...] | None]] = {
    # name: (adapter, default URL, the providers it covers; None: any)
    "skypilot": (SkyPilotFeed(), SKYPILOT_URL, None),
    "gpuhunt": (gpuhunt.GpuhuntFeed(), gpuhunt.DEFAULT_URL, tuple(gpuhunt.FILES)),
    "lambda-api": (lambda_api.LambdaApiFeed(), lambda_api.DEFAULT_URL, ("lambda",)),
    "azure-retail": (azure_retail.AzureRetailFeed(), azure_retail.DEFAULT_URL, ("azure",)),
    "gcp-billing": (gcp_billing.GcpBillingFeed(), gcp_billing.DEFAULT_URL, ("gcp",)),
    "oci-pricelist": (oci_pricelist.OciPriceListFeed(), oci_pricelist.DEFAULT_URL, ("oci",)),
    "runpod-graphql": (runpod_graphql.RunPodGraphQLFeed(), runpod_graphql.DEFAULT_URL, ("runpod",)),
    "vast-search": (vast_search.VastSearchFeed(), vast_search.DEFAULT_URL, ("vast",)),
    "aws-bulk": (aws_bulk.AwsBulkFeed(), aws_bulk.DEFAULT_URL, ("aws",)),
}
ADAPTERS: dict[str, Adapter] = {name: row[0] for name, row in _TABLE.items()}
"""Every feed adapter by the name feeds.csv's ``feed`` column and ``--feed P=NAME`` use."""
DEFAULT_URLS = {name: row[1] for name, row in _TABLE.items()}
_COVERS = {name: row[2] for name, row in _TABLE.items() if row[2] is not None}


def known_adapter(provider: str, spec: str, name: str) -> None:
    if name not in ADAPTERS:
        raise CatalogRefreshError(
            f"--feed {provider}={spec}: no feed adapter {name!r}; adapters: "
            f"{', '.join(sorted(ADAPTERS))}. To fix: use one of those"
            f"{did_you_mean_text(did_you_mean(name, list(ADAPTERS)))}"
        )
    covers = _COVERS.get(name)
    if covers is not None and provider not in covers:
        raise CatalogRefreshError(
            f"--feed {provider}={spec}: the {name} feed has no {provider} prices (it covers "
            f"{', '.join(covers)}). To fix: choose another feed for {provider}"
        )


def known_urls(urls: Mapping[str, str]) -> dict[str, str]:
    for name in urls:
        if name not in ADAPTERS:
            raise CatalogRefreshError(
                f"--feed-url {name}=...: no feed adapter {name!r}; adapters: {', '.join(sorted(ADAPTERS))}"
                f"{did_you_mean_text(did_you_mean(name, list(ADAPTERS)))}"
            )
    return dict(urls)


def usable_adapters(
    names: tuple[str, ...], env: Mapping[str, str]
) -> tuple[list[Adapter], list[tuple[str, str]]]:
    """The adapters whose API keys are set, in order, and (why, missing key or "") for each one
    left out."""
    usable: list[Adapter] = []
    lacking: list[tuple[str, str]] = []
    for name in names:
        adapter = ADAPTERS.get(name)
        if adapter is None:
            lacking.append((f"feeds.csv names an unknown feed {name!r}", ""))
            continue
        missing = [var for var in adapter.needs if not env.get(var)]
        if not missing:
            usable.append(adapter)
            continue
        need = "$" + ", $".join(missing)
        lacking.append((f"{name} needs {need} (To fix: set it in the environment)", need))
    return usable, lacking
