"""AWS networking of standalone instances: egress without public ingress, and the optional load balancer.

Default (no ``vpc_id`` / ``subnet_ids``): a new VPC ``10.80.0.0/16`` with two private subnets in zones
that offer the instance type (one zone twice when only one does), two public subnets holding one NAT
gateway (and a public load balancer), and private default routes to the NAT. Instances get no public
address; the VPC's default security group is emptied. ``vpc_endpoints`` (default on) adds an S3 gateway
endpoint (free, skips the NAT's per-GB charge) and SSM interface endpoints (Session Manager without the
internet; billed per zone and hour) admitting HTTPS from the VPC only. Given ``subnet_ids``, those
subnets are used as they are and must already have egress.

``expose``: an internal network load balancer over the private subnets, or an internet-facing one over
the public subnets (TLS on 443 with ``certificate_arn``, else plain TCP with a warning); both check
vLLM's ``/health`` and register every instance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine import Placement
from ..errors import TargetError
from ._base import TargetProps
from ._options import flag_option

__all__ = ["INTERFACE_ENDPOINTS", "VPC_CIDR", "AwsNetwork", "load_balancer", "network"]

VPC_CIDR = "10.80.0.0/16"
_PRIVATE = ("10.80.0.0/20", "10.80.16.0/20")
_PUBLIC = ("10.80.128.0/24", "10.80.129.0/24")
INTERFACE_ENDPOINTS = ("ssm", "ssmmessages", "ec2messages")
"""The interface endpoints Session Manager needs in a VPC without internet access (AWS Systems Manager
docs, "Use VPC endpoints": ssm, ssmmessages, ec2messages)."""


def _aws(submodule: str) -> Any:
    # Imported on use: looking up a target (the registry, the engine's pin) must not start jsii.
    from .._compat import import_binding

    return import_binding("aws", submodule, provider="aws")


def _fn() -> Any:
    from .._compat import Fn

    return Fn


@dataclass(frozen=True, slots=True)
class AwsNetwork:
    """Where the instances go: the VPC, its CIDR (for ingress rules), private and public subnets."""

    vpc_id: Any
    cidr: Any
    private: Any
    public: Any = None
    created: bool = False
    endpoints: int = 0
    """Interface endpoints created (each billed per zone and hour); 0 without the new VPC's endpoints."""
    lb_private: Any = None
    """The private subnets a load balancer may take, one per zone (None: ``private`` as given)."""
    lb_public: Any = None
    """The public subnets a load balancer may take, one per zone (None: ``public``)."""


def network(scope: Any, placement: Placement, props: TargetProps) -> AwsNetwork:
    """The given subnets, or a new VPC with private subnets in two zones and a NAT gateway."""
    given: Any = props.options.get("subnet_ids")
    if props.options.get("vpc_endpoints") is not None and (given or props.options.get("vpc_id")):
        raise TargetError(
            "aws option 'vpc_endpoints' applies to the VPC this target creates, not to the "
            "'subnet_ids'/'vpc_id' you gave (their endpoints are yours to manage). To fix: drop "
            "'vpc_endpoints', or drop 'subnet_ids'/'vpc_id' for a new VPC."
        )
    if isinstance(given, str):  # list("subnet-1") would be one subnet per character
        raise TargetError(
            f"aws option 'subnet_ids' must be a list of subnet ids (got the string {given!r}). "
            f"To fix: options={{'subnet_ids': [{given!r}]}}"
        )
    vpc_given = props.options.get("vpc_id")
    if given or vpc_given:
        if vpc_given:
            vpc = _aws("data_aws_vpc").DataAwsVpc(scope, "vpc", id=vpc_given)
        else:
            first = _aws("data_aws_subnet").DataAwsSubnet(scope, "first_subnet", id=next(iter(given)))
            vpc = _aws("data_aws_vpc").DataAwsVpc(scope, "vpc", id=first.vpc_id)
        if given:
            subnets: Any = list(given)
        else:
            mod = _aws("data_aws_subnets")
            subnets = mod.DataAwsSubnets(
                scope, "subnets", filter=[mod.DataAwsSubnetsFilter(name="vpc-id", values=[vpc_given])]
            ).ids
        return AwsNetwork(vpc_id=vpc.id, cidr=vpc.cidr_block, private=subnets)
    return _new_vpc(scope, placement, props)


