"""``offer.retired``: instance types their provider has retired, each with the retirement notice.

A retired instance type can still appear in a price table (Azure's K80 ``Standard_NC24_Promo``);
the engine rejects it, quoting the provider's own cited notice. Nothing is inferred from an
accelerator's age.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ._decision import Reason

__all__ = ["RETIRED", "Retirement", "retired_rule"]


@dataclass(frozen=True, slots=True)
class Retirement:
    date: str
    accelerator: str
    notice: str


_NC = Retirement(
    date="2023-09-06",
    accelerator="K80",
    notice="MicrosoftDocs/azure-docs articles/virtual-machines/sizes/migration-guides/nc-series-retirement.md"
    "@02affc8 ('Migrate your NC and NC_Promo series virtual machines by September 6, 2023')",
)
_NV = Retirement(
    date="2023-09-06",
    accelerator="M60",
    notice="MicrosoftDocs/azure-docs articles/virtual-machines/sizes/migration-guides/nv-series-retirement.md"
    "@1b631af ('we're retiring our NV-series Azure VM sizes on September 6, 2023', NV and NV_Promo)",
)
_NCV3 = Retirement(
    date="2025-09-30",
    accelerator="V100",
    notice="MicrosoftDocs/azure-docs articles/virtual-machines/ncv3-nc6s-nc12s-nc24s-retirement.md@e9d93f2 "
    "('On September 30, 2025, Microsoft Azure will retire the Standard_NC6s_v3, Standard_NC12s_v3 and "
    "Standard_NC24s_v3')",
)

RETIRED: Mapping[tuple[str, str], Retirement] = {
    **{
        ("azure", f"Standard_{size}{promo}"): _NC
        for size in ("NC6", "NC12", "NC24", "NC24r")
        for promo in ("", "_Promo")
    },
    **{
        ("azure", f"Standard_{size}{promo}"): _NV
        for size in ("NV6", "NV12", "NV24")
        for promo in ("", "_Promo")
    },
    **{("azure", f"Standard_{size}"): _NCV3 for size in ("NC6s_v3", "NC12s_v3", "NC24s_v3")},
}
"""(provider, instance type) -> its retirement. NC24rs_v3 is not in the NCv3 notice and stays."""


def retired_rule(provider: str, instance_type: str, catalog_as_of: str) -> tuple[Reason, ...]:
    """``offer.retired`` when the instance type was retired on or before the catalog's date."""
    found = RETIRED.get((provider, instance_type))
    if found is None or found.date > catalog_as_of[:10]:
        return ()
    return (
        Reason(
            rule="offer.retired",
            message=f"{provider} retired {instance_type} ({found.accelerator}) on {found.date}: "
            f"{found.notice}",
        ),
    )
