"""Words for a decision: the explanation lines and the trade-off against the runner-up.

Derived from numbers already in the Placements, so the text and the JSON never disagree; price age
is measured against the catalog's own date (no clock).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..catalog import Catalog
from ..intent import WorkloadIntent
from ._billing import STARTUP_HOURS
from ._decision import SCORE_DIMENSIONS, EstimateSummary, Placement
from ._price_age import age_days, stale_warning
from ._reserved import reservation_line
from ._rules import attestation_applies

__all__ = ["compare", "explanation", "trade_off", "unit_label", "workload_line"]


def unit_label(placement: Placement) -> str:
    """Human unit of the placement's unit cost."""
    if placement.unit_cost.unit == "usd_per_million_output_tokens":
        return "USD/1M output tokens"
    return "USD/training step"


def _name(p: Placement) -> str:
    term = f", {p.term_months} months" if p.term_months is not None else ""
    return f"{p.provider} {p.instance_type} in {p.region} ({p.pricing}{term})"


def _pct(a: float, b: float) -> str:
    """|a - b| as a percentage of b: whole percent, one decimal under 10 % so small gaps stay visible."""
    value = abs(a - b) / b * 100 if b else 0.0
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def _time_figure(p: Placement) -> str:
    e = p.estimate
    if p.hours is not None:
        return f"{p.hours:,.2f} h to train"
    return f"TPOT {e.tpot_ms or 0:,.1f} ms, TTFT {e.ttft_ms or 0:,.0f} ms"


def trade_off(chosen: Placement, other: Placement | None, label: str = "runner-up") -> str:
    """The chosen placement against ``other``, in words and numbers: the cheapest feasible
    alternative when the chosen one is not the cheapest, else the runner-up (see ``label``)."""
    if other is None:
        return f"Trade-off: no runner-up; {_name(chosen)} is the only feasible candidate."
    return compare(chosen, other, "chosen", label)


def compare(a: Placement, b: Placement, a_label: str, b_label: str) -> str:
    """``a`` against ``b`` in words and numbers: unit cost, then every other score that differs;
    when ``a`` costs more, what the extra cost buys (the scores it wins, and its speed)."""
    x_cost, y_cost = a.unit_cost.value, b.unit_cost.value
    if x_cost < y_cost:
        cost = f"{_pct(x_cost, y_cost)} % cheaper"
    elif x_cost > y_cost:
        cost = f"{_pct(x_cost, y_cost)} % more expensive"
    else:
        cost = "the same unit cost"
    head = (
        f"Trade-off: {a_label} {_name(a)} costs {x_cost:g} {unit_label(a)} vs {y_cost:g} for {b_label} "
        f"{_name(b)}: {cost}"
    )
    parts = []
    for dim in SCORE_DIMENSIONS[1:]:
        x, y = a.scores[dim], b.scores[dim]
        if y and abs(x - y) / y >= 0.01:
            parts.append(f"{_pct(x, y)} % {'higher' if x > y else 'lower'} {dim} score ({x:g} vs {y:g})")
        elif not y and x:
            parts.append(f"higher {dim} score ({x:g} vs 0)")
    if x_cost > y_cost:
        gains = [part for part in parts if " higher " in f" {part}"]
        bought = ", ".join(gains) if gains else "nothing the scores value"
        losses = [part for part in parts if part not in gains]
        head += f"; the extra cost buys {bought} ({_time_figure(a)} vs {_time_figure(b)})"
        parts = losses
    return ", ".join([head, *parts]) + f"; weighted score {a.score:g} vs {b.score:g}."


def compliance_line(
    catalog: Catalog, chosen: Placement, required: Sequence[str], services: tuple[str, ...]
) -> str:
    """The hard compliance constraints the chosen placement meets, with what each authorisation
    granted service by service covers and any condition its source sets on the user (GCP FedRAMP
    High holds only inside an Assured Workloads folder): the user must know it before deploying."""
    line = (
        f"Compliance: {', '.join(required)} attested by {chosen.provider} itself (provider_claimed) "
        f"for {chosen.region}"
    )
    provider = catalog.provider(chosen.provider)
    for scope in required:
        att = next(
            (
                a
                for a in provider.attestations
                if a.scope == scope
                and a.evidence == "provider_claimed"
                and a.services is not None
                and attestation_applies(a, chosen.region, services)
            ),
            None,
        )
        entries = [e for kind in services if att is not None and (e := att.service(kind)) is not None]
        if not entries:
            continue
        names = " and ".join(e.name for e in entries)
        read = max(e.read for e in entries)
        line += (
            f"; {scope} covers {names} (source read {read}: `computeops catalog show "
            f"{chosen.provider}` quotes it)"
        )
        conditions = list(dict.fromkeys(e.requires for e in entries if e.requires))
        if conditions:
            line += (
                f" and requires {' and '.join(conditions)}: set it up before deploying (the emitted "
                "stack deploys into the project or account you give and does not create it)"
            )
    return line + "."


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