def _new_vpc(scope: Any, placement: Placement, props: TargetProps) -> AwsNetwork:
    tags = dict(props.tags)
    vpc = _aws("vpc").Vpc(
        scope,
        "vpc",
        cidr_block=VPC_CIDR,
        enable_dns_support=True,
        enable_dns_hostnames=True,
        tags={**tags, "Name": f"{props.name}-vpc"},
    )
    # The VPC's default security group allows all traffic between its members: empty it.
    _aws("default_security_group").DefaultSecurityGroup(scope, "default_sg", vpc_id=vpc.id, tags=tags)
    from .. import _compat
    from ._escape import raw_expression

    core = _compat.core
    offers = _aws("data_aws_ec2_instance_type_offerings").DataAwsEc2InstanceTypeOfferings(
        scope,
        "zones",
        location_type="availability-zone",
        filter=[{"name": "instance-type", "values": [placement.instance_type]}],
        # An empty offering list would fail later as element() of an empty list: say why at plan.
        lifecycle=core.TerraformResourceLifecycle(
            postcondition=[
                core.Postcondition(
                    condition=raw_expression("${length(self.locations) > 0}"),
                    error_message=f"No availability zone of {placement.region} offers "
                    f"{placement.instance_type} to this account (the EC2 instance type offerings are "
                    "empty). To fix: choose another region or instance type (pin it, or relock).",
                )
            ]
        ),
    )
    zones = _fn().sort(offers.locations)
    subnet = _aws("subnet").Subnet

    def subnets(kind: str, cidrs: tuple[str, ...]) -> list[Any]:
        return [
            subnet(
                scope,
                f"{kind}_subnet_{i}",
                vpc_id=vpc.id,
                cidr_block=cidr,
                # element() wraps: a type offered in one zone only gets both subnets in that zone.
                availability_zone=_fn().element(zones, i),
                map_public_ip_on_launch=False,
                tags={**tags, "Name": f"{props.name}-{kind}-{i}"},
            )
            for i, cidr in enumerate(cidrs)
        ]

    private, public = subnets("private", _PRIVATE), subnets("public", _PUBLIC)
    igw = _aws("internet_gateway").InternetGateway(scope, "igw", vpc_id=vpc.id, tags=tags)
    eip = _aws("eip").Eip(scope, "nat_ip", domain="vpc", tags=tags)
    # One NAT gateway (in the first zone): egress for both zones at the price of one (see the stack cost).
    nat = _aws("nat_gateway").NatGateway(
        scope, "nat", allocation_id=eip.id, subnet_id=public[0].id, tags=tags, depends_on=[igw]
    )
    rt_mod = _aws("route_table")
    assoc = _aws("route_table_association").RouteTableAssociation
    routes = {
        "public": rt_mod.RouteTableRoute(cidr_block="0.0.0.0/0", gateway_id=igw.id),
        "private": rt_mod.RouteTableRoute(cidr_block="0.0.0.0/0", nat_gateway_id=nat.id),
    }
    tables = {}
    for kind, members in (("public", public), ("private", private)):
        table = rt_mod.RouteTable(scope, f"{kind}_routes", vpc_id=vpc.id, route=[routes[kind]], tags=tags)
        tables[kind] = table
        for i, member in enumerate(members):
            assoc(scope, f"{kind}_routes_{i}", subnet_id=member.id, route_table_id=table.id)
    endpoints = 0
    if flag_option(props, "vpc_endpoints", True, target="aws"):
        endpoints = _endpoints(scope, placement, props, vpc, private, tables["private"], zones)
    return AwsNetwork(
        vpc_id=vpc.id,
        cidr=VPC_CIDR,
        private=[s.id for s in private],
        public=[s.id for s in public],
        created=True,
        endpoints=endpoints,
        lb_private=_one_per_zone(private, zones),
        lb_public=_one_per_zone(public, zones),
    )


def _one_per_zone(subnets: list[Any], zones: Any) -> Any:
    """The first ``min(len(subnets), zones)`` subnets: one per zone. The subnets take the zones with
    element(), which wraps, so a type offered in one zone only has both subnets in it; a load balancer
    and an interface endpoint refuse two subnets of one zone."""
    from .._compat import Token

    fn = _fn()
    ids = [s.id for s in subnets]
    return Token.as_list(fn.slice(ids, 0, fn.min([len(ids), fn.length_of(zones)])))


