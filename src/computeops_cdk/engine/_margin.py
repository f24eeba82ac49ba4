"""What the sizing margin costs, and what would win without it.

Every candidate is sized at its estimate's p10 point plus ``preferences.capacity_headroom``; these
lines say what that costs on the chosen placement, which would be cheapest at the central estimate,
and how the chosen provider bills a job's time (``_billing``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ..intent import WorkloadIntent
from ._billing import billed_hours, billing_of
from ._evaluate import Candidate

__all__ = ["billing_line", "central_unit_cost", "margin_lines"]


def central_unit_cost(c: Candidate, intent: WorkloadIntent) -> float | None:
    """The candidate's unit cost if the central estimate were right (no band, no headroom)."""
    return _central_of(intent)(c)


def _central_of(intent: WorkloadIntent) -> Callable[[Candidate], float | None]:
    """``central_unit_cost`` for ``intent``, its workload read once."""
    serving, training = intent.workload.serving, intent.workload.training
    if serving is not None:
        per_hour = serving.output_tokens_per_s * 3600

        def served(c: Candidate) -> float | None:
            price, instances = c.row.offer.hourly_usd, c.sizing.central_instances
            if price is None or instances is None:
                return None
            return price * instances / per_hour * 1e6

        return served
    assert training is not None
    steps = training.tokens / training.global_batch_tokens

    def trained(c: Candidate) -> float | None:
        price, s = c.row.offer.hourly_usd, c.sizing
        if price is None or s.central_instances is None or s.central_hours is None:
            return None
        return price * s.central_instances * billed_hours(c.row.offer.provider, s.central_hours) / steps

    return trained


def _floor_of(intent: WorkloadIntent) -> Callable[[Candidate], float] | None:
    """A serving candidate's least possible central unit cost (None for training): its price for one
    serving group, ``served``'s sum in the same order. The central figure is a whole number of
    groups, at least one, so the floor never exceeds ``served(c)``: a candidate whose floor is not
    below the cheapest so far needs no central estimate."""
    serving = intent.workload.serving
    if serving is None:
        return None
    per_hour = serving.output_tokens_per_s * 3600

    def floor(c: Candidate) -> float:
        price = c.row.offer.hourly_usd
        if price is None or price < 0:  # a negative price (an unvalidated catalog) is no lower bound
            return -math.inf if price is not None else math.inf
        return price * c.sizing.group_instances / per_hour * 1e6

    return floor


def _name(c: Candidate) -> str:
    o = c.row.offer
    return f"{o.provider} {o.instance_type} x{c.sizing.central_instances} in {o.region} ({o.pricing})"


def margin_lines(chosen: Candidate, feasible: Sequence[Candidate], intent: WorkloadIntent) -> tuple[str, ...]:
    """The margin line and the central-estimate alternative line for the chosen candidate."""
    s, headroom = chosen.sizing, intent.preferences.capacity_headroom
    low, high = s.band
    training = intent.workload.training is not None
    unit = "USD/training step" if training else "USD/1M output tokens"
    point = (
        f"the deadline at the estimate's p10 point x (1 + capacity_headroom {headroom:g})"
        if training
        else f"the rate x (1 + capacity_headroom {headroom:g}) and the latency targets at the "
        "estimate's p10 point"
    )
    band = f"{s.evidence.replace('_', ' ')} band {low:g}-{high:g}x of the central estimate"
    head = f"Margin: sized to meet {point} ({band})"
    central = central_unit_cost(chosen, intent)
    if s.central_instances is None or central is None:
        lines = [f"{head}; the central estimate alone would miss the intent on this shape."]
    elif s.central_instances == s.instances:
        lines = [
            f"{head}: the central estimate needs the same {s.instances} instance(s); "
            "the margin costs nothing here."
        ]
    else:
        extra = chosen.unit_cost - central
        lines = [
            f"{head}: {s.instances} instance(s) where the central estimate alone needs "
            f"{s.central_instances}; the margin costs {extra:.4g} {unit} "
            f"({extra / central * 100:.0f} % more)."
        ]
    cheapest: tuple[float, Candidate] | None = None  # the first of the cheapest, in rank order
    central_of = _central_of(intent)
    floor_of = _floor_of(intent)
    for c in feasible:
        if cheapest is not None and floor_of is not None and floor_of(c) >= cheapest[0]:
            continue  # cannot be cheaper: its central figure (an estimate) need not be worked out
        cost = central_of(c)
        if cost is not None and (cheapest is None or cost < cheapest[0]):
            cheapest = (cost, c)
    if cheapest is not None:
        best_cost, best = cheapest
        o, mine = best.row.offer, chosen.row.offer
        same = (o.provider, o.instance_type, o.pricing) == (mine.provider, mine.instance_type, mine.pricing)
        if same:
            lines.append(
                "At the central estimate (no band, no headroom) the chosen machine is also the cheapest."
            )
        else:
            lines.append(
                f"At the central estimate (no band, no headroom) the cheapest would be {_name(best)} at "
                f"{best_cost:.4g} {unit} vs {central:.4g} for the chosen machine"
                if central is not None
                else f"At the central estimate the cheapest would be {_name(best)} at {best_cost:.4g} {unit}"
            )
            lines[-1] += "; accepting the central estimate means accepting its known error."
    return tuple(lines)


def billing_line(chosen: Candidate) -> str:
    """How the chosen provider bills the job's time (training and fine-tuning only)."""
    s, provider = chosen.sizing, chosen.row.offer.provider
    assert s.hours is not None
    rule = billing_of(provider)
    billed = billed_hours(provider, s.hours)
    if not rule.source:
        return (
            f"Billing: no billing increment of {provider} is cited (none found in its own documentation): "
            f"the job's {s.hours:,.2f} h are billed as they run."
        )
    return (
        f"Billing: {provider} bills in {rule.increment_s:g}-second increments with a "
        f"{rule.minimum_s:g}-second minimum ({rule.source}): the job's {s.hours:,.2f} h are billed "
        f"as {billed:,.3f} h."
    )
