"""The billed parts a stack creates besides the accelerator instances (root volumes, NAT, load balancer).

The engine ranks the instances only; a target lists the other billed resources it emits as
``BilledPart`` s, priced from ``data/billed_extras.json`` (each entry cites its source), so the
construct shows their cost separately. A part without a sourced price has ``hourly_usd = None``, never 0.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["HOURS_PER_MONTH", "BilledPart", "cloud_nat_parts", "priced", "unpriced", "unpriced_parts"]

CLOUD_NAT_VM_CAP = 32
"""Cloud NAT bills per VM using the gateway up to 32 VMs, then one capped rate
(cloud.google.com/nat/pricing)."""

HOURS_PER_MONTH = 730
"""The engine's month (``monthly_usd = hourly_usd x 730``), used to turn GB-month prices into hours."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BilledPart:
    """One billed resource of the stack (besides the instances), with its hourly cost when sourced.

    Attributes:
        part: what it is (``root volumes``, ``NAT gateway``, ...).
        quantity: how much of ``unit`` the stack creates (e.g. 1,000 GB, 1 gateway).
        unit: the unit the price is quoted in.
        hourly_usd: USD per hour for the whole quantity; None when no sourced price covers it.
        source: where the price comes from (URL), None without a price.
        note: how it was computed, or why there is no price.
    """

    part: str
    quantity: float
    unit: str
    hourly_usd: float | None
    source: str | None
    note: str

    def to_dict(self) -> dict[str, Any]:
        """This part as its entry of the stack-cost record."""
        return {
            "part": self.part,
            "quantity": self.quantity,
            "unit": self.unit,
            "hourly_usd": self.hourly_usd,
            "source": self.source,
            "note": self.note,
        }


@cache
def _prices() -> dict[str, Any]:
    text = resources.files("computeops_cdk.targets").joinpath("data/billed_extras.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def priced(provider: str, key: str, region: str, *, part: str, quantity: float) -> BilledPart:
    """``quantity`` of price ``key`` in ``region``; an unpriced part when no sourced price covers it.

    A price key holds one entry or a list of them (regions priced differently, each with its source).
    """
    found = _prices().get(provider, {}).get(key)
    entries: list[dict[str, Any]] = found if isinstance(found, list) else [found] if found else []
    # "all": the source states one figure for every region (e.g. AWS's public IPv4 charge).
    entry = next((e for e in entries if e["regions"] == "all" or region in e["regions"]), None)
    unit = entries[0]["unit"] if entries else key
    if entry is None:
        why = f"no sourced {provider} price for {region}"
        notes = [e["unpriced_note"] for e in entries if e.get("unpriced_note")]
        return unpriced(part, quantity=quantity, unit=unit, why=f"{why}: {notes[0]}" if notes else why)
    usd = float(entry["usd"]) * quantity
    hourly = usd / HOURS_PER_MONTH if unit.endswith("-month") else usd
    how = f"{quantity:g} {unit} x {entry['usd']} USD (list price, {entry['as_of']}; quotes {entry['quotes']})"
    return BilledPart(
        part=part, quantity=quantity, unit=unit, hourly_usd=round(hourly, 4), source=entry["source"], note=how
    )


def unpriced(part: str, *, quantity: float, unit: str, why: str) -> BilledPart:
    """A billed part whose price is unknown here: ``hourly_usd`` None, with the reason."""
    return BilledPart(part=part, quantity=quantity, unit=unit, hourly_usd=None, source=None, note=why)


def unpriced_parts(
    why: str, *, disks: tuple[str, float], nat: str | None, load_balancer: str | None
) -> list[BilledPart]:
    """The billed parts of a stack whose provider has no sourced prices here: its disks (label and
    GB), the NAT gateway when the stack creates one, the load balancer when it has one; every
    ``hourly_usd`` None with the same reason."""
    parts = [unpriced(disks[0], quantity=disks[1], unit="GB-month", why=why)]
    if nat is not None:
        parts.append(unpriced(nat, quantity=1, unit="gateway-hour", why=why))
    if load_balancer is not None:
        parts.append(unpriced(load_balancer, quantity=1, unit="rule-hour", why=why))
    return parts


def cloud_nat_parts(vms: int, region: str) -> list[BilledPart]:
    """GCP Cloud NAT for ``vms`` VMs: the gateway (per VM-hour up to ``CLOUD_NAT_VM_CAP`` VMs, then the
    capped rate), its external address (auto-allocated: at least one, more for many connections) and its
    data processing (per GiB: traffic the stack cannot know, unpriced). Google's page gives one table for
    every region (``data/billed_extras.json``)."""
    if vms > CLOUD_NAT_VM_CAP:
        gateway = priced(
            "gcp", "cloud_nat_gateway_hour_max", region, part=f"Cloud NAT ({vms} VMs, capped)", quantity=1
        )
    else:
        gateway = priced("gcp", "cloud_nat_vm_hour", region, part=f"Cloud NAT ({vms} VMs)", quantity=vms)
    return [
        gateway,
        priced("gcp", "cloud_nat_ip_hour", region, part="Cloud NAT external IP (at least one)", quantity=1),
        unpriced(
            "Cloud NAT data processing",
            quantity=0,
            unit="GiB",
            why="billed per GiB through the NAT (images, weights): depends on traffic the stack cannot know",
        ),
    ]
