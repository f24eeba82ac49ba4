"""Google Cloud: GPU VMs (A2/A3/A4/G2, N1 + attached GPUs), TPU VMs, or a GKE GPU node pool.

Bindings: ``cdktn-provider-google`` (``hashicorp/google``) for everything but TPUs, and
``cdktn-provider-google-beta`` (``hashicorp/google-beta``) for ``google_tpu_v2_vm``, which the GA
provider 21.x does not have. Both are imported inside ``configure``/``emit`` only, submodule by
submodule, so importing this module costs nothing.

Options: ``GcpTarget.options``. Notes the mapping leaves out: ``project`` defaults to a Terraform
variable so the provider never falls back to the environment's project, and a FedRAMP High decision
holds only for a project in an Assured Workloads FedRAMP High folder (create it there first);
``zones`` is not for multi-node training (its compact placement policy is zonal); TPU VMs join no
instance group, so ``expose`` is ``none`` there (``EXPOSE_UNSUPPORTED``); ``secure_boot=False`` is for
an image whose NVIDIA kernel module is not signed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..engine import Placement
from ..errors import TargetError, described, did_you_mean, did_you_mean_text
from ._base import Target, TargetProps
from ._billed import BilledPart, cloud_nat_parts, priced, unpriced, unpriced_parts
from ._boot import BOOT_OPTIONS, BootPlan, Rendezvous, plan_for
from ._boot_script import boot_script
from ._expose import (
    DOMAIN_OPTION,
    EXPOSE_OPTION,
    SOURCE_RANGES_OPTION,
    domain_option,
    expose_mode,
    ipv4_ranges,
    source_ranges,
)
from ._gcp_machines import GpuMachine, TpuSlice, default_zone, map_instance_type, zones_named
from ._gcp_network import egress_and_iap, internal_load_balancer, public_load_balancer
from ._options import chosen_by, flag_option, require_applicable, whole_option
from ._support import require_supported
from ._unsupported import UNSUPPORTED
from ._weights import WEIGHTS_OPTION
from .k8s import GPU_TAINT_KEY, pool_labels

__all__ = [
    "CHECKOV_SKIPS",
    "DEFAULT_IMAGE",
    "EXPOSE_LIMITATIONS",
    "EXPOSE_UNSUPPORTED",
    "TPU_RUNTIMES",
    "GcpTarget",
]

_TPU_NO_LB = (
    "TPU VMs are not Compute Engine instances and cannot join the instance group a load balancer needs; "
    "the TPU VM's own address is the endpoint output (reach it inside the network)"
)
EXPOSE_UNSUPPORTED: Mapping[str, str] = {"internal": _TPU_NO_LB, "public": _TPU_NO_LB}
"""``expose`` modes the GCP target does not implement on TPU VMs, with the reason (GPU VMs have all)."""
EXPOSE_LIMITATIONS: Mapping[str, str] = {
    "public": "without 'domain' the public load balancer is a TCP passthrough Network Load Balancer: "
    "no TLS listener, the service answers plain HTTP to the admitted client ranges; give 'domain' for an "
    "HTTPS Application Load Balancer with a Google-managed certificate",
}
"""What an implemented ``expose`` mode does not do, with the reason (quoted in the warning)."""

DEFAULT_IMAGE = (
    "projects/deeplearning-platform-release/global/images/common-cu128-ubuntu-2204-nvidia-570-v20260320"
)
"""One image of the Deep Learning VM family ``common-cu128-ubuntu-2204-nvidia-570``, named exactly (a
family resolves to its newest image at every plan, replacing the VMs). Not checked against the live
image list and possibly discontinued: pass ``image`` to choose another (a ``/family/`` path opts in
to a moving image, with a warning). Recorded in the lock entry."""

TPU_RUNTIMES: Mapping[str, str] = {
    "v2": "tpu-ubuntu2204-base",
    "v3": "tpu-ubuntu2204-base",
    "v4": "tpu-ubuntu2204-base",
    "v5litepod": "v2-alpha-tpuv5-lite",
    "v5p": "v2-alpha-tpuv5",
    "v6e": "v2-alpha-tpuv6e",
}
"""Default TPU VM software version per generation (Cloud TPU docs, "TPU software versions")."""

CHECKOV_SKIPS: Mapping[str, str] = {
    "CKV_GCP_38": "boot disks default to Google-managed encryption: a customer key is an account-specific "
    "resource the library cannot invent. Pass the `kms_key_self_link` option and the check passes.",
}
"""checkov checks the emitted GCP resources fail on purpose, with the reason (for ``--skip-check``)."""

_VLLM_TPU_GENERATIONS = ("v5litepod", "v6e")
"""TPU generations (of those the catalog has) vLLM's TPU backend documents serving on."""
_HYPERDISK_ONLY = ("a3-ultragpu", "a4-highgpu")  # these families boot from Hyperdisk only


