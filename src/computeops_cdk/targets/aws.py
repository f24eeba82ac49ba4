"""AWS target (``cdktn-provider-aws`` 25.x, ``hashicorp/aws`` 6.x): GPU instances or an EKS GPU node group.

Standalone: ``aws_instance`` with ``count = placement.instances`` from a launch template carrying the
secure defaults (IMDSv2, encrypted gp3 root, monitoring, SSM profile), no public IP, spread over the
private subnets of a new VPC with a NAT gateway (``_aws_network``). Instances, not an Auto Scaling
group: a decision sizes a fixed set of hosts, and an ASG would replace a running job's rank. Training
on several instances adds a ``cluster`` placement group, per-rank primary interfaces created first
(so every boot script knows rank 0's address) and EFA-only interfaces (``_aws_efa``), in one subnet.
With ``cluster``: an ``aws_eks_node_group`` (``AL2023_x86_64_NVIDIA``, fixed size) through its own
launch template with the same defaults, in the default VPC's default subnets unless ``vpc_id`` /
``subnet_ids`` are given. Options: ``AwsTarget.options``.

The AMI is looked up by exact name (owner ``amazon``, no ``most_recent``, ``include_deprecated``), not
by id: ids differ per region and synth asks AWS nothing, while one dated DLAMI release has one exact
name, so every plan resolves the same image. The name is recorded in the lock entry.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from typing import Any

from ..engine import Placement
from ..errors import TargetError, described
from ._aws_efa import (
    DEFAULT_EFA_TRAINING_IMAGE,
    EFA_OPTION,
    EVAL_ENTRYPOINT_OPTION,
    EfaCards,
    efa_cards,
    efa_warnings,
    fabric_check,
    interfaces,
)
from ._aws_network import INTERFACE_ENDPOINTS, AwsNetwork, _aws, _fn, load_balancer, network
from ._base import Target, TargetProps
from ._billed import BilledPart, priced, unpriced
from ._boot import BOOT_OPTIONS, BootPlan, Rendezvous, plan_for
from ._boot_script import boot_script, cloud_config
from ._expose import EXPOSE_OPTION, expose_mode
from ._options import chosen_by, require_applicable, whole_option
from ._unsupported import UNSUPPORTED
from ._weights import WEIGHTS_OPTION, WeightsSource
from .k8s import GPU_LABEL, GPU_TAINT_KEY, gpu_label_value, is_training

__all__ = ["CHECKOV_SKIPS", "DEFAULT_AMI_NAME", "DEFAULT_AMI_OWNER", "DEFAULT_ROOT_VOLUME_GIB", "AwsTarget"]

CHECKOV_SKIPS: Mapping[str, str] = {
    "CKV2_AWS_11": "the new VPC has no flow logs: a flow log needs a destination the account owns (an S3 "
    "bucket or a KMS-encrypted log group with its retention policy) that the library cannot invent. "
    "Pass vpc_id/subnet_ids of a VPC with flow logs, or add an aws_flow_log to the stack.",
    "CKV_AWS_91": "the load balancer has no access logs: they need an S3 bucket with a bucket policy for "
    "the ELB service, owned by the account. Add access_logs on the aws_lb with your bucket.",
    "CKV_AWS_150": "deletion protection stays off so that `terraform destroy` of the stack works; turn it "
    "on with an override for a long-lived service.",
}
"""checkov checks the emitted AWS resources fail on purpose, with the reason. Every other AWS check that
applies passes; the instance repeats the launch template's settings so scanners see them."""

DEFAULT_AMI_NAME = "Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 24.04) 20260915"
"""AWS Deep Learning Base AMI (NVIDIA driver, CUDA, EFA, Docker, the SSM agent), one dated release (not
checked against AWS at synth). A newer release reaches a locked workload only through a relock."""
DEFAULT_AMI_OWNER = "amazon"
_AMI_ID = re.compile(r"^ami-[0-9a-f]{8,17}$")
DEFAULT_ROOT_VOLUME_GIB = 500
SSM_POLICY = "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"
EKS_NODE_POLICIES = (
    "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
    "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
    "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
    SSM_POLICY,
)
_EC2_TRUST = (
    '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole",'
    '"Principal":{"Service":"ec2.amazonaws.com"}}]}'
)


