"""Words for a decision: the explanation lines and the trade-off against the runner-up.

Everything here is derived from numbers already in the Placements, so the text and the JSON can
never disagree. No clock is read: price age is measured against the catalog's own date.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from ..catalog import Catalog
from ..intent import WorkloadIntent
from ._decision import SCORE_DIMENSIONS, Placement

__all__ = ["compare", "explanation", "price_age_days", "trade_off", "unit_label", "workload_line"]


def unit_label(placement: Placement) -> str:
    """Human unit of the placement's unit cost."""
    if placement.unit_cost.unit == "usd_per_million_output_tokens":
        return "USD/1M output tokens"
    return "USD/training step"


def _name(p: Placement) -> str:
    return f"{p.provider} {p.instance_type} in {p.region} ({p.pricing})"


def _pct(a: float, b: float) -> str:
    """|a - b| as a percentage of b: whole percent, one decimal under 10 % so small gaps stay visible."""
    value = abs(a - b) / b * 100 if b else 0.0
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def trade_off(chosen: Placement, runner_up: Placement | None) -> str:
    """The chosen placement against the runner-up, in words and numbers."""
    if runner_up is None:
        return f"Trade-off: no runner-up; {_name(chosen)} is the only feasible candidate."
    return compare(chosen, runner_up, "chosen", "runner-up")


def compare(a: Placement, b: Placement, a_label: str, b_label: str) -> str:
    """``a`` against ``b`` in words and numbers: unit cost, then every other score that differs."""
    x_cost, y_cost = a.unit_cost.value, b.unit_cost.value
    if x_cost < y_cost:
        cost = f"{_pct(x_cost, y_cost)} % cheaper"
    elif x_cost > y_cost:
        cost = f"{_pct(x_cost, y_cost)} % more expensive"
    else:
        cost = "the same unit cost"
    parts = [
        f"Trade-off: {a_label} {_name(a)} costs {x_cost:g} {unit_label(a)} vs {y_cost:g} for {b_label} "
        f"{_name(b)}: {cost}"
    ]
    for dim in SCORE_DIMENSIONS[1:]:
        x, y = a.scores[dim], b.scores[dim]
        if y and abs(x - y) / y >= 0.01:
            parts.append(f"{_pct(x, y)} % {'higher' if x > y else 'lower'} {dim} score ({x:g} vs {y:g})")
        elif not y and x:
            parts.append(f"higher {dim} score ({x:g} vs 0)")
    return ", ".join(parts) + f"; weighted score {a.score:g} vs {b.score:g}."


def price_age_days(price_as_of: str, catalog_as_of: str) -> int | None:
    """Days between a price's date and the catalog snapshot, None when a date does not parse."""
    try:
        return (date.fromisoformat(catalog_as_of[:10]) - date.fromisoformat(price_as_of[:10])).days
    except ValueError:
        return None


def workload_line(intent: WorkloadIntent) -> str:
    """One line saying what was asked for."""
    work, model = intent.workload, intent.workload.model
    head = f"Workload {intent.name}: {work.type} of {model.name} at {model.precision}"
    if work.serving is not None:
        s = work.serving
        slo = "".join(
            f", {label} <= {v:g} ms"
            for label, v in (("TTFT", s.ttft_ms), ("TPOT", s.tpot_ms))
            if v is not None
        )
        lengths = f"({s.input_tokens} in / {s.output_tokens} out)"
        return f"{head}, {s.output_tokens_per_s:,.0f} output tok/s {lengths}{slo}."
    t = work.training
    assert t is not None
    deadline = f", deadline {t.deadline_hours:g} h" if t.deadline_hours is not None else ", no deadline"
    return f"{head}, {t.tokens:.3g} tokens ({t.method}, seq {t.seq_len}){deadline}."


def _sizing_line(p: Placement) -> str:
    e = p.estimate
    count = p.instances * p.accelerators_per_instance
    head = f"Sizing: {p.instances} x {p.instance_type} = {count} x {p.accelerator}"
    layout = f" (tensor parallel {e.tensor_parallel}, {e.replicas} replica(s))" if e.tensor_parallel else ""
    if p.hours is not None:
        return (
            f"{head}{layout}: {e.tokens_per_s:,.0f} tok/s, MFU {e.mfu or 0:.0%}, {p.hours:,.1f} h to train, "
            f"{p.total_usd:,.2f} USD in total (estimate by {e.model})."
        )
    return (
        f"{head}{layout}: {e.tokens_per_s:,.0f} output tok/s capacity, TTFT {e.ttft_ms or 0:,.0f} ms, "
        f"TPOT {e.tpot_ms or 0:,.1f} ms (estimate by {e.model})."
    )


def explanation(
    intent: WorkloadIntent,
    catalog: Catalog,
    chosen: Placement,
    runner_up: Placement | None,
    *,
    counts: Mapping[str, int],
    by_rule: Mapping[str, int],
    weights: Mapping[str, float],
    weak_evidence: Sequence[str],
    pinned: str,
) -> tuple[str, ...]:
    """The decision's explanation lines, most important first."""
    lines = [workload_line(intent)]
    lines.append(
        f"Catalog {catalog.version} as of {catalog.as_of} (sha256 {catalog.sha256[:12]}): "
        f"{counts['considered']:,} offers considered, {counts['feasible']:,} feasible, "
        f"{counts['rejected']:,} rejected{pinned}."
    )
    age = price_age_days(chosen.price_as_of, catalog.as_of)
    age_text = f", {age} day(s) before the catalog snapshot" if age is not None else ""
    lines.append(
        f"Chosen: {_name(chosen)}, {chosen.hourly_usd:,.2f} USD/h ({chosen.monthly_usd:,.2f} USD/month), "
        f"{chosen.unit_cost.value:g} {unit_label(chosen)}; price as of {chosen.price_as_of}{age_text} "
        f"(source: {chosen.price_source or 'catalog'})."
    )
    lines.append(_sizing_line(chosen))
    if chosen.estimate.assumptions:
        # Inference is estimated per serving group and replicated; training for the whole job.
        scope = "per serving group" if chosen.hours is None else "whole job"
        lines.append(
            f"Estimate assumptions ({chosen.estimate.model}, {scope}): "
            + "; ".join(chosen.estimate.assumptions)
        )
    scored = ", ".join(f"{d} {chosen.scores[d]:g} (x{weights[d]:g})" for d in SCORE_DIMENSIONS)
    lines.append(f"Scores (weight): {scored}; weighted {chosen.score:g}.")
    required = intent.constraints.compliance
    if required:
        lines.append(
            f"Compliance: {', '.join(required)} attested by {chosen.provider} itself (provider_claimed) "
            f"for {chosen.region}."
        )
    if weak_evidence:
        lines.append(
            f"Compliance score: {chosen.provider}'s {', '.join(weak_evidence)} claims rest on third-party or "
            "keyword-only evidence: they count partially in the score and never satisfy a hard constraint."
        )
    lines.append(trade_off(chosen, runner_up))
    if by_rule:
        grouped = ", ".join(f"{rule} {n:,}" for rule, n in by_rule.items())
        lines.append(f"Rejections by rule (a candidate can break several): {grouped}.")
    return tuple(lines)