def _labels(props: TargetProps, extra: Mapping[str, str]) -> dict[str, str]:
    # GCP label keys/values: lowercase letters, digits, '_' and '-', at most 63 characters.
    def clean(text: str) -> str:
        return re.sub(r"[^a-z0-9_-]", "-", text.lower())[:63]

    cleaned = {clean(k): clean(v) for k, v in sorted({**props.tags, **extra}.items())}
    return {k: v for k, v in cleaned.items() if k[:1].isalpha()}


def _resource_name(props: TargetProps, limit: int) -> str:
    """``<name>-gpu`` in the lowercase letters, digits and '-' GCP ids allow, at most ``limit`` long."""
    return re.sub(r"[^a-z0-9-]", "-", f"{props.name}-gpu".lower())[:limit]


class GcpTarget(Target):
    """Google Cloud target: options and defaults in ``options`` (notes in the module docstring)."""

    provider = "gcp"
    extra = "gcp"
    options: Mapping[str, str] = {
        "project": "GCP project id. Default: a Terraform variable gcp_project (TF_VAR_gcp_project).",
        "zone": "zone of the VM / TPU / node locations. Default: the first zone the market data lists.",
        "zones": "zones GPU VMs are spread over round-robin (or the node pool's node_locations). Default: "
        "the one zone.",
        "network": "existing VPC network (name or self link). Default: a new custom-mode network.",
        "subnetwork": "existing subnetwork (name or self link). Default: a new regional subnetwork.",
        "cidr": "range of the new subnetwork. Default: 10.64.0.0/20.",
        "service_account_email": "service account of the VMs. Default: a new one with no roles.",
        "kms_key_self_link": "boot-disk KMS key (GPU VMs only). Default: Google-managed encryption.",
        "image": "boot image (GPU VMs only). Default: DEFAULT_IMAGE (a Deep Learning VM family).",
        "boot_disk_gb": "boot disk size in GB (GPU VMs only). Default: 200.",
        "secure_boot": "Shielded VM secure boot (VMs, TPU VMs, GKE nodes). Default: True.",
        "tpu_runtime_version": "TPU software version (TPU VMs only). Default: per generation.",
        "gke_location": "GKE cluster location (node pools only). Default: the region.",
        "gpu_driver_version": "GKE driver install, LATEST/DEFAULT/INSTALLATION_DISABLED (node pools only). "
        "Default: LATEST.",
        "expose": EXPOSE_OPTION,
        "domain": DOMAIN_OPTION,
        "public_source_ranges": SOURCE_RANGES_OPTION,
        "weights_uri": WEIGHTS_OPTION,
        **BOOT_OPTIONS,
    }
    unsupported = UNSUPPORTED["gcp"]  # declared in _unsupported.py

    def image_reference(self, placement: Placement, *, cluster: bool) -> Mapping[str, str] | None:
        # TPU VMs boot a named runtime version; node pools boot GKE's node image (image_type).
        if cluster or isinstance(map_instance_type(placement), TpuSlice):
            return None
        return {"image": DEFAULT_IMAGE}

    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        mod = _google("provider", props)
        return mod.GoogleProvider(scope, "google", region=region, project=_project(scope, props))

    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        require_supported(self, placement, props)
        machine = map_instance_type(placement)
        zones = _zones(props, placement, default=_zone(props, placement, machine))
        zone = zones[0]
        if props.cluster:
            if isinstance(machine, TpuSlice):
                raise TargetError(
                    f"gcp target cannot express 'tpu_node_pool': {self.unsupported['tpu_node_pool']}. "
                    "To fix: drop `cluster=` to get a TPU VM."
                )
            require_applicable(props, target="gcp", emitted=_POOL, readers=_OPTION_READERS)
            return {"node_pool": self._node_pool(scope, placement, machine, zones, provider, props)}
        emitted = _TPU if isinstance(machine, TpuSlice) else _VM
        require_applicable(props, target="gcp", emitted=emitted, readers=_OPTION_READERS)
        tpu = isinstance(machine, TpuSlice)
        plan = plan_for(
            placement, props, target="gcp", store="gcp_secret_manager", weights_store="gcs", tpu=tpu
        )
        mode = expose_mode(
            placement,
            props,
            target="gcp",
            serves=plan is not None,
            unsupported=EXPOSE_UNSUPPORTED if tpu else {},
        )
        domain = domain_option(props.options.get("domain"), target="gcp")
        clients = source_ranges(
            props.options.get("public_source_ranges"), target="gcp", default=["0.0.0.0/0"]
        )
        if mode == "public" and domain is None:
            # The passthrough rule's address is IPv4 and its firewall rule already holds the IPv4 probe
            # ranges; Cloud Armor (with a domain) matches either family, so IPv6 stays valid there.
            ipv4_ranges(
                clients,
                target="gcp",
                why="without 'domain' the service is an external passthrough Network Load Balancer on an "
                "IPv4 address, admitted by a VPC firewall rule that already lists Google's IPv4 probe ranges "
                "and cannot mix IPv4 and IPv6 ranges",
                fix="give only IPv4 ranges, or set 'domain' (HTTPS load balancer, where Cloud Armor "
                "admits IPv6 ranges too).",
            )
        network, subnetwork, cidr = self._network(scope, placement.region, provider, props)
        email = self._service_account(scope, provider, props)
        _grant_reads(scope, plan, email, provider, props)
        if cidr is not None and placement.instances > 1 and _trains(placement, plan, props):
            _cluster_traffic(scope, network, cidr, email, provider, props)
        if isinstance(machine, TpuSlice):
            return self._tpus(scope, placement, machine, zone, (network, subnetwork), email, props, plan)
        if len(zones) > 1 and _trains(placement, plan, props) and placement.instances > 1:
            raise TargetError(
                "gcp option 'zones' cannot spread a multi-node training job: its VMs share a compact "
                "placement policy (one zone, one low-latency spine) and every step crosses between them. "
                "To fix: drop 'zones' (or give one 'zone')."
            )
        resources = self._vms(scope, placement, machine, zones, subnetwork, email, provider, props, plan)
        size = whole_option(props, "boot_disk_gb", 200, target="gcp", unit="GB")
        why = "no sourced GCP price in the data (data/billed_extras.json)"
        own_network = props.options.get("network") or props.options.get("subnetwork")
        lb_part = {
            "internal": "internal load balancer forwarding rule",
            # The HTTPS load balancer's rule is global and priced below; the passthrough one is regional.
            "public": None if domain else "external load balancer forwarding rule",
        }
        resources["billed"] = unpriced_parts(
            why,
            disks=(f"boot disks ({placement.instances} x {size} GB)", placement.instances * size),
            nat=None,
            load_balancer=lb_part.get(mode),
        )
        if not own_network:  # the Cloud NAT this target creates, at Google's list price (every region)
            resources["billed"][1:1] = cloud_nat_parts(placement.instances, placement.region)
        if mode == "public":
            armored = domain is not None and props.options.get("public_source_ranges") is not None
            resources["billed"] += _public_parts(https=domain is not None, why=why, armor=armored)
            resources.update(
                public_load_balancer(
                    scope,
                    region=placement.region,
                    zones=zones,
                    network=network,
                    instances=resources["instances"],
                    port=plan.port if plan else 8000,
                    domain=domain,
                    source_ranges=clients,
                    restrict=props.options.get("public_source_ranges") is not None,
                    provider=provider,
                    props=props,
                )
            )
            if domain is None:
                resources["warnings"] = [f"gcp: {EXPOSE_LIMITATIONS['public']}."]
        if mode == "internal":
            resources.update(
                internal_load_balancer(
                    scope,
                    region=placement.region,
                    zones=zones,
                    network=network,
                    subnetwork=subnetwork,
                    cidr=cidr,
                    instances=resources["instances"],
                    port=plan.port if plan else 8000,
                    provider=provider,
                    props=props,
                )
            )
        if mode != "none":
            resources["expose"] = mode
        moving = moving_image_warning(_image(props))
        if moving is not None:
            resources["warnings"] = [*resources.get("warnings", ()), moving]
        return resources

    def _network(
        self, scope: Any, region: str, provider: Any, props: TargetProps
    ) -> tuple[Any, Any, str | None]:
        if props.options.get("subnetwork"):
            return props.options.get("network"), props.options["subnetwork"], None
        net_mod = _google("compute_network", props)
        sub_mod = _google("compute_subnetwork", props)
        network = props.options.get("network")
        created = not network
        if not network:
            network = net_mod.ComputeNetwork(
                scope, "network", name=f"{props.name}-net", auto_create_subnetworks=False, provider=provider
            ).id
            # The VPC already denies ingress implicitly; an explicit lowest-priority deny-all rule makes
            # that visible (and auditable) in the stack.
            fw_mod = _google("compute_firewall", props)
            fw_mod.ComputeFirewall(
                scope,
                "deny-ingress",
                name=f"{props.name}-deny-ingress",
                network=network,
                direction="INGRESS",
                priority=65534,
                source_ranges=["0.0.0.0/0"],
                deny=[fw_mod.ComputeFirewallDeny(protocol="all")],
                log_config={"metadata": "INCLUDE_ALL_METADATA"},
                provider=provider,
            )
        subnet = sub_mod.ComputeSubnetwork(
            scope,
            "subnetwork",
            name=f"{props.name}-subnet",
            region=region,
            network=network,
            ip_cidr_range=str(props.options.get("cidr", "10.64.0.0/20")),
            private_ip_google_access=True,
            log_config={
                "aggregation_interval": "INTERVAL_5_SEC",
                "flow_sampling": 0.5,
                "metadata": "INCLUDE_ALL_METADATA",
            },
            provider=provider,
        )
        if created:
            egress_and_iap(
                scope, region=region, network=network, subnetwork=subnet.id, provider=provider, props=props
            )
        return network, subnet.id, str(props.options.get("cidr", "10.64.0.0/20"))

    def _service_account(self, scope: Any, provider: Any, props: TargetProps) -> str:
        if props.options.get("service_account_email"):
            return str(props.options["service_account_email"])
        mod = _google("service_account", props)
        account_id = _resource_name(props, 30).strip("-")
        account = mod.ServiceAccount(
            scope,
            "service-account",
            account_id=account_id.rjust(6, "x"),
            display_name=f"computeops-cdk {props.name} (no roles granted)",
            provider=provider,
        )
        return str(account.email)

    def _vms(
        self,
        scope: Any,
        placement: Placement,
        machine: GpuMachine,
        zones: list[str],
        subnetwork: Any,
        email: str,
        provider: Any,
        props: TargetProps,
        plan: BootPlan | None = None,
    ) -> dict[str, Any]:
        mod = _google("compute_instance", props)
        spot = placement.pricing == "spot"
        policies = (
            _compact_placement(scope, placement, provider, props) if _trains(placement, plan, props) else []
        )
        disk_type = "hyperdisk-balanced" if machine.family in _HYPERDISK_ONLY else "pd-balanced"
        labels = _labels(props, {"computeops-gpu": machine.gpu, "computeops-pricing": placement.pricing})
        instances: list[Any] = []
        training = placement.instances > 1 and plan is not None and not plan.serves
        for i in range(placement.instances):
            metadata = {
                "block-project-ssh-keys": "true",
                "enable-oslogin": "TRUE",
                "serial-port-enable": "false",
            }
            if plan is not None:
                # Rank i finds rank 0 at its private address (rank 0 uses its own).
                first = instances[0].network_interface.get(0).network_ip if i else ""
                rendezvous = (
                    Rendezvous(rank=i, master_addr=first, nodes=placement.instances) if training else None
                )
                metadata["startup-script"] = boot_script(plan, rendezvous=rendezvous)
            instance = mod.ComputeInstance(
                scope,
                f"instance-{i}",
                name=f"{props.name}-{i}",
                zone=zones[i % len(zones)],
                machine_type=machine.machine_type,
                boot_disk={
                    "initialize_params": {
                        "image": _image(props),
                        "size": whole_option(props, "boot_disk_gb", 200, target="gcp", unit="GB"),
                        "type": disk_type,
                    },
                    "kms_key_self_link": props.options.get("kms_key_self_link"),
                },
                # No access_config block: no external IP. Reach the VM through IAP or a bastion.
                network_interface=[mod.ComputeInstanceNetworkInterface(subnetwork=subnetwork)],
                guest_accelerator=(
                    [mod.ComputeInstanceGuestAccelerator(type=machine.accelerator_type, count=machine.count)]
                    if machine.attach
                    else None
                ),
                scheduling={
                    # GPU VMs cannot live-migrate: host maintenance must stop them.
                    "on_host_maintenance": "TERMINATE",
                    "automatic_restart": not spot,
                    "preemptible": spot,
                    "provisioning_model": "SPOT" if spot else "STANDARD",
                    "instance_termination_action": "STOP" if spot else None,
                },
                shielded_instance_config={
                    "enable_secure_boot": flag_option(props, "secure_boot", True, target="gcp"),
                    "enable_vtpm": True,
                    "enable_integrity_monitoring": True,
                },
                metadata=metadata,
                service_account={"email": email, "scopes": ["cloud-platform"]},
                resource_policies=policies or None,
                labels=labels,
                provider=provider,
            )
            instances.append(instance)
        return {"instance": instances[0], "instances": instances}

    def _tpus(
        self,
        scope: Any,
        placement: Placement,
        tpu: TpuSlice,
        zone: str,
        network: tuple[Any, Any],
        email: str,
        props: TargetProps,
        plan: BootPlan | None = None,
    ) -> dict[str, Any]:
        mod = _google("google_tpu_v2_vm", props, "google_beta")
        beta = _beta_provider(scope, placement.region, props)
        runtime = str(props.options.get("tpu_runtime_version", TPU_RUNTIMES[tpu.generation]))
        spot = placement.pricing == "spot"
        labels = _labels(
            props, {"computeops-tpu": tpu.accelerator_type, "computeops-pricing": placement.pricing}
        )
        slices = placement.instances
        vms: list[Any] = []
        for i in range(slices):
            metadata = None
            if plan is not None:
                # Every host of a slice runs the startup script; several slices meet at slice 0.
                first = vms[0].network_endpoints.get(0).ip_address if i else ""
                together = slices > 1 and not plan.serves
                rendezvous = Rendezvous(rank=i, master_addr=first, nodes=slices) if together else None
                metadata = {"startup-script": boot_script(plan, rendezvous=rendezvous)}
            vm = mod.GoogleTpuV2Vm(
                scope,
                f"tpu-{i}",
                name=f"{props.name}-{i}",
                zone=zone,
                accelerator_type=tpu.accelerator_type,
                runtime_version=runtime,
                network_config={
                    "network": network[0],
                    "subnetwork": network[1],
                    "enable_external_ips": False,
                },
                scheduling_config={"spot": True} if spot else None,
                shielded_instance_config={
                    "enable_secure_boot": flag_option(props, "secure_boot", True, target="gcp")
                },
                service_account={"email": email, "scope": ["https://www.googleapis.com/auth/cloud-platform"]},
                metadata=metadata,
                labels=labels,
                provider=beta,
            )
            vms.append(vm)
        resources: dict[str, Any] = {"tpu": vms[0], "tpus": vms}
        if plan is not None and plan.serves:
            address = vms[0].network_endpoints.get(0).ip_address
            resources["endpoint"] = f"http://{address}:{plan.port}"
            if tpu.generation not in _VLLM_TPU_GENERATIONS and plan.user_data is None:
                resources["warnings"] = [
                    "gcp: vLLM's TPU backend documents TPU v5e, v6e and v7x (vllm-project/tpu-inference "
                    f"docs/getting_started/quickstart.md); {tpu.accelerator_type} is not among them, so "
                    "the generated server may not start. To fix: constrain the intent to v5e/v6e, or "
                    "pass options={'user_data': ...} with your own server."
                ]
        return resources

    def _node_pool(
        self,
        scope: Any,
        placement: Placement,
        machine: GpuMachine,
        zones: list[str],
        provider: Any,
        props: TargetProps,
    ) -> Any:
        mod = _google("container_node_pool", props)
        spot = placement.pricing == "spot"
        return mod.ContainerNodePool(
            scope,
            "node-pool",
            name=_resource_name(props, 40),
            cluster=props.cluster,
            location=str(props.options.get("gke_location", placement.region)),
            node_locations=zones,
            node_count=placement.instances,
            management={"auto_repair": True, "auto_upgrade": True},
            node_config={
                "machine_type": machine.machine_type,
                # Struct objects, not dicts: jsii does not convert dicts inside lists to structs and
                # would drop multi-word keys such as gpu_driver_installation_config.
                "guest_accelerator": [
                    mod.ContainerNodePoolNodeConfigGuestAccelerator(
                        type=machine.accelerator_type,
                        count=machine.count,
                        gpu_driver_installation_config={
                            "gpu_driver_version": str(props.options.get("gpu_driver_version", "LATEST"))
                        },
                    )
                ],
                "spot": spot,
                "image_type": "COS_CONTAINERD",
                # The catalog accelerator id, as the workload's node selector has it (the market-data
                # GPU name, "h100" for an "H100-SXM", left the workload's pods pending).
                "labels": pool_labels(placement, machine.count),
                "taint": [
                    mod.ContainerNodePoolNodeConfigTaint(
                        key=GPU_TAINT_KEY, value="present", effect="NO_SCHEDULE"
                    )
                ],
                "shielded_instance_config": {
                    "enable_secure_boot": flag_option(props, "secure_boot", True, target="gcp"),
                    "enable_integrity_monitoring": True,
                },
                "workload_metadata_config": {"mode": "GKE_METADATA"},
                "metadata": {"disable-legacy-endpoints": "true"},
                "resource_labels": _labels(props, {"computeops-gpu": machine.gpu}),
            },
            provider=provider,
        )