def _require_binding(props: TargetProps) -> None:
    """Fail early, naming who chose aws (``options["chosen_by"]``), when the binding is missing."""
    from .._compat import import_binding

    import_binding("aws", chosen_by=chosen_by(props), provider="aws")


# Options only standalone instances read (on a cluster the Kubernetes layer runs the workload).
_STANDALONE_ONLY: Mapping[str, tuple[str, ...]] = {
    key: ("standalone instances",)
    for key in (
        "expose",
        "certificate_arn",
        "weights_uri",
        "vpc_endpoints",
        "image_id",
        "ami_name",
        "efa_network_cards",
        "eval_entrypoint",
        *BOOT_OPTIONS,
    )
    if key not in ("model_url", "command")  # the Kubernetes layer reads these two on a cluster
}


class AwsTarget(Target):
    """AWS: EC2 GPU instances through a launch template, or an EKS managed GPU node group."""

    provider = "aws"
    extra: str | None = "aws"
    options: Mapping[str, str] = {
        "vpc_id": "existing VPC whose subnets have egress. Default: a new VPC with private subnets + NAT.",
        "subnet_ids": "existing subnets (a list, with egress); instances spread across them. "
        "Default: the new VPC's private subnets in two zones.",
        "vpc_endpoints": "S3 gateway + SSM interface endpoints in the new VPC (True/False). Default: True.",
        "expose": EXPOSE_OPTION,
        "certificate_arn": "ACM certificate ARN for a public load balancer's TLS listener. Default: none.",
        **BOOT_OPTIONS,
        "weights_uri": WEIGHTS_OPTION,
        "root_volume_gib": "root volume size in GiB. Default: DEFAULT_ROOT_VOLUME_GIB (500).",
        "image_id": "exact AMI id (ami-...). Default: the AMI named DEFAULT_AMI_NAME (or the lock's).",
        "ami_name": "exact AMI name (owner amazon); a '*' pattern opts in to the newest match, which moves "
        "between plans. Default: DEFAULT_AMI_NAME, or the name the lock entry recorded.",
        "efa_network_cards": EFA_OPTION,
        "eval_entrypoint": EVAL_ENTRYPOINT_OPTION,
    }
    unsupported = UNSUPPORTED["aws"]  # declared in _unsupported.py

    def image_reference(self, placement: Placement, *, cluster: bool) -> Mapping[str, str] | None:
        # EKS node groups boot the AMI the node group's ami_type names (EKS-managed release versions).
        return None if cluster else {"ami_name": DEFAULT_AMI_NAME, "ami_owner": DEFAULT_AMI_OWNER}

    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        _require_binding(props)
        mod = _aws("provider")
        tags = [mod.AwsProviderDefaultTags(tags=dict(props.tags))] if props.tags else None
        return mod.AwsProvider(scope, "aws", region=region, default_tags=tags)

    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        resources = self._emit(scope, placement, props)
        if provider is not None:
            # Every resource and data source on this workload's provider block: a second region's block
            # is aliased, and a resource without `provider` would silently land in the default region.
            from .._compat import TerraformDataSource, TerraformResource

            for node in scope.node.find_all():
                if isinstance(node, TerraformResource | TerraformDataSource) and node.provider is None:
                    node.provider = provider
        return resources

    def _emit(self, scope: Any, placement: Placement, props: TargetProps) -> dict[str, Any]:
        _require_binding(props)
        if props.cluster:
            efa_cards(placement.instance_type, props.options)  # a bad value names itself first
            _eval_entrypoint("", props.options)
            require_applicable(props, target="aws", emitted="EKS node groups", readers=_STANDALONE_ONLY)
            subnets = self._subnet_ids(scope, props)
            group = _security_group(
                scope, props, multi_node=_multi_node(placement), vpc_id=_vpc_id(scope, props)
            )
            return _node_group(scope, placement, props, subnets=subnets, security_group=group)
        plan = plan_for(placement, props, target="aws", store="aws_secrets_manager", weights_store="s3")
        # Validated whatever the placement: a bad value is an error even where it would not be read.
        given_cards = efa_cards(placement.instance_type, props.options)
        cards = given_cards if _multi_node(placement) else None
        if cards is not None and plan is not None and props.options.get("container_image") is None:
            # The NGC image has no aws-ofi-nccl plugin: on EFA the job gets the AWS DLC, which has it.
            plan = dataclasses.replace(plan, image=DEFAULT_EFA_TRAINING_IMAGE)
        if plan is not None and not plan.serves and _eval_entrypoint(plan.image, props.options):
            plan = dataclasses.replace(plan, eval_entrypoint=True)
        mode = expose_mode(placement, props, target="aws", serves=plan is not None, unsupported={})
        net = network(scope, placement, props)
        port = plan.port if plan else 8000
        ingress = None if mode == "none" else (port, "0.0.0.0/0" if mode == "public" else net.cidr)
        group = _security_group(
            scope, props, multi_node=_multi_node(placement), vpc_id=net.vpc_id, ingress_port=ingress
        )
        resources = _instances(scope, placement, props, net=net, security_group=group, plan=plan, cards=cards)
        found = efa_warnings(placement.instance_type, props.options, cards, multi_node=_multi_node(placement))
        if found:
            resources["warnings"] = [*resources.get("warnings", []), *found]
        resources["network"] = net
        resources["billed"] = _billed(
            placement,
            props,
            nat=net.created,
            load_balancer=mode != "none",
            endpoints=net.endpoints,
            public_lb=mode == "public",
        )
        if mode != "none":
            resources.update(
                load_balancer(
                    scope, placement, props, net=net, mode=mode, port=port, instance=resources["instance"]
                )
            )
        if mode != "none":
            resources["expose"] = mode
        return resources

    def kube_connection(self, scope: Any, *, cluster: str, region: str) -> Mapping[str, Any] | None:
        # Endpoint and CA from the existing cluster (read at plan time), a short-lived token from the
        # AWS CLI at apply time: no credential is ever written into the synthesized JSON.
        data = _aws("data_aws_eks_cluster").DataAwsEksCluster(scope, "eks_cluster", name=cluster)
        return {
            "host": data.endpoint,
            "cluster_ca_certificate": _fn().base64decode(data.certificate_authority.get(0).data),
            "exec": {
                "api_version": "client.authentication.k8s.io/v1beta1",
                "command": "aws",
                "args": ["eks", "get-token", "--cluster-name", cluster, "--region", region],
            },
        }

    def _subnet_ids(self, scope: Any, props: TargetProps) -> Any:
        given = props.options.get("subnet_ids")
        if isinstance(given, str):  # list("subnet-1") would be one subnet per character
            raise TargetError(
                f"aws option 'subnet_ids' must be a list of subnet ids (got the string {given!r}). "
                f"To fix: options={{'subnet_ids': [{given!r}]}}"
            )
        if given:
            return list(given)
        vpc_id = _vpc_id(scope, props)
        mod = _aws("data_aws_subnets")
        subnets = mod.DataAwsSubnets(
            scope,
            "default_subnets",
            filter=[
                mod.DataAwsSubnetsFilter(name="vpc-id", values=[vpc_id]),
                mod.DataAwsSubnetsFilter(name="default-for-az", values=["true"]),
            ],
        )
        return subnets.ids


