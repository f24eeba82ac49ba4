"""GCP networking of standalone VMs: Cloud NAT egress, IAP-only SSH, and the internal load balancer.

In the network the target creates: a Cloud Router with Cloud NAT for the subnetwork (the VMs have no
external IP; image pulls and weight downloads leave through the NAT), and one firewall rule allowing SSH
from Identity-Aware Proxy's range only (``35.235.240.0/20``, Google's documented IAP TCP forwarding
range). A network the user names keeps its own egress and SSH rules.

``expose='internal'``: an internal passthrough network load balancer (an unmanaged instance group of
the VMs, a regional TCP backend service, an HTTP health check on ``/health``, an internal forwarding
rule on the serving port) and a firewall rule admitting the serving port from the subnetwork and from
Google's health-check ranges (``35.191.0.0/16``, ``130.211.0.0/22``).
"""

from __future__ import annotations

from typing import Any

from ..errors import TargetError
from ._base import TargetProps

__all__ = ["HEALTH_CHECK_RANGES", "IAP_RANGE", "egress_and_iap", "internal_load_balancer"]

IAP_RANGE = "35.235.240.0/20"
HEALTH_CHECK_RANGES = ("35.191.0.0/16", "130.211.0.0/22")


def _google(submodule: str) -> Any:
    from .._compat import import_binding

    return import_binding("google", submodule, provider="gcp")


def egress_and_iap(
    scope: Any, *, region: str, network: Any, subnetwork: Any, provider: Any, props: TargetProps
) -> None:
    """Cloud NAT for ``subnetwork`` and the IAP-only SSH rule, in the network the target created."""
    router = _google("compute_router").ComputeRouter(
        scope, "router", name=f"{props.name}-router", region=region, network=network, provider=provider
    )
    nat_mod = _google("compute_router_nat")
    nat_mod.ComputeRouterNat(
        scope,
        "nat",
        name=f"{props.name}-nat",
        router=router.name,
        region=region,
        nat_ip_allocate_option="AUTO_ONLY",
        source_subnetwork_ip_ranges_to_nat="LIST_OF_SUBNETWORKS",
        subnetwork=[
            nat_mod.ComputeRouterNatSubnetwork(name=subnetwork, source_ip_ranges_to_nat=["ALL_IP_RANGES"])
        ],
        log_config={"enable": True, "filter": "ERRORS_ONLY"},
        provider=provider,
    )
    fw_mod = _google("compute_firewall")
    fw_mod.ComputeFirewall(
        scope,
        "iap-ssh",
        name=f"{props.name}-iap-ssh",
        network=network,
        direction="INGRESS",
        priority=1000,
        source_ranges=[IAP_RANGE],
        allow=[fw_mod.ComputeFirewallAllow(protocol="tcp", ports=["22"])],
        log_config={"metadata": "INCLUDE_ALL_METADATA"},
        provider=provider,
    )


def internal_load_balancer(
    scope: Any,
    *,
    region: str,
    zone: str,
    network: Any,
    subnetwork: Any,
    cidr: str | None,
    instances: list[Any],
    port: int,
    provider: Any,
    props: TargetProps,
) -> dict[str, Any]:
    """An internal passthrough TCP load balancer over ``instances``, health-checked on ``/health``."""
    if not network:
        raise TargetError(
            "gcp cannot put an internal load balancer in front of a given 'subnetwork' without its "
            "'network' (the forwarding rule and the firewall rule need it). To fix: also pass "
            "options={'network': '<network name or self link>'}, or use expose='none'."
        )
    check = _google("compute_region_health_check").ComputeRegionHealthCheck(
        scope,
        "health",
        name=f"{props.name}-health",
        region=region,
        http_health_check={"port": port, "request_path": "/health"},
        log_config={"enable": True},
        provider=provider,
    )
    group_mod = _google("compute_instance_group")
    group = group_mod.ComputeInstanceGroup(
        scope,
        "group",
        name=f"{props.name}-group",
        zone=zone,
        instances=[i.self_link for i in instances],
        named_port=[group_mod.ComputeInstanceGroupNamedPort(name="http", port=port)],
        provider=provider,
    )
    backend_mod = _google("compute_region_backend_service")
    backend = backend_mod.ComputeRegionBackendService(
        scope,
        "backend",
        name=f"{props.name}-backend",
        region=region,
        protocol="TCP",
        load_balancing_scheme="INTERNAL",
        health_checks=[check.id],
        backend=[backend_mod.ComputeRegionBackendServiceBackend(group=group.id, balancing_mode="CONNECTION")],
        provider=provider,
    )
    rule = _google("compute_forwarding_rule").ComputeForwardingRule(
        scope,
        "forwarding-rule",
        name=f"{props.name}-ilb",
        region=region,
        load_balancing_scheme="INTERNAL",
        ip_protocol="TCP",
        ports=[str(port)],
        backend_service=backend.id,
        network=network,
        subnetwork=subnetwork,
        provider=provider,
    )
    sources = [*HEALTH_CHECK_RANGES, *([cidr] if cidr else [])]
    fw_mod = _google("compute_firewall")
    fw_mod.ComputeFirewall(
        scope,
        "serving-port",
        name=f"{props.name}-serving",
        network=network,
        direction="INGRESS",
        priority=1000,
        source_ranges=sources,
        allow=[fw_mod.ComputeFirewallAllow(protocol="tcp", ports=[str(port)])],
        log_config={"metadata": "INCLUDE_ALL_METADATA"},
        provider=provider,
    )
    return {"load_balancer": rule, "endpoint": f"http://{rule.ip_address}:{port}"}
