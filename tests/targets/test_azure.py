"""Azure target: size validation and the synthesized Terraform (one stack, one binding import)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import make_placement
from targets_testdata import checkov_failures, needs_checkov, resources, synth_cases

from computeops_cdk.engine import Placement
from computeops_cdk.errors import TargetError
from computeops_cdk.targets._base import FEATURES, TargetProps
from computeops_cdk.targets.azure import CHECKOV_SKIPS, AzureTarget, gpu_count, vm_size

SECRET = "https://my-vault.vault.azure.net/secrets/hf-token"
VAULT = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/my-vault"
CLUSTER = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks"


def placement(**changes: Any) -> Placement:
    """An on-demand Standard_ND96isr_H100_v5 in eastus unless changed."""
    base = {
        "provider": "azure",
        "instance_type": "Standard_ND96isr_H100_v5",
        "accelerators_per_instance": 12,  # the market data's quirk for this SKU
        "region": "eastus",
    }
    return make_placement(**{**base, **changes})  # type: ignore[no-any-return]


def test_non_gpu_size_is_a_clear_error() -> None:
    with pytest.raises(TargetError) as err:
        AzureTarget().emit(
            None, placement(instance_type="Standard_D8s_v5"), provider=None, props=TargetProps(name="x")
        )
    assert str(err.value) == (
        "azure target cannot map instance type 'Standard_D8s_v5' to a VM size: it expects an "
        "NC/ND/NG/NV-series size such as 'Standard_ND96isr_H100_v5' or 'Standard_NC24ads_A100_v4'. "
        "To fix: pin an Azure GPU size, or report the catalog name so the target can learn it."
    )


def test_gpu_count_corrects_the_catalog_quirk_only_where_known() -> None:
    assert gpu_count(placement()) == 8
    assert gpu_count(placement(instance_type="Standard_NC24ads_A100_v4", accelerators_per_instance=1)) == 1


def test_unsupported_features_are_in_the_vocabulary_with_reasons() -> None:
    assert set(AzureTarget.unsupported) <= set(FEATURES)
    assert all(reason for reason in AzureTarget.unsupported.values())


@pytest.fixture(scope="module")
def synth() -> dict[str, Any]:
    target = AzureTarget()
    cases = {
        "nd": (placement(), TargetProps(name="nd", tags={"team": "ml"})),
        "spot": (
            placement(
                instance_type="Standard_NC24ads_A100_v4",
                accelerator="A100-80GB",
                accelerators_per_instance=1,
                instances=2,
                pricing="spot",
            ),
            TargetProps(name="spot", options={"ssh_public_key": "ssh-ed25519 AAAAtest", "zone": "2"}),
        ),
        "aks": (placement(pricing="spot", instances=3), TargetProps(name="aks-pool", cluster=CLUSTER)),
        "zoned": (
            placement(
                instance_type="Standard_NC24ads_A100_v4",
                accelerator="A100-80GB",
                accelerators_per_instance=1,
                instances=3,
            ),
            TargetProps(
                name="zoned", model="Qwen/Qwen3-8B", options={"zones": ["1", "2"], "api_key_secret": API_KEY}
            ),
        ),
        "keyed": (
            placement(
                instance_type="Standard_NC24ads_A100_v4", accelerator="A100-80GB", accelerators_per_instance=1
            ),
            TargetProps(
                name="keyed",
                model="Qwen/Qwen3-8B",
                options={"api_key_secret": API_KEY, "key_vault_id": VAULT},
            ),
        ),
        "akszones": (
            placement(instances=2),
            TargetProps(name="akszones", cluster=CLUSTER, options={"zones": ["1", "3"]}),
        ),
        "serve": (
            placement(
                instance_type="Standard_NC40ads_H100_v5", accelerator="H100-NVL", accelerators_per_instance=1
            ),
            TargetProps(
                name="serve",
                model="meta-llama/Llama-3.1-8B-Instruct",
                options={"hf_token_secret": SECRET, "key_vault_id": VAULT},
            ),
        ),
        "pub": (
            placement(
                instance_type="Standard_NC40ads_H100_v5",
                accelerator="H100-NVL",
                accelerators_per_instance=1,
                instances=2,
            ),
            TargetProps(
                name="pub",
                model="meta-llama/Llama-3.1-8B-Instruct",
                options={
                    "expose": "public",
                    "public_source_ranges": ["203.0.113.0/24"],
                    "weights_uri": WEIGHTS,
                    "storage_account_id": ACCOUNT,
                },
            ),
        ),
        "open": (
            placement(
                instance_type="Standard_NC40ads_H100_v5", accelerator="H100-NVL", accelerators_per_instance=1
            ),
            TargetProps(
                name="open",
                model="meta-llama/Llama-3.1-8B-Instruct",
                options={"expose": "public", "weights_uri": WEIGHTS},
            ),
        ),
    }
    doc, roles = synth_cases("azure", {key: (target, p, props) for key, (p, props) in cases.items()})
    ROLES.update(roles)
    return doc


API_KEY = "https://my-vault.vault.azure.net/secrets/vllm-api-key"
ROLES: dict[str, dict[str, Any]] = {}
"""What each case's emit returned (filled by the synth fixture)."""
WEIGHTS = "https://acmemodels.blob.core.windows.net/models/llama-3.1-8b"
ACCOUNT = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/ml/providers/"
    "Microsoft.Storage/storageAccounts/acmemodels"
)