def _billed(
    placement: Placement,
    props: TargetProps,
    *,
    nat: bool,
    load_balancer: bool,
    endpoints: int = 0,
    public_lb: bool = False,
) -> list[BilledPart]:
    """The stack's billed parts besides the instances: root volumes, the NAT gateway, the load balancer,
    the VPC's interface endpoints (each billed per zone: two zones, one when the type has one only)."""
    region = placement.region
    parts = [
        priced(
            "aws",
            "ebs_gp3_gb_month",
            region,
            part=f"root volumes (gp3, {placement.instances} x {_root_gib(props)} GiB)",
            quantity=placement.instances * _root_gib(props),
        )
    ]
    if nat:
        parts.append(priced("aws", "nat_gateway_hour", region, part="NAT gateway", quantity=1))
        # The NAT gateway's Elastic IP: a public IPv4 address, billed hourly since 2024-02-01.
        parts.append(
            priced(
                "aws",
                "public_ipv4_address_hour",
                region,
                part="NAT gateway Elastic IP (public IPv4)",
                quantity=1,
            )
        )
        parts.append(
            unpriced(
                "NAT data processing",
                quantity=0,
                unit="GB",
                why="billed per GB through the NAT (images, weights): depends on traffic the stack "
                "cannot know",
            )
        )
    if endpoints:
        zones = 2
        parts.append(
            priced(
                "aws",
                "vpc_interface_endpoint_hour",
                region,
                part=f"VPC interface endpoints ({endpoints} x {zones} zones: "
                f"{', '.join(INTERFACE_ENDPOINTS)})",
                quantity=endpoints * zones,
            )
        )
        parts.append(
            unpriced(
                "VPC endpoint data processing",
                quantity=0,
                unit="GB",
                why="interface endpoints bill per GB processed (SSM traffic, small); the S3 gateway "
                "endpoint has no charge",
            )
        )
    if load_balancer:
        parts.append(priced("aws", "nlb_hour", region, part="network load balancer", quantity=1))
        if public_lb:
            # An internet-facing NLB holds one public IPv4 address per zone (two subnets at most).
            parts.append(
                priced(
                    "aws",
                    "public_ipv4_address_hour",
                    region,
                    part="load balancer public IPv4 addresses (one per zone, 2 zones)",
                    quantity=2,
                )
            )
        parts.append(
            unpriced(
                "load balancer capacity units",
                quantity=0,
                unit="NLCU-hour",
                why="billed per capacity unit used: depends on traffic the stack cannot know",
            )
        )
    return parts


