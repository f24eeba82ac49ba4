"""Azure networking of standalone VMs: a NAT gateway for egress, and the internal load balancer.

The subnet the target creates has ``default_outbound_access_enabled = false`` (Azure's implicit outbound
access is retired), so it gets a Standard NAT gateway with one static public IP. A subnet the user names
keeps its own egress.

Its NSG states what it admits instead of relying on Azure's default ``AllowVnetInBound`` (every port
from the whole virtual network, peerings included): SSH from the virtual network, the serving port from
the load balancer's probes and the clients, then an explicit deny at priority 4096, which applies before
the default allow rules (65000+).

``expose``: a Standard internal or (explicit) public load balancer with an HTTP probe on ``/health``
and a TCP rule on the serving port. It is layer 4, so a public service answers plain HTTP (terminate
TLS in front of it); outbound traffic keeps leaving through the NAT gateway (the rule disables SNAT).
"""

from __future__ import annotations

from typing import Any

from ._base import TargetProps

__all__ = ["DENY_PRIORITY", "internal_load_balancer", "nat_gateway", "nsg_rules", "public_load_balancer"]

DENY_PRIORITY = 4096
"""The explicit deny-all inbound rule: the lowest priority a custom NSG rule can have (100..4096), so every
allow rule of the target precedes it and Azure's default allow rules (65000, 65001) never apply."""


def _azurerm(submodule: str) -> Any:
    from .._compat import import_binding

    return import_binding("azurerm", submodule, provider="azure")


def nsg_rules(
    scope: Any,
    *,
    rg: Any,
    nsg_name: Any,
    mode: str,
    port: int,
    source_ranges: list[str] | None,
    provider: Any,
    props: TargetProps,
) -> list[Any]:
    """The NSG's inbound rules for ``expose`` ``mode``: what it admits, then an explicit deny of the rest."""
    rules: list[tuple[str, int, str, dict[str, Any], str]] = [
        ("allow-ssh-from-vnet", 200, "Allow", {"source_address_prefix": "VirtualNetwork"}, "22"),
    ]
    if mode != "none":
        # The load balancer's /health probe comes from the AzureLoadBalancer tag (168.63.129.16).
        rules.append(
            ("allow-lb-probe", 110, "Allow", {"source_address_prefix": "AzureLoadBalancer"}, str(port))
        )
    if mode == "internal":
        # An internal load balancer keeps the clients' addresses: the clients are in the virtual network.
        rules.append(
            ("allow-serving-port", 100, "Allow", {"source_address_prefix": "VirtualNetwork"}, str(port))
        )
    if mode == "public":
        clients = (
            {"source_address_prefixes": source_ranges}
            if source_ranges
            else {"source_address_prefix": "Internet"}
        )
        rules.append(("allow-serving-port", 100, "Allow", clients, str(port)))
    rules.append(("deny-all-inbound", DENY_PRIORITY, "Deny", {"source_address_prefix": "*"}, "*"))
    mod = _azurerm("network_security_rule")
    made = []
    for name, priority, access, sources, ports in rules:
        made.append(
            mod.NetworkSecurityRule(
                scope,
                name,
                name=name,
                resource_group_name=rg,
                network_security_group_name=nsg_name,
                priority=priority,
                direction="Inbound",
                access=access,
                protocol="Tcp" if access == "Allow" else "*",
                source_port_range="*",
                destination_port_range=ports,
                destination_address_prefix="VirtualNetwork" if access == "Allow" else "*",
                provider=provider,
                **sources,
            )
        )
    return made


def nat_gateway(
    scope: Any, *, rg: Any, location: str, subnet_id: Any, provider: Any, props: TargetProps
) -> Any:
    """A NAT gateway with one static public IP, associated with ``subnet_id``."""
    tags = dict(props.tags)
    ip = _azurerm("public_ip").PublicIp(
        scope,
        "nat-ip",
        name=f"{props.name}-nat-ip",
        resource_group_name=rg,
        location=location,
        allocation_method="Static",
        sku="Standard",
        tags=tags,
        provider=provider,
    )
    nat = _azurerm("nat_gateway").NatGateway(
        scope,
        "nat",
        name=f"{props.name}-nat",
        resource_group_name=rg,
        location=location,
        sku_name="Standard",
        tags=tags,
        provider=provider,
    )
    _azurerm("nat_gateway_public_ip_association").NatGatewayPublicIpAssociation(
        scope, "nat-ip-assoc", nat_gateway_id=nat.id, public_ip_address_id=ip.id, provider=provider
    )
    _azurerm("subnet_nat_gateway_association").SubnetNatGatewayAssociation(
        scope, "subnet-nat", subnet_id=subnet_id, nat_gateway_id=nat.id, provider=provider
    )
    return nat