@pytest.mark.synth
def test_provider_block_has_features_and_no_credentials(synth: dict[str, Any]) -> None:
    assert synth["provider"]["azurerm"] == [{"features": [{}]}]
    # The binding writes the short form of hashicorp/azurerm and pins the version it was generated from.
    assert synth["terraform"]["required_providers"]["azurerm"]["source"] in ("azurerm", "hashicorp/azurerm")


@pytest.mark.synth
def test_on_demand_vm(synth: dict[str, Any]) -> None:
    (vm,) = resources(synth, "azurerm_linux_virtual_machine", "nd")
    assert vm["size"] == "Standard_ND96isr_H100_v5"
    assert vm["location"] == "eastus"
    assert vm["priority"] == "Regular"
    assert "eviction_policy" not in vm and "max_bid_price" not in vm
    assert vm["disable_password_authentication"] is True
    assert "admin_password" not in vm
    assert vm["admin_ssh_key"] == [{"username": "azureuser", "public_key": "${var.nd_ssh_public_key}"}]
    assert vm["encryption_at_host_enabled"] is True
    assert vm["allow_extension_operations"] is False
    assert vm["identity"] == {"type": "SystemAssigned"}
    assert vm["os_disk"]["storage_account_type"] == "Premium_LRS"
    assert vm["tags"] == {"team": "ml", "computeops-gpu": "H100-SXM", "computeops-pricing": "on_demand"}
    assert synth["variable"]["nd_ssh_public_key"]["type"] == "string"


@pytest.mark.synth
def test_spot_vms(synth: dict[str, Any]) -> None:
    vms = resources(synth, "azurerm_linux_virtual_machine", "spot")
    assert [vm["name"] for vm in vms] == ["spot-0", "spot-1"]
    for vm in vms:
        assert (vm["priority"], vm["eviction_policy"], vm["max_bid_price"]) == ("Spot", "Deallocate", -1)
        assert vm["zone"] == "2"
        assert vm["admin_ssh_key"][0]["public_key"] == "ssh-ed25519 AAAAtest"


@pytest.mark.synth
def test_network_has_no_public_ip_and_no_inbound_rule(synth: dict[str, Any]) -> None:
    # The only public IP is the NAT gateway's (egress); no NIC has one.
    (nat_ip,) = resources(synth, "azurerm_public_ip", "nd")
    assert (nat_ip["sku"], nat_ip["allocation_method"]) == ("Standard", "Static")
    (assoc,) = resources(synth, "azurerm_nat_gateway_public_ip_association", "nd")
    assert assoc["public_ip_address_id"].startswith("${azurerm_public_ip.nd_nat-ip_")
    (subnet_nat,) = resources(synth, "azurerm_subnet_nat_gateway_association", "nd")
    assert subnet_nat["subnet_id"].startswith("${azurerm_subnet.nd_subnet_")
    for nic in synth["resource"]["azurerm_network_interface"].values():
        (config,) = nic["ip_configuration"]
        assert config["private_ip_address_allocation"] == "Dynamic"
        assert "public_ip_address_id" not in config
    (nsg,) = resources(synth, "azurerm_network_security_group", "nd")
    assert "security_rule" not in nsg  # the rules are separate resources (below), never mixed inline
    (assoc,) = resources(synth, "azurerm_subnet_network_security_group_association", "nd")
    assert assoc["network_security_group_id"].startswith("${azurerm_network_security_group.nd_")


