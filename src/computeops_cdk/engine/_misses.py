"""Nearest misses: which relaxations of the intent would admit a rejected candidate.

Documented for users in docs/decisions.md. Only candidates whose every failing rule can be relaxed
(not ``UNRELAXABLE``) count; one miss per distinct set of constraints, fewest first, then the
smallest relative relaxation, then the cheaper candidate. Misses of one instance type that differ
only by the region a residency widening names are one line listing the regions, nearest first, with
the largest numeric value any of them needs. ``unsupported_fix``: the "To fix" when every
candidate was rejected by ``target.unsupported``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ._billing import billed_hours
from ._decision import Rejection
from ._evaluate import Candidate, Rejected, as_candidate
from ._pin import Pin

__all__ = ["MAX_MISSES", "UNRELAXABLE", "nearest_misses", "unsupported_fix"]

MAX_MISSES = 5

_NUMERIC = {
    "price.max_hourly": "max_hourly_usd",
    "price.max_monthly": "max_monthly_usd",
    "price.max_total": "max_total_usd",
    "deadline": "deadline_hours",
    "latency.ttft": "ttft_ms",
    "latency.tpot": "tpot_ms",
}
UNRELAXABLE = frozenset(
    {
        "memory.fit",
        "spec.unknown",
        "throughput",
        "price.unknown",
        "target.unsupported",
        "training.layout",
        "offer.retired",
    }
)
"""Rules no relaxation of the intent can lift: a rejection carrying one is never a nearest miss."""


def _up(value: float) -> str:
    # Round up (to 2 decimals, or whole units from 100) so the suggested value really admits the
    # candidate; no thousands separator, so the number can be pasted into the YAML as it is.
    if value >= 100:
        return str(math.ceil(value))
    return f"{math.ceil(value * 100) / 100:.2f}".rstrip("0").rstrip(".")


def _numeric(rule: str, c: Candidate) -> tuple[str, float] | None:
    """(new value text, needed value) for a numeric rule."""
    s = c.sizing
    needed = {
        "price.max_hourly": c.hourly,
        "price.max_monthly": c.monthly,
        "price.max_total": (
            c.hourly * billed_hours(c.row.offer.provider, s.hours_p10)
            if c.hourly is not None and s.hours_p10 is not None
            else c.total
        ),
        # The deadline and the latency targets are checked at the band's p10 point (and the
        # deadline with the headroom): the value that admits the candidate is that one.
        "deadline": s.deadline_needed if s.deadline_needed is not None else s.hours,
        "latency.ttft": None if s.ttft_ms is None else s.ttft_ms / s.band[0],
        "latency.tpot": None if s.tpot_ms is None else s.tpot_ms / s.band[0],
    }[rule]
    return None if needed is None else (_up(needed), needed)


def _categorical(rule: str, c: Candidate) -> str:
    offer = c.row.offer
    if rule == "provider.excluded":
        return f"dropping {offer.provider} from constraints.providers.exclude"
    if rule == "provider.not_allowed":
        return f"adding {offer.provider} to constraints.providers.allow"
    if rule == "accelerator.not_allowed":
        accelerator = c.row.itype.accelerator if c.row.itype else "?"
        return f"adding {accelerator} to constraints.accelerators.allow"
    if rule == "pricing.model":
        return f"allowing {offer.pricing} in constraints.pricing"
    if rule == "price.suspect":
        return "setting constraints.accept_suspect_prices: true"
    if rule == "price.stale":
        return f"raising constraints.max_price_age_days (the price is of {offer.as_of})"
    if rule == "account.not_enabled":
        return f"adding a {offer.provider} account to the accounts file"
    if rule == "account.quota":
        return f"raising the {offer.provider} quota for {offer.region} in the accounts file"
    if rule == "engine.platform":
        accelerator = c.row.itype.accelerator if c.row.itype else "?"
        return f"naming a serving.engine that runs on {accelerator} (or dropping serving.engine)"
    if rule.startswith("residency."):
        country = c.row.region.country if c.row.region else None
        where = country or "unknown country"
        return f"widening constraints.residency to {offer.provider}:{offer.region} ({where})"
    scope = rule.partition(".")[2]
    return f"dropping {scope} from constraints.compliance"


_Part = tuple[str, str, float | None]
"""(rule, phrase, needed value for a numeric rule else None)."""


def _relaxation(
    c: Candidate, caps: dict[str, float | None]
) -> tuple[tuple[str, ...], float, list[_Part]] | None:
    """(constraints relaxed, relative size, parts) or None when a rule cannot be relaxed."""
    names: list[str] = []
    parts: list[_Part] = []
    size = 0.0
    for rule in sorted({r.rule for r in c.reasons}):
        if rule in UNRELAXABLE:
            return None
        if rule in _NUMERIC:
            found = _numeric(rule, c)
            if found is None:
                return None
            text, needed = found
            cap = caps.get(_NUMERIC[rule]) or needed
            names.append(_NUMERIC[rule])
            parts.append((rule, f"relaxing {_NUMERIC[rule]} to {text}", needed))
            size += needed / cap - 1 if cap else 1.0
        else:
            phrase = _categorical(rule, c)
            names.append(phrase)
            parts.append((rule, phrase, None))
            size += 1.0
    return tuple(names), size, parts


def _what(c: Candidate) -> str:
    offer = c.row.offer
    price = f", {c.hourly:,.2f} USD/h" if c.hourly is not None else ""
    return (
        f"{offer.provider} {offer.instance_type} ({c.sizing.instances} instance(s)) in {offer.region} "
        f"({offer.pricing}{price})"
    )


def _country(c: Candidate) -> str:
    return (c.row.region.country if c.row.region else None) or "unknown country"


def _group_key(names: tuple[str, ...], c: Candidate) -> tuple[object, ...]:
    """Misses that differ only by the region a residency widening names are one line."""
    general = tuple(
        "widening constraints.residency" if n.startswith("widening constraints.residency") else n
        for n in names
    )
    offer = c.row.offer
    return (offer.provider, offer.instance_type, offer.pricing, c.sizing.instances, general)


_LISTED = 6
"""Regions a grouped miss names (nearest first); the rest are counted."""

_Member = tuple[tuple[float, float, str], list[_Part], Candidate]


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _line(members: list[_Member]) -> str:
    """One miss for candidates of one instance type in several regions: every value admits them all."""
    if len(members) == 1:
        _, parts, c = members[0]
        return f"{' and '.join(p[1] for p in parts)} would admit {_what(c)}"
    phrases = []
    for i, (rule, phrase, needed) in enumerate(members[0][1]):
        if needed is not None:
            top = max(m[1][i][2] or 0.0 for m in members)
            phrases.append(f"relaxing {_NUMERIC[rule]} to {_up(top)}")
        elif rule.startswith("residency."):
            where = ", ".join(sorted({_country(m[2]) for m in members}))
            provider = members[0][2].row.offer.provider
            phrases.append(
                f"widening constraints.residency to any of {len(members)} {provider} regions ({where})"
            )
        else:
            phrases.append(phrase)
    c = members[0][2]
    offer = c.row.offer
    prices = sorted({f"{m[2].hourly:,.2f}" for m in members if m[2].hourly is not None}, key=_number)
    price = f", {'-'.join(dict.fromkeys((prices[0], prices[-1])))} USD/h" if prices else ""
    regions = ", ".join(m[2].row.offer.region for m in members[:_LISTED])
    regions += f" (+{len(members) - _LISTED} more)" if len(members) > _LISTED else ""
    return (
        f"{' and '.join(phrases)} would admit {offer.provider} {offer.instance_type} "
        f"({c.sizing.instances} instance(s)) in {regions} ({offer.pricing}{price})"
    )


def nearest_misses(rejected: Sequence[Rejected], caps: dict[str, float | None]) -> list[str]:
    """Up to MAX_MISSES relaxations, nearest first, each naming the candidate(s) it would admit."""
    best: dict[tuple[str, ...], _Member] = {}
    for item in rejected:
        if any(r.rule in UNRELAXABLE for r in item[4]):
            continue
        c = as_candidate(item)
        found = _relaxation(c, caps)
        if found is None:
            continue
        names, size, parts = found
        key = (size, c.hourly if c.hourly is not None else math.inf, _what(c))
        if names not in best or key < best[names][0]:
            best[names] = (key, parts, c)
    groups: dict[tuple[object, ...], list[_Member]] = {}
    order: dict[tuple[object, ...], tuple[int, tuple[float, float, str]]] = {}
    for names, member in best.items():
        gkey = _group_key(names, member[2])
        groups.setdefault(gkey, []).append(member)
        rank = (len(names), member[0])
        order[gkey] = min(order.get(gkey, rank), rank)
    ranked = sorted(groups, key=lambda g: order[g])[:MAX_MISSES]
    return [_line(sorted(groups[g], key=lambda m: m[0])) for g in ranked]


_CANNOT = r"target cannot do (\w+):"  # compiled (and cached by re) when a decision is infeasible
# What makes the pin require a feature, named as the CLI flag and the construct prop that set it.
_REQUIRED_BY = {
    "kubernetes_node_pool": "drop the cluster (--cluster / cluster=)",
    "repeatable_plan": "pin the provider yourself (a pinned provider need not plan the same machine again)",
}


def unsupported_fix(rejected: Sequence[Rejection], pin: Pin) -> str | None:
    """The "To fix" when every rejected candidate includes ``target.unsupported`` (no relaxation can
    admit it: another provider, or drop what makes the pin require the feature), else None."""
    if not rejected or not all(any(r.rule == "target.unsupported" for r in x.reasons) for x in rejected):
        return None
    messages = [r.message for x in rejected for r in x.reasons if r.rule == "target.unsupported"]
    lacking = sorted({m[1] for message in messages for m in re.finditer(_CANNOT, message)})
    required = [f for f in pin.require if f in lacking]
    targets = pin.targets or {}
    missing = required or lacking
    able = [p for p, unsupported in targets.items() if not set(missing) & set(unsupported)]
    can = f"pin a provider whose target can ({', '.join(able)})" if able else "no target can express it"
    drop = [_REQUIRED_BY[f] for f in required if f in _REQUIRED_BY]
    if pin.provider is not None:
        own = targets.get(pin.provider, pin.unsupported)
        reasons = [(f, own[f]) for f in missing if f in own]
        why = reasons[0][1] if len(reasons) == 1 else "; ".join(f"{f}: {r}" for f, r in reasons)
        head = f"the pinned provider's Terraform target ({pin.provider}) cannot express {', '.join(missing)}"
        head += f" ({why})" if why else ""
    elif missing:
        head = f"no candidate's Terraform target can express {', '.join(missing)}"
    else:
        head = "no candidate's provider has a Terraform target"
    tail = f", or {' and '.join(drop)}" if drop else ", or change the intent so placements need less"
    return f"To fix: {head}, which every candidate needs, so relaxing constraints cannot help: {can}{tail}."
