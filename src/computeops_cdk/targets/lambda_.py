"""Lambda Cloud: ``lambdalabs_instance`` through the community ``elct9620/lambdalabs`` provider.

Lambda publishes no Terraform provider; ``elct9620/lambdalabs`` (v0.8.x) is the most complete
community one. Credentials: ``LAMBDALABS_API_KEY``. Instances always get a public IP (Lambda's
firewall, managed outside this provider, decides what is reachable).
Options: ``LambdaTarget.options``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..engine import Placement
from ..errors import TargetError
from ._base import Target, TargetProps
from ._boot import BOOT_OPTIONS, plan_for
from ._boot_script import boot_script
from ._support import require_supported
from ._unsupported import UNSUPPORTED

__all__ = ["CHECKOV_SKIPS", "LambdaTarget"]

CHECKOV_SKIPS: Mapping[str, str] = {
    "CKV_COPS_1": "Lambda gives every instance a public IP and the lambdalabs provider has no argument to "
    "avoid it; restrict inbound traffic with Lambda's firewall rules (outside Terraform)",
}
"""checkov checks (computeops's own CKV_COPS_*; checkov has none for lambdalabs) the emitted
resources fail on purpose, with the reason."""

_TYPE = re.compile(r"^gpu_\d+x_[a-z0-9_]+$")


NO_BOOT = (
    "the Lambda Terraform providers have no user-data or startup-script argument (elct9620/lambdalabs "
    "launches an instance with its region, type, SSH key names and name only): run the generated script "
    "once over SSH; bootstrapping over SSH from Terraform is out of scope"
)
"""Why nothing boots the workload on Lambda. Checked by reading the stored sources (no plugin here):
elct9620/lambdalabs ``pkg/lambdalabs/instance.go`` (``LaunchInstancePayload``: name, region_name,
instance_type_name, ssh_key_names; commit 63ed886174f194fdf60dcfb2be3688e70586897d) and
``internal/provider/instance_resource.go`` (the same four arguments), and
albertocavalcante/terraform-provider-lambda ``codegen/resource_instance/instance_resource_gen.go``
(file_system_names, instance_type_name, name, region_name, ssh_key_names; commit
d790112d2a04f57d267f6a3e24f03f1c3b0ef10a). Whether Lambda's launch API itself takes user data could not
be confirmed from the stored sources; a provider that passes it would let this target emit the script."""


NO_OBJECT_STORE = (
    "nothing boots on Lambda through its Terraform provider, and a Lambda instance has no cloud "
    "identity a bucket grants access to"
)
"""Why ``weights_uri`` is refused on lambda."""


class LambdaTarget(Target):
    """Lambda target: one ``lambdalabs_instance`` per instance."""

    provider = "lambda"
    extra = None
    options: Mapping[str, str] = {
        "ssh_key_name": "SSH key registered with Lambda. Default: a Terraform variable <name>_ssh_key_name.",
        **BOOT_OPTIONS,
        "weights_uri": f"not supported ({NO_OBJECT_STORE}): refused. Default: none (Hugging Face).",
        "hf_token_secret": "not supported (no secret store and no boot hook): refused. Default: none.",
        "user_data": "the script put in the boot_script output (nothing boots it). Default: generated.",
    }
    unsupported = UNSUPPORTED["lambda"]  # declared in _unsupported.py

    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        from ._generic import GenericProvider

        return GenericProvider(scope, "provider-lambdalabs", local_name="lambdalabs")

    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        from ._generic import LambdalabsInstance, option_or_variable

        require_supported(self, placement, props)
        plan = plan_for(
            placement,
            props,
            target="lambda",
            store=None,
            unsupported_secret=NO_BOOT,
            unsupported_weights=NO_OBJECT_STORE,
        )
        name = placement.instance_type.strip()
        if not _TYPE.match(name):
            raise TargetError(
                f"lambda target cannot map instance type {name!r}: it expects a Lambda name such as "
                "'gpu_8x_h100_sxm5'. To fix: pin a Lambda instance type."
            )
        key = option_or_variable(
            scope, props.options, "ssh_key_name", prefix=props.name, description="Lambda SSH key name"
        )
        instances = [
            LambdalabsInstance(
                scope,
                f"instance-{i}",
                provider=provider,
                region_name=placement.region,
                instance_type_name=name,
                ssh_key_names=[key],
                name=f"{props.name}-{i}",
            )
            for i in range(placement.instances)
        ]
        resources: dict[str, Any] = {"instance": instances[0], "instances": instances}
        if plan is not None:
            # Nothing can boot it: hand the script over as an output, and say so at synth.
            resources["boot_script"] = boot_script(plan)
            resources["no_boot_reason"] = NO_BOOT + "; the script is the stack output '<id>_boot_script'"
        return resources
