"""Typed Terraform providers, resources and data sources for providers without a prebuilt binding.

OCI, CoreWeave, Lambda, Nebius, Crusoe, RunPod and Vast.ai have no ``cdktn-provider-*`` package, so
their few resources are written here on cdktn's generic classes: typed keyword arguments named like the
provider schema's attributes, synthesized through ``_synthesize_attributes`` (jsii's
``synthesizeAttributes`` hook) with ``None`` values left out. Each base class is that of the scope's
core (``_compat.FrameworkBound``). This module imports the CDK runtime at import time, so target
modules import it lazily, inside ``configure``/``emit``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import jsii

from .. import _compat
from .._compat import FrameworkBound

__all__ = [
    "PROVIDER_SOURCES",
    "CrusoeComputeInstance",
    "CrusoeIbPartition",
    "GenericDataSource",
    "GenericProvider",
    "GenericResource",
    "KubernetesManifest",
    "LambdalabsInstance",
    "NebiusComputeInstance",
    "NebiusGpuCluster",
    "OciCoreInstance",
    "RunpodPod",
    "VastaiGpuOffers",
    "VastaiInstance",
    "option_or_variable",
    "provider_for",
]

PROVIDER_SOURCES: Mapping[str, tuple[str, str]] = {
    # local name -> (registry source, version constraint)
    "oci": ("oracle/oci", "~> 7.19"),
    "coreweave": ("coreweave/coreweave", "~> 0.21"),
    "lambdalabs": ("elct9620/lambdalabs", "~> 0.8"),
    "nebius": ("nebius/nebius", "~> 0.6"),
    "crusoe": ("crusoecloud/crusoe", "~> 1.1"),
    "runpod": ("runpod/runpod", "~> 2.0"),
    "vastai": ("realnedsanders/vastai", "~> 0.3"),
    "kubernetes": ("hashicorp/kubernetes", "~> 3.0"),
}
"""Terraform source and version constraint of each generic provider (TARGETS.md says where each was read)."""


def _clean(value: Any) -> Any:
    # Drop None recursively: Terraform treats an absent attribute as "use the default", null can differ.
    if isinstance(value, Mapping):
        return {k: _clean(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value if v is not None]
    return value


class GenericProvider(metaclass=FrameworkBound):
    """A provider block for ``local_name`` (a key of ``PROVIDER_SOURCES``) with the given attributes.

    Credentials never go here: every provider in ``PROVIDER_SOURCES`` reads them from its environment
    variables (documented per target).
    """

    __core_base__ = "TerraformProvider"

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any: ...  # the core base's members (jsii runtime)

    def __init__(self, scope: Any, id: str, *, local_name: str, attributes: Mapping[str, Any] | None = None):
        source, version = PROVIDER_SOURCES[local_name]
        self._alias_value: str | None = None
        super().__init__(  # type: ignore[call-arg]  # TerraformProvider's
            scope,
            id,
            terraform_resource_type=local_name,
            terraform_provider_source=source,
            terraform_generator_metadata={
                "provider_name": local_name,
                "provider_version_constraint": version,
            },
        )
        self._attributes = _clean(dict(attributes or {}))

    # The core class leaves `alias` storage to generated subclasses; keep it here, overriding the jsii
    # member so the core's `fqn` (used in resources' `provider = "oci.<alias>"`) sees it too.
    @property
    @jsii.member(jsii_name="alias")
    def alias(self) -> str | None:
        return self._alias_value

    @alias.setter
    def alias(self, value: str | None) -> None:
        self._alias_value = value

    def _synthesize_attributes(self) -> Mapping[str, Any]:
        alias = self._alias_value
        return {**self._attributes, "alias": alias} if alias else dict(self._attributes)


class GenericResource(metaclass=FrameworkBound):
    """A resource of Terraform type ``resource_type`` with attributes named as in the provider schema."""

    __core_base__ = "TerraformResource"

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any: ...  # the core base's members (jsii runtime)

    def __init__(
        self, scope: Any, id: str, *, resource_type: str, provider: Any, attributes: Mapping[str, Any]
    ):
        super().__init__(scope, id, terraform_resource_type=resource_type, provider=provider)  # type: ignore[call-arg]
        self._attributes = _clean(dict(attributes))

    def _synthesize_attributes(self) -> Mapping[str, Any]:
        return dict(self._attributes)

    def attr(self, name: str) -> str:
        """A reference to attribute ``name`` (e.g. ``id``), as a token usable in other resources."""
        return str(self.get_string_attribute(name))


class GenericDataSource(metaclass=FrameworkBound):
    """A data source of Terraform type ``data_type`` with attributes named as in the provider schema."""

    __core_base__ = "TerraformDataSource"

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any: ...  # the core base's members (jsii runtime)

    def __init__(self, scope: Any, id: str, *, data_type: str, provider: Any, attributes: Mapping[str, Any]):
        super().__init__(scope, id, terraform_resource_type=data_type, provider=provider)  # type: ignore[call-arg]
        self._attributes = _clean(dict(attributes))

    def _synthesize_attributes(self) -> Mapping[str, Any]:
        return dict(self._attributes)

    def attr(self, path: str) -> str:
        """A reference to attribute ``path`` (e.g. ``most_affordable.id``) as a token."""
        return str(self.get_string_attribute(path))

    def number_attr(self, path: str) -> Any:
        """A numeric reference to attribute ``path`` (a number token)."""
        return self.get_number_attribute(path)


def provider_for(scope: Any, local_name: str, attributes: Mapping[str, Any] | None = None) -> GenericProvider:
    """The stack's provider block for ``local_name``, created once per stack (for stand-alone use).

    Targets' ``configure`` creates a fresh block in the scope it is given instead: the construct keeps
    one block per provider and region and aliases the extra ones, which a shared block would break.
    """
    stack = _compat.TerraformStack.of(scope)
    for node in stack.node.find_all():
        if isinstance(node, GenericProvider) and node.terraform_resource_type == local_name:
            return node
    return GenericProvider(stack, f"provider-{local_name}", local_name=local_name, attributes=attributes)


# --- typed resources (attribute names as in each provider's docs; see TARGETS.md for verification) ---


class OciCoreInstance(GenericResource):
    """``oci_core_instance`` (oracle/oci ``website/docs/r/core_instance.html.markdown``)."""

    def __init__(
        self,
        scope: Any,
        id: str,
        *,
        provider: Any,
        availability_domain: str,
        compartment_id: str,
        shape: str,
        display_name: str,
        source_details: Mapping[str, Any],
        create_vnic_details: Mapping[str, Any],
        metadata: Mapping[str, str] | None = None,
        preemptible_instance_config: Mapping[str, Any] | None = None,
        freeform_tags: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            scope, id, resource_type="oci_core_instance", provider=provider, attributes=locals_of(locals())
        )


class LambdalabsInstance(GenericResource):
    """``lambdalabs_instance`` (elct9620/lambdalabs ``docs/resources/instance.md``)."""

    def __init__(
        self,
        scope: Any,
        id: str,
        *,
        provider: Any,
        region_name: str,
        instance_type_name: str,
        ssh_key_names: Sequence[str],
        name: str | None = None,
    ) -> None:
        super().__init__(
            scope, id, resource_type="lambdalabs_instance", provider=provider, attributes=locals_of(locals())
        )


class NebiusComputeInstance(GenericResource):
    """``nebius_compute_v1_instance`` (nebius/nebius ``docs/resources/compute_v1_instance.md``)."""

    def __init__(
        self,
        scope: Any,
        id: str,
        *,
        provider: Any,
        parent_id: str,
        name: str,
        resources: Mapping[str, str],
        boot_disk: Mapping[str, Any],
        network_interfaces: Sequence[Mapping[str, Any]],
        gpu_cluster: Mapping[str, Any] | None = None,
        preemptible: Mapping[str, Any] | None = None,
        labels: Mapping[str, str] | None = None,
        cloud_init_user_data: str | None = None,
    ) -> None:
        super().__init__(
            scope,
            id,
            resource_type="nebius_compute_v1_instance",
            provider=provider,
            attributes=locals_of(locals()),
        )


class NebiusGpuCluster(GenericResource):
    """``nebius_compute_v1_gpu_cluster`` (nebius/nebius ``docs/resources/compute_v1_gpu_cluster.md``)."""

    def __init__(
        self, scope: Any, id: str, *, provider: Any, parent_id: str, name: str, infiniband_fabric: str
    ):
        super().__init__(
            scope,
            id,
            resource_type="nebius_compute_v1_gpu_cluster",
            provider=provider,
            attributes=locals_of(locals()),
        )


class CrusoeComputeInstance(GenericResource):
    """``crusoe_compute_instance`` (crusoecloud/crusoe ``docs/resources/compute_instance.md``)."""

    def __init__(
        self,
        scope: Any,
        id: str,
        *,
        provider: Any,
        name: str,
        type: str,
        ssh_key: str,
        location: str,
        image: str,
        network_interfaces: Sequence[Mapping[str, Any]] | None = None,
        host_channel_adapters: Sequence[Mapping[str, Any]] | None = None,
        project_id: str | None = None,
        startup_script: str | None = None,
    ) -> None:
        super().__init__(
            scope,
            id,
            resource_type="crusoe_compute_instance",
            provider=provider,
            attributes=locals_of(locals()),
        )


class CrusoeIbPartition(GenericResource):
    """``crusoe_ib_partition`` (crusoecloud/crusoe ``docs/resources/ib_partition.md``)."""

    def __init__(
        self,
        scope: Any,
        id: str,
        *,
        provider: Any,
        name: str,
        ib_network_id: str,
        project_id: str | None = None,
    ) -> None:
        super().__init__(
            scope, id, resource_type="crusoe_ib_partition", provider=provider, attributes=locals_of(locals())
        )


class RunpodPod(GenericResource):
    """``runpod_pod`` of provider 2.0 (runpod/docs ``integrations/terraform/overview.mdx``)."""

    def __init__(
        self,
        scope: Any,
        id: str,
        *,
        provider: Any,
        name: str,
        image: str,
        gpu_type_id: str,
        gpu_count: int,
        cloud: str,
        disk: int,
        data_center_ids: Sequence[str] | None = None,
        ports: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        args: str | None = None,
    ) -> None:
        super().__init__(
            scope, id, resource_type="runpod_pod", provider=provider, attributes=locals_of(locals())
        )


class VastaiGpuOffers(GenericDataSource):
    """``data.vastai_gpu_offers`` (realnedsanders/vastai ``docs/data-sources/gpu_offers.md``)."""

    def __init__(
        self,
        scope: Any,
        id: str,
        *,
        provider: Any,
        gpu_name: str,
        num_gpus: int,
        max_price_per_hour: float | None = None,
        region: str | None = None,
        datacenter_only: bool = True,
        offer_type: str = "on-demand",
        order_by: str = "dph_total",
        limit: int = 10,
    ) -> None:
        super().__init__(
            scope, id, data_type="vastai_gpu_offers", provider=provider, attributes=locals_of(locals())
        )


class VastaiInstance(GenericResource):
    """``vastai_instance`` (realnedsanders/vastai ``docs/resources/instance.md``)."""

    def __init__(
        self,
        scope: Any,
        id: str,
        *,
        provider: Any,
        offer_id: Any,
        disk_gb: int,
        image: str,
        label: str | None = None,
        bid_price: Any = None,
        cancel_unavail: bool | None = None,
        onstart: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            scope, id, resource_type="vastai_instance", provider=provider, attributes=locals_of(locals())
        )


class KubernetesManifest(GenericResource):
    """``kubernetes_manifest`` (hashicorp/kubernetes): one Kubernetes object given as a dict."""

    def __init__(self, scope: Any, id: str, *, provider: Any, manifest: Mapping[str, Any]) -> None:
        super().__init__(
            scope, id, resource_type="kubernetes_manifest", provider=provider, attributes=locals_of(locals())
        )


def locals_of(values: Mapping[str, Any]) -> dict[str, Any]:
    """The Terraform attributes among a typed constructor's ``locals()`` (drops self, scope, id, provider)."""
    return {k: v for k, v in values.items() if k not in ("self", "scope", "id", "provider", "__class__")}


def option_or_variable(
    scope: Any, options: Mapping[str, Any], key: str, *, prefix: str, description: str
) -> Any:
    """``options[key]`` when given, else a Terraform variable ``<prefix>_<key>`` supplied at plan time.

    Account-specific ids (compartments, projects, subnets, SSH keys) are never invented: they come
    from the caller or from ``TF_VAR_<prefix>_<key>``.
    """
    if options.get(key) is not None:
        return options[key]
    name = "".join(c if c.isalnum() else "_" for c in f"{prefix}_{key}")
    variable = _compat.core.TerraformVariable(scope, f"var-{key}", type="string", description=description)
    variable.override_logical_id(name)
    return variable.string_value
