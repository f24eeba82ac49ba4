"""The hard-constraint filters: one small function per rule, each returning its Reasons.

Each answers for a group of offers sharing what it reads, with a Reason (its stable id, listed in
docs/decisions.md, and the numbers) or nothing when the group passes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..catalog import HOURS_PER_MONTH, Accelerator, Attestation, Provider, Region
from ..intent import Constraints
from ._decision import Reason
from ._resolve import Resolved

__all__ = [
    "accelerator_rule",
    "attestation_applies",
    "compliance_rules",
    "features_needed",
    "placement_services",
    "price_rules",
    "pricing_rule",
    "provider_rule",
    "residency_rule",
    "target_rule",
]


LISTED = 6
"""Values of a constraint a rejection message names; the rest are counted (messages repeat)."""


def listed(values: Sequence[str]) -> str:
    """``a, b, c`` for a message, at most ``LISTED`` values then ``and N more``."""
    head = ", ".join(values[:LISTED])
    return head if len(values) <= LISTED else f"{head} and {len(values) - LISTED:,} more"


def provider_rule(provider: str, constraints: Constraints) -> tuple[Reason, ...]:
    """``provider.excluded`` / ``provider.not_allowed`` from ``constraints.providers``."""
    rule = constraints.providers
    if rule is None:
        return ()
    if rule.exclude is not None and provider in rule.exclude:
        return (Reason(rule="provider.excluded", message=f"provider {provider} is excluded by the intent"),)
    if rule.allow is not None and provider not in rule.allow:
        allowed = listed(rule.allow)
        return (
            Reason(
                rule="provider.not_allowed", message=f"provider {provider} is not in the allowed ({allowed})"
            ),
        )
    return ()


def accelerator_rule(accelerator: str, resolved: Resolved) -> tuple[Reason, ...]:
    """``accelerator.not_allowed`` from ``constraints.accelerators.allow`` (resolved to catalog ids)."""
    if resolved.accelerators is None or accelerator in resolved.accelerators:
        return ()
    allowed = listed(sorted(resolved.accelerators))
    return (
        Reason(
            rule="accelerator.not_allowed",
            message=f"accelerator {accelerator} is not among the allowed ({allowed})",
        ),
    )


def pricing_rule(pricing: str, constraints: Constraints) -> tuple[Reason, ...]:
    """``pricing.model``: the offer's price model must be in ``constraints.pricing``."""
    if pricing in constraints.pricing:
        return ()
    allowed = ", ".join(constraints.pricing)
    return (Reason(rule="pricing.model", message=f"{pricing} pricing is not allowed (allowed: {allowed})"),)


def residency_rule(
    provider: str, code: str, region: Region | None, constraints: Constraints, resolved: Resolved
) -> tuple[Reason, ...]:
    """The three ``residency.*`` rules (a region of unknown country fails a country rule)."""
    residency = constraints.residency
    if residency is None:
        return ()
    if residency.countries is not None:
        country = region.country if region is not None else None
        if country in residency.countries:
            return ()
        where = f"is in {country}" if country else "has no known country"
        wanted = listed(residency.countries)
        return (Reason(rule="residency.country", message=f"region {code} {where}, not in {wanted}"),)
    if residency.continents is not None:
        continent = region.continent if region is not None else None
        if continent in residency.continents:
            return ()
        wanted = listed(residency.continents)
        return (
            Reason(rule="residency.continent", message=f"region {code} is in {continent}, not in {wanted}"),
        )
    allowed = resolved.residency_regions or frozenset()
    if (provider, code) in allowed:
        return ()
    wanted = listed(sorted(f"{p}:{c}" for p, c in allowed))
    return (Reason(rule="residency.region", message=f"region {provider}:{code} is not among {wanted}"),)


def compliance_rules(
    provider: Provider, code: str, scopes: tuple[str, ...], services: tuple[str, ...] = ("vm",)
) -> tuple[Reason, ...]:
    """``compliance.<scope>`` for each requested scope the provider does not attest in ``code``
    for every one of ``services`` (placement_services()): only ``provider_claimed`` evidence that
    ``attestation_applies`` satisfies a scope; weaker evidence only feeds the soft score.
    """
    reasons = []
    for scope in scopes:
        held = [a for a in provider.attestations if a.scope == scope]
        claimed = [a for a in held if a.evidence == "provider_claimed"]
        if any(attestation_applies(a, code, services) for a in claimed):
            continue
        here = [a for a in claimed if a.regions is None or code in a.regions]
        if here:
            why = f"{provider.id}'s {scope} authorisation " + "; ".join(_service_gaps(here[0], services))
        elif claimed:
            in_scope = sorted({r for a in claimed for r in a.regions or ()})
            why = f"{provider.id} attests {scope} only in {', '.join(in_scope)}, not in {code}"
        elif held:
            grades = " and ".join(sorted({a.evidence for a in held}))
            why = (
                f"{provider.id}'s {scope} evidence is {grades}; only provider_claimed evidence "
                "satisfies a hard constraint"
            )
        else:
            why = f"{provider.id} has no {scope} attestation in the catalog"
        reasons.append(Reason(rule=f"compliance.{scope}", message=why))
    return tuple(reasons)