# Options that only some kinds of machine read; every other option applies to all of them.
_VM, _TPU, _POOL = "GPU VMs", "TPU VMs", "GKE node pools"
_OPTION_READERS: Mapping[str, tuple[str, ...]] = {
    "network": (_VM, _TPU),
    "subnetwork": (_VM, _TPU),
    "cidr": (_VM, _TPU),
    "service_account_email": (_VM, _TPU),
    "image": (_VM,),
    "kms_key_self_link": (_VM,),
    "boot_disk_gb": (_VM,),
    "tpu_runtime_version": (_TPU,),
    "gke_location": (_POOL,),
    "zones": (_VM, _POOL),
    "gpu_driver_version": (_POOL,),
    "expose": (_VM, _TPU),
    "domain": (_VM,),
    "public_source_ranges": (_VM,),
    "weights_uri": (_VM, _TPU),
    # model_url and command: the Kubernetes layer reads them on a cluster.
    **{key: (_VM, _TPU) for key in BOOT_OPTIONS if key not in ("model_url", "command")},
}


ARMOR_UNPRICED = (
    "Cloud Armor Standard bills per policy, per rule and per request (Google's Cloud Armor Enterprise "
    "overview, cloud.google.com/armor/docs/managed-protection-overview: Standard 'Per policy, per rule, per "
    "request (see Pricing)'); the figures of cloud.google.com/armor/pricing were not found in a stored copy "
    "here, so no price is given"
)


