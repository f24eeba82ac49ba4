"""Neocloud targets on generic resources: name mapping, unsupported features, synthesized resources.

One module-scoped stack holds a placement per provider (no prebuilt binding is involved).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import make_placement as placement
from targets_testdata import resources, synth_cases

from computeops_cdk.engine import Placement
from computeops_cdk.errors import TargetError
from computeops_cdk.targets import get_target
from computeops_cdk.targets._base import FEATURES, Target, TargetProps
from computeops_cdk.targets.coreweave import CoreWeaveTarget, cks_instance_id
from computeops_cdk.targets.crusoe import CrusoeTarget, crusoe_type
from computeops_cdk.targets.lambda_ import LambdaTarget
from computeops_cdk.targets.nebius import NebiusTarget, platform_and_preset
from computeops_cdk.targets.oci import OciTarget
from computeops_cdk.targets.runpod import RunPodTarget, data_center_ids, pod_shape
from computeops_cdk.targets.vast import VastTarget, vast_gpu_name

GENERIC = ("oci", "coreweave", "lambda", "nebius", "crusoe", "runpod", "vast")
"""The providers whose targets are written on generic resources (no prebuilt binding)."""


# --- declarations ---


@pytest.mark.parametrize("provider", GENERIC)
def test_targets_are_generic_and_declare_features_with_reasons(provider: str) -> None:
    target = get_target(provider)
    assert target.extra is None
    assert set(target.unsupported) <= set(FEATURES)
    assert all(len(reason) > 12 for reason in target.unsupported.values())
    assert target.unsupported["tpu"]


def test_the_specific_limitations_are_declared() -> None:
    assert VastTarget.unsupported["repeatable_plan"] == (
        "Vast.ai offers are marketplace listings whose ids change: a re-plan may pick a different machine"
    )
    assert "no Kubernetes resources" in LambdaTarget.unsupported["kubernetes_node_pool"]
    assert "spot" in LambdaTarget.unsupported
    assert "retired spot pods" in RunPodTarget.unsupported["spot"]
    assert "no VM product" in CoreWeaveTarget.unsupported["gpu_vm"]
    assert "kubernetes_node_pool" not in CoreWeaveTarget.unsupported


# --- name mapping ---


@pytest.mark.parametrize(
    ("catalog", "crusoe"),
    [
        ("crusoe_A100-80GB", "a100-80gb.1x"),
        ("crusoe_A100-80GBx4", "a100-80gb.4x"),
        ("crusoe_A100-80G-sxm4x8", "a100-80gb-sxm-ib.8x"),
        ("crusoe_L40Sx10", "l40s-48gb.10x"),
        ("h100-80gb-sxm-ib.8x", "h100-80gb-sxm-ib.8x"),
    ],
)
def test_crusoe_types(catalog: str, crusoe: str) -> None:
    assert crusoe_type(catalog) == crusoe


def test_nebius_platform_and_preset() -> None:
    assert platform_and_preset("gpu-l40s-d_4gpu-128vcpu-768gb") == ("gpu-l40s-d", "4gpu-128vcpu-768gb")


def test_vast_gpu_names() -> None:
    assert vast_gpu_name("1x-RTX_4060_Ti-32-65536") == ("RTX 4060 Ti", 1)
    assert vast_gpu_name("16x-RTX_5090-32-65536") == ("RTX 5090", 16)


@pytest.mark.parametrize(
    ("target", "instance_type", "message"),
    [
        (
            OciTarget(),
            "p5.48xlarge",
            "oci target cannot map instance type 'p5.48xlarge': it expects a GPU shape",
        ),
        (LambdaTarget(), "gpu-8x-h100", "lambda target cannot map instance type 'gpu-8x-h100'"),
        (NebiusTarget(), "gpu-h100-sxm", "nebius target cannot map instance type 'gpu-h100-sxm'"),
        (CrusoeTarget(), "crusoe_H100x8", "crusoe target cannot map instance type 'crusoe_H100x8'"),
        (VastTarget(), "H100", "vast target cannot map instance type 'H100'"),
    ],
)
def test_unmappable_names_are_clear_errors(target: Target, instance_type: str, message: str) -> None:
    with pytest.raises(TargetError, match=message.replace(".", r"\.").replace("(", r"\(")) as err:
        target.emit(None, placement(instance_type=instance_type), provider=None, props=TargetProps(name="w"))
    assert "To fix:" in str(err.value)


def test_runpod_unknown_gpu_suggests_close_names() -> None:
    with pytest.raises(TargetError) as err:
        RunPodTarget().emit(
            None,
            placement(instance_type="1x_H100-SMX_SECURE"),
            provider=None,
            props=TargetProps(name="w"),
        )
    assert str(err.value).startswith(
        "runpod target cannot map instance type '1x_H100-SMX_SECURE' to a RunPod GPU type id "
        "(did you mean 'H100-SXM'"
    )


def test_coreweave_without_a_cluster_explains_why() -> None:
    with pytest.raises(TargetError) as err:
        CoreWeaveTarget().emit(
            None, placement(instance_type="hgx-h100-8x"), provider=None, props=TargetProps(name="w")
        )
    assert str(err.value) == (
        "coreweave target: CoreWeave has no VM product; GPU capacity is a node in a CKS cluster "
        "(pass `cluster=`). To fix: pass cluster='<CKS cluster name>'."
    )


def test_coreweave_unknown_instance_type() -> None:
    with pytest.raises(TargetError, match="cannot map instance type 'h100-pcie-1x' to a CKS instance id"):
        CoreWeaveTarget().emit(
            None,
            placement(instance_type="h100-pcie-1x"),
            provider=None,
            props=TargetProps(name="w", cluster="c"),
        )


@pytest.mark.parametrize(
    ("target", "instance_type", "pricing", "cluster", "feature"),
    [
        (LambdaTarget(), "gpu_8x_h100_sxm5", "spot", None, "spot"),
        (RunPodTarget(), "8x_H100-SXM_SECURE", "spot", None, "spot"),
        (CrusoeTarget(), "crusoe_L40Sx4", "spot", None, "spot"),
        (VastTarget(), "1x-RTX_4090-32-65536", "on_demand", "k8s", "kubernetes_node_pool"),
        (OciTarget(), "BM.GPU.H100.8", "on_demand", "oke", "kubernetes_node_pool"),
        (LambdaTarget(), "gpu_1x_a10", "on_demand", "k8s", "kubernetes_node_pool"),
    ],
)
def test_a_placement_needing_an_unsupported_feature_is_refused_with_the_reason(
    target: Target, instance_type: str, pricing: str, cluster: str | None, feature: str
) -> None:
    p = placement(instance_type=instance_type, pricing=pricing)
    with pytest.raises(TargetError) as err:
        target.emit(None, p, provider=None, props=TargetProps(name="w", cluster=cluster))
    assert str(err.value) == (
        f"{target.provider} target cannot express {feature!r} for {instance_type!r}: "
        f"{target.unsupported[feature]}. "
        "To fix: let the engine choose another provider, or change the pin/pricing."
    )


@pytest.mark.synth
def test_several_instances_without_fabric_ids_are_independent() -> None:
    nebius = placement(instance_type="gpu-h100-sxm_8gpu-128vcpu-1600gb", instances=2)
    crusoe = placement(instance_type="crusoe_A100-80G-sxm4x8", instances=2, region="culpeper-usa-1")
    doc, _ = synth_cases(
        "s",
        {
            "nebius": (NebiusTarget(), nebius, TargetProps(name="nebius")),
            "crusoe": (CrusoeTarget(), crusoe, TargetProps(name="crusoe")),
        },
    )
    assert "nebius_compute_v1_gpu_cluster" not in doc["resource"]
    assert "crusoe_ib_partition" not in doc["resource"]
    assert all("gpu_cluster" not in vm for vm in doc["resource"]["nebius_compute_v1_instance"].values())
    assert len(doc["resource"]["crusoe_compute_instance"]) == 2


# --- synthesis ---


@pytest.fixture(scope="module")
def synth() -> dict[str, Any]:
    cases: dict[str, tuple[Target, Placement, TargetProps]] = {
        "oci": (
            OciTarget(),
            placement(provider="oci", instance_type="BM.GPU.H100.8", region="us-phoenix-1", instances=2),
            TargetProps(name="oci", options={"compartment_id": "ocid1.compartment.oc1..x"}),
        ),
        "ocispot": (
            OciTarget(),
            placement(provider="oci", instance_type="VM.GPU.A10.1", region="us-phoenix-1", pricing="spot"),
            TargetProps(name="ocispot", options={"availability_domain": "Uocm:PHX-AD-1"}),
        ),
        "lam": (
            LambdaTarget(),
            placement(provider="lambda", instance_type="gpu_8x_h100_sxm5", region="us-east-1", instances=2),
            TargetProps(name="lam", options={"ssh_key_name": "ops"}),
        ),
        "neb": (
            NebiusTarget(),
            placement(
                provider="nebius",
                instance_type="gpu-h200-sxm_8gpu-128vcpu-1600gb",
                region="eu-north1",
                instances=2,
                pricing="spot",
            ),
            TargetProps(name="neb", options={"infiniband_fabric": "fabric-3", "project_id": "project-e00x"}),
        ),
        "cru": (
            CrusoeTarget(),
            placement(
                provider="crusoe",
                instance_type="crusoe_A100-80G-sxm4x8",
                region="culpeper-usa-1",
                instances=2,
            ),
            TargetProps(name="cru", options={"ib_network_id": "ib-net-1", "subnet_id": "sub-1"}),
        ),
        "rp": (
            RunPodTarget(),
            placement(provider="runpod", instance_type="2x_A100-80GB_SECURE", region="EU-RO-1"),
            TargetProps(name="rp", options={"ports": ["8000/http"], "env": {"MODEL": "m"}}),
        ),
        "va": (
            VastTarget(),
            placement(
                provider="vast",
                instance_type="2x-H100_SXM-32-65536",
                accelerators_per_instance=2,
                region="us-texas",
                hourly_usd=3.73,
                instances=2,
                pricing="spot",
            ),
            TargetProps(name="va"),
        ),
        "cw": (
            CoreWeaveTarget(),
            placement(provider="coreweave", instance_type="hgx-h200-8x", accelerator="H200", instances=4),
            TargetProps(name="cw", cluster="cks-prod"),
        ),
    }
    doc, _ = synth_cases("neo", cases)
    return doc


@pytest.mark.synth
def test_required_providers(synth: dict[str, Any]) -> None:
    sources = {name: p["source"] for name, p in synth["terraform"]["required_providers"].items()}
    assert sources == {
        "oci": "oracle/oci",
        "kubernetes": "hashicorp/kubernetes",
        "lambdalabs": "elct9620/lambdalabs",
        "nebius": "nebius/nebius",
        "crusoe": "crusoecloud/crusoe",
        "runpod": "runpod/runpod",
        "vastai": "realnedsanders/vastai",
    }
    # No credentials in any provider block.
    assert synth["provider"]["oci"] == [{"region": "us-phoenix-1"}]
    assert all(blocks == [{}] for name, blocks in synth["provider"].items() if name != "oci")


@pytest.mark.synth
def test_oci_instance(synth: dict[str, Any]) -> None:
    vm, other = resources(synth, "oci_core_instance", "oci")
    assert other["source_details"] == vm["source_details"]  # one variable shared by both instances
    assert vm["shape"] == "BM.GPU.H100.8"
    assert vm["compartment_id"] == "ocid1.compartment.oc1..x"
    assert vm["create_vnic_details"] == {"subnet_id": "${var.oci_subnet_id}", "assign_public_ip": False}
    assert vm["source_details"]["source_type"] == "image"
    assert vm["availability_domain"].startswith("${data.oci_identity_availability_domains.oci_")
    assert vm["instance_options"] == {"are_legacy_imds_endpoints_disabled": True}
    assert "preemptible_instance_config" not in vm
    (spot,) = resources(synth, "oci_core_instance", "ocispot")
    assert spot["availability_domain"] == "Uocm:PHX-AD-1"
    assert spot["preemptible_instance_config"] == {
        "preemption_action": {"type": "TERMINATE", "preserve_boot_volume": False}
    }
    assert resources(synth, "oci_identity_availability_domains", "ocispot", "data") == []


@pytest.mark.synth
def test_lambda_instances(synth: dict[str, Any]) -> None:
    boxes = resources(synth, "lambdalabs_instance", "lam")
    assert [b["name"] for b in boxes] == ["lam-0", "lam-1"]
    for box in boxes:
        assert box["region_name"] == "us-east-1"
        assert box["instance_type_name"] == "gpu_8x_h100_sxm5"
        assert box["ssh_key_names"] == ["ops"]


@pytest.mark.synth
def test_nebius_instances_in_a_gpu_cluster(synth: dict[str, Any]) -> None:
    (cluster,) = resources(synth, "nebius_compute_v1_gpu_cluster", "neb")
    assert cluster == {
        "provider": "nebius",
        "parent_id": "project-e00x",
        "name": "neb-ib",
        "infiniband_fabric": "fabric-3",
    }
    vms = resources(synth, "nebius_compute_v1_instance", "neb")
    assert len(vms) == 2
    for vm in vms:
        assert vm["resources"] == {"platform": "gpu-h200-sxm", "preset": "8gpu-128vcpu-1600gb"}
        assert vm["gpu_cluster"]["id"].startswith("${nebius_compute_v1_gpu_cluster.neb_")
        # Both are required in the schema (nebius/nebius docs/resources/compute_v1_instance.md): a
        # block without priority would fail at plan.
        assert vm["preemptible"] == {"on_preemption": "STOP", "priority": 5}
        (nic,) = vm["network_interfaces"]
        assert "public_ip_address" not in nic
        assert nic["ip_address"] == {}
        assert vm["boot_disk"]["managed_disk"]["spec"]["type"] == "NETWORK_SSD"


@pytest.mark.synth
def test_crusoe_instances_on_an_ib_partition(synth: dict[str, Any]) -> None:
    (partition,) = resources(synth, "crusoe_ib_partition", "cru")
    assert partition["ib_network_id"] == "ib-net-1"
    vms = resources(synth, "crusoe_compute_instance", "cru")
    assert len(vms) == 2
    for vm in vms:
        assert vm["type"] == "a100-80gb-sxm-ib.8x"
        assert vm["location"] == "us-east1-a"
        assert vm["image"] == "ubuntu22.04-nvidia-sxm-docker:latest"
        assert vm["network_interfaces"] == [{"subnet": "sub-1"}]
        assert vm["host_channel_adapters"][0]["ib_partition_id"].startswith("${crusoe_ib_partition.cru_")
        assert vm["ssh_key"] == "${var.cru_ssh_public_key}"


@pytest.mark.synth
def test_runpod_pod(synth: dict[str, Any]) -> None:
    (pod,) = resources(synth, "runpod_pod", "rp")
    assert pod["gpu_type_id"] == "NVIDIA A100 80GB PCIe"
    assert pod["gpu_count"] == 2
    assert pod["cloud"] == "SECURE"
    assert pod["data_center_ids"] == ["EU-RO-1"]
    assert pod["ports"] == ["8000/http"]
    assert pod["env"] == {"MODEL": "m"}


@pytest.mark.synth
def test_vast_offer_query_and_instances(synth: dict[str, Any]) -> None:
    (query,) = resources(synth, "vastai_gpu_offers", "va", "data")
    assert query["gpu_name"] == "H100 SXM"
    assert query["num_gpus"] == 2
    assert query["max_price_per_hour"] == pytest.approx(3.73 * 1.10)
    assert query["region"] == "US"
    assert query["datacenter_only"] is True
    assert query["offer_type"] == "bid"
    first, second = resources(synth, "vastai_instance", "va")
    assert first["offer_id"].endswith(".most_affordable.id}")
    assert second["offer_id"].endswith(".offers.1.id}")
    assert first["bid_price"] == pytest.approx(3.73 / 2)


@pytest.mark.synth
def test_coreweave_node_pool_custom_resource(synth: dict[str, Any]) -> None:
    (pool,) = resources(synth, "kubernetes_manifest", "cw")
    manifest = pool["manifest"]
    assert (manifest["apiVersion"], manifest["kind"]) == ("compute.coreweave.com/v1alpha1", "NodePool")
    assert manifest["spec"]["instanceType"] == "gd-8xh200ib-i128"
    assert manifest["spec"]["targetNodes"] == 4
    assert manifest["spec"]["computeClass"] == "default"
    assert manifest["spec"]["nodeLabels"]["computeops.io/gpu"] == "h200"
    assert manifest["spec"]["nodeTaints"] == [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    ]


# --- every instance type in the embedded catalog maps ---


def _catalog_types(provider: str) -> list[Any]:
    from computeops_cdk.catalog import load_catalog

    return [t for t in load_catalog().instance_types if t.provider == provider]


@pytest.mark.parametrize(
    ("provider", "mapper"),
    [
        ("crusoe", crusoe_type),
        ("nebius", platform_and_preset),
        ("vast", vast_gpu_name),
        ("runpod", pod_shape),
        ("coreweave", cks_instance_id),
    ],
)
def test_every_catalog_instance_type_maps(provider: str, mapper: Any) -> None:
    names = [t.name for t in _catalog_types(provider)]
    assert names
    for name in names:
        mapper(name)  # raises TargetError when a catalog name is unknown to the target


def test_vast_and_runpod_counts_agree_with_the_catalog() -> None:
    for t in _catalog_types("vast"):
        assert vast_gpu_name(t.name)[1] == t.accelerator_count, t.name
    for t in _catalog_types("runpod"):
        assert pod_shape(t.name)[1] == t.accelerator_count, t.name


@pytest.mark.synth
@pytest.mark.parametrize("target", [LambdaTarget(), OciTarget()], ids=lambda t: t.provider)
def test_every_catalog_instance_type_emits(target: Target) -> None:
    from constructs import Construct

    from computeops_cdk import _compat

    stack = _compat.TerraformStack(_compat.Testing.app(), "s")
    provider = target.configure(stack, region="r", props=TargetProps(name="p"))
    for i, t in enumerate(_catalog_types(target.provider)):
        p = placement(
            instance_type=t.name, accelerator=t.accelerator, accelerators_per_instance=t.accelerator_count
        )
        target.emit(Construct(stack, f"w{i}"), p, provider=provider, props=TargetProps(name=f"w{i}"))


def test_every_catalog_runpod_region_is_a_data_centre_preference() -> None:
    from computeops_cdk.catalog import load_catalog

    regions = {o.region for o in load_catalog().offers if o.provider == "runpod"}
    assert regions
    assert all(data_center_ids(r) == [r] for r in regions)
    assert data_center_ids("US") is None


# --- boot: every standalone neocloud machine runs the workload, or says why it cannot ---

MODEL = "meta-llama/Llama-3.1-8B-Instruct"
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBootTestKey ops@example"


@pytest.fixture(scope="module")
def booted() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    serve = {"model": MODEL}
    train = {"model": MODEL, "workload_type": "training"}
    cases: dict[str, tuple[Target, Placement, TargetProps]] = {
        "neb": (
            NebiusTarget(),
            placement(
                provider="nebius",
                instance_type="gpu-h100-sxm_8gpu-128vcpu-1600gb",
                instances=2,
                training=True,
            ),
            TargetProps(name="neb", options={"infiniband_fabric": "f-1", "ssh_public_key": KEY}, **train),
        ),
        "cru": (
            CrusoeTarget(),
            placement(provider="crusoe", instance_type="crusoe_A100-80G-sxm4x8", region="culpeper-usa-1"),
            TargetProps(name="cru", **serve),
        ),
        "oci": (
            OciTarget(),
            placement(provider="oci", instance_type="BM.GPU.H100.8", region="us-phoenix-1"),
            TargetProps(name="oci", options={"availability_domain": "AD-1"}, **serve),
        ),
        "rp": (
            RunPodTarget(),
            placement(
                provider="runpod",
                instance_type="2x_A100-80GB_SECURE",
                region="EU-RO-1",
                accelerators_per_instance=2,
            ),
            TargetProps(name="rp", options={"hf_token_secret": "hf_token"}, **serve),
        ),
        "va": (
            VastTarget(),
            placement(provider="vast", instance_type="2x-H100_SXM-32-65536", accelerators_per_instance=2),
            TargetProps(name="va", **serve),
        ),
        "lam": (
            LambdaTarget(),
            placement(provider="lambda", instance_type="gpu_8x_h100_sxm5"),
            TargetProps(name="lam", options={"ssh_key_name": "ops"}, **serve),
        ),
    }
    return synth_cases("booted", cases)


@pytest.mark.synth
def test_cloud_init_and_startup_scripts_pass_the_tools(booted: tuple[dict[str, Any], Any]) -> None:
    from boot_tools import boot_texts, check_boot

    doc, _ = booted
    texts = boot_texts(doc)
    assert len(texts) == 2 + 1 + 1  # nebius x2, crusoe, oci
    scripts = [check_boot(text) for text in texts]
    assert all(f"MODEL={MODEL}" in s or "NNODES=2" in s for s in scripts)


@pytest.mark.synth
def test_nebius_ranks_rendezvous_and_get_the_ssh_user(booted: tuple[dict[str, Any], Any]) -> None:
    doc, _ = booted
    first, second = (i["cloud_init_user_data"] for i in resources(doc, "nebius_compute_v1_instance", "neb"))
    assert 'MASTER_ADDR=""' in first and "NODE_RANK=0" in first
    assert "NODE_RANK=1" in second
    assert 'MASTER_ADDR="${nebius_compute_v1_instance.neb_instance-0_' in second
    # The schema's read-only path to the first rank's private address (status -> network_interfaces).
    assert ".status.network_interfaces.0.ip_address.address}" in second
    assert f"ssh_authorized_keys: ['{KEY}']" in first


@pytest.mark.synth
def test_runpod_runs_vllm_natively_with_the_token_from_a_runpod_secret(
    booted: tuple[dict[str, Any], Any],
) -> None:
    doc, _ = booted
    (pod,) = resources(doc, "runpod_pod", "rp")
    assert pod["image"] == "vllm/vllm-openai:v0.10.0"
    assert pod["args"] == (
        f"--model {MODEL} --host 0.0.0.0 --port 8000 --tensor-parallel-size 2 --max-num-seqs 256"
    )
    assert pod["ports"] == ["8000/http"]
    assert pod["env"] == {"HF_TOKEN": "{{ RUNPOD_SECRET_hf_token }}"}


@pytest.mark.synth
def test_vast_starts_vllm_on_start(booted: tuple[dict[str, Any], Any]) -> None:
    doc, _ = booted
    (instance,) = resources(doc, "vastai_instance", "va")
    assert instance["image"] == "vllm/vllm-openai:v0.10.0"
    assert instance["onstart"].startswith(f"python3 -m vllm.entrypoints.openai.api_server --model {MODEL} ")


@pytest.mark.synth
def test_lambda_says_nothing_boots_and_hands_the_script_over(booted: tuple[dict[str, Any], Any]) -> None:
    from boot_tools import shellcheck

    _, roles = booted
    assert "no user-data or startup-script argument" in roles["lam"]["no_boot_reason"]
    shellcheck(roles["lam"]["boot_script"])
    assert f"MODEL={MODEL}" in roles["lam"]["boot_script"]


@pytest.mark.parametrize(
    ("target", "instance_type", "reason"),
    [
        (NebiusTarget(), "gpu-h100-sxm_8gpu-128vcpu-1600gb", "Nebius MysteryBox is not wired"),
        (VastTarget(), "1x-RTX_4090-32-65536", "Vast.ai has no secret store"),
        (LambdaTarget(), "gpu_1x_a10", "no user-data or startup-script argument"),
    ],
)
def test_a_secret_where_the_provider_has_no_store_is_refused_with_the_reason(
    target: Target, instance_type: str, reason: str
) -> None:
    props = TargetProps(name="w", model=MODEL, options={"hf_token_secret": "hf-token"})
    with pytest.raises(TargetError, match=f"cannot read 'hf_token_secret' at boot: .*{reason}"):
        target.emit(
            None, placement(provider=target.provider, instance_type=instance_type), provider=None, props=props
        )


@pytest.mark.synth
def test_crusoe_ranks_rendezvous_on_a_partition_of_their_project() -> None:
    # The partition was created in the provider's default project while the instances took project_id.
    from computeops_cdk.targets.crusoe import CrusoeTarget

    props = TargetProps(
        name="crt",
        model="meta-llama/Llama-3.1-8B",
        workload_type="training",
        options={"ib_network_id": "ib-net-1", "project_id": "proj-7", "command": ["torchrun", "t.py"]},
    )
    p = placement(
        provider="crusoe",
        instance_type="crusoe_A100-80G-sxm4x8",
        region="culpeper-usa-1",
        instances=2,
        training=True,
    )
    doc, _ = synth_cases("crt", {"crt": (CrusoeTarget(), p, props)})
    (partition,) = resources(doc, "crusoe_ib_partition", "crt")
    assert partition["project_id"] == "proj-7"
    first, second = resources(doc, "crusoe_compute_instance", "crt")
    assert {first["project_id"], second["project_id"]} == {"proj-7"}
    assert 'MASTER_ADDR=""' in first["startup_script"] and "NODE_RANK=1" in second["startup_script"]
    assert ".network_interfaces.0.private_ipv4.address}" in second["startup_script"]


@pytest.mark.synth
def test_nebius_boots_an_exact_image_when_given_one() -> None:
    from computeops_cdk.targets.nebius import NebiusTarget

    p = placement(provider="nebius", instance_type="gpu-h200-sxm_8gpu-128vcpu-1600gb", region="eu-north1")
    props = TargetProps(
        name="img", options={"project_id": "p", "subnet_id": "s", "image_id": "computeimage-e00abc"}
    )
    doc, roles = synth_cases("img", {"img": (NebiusTarget(), p, props)})
    (vm,) = resources(doc, "nebius_compute_v1_instance", "img")
    # Regression: no billed parts although the stack creates boot disks: listed, null with the reason.
    (disks,) = roles["img"]["billed"]
    assert disks.part == "boot disks (NETWORK_SSD, 1 x 200 GiB)" and disks.quantity == 200
    assert disks.hourly_usd is None and "no sourced Nebius disk price" in disks.note
    spec = vm["boot_disk"]["managed_disk"]["spec"]
    assert spec["source_image_id"] == "computeimage-e00abc" and "source_image_family" not in spec
    both = TargetProps(name="img", options={"image_id": "x", "image_family": "y"})
    with pytest.raises(TargetError, match="'image_id' and 'image_family' both name the boot image"):
        synth_cases("img2", {"img": (NebiusTarget(), p, both)})


@pytest.mark.parametrize(
    ("target", "instance_type", "reason"),
    [
        (
            NebiusTarget(),
            "gpu-h100-sxm_8gpu-128vcpu-1600gb",
            "Nebius Object Storage at boot needs an access key",
        ),
        (CrusoeTarget(), "crusoe_A100-80G-sxm4x8", "Crusoe instances have no cloud identity"),
        (OciTarget(), "BM.GPU.H100.8", "needs a dynamic group and a tenancy IAM policy"),
        (RunPodTarget(), "2x_A100-80GB_SECURE", "RunPod runs the container itself"),
        (VastTarget(), "1x-RTX_4090-32-65536", "Vast.ai runs the container itself"),
        (LambdaTarget(), "gpu_1x_a10", "nothing boots on Lambda"),
    ],
)
def test_weights_uri_where_no_identity_can_read_a_bucket_is_refused_with_the_reason(
    target: Target, instance_type: str, reason: str
) -> None:
    assert "not supported" in target.options["weights_uri"]  # declared, with the reason
    props = TargetProps(name="w", model=MODEL, options={"weights_uri": "s3://bucket/model"})
    with pytest.raises(TargetError, match=f"cannot read 'weights_uri' at boot: .*{reason}"):
        target.emit(
            None, placement(provider=target.provider, instance_type=instance_type), provider=None, props=props
        )


def test_lambda_names_the_providers_it_read_and_what_stays_out_of_scope() -> None:
    from computeops_cdk.targets.lambda_ import NO_BOOT

    assert "elct9620/lambdalabs" in NO_BOOT and "over SSH" in NO_BOOT and "out of scope" in NO_BOOT