def _eval_entrypoint(image: str, options: Mapping[str, Any]) -> bool:
    """Whether the training image's entrypoint ends in ``eval "$@"``: the option, else True for the
    default AWS Deep Learning Container (``dockerd_entrypoint.sh``), else False."""
    given = options.get("eval_entrypoint")
    if given is None:
        return image == DEFAULT_EFA_TRAINING_IMAGE
    if not isinstance(given, bool):
        raise TargetError(
            f"aws option 'eval_entrypoint' must be True or False (got {described(given)}). To fix: True "
            'when the training image\'s ENTRYPOINT ends in eval "$@" (as the AWS Deep Learning '
            "Containers' dockerd_entrypoint.sh does), False otherwise."
        )
    return given


def _multi_node(placement: Placement) -> bool:
    # Inference replicas on several instances are independent; only a training job's ranks need a fabric.
    return placement.instances > 1 and is_training(placement)


def _vpc_id(scope: Any, props: TargetProps) -> Any:
    given = props.options.get("vpc_id")
    if given:
        return given
    existing = scope.node.try_find_child("default_vpc")
    if existing is not None:
        return existing.id
    return _aws("data_aws_vpc").DataAwsVpc(scope, "default_vpc", default=True).id


def _security_group(
    scope: Any,
    props: TargetProps,
    *,
    multi_node: bool,
    vpc_id: Any,
    ingress_port: tuple[int, Any] | None = None,
) -> Any:
    mod = _aws("security_group")
    https = mod.SecurityGroupEgress(
        description="HTTPS out: model downloads, container images, SSM Session Manager",
        protocol="tcp",
        from_port=443,
        to_port=443,
        cidr_blocks=["0.0.0.0/0"],
    )
    egress = [https]
    ingress = []
    if ingress_port is not None:
        # The serving port only: from the VPC (internal load balancer, its health checks) or, with
        # expose='public' asked explicitly, from the internet (the network load balancer keeps client IPs).
        port, cidr = ingress_port
        ingress.append(
            mod.SecurityGroupIngress(
                description="vLLM serving port, through the load balancer",
                protocol="tcp",
                from_port=port,
                to_port=port,
                cidr_blocks=[cidr],
            )
        )
    if multi_node:
        # EFA needs all traffic between members of the same security group, and nothing else.
        peer = {"protocol": "-1", "from_port": 0, "to_port": 0, "self_attribute": True}
        egress.append(mod.SecurityGroupEgress(description="EFA between the job's instances", **peer))
        ingress.append(mod.SecurityGroupIngress(description="EFA between the job's instances", **peer))
    return mod.SecurityGroup(
        scope,
        "security_group",
        name_prefix=f"{props.name}-",
        description=f"computeops {props.name}: HTTPS egress; ingress on the serving port only when exposed",
        vpc_id=vpc_id,
        egress=egress,
        ingress=ingress,
        tags=dict(props.tags),
    )