def attestation_applies(att: Attestation, code: str, services: tuple[str, ...] = ("vm",)) -> bool:
    """Whether ``att`` speaks for a placement in region ``code`` on ``services``: its region scope,
    if any, includes ``code``, and an attestation authorised service by service (FedRAMP) has every
    one of ``services`` ``in_scope`` (``not_found`` is not). The one scope rule of the compliance
    filter and the soft score, so a score never credits what the filter would refuse.
    """
    return (att.regions is None or code in att.regions) and not _service_gaps(att, services)


_GAP = {
    "not_in_scope": "does not cover {name}, which the placement runs on (per the source read {read})",
    "not_found": (
        "is not known to cover {name}, which the placement runs on: no source read {read} names it "
        "(computeops catalog show lists what was read), and only a service confirmed in scope "
        "satisfies a hard constraint"
    ),
}


def _service_gaps(att: Attestation, services: tuple[str, ...]) -> list[str]:
    """Why ``att`` does not cover ``services``: empty when it covers them all (or is not per service)."""
    if att.services is None:
        return []
    gaps = []
    for kind in services:
        entry = att.service(kind)
        if entry is None:
            gaps.append(f"lists no {kind} service")
        elif entry.status != "in_scope":
            gaps.append(_GAP[entry.status].format(name=entry.name, read=entry.read))
    return gaps


def placement_services(*, tpu: bool, kubernetes: bool) -> tuple[str, ...]:
    """The provider services (catalog.SERVICE_KINDS) a placement runs on: its machines' service
    (``tpu`` for a TPU slice, else ``vm``), plus ``kubernetes`` when it is a node pool of a managed
    cluster (the caller requires ``kubernetes_node_pool``)."""
    machine = "tpu" if tpu else "vm"
    return (machine, "kubernetes") if kubernetes else (machine,)


# (TPU?, in a Kubernetes node pool?) -> the machine's own features (see features_needed)
_MACHINE_FEATURES: Mapping[tuple[bool, bool], tuple[str, ...]] = {
    (True, True): ("tpu", "tpu_node_pool"),
    (True, False): ("tpu",),
    (False, True): (),
    (False, False): ("gpu_vm",),
}


def features_needed(
    *, accelerator: Accelerator | None, pricing: str, needs_fabric: bool, require: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """The target features (targets.FEATURES) a placement needs: what the offer implies plus ``require``.

    The machine is a ``tpu`` or a ``gpu_vm``, except in a required ``kubernetes_node_pool``: a GPU
    machine is then a node of the pool and a TPU slice needs a ``tpu_node_pool``. An offer never
    implies ``repeatable_plan``; callers that need it put it in ``require``.
    """
    tpu = accelerator is not None and accelerator.is_tpu
    pool = "kubernetes_node_pool" in require
    needed = list(_MACHINE_FEATURES[(tpu, pool)])
    if pricing == "spot":
        needed.append("spot")
    if needs_fabric:
        needed.append("multi_node")
    needed += [f for f in require if f not in needed]
    return tuple(needed)


def target_rule(
    features: tuple[str, ...], unsupported: Mapping[str, str], provider: str
) -> tuple[Reason, ...]:
    """``target.unsupported``: a needed feature the (pinned) target declares it cannot express."""
    return tuple(
        Reason(rule="target.unsupported", message=f"the {provider} target cannot do {f}: {unsupported[f]}")
        for f in features
        if f in unsupported
    )


def price_rules(
    hourly_total: float, hours: float | None, instances: int, unit: float, constraints: Constraints
) -> tuple[Reason, ...]:
    """``price.max_hourly`` / ``price.max_monthly`` / ``price.max_total`` on the whole deployment."""
    reasons = []
    each = f"{instances} x {unit:,.4g} USD/h = " if instances > 1 else ""
    cap = constraints.max_hourly_usd
    if cap is not None and hourly_total > cap:
        reasons.append(
            Reason(
                rule="price.max_hourly",
                message=f"{each}{hourly_total:,.2f} USD/h exceeds max_hourly_usd {cap:,.2f}",
            )
        )
    cap = constraints.max_monthly_usd
    monthly = hourly_total * HOURS_PER_MONTH
    if cap is not None and monthly > cap:
        reasons.append(
            Reason(
                rule="price.max_monthly",
                message=f"{monthly:,.2f} USD/month ({hourly_total:,.2f} USD/h x {HOURS_PER_MONTH}) "
                f"exceeds max_monthly_usd {cap:,.2f}",
            )
        )
    cap = constraints.max_total_usd
    if cap is not None and hours is not None and hourly_total * hours > cap:
        reasons.append(
            Reason(
                rule="price.max_total",
                message=f"the job costs {hourly_total * hours:,.2f} USD at the estimate's p10 point "
                f"({hourly_total:,.2f} USD/h x {hours:,.2f} h billed, start-up included) and exceeds "
                f"max_total_usd {cap:,.2f}",
            )
        )
    return tuple(reasons)
