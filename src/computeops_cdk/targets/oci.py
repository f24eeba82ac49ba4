"""Oracle Cloud (OCI): GPU shapes as ``oci_core_instance`` through the generic ``oracle/oci`` provider.

No cdktn binding exists for ``oracle/oci`` (the only Python package is cdktf-based), so the
resources come from ``_generic``. Credentials: ``OCI_TENANCY_OCID``, ``OCI_USER_OCID``,
``OCI_FINGERPRINT``, ``OCI_PRIVATE_KEY_PATH`` (or ``~/.oci/config``); the region is set from the
placement.

Options: ``OciTarget.options``; the account-specific ids default to Terraform variables.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

from ..engine import Placement
from ..errors import TargetError
from ._base import Target, TargetProps
from ._boot import BOOT_OPTIONS, plan_for
from ._boot_script import boot_script, cloud_config
from ._support import require_supported
from ._unsupported import UNSUPPORTED

__all__ = ["CHECKOV_SKIPS", "OciTarget"]

CHECKOV_SKIPS: Mapping[str, str] = {
    "CKV_OCI_4": "in-transit encryption is set with the top-level is_pv_encryption_in_transit_enabled; "
    "checkov only reads launch_options, which this target leaves to the shape's defaults because bare-metal "
    "GPU shapes do not take paravirtualized launch options",
}
"""checkov checks the emitted OCI resources fail on purpose, with the reason (for ``--skip-check``)."""

_SHAPE = re.compile(r"^(BM|VM)\.GPU[\w.-]*$")


NO_SECRET_STORE = "reading a secret at boot from OCI Vault is not wired by this target"


NO_OBJECT_STORE = (
    "reading OCI Object Storage as an instance principal needs a dynamic group and a tenancy IAM "
    "policy this target does not create"
)
"""Why ``weights_uri`` is refused on oci."""


class OciTarget(Target):
    """OCI target: one ``oci_core_instance`` per instance, private VNIC, legacy IMDS off."""

    provider = "oci"
    extra = None
    options: Mapping[str, str] = {
        "compartment_id": "compartment OCID. Default: a Terraform variable <name>_compartment_id.",
        "subnet_id": "subnet OCID. Default: a Terraform variable <name>_subnet_id.",
        "image_id": "OCID of a GPU image for the shape. Default: a Terraform variable <name>_image_id.",
        "ssh_public_key": "OpenSSH public key. Default: a Terraform variable <name>_ssh_public_key.",
        "availability_domain": "Default: the first one the tenancy lists.",
        "boot_volume_gb": "boot volume size in GB. Default: 200.",
        **BOOT_OPTIONS,
        "weights_uri": f"not supported ({NO_OBJECT_STORE}): refused. Default: none (Hugging Face).",
        "hf_token_secret": f"not supported ({NO_SECRET_STORE}): refused. Default: none.",
    }
    unsupported = UNSUPPORTED["oci"]  # declared in _unsupported.py

    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        from ._generic import GenericProvider

        return GenericProvider(scope, "provider-oci", local_name="oci", attributes={"region": region})

    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        from ._generic import GenericDataSource, OciCoreInstance, option_or_variable

        require_supported(self, placement, props)
        # The boot options first: a bad one fails before anything is emitted.
        plan = plan_for(
            placement,
            props,
            target="oci",
            store=None,
            unsupported_secret=NO_SECRET_STORE,
            unsupported_weights=NO_OBJECT_STORE,
        )
        shape = placement.instance_type.strip()
        if not _SHAPE.match(shape):
            raise TargetError(
                f"oci target cannot map instance type {shape!r}: it expects a GPU shape such as "
                "'BM.GPU.H100.8' or 'VM.GPU.A10.1'. To fix: pin an OCI GPU shape."
            )
        opts = props.options

        def need(key: str, what: str) -> Any:
            return option_or_variable(scope, opts, key, prefix=props.name, description=what)

        # Each account-specific id once: a Terraform variable is one construct, shared by all instances.
        compartment = need("compartment_id", "OCI compartment OCID")
        image = need("image_id", "OCID of a GPU image for the shape")
        subnet = need("subnet_id", "OCI subnet OCID")
        ssh_key = need("ssh_public_key", "OpenSSH public key")
        availability_domain = opts.get("availability_domain")
        if not availability_domain:
            domains = GenericDataSource(
                scope,
                "availability-domains",
                data_type="oci_identity_availability_domains",
                provider=provider,
                attributes={"compartment_id": compartment},
            )
            availability_domain = domains.attr("availability_domains.0.name")
        spot = placement.pricing == "spot"
        metadata = {"ssh_authorized_keys": ssh_key}
        if plan is not None:
            # OCI takes cloud-init as base64 user_data; the subnet must give egress (a NAT gateway).
            metadata["user_data"] = base64.b64encode(cloud_config(boot_script(plan)).encode()).decode("ascii")
        instances = [
            OciCoreInstance(
                scope,
                f"instance-{i}",
                provider=provider,
                availability_domain=availability_domain,
                compartment_id=compartment,
                shape=shape,
                display_name=f"{props.name}-{i}",
                source_details={
                    "source_type": "image",
                    "source_id": image,
                    "boot_volume_size_in_gbs": int(opts.get("boot_volume_gb", 200)),
                },
                create_vnic_details={
                    "subnet_id": subnet,
                    "assign_public_ip": False,
                },
                metadata=metadata,
                preemptible_instance_config=(
                    {"preemption_action": {"type": "TERMINATE", "preserve_boot_volume": False}}
                    if spot
                    else None
                ),
                freeform_tags={**props.tags, "computeops-gpu": placement.accelerator},
            )
            for i in range(placement.instances)
        ]
        for instance in instances:
            # IMDS v1 off (v2 only); in-transit encryption for the paravirtualized boot volume.
            instance.add_override("instance_options.are_legacy_imds_endpoints_disabled", True)
            instance.add_override("is_pv_encryption_in_transit_enabled", True)
        return {"instance": instances[0], "instances": instances}