def _role(scope: Any, props: TargetProps, policies: tuple[str, ...]) -> Any:
    role = _aws("iam_role").IamRole(
        scope, "role", name_prefix=f"{props.name}-", assume_role_policy=_EC2_TRUST, tags=dict(props.tags)
    )
    attach = _aws("iam_role_policy_attachment").IamRolePolicyAttachment
    for index, arn in enumerate(policies):
        attach(scope, f"role_policy_{index}", role=role.name, policy_arn=arn)
    return role


def _ami(scope: Any, props: TargetProps) -> tuple[Any, list[str]]:
    """The AMI lookup (an exact id or an exact name: the same image at every plan) and any warning."""
    image_id, name = props.options.get("image_id"), props.options.get("ami_name")
    if image_id is not None and name is not None:
        raise TargetError(
            "aws options 'image_id' and 'ami_name' both name the image. To fix: give one of them."
        )
    mod = _aws("data_aws_ami")
    if image_id is not None:
        if not isinstance(image_id, str) or not _AMI_ID.match(image_id):
            raise TargetError(
                f"aws option 'image_id' must be an AMI id like 'ami-0123456789abcdef0' (got {image_id!r}). "
                "To fix: give the id of the AMI in the placement's region, or leave it out for the default"
            )
        # Looked up by id only for its root device name (the root volume's mapping needs it).
        ami = mod.DataAwsAmi(
            scope,
            "gpu_ami",
            include_deprecated=True,
            filter=[mod.DataAwsAmiFilter(name="image-id", values=[image_id])],
        )
        return ami, []
    recorded = props.image or {}
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise TargetError(
            f"aws option 'ami_name' must be an AMI name (got {name!r}). "
            f"To fix: options={{'ami_name': {DEFAULT_AMI_NAME!r}}} (the default)"
        )
    chosen = str(name or recorded.get("ami_name") or DEFAULT_AMI_NAME)
    owner = DEFAULT_AMI_OWNER if name is not None else recorded.get("ami_owner", DEFAULT_AMI_OWNER)
    moving = any(c in chosen for c in "*?")
    ami = mod.DataAwsAmi(
        scope,
        "gpu_ami",
        most_recent=True if moving else None,
        include_deprecated=True,
        owners=[owner],
        filter=[
            mod.DataAwsAmiFilter(name="name", values=[chosen]),
            mod.DataAwsAmiFilter(name="architecture", values=["x86_64"]),
        ],
    )
    warnings = []
    if moving:
        warnings.append(
            f"the AMI is the newest match of the pattern {chosen!r} (most_recent): it moves between plans "
            "and a re-apply can replace every instance. Give an exact 'ami_name' or 'image_id' to pin it"
        )
    return ami, warnings


def _root_gib(props: TargetProps) -> int:
    return whole_option(props, "root_volume_gib", DEFAULT_ROOT_VOLUME_GIB, target="aws")