def _public_parts(*, https: bool, why: str, armor: bool = False) -> list[BilledPart]:
    """The billed parts of a public load balancer besides the rule ``unpriced_parts`` lists: the global
    forwarding rule of the HTTPS load balancer (a sourced price), its data processing, the address, and
    the Cloud Armor policy when ``armor``."""
    parts = [unpriced("static external IP address", quantity=1, unit="address-hour", why=why)]
    if armor:
        parts.append(
            unpriced("Cloud Armor security policy (Standard)", quantity=1, unit="policy", why=ARMOR_UNPRICED)
        )
    if https:
        parts.insert(
            0,
            priced(
                "gcp",
                "global_forwarding_rule_hour",
                "global",
                part="global external load balancer forwarding rule",
                quantity=1,
            ),
        )
        parts.append(
            unpriced(
                "load balancer data processing",
                quantity=0,
                unit="GiB",
                why="billed per GiB the load balancer processes: depends on traffic the stack cannot know",
            )
        )
    return parts


def _in_region(zone: object, region: str) -> bool:
    """``zone`` is a zone name of ``region``: ``<region>-<letter>``."""
    return isinstance(zone, str) and re.fullmatch(rf"{re.escape(region)}-[a-z]", zone) is not None


def _zone_hint(zone: object, region: str) -> str:
    """Why ``zone`` is not one of ``region``'s and what it may have meant (the zones the data names)."""
    if not isinstance(zone, str):
        return ""
    close = did_you_mean(zone, zones_named(region))
    other = re.fullmatch(r"([a-z]+-[a-z]+[0-9]+)-[a-z]", zone)
    if close or not other or other[1] == region:
        return did_you_mean_text(close)
    return f": {zone!r} is in region {other[1]}, not the decision's"