def internal_load_balancer(
    scope: Any,
    *,
    rg: Any,
    location: str,
    subnet_id: Any,
    nics: list[Any],
    port: int,
    provider: Any,
    props: TargetProps,
) -> dict[str, Any]:
    """A Standard internal load balancer over ``nics`` (ip configuration ``internal``)."""
    lb_mod = _azurerm("lb")
    frontend = lb_mod.LbFrontendIpConfiguration(
        name="internal", subnet_id=subnet_id, private_ip_address_allocation="Dynamic"
    )
    lb = _balance(
        scope,
        rg=rg,
        location=location,
        frontend=frontend,
        nics=nics,
        port=port,
        provider=provider,
        props=props,
    )
    address = lb.frontend_ip_configuration.get(0).private_ip_address
    return {"load_balancer": lb, "endpoint": f"http://{address}:{port}"}


def public_load_balancer(
    scope: Any,
    *,
    rg: Any,
    location: str,
    nics: list[Any],
    port: int,
    provider: Any,
    props: TargetProps,
) -> dict[str, Any]:
    """A Standard public load balancer with a static public IP over ``nics`` (the NSG's rule for the port
    is ``nsg_rules``)."""
    ip = _azurerm("public_ip").PublicIp(
        scope,
        "lb-ip",
        name=f"{props.name}-lb-ip",
        resource_group_name=rg,
        location=location,
        allocation_method="Static",
        sku="Standard",
        tags=dict(props.tags),
        provider=provider,
    )
    frontend = _azurerm("lb").LbFrontendIpConfiguration(name="public", public_ip_address_id=ip.id)
    lb = _balance(
        scope,
        rg=rg,
        location=location,
        frontend=frontend,
        nics=nics,
        port=port,
        provider=provider,
        props=props,
    )
    return {"load_balancer": lb, "address": ip.ip_address, "endpoint": f"http://{ip.ip_address}:{port}"}


def _balance(
    scope: Any,
    *,
    rg: Any,
    location: str,
    frontend: Any,
    nics: list[Any],
    port: int,
    provider: Any,
    props: TargetProps,
) -> Any:
    """A Standard load balancer with ``frontend``, an HTTP probe on ``/health``, a TCP rule on ``port``
    and every NIC's ``internal`` ip configuration in its backend pool."""
    lb_mod = _azurerm("lb")
    lb = lb_mod.Lb(
        scope,
        "lb",
        name=f"{props.name}-lb",
        resource_group_name=rg,
        location=location,
        sku="Standard",
        frontend_ip_configuration=[frontend],
        tags=dict(props.tags),
        provider=provider,
    )
    pool = _azurerm("lb_backend_address_pool").LbBackendAddressPool(
        scope, "lb-pool", name=f"{props.name}-pool", loadbalancer_id=lb.id, provider=provider
    )
    probe = _azurerm("lb_probe").LbProbe(
        scope,
        "lb-probe",
        name="vllm-health",
        loadbalancer_id=lb.id,
        protocol="Http",
        port=port,
        request_path="/health",
        provider=provider,
    )
    _azurerm("lb_rule").LbRule(
        scope,
        "lb-rule",
        name="vllm",
        loadbalancer_id=lb.id,
        protocol="Tcp",
        frontend_port=port,
        backend_port=port,
        frontend_ip_configuration_name=frontend.name,
        backend_address_pool_ids=[pool.id],
        probe_id=probe.id,
        disable_outbound_snat=True,
        provider=provider,
    )
    assoc = _azurerm("network_interface_backend_address_pool_association")
    for i, nic in enumerate(nics):
        assoc.NetworkInterfaceBackendAddressPoolAssociation(
            scope,
            f"lb-member-{i}",
            network_interface_id=nic.id,
            ip_configuration_name="internal",
            backend_address_pool_id=pool.id,
            provider=provider,
        )
    return lb