def _endpoints(
    scope: Any, placement: Placement, props: TargetProps, vpc: Any, private: list[Any], table: Any, zones: Any
) -> int:
    """S3 gateway endpoint on the private routes; SSM interface endpoints in the private subnets."""
    tags = dict(props.tags)
    endpoint = _aws("vpc_endpoint").VpcEndpoint
    endpoint(
        scope,
        "s3_endpoint",
        vpc_id=vpc.id,
        service_name=f"com.amazonaws.{placement.region}.s3",
        vpc_endpoint_type="Gateway",
        route_table_ids=[table.id],
        tags={**tags, "Name": f"{props.name}-s3"},
    )
    sg = _aws("security_group")
    group = sg.SecurityGroup(
        scope,
        "endpoint_security_group",
        name_prefix=f"{props.name}-endpoints-",
        description=f"computeops {props.name}: HTTPS from the VPC to its interface endpoints",
        vpc_id=vpc.id,
        ingress=[
            sg.SecurityGroupIngress(
                description="HTTPS from the VPC (SSM agent to the interface endpoints)",
                protocol="tcp",
                from_port=443,
                to_port=443,
                cidr_blocks=[VPC_CIDR],
            )
        ],
        egress=[],
        tags=tags,
    )
    # One subnet per zone: an interface endpoint refuses two subnets of one zone, which the private
    # subnets are when only one zone offers the instance type (element() wrapped).
    subnets = _one_per_zone(private, zones)
    for service in INTERFACE_ENDPOINTS:
        endpoint(
            scope,
            f"{service}_endpoint",
            vpc_id=vpc.id,
            service_name=f"com.amazonaws.{placement.region}.{service}",
            vpc_endpoint_type="Interface",
            private_dns_enabled=True,
            subnet_ids=subnets,
            security_group_ids=[group.id],
            tags={**tags, "Name": f"{props.name}-{service}"},
        )
    return len(INTERFACE_ENDPOINTS)


def load_balancer(
    scope: Any,
    placement: Placement,
    props: TargetProps,
    *,
    net: AwsNetwork,
    mode: str,
    port: int,
    instance: Any,
) -> dict[str, Any]:
    """A network load balancer in front of every instance, health-checked on ``/health``."""
    public = mode == "public"
    if public and net.public is None:
        raise TargetError(
            "aws cannot expose the service as 'public' in the subnets you gave: the public load balancer "
            "needs public subnets, which this target creates only in its own VPC. To fix: drop "
            "'subnet_ids'/'vpc_id' (a new VPC), or use expose='internal'."
        )
    certificate = props.options.get("certificate_arn")
    if certificate is not None and not (isinstance(certificate, str) and certificate.startswith("arn:aws")):
        raise TargetError(
            f"aws option 'certificate_arn' must be an ACM certificate ARN (got {certificate!r}). "
            "To fix: options={'certificate_arn': 'arn:aws:acm:us-east-1:123456789012:certificate/...'}"
        )
    base = props.name[:27].rstrip("-")
    lb = _aws("lb").Lb(
        scope,
        "lb",
        name=f"{base}-lb",
        internal=not public,
        load_balancer_type="network",
        # One subnet per zone (an NLB refuses two of one zone): the new VPC's, else the subnets given.
        subnets=(net.lb_public or net.public) if public else (net.lb_private or net.private),
        enable_cross_zone_load_balancing=True,
        enable_deletion_protection=False,
        tags=dict(props.tags),
    )
    tg_mod = _aws("lb_target_group")
    group = tg_mod.LbTargetGroup(
        scope,
        "lb_targets",
        name=f"{base}-tg",
        port=port,
        protocol="TCP",
        vpc_id=net.vpc_id,
        target_type="instance",
        health_check=tg_mod.LbTargetGroupHealthCheck(
            enabled=True, protocol="HTTP", path="/health", port="traffic-port", matcher="200"
        ),
        tags=dict(props.tags),
    )
    tls = public and certificate is not None
    listener_mod = _aws("lb_listener")
    listener = listener_mod.LbListener(
        scope,
        "lb_listener",
        load_balancer_arn=lb.arn,
        port=443 if tls else port,
        protocol="TLS" if tls else "TCP",
        certificate_arn=certificate if tls else None,
        ssl_policy="ELBSecurityPolicy-TLS13-1-2-2021-06" if tls else None,
        default_action=[listener_mod.LbListenerDefaultAction(type="forward", target_group_arn=group.arn)],
        tags=dict(props.tags),
    )
    from .._compat import TerraformCount

    count = TerraformCount.of(placement.instances)
    from ._escape import raw_expression

    # Instance i of the counted instances (written out: Fn would escape the splat expression; a raw
    # expression token, or the stack's template escape would make it literal text).
    target_id = raw_expression(
        f"${{element({instance.terraform_resource_type}.{instance.friendly_unique_id}[*].id, count.index)}}"
    )
    _aws("lb_target_group_attachment").LbTargetGroupAttachment(
        scope,
        "lb_attachment",
        count=count,
        target_group_arn=group.arn,
        target_id=target_id,
        port=port,
    )
    scheme = "https" if tls else "http"
    return {
        "load_balancer": lb,
        "listener": listener,
        "endpoint": f"{scheme}://{lb.dns_name}:{443 if tls else port}",
    }
