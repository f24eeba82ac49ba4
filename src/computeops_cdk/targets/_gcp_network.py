"""GCP networking of standalone VMs: Cloud NAT egress, IAP-only SSH, and the internal load balancer.

In the network the target creates: Cloud NAT for the subnetwork (the VMs have no external IP) and a
firewall rule allowing SSH from Identity-Aware Proxy's range only (``35.235.240.0/20``). A network the
user names keeps its own egress and SSH rules.

``expose='internal'``: an internal passthrough load balancer (an unmanaged instance group, a regional
TCP backend service, a ``/health`` check) and a firewall rule admitting the serving port from the
subnetwork and Google's health-check ranges.

``expose='public'`` (explicit), over the same instance group and check: with a ``domain``, a global
external Application Load Balancer (Google-managed certificate, ``MODERN`` SSL policy, HTTPS on 443)
whose firewall admits only Google's front ends; the firewall cannot see the clients, so
``public_source_ranges`` becomes a Cloud Armor policy (default deny, at most
``ARMOR_RANGES_PER_RULE`` ranges per allow rule). Without one, a regional passthrough Network Load
Balancer: layer 4, no TLS, the firewall admits the clients and the passthrough probes' ranges.
"""

from __future__ import annotations

from typing import Any

from ..errors import TargetError
from ._base import TargetProps

__all__ = [
    "ARMOR_RANGES_PER_RULE",
    "HEALTH_CHECK_RANGES",
    "IAP_RANGE",
    "PASSTHROUGH_HEALTH_CHECK_RANGES",
    "egress_and_iap",
    "internal_load_balancer",
    "public_load_balancer",
]

IAP_RANGE = "35.235.240.0/20"
HEALTH_CHECK_RANGES = ("35.191.0.0/16", "130.211.0.0/22")
"""Google's health-check probes and front ends (proxy load balancers, internal passthrough)."""
PASSTHROUGH_HEALTH_CHECK_RANGES = ("35.191.0.0/16", "209.85.152.0/22", "209.85.204.0/22")
"""Google's health-check probes for external passthrough Network Load Balancers."""


