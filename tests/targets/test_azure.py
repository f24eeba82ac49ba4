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
    }
    doc, _ = synth_cases("azure", {key: (target, p, props) for key, (p, props) in cases.items()})
    return doc


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
    assert "azurerm_public_ip" not in synth["resource"]
    for nic in synth["resource"]["azurerm_network_interface"].values():
        (config,) = nic["ip_configuration"]
        assert config["private_ip_address_allocation"] == "Dynamic"
        assert "public_ip_address_id" not in config
    (nsg,) = resources(synth, "azurerm_network_security_group", "nd")
    assert "security_rule" not in nsg
    assert "azurerm_network_security_rule" not in synth["resource"]
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
        "(ssh_public_key: VMs only). To fix: drop them"
    )