def _zone(props: TargetProps, placement: Placement, machine: GpuMachine | TpuSlice) -> str:
    """The validated ``zone`` option (a zone of the decision's region), else the market data's zone."""
    given = props.options.get("zone")
    default = default_zone(placement, machine)
    if given is None:
        return default
    region = placement.region
    if not _in_region(given, region):
        raise TargetError(
            f"gcp option 'zone' must be a zone of region {region} (the decision's), "
            f"'{region}-<letter>' (got {described(given)}){_zone_hint(given, region)}. To fix: e.g. "
            f"options={{'zone': '{default}'}} (the market data's zone), or drop 'zone'."
        )
    return str(given)


def _zones(props: TargetProps, placement: Placement, *, default: str) -> list[str]:
    """The validated ``zones`` option (zones of the placement's region), else ``[default]``."""
    given = props.options.get("zones")
    if given is None:
        return [default]
    region = placement.region
    ok = isinstance(given, list | tuple) and 0 < len(given) <= 8
    if not ok or len(set(map(repr, given))) != len(given) or not all(_in_region(z, region) for z in given):
        bad = next((z for z in given if not _in_region(z, region)), None) if ok else None
        hint = _zone_hint(bad, region)
        raise TargetError(
            f"gcp option 'zones' must list distinct zones of region {region} (got {described(given)})"
            f"{hint}. To fix: e.g. options={{'zones': ['{region}-a', '{region}-b']}}, zones that offer "
            "the machine type."
        )
    if props.options.get("zone") is not None:
        raise TargetError(
            "gcp options 'zone' and 'zones' exclude each other. To fix: keep one, e.g. "
            f"options={{'zones': {list(given)!r}}}."
        )
    return [str(z) for z in given]


