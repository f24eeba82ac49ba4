"""``expose``: how an inference service is reached (``none``, ``internal``, ``public``).

``none`` (default for training): reachable inside the network only. ``internal`` (default for
inference where the target has one): an internal load balancer health-checked on vLLM's ``/health``.
``public``: explicit opt-in, an internet-facing load balancer and a warning annotation. A mode a target
does not implement is a ``TargetError`` with the target's reason.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any

from ..engine import Placement
from ..errors import TargetError, described, did_you_mean, did_you_mean_text

__all__ = [
    "DOMAIN_OPTION",
    "EXPOSE_MODES",
    "EXPOSE_OPTION",
    "SOURCE_RANGES_OPTION",
    "domain_option",
    "expose_mode",
    "ipv4_ranges",
    "source_ranges",
]

DOMAIN_OPTION = (
    "DNS name of a public service (expose='public'): an HTTPS load balancer with a provider-managed "
    "certificate for it. Default: none."
)
SOURCE_RANGES_OPTION = (
    "client address ranges (CIDRs) a public service admits (expose='public'). Default: the whole internet."
)
_DOMAIN = re.compile(r"^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")

EXPOSE_MODES = ("none", "internal", "public")
EXPOSE_OPTION = (
    "none | internal | public: how the inference service is reached. Default: internal for inference "
    "where the target has an internal load balancer, else none; none for training."
)


def expose_mode(
    placement: Placement, props: Any, *, target: str, unsupported: Mapping[str, str], serves: bool = True
) -> str:
    """The validated ``expose`` option (or its default) for this placement.

    Args:
        unsupported: mode -> reason, for the modes this target does not implement.
        serves: the machines boot a server (a boot plan for inference). Default: True. Without one the
            default is ``none``: a load balancer in front of nothing would only cost.
    """
    given: Any = props.options.get("expose")
    training = placement.unit_cost.unit == "usd_per_training_step"
    if given is None:
        return "none" if training or not serves or "internal" in unsupported else "internal"
    if given not in EXPOSE_MODES:
        hint = did_you_mean_text(did_you_mean(given, EXPOSE_MODES) if isinstance(given, str) else [])
        raise TargetError(
            f"{target} option 'expose' must be one of {', '.join(EXPOSE_MODES)} (got {described(given)})"
            f"{hint}. To fix: options={{'expose': 'internal'}}."
        )
    if given != "none" and training:
        raise TargetError(
            f"{target} option 'expose'={given!r} applies to inference only: a training job serves nothing. "
            "To fix: drop 'expose'."
        )
    if given in unsupported:
        raise TargetError(
            f"{target} cannot expose the service as {given!r}: {unsupported[given]}. "
            "To fix: options={'expose': 'none'}, or choose a provider that implements it."
        )
    return str(given)


def source_ranges(given: Any, *, target: str, default: list[str]) -> list[str]:
    """The validated ``public_source_ranges`` option value (CIDRs), or ``default`` when None."""
    if given is None:
        return list(default)
    ok = isinstance(given, list | tuple) and bool(given) and len(given) <= 100
    cleaned: list[str] = []
    for item in given if ok else ():
        try:
            cleaned.append(str(ipaddress.ip_network(item, strict=False)) if isinstance(item, str) else "")
        except ValueError:
            cleaned.append("")
    if not ok or "" in cleaned:
        raise TargetError(
            f"{target} option 'public_source_ranges' must be a list of 1..100 CIDR ranges (got "
            f"{described(given)}). To fix: e.g. options={{'public_source_ranges': ['203.0.113.0/24']}}."
        )
    return cleaned


def ipv4_ranges(ranges: list[str], *, target: str, why: str, fix: str) -> list[str]:
    """``ranges`` (validated CIDRs) when every one is IPv4; else a TargetError naming the IPv6 ones.

    Where the clients reach an IPv4-only front end (a passthrough forwarding rule's or a layer-4 load
    balancer's IPv4 address) an IPv6 client range admits nobody, and a GCP firewall rule cannot hold
    both families ("A firewall rule can contain either IPv4 or IPv6 ranges, but not both", Google's
    "Use VPC firewall rules" page, https://docs.cloud.google.com/firewall/docs/using-firewalls, read in a
    stored copy), so the apply would fail: refuse it here, saying ``why`` and ``fix``."""
    v6 = [r for r in ranges if ipaddress.ip_network(r).version == 6]
    if v6:
        raise TargetError(
            f"{target} option 'public_source_ranges' has IPv6 ranges {v6!r}, but {why}. To fix: {fix}"
        )
    return ranges


def domain_option(given: Any, *, target: str) -> str | None:
    """The validated ``domain`` option value (a lowercase DNS name), or None."""
    if given is None:
        return None
    if not isinstance(given, str) or not _DOMAIN.match(given):
        raise TargetError(
            f"{target} option 'domain' must be a DNS name such as 'llm.example.com' (got "
            f"{described(given)}). To fix: options={{'domain': 'llm.example.com'}}."
        )
    return given