def _launch_template(
    scope: Any,
    placement: Placement,
    props: TargetProps,
    *,
    security_group: Any,
    extra: Mapping[str, Any],
    nics: list[Any] | None = None,
    count: Any = None,
) -> Any:
    mod = _aws("launch_template")
    # EKS node groups take their interface from the template; standalone instances carry their own
    # (a subnet per replica, or a rank's primary interface), which a template interface would conflict
    # with, except a multi-node EFA job: one template per rank holds that rank's primary interface and
    # its EFA-only interfaces (given as ``nics``, with ``count`` = ranks).
    if security_group is not None:
        nics = [
            mod.LaunchTemplateNetworkInterfaces(
                device_index=0,
                associate_public_ip_address="false",
                delete_on_termination="true",
                security_groups=[security_group.id],
            )
        ]
    market = None
    if placement.pricing == "spot":
        market = mod.LaunchTemplateInstanceMarketOptions(
            market_type="spot",
            spot_options=mod.LaunchTemplateInstanceMarketOptionsSpotOptions(
                instance_interruption_behavior="terminate", spot_instance_type="one-time"
            ),
        )
    return mod.LaunchTemplate(
        scope,
        "launch_template",
        count=count,
        name_prefix=f"{props.name}-",
        instance_type=placement.instance_type,
        ebs_optimized="true",
        metadata_options=mod.LaunchTemplateMetadataOptions(
            http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=1
        ),
        monitoring=mod.LaunchTemplateMonitoring(enabled=True),
        network_interfaces=nics,
        instance_market_options=market,
        tag_specifications=[
            mod.LaunchTemplateTagSpecifications(resource_type=kind, tags=dict(props.tags))
            for kind in ("instance", "volume")
        ]
        if props.tags
        else None,
        tags=dict(props.tags),
        **extra,  # image, profile and placement group (standalone) or the root volume alone (EKS)
    )


def _ebs(mod: Any, props: TargetProps, device_name: Any) -> Any:
    return mod.LaunchTemplateBlockDeviceMappings(
        device_name=device_name,
        ebs=mod.LaunchTemplateBlockDeviceMappingsEbs(
            volume_size=_root_gib(props), volume_type="gp3", encrypted="true", delete_on_termination="true"
        ),
    )