def _trains(placement: Placement, plan: BootPlan | None, props: TargetProps) -> bool:
    """The VMs run one training or fine-tuning job (they talk to each other), rather than serve."""
    if plan is not None:
        return not plan.serves
    return props.workload_type in ("training", "fine_tuning") or (
        props.workload_type is None and placement.unit_cost.unit == "usd_per_training_step"
    )


def _compact_placement(scope: Any, placement: Placement, provider: Any, props: TargetProps) -> list[str]:
    """A collocated resource policy for the VMs of one multi-node training job (NCCL's all-reduce
    crosses the spine every step); none for a single VM. Never for serving replicas: one spine would
    be one failure domain for the whole service, and they exchange nothing latency-bound."""
    if placement.instances <= 1:
        return []
    mod = _google("compute_resource_policy", props)
    policy = mod.ComputeResourcePolicy(
        scope,
        "placement",
        name=f"{props.name}-compact",
        region=placement.region,
        group_placement_policy={"collocation": "COLLOCATED", "vm_count": placement.instances},
        provider=provider,
    )
    return [policy.id]


def _project(scope: Any, props: TargetProps) -> Any:
    """The ``project`` option, else the stack's ``gcp_project`` Terraform variable (created once)."""
    if props.options.get("project"):
        return props.options["project"]
    from .._compat import TerraformStack, core

    stack = TerraformStack.of(scope)
    existing = stack.node.try_find_child("gcp_project")
    if existing is None:
        existing = core.TerraformVariable(
            stack,
            "gcp_project",
            type="string",
            description="GCP project id the stack deploys into (TF_VAR_gcp_project).",
        )
    return existing.string_value