@pytest.mark.synth
def test_aks_node_pool(synth: dict[str, Any]) -> None:
    (pool,) = resources(synth, "azurerm_kubernetes_cluster_node_pool", "aks")
    assert pool["name"] == "gpuakspool"
    assert pool["kubernetes_cluster_id"] == CLUSTER
    assert pool["vm_size"] == "Standard_ND96isr_H100_v5"
    assert pool["node_count"] == 3
    assert (pool["priority"], pool["eviction_policy"], pool["spot_max_price"]) == ("Spot", "Delete", -1)
    assert pool["node_labels"] == {"computeops.io/gpu": "h100-sxm", "computeops.io/gpu-count": "8"}
    assert pool["node_taints"] == ["nvidia.com/gpu=present:NoSchedule"]
    assert resources(synth, "azurerm_linux_virtual_machine", "aks") == []


@pytest.mark.synth
@needs_checkov
def test_checkov_passes(synth: dict[str, Any], tmp_path: Path) -> None:
    assert checkov_failures(synth, CHECKOV_SKIPS, tmp_path) == []


def test_every_catalog_azure_size_maps() -> None:
    from computeops_cdk.catalog import load_catalog

    sizes = [t.name for t in load_catalog().instance_types if t.provider == "azure"]
    assert sizes
    for size in sizes:
        assert vm_size(placement(instance_type=size)) == size


def test_vm_only_options_on_an_aks_pool_are_an_error_not_ignored() -> None:
    with pytest.raises(TargetError) as err:
        AzureTarget().emit(
            None,
            placement(),
            provider=None,
            props=TargetProps(name="x", cluster="aks", options={"ssh_public_key": "ssh-ed25519 AAAA"}),
        )
    assert str(err.value).startswith(
        "azure option(s) ssh_public_key do not apply to AKS node pools, which this placement emits "
        "(ssh_public_key: VMs only). To fix: drop `cluster=` (the target then emits machines of its own), "
        "or drop the option(s)."
    )


@pytest.mark.synth
def test_boot_cloud_config_serves_the_model_and_reads_the_token_from_key_vault(synth: dict[str, Any]) -> None:
    import base64

    from boot_tools import check_boot

    (vm,) = resources(synth, "azurerm_linux_virtual_machine", "serve")
    # base64 of the script itself: Terraform never reads it as a template (no escapes to undo)
    script = check_boot(base64.b64decode(vm["custom_data"]).decode(), terraform=False)
    assert "MODEL=meta-llama/Llama-3.1-8B-Instruct" in script
    assert "--tensor-parallel-size 1" in script and "--port 8000" in script
    assert f"{SECRET}?api-version=7.4" in script and "169.254.169.254/metadata/identity" in script
    (grant,) = resources(synth, "azurerm_role_assignment", "serve")
    assert grant["scope"] == VAULT and grant["role_definition_name"] == "Key Vault Secrets User"
    assert grant["principal_id"].endswith(".identity[0].principal_id}")
    # VMs of a stack without a model boot nothing.
    assert all("custom_data" not in vm for vm in resources(synth, "azurerm_linux_virtual_machine", "nd"))


@pytest.mark.synth
def test_key_vault_role_assignments_are_named_for_the_secrets_they_read(synth: dict[str, Any]) -> None:
    # Reviewer: a VM reading only the API key had its grant named read-hf-token-0.
    def grants(case: str) -> list[str]:
        return sorted(n for n in synth["resource"]["azurerm_role_assignment"] if n.startswith(f"{case}_"))

    assert [n.rsplit("_", 1)[0] for n in grants("keyed")] == ["keyed_read-api-key-0"]
    assert [n.rsplit("_", 1)[0] for n in grants("serve")] == ["serve_read-hf-token-0"]
    (grant,) = resources(synth, "azurerm_role_assignment", "keyed")
    assert grant["scope"] == VAULT and grant["role_definition_name"] == "Key Vault Secrets User"


@pytest.mark.synth
def test_internal_load_balancer_probes_health_over_every_nic(synth: dict[str, Any]) -> None:
    (lb,) = resources(synth, "azurerm_lb", "serve")
    assert lb["sku"] == "Standard"
    (frontend,) = lb["frontend_ip_configuration"]
    assert "public_ip_address_id" not in frontend and frontend["subnet_id"].startswith("${azurerm_subnet.")
    (probe,) = resources(synth, "azurerm_lb_probe", "serve")
    assert (probe["protocol"], probe["port"], probe["request_path"]) == ("Http", 8000, "/health")
    (member,) = resources(synth, "azurerm_network_interface_backend_address_pool_association", "serve")
    assert member["ip_configuration_name"] == "internal"
    assert resources(synth, "azurerm_lb", "nd") == []  # nothing served: nothing exposed


