"""AWS target: synthesize once per shape (module fixture), assert resources and secure defaults."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import make_placement

pytestmark = pytest.mark.synth


MODEL = "meta-llama/Llama-3.1-70B-Instruct"
SECRET = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf"


def _synth(
    name: str, placement: Any, *, cluster: str | None = None, model: str | None = MODEL, **options: Any
) -> dict[str, Any]:
    from computeops_cdk._compat import TerraformStack, Testing
    from computeops_cdk.targets import TargetProps, get_target

    stack = TerraformStack(Testing.app(), name)
    target = get_target("aws")
    props = TargetProps(
        name=name, cluster=cluster, tags={"team": "ml"}, options=options, model=None if cluster else model
    )
    provider = target.configure(stack, region=placement.region, props=props)
    target.emit(stack, placement, provider=provider, props=props)
    return json.loads(Testing.synth(stack))  # type: ignore[no-any-return]


def _estimate() -> Any:
    from computeops_cdk.engine import EstimateSummary

    return EstimateSummary(
        tokens_per_s=1000.0,
        ttft_ms=200.0,
        tpot_ms=50.0,
        model="test",
        assumptions=("tensor parallel 4 x 2 replica(s), 178 request(s) in flight per replica (test)",),
        tensor_parallel=4,
        replicas=6,
        concurrency_per_replica=178,
    )


_ESTIMATE = _estimate()


@pytest.fixture(scope="module")
def stacks() -> dict[str, dict[str, Any]]:
    return {
        "single": _synth("infer", make_placement(instance_type="g6e.xlarge", accelerators_per_instance=1)),
        "replicas": _synth(
            "replicas", make_placement(instances=3, estimate=_ESTIMATE), hf_token_secret=SECRET
        ),
        "public": _synth(
            "public",
            make_placement(instances=2),
            expose="public",
            certificate_arn="arn:aws:acm:us-east-1:1:certificate/x",
        ),
        "bare": _synth("bare", make_placement(), model=None),
        "train": _synth("train", make_placement(instances=4, training=True, pricing="spot")),
        "train_p4d": _synth(
            "trainp4d", make_placement(instance_type="p4d.24xlarge", instances=2, training=True)
        ),
        "train_unsourced": _synth(
            "trainp6", make_placement(instance_type="p6-b200.48xlarge", instances=2, training=True)
        ),
        "eks": _synth("eks", make_placement(instances=2, pricing="spot"), cluster="prod"),
        "custom": _synth(
            "custom",
            make_placement(),
            subnet_ids=["subnet-1", "subnet-2"],
            vpc_id="vpc-9",
            root_volume_gib=900,
        ),
        "no_endpoints": _synth("noep", make_placement(), vpc_endpoints=False),
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


def test_ingress_only_on_the_serving_port_from_the_vpc_and_https_only_egress(
    stacks: dict[str, dict[str, Any]],
) -> None:
    group = stacks["single"]["resource"]["aws_security_group"]["security_group"]
    (ingress,) = group["ingress"]  # expose defaults to internal for inference
    assert (ingress["from_port"], ingress["to_port"], ingress["cidr_blocks"]) == (
        8000,
        8000,
        ["10.80.0.0/16"],
    )
    assert (
        stacks["bare"]["resource"]["aws_security_group"]["security_group"]["ingress"] == []
    )  # nothing served, nothing exposed
    (egress,) = group["egress"]
    assert (egress["protocol"], egress["from_port"], egress["to_port"]) == ("tcp", 443, 443)
    instance = _one(stacks["single"], "aws_instance")
    assert instance["associate_public_ip_address"] is False
    assert "network_interfaces" not in _one(stacks["single"], "aws_launch_template")


def test_ssm_instance_profile_and_dlami_lookup(stacks: dict[str, dict[str, Any]]) -> None:
    doc = stacks["single"]
    attachments = doc["resource"]["aws_iam_role_policy_attachment"].values()
    assert [a["policy_arn"] for a in attachments] == ["arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"]
    assert (
        _one(doc, "aws_instance")["iam_instance_profile"]
        == "${aws_iam_instance_profile.instance_profile.name}"
    )
    ami = doc["data"]["aws_ami"]["gpu_ami"]
    # One dated DLAMI release by its exact name: the same AMI at every plan (issue 9: most_recent moved it).
    assert ami["owners"] == ["amazon"] and "most_recent" not in ami
    assert ami["include_deprecated"] is True  # still resolvable once AWS deprecates the release
    assert {f["name"]: f["values"] for f in ami["filter"]} == {
        "name": ["Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 24.04) 20260915"],
        "architecture": ["x86_64"],
    }


def _emit(
    placement: Any, *, image: dict[str, str] | None = None, **options: Any
) -> tuple[dict[str, Any], Any]:
    from computeops_cdk._compat import TerraformStack, Testing
    from computeops_cdk.targets import TargetProps, get_target

    stack = TerraformStack(Testing.app(), "image")
    props = TargetProps(name="image", options=options, model=MODEL, image=image)
    resources = get_target("aws").emit(stack, placement, provider=None, props=props)
    return json.loads(Testing.synth(stack)), resources


def test_the_image_follows_the_lock_an_exact_option_or_an_explicit_pattern() -> None:
    from computeops_cdk.targets import get_target

    placement = make_placement()
    assert get_target("aws").image_reference(placement, cluster=False) == {
        "ami_name": "Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 24.04) 20260915",
        "ami_owner": "amazon",
    }
    assert get_target("aws").image_reference(placement, cluster=True) is None  # EKS: the ami_type's AMI

    def name_of(doc: dict[str, Any]) -> list[str]:
        ami = doc["data"]["aws_ami"]["gpu_ami"]
        return [v for f in ami["filter"] if f["name"] == "name" for v in f["values"]]

    recorded = {
        "ami_name": "Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 24.04) 20250101",
        "ami_owner": "amazon",
    }
    doc, resources = _emit(placement, image=recorded)
    assert name_of(doc) == [recorded["ami_name"]] and "warnings" not in resources
    # An exact AMI id: looked up by id (for its root device name), never by a moving name.
    doc, _ = _emit(placement, image=recorded, image_id="ami-0123456789abcdef0")
    ami = doc["data"]["aws_ami"]["gpu_ami"]
    assert ami["filter"] == [{"name": "image-id", "values": ["ami-0123456789abcdef0"]}]
    assert "most_recent" not in ami
    assert _one(doc, "aws_launch_template")["image_id"] == "${data.aws_ami.gpu_ami.id}"
    # A pattern is the user's explicit opt-in to the newest match, and the synth says what it costs.
    doc, resources = _emit(
        placement, ami_name="Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 24.04) *"
    )
    assert doc["data"]["aws_ami"]["gpu_ami"]["most_recent"] is True
    (warning,) = resources["warnings"]
    assert "moves between plans" in warning and "exact 'ami_name' or 'image_id'" in warning


def test_on_demand_has_no_market_options_spot_does(stacks: dict[str, dict[str, Any]]) -> None:
    assert "instance_market_options" not in _one(stacks["single"], "aws_launch_template")
    market = _one(stacks["train"], "aws_launch_template")["instance_market_options"]
    assert market["market_type"] == "spot"
    assert market["spot_options"]["instance_interruption_behavior"] == "terminate"


_FIRST_SUBNET = "${element([aws_subnet.private_subnet_0.id, aws_subnet.private_subnet_1.id], 0)}"
_RANK_NICS = (
    "${element([aws_network_interface.rank_0.id, aws_network_interface.rank_1.id, "
    "aws_network_interface.rank_2.id, aws_network_interface.rank_3.id], count.index)}"
)


def test_multi_node_training_gets_cluster_placement_and_efa(stacks: dict[str, dict[str, Any]]) -> None:
    doc = stacks["train"]
    assert _one(doc, "aws_placement_group")["strategy"] == "cluster"
    template = _one(doc, "aws_launch_template")
    assert template["placement"] == {"group_name": "${aws_placement_group.placement_group.name}"}
    nics = doc["resource"]["aws_network_interface"]
    # One primary interface per rank (its address is known before the ranks boot), all in one subnet:
    # a cluster placement group, and EFA, live in one zone.
    assert sorted(nics) == ["rank_0", "rank_1", "rank_2", "rank_3"]
    assert {n["subnet_id"] for n in nics.values()} == {_FIRST_SUBNET}
    group = doc["resource"]["aws_security_group"]["security_group"]
    # EFA traffic only between the job's own instances, never from outside.
    (ingress,) = group["ingress"]
    assert ingress["self"] is True and not ingress["cidr_blocks"]
    assert _one(doc, "aws_instance")["count"] == 4


def test_efa_on_every_network_card_of_a_p5(stacks: dict[str, dict[str, Any]]) -> None:
    # Regression: a p5.48xlarge rank had ONE EFA interface of its 32 network cards (1/32 of the fabric).
    doc = stacks["train"]
    template = _one(doc, "aws_launch_template")
    assert template["count"] == 4  # one template per rank: it holds that rank's primary interface
    primary, *efa = template["network_interfaces"]
    assert primary == {"network_card_index": 0, "device_index": 0, "network_interface_id": _RANK_NICS}
    # AWS's layout: ENA primary at card 0 / device 0, EFA-only at card 0 / device 1, then device 0 of
    # every further card; 32 EFA devices and one ENA device.
    assert [(n["network_card_index"], n["device_index"]) for n in efa] == [(0, 1)] + [
        (card, 0) for card in range(1, 32)
    ]
    assert {n["interface_type"] for n in efa} == {"efa-only"}
    assert {n["subnet_id"] for n in efa} == {_FIRST_SUBNET}
    assert {tuple(n["security_groups"]) for n in efa} == {("${aws_security_group.security_group.id}",)}
    instance = _one(doc, "aws_instance")
    assert "primary_network_interface" not in instance and "subnet_id" not in instance
    assert instance["launch_template"] == {
        "id": "${element(aws_launch_template.launch_template[*].id, count.index)}",
        "version": "${tostring(element(aws_launch_template.launch_template[*].latest_version, count.index))}",
    }
    # The sourced count is checked against AWS's own answer at plan.
    (check,) = doc["data"]["aws_ec2_instance_type"].values()
    assert check["instance_type"] == "p5.48xlarge"
    (post,) = check["lifecycle"]["postcondition"]
    assert post["condition"] == "${self.efa_supported && self.maximum_network_cards == 32}"
    assert "options={'efa_network_cards'" in post["error_message"]


def test_p4d_gets_four_efa_cards_and_device_rdma(stacks: dict[str, dict[str, Any]]) -> None:
    from boot_tools import boot_texts, check_boot

    doc = stacks["train_p4d"]
    _, *efa = _one(doc, "aws_launch_template")["network_interfaces"]
    assert [n["network_card_index"] for n in efa] == [0, 1, 2, 3]
    (text,) = boot_texts(doc)
    script = check_boot(text)
    assert "FI_EFA_USE_DEVICE_RDMA=1" in script and '"$EFA_FOUND" -lt 4' in script
    assert "FI_EFA_USE_DEVICE_RDMA" not in check_boot(boot_texts(stacks["train"])[0])  # p4d only


def test_p6_b300_gets_no_efa_and_a_warning_that_the_option_cannot_help() -> None:
    doc, resources = _emit_train("p6-b300.48xlarge")
    assert "network_interfaces" not in _one(doc, "aws_launch_template")
    (warning,) = resources["warnings"]
    assert "card 0 takes no EFA" in warning and "estimate assumed the EFA fabric" in warning
    assert "constrain the intent to another type" in warning
    _, resources = _emit_train("p6-b300.48xlarge", efa_network_cards=0)
    assert "warnings" not in resources


def test_a_type_without_a_sourced_card_count_gets_no_efa_and_a_warning() -> None:
    doc, resources = _emit_train("g6e.48xlarge")
    assert "network_interfaces" not in _one(doc, "aws_launch_template")
    assert "aws_ec2_instance_type" not in doc["data"]
    nics = doc["resource"]["aws_network_interface"]
    assert all("interface_type" not in n for n in nics.values())  # plain ENA, valid on any type
    (warning,) = resources["warnings"]
    assert "gets no EFA" in warning and "TCP sockets" in warning
    assert "options={'efa_network_cards': N}" in warning
    # Regression: the warning did not say the decision's estimate assumed the fabric.
    assert "estimate assumed the EFA fabric" in warning and "slower" in warning
    from boot_tools import boot_texts, check_boot

    script = check_boot(boot_texts(doc)[0])
    assert "FI_PROVIDER" not in script and "IMAGE=nvcr.io/nvidia/pytorch:24.12-py3" in script


@pytest.mark.parametrize(("instance_type", "count"), [("p5en.48xlarge", 16), ("p6-b200.48xlarge", 8)])
def test_p5en_and_p6_b200_get_their_sourced_card_counts(instance_type: str, count: int) -> None:
    # Regression: both ran over TCP sockets (no sourced count) while the estimate assumed the fabric.
    doc, resources = _emit_train(instance_type)
    _, *efa = _one(doc, "aws_launch_template")["network_interfaces"]
    assert [n["network_card_index"] for n in efa] == list(range(count)) and "warnings" not in resources
    (check,) = doc["data"]["aws_ec2_instance_type"].values()
    assert f"maximum_network_cards == {count}" in check["lifecycle"]["postcondition"][0]["condition"]


def test_efa_network_cards_option_gives_an_unlisted_types_count_or_turns_efa_off() -> None:
    doc, resources = _emit_train("g6e.48xlarge", efa_network_cards=4)
    _, *efa = _one(doc, "aws_launch_template")["network_interfaces"]
    assert len(efa) == 4 and "warnings" not in resources
    (check,) = doc["data"]["aws_ec2_instance_type"].values()
    assert "maximum_network_cards == 4" in check["lifecycle"]["postcondition"][0]["condition"]
    off, resources = _emit_train("p5.48xlarge", efa_network_cards=0)
    assert "network_interfaces" not in _one(off, "aws_launch_template") and "warnings" not in resources


@pytest.mark.parametrize("value", [-1, 65, 2.5, True, "32"])
def test_a_bad_efa_network_cards_is_a_target_error(value: object) -> None:
    from computeops_cdk.errors import TargetError

    with pytest.raises(TargetError, match=r"'efa_network_cards' must be a whole number 0\.\.64"):
        _emit_train("p5.48xlarge", efa_network_cards=value)


def test_efa_training_runs_a_container_with_libfabric_and_the_ofi_plugin(
    stacks: dict[str, dict[str, Any]],
) -> None:
    from boot_tools import boot_texts, check_boot

    script = check_boot(boot_texts(stacks["train"])[0])
    # The NGC image has no aws-ofi-nccl: the AWS Deep Learning Container (public gallery, no login).
    assert (
        "IMAGE=public.ecr.aws/deep-learning-containers/pytorch-training:2.10.0-gpu-py313-cu130-ubuntu22.04-ec2"
        in script
    )
    # NCCL held to the plugin (no silent TCP fallback), every EFA device passed in, all 32 required.
    assert "'NCCL_NET=AWS Libfabric'" in script and "FI_PROVIDER=efa" in script
    assert 'DEVICES+=(--device "$dev")' in script and '"$EFA_FOUND" -lt 32' in script
    assert "--network host" in script and "--ulimit memlock=-1" in script
    # A user's own image is used as given, with a warning that it needs the plugin.
    doc, resources = _emit_train("p5.48xlarge", container_image="my.registry/train:1")
    assert "IMAGE=my.registry/train:1" in check_boot(boot_texts(doc)[0])
    (warning,) = resources["warnings"]
    assert "libfabric and the aws-ofi-nccl plugin" in warning


@pytest.mark.parametrize("value", [-1, "banana"])
def test_efa_network_cards_is_validated_for_inference_too(value: object) -> None:
    # Regression: validated only for multi-node training; "banana" synthesized silently for inference.
    from computeops_cdk.errors import TargetError

    with pytest.raises(TargetError, match=r"'efa_network_cards' must be a whole number 0\.\..*To fix"):
        _emit_train("p5.48xlarge", training=False, efa_network_cards=value)
    with pytest.raises(TargetError, match=r"'efa_network_cards' must be a whole number"):
        _emit_train("p5.48xlarge", instances=1, efa_network_cards=value)


def test_efa_network_cards_outside_multi_node_training_warns_it_is_not_read() -> None:
    doc, resources = _emit_train("p5.48xlarge", training=False, efa_network_cards=32)
    assert "aws_ec2_instance_type" not in doc.get("data", {})
    (warning,) = resources["warnings"]
    assert "applies only to multi-node training" in warning and "To fix" in warning
    _, resources = _emit_train("p5.48xlarge", instances=1, efa_network_cards=32)
    assert any("applies only to multi-node training" in w for w in resources["warnings"])


def _args_after_image(script: str) -> str:
    """The words the boot script's docker run passes after the image (shell text, still quoted)."""
    (line,) = [line for line in script.splitlines() if line.strip().startswith('"$IMAGE" ')]
    return line.strip().removeprefix('"$IMAGE" ')


