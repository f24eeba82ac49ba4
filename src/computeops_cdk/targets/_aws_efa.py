"""The EFA fabric of a multi-node AWS training job: every network card, and a container that uses it.

A p4d/p5-class instance reaches its inter-node bandwidth only with an EFA device on every network card
and NCCL's aws-ofi-nccl plugin; without them NCCL falls back to TCP sockets at a fraction of the
bandwidth the performance model assumed.

Interface layout (EC2 User Guide, "Maximize network bandwidth ... with multiple network cards"): the
primary interface (card 0, device 0) is ENA, card 0 gets an EFA-only interface at device 1 and every
further card one at device 0: one IP address per instance. EFAs cannot be attached to a running
instance, so the interfaces are in the launch template.

Counts are sourced per type (``EFA_NETWORK_CARDS``); a type without one gets no EFA and a warning,
unless ``efa_network_cards`` gives it. The plan checks the count against ``data.aws_ec2_instance_type``,
so a wrong count fails at plan, not at apply.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import TargetError, described

__all__ = [
    "DEFAULT_EFA_TRAINING_IMAGE",
    "EFA_NETWORK_CARDS",
    "EFA_OPTION",
    "EVAL_ENTRYPOINT_OPTION",
    "EfaCards",
    "efa_cards",
    "efa_warnings",
]

_ENI_DOC = (
    "awsdocs/amazon-ec2-user-guide doc_source/using-eni.md ('Network cards' table; 'All other instance "
    "types support one network card') and doc_source/efa.md ('Supported instance types') at "
    "0992ede8329d71b7e5ead8681cec062409eed8e2"
)
_P5_DOC = (
    "docs.aws.amazon.com/AWSEC2/latest/UserGuide/p5-efa.html ('P5 and P5e instances support up to 32 "
    "network cards', read 2026-12-01 in its translated copies) and efa-acc-inst-types.md (the P5 "
    "run-instances example with 32 EFA devices and one ENA device)"
)

_CARDS_TABLE = (
    "AWS EC2 User Guide, 'Elastic network interfaces', 'Network cards' table "
    "(docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-eni.html#network-cards; read 2026-12-01 in its "
    "zh_cn translated copy: p5en.48xlarge 16, p6-b200.48xlarge 8, p6-b300.48xlarge 17; 'one EFA or "
    "EFA-only interface per network card')"
)


@dataclass(frozen=True, slots=True)
class EfaCards:
    """An EFA-capable instance type's network cards (one EFA device each) and where the number is from.

    Attributes:
        cards: network cards; every one carries an EFA-only interface.
        device_rdma: set ``FI_EFA_USE_DEVICE_RDMA=1`` (documented for p4d.24xlarge only).
        source: the document the numbers were read in.
    """

    cards: int
    source: str
    device_rdma: bool = False


EFA_NETWORK_CARDS: Mapping[str, EfaCards] = {
    "p4d.24xlarge": EfaCards(
        4,
        f"{_ENI_DOC}; FI_EFA_USE_DEVICE_RDMA=1 '(p4d.24xlarge only)' in doc_source/efa-start-nccl-dlami.md",
        device_rdma=True,
    ),
    "p4de.24xlarge": EfaCards(4, _ENI_DOC),
    "p5.48xlarge": EfaCards(32, _P5_DOC),
    "p5e.48xlarge": EfaCards(32, _P5_DOC),
    "p5en.48xlarge": EfaCards(16, _CARDS_TABLE),
    "p6-b200.48xlarge": EfaCards(8, _CARDS_TABLE),
    "p3dn.24xlarge": EfaCards(1, _ENI_DOC),
    "g4dn.8xlarge": EfaCards(1, _ENI_DOC),
    "g4dn.metal": EfaCards(1, _ENI_DOC),
    "g5.8xlarge": EfaCards(1, _ENI_DOC),
    "g5.12xlarge": EfaCards(1, _ENI_DOC),
}
"""EFA network cards of the catalog's AWS types whose count a public AWS document gives. Not listed:
p6-b300.48xlarge (``_LAYOUT_UNFIT``), types with no count read here (p5.4xlarge, g6/g6e) and types
without EFA. Give the count with the ``efa_network_cards`` option (``aws ec2 describe-instance-types
--query 'InstanceTypes[].NetworkInfo.MaximumNetworkCards'``); the plan checks it either way."""

_LAYOUT_UNFIT: Mapping[str, str] = {
    "p6-b300.48xlarge": "its network card 0 takes no EFA interface (17 cards, 16 EFA interfaces, per "
    "third-party launch notes; not confirmed in an AWS document here)",
}
"""EFA-capable types whose card layout the interfaces here (``interfaces``) do not fit."""

EFA_OPTION = (
    "network cards to attach an EFA-only interface to, for multi-node training (0: no EFA). "
    "Default: EFA_NETWORK_CARDS for the instance type (sourced), none for a type not listed."
)

EVAL_ENTRYPOINT_OPTION = (
    'the training image\'s ENTRYPOINT ends in eval "$@" (True/False): the command is then passed as one '
    "pre-quoted argument, which eval turns back into the original argv. Default: True for "
    "DEFAULT_EFA_TRAINING_IMAGE (the AWS DLC's dockerd_entrypoint.sh), False otherwise; a user image "
    "with an eval entrypoint needs True, or its command is split and expanded a second time."
)

DEFAULT_EFA_TRAINING_IMAGE = (
    "public.ecr.aws/deep-learning-containers/pytorch-training:2.10.0-gpu-py313-cu130-ubuntu22.04-ec2"
)
"""AWS Deep Learning Container, PyTorch 2.10 training for EC2, with libfabric and the aws-ofi-nccl plugin
(the NGC image ``DEFAULT_TRAINING_IMAGE`` has no plugin, so on EFA it would use TCP sockets), from the
public ECR gallery: no registry login or IAM grant. Its entrypoint (``dockerd_entrypoint.sh``) ends in
``eval "$@"``, so the boot script passes the command as one pre-quoted argument
(``BootPlan.eval_entrypoint``)."""


def efa_cards(instance_type: str, options: Mapping[str, Any]) -> EfaCards | None:
    """The EFA cards to attach for ``instance_type``: the option, else the sourced table, else None."""
    given = options.get("efa_network_cards")
    if given is None:
        return EFA_NETWORK_CARDS.get(instance_type)
    if isinstance(given, bool) or not isinstance(given, int) or not 0 <= given <= 64:
        raise TargetError(
            f"aws option 'efa_network_cards' must be a whole number 0..64 (got {described(given)}). "
            "To fix: the instance type's network card count, which `aws ec2 describe-instance-types "
            f"--instance-types {instance_type} --query "
            "'InstanceTypes[].NetworkInfo.MaximumNetworkCards'` prints, or 0 for no EFA."
        )
    if given == 0:
        return None
    known = EFA_NETWORK_CARDS.get(instance_type)
    return EfaCards(
        given,
        "option efa_network_cards",
        device_rdma=known is not None and known.device_rdma and known.cards == given,
    )


def efa_warnings(
    instance_type: str, options: Mapping[str, Any], cards: EfaCards | None, *, multi_node: bool
) -> list[str]:
    """Why a multi-node job will not reach the fabric's bandwidth, or why the EFA option is not read,
    for a synth warning."""
    if not multi_node:
        if options.get("efa_network_cards") is None:
            return []
        return [
            f"aws option 'efa_network_cards' applies only to multi-node training (a training job on more "
            f"than one instance); this placement ({instance_type}) is not one, so no EFA interface is "
            "attached. To fix: drop the option, or constrain the intent to multi-node training."
        ]
    found = []
    unfit = _LAYOUT_UNFIT.get(instance_type)
    if cards is None and unfit is not None and options.get("efa_network_cards") is None:
        found.append(
            f"multi-node training on {instance_type} gets no EFA: {unfit}, so this stack's interface "
            "layout (EFA-only at network card 0 / device 1) does not fit it and NCCL will use TCP "
            "sockets. The decision's time and cost estimate assumed the EFA fabric's bandwidth: this "
            "job will be slower (and cost more) than decided. To fix: constrain the intent to another "
            "type (EFA_NETWORK_CARDS lists the ones this stack fits), or options={'efa_network_cards': "
            "0} to accept TCP sockets and silence this warning."
        )
    elif cards is None and options.get("efa_network_cards") != 0:
        found.append(
            f"multi-node training on {instance_type} gets no EFA: no AWS document read here gives a "
            "network card count this stack's interface layout fits, so NCCL will use TCP sockets. The "
            "decision's time and cost estimate assumed the EFA fabric's bandwidth: this job will be "
            "slower (and cost more) than decided. To fix: options={'efa_network_cards': N} with the "
            f"count `aws ec2 describe-instance-types --instance-types {instance_type} --query "
            "'InstanceTypes[].NetworkInfo.MaximumNetworkCards'` prints (checked at plan), or choose a "
            "listed type (EFA_NETWORK_CARDS)."
        )
    image = options.get("container_image")
    if cards is not None and image is not None:
        found.append(
            f"the training image {image!r} must ship libfabric and the aws-ofi-nccl plugin: the boot "
            "script sets NCCL_NET='AWS Libfabric', so without them NCCL fails at start instead of "
            "falling back to TCP sockets. Default: the AWS Deep Learning Container "
            f"{DEFAULT_EFA_TRAINING_IMAGE}."
        )
    return found


def interfaces(mod: Any, cards: EfaCards, *, primary: Any, subnet: Any, security_group: Any) -> list[Any]:
    """The launch template's interfaces: the rank's pre-created primary ENI at card 0 / device 0, then
    one EFA-only interface per card (card 0 at device 1, every other card at device 0)."""
    efa = [
        mod.LaunchTemplateNetworkInterfaces(
            network_card_index=card,
            device_index=1 if card == 0 else 0,
            interface_type="efa-only",
            subnet_id=subnet,
            security_groups=[security_group.id],
            delete_on_termination="true",
            description=f"EFA-only, network card {card}",
        )
        for card in range(cards.cards)
    ]
    first = mod.LaunchTemplateNetworkInterfaces(
        network_card_index=0, device_index=0, network_interface_id=primary
    )
    return [first, *efa]


def fabric_check(scope: Any, instance_type: str, cards: EfaCards) -> Any:
    """``data.aws_ec2_instance_type`` with a postcondition: AWS says the type supports EFA and has
    exactly ``cards.cards`` network cards (a wrong table entry or option fails the plan, not the apply)."""
    from .. import _compat
    from .._compat import import_binding
    from ._escape import raw_expression

    core = _compat.core
    mod = import_binding("aws", "data_aws_ec2_instance_type", provider="aws")
    return mod.DataAwsEc2InstanceType(
        scope,
        "efa_instance_type",
        instance_type=instance_type,
        lifecycle=core.TerraformResourceLifecycle(
            postcondition=[
                core.Postcondition(
                    condition=raw_expression(
                        f"${{self.efa_supported && self.maximum_network_cards == {cards.cards}}}"
                    ),
                    error_message=f"{instance_type}: the stack attaches an EFA-only interface to "
                    f"{cards.cards} network card(s) ({cards.source}), but AWS reports EFA support or a "
                    "network card count that differs. To fix: options={'efa_network_cards': "
                    "<the maximum_network_cards AWS reports>}, or 0 for no EFA.",
                )
            ]
        ),
    )