def _grant_reads(scope: Any, plan: BootPlan | None, email: str, provider: Any, props: TargetProps) -> None:
    """Read access for the VMs' service account to what the boot script reads, nothing else: the
    secrets holding the Hugging Face token and the API key, and the bucket of ``weights_uri``
    (``objectViewer`` on that bucket: GCS grants on buckets, not on prefixes, without IAM conditions)."""
    if plan is None:
        return
    for construct_id, secret in (("read-hf-token", plan.secret), ("read-api-key", plan.api_key)):
        if secret is None:
            continue
        _google("secret_manager_secret_iam_member", props).SecretManagerSecretIamMember(
            scope,
            construct_id,
            secret_id=secret.id.split("/versions/")[0],
            role="roles/secretmanager.secretAccessor",
            member=f"serviceAccount:{email}",
            provider=provider,
        )
    if plan.weights is not None:
        _google("storage_bucket_iam_member", props).StorageBucketIamMember(
            scope,
            "read-weights",
            bucket=plan.weights.bucket,
            role="roles/storage.objectViewer",
            member=f"serviceAccount:{email}",
            provider=provider,
        )


def _google(submodule: str, props: TargetProps, binding: str = "google") -> Any:
    from .._compat import import_binding

    return import_binding(binding, submodule, chosen_by=chosen_by(props))