def _band(e: EstimateSummary) -> str:
    if e.tokens_per_s_p10 is None or e.tokens_per_s_p90 is None:
        return ""
    kind = f", {e.evidence.replace('_', ' ')} band" if e.evidence else ""
    return f" (p10 {e.tokens_per_s_p10:,.0f} - p90 {e.tokens_per_s_p90:,.0f}{kind})"


def _sizing_line(p: Placement) -> str:
    e = p.estimate
    count = p.instances * p.accelerators_per_instance
    head = f"Sizing: {p.instances} x {p.instance_type} = {count} x {p.accelerator}"
    if p.hours is not None:
        layout = (
            f" (tensor parallel {e.tensor_parallel} x pipeline {e.pipeline_parallel or 1} x data parallel "
            f"{e.replicas}, {e.micro_batches or 1} micro-batch(es) per replica per step)"
            if e.tensor_parallel
            else ""
        )
        p10 = f", {e.hours_p10:,.1f} h at p10" if e.hours_p10 is not None else ""
        return (
            f"{head}{layout}: {e.tokens_per_s:,.0f} tok/s{_band(e)}, MFU {e.mfu or 0:.0%}, "
            f"{p.hours:,.2f} h to train incl. {STARTUP_HOURS:g} h assumed start-up{p10}, "
            f"{p.total_usd:,.2f} USD in total as billed (estimate by {e.model})."
        )
    layout = f" (tensor parallel {e.tensor_parallel}, {e.replicas} replica(s))" if e.tensor_parallel else ""
    return (
        f"{head}{layout}: {e.tokens_per_s:,.0f} output tok/s capacity{_band(e)}, "
        f"TTFT {e.ttft_ms or 0:,.0f} ms, TPOT {e.tpot_ms or 0:,.1f} ms (estimate by {e.model})."
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
    margin: Sequence[str] = (),
    compared: tuple[Placement | None, str] | None = None,
    services: tuple[str, ...] = ("vm",),
) -> tuple[str, ...]:
    """The decision's explanation lines, most important first. ``services``: the provider services
    the chosen placement runs on (rules.placement_services; default: a VM)."""
    lines = [workload_line(intent)]
    lines.append(
        f"Catalog {catalog.version} as of {catalog.as_of} (sha256 {catalog.sha256[:12]}): "
        f"{counts['considered']:,} offers considered, {counts['feasible']:,} feasible, "
        f"{counts['rejected']:,} rejected{pinned}."
    )
    age = age_days(chosen.price_as_of, catalog.as_of)
    age_text = f", {age} day(s) before the catalog snapshot" if age is not None else ""
    lines.append(
        f"Chosen: {_name(chosen)}, {chosen.hourly_usd:,.2f} USD/h ({chosen.monthly_usd:,.2f} USD/month), "
        f"{chosen.unit_cost.value:g} {unit_label(chosen)}; price as of {chosen.price_as_of}{age_text} "
        f"(source: {chosen.price_source or 'catalog'})."
    )
    warning = stale_warning(chosen, catalog.as_of)
    if warning:
        lines.append(warning)
    lines.append(_sizing_line(chosen))
    if chosen.term_months is not None and chosen.term_hours is not None:
        lines.append(
            reservation_line(
                term_months=chosen.term_months,
                term_hours=chosen.term_hours,
                hourly_usd=chosen.hourly_usd,
                commitment_usd=chosen.commitment_usd or 0.0,
                hours=chosen.hours,
                whole_term=chosen.whole_term_charged,
            )
        )
    lines.extend(margin)
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
        lines.append(compliance_line(catalog, chosen, required, services))
    if weak_evidence:
        lines.append(
            f"Compliance score: {chosen.provider}'s {', '.join(weak_evidence)} claims rest on third-party or "
            "keyword-only evidence: they count partially in the score and never satisfy a hard constraint."
        )
    lines.append(trade_off(chosen, *compared) if compared else trade_off(chosen, runner_up))
    if by_rule:
        grouped = ", ".join(f"{rule} {n:,}" for rule, n in by_rule.items())
        lines.append(f"Rejections by rule (a candidate can break several): {grouped}.")
    return tuple(lines)