def _through_eval_entrypoint(words: str, argv0: str, tmp: Path) -> list[str]:
    """What a command reaches through an entrypoint ending in ``eval "$@"`` (the DLC's
    dockerd_entrypoint.sh): bash parses ``words`` as the boot script's bash does, docker hands them
    to the entrypoint as argv, the entrypoint evals them. ``argv0`` is shadowed by a function that
    prints the argv it got (NUL-separated), so nothing of the command really runs."""
    entry = tmp / "entry.sh"
    entry.write_text(f'{argv0}() {{ printf "%s\\0" {argv0} "$@"; }}\neval "$@"\n')
    out = subprocess.run(
        ["bash", "-c", f"exec bash {shlex.quote(str(entry))} {words}"],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split("\0")[:-1]


@pytest.mark.parametrize(
    "command",
    [
        None,  # the default smoke check: python -c 'import torch; print(...)'
        [
            "torchrun",
            "--nproc-per-node=8",
            "train.py",
            "--name",
            "a b",
            "--then",
            "x; rm -rf /",
            "$HOME",
            "it's",
        ],
    ],
)
def test_default_dlc_gets_the_command_intact_through_its_eval_entrypoint(
    command: list[str] | None, tmp_path: Path
) -> None:
    # Regression: the DLC's ENTRYPOINT (dockerd_entrypoint.sh) ends in eval "$@", which re-joined the
    # separately quoted words and parsed them again: the smoke check was a shell syntax error and a
    # user's ';' ran a second command, '$HOME' expanded, 'a b' split.
    from boot_tools import boot_texts, check_boot

    from computeops_cdk.targets._boot import _SMOKE

    options = {} if command is None else {"command": command}
    doc, _ = _emit_train("p5.48xlarge", **options)
    script = check_boot(boot_texts(doc)[0])
    assert "IMAGE=public.ecr.aws/deep-learning-containers/pytorch-training:" in script
    expected = list(_SMOKE) if command is None else command
    assert _through_eval_entrypoint(_args_after_image(script), expected[0], tmp_path) == expected


def test_a_user_image_keeps_plain_words_unless_it_says_its_entrypoint_evals(tmp_path: Path) -> None:
    from boot_tools import boot_texts, check_boot

    command = ["python", "train.py", "--name", "a b; $X"]
    doc, _ = _emit_train("p5.48xlarge", container_image="my.registry/train:1", command=command)
    words = _args_after_image(check_boot(boot_texts(doc)[0]))
    assert shlex.split(words) == command  # an exec-form image gets the argv as it is
    doc, _ = _emit_train(
        "p5.48xlarge", container_image="my.registry/train:1", command=command, eval_entrypoint=True
    )
    words = _args_after_image(check_boot(boot_texts(doc)[0]))
    assert _through_eval_entrypoint(words, "python", tmp_path) == command
    from computeops_cdk.errors import TargetError

    with pytest.raises(TargetError, match=r"'eval_entrypoint' must be True or False.*To fix"):
        _emit_train("p5.48xlarge", eval_entrypoint="yes")


def _emit_train(
    instance_type: str, *, instances: int = 2, training: bool = True, **options: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    from computeops_cdk._compat import TerraformStack, Testing
    from computeops_cdk.targets import TargetProps, get_target

    stack = TerraformStack(Testing.app(), "efa")
    target = get_target("aws")
    kind = "training" if training else "inference"
    props = TargetProps(name="efa", options=options, model=MODEL, workload_type=kind)
    placement = make_placement(instance_type=instance_type, instances=instances, training=training)
    provider = target.configure(stack, region=placement.region, props=props)
    resources = target.emit(stack, placement, provider=provider, props=props)
    return json.loads(Testing.synth(stack)), resources


def test_inference_replicas_spread_over_two_zones_and_get_no_placement_group(
    stacks: dict[str, dict[str, Any]],
) -> None:
    doc = stacks["replicas"]
    assert "aws_placement_group" not in doc["resource"] and "aws_network_interface" not in doc["resource"]
    instance = _one(doc, "aws_instance")
    # Regression: every replica used to land in element(subnets, 0), one zone.
    assert instance["subnet_id"] == (
        "${element([aws_subnet.private_subnet_0.id, aws_subnet.private_subnet_1.id], count.index)}"
    )
    subnets = doc["resource"]["aws_subnet"]
    zones = {subnets[f"private_subnet_{i}"]["availability_zone"] for i in (0, 1)}
    assert zones == {
        "${element(sort(data.aws_ec2_instance_type_offerings.zones.locations), 0)}",
        "${element(sort(data.aws_ec2_instance_type_offerings.zones.locations), 1)}",
    }
    offers = doc["data"]["aws_ec2_instance_type_offerings"]["zones"]
    assert offers["filter"] == [{"name": "instance-type", "values": ["p5.48xlarge"]}]
    # No zone offers the type: a plan-time error naming type and region (not element() of []).
    (check,) = offers["lifecycle"]["postcondition"]
    assert check["condition"] == "${length(self.locations) > 0}"
    assert check["error_message"].startswith("No availability zone of us-east-1 offers p5.48xlarge")
    assert all(s["map_public_ip_on_launch"] is False for s in subnets.values())


def test_new_vpc_has_private_subnets_behind_one_nat_gateway(stacks: dict[str, dict[str, Any]]) -> None:
    doc = stacks["single"]["resource"]
    assert _one(stacks["single"], "aws_vpc")["cidr_block"] == "10.80.0.0/16"
    nat = _one(stacks["single"], "aws_nat_gateway")
    assert nat["subnet_id"] == "${aws_subnet.public_subnet_0.id}"
    routes = {name: table["route"] for name, table in doc["aws_route_table"].items()}
    assert routes["private_routes"][0]["nat_gateway_id"] == "${aws_nat_gateway.nat.id}"
    assert routes["public_routes"][0]["gateway_id"] == "${aws_internet_gateway.igw.id}"
    associations = {a["subnet_id"]: a["route_table_id"] for a in doc["aws_route_table_association"].values()}
    assert associations["${aws_subnet.private_subnet_0.id}"] == "${aws_route_table.private_routes.id}"
    assert associations["${aws_subnet.private_subnet_1.id}"] == "${aws_route_table.private_routes.id}"
    default_group = _one(stacks["single"], "aws_default_security_group")
    assert "ingress" not in default_group and "egress" not in default_group


def test_new_vpc_has_an_s3_gateway_and_ssm_interface_endpoints_reachable_from_the_vpc_only(
    stacks: dict[str, dict[str, Any]],
) -> None:
    endpoints = stacks["single"]["resource"]["aws_vpc_endpoint"]
    s3 = endpoints["s3_endpoint"]
    assert (s3["service_name"], s3["vpc_endpoint_type"]) == ("com.amazonaws.us-east-1.s3", "Gateway")
    # On the private subnets' route table: S3 downloads from the instances bypass the NAT.
    assert s3["route_table_ids"] == ["${aws_route_table.private_routes.id}"]
    interface = {k: v for k, v in endpoints.items() if v["vpc_endpoint_type"] == "Interface"}
    assert sorted(e["service_name"] for e in interface.values()) == [
        "com.amazonaws.us-east-1.ec2messages",
        "com.amazonaws.us-east-1.ssm",
        "com.amazonaws.us-east-1.ssmmessages",
    ]
    group = stacks["single"]["resource"]["aws_security_group"]["endpoint_security_group"]
    for endpoint in interface.values():
        assert endpoint["private_dns_enabled"] is True
        assert endpoint["security_group_ids"] == ["${aws_security_group.endpoint_security_group.id}"]
        # One subnet per zone (an endpoint refuses two in one zone, which happens when one zone only
        # offers the type): as many private subnets as zones, at most both.
        assert endpoint["subnet_ids"] == (
            "${slice([aws_subnet.private_subnet_0.id, aws_subnet.private_subnet_1.id], 0, "
            "min(2, length(sort(data.aws_ec2_instance_type_offerings.zones.locations))))}"
        )
    (ingress,) = group["ingress"]
    assert (ingress["protocol"], ingress["from_port"], ingress["to_port"]) == ("tcp", 443, 443)
    assert ingress["cidr_blocks"] == ["10.80.0.0/16"]
    assert group["egress"] == []
    # Turned off: NAT only; given subnets: none (their endpoints are the user's).
    assert "aws_vpc_endpoint" not in stacks["no_endpoints"]["resource"]
    assert "endpoint_security_group" not in stacks["no_endpoints"]["resource"]["aws_security_group"]
    assert "aws_vpc_endpoint" not in stacks["custom"]["resource"]


def test_billed_parts_include_the_interface_endpoints_per_zone() -> None:
    from computeops_cdk._compat import TerraformStack, Testing
    from computeops_cdk.targets import TargetProps, get_target

    def billed(**options: Any) -> dict[str, Any]:
        stack = TerraformStack(Testing.app(), "billed")
        props = TargetProps(name="billed", options=options, model=MODEL)
        parts = get_target("aws").emit(stack, make_placement(), provider=None, props=props)["billed"]
        return {p.part.split(" (")[0]: p for p in parts}

    parts = billed()
    endpoints = parts["VPC interface endpoints"]
    assert endpoints.quantity == 6 and endpoints.unit == "endpoint-AZ-hour"  # 3 endpoints x 2 zones
    # Regression: priced for us-east-1 from a source that names no region (the data's own rule: null).
    assert endpoints.hourly_usd is None and "names no region" in endpoints.note
    # The NAT gateway's Elastic IP: a public IPv4 address, 0.005 USD/h in every region since 2024-02-01.
    for region in ("us-east-1", "eu-west-1"):
        stack = TerraformStack(Testing.app(), f"ip-{region}")
        props = TargetProps(name="ip", model=MODEL)
        placed = make_placement(region=region)
        found = get_target("aws").emit(stack, placed, provider=None, props=props)["billed"]
        (eip,) = [p for p in found if p.part.startswith("NAT gateway Elastic IP")]
        assert eip.hourly_usd == 0.005 and eip.quantity == 1 and eip.source is not None
        assert "2024-02-01" in eip.note
    assert parts["VPC endpoint data processing"].hourly_usd is None
    assert "VPC interface endpoints" not in billed(vpc_endpoints=False)


def test_boot_script_starts_vllm_sized_from_the_estimate_and_passes_the_tools(
    stacks: dict[str, dict[str, Any]],
) -> None:
    from boot_tools import boot_texts, check_boot

    doc = stacks["replicas"]
    (text,) = boot_texts(doc)
    script = check_boot(text)
    assert '--model "$MODEL"' in script and f"MODEL={MODEL}" in script
    # 6 replicas of TP 4 on 3 machines of 8 GPUs: 2 engines per machine behind one server.
    assert "--tensor-parallel-size 4 --data-parallel-size 2 --max-num-seqs 178" in script
    assert "--port 8000" in script and "http://127.0.0.1:8000/health" in script
    assert "IMAGE=vllm/vllm-openai:v0.10.0" in script
    # The token is read at boot with the instance role, which may read that one secret only.
    assert f"--secret-id {SECRET}" in script
    (policy,) = doc["resource"]["aws_iam_role_policy"].values()
    statement = json.loads(policy["policy"])["Statement"]
    assert statement == [{"Effect": "Allow", "Action": "secretsmanager:GetSecretValue", "Resource": SECRET}]
    assert "hf_" not in json.dumps(doc).replace("hf-token", "").replace("hf_token", "")
    assert "aws_iam_role_policy" not in stacks["single"]["resource"]
    assert "user_data" not in _one(stacks["bare"], "aws_instance")


def test_training_boot_script_wires_the_rendezvous(stacks: dict[str, dict[str, Any]]) -> None:
    from boot_tools import boot_texts, check_boot

    (text,) = boot_texts(stacks["train"])
    assert "NODE_RANK=${count.index}" in text
    assert 'MASTER_ADDR="${aws_network_interface.rank_0.private_ip}"' in text
    script = check_boot(text)
    for line in ("NNODES=4", "MASTER_PORT=29500", "NPROC_PER_NODE=8", "WORLD_SIZE=32", "FI_PROVIDER=efa"):
        assert line in script
    assert "--network host" in script


def test_internal_load_balancer_checks_health_and_registers_every_replica(
    stacks: dict[str, dict[str, Any]],
) -> None:
    doc = stacks["replicas"]
    lb = _one(doc, "aws_lb")
    assert lb["internal"] is True and lb["load_balancer_type"] == "network"
    # Regression: both private subnets, which are in ONE zone when one zone offers the type (element()
    # wraps), and an NLB refuses two subnets of one zone. One per zone, as the interface endpoints.
    assert lb["subnets"] == (
        "${slice([aws_subnet.private_subnet_0.id, aws_subnet.private_subnet_1.id], 0, "
        "min(2, length(sort(data.aws_ec2_instance_type_offerings.zones.locations))))}"
    )
    group = _one(doc, "aws_lb_target_group")
    assert group["health_check"]["path"] == "/health" and group["port"] == 8000
    attachment = _one(doc, "aws_lb_target_group_attachment")
    assert attachment["count"] == 3
    assert attachment["target_id"] == "${element(aws_instance.instance[*].id, count.index)}"
    assert _one(doc, "aws_lb_listener")["protocol"] == "TCP"


def test_public_exposure_is_explicit_uses_tls_and_public_subnets(stacks: dict[str, dict[str, Any]]) -> None:
    doc = stacks["public"]
    lb = _one(doc, "aws_lb")
    assert lb["internal"] is False
    assert lb["subnets"] == (
        "${slice([aws_subnet.public_subnet_0.id, aws_subnet.public_subnet_1.id], 0, "
        "min(2, length(sort(data.aws_ec2_instance_type_offerings.zones.locations))))}"
    )
    listener = _one(doc, "aws_lb_listener")
    assert (listener["port"], listener["protocol"]) == (443, "TLS")
    assert listener["certificate_arn"].startswith("arn:aws:acm:")
    (ingress,) = doc["resource"]["aws_security_group"]["security_group"]["ingress"]
    assert ingress["cidr_blocks"] == ["0.0.0.0/0"] and ingress["from_port"] == 8000


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
    assert "aws_vpc" not in doc["resource"] and "aws_nat_gateway" not in doc["resource"]
    assert "aws_subnets" not in doc.get("data", {})
    assert doc["data"]["aws_vpc"]["vpc"]["id"] == "vpc-9"
    assert doc["resource"]["aws_security_group"]["security_group"]["vpc_id"] == "${data.aws_vpc.vpc.id}"
    assert _one(doc, "aws_instance")["subnet_id"] == '${element(["subnet-1", "subnet-2"], count.index)}'
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
        (
            {"hf_token_secret": "hf_abcdefghijklmnopqrstuvwxyz012345"},
            "aws option 'hf_token_secret' looks like a literal Hugging Face token: a token in Terraform "
            "would land in the state and the plan. To fix: store it in the provider's secret store and "
            "pass its reference, e.g. options={'hf_token_secret': "
            "'arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf'}.",
        ),
        (
            {"vpc_endpoints": True, "subnet_ids": ["subnet-1"]},
            "aws option 'vpc_endpoints' applies to the VPC this target creates, not to the "
            "'subnet_ids'/'vpc_id' you gave (their endpoints are yours to manage). To fix: drop "
            "'vpc_endpoints', or drop 'subnet_ids'/'vpc_id' for a new VPC.",
        ),
        (
            {"image_id": "ubuntu-24.04"},
            "aws option 'image_id' must be an AMI id like 'ami-0123456789abcdef0' (got 'ubuntu-24.04'). "
            "To fix: give the id of the AMI in the placement's region, or leave it out for the default",
        ),
        (
            {"image_id": "ami-0123456789abcdef0", "ami_name": "x"},
            "aws options 'image_id' and 'ami_name' both name the image. To fix: give one of them.",
        ),
        (
            {"vpc_endpoints": "no"},
            "aws option 'vpc_endpoints' must be true or false (got 'no'). "
            "To fix: options={'vpc_endpoints': True} (the default)",
        ),
        (
            {"expose": "publik"},
            "aws option 'expose' must be one of none, internal, public (got str 'publik') (did you mean "
            "'public'?). To fix: options={'expose': 'internal'}.",
        ),
    ],
)
def test_malformed_options_are_target_errors(options: dict[str, Any], message: str) -> None:
    # A string of subnets used to become one subnet per character; "big" a ValueError traceback.
    from computeops_cdk.errors import TargetError

    with pytest.raises(TargetError) as caught:
        _synth("bad-options", make_placement(), **options)
    assert str(caught.value) == message