def _beta_provider(scope: Any, region: str, props: TargetProps) -> Any:
    """The stack's google-beta provider, created once: a second unaliased block is a Terraform error."""
    from .._compat import TerraformStack

    stack = TerraformStack.of(scope)
    for node in stack.node.find_all():
        if getattr(node, "terraform_resource_type", None) == "google-beta":
            return node
    mod = _google("provider", props, "google_beta")
    return mod.GoogleBetaProvider(stack, "google-beta", region=region, project=_project(scope, props))


def _image(props: TargetProps) -> str:
    """The boot image: the ``image`` option, else the one the lock recorded, else ``DEFAULT_IMAGE``."""
    recorded = (props.image or {}).get("image")
    return str(props.options.get("image") or recorded or DEFAULT_IMAGE)


def moving_image_warning(image: str) -> str | None:
    """A warning when ``image`` is an image family (it resolves to the family's newest image at each
    plan, so the VMs move between plans); None for an exact image."""
    if "/family/" not in image and not image.startswith("family/"):
        return None
    return (
        f"the boot image {image!r} is an image family: it resolves to the newest image at every plan, "
        "and a re-apply can replace every VM. Give an exact image name to pin it"
    )


def _cluster_traffic(
    scope: Any, network: Any, cidr: str, email: str, provider: Any, props: TargetProps
) -> None:
    """Multi-node training in the network the target created: the nodes reach each other (torch's
    rendezvous on 29500, NCCL's and XLA's dynamic ports), which the deny-all rule would block. Only
    from the subnetwork's range, only to the stack's own service account."""
    fw_mod = _google("compute_firewall", props)
    fw_mod.ComputeFirewall(
        scope,
        "cluster-traffic",
        name=f"{props.name}-cluster-traffic",
        network=network,
        direction="INGRESS",
        priority=1000,
        source_ranges=[cidr],
        target_service_accounts=[email],
        allow=[fw_mod.ComputeFirewallAllow(protocol="all")],
        log_config={"metadata": "INCLUDE_ALL_METADATA"},
        provider=provider,
    )
