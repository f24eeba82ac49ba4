"""Azure: a Linux GPU VM of the NC/ND/NV series in its own network, or an AKS GPU node pool.

Binding: ``cdktn-provider-azurerm`` 18.x (``hashicorp/azurerm``; the 18.9.0 binding documents
azurerm 5.10.0), imported inside ``configure``/``emit`` only.

Options: ``AzureTarget.options``. Without ``subnet_id`` the target creates a VNet ``10.70.0.0/16``
with one subnet behind an NSG that has no inbound allow rule, and a NAT gateway for egress
(``_azure_network``). ``zone``/``zones`` default to none (regional placement) because GPU sizes are
restricted zone by zone *per subscription* (the Resource SKUs API reports ``Zone`` restrictions with
reason ``NotAvailableForSubscription``) and the catalog has no Azure zone data, so a zone the target
picked could fail the apply. ``az vm list-skus --location <region> --size <size> --query
"[].{zones: locationInfo[0].zones, restrictions: restrictions}"`` lists the zones your subscription may use.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

from ..engine import Placement
from ..errors import TargetError
from ._azure_network import internal_load_balancer, nat_gateway, nsg_rules, public_load_balancer
from ._base import Target, TargetProps
from ._billed import unpriced, unpriced_parts
from ._boot import BOOT_OPTIONS, BootPlan, plan_for
from ._boot_script import boot_script, cloud_config
from ._expose import EXPOSE_OPTION, SOURCE_RANGES_OPTION, expose_mode, ipv4_ranges, source_ranges
from ._options import chosen_by, require_applicable, whole_option
from ._support import require_supported
from ._unsupported import UNSUPPORTED
from ._weights import WEIGHTS_OPTION, WeightsSource
from .k8s import GPU_TAINT_KEY, pool_labels

__all__ = [
    "CHECKOV_SKIPS",
    "DEFAULT_IMAGE",
    "EXPOSE_LIMITATIONS",
    "EXPOSE_UNSUPPORTED",
    "AzureTarget",
    "gpu_count",
    "vm_size",
]

EXPOSE_UNSUPPORTED: Mapping[str, str] = {}
"""``expose`` modes the Azure target does not implement, with the reason (none)."""
EXPOSE_LIMITATIONS: Mapping[str, str] = {
    "public": "Azure Load Balancer is layer 4 and has no TLS listener: the public service answers plain "
    "HTTP on its address; terminate TLS in front of it (an Application Gateway or your own proxy with a "
    "certificate) before real traffic",
}
"""What an implemented ``expose`` mode does not do, with the reason (quoted in the warning)."""

DEFAULT_IMAGE: Mapping[str, str] = {
    "publisher": "microsoft-dsvm",
    "offer": "ubuntu-hpc",
    "sku": "2204",
    "version": "22.04.2026082801",
}
"""Azure HPC Ubuntu image with NVIDIA drivers, CUDA and InfiniBand (Azure/azhpc-images), one exact
marketplace version (``latest`` would move at each plan and replace the VMs), not checked against the
marketplace at synth: ``az vm image list -p microsoft-dsvm -f ubuntu-hpc -s 2204 --all`` lists them.
``version: latest`` in the ``image`` option opts in to a moving image, with a warning. Recorded in the
lock entry."""

CHECKOV_SKIPS: Mapping[str, str] = {}
"""checkov checks the emitted Azure resources fail on purpose, with the reason (none by default)."""

_SIZE = re.compile(r"^Standard_N[CDGV]\w*$")
# The market data lists ND96isr_H100_v5 with 12 GPUs (a SkyPilot catalog quirk noted in SOURCES.md);
# the SKU has 8. Node labels must say what the node really has.
_GPU_COUNT_FIXES: Mapping[str, int] = {"Standard_ND96isr_H100_v5": 8}


def gpu_count(placement: Placement) -> int:
    """GPUs per VM, with known catalog quirks corrected."""
    return _GPU_COUNT_FIXES.get(placement.instance_type, placement.accelerators_per_instance)


def vm_size(placement: Placement) -> str:
    """The VM size for a placement (its instance type, checked to be an N-series GPU size)."""
    size = placement.instance_type.strip()
    if not _SIZE.match(size):
        raise TargetError(
            f"azure target cannot map instance type {size!r} to a VM size: it expects an NC/ND/NG/NV-series "
            "size such as 'Standard_ND96isr_H100_v5' or 'Standard_NC24ads_A100_v4'. "
            "To fix: pin an Azure GPU size, or report the catalog name so the target can learn it."
        )
    return size


# Options only the VM path reads (an AKS node pool joins an existing cluster's group and identity).
_VM, _POOL = "VMs", "AKS node pools"
_OPTION_READERS: Mapping[str, tuple[str, ...]] = {
    "resource_group_name": (_VM,),
    "ssh_public_key": (_VM,),
    "admin_username": (_VM,),
    "image": (_VM,),
    "key_vault_id": (_VM,),
    "expose": (_VM,),
    "public_source_ranges": (_VM,),
    "weights_uri": (_VM,),
    "storage_account_id": (_VM,),
    # model_url and command: the Kubernetes layer reads them on a cluster.
    **{key: (_VM,) for key in BOOT_OPTIONS if key not in ("model_url", "command")},
}


class AzureTarget(Target):
    """Azure target: options and defaults in ``options`` (notes in the module docstring)."""

    provider = "azure"
    extra = "azure"
    options: Mapping[str, str] = {
        "subscription_id": "Default: unset, azurerm reads ARM_SUBSCRIPTION_ID.",
        "resource_group_name": "existing resource group. Default: a new <name>-rg in the region.",
        "subnet_id": "existing subnet for the NIC / node pool. Default: a new VNet, subnet and NSG.",
        "ssh_public_key": "key of admin_username. Default: a Terraform variable <name>_ssh_public_key.",
        "admin_username": "Default: azureuser.",
        "image": "{publisher, offer, sku, version}. Default: DEFAULT_IMAGE.",
        "os_disk_gb": "OS disk size in GB. Default: 256.",
        "zone": 'availability zone ("1", "2", "3") of every VM. Default: none (regional placement).',
        "zones": 'availability zones (e.g. ["1", "2"]) the VMs are spread over round-robin. Default: none '
        "(regional: GPU sizes are zone-restricted per subscription; see the module docstring).",
        "expose": EXPOSE_OPTION,
        "key_vault_id": "Key Vault (resource id) of hf_token_secret, granted to the VMs. Default: none.",
        "public_source_ranges": SOURCE_RANGES_OPTION,
        "weights_uri": WEIGHTS_OPTION,
        "storage_account_id": "storage account (resource id) of weights_uri; each VM identity gets "
        "Storage Blob Data Reader on the container. Default: none (grant it yourself; a warning says so).",
        **BOOT_OPTIONS,
    }
    unsupported = UNSUPPORTED["azure"]  # declared in _unsupported.py

    def image_reference(self, placement: Placement, *, cluster: bool) -> Mapping[str, str] | None:
        # AKS node pools boot AKS's node image (its own versioned upgrade channel).
        return None if cluster else dict(DEFAULT_IMAGE)

    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        mod = _azurerm("provider", props)
        return mod.AzurermProvider(
            scope, "azurerm", features=[{}], subscription_id=props.options.get("subscription_id")
        )

    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        require_supported(self, placement, props)
        size = vm_size(placement)
        emitted = _POOL if props.cluster else _VM
        require_applicable(props, target="azure", emitted=emitted, readers=_OPTION_READERS)
        _zones(props)  # validated before anything is emitted
        if props.cluster:
            return {"node_pool": self._node_pool(scope, placement, size, provider, props)}
        plan = plan_for(placement, props, target="azure", store="azure_key_vault", weights_store="azure_blob")
        mode = expose_mode(
            placement, props, target="azure", serves=plan is not None, unsupported=EXPOSE_UNSUPPORTED
        )
        clients = source_ranges(props.options.get("public_source_ranges"), target="azure", default=[]) or None
        if mode == "public" and clients:
            ipv4_ranges(
                clients,
                target="azure",
                why="the public load balancer's frontend is an IPv4 public IP (the NSG rule would admit "
                "IPv6 clients that cannot reach it)",
                fix="give only IPv4 ranges.",
            )
        account_id = _storage_account_id(props, plan.weights if plan else None)
        rg_name, location = self._resource_group(scope, placement.region, provider, props)
        subnet_id, nsg_name = self._subnet(scope, rg_name, location, provider, props)
        resources = self._vms(scope, placement, size, rg_name, location, subnet_id, provider, props, plan)
        if nsg_name is not None:
            nsg_rules(
                scope,
                rg=rg_name,
                nsg_name=nsg_name,
                mode=mode,
                port=plan.port if plan else 8000,
                source_ranges=clients,
                provider=provider,
                props=props,
            )
        warnings: list[str] = []
        if plan is not None and (plan.secret is not None or plan.api_key is not None):
            warnings += _grant_secret(scope, plan, resources["instances"], provider, props)
        if plan is not None and plan.weights is not None:
            warnings += _grant_weights(
                scope, plan.weights, account_id, resources["instances"], provider, props
            )
        disk = whole_option(props, "os_disk_gb", 256, target="azure", unit="GB")
        why = "no sourced Azure price in the data (data/billed_extras.json)"
        resources["billed"] = unpriced_parts(
            why,
            disks=(f"OS disks (Premium SSD, {placement.instances} x {disk} GB)", placement.instances * disk),
            nat=None if props.options.get("subnet_id") else "NAT gateway and its public IP",
            load_balancer={
                "internal": "Standard load balancer",
                "public": "Standard public load balancer",
            }.get(mode),
        )
        if mode == "public":
            resources["billed"].append(
                unpriced("load balancer public IP (Standard, static)", quantity=1, unit="IP-hour", why=why)
            )
            resources.update(
                public_load_balancer(
                    scope,
                    rg=rg_name,
                    location=location,
                    nics=resources["nics"],
                    port=plan.port if plan else 8000,
                    provider=provider,
                    props=props,
                )
            )
            warnings.append(f"azure: {EXPOSE_LIMITATIONS['public']}.")
            if nsg_name is None:
                warnings.append(
                    "azure: the VMs are in the given subnet_id, whose network security group this stack "
                    f"does not manage: admit TCP {plan.port if plan else 8000} from the clients there, or "
                    "the public load balancer reaches nothing."
                )
        if warnings:
            resources["warnings"] = warnings
        if mode == "internal":
            resources.update(
                internal_load_balancer(
                    scope,
                    rg=rg_name,
                    location=location,
                    subnet_id=subnet_id,
                    nics=resources["nics"],
                    port=plan.port if plan else 8000,
                    provider=provider,
                    props=props,
                )
            )
        if mode != "none":
            resources["expose"] = mode
        if str(_image(props).get("version", "")).lower() == "latest":
            resources["warnings"] = [
                *resources.get("warnings", ()),
                "the image version is 'latest': it resolves to the newest marketplace version at every "
                "plan, and a re-apply can replace every VM. Give an exact version to pin it",
            ]
        return resources

    def _resource_group(self, scope: Any, region: str, provider: Any, props: TargetProps) -> tuple[Any, str]:
        if props.options.get("resource_group_name"):
            return props.options["resource_group_name"], region
        mod = _azurerm("resource_group", props)
        group = mod.ResourceGroup(
            scope,
            "resource-group",
            name=f"{props.name}-rg",
            location=region,
            tags=dict(props.tags),
            provider=provider,
        )
        return group.name, region

    def _subnet(
        self, scope: Any, rg: Any, location: str, provider: Any, props: TargetProps
    ) -> tuple[Any, Any]:
        """The subnet id, and the name of the NSG this stack created for it (None for a given subnet)."""
        if props.options.get("subnet_id"):
            return props.options["subnet_id"], None
        vnet_mod = _azurerm("virtual_network", props)
        subnet_mod = _azurerm("subnet", props)
        nsg_mod = _azurerm("network_security_group", props)
        assoc_mod = _azurerm("subnet_network_security_group_association", props)
        vnet = vnet_mod.VirtualNetwork(
            scope,
            "vnet",
            name=f"{props.name}-vnet",
            resource_group_name=rg,
            location=location,
            address_space=["10.70.0.0/16"],
            tags=dict(props.tags),
            provider=provider,
        )
        subnet = subnet_mod.Subnet(
            scope,
            "subnet",
            name=f"{props.name}-subnet",
            resource_group_name=rg,
            virtual_network_name=vnet.name,
            address_prefixes=["10.70.1.0/24"],
            default_outbound_access_enabled=False,
            provider=provider,
        )
        # Rules as separate resources (nsg_rules): what is admitted, then an explicit deny of the rest.
        nsg = nsg_mod.NetworkSecurityGroup(
            scope,
            "nsg",
            name=f"{props.name}-nsg",
            resource_group_name=rg,
            location=location,
            tags=dict(props.tags),
            provider=provider,
        )
        assoc_mod.SubnetNetworkSecurityGroupAssociation(
            scope, "subnet-nsg", subnet_id=subnet.id, network_security_group_id=nsg.id, provider=provider
        )
        nat_gateway(scope, rg=rg, location=location, subnet_id=subnet.id, provider=provider, props=props)
        return subnet.id, nsg.name

    def _ssh_key(self, scope: Any, props: TargetProps) -> Any:
        if props.options.get("ssh_public_key"):
            return props.options["ssh_public_key"]
        from .._compat import core

        name = re.sub(r"[^A-Za-z0-9_]", "_", f"{props.name}_ssh_public_key")
        variable = core.TerraformVariable(
            scope, "ssh-public-key", type="string", description=f"OpenSSH public key for {props.name}"
        )
        variable.override_logical_id(name)
        return variable.string_value

    def _vms(
        self,
        scope: Any,
        placement: Placement,
        size: str,
        rg: Any,
        location: str,
        subnet_id: Any,
        provider: Any,
        props: TargetProps,
        plan: BootPlan | None = None,
    ) -> dict[str, Any]:
        nic_mod = _azurerm("network_interface", props)
        # Base64 here, not with Terraform's base64encode(): the script holds no Terraform reference
        # (Azure VMs are independent, no rendezvous), and cdktn refuses such long literals in functions.
        custom_data = None
        if plan is not None:
            custom_data = base64.b64encode(cloud_config(boot_script(plan)).encode()).decode("ascii")
        vm_mod = _azurerm("linux_virtual_machine", props)
        spot = placement.pricing == "spot"
        user = str(props.options.get("admin_username", "azureuser"))
        key = self._ssh_key(scope, props)
        tags = {
            **props.tags,
            "computeops-gpu": placement.accelerator,
            "computeops-pricing": placement.pricing,
        }
        vms, nics = [], []
        zones = _zones(props)
        for i in range(placement.instances):
            # No public_ip_address_id: the VM is reachable only from inside the VNet (Bastion, VPN, peering).
            nic = nic_mod.NetworkInterface(
                scope,
                f"nic-{i}",
                name=f"{props.name}-nic-{i}",
                resource_group_name=rg,
                location=location,
                # Struct objects, not dicts: jsii passes dicts inside lists as maps with snake_case keys.
                ip_configuration=[
                    nic_mod.NetworkInterfaceIpConfiguration(
                        name="internal", subnet_id=subnet_id, private_ip_address_allocation="Dynamic"
                    )
                ],
                accelerated_networking_enabled=True,
                tags=tags,
                provider=provider,
            )
            nics.append(nic)
            vms.append(
                vm_mod.LinuxVirtualMachine(
                    scope,
                    f"vm-{i}",
                    name=f"{props.name}-{i}",
                    resource_group_name=rg,
                    location=location,
                    size=size,
                    zone=zones[i % len(zones)] if zones else None,
                    admin_username=user,
                    admin_ssh_key=[vm_mod.LinuxVirtualMachineAdminSshKey(username=user, public_key=key)],
                    disable_password_authentication=True,
                    network_interface_ids=[nic.id],
                    os_disk={
                        "caching": "ReadWrite",
                        "storage_account_type": "Premium_LRS",
                        "disk_size_gb": whole_option(props, "os_disk_gb", 256, target="azure", unit="GB"),
                    },
                    source_image_reference=_image(props),
                    encryption_at_host_enabled=True,
                    # The image ships the NVIDIA driver, so no VM extension is needed (and none may be added).
                    allow_extension_operations=False,
                    identity={"type": "SystemAssigned"},
                    custom_data=custom_data,
                    priority="Spot" if spot else "Regular",
                    eviction_policy="Deallocate" if spot else None,
                    max_bid_price=-1
                    if spot
                    else None,  # -1: pay up to the on-demand price, never evicted on price
                    tags=tags,
                    provider=provider,
                )
            )
        return {"instance": vms[0], "instances": vms, "nics": nics}

    def _node_pool(
        self, scope: Any, placement: Placement, size: str, provider: Any, props: TargetProps
    ) -> Any:
        mod = _azurerm("kubernetes_cluster_node_pool", props)
        spot = placement.pricing == "spot"
        # AKS pool names: lowercase letters and digits, at most 12 characters, starting with a letter.
        name = ("gpu" + re.sub(r"[^a-z0-9]", "", props.name.lower()))[:12]
        return mod.KubernetesClusterNodePool(
            scope,
            "node-pool",
            name=name,
            kubernetes_cluster_id=props.cluster,
            vm_size=size,
            node_count=placement.instances,
            mode="User",
            zones=_zones(props) or None,
            priority="Spot" if spot else "Regular",
            eviction_policy="Delete" if spot else None,
            spot_max_price=-1 if spot else None,
            node_labels=pool_labels(placement, gpu_count(placement)),
            node_taints=[f"{GPU_TAINT_KEY}=present:NoSchedule"],
            host_encryption_enabled=True,
            node_public_ip_enabled=False,
            max_pods=50,
            os_disk_size_gb=whole_option(props, "os_disk_gb", 256, target="azure", unit="GB"),
            vnet_subnet_id=props.options.get("subnet_id"),
            tags=dict(props.tags),
            provider=provider,
        )


def _grant_secret(scope: Any, plan: BootPlan, vms: list[Any], provider: Any, props: TargetProps) -> list[str]:
    """Each VM's identity may read secrets of the named Key Vault (the one holding hf_token_secret and
    api_key_secret), the role assignment named for what the VM reads; without a vault, a warning."""
    vault = props.options.get("key_vault_id")
    if not vault:
        return [
            "azure: the VMs read hf_token_secret / api_key_secret with their system-assigned "
            "identities, and no key_vault_id is given to grant them access. To fix: pass "
            "options={'key_vault_id': '<vault resource id>'}, or grant 'Key Vault Secrets User' to "
            "the identities yourself."
        ]
    reads = [n for n, ref in (("hf-token", plan.secret), ("api-key", plan.api_key)) if ref is not None]
    mod = _azurerm("role_assignment", props)
    for i, vm in enumerate(vms):
        mod.RoleAssignment(
            scope,
            f"read-{'-and-'.join(reads)}-{i}",
            scope=vault,
            role_definition_name="Key Vault Secrets User",
            principal_id=vm.identity.principal_id,
            provider=provider,
        )
    return []


_STORAGE_ACCOUNT_ID = re.compile(
    r"^/subscriptions/[0-9a-fA-F-]{36}/resourceGroups/[-\w.()]{1,90}/providers/"
    r"Microsoft\.Storage/storageAccounts/(?P<account>[a-z0-9]{3,24})$"
)


def _storage_account_id(props: TargetProps, weights: WeightsSource | None) -> str | None:
    """The ``storage_account_id`` option, checked to name the account of ``weights_uri`` (at once,
    before anything is emitted); None when not given."""
    account_id = props.options.get("storage_account_id")
    if account_id is None:
        return None
    if weights is None:
        raise TargetError(
            "azure option 'storage_account_id' applies to weights_uri, which is not given. "
            "To fix: add options={'weights_uri': "
            "'https://<account>.blob.core.windows.net/<container>/<prefix>'}, or drop storage_account_id."
        )
    match = _STORAGE_ACCOUNT_ID.match(account_id) if isinstance(account_id, str) else None
    if match is None or match.group("account") != weights.account:
        raise TargetError(
            f"azure option 'storage_account_id' must be the resource id of storage account "
            f"{weights.account!r}, the account of weights_uri (got {account_id!r}). To fix: "
            f"options={{'storage_account_id': '/subscriptions/<id>/resourceGroups/<rg>/providers/"
            f"Microsoft.Storage/storageAccounts/{weights.account}'}}."
        )
    return str(account_id)


def _grant_weights(
    scope: Any,
    weights: WeightsSource,
    account_id: str | None,
    vms: list[Any],
    provider: Any,
    props: TargetProps,
) -> list[str]:
    """Each VM's identity may read the blobs of the one container of ``weights_uri`` ("Storage Blob Data
    Reader" scoped to that container); without ``storage_account_id``, a warning to grant it."""
    if account_id is None:
        return [
            f"azure: the VMs read weights_uri with their system-assigned identities, and no "
            f"storage_account_id is given to grant them access. To fix: pass options={{'storage_account_id': "
            f"'/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Storage/storageAccounts/"
            f"{weights.account}'}}, or grant 'Storage Blob Data Reader' on container {weights.bucket!r} "
            "yourself."
        ]
    container = f"{account_id}/blobServices/default/containers/{weights.bucket}"
    mod = _azurerm("role_assignment", props)
    for i, vm in enumerate(vms):
        mod.RoleAssignment(
            scope,
            f"read-weights-{i}",
            scope=container,
            role_definition_name="Storage Blob Data Reader",
            principal_id=vm.identity.principal_id,
            provider=provider,
        )
    return []


