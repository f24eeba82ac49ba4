"""What a reservation costs: the whole term, whether the workload uses it or not.

A reserved offer's ``hourly_usd`` is its effective hourly price over ``term_months`` x 730 hours.
The commitment is that price x the term's hours x the instances: a training job pays whole terms
(all of one even when shorter); inference runs over the term, so its unit cost is hourly as usual.
"""

from __future__ import annotations

import math

__all__ = ["committed", "reservation_line"]


def committed(hourly: float, term_hours: int, hours: float | None) -> tuple[float, bool, float | None]:
    """``(commitment USD, whole_term, hours paid)`` of ``hourly`` reserved for ``term_hours``;
    ``hours``: the job's billed running time (None for a service, which commits to one term).
    ``whole_term``: the job is shorter than the hours it pays for."""
    if hours is None:
        return hourly * term_hours, False, None
    terms = max(1, math.ceil(hours / term_hours - 1e-9))
    paid = terms * term_hours
    return hourly * paid, hours < paid, float(paid)


def reservation_line(
    *,
    term_months: int,
    term_hours: int,
    hourly_usd: float,
    commitment_usd: float,
    hours: float | None,
    whole_term: bool,
) -> str:
    """The explanation's words for a reserved placement."""
    head = (
        f"Reserved for {term_months} months ({term_hours:,} h, no upfront): the commitment is "
        f"{commitment_usd:,.2f} USD ({hourly_usd:,.4g} USD/h effective x {term_hours:,} h), paid "
        "whether the instances run or not"
    )
    if hours is None:
        return head + "; the service runs over the term, so its unit cost is priced hourly."
    if whole_term:
        return (
            head + f"; the job needs {hours:,.2f} h, shorter than the term, so its total and unit cost "
            "are the whole commitment (on-demand or spot bills only the hours used)."
        )
    return head + f"; the job's {hours:,.2f} h fill the commitment."