def _instances(
    scope: Any,
    placement: Placement,
    props: TargetProps,
    *,
    net: AwsNetwork,
    security_group: Any,
    plan: BootPlan | None,
    cards: EfaCards | None = None,
) -> dict[str, Any]:
    role = _role(scope, props, (SSM_POLICY,))
    secrets = [s.id for s in (plan.secret, plan.api_key) if s is not None] if plan is not None else []
    if secrets:
        # Read access to the secrets holding the Hugging Face token and the API key, nothing else.
        statement = {
            "Effect": "Allow",
            "Action": "secretsmanager:GetSecretValue",
            "Resource": secrets[0] if len(secrets) == 1 else secrets,
        }
        _aws("iam_role_policy").IamRolePolicy(
            scope,
            "read_hf_token" if plan is not None and plan.api_key is None else "read_secrets",
            name_prefix=f"{props.name}-hf-",
            role=role.name,
            policy=json.dumps({"Version": "2012-10-17", "Statement": [statement]}),
        )
    if plan is not None and plan.weights is not None:
        _aws("iam_role_policy").IamRolePolicy(
            scope,
            "read_weights",
            name_prefix=f"{props.name}-weights-",
            role=role.name,
            policy=json.dumps(_weights_policy(plan.weights, placement.region)),
        )
    profile = _aws("iam_instance_profile").IamInstanceProfile(
        scope, "instance_profile", name_prefix=f"{props.name}-", role=role.name, tags=dict(props.tags)
    )
    ami, warnings = _ami(scope, props)
    lt_mod = _aws("launch_template")
    extra: dict[str, Any] = {
        "image_id": ami.id,
        "iam_instance_profile": lt_mod.LaunchTemplateIamInstanceProfile(arn=profile.arn),
        "block_device_mappings": [_ebs(lt_mod, props, ami.root_device_name)],
    }
    resources: dict[str, Any] = {"ami": ami, "role": role, "instance_profile": profile}
    if warnings:
        resources["warnings"] = warnings
    if _multi_node(placement):
        group = _aws("placement_group").PlacementGroup(
            scope, "placement_group", name=f"{props.name}-cluster", strategy="cluster", tags=dict(props.tags)
        )
        extra["placement"] = lt_mod.LaunchTemplatePlacement(group_name=group.name)
        resources["placement_group"] = group
    nics: list[Any] = []
    template_args: dict[str, Any] = {}
    if _multi_node(placement):
        # Every rank in the first subnet: one zone, as the cluster placement group (and EFA) need.
        subnet = _fn().element(net.private, 0)
        nics = _rank_interfaces(scope, placement, props, subnet, security_group)
        resources["rank_interfaces"] = nics
        if cards is not None:
            from .._compat import TerraformCount

            count = TerraformCount.of(placement.instances)
            primary = _fn().element([n.id for n in nics], count.index)
            template_args = {
                "count": count,
                "nics": interfaces(
                    lt_mod, cards, primary=primary, subnet=subnet, security_group=security_group
                ),
            }
            resources["efa_check"] = fabric_check(scope, placement.instance_type, cards)
    template = _launch_template(scope, placement, props, security_group=None, extra=extra, **template_args)
    resources["launch_template"] = template
    resources["instance"] = _instance(
        scope, placement, props, template, profile, net, security_group, plan, nics=nics, cards=cards
    )
    resources["security_group"] = security_group
    return resources


def _rank_interfaces(
    scope: Any, placement: Placement, props: TargetProps, subnet: Any, security_group: Any
) -> list[Any]:
    """One primary (ENA) interface per rank, created before the instances so that every rank's boot
    script knows the first rank's address, in one subnet (a cluster placement group lives in one zone)."""
    nic = _aws("network_interface").NetworkInterface
    return [
        nic(
            scope,
            f"rank_{rank}",
            subnet_id=subnet,
            security_groups=[security_group.id],
            tags={**props.tags, "Name": f"{props.name}-rank-{rank}"},
        )
        for rank in range(placement.instances)
    ]


def _instance(
    scope: Any,
    placement: Placement,
    props: TargetProps,
    template: Any,
    profile: Any,
    net: AwsNetwork,
    security_group: Any,
    plan: BootPlan | None,
    *,
    nics: list[Any],
    cards: EfaCards | None,
) -> Any:
    from .._compat import TerraformCount, Token

    mod = _aws("instance")
    count = TerraformCount.of(placement.instances)
    rank = Token.as_string(count.index)
    placement_args: dict[str, Any]
    rendezvous = None
    launch = mod.InstanceLaunchTemplate(id=template.id, version=_fn().tostring(template.latest_version))
    if cards is not None:
        # Rank i boots from launch template i, which holds its primary interface and EFA-only ones.
        placement_args = {}
        launch = mod.InstanceLaunchTemplate(
            id=_counted(template, "id"), version=_counted(template, "latest_version", wrap="tostring")
        )
    elif nics:
        placement_args = {
            "primary_network_interface": mod.InstancePrimaryNetworkInterface(
                network_interface_id=_fn().element([n.id for n in nics], count.index)
            )
        }
    else:
        # element() wraps around: replica i lands in subnet i mod n, so replicas spread over the zones.
        placement_args = {
            "subnet_id": _fn().element(net.private, count.index),
            "vpc_security_group_ids": [security_group.id],
            "associate_public_ip_address": False,
        }
    if nics:
        rendezvous = Rendezvous(
            rank=rank,
            master_addr=nics[0].private_ip,
            nodes=placement.instances,
            efa=cards is not None,
            efa_devices=cards.cards if cards is not None else 0,
            efa_device_rdma=cards is not None and cards.device_rdma,
        )
    user_data = cloud_config(boot_script(plan, rendezvous=rendezvous)) if plan is not None else None
    # The secure settings are repeated on the instance (same values as the template) so that static
    # scanners, which do not follow launch-template references, see them where they check.
    return mod.Instance(
        scope,
        "instance",
        count=count,
        launch_template=launch,
        instance_type=placement.instance_type,
        iam_instance_profile=profile.name,
        ebs_optimized=True,
        monitoring=True,
        metadata_options=mod.InstanceMetadataOptions(
            http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=1
        ),
        root_block_device=mod.InstanceRootBlockDevice(
            volume_size=_root_gib(props), volume_type="gp3", encrypted=True, delete_on_termination=True
        ),
        user_data=user_data,
        user_data_replace_on_change=True if user_data is not None else None,
        tags={**props.tags, "Name": props.name},
        **placement_args,
    )


