"""AWS target: synthesize once per shape (module fixture), assert resources and secure defaults."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import make_placement

pytestmark = pytest.mark.synth


def _synth(name: str, placement: Any, *, cluster: str | None = None, **options: Any) -> dict[str, Any]:
    from computeops_cdk._compat import TerraformStack, Testing
    from computeops_cdk.targets import TargetProps, get_target

    stack = TerraformStack(Testing.app(), name)
    target = get_target("aws")
    props = TargetProps(name=name, cluster=cluster, tags={"team": "ml"}, options=options)
    provider = target.configure(stack, region=placement.region, props=props)
    target.emit(stack, placement, provider=provider, props=props)
    return json.loads(Testing.synth(stack))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def stacks() -> dict[str, dict[str, Any]]:
    return {
        "single": _synth("infer", make_placement(instance_type="g6e.xlarge", accelerators_per_instance=1)),
        "replicas": _synth("replicas", make_placement(instances=3)),
        "train": _synth("train", make_placement(instances=4, training=True, pricing="spot")),
        "eks": _synth("eks", make_placement(instances=2, pricing="spot"), cluster="prod"),
        "custom": _synth(
            "custom",
            make_placement(),
            subnet_ids=["subnet-1", "subnet-2"],
            vpc_id="vpc-9",
            root_volume_gib=900,
        ),
    }


def _one(doc: dict[str, Any], kind: str) -> dict[str, Any]:
    (resource,) = doc["resource"][kind].values()
    return resource  # type: ignore[no-any-return]


def test_provider_block_pins_the_region_and_default_tags(stacks: dict[str, dict[str, Any]]) -> None:
    (provider,) = stacks["single"]["provider"]["aws"]
    assert provider["region"] == "us-east-1"
    assert provider["default_tags"] == [{"tags": {"team": "ml"}}]
    assert stacks["single"]["terraform"]["required_providers"]["aws"]["source"] == "hashicorp/aws"


def test_instance_type_and_count_follow_the_decision(stacks: dict[str, dict[str, Any]]) -> None:
    single = _one(stacks["single"], "aws_instance")
    assert single["instance_type"] == "g6e.xlarge"
    assert single["count"] == 1
    assert _one(stacks["replicas"], "aws_instance")["count"] == 3
    assert _one(stacks["single"], "aws_launch_template")["instance_type"] == "g6e.xlarge"


def test_imdsv2_encrypted_gp3_and_monitoring_on_template_and_instance(
    stacks: dict[str, dict[str, Any]],
) -> None:
    template = _one(stacks["single"], "aws_launch_template")
    instance = _one(stacks["single"], "aws_instance")
    for metadata in (template["metadata_options"], instance["metadata_options"]):
        assert metadata["http_tokens"] == "required"
        assert metadata["http_put_response_hop_limit"] == 1
    (mapping,) = template["block_device_mappings"]
    assert mapping["ebs"] == {
        "delete_on_termination": "true",
        "encrypted": "true",
        "volume_size": 500,
        "volume_type": "gp3",
    }
    assert mapping["device_name"] == "${data.aws_ami.gpu_ami.root_device_name}"
    assert instance["root_block_device"]["encrypted"] is True
    assert instance["root_block_device"]["volume_type"] == "gp3"
    assert instance["monitoring"] is True and template["monitoring"] == {"enabled": True}


def test_no_public_ingress_and_https_only_egress(stacks: dict[str, dict[str, Any]]) -> None:
    group = _one(stacks["single"], "aws_security_group")
    assert group["ingress"] == []
    (egress,) = group["egress"]
    assert (egress["protocol"], egress["from_port"], egress["to_port"]) == ("tcp", 443, 443)
    (nic,) = _one(stacks["single"], "aws_launch_template")["network_interfaces"]
    assert nic["associate_public_ip_address"] == "false"
    assert "interface_type" not in nic


def test_ssm_instance_profile_and_dlami_lookup(stacks: dict[str, dict[str, Any]]) -> None:
    doc = stacks["single"]
    attachments = doc["resource"]["aws_iam_role_policy_attachment"].values()
    assert [a["policy_arn"] for a in attachments] == ["arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"]
    assert (
        _one(doc, "aws_instance")["iam_instance_profile"]
        == "${aws_iam_instance_profile.instance_profile.name}"
    )
    ami = doc["data"]["aws_ami"]["gpu_ami"]
    assert ami["owners"] == ["amazon"] and ami["most_recent"] is True
    assert {f["name"]: f["values"] for f in ami["filter"]} == {
        "name": ["Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 24.04) *"],
        "architecture": ["x86_64"],
    }


def test_on_demand_has_no_market_options_spot_does(stacks: dict[str, dict[str, Any]]) -> None:
    assert "instance_market_options" not in _one(stacks["single"], "aws_launch_template")
    market = _one(stacks["train"], "aws_launch_template")["instance_market_options"]
    assert market["market_type"] == "spot"
    assert market["spot_options"]["instance_interruption_behavior"] == "terminate"


def test_multi_node_training_gets_cluster_placement_and_efa(stacks: dict[str, dict[str, Any]]) -> None:
    doc = stacks["train"]
    assert _one(doc, "aws_placement_group")["strategy"] == "cluster"
    template = _one(doc, "aws_launch_template")
    assert template["placement"] == {"group_name": "${aws_placement_group.placement_group.name}"}
    (nic,) = template["network_interfaces"]
    assert nic["interface_type"] == "efa"
    group = _one(doc, "aws_security_group")
    # EFA traffic only between the job's own instances, never from outside.
    (ingress,) = group["ingress"]
    assert ingress["self"] is True and not ingress["cidr_blocks"]
    assert _one(doc, "aws_instance")["count"] == 4


def test_inference_replicas_get_no_placement_group(stacks: dict[str, dict[str, Any]]) -> None:
    assert "aws_placement_group" not in stacks["replicas"]["resource"]
    (nic,) = _one(stacks["replicas"], "aws_launch_template")["network_interfaces"]
    assert "interface_type" not in nic


def test_eks_node_group_instead_of_instances(stacks: dict[str, dict[str, Any]]) -> None:
    doc = stacks["eks"]
    assert "aws_instance" not in doc["resource"]
    group = _one(doc, "aws_eks_node_group")
    assert group["cluster_name"] == "prod"
    assert group["instance_types"] == ["p5.48xlarge"]
    assert group["capacity_type"] == "SPOT"
    assert group["ami_type"] == "AL2023_x86_64_NVIDIA"
    assert group["scaling_config"] == {"desired_size": 2, "max_size": 2, "min_size": 2}
    assert group["labels"] == {"computeops.io/gpu": "h100-sxm"}
    assert group["taint"] == [{"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "true"}]
    template = _one(doc, "aws_launch_template")
    assert "image_id" not in template and "iam_instance_profile" not in template
    assert template["metadata_options"]["http_tokens"] == "required"
    policies = {
        a["policy_arn"].rsplit("/", 1)[1] for a in doc["resource"]["aws_iam_role_policy_attachment"].values()
    }
    assert policies == {
        "AmazonEKSWorkerNodePolicy",
        "AmazonEKS_CNI_Policy",
        "AmazonEC2ContainerRegistryReadOnly",
        "AmazonSSMManagedInstanceCore",
    }


def test_options_override_network_and_volume(stacks: dict[str, dict[str, Any]]) -> None:
    doc = stacks["custom"]
    assert "aws_vpc" not in doc.get("data", {}) and "aws_subnets" not in doc.get("data", {})
    assert _one(doc, "aws_security_group")["vpc_id"] == "vpc-9"
    (nic,) = _one(doc, "aws_launch_template")["network_interfaces"]
    assert nic["subnet_id"] == '${element(["subnet-1", "subnet-2"], 0)}'
    assert _one(doc, "aws_instance")["root_block_device"]["volume_size"] == 900


def test_declares_tpu_unsupported_with_a_reason() -> None:
    from computeops_cdk.targets import unsupported_features

    assert set(unsupported_features("aws")) == {"tpu"}
    assert "no TPUs" in unsupported_features("aws")["tpu"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"subnet_ids": "subnet-1"},
            "aws option 'subnet_ids' must be a list of subnet ids (got the string 'subnet-1'). "
            "To fix: options={'subnet_ids': ['subnet-1']}",
        ),
        (
            {"root_volume_gib": "big"},
            "aws option 'root_volume_gib' must be a whole number of GiB >= 1 (got 'big'). "
            "To fix: options={'root_volume_gib': 500} (the default)",
        ),
    ],
)
def test_malformed_options_are_target_errors(options: dict[str, Any], message: str) -> None:
    # A string of subnets used to become one subnet per character; "big" a ValueError traceback.
    from computeops_cdk.errors import TargetError

    with pytest.raises(TargetError) as caught:
        _synth("bad-options", make_placement(), **options)
    assert str(caught.value) == message