ARMOR_RANGES_PER_RULE = 10
"""Source ranges per basic-match (``SRC_IPS_V1``) Cloud Armor rule. Google's Compute Engine v1 API
reference, ``SecurityPolicyRuleMatcherConfig.src_ip_ranges``: "CIDR IP address range. Maximum number of
src_ip_ranges allowed is 10." (read in the Python client's reference,
https://cloud.google.com/python/docs/reference/compute/latest/google.cloud.compute_v1.types.SecurityPolicyRuleMatcherConfig,
version 1.19.0, last updated 2024-05-17; the .NET client's page for the same message says the same)."""
ARMOR_DEFAULT_PRIORITY = 2147483647
"""The priority Cloud Armor reserves for a security policy's default rule (the lowest)."""


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
    zones: list[str],
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
    check = _regional_check(scope, region=region, port=port, provider=provider, props=props)
    groups = _instance_groups(
        scope, zones=zones, instances=instances, port=port, provider=provider, props=props
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
        backend=[
            backend_mod.ComputeRegionBackendServiceBackend(group=g.id, balancing_mode="CONNECTION")
            for g in groups
        ],
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
    _serving_rule(scope, network=network, sources=sources, port=port, provider=provider, props=props)
    return {"load_balancer": rule, "endpoint": f"http://{rule.ip_address}:{port}"}


def public_load_balancer(
    scope: Any,
    *,
    region: str,
    zones: list[str],
    network: Any,
    instances: list[Any],
    port: int,
    domain: str | None,
    source_ranges: list[str],
    provider: Any,
    props: TargetProps,
    restrict: bool = False,
) -> dict[str, Any]:
    """An internet-facing load balancer over ``instances``: HTTPS for ``domain``, else TCP passthrough.

    Args:
        restrict: ``source_ranges`` were given (not the default whole internet): with ``domain``, a
            Cloud Armor policy admits only them. Default: False.
    """
    if not network:
        raise TargetError(
            "gcp cannot put a public load balancer in front of a given 'subnetwork' without its "
            "'network' (the firewall rule needs it). To fix: also pass options={'network': '<network "
            "name or self link>'}, or use expose='none'."
        )
    groups = _instance_groups(
        scope, zones=zones, instances=instances, port=port, provider=provider, props=props
    )
    if domain:
        armor = _armor_policy(scope, source_ranges, provider=provider, props=props) if restrict else None
        return _https_load_balancer(
            scope,
            network=network,
            groups=groups,
            port=port,
            domain=domain,
            armor=armor,
            provider=provider,
            props=props,
        )
    check = _regional_check(scope, region=region, port=port, provider=provider, props=props)
    address = _google("compute_address").ComputeAddress(
        scope,
        "public-ip",
        name=f"{props.name}-public-ip",
        region=region,
        address_type="EXTERNAL",
        network_tier="PREMIUM",
        provider=provider,
    )
    backend_mod = _google("compute_region_backend_service")
    backend = backend_mod.ComputeRegionBackendService(
        scope,
        "public-backend",
        name=f"{props.name}-public-backend",
        region=region,
        protocol="TCP",
        load_balancing_scheme="EXTERNAL",
        health_checks=[check.id],
        backend=[
            backend_mod.ComputeRegionBackendServiceBackend(group=g.id, balancing_mode="CONNECTION")
            for g in groups
        ],
        log_config={"enable": True},
        provider=provider,
    )
    rule = _google("compute_forwarding_rule").ComputeForwardingRule(
        scope,
        "public-forwarding-rule",
        name=f"{props.name}-public",
        region=region,
        load_balancing_scheme="EXTERNAL",
        ip_protocol="TCP",
        ip_address=address.address,
        ports=[str(port)],
        backend_service=backend.id,
        network_tier="PREMIUM",
        provider=provider,
    )
    sources = [*PASSTHROUGH_HEALTH_CHECK_RANGES, *source_ranges]
    _serving_rule(scope, network=network, sources=sources, port=port, provider=provider, props=props)
    return {
        "load_balancer": rule,
        "address": address.address,
        "endpoint": f"http://{address.address}:{port}",
    }


def _armor_policy(scope: Any, ranges: list[str], *, provider: Any, props: TargetProps) -> Any:
    """A Cloud Armor backend security policy that allows ``ranges`` and denies every other client."""
    mod = _google("compute_security_policy")

    def rule(priority: int, action: str, sources: list[str], description: str) -> Any:
        return mod.ComputeSecurityPolicyRule(
            priority=priority,
            action=action,
            description=description,
            match=mod.ComputeSecurityPolicyRuleMatch(
                versioned_expr="SRC_IPS_V1",
                config=mod.ComputeSecurityPolicyRuleMatchConfig(src_ip_ranges=sources),
            ),
        )

    chunks = [ranges[i : i + ARMOR_RANGES_PER_RULE] for i in range(0, len(ranges), ARMOR_RANGES_PER_RULE)]
    rules = [
        rule(1000 + n, "allow", chunk, "public_source_ranges (computeops)") for n, chunk in enumerate(chunks)
    ]
    rules.append(rule(ARMOR_DEFAULT_PRIORITY, "deny(403)", ["*"], "default: deny every other client"))
    return mod.ComputeSecurityPolicy(
        scope,
        "armor",
        name=f"{props.name}-clients",
        description=f"computeops-cdk {props.name}: only public_source_ranges reach the service",
        type="CLOUD_ARMOR",
        rule=rules,
        provider=provider,
    )


def _https_load_balancer(
    scope: Any,
    *,
    network: Any,
    groups: list[Any],
    port: int,
    domain: str,
    armor: Any,
    provider: Any,
    props: TargetProps,
) -> dict[str, Any]:
    """A global external Application Load Balancer with a Google-managed certificate for ``domain``."""
    address = _google("compute_global_address").ComputeGlobalAddress(
        scope, "public-ip", name=f"{props.name}-public-ip", provider=provider
    )
    certificate = _google("compute_managed_ssl_certificate").ComputeManagedSslCertificate(
        scope,
        "certificate",
        name=f"{props.name}-cert",
        managed={"domains": [domain]},
        provider=provider,
    )
    policy = _google("compute_ssl_policy").ComputeSslPolicy(
        scope,
        "ssl-policy",
        name=f"{props.name}-tls",
        profile="MODERN",
        min_tls_version="TLS_1_2",
        provider=provider,
    )
    check = _google("compute_health_check").ComputeHealthCheck(
        scope,
        "public-health",
        name=f"{props.name}-public-health",
        http_health_check={"port": port, "request_path": "/health"},
        log_config={"enable": True},
        provider=provider,
    )
    backend_mod = _google("compute_backend_service")
    backend = backend_mod.ComputeBackendService(
        scope,
        "public-backend",
        name=f"{props.name}-public-backend",
        protocol="HTTP",
        port_name="http",
        load_balancing_scheme="EXTERNAL_MANAGED",
        # Long completions stream for minutes: the 30 s default would cut them.
        timeout_sec=600,
        health_checks=[check.id],
        backend=[
            backend_mod.ComputeBackendServiceBackend(
                group=g.id, balancing_mode="UTILIZATION", capacity_scaler=1
            )
            for g in groups
        ],
        log_config={"enable": True, "sample_rate": 1},
        # Cloud Armor filters the clients at Google's edge (the firewall sees only the front ends).
        security_policy=armor.id if armor is not None else None,
        provider=provider,
    )
    url_map = _google("compute_url_map").ComputeUrlMap(
        scope, "url-map", name=f"{props.name}-urls", default_service=backend.id, provider=provider
    )
    proxy = _google("compute_target_https_proxy").ComputeTargetHttpsProxy(
        scope,
        "https-proxy",
        name=f"{props.name}-https",
        url_map=url_map.id,
        ssl_certificates=[certificate.id],
        ssl_policy=policy.id,
        provider=provider,
    )
    rule = _google("compute_global_forwarding_rule").ComputeGlobalForwardingRule(
        scope,
        "public-forwarding-rule",
        name=f"{props.name}-public",
        load_balancing_scheme="EXTERNAL_MANAGED",
        ip_protocol="TCP",
        ip_address=address.address,
        port_range="443",
        target=proxy.id,
        provider=provider,
    )
    # Google's front ends reach the backends from the health-check ranges: nothing else may.
    _serving_rule(
        scope, network=network, sources=list(HEALTH_CHECK_RANGES), port=port, provider=provider, props=props
    )
    return {"load_balancer": rule, "address": address.address, "endpoint": f"https://{domain}"}


def _regional_check(scope: Any, *, region: str, port: int, provider: Any, props: TargetProps) -> Any:
    """The regional HTTP health check on vLLM's ``/health``."""
    return _google("compute_region_health_check").ComputeRegionHealthCheck(
        scope,
        "health",
        name=f"{props.name}-health",
        region=region,
        http_health_check={"port": port, "request_path": "/health"},
        log_config={"enable": True},
        provider=provider,
    )


def _instance_groups(
    scope: Any, *, zones: list[str], instances: list[Any], port: int, provider: Any, props: TargetProps
) -> list[Any]:
    """One unmanaged instance group per zone of the serving VMs (VM i is in ``zones[i % len(zones)]``,
    and an unmanaged group is zonal), its named port ``http`` the serving port."""
    group_mod = _google("compute_instance_group")
    groups = []
    for n, zone in enumerate(zones):
        members = [vm.self_link for i, vm in enumerate(instances) if zones[i % len(zones)] == zone]
        groups.append(
            group_mod.ComputeInstanceGroup(
                scope,
                "group" if n == 0 else f"group-{n}",
                name=f"{props.name}-group" if n == 0 else f"{props.name}-group-{n}",
                zone=zone,
                instances=members,
                named_port=[group_mod.ComputeInstanceGroupNamedPort(name="http", port=port)],
                provider=provider,
            )
        )
    return groups


def _serving_rule(
    scope: Any, *, network: Any, sources: list[str], port: int, provider: Any, props: TargetProps
) -> None:
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