def _counted(resource: Any, attribute: str, *, wrap: str = "") -> Any:
    """``attribute`` of instance ``count.index`` of a counted resource, optionally inside the function
    ``wrap`` (written out: Fn would escape the splat; a raw expression token, as the load balancer's
    attachments)."""
    from ._escape import raw_expression

    ref = f"{resource.terraform_resource_type}.{resource.friendly_unique_id}"
    element = f"element({ref}[*].{attribute}, count.index)"
    return raw_expression(f"${{{wrap}({element})}}" if wrap else f"${{{element}}}")


def _node_group(
    scope: Any, placement: Placement, props: TargetProps, *, subnets: Any, security_group: Any
) -> dict[str, Any]:
    role = _role(scope, props, EKS_NODE_POLICIES)
    lt_mod = _aws("launch_template")
    # EKS picks the AMI from ami_type; the launch template must then carry neither image nor profile.
    template = _launch_template(
        scope,
        placement,
        props,
        security_group=security_group,
        extra={"block_device_mappings": [_ebs(lt_mod, props, "/dev/xvda")]},
    )
    mod = _aws("eks_node_group")
    size = placement.instances
    group = mod.EksNodeGroup(
        scope,
        "node_group",
        cluster_name=props.cluster,
        node_group_name_prefix=f"{props.name}-",
        node_role_arn=role.arn,
        subnet_ids=subnets,
        instance_types=[placement.instance_type],
        ami_type="AL2023_x86_64_NVIDIA",
        capacity_type="SPOT" if placement.pricing == "spot" else "ON_DEMAND",
        scaling_config=mod.EksNodeGroupScalingConfig(desired_size=size, min_size=size, max_size=size),
        labels={GPU_LABEL: gpu_label_value(placement.accelerator)},
        taint=[mod.EksNodeGroupTaint(key=GPU_TAINT_KEY, value="true", effect="NO_SCHEDULE")],
        launch_template=mod.EksNodeGroupLaunchTemplate(
            id=template.id, version=_fn().tostring(template.latest_version)
        ),
        tags=dict(props.tags),
    )
    return {"node_group": group, "launch_template": template, "role": role, "security_group": security_group}


def _weights_policy(weights: WeightsSource, region: str) -> dict[str, Any]:
    """Read access to the objects under ``weights_uri``'s prefix and to listing that prefix only."""
    partition = (
        "aws-us-gov" if region.startswith("us-gov-") else "aws-cn" if region.startswith("cn-") else "aws"
    )
    bucket = f"arn:{partition}:s3:::{weights.bucket}"
    objects = f"{bucket}/{weights.prefix}/*" if weights.prefix else f"{bucket}/*"
    listing: dict[str, Any] = {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": bucket}
    if weights.prefix:
        listing["Condition"] = {"StringLike": {"s3:prefix": [weights.prefix, f"{weights.prefix}/*"]}}
    return {
        "Version": "2012-10-17",
        "Statement": [listing, {"Effect": "Allow", "Action": "s3:GetObject", "Resource": objects}],
    }
