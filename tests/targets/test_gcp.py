"""GCP target: instance-type mapping, zones, and what the synthesized Terraform contains.

All synthesis happens in one module-scoped stack so the google and google-beta bindings are
imported once per test run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from boot_tools import check_boot
from conftest import make_placement
from targets_testdata import checkov_failures, needs_checkov, resources, synth_cases

from computeops_cdk.engine import Placement
from computeops_cdk.errors import TargetError
from computeops_cdk.targets._base import FEATURES, TargetProps
from computeops_cdk.targets.gcp import (
    CHECKOV_SKIPS,
    GcpTarget,
    GpuMachine,
    TpuSlice,
    default_zone,
    map_instance_type,
)
from computeops_cdk.targets.k8s import node_selector


def placement(**changes: Any) -> Placement:
    """An on-demand a3-highgpu-8g (8x H100) in us-central1 unless changed."""
    return make_placement(  # type: ignore[no-any-return]
        **{"provider": "gcp", "instance_type": "a3-highgpu-8g", "region": "us-central1", **changes}
    )


# --- mapping (no synthesis) ---


@pytest.mark.parametrize(
    ("instance_type", "accelerator", "expected"),
    [
        ("a3-highgpu-8g", "H100-SXM", ("a3-highgpu-8g", "nvidia-h100-80gb", 8, False)),
        ("a2-ultragpu-2g", "A100-80GB", ("a2-ultragpu-2g", "nvidia-a100-80gb", 2, False)),
        ("a2-megagpu-16g", "A100-40GB", ("a2-megagpu-16g", "nvidia-tesla-a100", 16, False)),
        ("a3-megagpu-8g", "H100-SXM", ("a3-megagpu-8g", "nvidia-h100-mega-80gb", 8, False)),
        ("a3-ultragpu-8g", "H200", ("a3-ultragpu-8g", "nvidia-h200-141gb", 8, False)),
        ("a4-highgpu-8g", "B200", ("a4-highgpu-8g", "nvidia-b200", 8, False)),
        ("g2-standard-48", "L4", ("g2-standard-48", "nvidia-l4", 4, False)),
        ("n1-standard-8", "T4", ("n1-standard-8", "nvidia-tesla-t4", 2, True)),
    ],
)
def test_gpu_machine_types_map_to_terraform_arguments(
    instance_type: str, accelerator: str, expected: tuple[str, str, int, bool]
) -> None:
    machine = map_instance_type(
        placement(instance_type=instance_type, accelerator=accelerator, accelerators_per_instance=2)
    )
    assert isinstance(machine, GpuMachine)
    assert (machine.machine_type, machine.accelerator_type, machine.count, machine.attach) == expected


@pytest.mark.parametrize(
    ("instance_type", "accelerator", "per_instance", "expected"),
    [
        ("tpu-v5p-8", "TPU-v5p", 4, "v5p-8"),
        ("tpu-v5litepod-4", "TPU-v5e", 4, "v5litepod-4"),
        ("tpu-v6e-256", "TPU-v6e", 256, "v6e-256"),
        ("v4-16", "TPU-v4", 8, "v4-16"),
        ("TPU-VM", "TPU-v5e", 8, "v5litepod-8"),
    ],
)
def test_tpu_slices_map_to_accelerator_type(
    instance_type: str, accelerator: str, per_instance: int, expected: str
) -> None:
    tpu = map_instance_type(
        placement(
            instance_type=instance_type, accelerator=accelerator, accelerators_per_instance=per_instance
        )
    )
    assert isinstance(tpu, TpuSlice)
    assert tpu.accelerator_type == expected


def test_unmappable_instance_type_is_a_clear_error() -> None:
    with pytest.raises(TargetError) as err:
        map_instance_type(placement(instance_type="c3-standard-8", accelerator="H100-SXM"))
    assert str(err.value) == (
        "gcp target cannot map instance type 'c3-standard-8' (accelerator 'H100-SXM') to Terraform. "
        "It knows A2/A3/A4 (e.g. 'a3-highgpu-8g'), G2 ('g2-standard-8'), N1 with T4/V100/P4/P100 "
        "('n1-standard-8'), and TPU slices ('tpu-v5p-8', 'v5litepod-4'). "
        "To fix: pin a supported instance type, or report the catalog name so the target can learn it."
    )


def test_n1_without_a_known_gpu_is_rejected() -> None:
    with pytest.raises(TargetError, match="cannot map instance type 'n1-standard-8'"):
        map_instance_type(placement(instance_type="n1-standard-8", accelerator="A10"))


@pytest.mark.parametrize(
    ("instance_type", "accelerator", "region", "zone"),
    [
        ("a3-highgpu-8g", "H100-SXM", "us-central1", "us-central1-a"),  # H100 listed in -a
        ("a3-highgpu-8g", "H100-SXM", "europe-west4", "europe-west4-b"),  # H100 not listed in -a
        ("a4-highgpu-8g", "B200", "us-central1", "us-central1-b"),
        ("a2-ultragpu-1g", "A100-80GB", "us-east1", "us-east1-b"),  # region has no -a zone
        ("tpu-v5p-8", "TPU-v5p", "us-east1", "us-east1-d"),
        ("tpu-v5litepod-4", "TPU-v5e", "asia-northeast1", "asia-northeast1-b"),
        ("a3-highgpu-8g", "H100-SXM", "me-central2", "me-central2-a"),  # unknown to the data
    ],
)
def test_default_zone_follows_the_market_data(
    instance_type: str, accelerator: str, region: str, zone: str
) -> None:
    p = placement(instance_type=instance_type, accelerator=accelerator, region=region)
    assert default_zone(p, map_instance_type(p)) == zone


def test_gcp_declares_no_unsupported_feature_outside_the_vocabulary() -> None:
    assert set(GcpTarget.unsupported) <= set(FEATURES)


# --- synthesis (one stack, bindings imported once) ---

CLUSTER = "projects/p/locations/us-central1/clusters/gpu"
SECRET = "projects/my-project/secrets/hf-token"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
WEIGHTS = "gs://acme-models/llama-3.1-8b"
API_KEY = "projects/my-project/secrets/vllm-api-key"
# Twelve ranges (two Cloud Armor rules), one IPv6: Cloud Armor matches either family.
CLIENTS = [*(f"198.51.100.{i * 16}/28" for i in range(11)), "2001:db8::/32"]


@pytest.fixture(scope="module")
def synthesized() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    target = GcpTarget()
    cases = {
        "h100": (placement(), TargetProps(name="h100", tags={"Team": "ML"})),
        "t4": (
            placement(
                instance_type="n1-standard-8",
                accelerator="T4",
                accelerators_per_instance=2,
                instances=2,
                pricing="spot",
                region="us-central1",
            ),
            TargetProps(
                name="t4", options={"zone": "us-central1-f", "kms_key_self_link": "projects/p/keys/k"}
            ),
        ),
        "h200": (
            placement(instance_type="a3-ultragpu-8g", accelerator="H200"),
            TargetProps(name="h200", options={"subnetwork": "projects/p/regions/us-central1/subnetworks/s"}),
        ),
        "tpu": (
            placement(
                instance_type="tpu-v5p-8",
                accelerator="TPU-v5p",
                accelerators_per_instance=4,
                region="us-east5",
            ),
            TargetProps(name="tpu"),
        ),
        "tpuspot": (
            placement(
                instance_type="tpu-v6e-8",
                accelerator="TPU-v6e",
                accelerators_per_instance=8,
                region="us-east5",
                pricing="spot",
            ),
            TargetProps(name="tpuspot", options={"tpu_runtime_version": "v2-custom", "secure_boot": False}),
        ),
        "gke": (
            placement(pricing="spot", instances=3),
            TargetProps(name="gke", cluster=CLUSTER),
        ),
        "serve": (
            placement(instances=2),
            TargetProps(
                name="serve", model="meta-llama/Llama-3.1-8B-Instruct", options={"hf_token_secret": SECRET}
            ),
        ),
        "ddp": (
            placement(instances=3, training=True),
            TargetProps(
                name="ddp", model="meta-llama/Llama-3.1-8B", options={"command": ["torchrun", "t.py"]}
            ),
        ),
        "pub": (
            placement(instances=2),
            TargetProps(
                name="pub",
                model=MODEL,
                options={
                    "expose": "public",
                    "public_source_ranges": ["203.0.113.0/24"],
                    "weights_uri": WEIGHTS,
                },
            ),
        ),
        "https": (
            placement(),
            TargetProps(
                name="https",
                model=MODEL,
                options={"expose": "public", "domain": "llm.example.com", "api_key_secret": API_KEY},
            ),
        ),
        "armored": (
            placement(),
            TargetProps(
                name="armored",
                model=MODEL,
                options={"expose": "public", "domain": "llm.example.com", "public_source_ranges": CLIENTS},
            ),
        ),
        "spread": (
            placement(instances=3),
            TargetProps(name="spread", model=MODEL, options={"zones": ["us-central1-a", "us-central1-b"]}),
        ),
        "tpuserve": (
            placement(
                instance_type="tpu-v6e-8",
                accelerator="TPU-v6e",
                accelerators_per_instance=8,
                region="us-east5",
            ),
            TargetProps(
                name="tpuserve", model=MODEL, options={"hf_token_secret": SECRET, "weights_uri": WEIGHTS}
            ),
        ),
        "tputrain": (
            placement(
                instance_type="tpu-v5p-8",
                accelerator="TPU-v5p",
                accelerators_per_instance=4,
                region="us-east5",
                instances=2,
                training=True,
            ),
            TargetProps(name="tputrain", model=MODEL, options={"command": ["python3", "train.py"]}),
        ),
    }
    return synth_cases("gcp", {key: (target, p, props) for key, (p, props) in cases.items()})


@pytest.fixture(scope="module")
def synth(synthesized: tuple[dict[str, Any], dict[str, dict[str, Any]]]) -> dict[str, Any]:
    return synthesized[0]


@pytest.mark.synth
def test_roles_returned_by_emit(synthesized: tuple[dict[str, Any], dict[str, dict[str, Any]]]) -> None:
    roles = synthesized[1]
    assert sorted(roles["h100"]) == ["billed", "instance", "instances"]
    assert sorted(roles["tpu"]) == ["tpu", "tpus"]
    assert sorted(roles["gke"]) == ["node_pool"]


@pytest.mark.synth
def test_bundled_gpu_vm(synth: dict[str, Any]) -> None:
    (vm,) = resources(synth, "google_compute_instance", "h100")
    assert vm["machine_type"] == "a3-highgpu-8g"
    assert vm["zone"] == "us-central1-a"
    assert "guest_accelerator" not in vm  # A3 carries its GPUs
    assert vm["scheduling"] == {
        "on_host_maintenance": "TERMINATE",
        "automatic_restart": True,
        "preemptible": False,
        "provisioning_model": "STANDARD",
    }
    assert vm["labels"] == {"computeops-gpu": "h100", "computeops-pricing": "on_demand", "team": "ml"}
    assert vm["boot_disk"]["initialize_params"]["type"] == "pd-balanced"


@pytest.mark.synth
def test_vm_has_no_external_ip_and_is_shielded(synth: dict[str, Any]) -> None:
    for vm in synth["resource"]["google_compute_instance"].values():
        assert all("access_config" not in nic for nic in vm["network_interface"])
        assert vm["shielded_instance_config"] == {
            "enable_secure_boot": True,
            "enable_vtpm": True,
            "enable_integrity_monitoring": True,
        }
        assert vm["metadata"]["block-project-ssh-keys"] == "true"
        assert vm["metadata"]["serial-port-enable"] == "false"
        assert vm["service_account"]["email"].startswith("${google_service_account.")


@pytest.mark.synth
def test_n1_spot_vms_attach_gpus(synth: dict[str, Any]) -> None:
    vms = resources(synth, "google_compute_instance", "t4")
    assert [vm["name"] for vm in vms] == ["t4-0", "t4-1"]
    for vm in vms:
        assert vm["guest_accelerator"] == [{"type": "nvidia-tesla-t4", "count": 2}]
        assert vm["zone"] == "us-central1-f"
        assert vm["scheduling"]["provisioning_model"] == "SPOT"
        assert vm["scheduling"]["preemptible"] is True
        assert vm["scheduling"]["automatic_restart"] is False
        assert vm["boot_disk"]["kms_key_self_link"] == "projects/p/keys/k"


@pytest.mark.synth
def test_only_multi_node_training_shares_a_compact_policy(synth: dict[str, Any]) -> None:
    # Issue 9: serving replicas shared a COLLOCATED policy, one failure domain for the whole service.
    vms = resources(synth, "google_compute_instance", "ddp")
    (policy,) = resources(synth, "google_compute_resource_policy", "ddp")
    assert policy["group_placement_policy"] == {"collocation": "COLLOCATED", "vm_count": 3}
    assert all(vm["resource_policies"] == [vms[0]["resource_policies"][0]] for vm in vms)
    for serving in ("t4", "serve", "pub"):
        assert len(resources(synth, "google_compute_instance", serving)) == 2
        assert resources(synth, "google_compute_resource_policy", serving) == []
        assert all(
            "resource_policies" not in vm for vm in resources(synth, "google_compute_instance", serving)
        )


@pytest.mark.synth
def test_new_network_is_private_and_denies_ingress(synth: dict[str, Any]) -> None:
    (network,) = resources(synth, "google_compute_network", "h100")
    assert network["auto_create_subnetworks"] is False
    (subnet,) = resources(synth, "google_compute_subnetwork", "h100")
    assert subnet["private_ip_google_access"] is True
    assert subnet["region"] == "us-central1"
    rules = {r["name"]: r for r in resources(synth, "google_compute_firewall", "h100")}
    assert sorted(rules) == ["h100-deny-ingress", "h100-iap-ssh"]  # nothing served, no serving rule
    deny = rules["h100-deny-ingress"]
    assert deny["direction"] == "INGRESS"
    assert deny["deny"] == [{"protocol": "all"}]
    assert "allow" not in deny
    # SSH from Identity-Aware Proxy's range only.
    iap = rules["h100-iap-ssh"]
    assert iap["source_ranges"] == ["35.235.240.0/20"]
    assert iap["allow"] == [{"protocol": "tcp", "ports": ["22"]}]


@pytest.mark.synth
def test_new_network_gets_cloud_nat_for_egress(synth: dict[str, Any]) -> None:
    (router,) = resources(synth, "google_compute_router", "h100")
    (nat,) = resources(synth, "google_compute_router_nat", "h100")
    assert router["name"] == "h100-router" and nat["router"].startswith(
        "${google_compute_router.h100_router_"
    )
    assert nat["source_subnetwork_ip_ranges_to_nat"] == "LIST_OF_SUBNETWORKS"
    (subnet,) = nat["subnetwork"]
    assert subnet["name"].startswith("${google_compute_subnetwork.h100_subnetwork_")
    # A subnetwork the user names keeps its own egress.
    assert resources(synth, "google_compute_router_nat", "h200") == []


@pytest.mark.synth
def test_given_subnetwork_is_used_and_hyperdisk_for_a3_ultra(synth: dict[str, Any]) -> None:
    assert resources(synth, "google_compute_network", "h200") == []
    (vm,) = resources(synth, "google_compute_instance", "h200")
    assert vm["network_interface"] == [{"subnetwork": "projects/p/regions/us-central1/subnetworks/s"}]
    assert vm["zone"] == "us-central1-b"
    assert vm["boot_disk"]["initialize_params"]["type"] == "hyperdisk-balanced"


@pytest.mark.synth
def test_tpu_vm_uses_google_beta(synth: dict[str, Any]) -> None:
    (tpu,) = resources(synth, "google_tpu_v2_vm", "tpu")
    assert tpu["accelerator_type"] == "v5p-8"
    assert tpu["runtime_version"] == "v2-alpha-tpuv5"
    assert tpu["zone"] == "us-east5-a"
    assert tpu["provider"] == "google-beta"
    assert tpu["network_config"]["enable_external_ips"] is False
    assert "scheduling_config" not in tpu
    (spot,) = resources(synth, "google_tpu_v2_vm", "tpuspot")
    assert spot["scheduling_config"] == {"spot": True}
    assert spot["runtime_version"] == "v2-custom"
    # secure_boot reaches TPU VMs too (it was fixed at True there, whatever the option said)
    assert tpu["shielded_instance_config"] == {"enable_secure_boot": True}
    assert spot["shielded_instance_config"] == {"enable_secure_boot": False}
    assert len(synth["provider"]["google-beta"]) == 1  # shared by both TPU workloads


@pytest.mark.synth
def test_gke_node_pool(synth: dict[str, Any]) -> None:
    (pool,) = resources(synth, "google_container_node_pool", "gke")
    assert pool["cluster"] == CLUSTER
    assert pool["node_count"] == 3
    assert pool["node_locations"] == ["us-central1-a"]
    config = pool["node_config"]
    assert config["machine_type"] == "a3-highgpu-8g"
    assert config["guest_accelerator"] == [
        {
            "type": "nvidia-h100-80gb",
            "count": 8,
            "gpu_driver_installation_config": {"gpu_driver_version": "LATEST"},
        }
    ]
    assert config["spot"] is True
    # The workload's pods select the catalog accelerator id; the pool used to carry "h100" (the
    # market-data GPU name), so a vLLM release on GKE never found its nodes.
    assert config["labels"] == {"computeops.io/gpu": "h100-sxm", "computeops.io/gpu-count": "8"}
    assert node_selector(placement()).items() <= config["labels"].items()
    assert config["taint"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]
    assert resources(synth, "google_compute_instance", "gke") == []


@pytest.mark.synth
def test_required_providers(synth: dict[str, Any]) -> None:
    required = synth["terraform"]["required_providers"]
    assert required["google"]["source"] == "hashicorp/google"
    assert required["google-beta"]["source"] == "hashicorp/google-beta"
    # No silent fallback to the environment's project: a variable with a description.
    assert synth["provider"]["google"] == [{"region": "us-central1", "project": "${var.gcp_project}"}]
    assert "GCP project id" in synth["variable"]["gcp_project"]["description"]


def test_tpu_on_gke_is_refused() -> None:
    with pytest.raises(TargetError, match="TPU node pools on GKE are not implemented"):
        GcpTarget().emit(
            None,
            placement(instance_type="tpu-v5p-8", accelerator="TPU-v5p"),
            provider=None,
            props=TargetProps(name="x", cluster=CLUSTER),
        )


@pytest.mark.synth
@needs_checkov
def test_checkov_passes_with_declared_skips(synth: dict[str, Any], tmp_path: Path) -> None:
    assert checkov_failures(synth, CHECKOV_SKIPS, tmp_path) == []


def test_every_catalog_gcp_instance_type_maps() -> None:
    from computeops_cdk.catalog import load_catalog

    types = [t for t in load_catalog().instance_types if t.provider == "gcp"]
    assert types
    for t in types:
        mapped = map_instance_type(
            placement(
                instance_type=t.name, accelerator=t.accelerator, accelerators_per_instance=t.accelerator_count
            )
        )
        if isinstance(mapped, GpuMachine):
            assert mapped.count == t.accelerator_count, t.name


@pytest.mark.parametrize(
    ("instance_type", "accelerator", "cluster", "options", "message"),
    [
        (
            "tpu-v5p-8",
            "TPU-v5p",
            None,
            {"kms_key_self_link": "k", "image": "i"},
            "gcp option(s) image, kms_key_self_link do not apply to TPU VMs, which this placement emits "
            "(image: GPU VMs only; kms_key_self_link: GPU VMs only). To fix: drop them, or constrain the "
            "intent so the engine chooses a machine they apply to.",
        ),
        ("a3-highgpu-8g", "H100-SXM", None, {"tpu_runtime_version": "v"}, "do not apply to GPU VMs"),
        # Reviewer: with cluster= this said to constrain the intent; the pool comes from cluster=.
        (
            "a3-highgpu-8g",
            "H100-SXM",
            CLUSTER,
            {"boot_disk_gb": 300},
            "do not apply to GKE node pools, which this placement emits (boot_disk_gb: GPU VMs only). "
            "To fix: drop `cluster=` (the target then emits machines of its own), or drop the option(s).",
        ),
    ],
)
def test_an_option_the_emitted_machine_does_not_read_is_an_error(
    instance_type: str, accelerator: str, cluster: str | None, options: dict[str, Any], message: str
) -> None:
    # Silently ignoring e.g. a KMS key on a TPU VM would leave the user believing the disk uses it.
    with pytest.raises(TargetError) as err:
        GcpTarget().emit(
            None,
            placement(instance_type=instance_type, accelerator=accelerator),
            provider=None,
            props=TargetProps(name="x", cluster=cluster, options=options),
        )
    assert message in str(err.value)


@pytest.mark.synth
def test_startup_script_serves_the_model_with_the_token_from_secret_manager(synth: dict[str, Any]) -> None:
    from boot_tools import boot_texts, check_boot

    vms = resources(synth, "google_compute_instance", "serve")
    scripts = [check_boot(vm["metadata"]["startup-script"]) for vm in vms]
    assert len(scripts) == 2 and scripts[0] == scripts[1]
    assert "MODEL=meta-llama/Llama-3.1-8B-Instruct" in scripts[0]
    assert "--tensor-parallel-size 8" in scripts[0]
    assert f"gcloud secrets versions access latest --secret={SECRET}" in scripts[0]
    (grant,) = resources(synth, "google_secret_manager_secret_iam_member", "serve")
    assert grant["secret_id"] == SECRET and grant["role"] == "roles/secretmanager.secretAccessor"
    assert grant["member"].startswith("serviceAccount:${google_service_account.serve_service-account_")
    # serve + ddp + pub + https + armored + spread VMs, tpuserve + tputrain TPU VMs; machines without a
    # model boot nothing
    assert len(boot_texts(synth)) == 2 + 3 + 2 + 1 + 1 + 3 + 1 + 2


@pytest.mark.synth
def test_training_vms_rendezvous_on_the_first_vm(synth: dict[str, Any]) -> None:
    from boot_tools import check_boot

    vms = resources(synth, "google_compute_instance", "ddp")
    texts = [vm["metadata"]["startup-script"] for vm in vms]
    assert 'MASTER_ADDR=""' in texts[0] and "NODE_RANK=0" in texts[0]
    for rank, text in enumerate(texts[1:], start=1):
        assert 'MASTER_ADDR="${google_compute_instance.ddp_instance-0_' in text
        assert '.network_interface[0].network_ip}"' in text
        assert f"NODE_RANK={rank}" in text
    script = check_boot(texts[2])
    assert "NNODES=3" in script and "WORLD_SIZE=24" in script and "torchrun t.py" in script
    assert resources(synth, "google_compute_forwarding_rule", "ddp") == []  # training is not exposed


@pytest.mark.synth
def test_multi_node_training_nodes_reach_each_other_in_the_new_network(synth: dict[str, Any]) -> None:
    # Regression (review of issue 9): the new network denied all ingress, so rank 1..n could not reach
    # rank 0's rendezvous (29500) nor NCCL's ports: a multi-node job would hang at start.
    rules = {r["name"]: r for r in resources(synth, "google_compute_firewall", "ddp")}
    cluster = rules["ddp-cluster-traffic"]
    (subnet,) = resources(synth, "google_compute_subnetwork", "ddp")
    assert cluster["source_ranges"] == [subnet["ip_cidr_range"]]
    assert cluster["allow"] == [{"protocol": "all"}] and cluster["direction"] == "INGRESS"
    assert cluster["priority"] < rules["ddp-deny-ingress"]["priority"]
    (target,) = cluster["target_service_accounts"]  # only the stack's own machines
    assert target.startswith("${google_service_account.ddp_service-account_") and target.endswith(".email}")
    assert "tputrain-cluster-traffic" in {
        r["name"] for r in resources(synth, "google_compute_firewall", "tputrain")
    }
    # Serving replicas and single-node jobs get no such rule.
    for case in ("serve", "h100"):
        assert not any(
            r["name"].endswith("cluster-traffic") for r in resources(synth, "google_compute_firewall", case)
        )


@pytest.mark.synth
def test_internal_load_balancer_fronts_the_serving_vms(synth: dict[str, Any]) -> None:
    (rule,) = resources(synth, "google_compute_forwarding_rule", "serve")
    assert (rule["load_balancing_scheme"], rule["ports"]) == ("INTERNAL", ["8000"])
    (check,) = resources(synth, "google_compute_region_health_check", "serve")
    assert check["http_health_check"] == {"port": 8000, "request_path": "/health"}
    (group,) = resources(synth, "google_compute_instance_group", "serve")
    assert len(group["instances"]) == 2
    serving = [
        r for r in resources(synth, "google_compute_firewall", "serve") if r["name"] == "serve-serving"
    ]
    assert serving[0]["source_ranges"] == ["35.191.0.0/16", "130.211.0.0/22", "10.64.0.0/20"]


@pytest.mark.synth
def test_public_passthrough_load_balancer_admits_the_clients_and_the_probes_only(
    synthesized: tuple[dict[str, Any], dict[str, dict[str, Any]]],
) -> None:
    synth, roles = synthesized
    (rule,) = resources(synth, "google_compute_forwarding_rule", "pub")
    assert (rule["load_balancing_scheme"], rule["ip_protocol"], rule["ports"]) == (
        "EXTERNAL",
        "TCP",
        ["8000"],
    )
    assert rule["ip_address"].startswith("${google_compute_address.pub_public-ip_")
    (address,) = resources(synth, "google_compute_address", "pub")
    assert address["address_type"] == "EXTERNAL"
    (backend,) = resources(synth, "google_compute_region_backend_service", "pub")
    assert backend["load_balancing_scheme"] == "EXTERNAL" and backend["protocol"] == "TCP"
    (check,) = resources(synth, "google_compute_region_health_check", "pub")
    assert check["http_health_check"] == {"port": 8000, "request_path": "/health"}
    (group,) = resources(synth, "google_compute_instance_group", "pub")
    assert len(group["instances"]) == 2
    serving = [r for r in resources(synth, "google_compute_firewall", "pub") if r["name"] == "pub-serving"]
    # Google's documented probe ranges for external passthrough load balancers, then the clients.
    assert serving[0]["source_ranges"] == [
        "35.191.0.0/16",
        "209.85.152.0/22",
        "209.85.204.0/22",
        "203.0.113.0/24",
    ]
    assert serving[0]["allow"] == [{"protocol": "tcp", "ports": ["8000"]}]
    assert roles["pub"]["expose"] == "public"
    assert "no TLS listener" in roles["pub"]["warnings"][0]
    parts = {p.part: p for p in roles["pub"]["billed"]}
    assert {"external load balancer forwarding rule", "static external IP address"} <= set(parts)
    assert parts["static external IP address"].hourly_usd is None  # no sourced price: null with a note
    assert "no sourced GCP price" in parts["static external IP address"].note


@pytest.mark.synth
def test_public_https_load_balancer_with_a_managed_certificate_for_the_domain(
    synthesized: tuple[dict[str, Any], dict[str, dict[str, Any]]],
) -> None:
    synth, roles = synthesized
    (rule,) = resources(synth, "google_compute_global_forwarding_rule", "https")
    assert (rule["load_balancing_scheme"], rule["port_range"]) == ("EXTERNAL_MANAGED", "443")
    (cert,) = resources(synth, "google_compute_managed_ssl_certificate", "https")
    assert cert["managed"] == {"domains": ["llm.example.com"]}
    (proxy,) = resources(synth, "google_compute_target_https_proxy", "https")
    assert proxy["ssl_policy"].startswith("${google_compute_ssl_policy.https_ssl-policy_")
    (policy,) = resources(synth, "google_compute_ssl_policy", "https")
    assert (policy["profile"], policy["min_tls_version"]) == ("MODERN", "TLS_1_2")
    (backend,) = resources(synth, "google_compute_backend_service", "https")
    assert (backend["protocol"], backend["port_name"]) == ("HTTP", "http")
    (check,) = resources(synth, "google_compute_health_check", "https")
    assert check["http_health_check"] == {"port": 8000, "request_path": "/health"}
    serving = [
        r for r in resources(synth, "google_compute_firewall", "https") if r["name"] == "https-serving"
    ]
    assert serving[0]["source_ranges"] == ["35.191.0.0/16", "130.211.0.0/22"]  # Google's front ends only
    assert roles["https"]["endpoint"] == "https://llm.example.com"
    assert "warnings" not in roles["https"]  # TLS: nothing to warn about beyond the public exposure
    parts = {p.part: p for p in roles["https"]["billed"]}
    rule_cost = parts["global external load balancer forwarding rule"]
    assert (
        rule_cost.hourly_usd == 0.025
        and rule_cost.source == "https://cloud.google.com/load-balancing/pricing"
    )
    assert parts["load balancer data processing"].hourly_usd is None  # traffic-dependent: null, never 0
    assert parts["static external IP address"].hourly_usd is None
    assert "external load balancer forwarding rule" not in parts  # the regional rule is the passthrough's
    assert resources(synth, "google_compute_forwarding_rule", "https") == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"expose": "public", "domain": "not a domain"}, "'domain' must be a DNS name"),
        ({"expose": "public", "public_source_ranges": ["10.0.0.300/8"]}, "list of 1..100 CIDR ranges"),
        ({"expose": "public", "public_source_ranges": "0.0.0.0/0"}, "list of 1..100 CIDR ranges"),
    ],
)
def test_bad_public_options_are_target_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(TargetError, match=message):
        GcpTarget().emit(
            None, placement(), provider=None, props=TargetProps(name="x", model="m/x", options=options)
        )


def test_ipv6_client_ranges_are_refused_on_the_ipv4_passthrough_load_balancer() -> None:
    # Reviewer: without a domain the firewall rule became ['35.191.0.0/16', '209.85.152.0/22',
    # '209.85.204.0/22', '2001:db8::/32'], which Google refuses (a rule holds IPv4 or IPv6, not both).
    options = {"expose": "public", "public_source_ranges": ["203.0.113.0/24", "2001:db8::/32"]}
    with pytest.raises(TargetError) as err:
        GcpTarget().emit(
            None, placement(), provider=None, props=TargetProps(name="x", model="m/x", options=options)
        )
    message = str(err.value)
    assert message.startswith("gcp option 'public_source_ranges' has IPv6 ranges ['2001:db8::/32']")
    assert "cannot mix IPv4 and IPv6" in message
    assert "To fix: give only IPv4 ranges, or set 'domain'" in message


@pytest.mark.parametrize("mode", ["internal", "public"])
def test_tpu_vms_refuse_load_balancers_with_the_reason(mode: str) -> None:
    with pytest.raises(TargetError, match=rf"gcp cannot expose the service as '{mode}': TPU VMs are not"):
        GcpTarget().emit(
            None,
            placement(instance_type="tpu-v6e-8", accelerator="TPU-v6e", accelerators_per_instance=8),
            provider=None,
            props=TargetProps(name="x", model="m/x", options={"expose": mode}),
        )


@pytest.mark.synth
def test_weights_from_the_users_bucket_with_read_on_that_bucket_only(
    synthesized: tuple[dict[str, Any], dict[str, dict[str, Any]]],
) -> None:
    from boot_tools import check_boot

    synth, _ = synthesized
    (grant,) = resources(synth, "google_storage_bucket_iam_member", "pub")
    assert (grant["bucket"], grant["role"]) == ("acme-models", "roles/storage.objectViewer")
    assert grant["member"].startswith("serviceAccount:${google_service_account.pub_service-account_")
    script = check_boot(resources(synth, "google_compute_instance", "pub")[0]["metadata"]["startup-script"])
    assert f"gcloud storage rsync --recursive --quiet {WEIGHTS} /opt/computeops/weights" in script
    assert '--model /weights --served-model-name "$MODEL"' in script
    assert resources(synth, "google_storage_bucket_iam_member", "serve") == []  # Hugging Face: no grant


def test_weights_of_another_cloud_are_refused() -> None:
    with pytest.raises(TargetError, match="is a Amazon S3 URI, but the workload runs on gcp"):
        GcpTarget().emit(
            None,
            placement(),
            provider=None,
            props=TargetProps(name="x", model="m/x", options={"weights_uri": "s3://bucket/model"}),
        )


@pytest.mark.synth
def test_tpu_inference_boots_vllms_tpu_image(
    synthesized: tuple[dict[str, Any], dict[str, dict[str, Any]]],
) -> None:
    from boot_tools import check_boot

    synth, roles = synthesized
    (tpu,) = resources(synth, "google_tpu_v2_vm", "tpuserve")
    script = check_boot(tpu["metadata"]["startup-script"])
    assert "IMAGE=vllm/vllm-tpu:v0.11.1" in script and f"MODEL={MODEL}" in script
    assert "--tensor-parallel-size 8" in script and "--port 8000" in script
    assert f"gcloud secrets versions access latest --secret={SECRET}" in script
    assert "gs://acme-models/llama-3.1-8b /opt/computeops/weights" in script
    assert "hf_" not in script.replace("hf-token", "")  # a reference, never a token
    # The first TPU VM's address (a reference, resolved in the construct's endpoint output).
    assert roles["tpuserve"]["endpoint"].startswith("http://${TfToken[")
    assert roles["tpuserve"]["endpoint"].endswith("]}:8000")
    (grant,) = resources(synth, "google_secret_manager_secret_iam_member", "tpuserve")
    assert grant["member"].startswith("serviceAccount:${google_service_account.tpuserve_service-account_")
    assert "no_boot_reason" not in roles["tpuserve"]


@pytest.mark.synth
def test_tpu_training_runs_on_every_host_of_every_slice(synth: dict[str, Any]) -> None:
    from boot_tools import check_boot

    slices = resources(synth, "google_tpu_v2_vm", "tputrain")
    texts = [tpu["metadata"]["startup-script"] for tpu in slices]
    first, second = (check_boot(t) for t in texts)
    assert "python3 train.py" in first and "tpu-pytorch-releases/docker/xla:r2.7.0_3.10_tpuvm" in first
    assert "MEGASCALE_SLICE_ID=0" in first and "MEGASCALE_SLICE_ID=1" in second
    assert 'COORDINATOR="${google_tpu_v2_vm.tputrain_tpu-0_' in texts[1]
    assert "--privileged --net host" in first


def test_billed_parts_without_a_sourced_price_are_null_with_the_reason(
    synthesized: tuple[dict[str, Any], dict[str, dict[str, Any]]],
) -> None:
    parts = {p.part.split(" (")[0]: p for p in synthesized[1]["serve"]["billed"]}
    assert set(parts) == {
        "boot disks",
        "Cloud NAT",
        "Cloud NAT external IP",
        "Cloud NAT data processing",
        "internal load balancer forwarding rule",
    }
    unpriced = ("boot disks", "internal load balancer forwarding rule")
    assert all(parts[p].hourly_usd is None and "no sourced GCP price" in parts[p].note for p in unpriced)
    assert parts["boot disks"].quantity == 2 * 200
    # Cloud NAT at Google's list price, one table for every region: 0.0014 USD per VM-hour (2 VMs) and
    # its external address; its data processing is traffic-billed (null with the reason, never 0).
    assert parts["Cloud NAT"].hourly_usd == 0.0028 and parts["Cloud NAT"].quantity == 2
    assert parts["Cloud NAT"].source == "https://cloud.google.com/nat/pricing"
    assert parts["Cloud NAT external IP"].hourly_usd == 0.005
    assert parts["Cloud NAT data processing"].hourly_usd is None


@pytest.mark.synth
def test_tpu_serving_on_a_generation_vllm_does_not_document_warns(
    synthesized: tuple[dict[str, Any], dict[str, dict[str, Any]]],
) -> None:
    _, roles = synthesized
    assert "warnings" not in roles["tpuserve"]  # v6e: documented
    _, v5p = synth_cases(
        "gcp-v5p",
        {
            "v5p": (
                GcpTarget(),
                placement(
                    instance_type="tpu-v5p-8",
                    accelerator="TPU-v5p",
                    accelerators_per_instance=4,
                    region="us-east5",
                ),
                TargetProps(name="v5p", model=MODEL),
            )
        },
    )
    assert "v5p-8 is not among them" in v5p["v5p"]["warnings"][0]


@pytest.mark.synth
def test_a_public_endpoint_requires_the_api_key_read_from_secret_manager(synth: dict[str, Any]) -> None:
    # Issue 9: the public GCP endpoint had no authentication. The key is read at boot with the VMs'
    # service account (accessor on that one secret), never a literal in Terraform.
    (grant,) = resources(synth, "google_secret_manager_secret_iam_member", "https")
    assert grant["secret_id"] == API_KEY and grant["role"] == "roles/secretmanager.secretAccessor"
    assert grant["member"].startswith("serviceAccount:${google_service_account.")
    (vm,) = resources(synth, "google_compute_instance", "https")
    script = check_boot(vm["metadata"]["startup-script"])
    assert f"VLLM_API_KEY=$(gcloud secrets versions access latest --secret={API_KEY} --quiet)" in script
    assert "--api-key" not in script
    # Without the option nothing reads a key and no grant is made.
    assert resources(synth, "google_secret_manager_secret_iam_member", "pub") == []
    (pub,) = resources(synth, "google_compute_instance", "pub")[:1]
    assert "VLLM_API_KEY" not in pub["metadata"]["startup-script"]


@pytest.mark.synth
def test_public_source_ranges_with_a_domain_are_enforced_by_cloud_armor(
    synthesized: tuple[dict[str, Any], dict[str, dict[str, Any]]],
) -> None:
    # Issue 9: with a domain the firewall admits Google's front ends only, so public_source_ranges was
    # silently ignored. A Cloud Armor policy on the backend service admits the ranges, denies the rest.
    synth, roles = synthesized
    (policy,) = resources(synth, "google_compute_security_policy", "armored")
    assert policy["type"] == "CLOUD_ARMOR"
    rules = sorted(policy["rule"], key=lambda r: r["priority"])
    assert [(r["priority"], r["action"]) for r in rules] == [
        (1000, "allow"),
        (1001, "allow"),
        (2147483647, "deny(403)"),
    ]
    assert [r["match"]["versioned_expr"] for r in rules] == ["SRC_IPS_V1"] * 3
    allowed = [ip for r in rules[:2] for ip in r["match"]["config"]["src_ip_ranges"]]
    assert allowed == CLIENTS and len(rules[0]["match"]["config"]["src_ip_ranges"]) == 10
    assert rules[2]["match"]["config"]["src_ip_ranges"] == ["*"]
    (backend,) = resources(synth, "google_compute_backend_service", "armored")
    assert backend["security_policy"].startswith("${google_compute_security_policy.")
    serving = [
        r for r in resources(synth, "google_compute_firewall", "armored") if r["name"].endswith("-serving")
    ]
    assert serving[0]["source_ranges"] == ["35.191.0.0/16", "130.211.0.0/22"]  # still the front ends only
    # Without ranges there is no policy (the whole internet, as documented).
    assert resources(synth, "google_compute_security_policy", "https") == []
    assert "security_policy" not in resources(synth, "google_compute_backend_service", "https")[0]
    parts = {p.part: p for p in roles["armored"]["billed"]}
    armor = parts["Cloud Armor security policy (Standard)"]
    assert armor.hourly_usd is None and "per policy, per rule and per request" in armor.note
    assert "Cloud Armor security policy (Standard)" not in {p.part for p in roles["https"]["billed"]}


@pytest.mark.synth
def test_zones_spread_serving_replicas_with_one_instance_group_per_zone(synth: dict[str, Any]) -> None:
    vms = resources(synth, "google_compute_instance", "spread")
    assert [vm["zone"] for vm in sorted(vms, key=lambda vm: vm["name"])] == [
        "us-central1-a",
        "us-central1-b",
        "us-central1-a",
    ]
    groups = {g["zone"]: g for g in resources(synth, "google_compute_instance_group", "spread")}
    assert sorted(groups) == ["us-central1-a", "us-central1-b"]
    assert [len(groups[z]["instances"]) for z in sorted(groups)] == [2, 1]
    (backend,) = resources(synth, "google_compute_region_backend_service", "spread")
    assert len(backend["backend"]) == 2  # both zones' groups behind the internal load balancer
    assert resources(synth, "google_compute_resource_policy", "spread") == []


@pytest.mark.parametrize(
    ("options", "training", "message"),
    [
        ({"zones": ["us-central1-a", "us-central1-b"]}, True, "cannot spread a multi-node training job"),
        ({"zones": ["europe-west4-a"]}, False, "must list distinct zones of region us-central1"),
        ({"zones": ["us-central1-a", "us-central1-a"]}, False, "must list distinct zones"),
        # Unhashable elements were a TypeError traceback (set() of the list).
        ({"zones": ["us-central1-a", ["x"]]}, False, "must list distinct zones"),
        ({"zones": ["us-central1-a", "us-centrl1-b"]}, False, "did you mean 'us-central1-b'"),
        (
            {"zones": ["us-central1-a"], "zone": "us-central1-b"},
            False,
            "'zone' and 'zones' exclude each other",
        ),
    ],
)
def test_bad_zones_are_target_errors(options: dict[str, Any], training: bool, message: str) -> None:
    from computeops_cdk._compat import TerraformStack, Testing

    stack = TerraformStack(Testing.app(), "z")
    props = TargetProps(name="z", model=MODEL, options={**options, "project": "p"})
    with pytest.raises(TargetError, match=message):
        GcpTarget().emit(stack, placement(instances=2, training=training), provider=None, props=props)


@pytest.mark.parametrize(
    ("zone", "detail"),
    [
        # Reviewer: these became zone "5", "['a']" and a europe-west4 zone for a us-central1 decision.
        (5, "(got int 5)"),
        (["a"], "(got list ['a'])"),
        ("europe-west4-a", "(got str 'europe-west4-a'): 'europe-west4-a' is in region europe-west4"),
        ("us-central1", "(got str 'us-central1')"),
        ("us-central1-b ", "(got str 'us-central1-b ') (did you mean "),
    ],
)
def test_the_zone_option_must_be_a_zone_of_the_decided_region(zone: Any, detail: str) -> None:
    props = TargetProps(name="z", model=MODEL, options={"zone": zone})
    with pytest.raises(TargetError) as err:
        GcpTarget().emit(None, placement(), provider=None, props=props)
    assert str(err.value).startswith(
        "gcp option 'zone' must be a zone of region us-central1 (the decision's), "
        f"'us-central1-<letter>' {detail}"
    )
    assert zone != "us-central1-b " or "'us-central1-b'" in str(err.value)  # a zone the data names
    assert str(err.value).endswith(
        "To fix: e.g. options={'zone': 'us-central1-a'} (the market data's zone), or drop 'zone'."
    )
