"""Lambda Cloud: ``lambdalabs_instance`` through the community ``elct9620/lambdalabs`` provider.

Lambda publishes no Terraform provider; ``elct9620/lambdalabs`` (v0.8.x) is the most complete
community one. Credentials: ``LAMBDALABS_API_KEY``. Instances always get a public IP (Lambda's
firewall, managed outside this provider, decides what is reachable).

Options: ``ssh_key_name`` (an SSH key already registered with Lambda). Default: a Terraform
variable ``<name>_ssh_key_name``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..engine import Placement
from ..errors import TargetError
from ._base import Target, TargetProps
from ._support import require_supported

__all__ = ["CHECKOV_SKIPS", "LambdaTarget"]

CHECKOV_SKIPS: Mapping[str, str] = {}
"""checkov has no checks for lambdalabs resources."""

_TYPE = re.compile(r"^gpu_\d+x_[a-z0-9_]+$")


class LambdaTarget(Target):
    """Lambda target: one ``lambdalabs_instance`` per instance."""

    provider = "lambda"
    extra = None
    options: Mapping[str, str] = {
        "ssh_key_name": "SSH key registered with Lambda. Default: a Terraform variable <name>_ssh_key_name.",
    }
    unsupported: Mapping[str, str] = {
        "spot": "Lambda sells no interruptible capacity, and the community lambdalabs provider has no spot "
        "or bid arguments",
        "multi_node": "1-Click Clusters (InfiniBand) are not in the community lambdalabs provider; "
        "instances it creates are independent",
        "kubernetes_node_pool": "the community lambdalabs provider has no Kubernetes resources",
        "tpu": "Lambda has no TPUs",
    }

    def configure(self, scope: Any, *, region: str, props: TargetProps) -> Any:
        from ._generic import GenericProvider

        return GenericProvider(scope, "provider-lambdalabs", local_name="lambdalabs")

    def emit(self, scope: Any, placement: Placement, *, provider: Any, props: TargetProps) -> dict[str, Any]:
        from ._generic import LambdalabsInstance, option_or_variable

        require_supported(self, placement, props)
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
        return {"instance": instances[0], "instances": instances}