def test_weights_from_s3_with_a_policy_scoped_to_the_bucket_prefix() -> None:
    from boot_tools import boot_texts, check_boot

    doc = _synth("weights", make_placement(), weights_uri="s3://acme-models/llama/70b")
    (text,) = boot_texts(doc)
    script = check_boot(text)
    copy = (
        "aws s3 sync --only-show-errors --region us-east-1 s3://acme-models/llama/70b /opt/computeops/weights"
    )
    assert copy in script and '--model /weights --served-model-name "$MODEL"' in script
    (policy,) = [p for p in doc["resource"]["aws_iam_role_policy"].values() if "weights" in p["name_prefix"]]
    assert json.loads(policy["policy"])["Statement"] == [
        {
            "Effect": "Allow",
            "Action": "s3:ListBucket",
            "Resource": "arn:aws:s3:::acme-models",
            "Condition": {"StringLike": {"s3:prefix": ["llama/70b", "llama/70b/*"]}},
        },
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::acme-models/llama/70b/*"},
    ]
    assert "AccessKey" not in json.dumps(doc) and "aws_access_key" not in json.dumps(doc)


def test_weights_of_another_cloud_or_on_a_cluster_are_refused() -> None:
    from computeops_cdk.errors import TargetError

    with pytest.raises(TargetError, match="is a Google Cloud Storage URI, but the workload runs on aws"):
        _synth("gcsweights", make_placement(), weights_uri="gs://bucket/model")
    with pytest.raises(TargetError, match="weights_uri do not apply to EKS node groups"):
        _synth("eksweights", make_placement(), cluster="prod", weights_uri="s3://bucket/model")


def test_the_api_key_and_the_token_are_the_only_secrets_the_role_may_read() -> None:
    # Issue 9: api_key_secret makes vLLM require a key; the instance role reads both secrets, nothing else.
    from boot_tools import boot_texts, check_boot

    key = "arn:aws:secretsmanager:us-west-2:123456789012:secret:vllm-key-AbCdEf"
    doc = _synth(
        "keyed", make_placement(instances=2), hf_token_secret=SECRET, api_key_secret=key, expose="public"
    )
    (policy,) = doc["resource"]["aws_iam_role_policy"].values()
    (statement,) = json.loads(policy["policy"])["Statement"]
    assert statement == {
        "Effect": "Allow",
        "Action": "secretsmanager:GetSecretValue",
        "Resource": [SECRET, key],
    }
    (text,) = boot_texts(doc)
    script = check_boot(text)
    assert (
        f"VLLM_API_KEY=$(aws secretsmanager get-secret-value --region us-west-2 --secret-id {key}" in script
    )
    assert "--api-key" not in script