@pytest.mark.synth
def test_public_load_balancer_has_a_static_ip_a_health_probe_and_an_nsg_rule(synth: dict[str, Any]) -> None:
    (ip,) = resources(synth, "azurerm_public_ip", "pub_lb-ip")
    assert (ip["allocation_method"], ip["sku"]) == ("Static", "Standard")
    (lb,) = resources(synth, "azurerm_lb", "pub")
    (frontend,) = lb["frontend_ip_configuration"]
    assert frontend["name"] == "public" and frontend["public_ip_address_id"].startswith(
        "${azurerm_public_ip.pub_lb-ip"
    )
    (probe,) = resources(synth, "azurerm_lb_probe", "pub")
    assert (probe["protocol"], probe["port"], probe["request_path"]) == ("Http", 8000, "/health")
    (rule,) = resources(synth, "azurerm_lb_rule", "pub")
    assert (rule["protocol"], rule["frontend_port"], rule["frontend_ip_configuration_name"]) == (
        "Tcp",
        8000,
        "public",
    )
    assert rule["disable_outbound_snat"] is True  # egress stays on the NAT gateway
    assert len(resources(synth, "azurerm_network_interface_backend_address_pool_association", "pub")) == 2
    allow = _nsg_rules(synth, "pub")["allow-serving-port"]
    assert (allow["direction"], allow["access"], allow["destination_port_range"]) == (
        "Inbound",
        "Allow",
        "8000",
    )
    assert allow["source_address_prefixes"] == ["203.0.113.0/24"]
    default = _nsg_rules(synth, "open")["allow-serving-port"]
    assert default["source_address_prefix"] == "Internet"
    roles = ROLES["pub"]
    assert roles["expose"] == "public" and roles["endpoint"].startswith("http://")  # plain HTTP: layer 4
    assert any("no TLS listener" in w for w in roles["warnings"])
    parts = {p.part: p for p in roles["billed"]}
    assert parts["Standard public load balancer"].hourly_usd is None
    assert parts["load balancer public IP (Standard, static)"].hourly_usd is None
    assert "no sourced Azure price" in parts["load balancer public IP (Standard, static)"].note


@pytest.mark.synth
def test_weights_from_blob_storage_with_a_reader_role_on_that_container(synth: dict[str, Any]) -> None:
    import base64

    from boot_tools import check_boot

    vm = resources(synth, "azurerm_linux_virtual_machine", "pub")[0]
    script = check_boot(base64.b64decode(vm["custom_data"]).decode(), terraform=False)
    assert "python3 - acmemodels models llama-3.1-8b /opt/computeops/weights <<'PY'" in script
    assert "resource=https%3A%2F%2Fstorage.azure.com%2F" in script  # the managed identity's token
    assert '--model /weights --served-model-name "$MODEL"' in script
    grants = resources(synth, "azurerm_role_assignment", "pub")
    assert len(grants) == 2  # one per VM identity
    assert {g["role_definition_name"] for g in grants} == {"Storage Blob Data Reader"}
    assert {g["scope"] for g in grants} == {f"{ACCOUNT}/blobServices/default/containers/models"}
    # Without storage_account_id: no grant, and a warning saying how to grant it.
    assert resources(synth, "azurerm_role_assignment", "open") == []
    assert any("storage_account_id" in w for w in ROLES["open"]["warnings"])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"weights_uri": "gs://bucket/x"}, "is a Google Cloud Storage URI, but the workload runs on azure"),
        ({"weights_uri": WEIGHTS, "storage_account_id": "/subscriptions/x"}, "must be the resource id of"),
        ({"storage_account_id": ACCOUNT}, "applies to weights_uri, which is not given"),
        (
            {"weights_uri": WEIGHTS, "storage_account_id": ACCOUNT.replace("acmemodels", "othermodels")},
            "must be the resource id of storage account 'acmemodels'",
        ),
    ],
)
def test_bad_weights_options_are_target_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(TargetError, match=message):
        AzureTarget().emit(
            None, placement(), provider=None, props=TargetProps(name="x", model="m/x", options=options)
        )


def test_ipv6_client_ranges_are_refused_on_the_ipv4_public_load_balancer() -> None:
    # Reviewer: the NSG admitted an IPv6 range in front of an IPv4-only load balancer frontend.
    options = {"expose": "public", "public_source_ranges": ["2001:db8::/32"]}
    with pytest.raises(TargetError) as err:
        AzureTarget().emit(
            None, placement(), provider=None, props=TargetProps(name="x", model="m/x", options=options)
        )
    assert str(err.value) == (
        "azure option 'public_source_ranges' has IPv6 ranges ['2001:db8::/32'], but the public load "
        "balancer's frontend is an IPv4 public IP (the NSG rule would admit IPv6 clients that cannot "
        "reach it). To fix: give only IPv4 ranges."
    )