_ZONE = re.compile(r"^[1-9]$")


def _zones(props: TargetProps) -> list[str]:
    """The validated ``zone`` / ``zones`` options as a list (empty: regional placement)."""
    one, many = props.options.get("zone"), props.options.get("zones")
    if one is not None and many is not None:
        raise TargetError(
            "azure options 'zone' and 'zones' exclude each other. To fix: keep one, e.g. "
            "options={'zones': ['1', '2']} to spread the VMs."
        )
    given = [one] if one is not None else many
    if given is None:
        return []
    ok = isinstance(given, list | tuple) and 0 < len(given) <= 3 and len(set(given)) == len(given)
    if not ok or not all(isinstance(z, str) and _ZONE.match(z) for z in given):
        raise TargetError(
            f"azure option {'zone' if one is not None else 'zones'!r} must name availability zones as "
            f"strings '1', '2' or '3' (got {one if one is not None else many!r}). To fix: e.g. "
            "options={'zones': ['1', '2']}."
        )
    return [str(z) for z in given]


def _azurerm(submodule: str, props: TargetProps) -> Any:
    from .._compat import import_binding

    return import_binding("azurerm", submodule, chosen_by=chosen_by(props))


def _image(props: TargetProps) -> dict[str, str]:
    """The ``image`` option, else the image the lock recorded, else ``DEFAULT_IMAGE``."""
    given = props.options.get("image")
    if given is not None and not isinstance(given, Mapping):
        raise TargetError(
            f"azure option 'image' must be a mapping of publisher, offer, sku and version (got {given!r}). "
            f"To fix: options={{'image': {dict(DEFAULT_IMAGE)!r}}} (the default)"
        )
    return dict(given) if given else dict(props.image or DEFAULT_IMAGE)