def _nsg_rules(synth: dict[str, Any], case: str) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in resources(synth, "azurerm_network_security_rule", case)}


@pytest.mark.synth
def test_every_nsg_states_what_it_admits_and_denies_the_rest(synth: dict[str, Any]) -> None:
    # Issue 9: the NSG had no rule and relied on Azure's defaults (AllowVnetInBound admits every port
    # from the whole virtual network). Now: SSH from the VNet, the serving port from the clients and the
    # load balancer's probes, then an explicit deny before the default rules.
    for case in ("nd", "serve", "pub", "open", "zoned"):
        rules = _nsg_rules(synth, case)
        deny = rules["deny-all-inbound"]
        assert (deny["priority"], deny["access"], deny["protocol"]) == (4096, "Deny", "*")
        assert (deny["source_address_prefix"], deny["destination_port_range"]) == ("*", "*")
        ssh = rules["allow-ssh-from-vnet"]
        assert (ssh["source_address_prefix"], ssh["destination_port_range"], ssh["access"]) == (
            "VirtualNetwork",
            "22",
            "Allow",
        )
        assert all(r["direction"] == "Inbound" for r in rules.values())
        assert len({r["priority"] for r in rules.values()}) == len(rules)
        assert all(r["priority"] < 4096 for name, r in rules.items() if name != "deny-all-inbound")
    # Nothing served: SSH and the deny only.
    assert sorted(_nsg_rules(synth, "nd")) == ["allow-ssh-from-vnet", "deny-all-inbound"]
    # Internal: the port from the virtual network and the probes.
    serve = _nsg_rules(synth, "serve")
    assert serve["allow-serving-port"]["source_address_prefix"] == "VirtualNetwork"
    assert serve["allow-serving-port"]["destination_port_range"] == "8000"
    assert serve["allow-lb-probe"]["source_address_prefix"] == "AzureLoadBalancer"
    # Public: the port from the client ranges (or the Internet tag), the probes, nothing from the VNet.
    pub = _nsg_rules(synth, "pub")
    assert pub["allow-serving-port"]["source_address_prefixes"] == ["203.0.113.0/24"]
    assert pub["allow-lb-probe"]["destination_port_range"] == "8000"
    assert _nsg_rules(synth, "open")["allow-serving-port"]["source_address_prefix"] == "Internet"


@pytest.mark.synth
def test_zones_spread_the_vms_round_robin_and_reach_aks_pools(synth: dict[str, Any]) -> None:
    vms = resources(synth, "azurerm_linux_virtual_machine", "zoned")
    assert [vm["zone"] for vm in sorted(vms, key=lambda vm: vm["name"])] == ["1", "2", "1"]
    assert all("zone" not in vm for vm in resources(synth, "azurerm_linux_virtual_machine", "nd"))
    (pool,) = resources(synth, "azurerm_kubernetes_cluster_node_pool", "akszones")
    assert pool["zones"] == ["1", "3"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"zone": "1", "zones": ["2"]}, "'zone' and 'zones' exclude each other"),
        ({"zones": ["a"]}, "must name availability zones"),
        ({"zones": []}, "must name availability zones"),
        ({"zones": ["1", "1"]}, "must name availability zones"),
        ({"zones": "1"}, "must name availability zones"),
    ],
)
def test_bad_zones_are_target_errors(options: dict[str, Any], message: str) -> None:
    from computeops_cdk._compat import TerraformStack, Testing

    stack = TerraformStack(Testing.app(), "bad")
    with pytest.raises(TargetError, match=message):
        AzureTarget().emit(stack, placement(), provider=None, props=TargetProps(name="bad", options=options))


@pytest.mark.synth
def test_the_api_key_is_read_from_key_vault_and_warns_without_a_vault_grant(synth: dict[str, Any]) -> None:
    import base64

    (vm,) = resources(synth, "azurerm_linux_virtual_machine", "zoned")[:1]
    config = base64.b64decode(vm["custom_data"]).decode()
    assert "VLLM_API_KEY=$(curl -fsS" in config and "vllm-api-key?api-version=7.4" in config
    assert any("api_key_secret" in w and "key_vault_id" in w for w in ROLES["zoned"]["warnings"])
