"""Evaluate every offer of the catalog against the intent: sized candidates and rejections.

Each rule's Reasons are worked out once per group of offers sharing its inputs and reused.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..catalog import HOURS_PER_MONTH, PRICE_MODELS
from ..intent import WorkloadIntent
from ._accounts import account_price, account_rules
from ._billing import billed_hours
from ._decision import Reason, Rejections
from ._index import CatalogIndex, Row
from ._pin import Pin
from ._price_age import stale_rule
from ._reserved import committed
from ._resolve import Resolved
from ._retired import RETIRED, retired_rule
from ._rules import (
    accelerator_rule,
    compliance_rules,
    features_needed,
    placement_services,
    price_rules,
    pricing_rule,
    provider_rule,
    residency_rule,
    target_rule,
)
from ._sizing import Sizer, Sizing
from ._suspect import offer_key

if TYPE_CHECKING:
    from ..accounts import Accounts

__all__ = [
    "Candidate",
    "Evaluation",
    "Evaluator",
    "Masked",
    "Rejected",
    "RunContext",
    "as_candidate",
    "evaluate_each",
    "evaluator",
]

_SIZED_RULES = frozenset({"deadline", "latency.ttft", "latency.tpot", "throughput"})
"""Sizing failures after which the deployment's size (and so its price) is still meaningful."""


@dataclass(slots=True)
class Candidate:
    """One offer x a number of instances, with its prices and (for rejected ones) its reasons."""

    row: Row
    sizing: Sizing
    hourly: float | None
    """Hourly USD of the whole deployment (instances x offer price), None when unpriced."""
    unit_cost: float = 0.0
    ranked_unit_cost: float = 0.0
    """``unit_cost`` rounded to 9 decimals, as the ranking compares it (``_rank.rank_key``)."""
    total: float | None = None
    reasons: tuple[Reason, ...] = ()
    parts: tuple[float, ...] = ()
    """The six scores in SCORE_DIMENSIONS order (feasible candidates only)."""
    score: float = 0.0
    list_hourly: float | None = None
    """The deployment's hourly list price when the team's accounts changed it (discount, owned)."""
    terms: str = ""
    """The account terms that did, in words ("12 % negotiated discount on aws p5")."""
    commitment: float | None = None
    """Reserved offers: USD committed for the whole term (hourly x term hours x terms needed)."""
    whole_term: bool = False
    """Reserved training: the job is shorter than the term it commits to and pays the whole term."""
    services: tuple[str, ...] = ("vm",)
    """The provider services the placement runs on (rules.placement_services)."""
    position: int = -1
    """The offer's place in ``CatalogIndex.rows`` when the grouped evaluation found it; else -1."""

    @property
    def monthly(self) -> float | None:
        return None if self.hourly is None else self.hourly * HOURS_PER_MONTH


@dataclass(slots=True)
class RunContext:
    """What the offers of one run (provider, instance type) share: the sizing and its reasons."""

    sizing: Sizing
    shared: tuple[Reason, ...]
    """provider, accelerator and retirement reasons (the sizing's own are in ``sizing.reasons``)."""
    services: tuple[str, ...]
    """The provider services the placement runs on (``rules.placement_services``)."""
    priced: bool
    """Whether the price caps apply (``priced``)."""
    per_instance: int
    """Accelerators per instance (for the accounts' quotas)."""
    billed: float | None
    """The job's hours as the provider bills them (None for a service)."""
    billed_p10: float | None
    """The same at the estimate's conservative point (``billed_p10``)."""
    targets: dict[str, tuple[Reason, ...]] | None = None
    """``target.unsupported`` by price model, filled as the run's offers are read."""


def billed_p10(provider: str, sizing: Sizing) -> float | None:
    """The job's hours at the p10 point as ``provider`` bills them (None for a service)."""
    p10 = sizing.hours_p10
    return billed_hours(provider, p10) if p10 is not None else None


def priced(sizing: Sizing) -> bool:
    """Whether the price caps apply to a sizing: it is meaningful (it fits, maybe too slowly)."""
    return not sizing.reasons or all(r.rule in _SIZED_RULES for r in sizing.reasons)


Rejected = tuple[Row, Sizing, float | None, float | None, tuple[Reason, ...]]
"""A rejected offer as (row, sizing, hourly, total, reasons): most offers are rejected."""


def as_candidate(rejected: Rejected) -> Candidate:
    """A rejected offer as a Candidate (for the nearest-miss search)."""
    row, sizing, hourly, total, reasons = rejected
    return Candidate(row=row, sizing=sizing, hourly=hourly, total=total, reasons=reasons)


class Masked(Sequence[Rejected]):
    """Rejected offers that know, without making them, which carry a rule (``_groups``)."""

    @abc.abstractmethod
    def without(self, rules: frozenset[str]) -> list[Rejected]:
        """The rejected offers carrying none of ``rules``, in canonical order."""

    @abc.abstractmethod
    def carrying(self, rule: str) -> int:
        """How many rejected offers carry ``rule``."""


@dataclass(slots=True)
class Evaluation:
    """What ``evaluate`` found: feasible candidates, rejected offers, and what the pin left out."""

    feasible: list[Candidate]
    rejected: Sequence[Rejected]
    """In canonical order; a grouped evaluation (``_groups``) makes each one when it is read."""
    pinned_out: dict[str, int]
    pinned_out_feasible: list[Candidate]
    by_rule: Mapping[str, int] | None = None
    """Reasons per rule over ``rejected``, sorted by rule, when known without reading them."""
    examples: Mapping[str, int] | None = None
    """Rule -> the index in ``rejected`` of the first rejection carrying it, when known so."""
    by_position: bool = False
    """The feasible candidates carry canonical positions that order as ``_rank.rank_key`` does."""
    _rejections: Rejections | None = None

    def without(self, rules: frozenset[str]) -> Sequence[Rejected]:
        """The rejected offers carrying none of ``rules``, in canonical order (only theirs made)."""
        rows = self.rejected
        if isinstance(rows, Masked):
            return rows.without(rules)
        return [row for row in rows if not any(r.rule in rules for r in row[4])]

    def all_carry(self, rule: str) -> bool:
        """Whether every rejected offer carries ``rule`` (False when none is rejected)."""
        rows = self.rejected
        if isinstance(rows, Masked):
            return bool(rows) and rows.carrying(rule) == len(rows)
        return bool(rows) and all(any(r.rule == rule for r in row[4]) for row in rows)

    def rejections(self) -> Rejections:
        """The rejected offers as the Decision's records (canonical order; each made when read)."""
        if self._rejections is None:
            rows = self.rejected
            if isinstance(rows, list):
                rows = tuple(rows)  # a snapshot: the list is the evaluator's
            self._rejections = Rejections(rows, by_rule=self.by_rule, examples=self.examples)
        return self._rejections


class Evaluator:
    def __init__(
        self,
        intent: WorkloadIntent,
        resolved: Resolved,
        pin: Pin,
        sizer: Sizer,
        suspects: Mapping[tuple[str, str, str, str], Reason],
        as_of: str,
        accounts: Accounts | None = None,
    ) -> None:
        self.constraints = intent.constraints
        # price.suspect: the catalog's contradicted prices, unless the intent accepts them
        self.suspects = {} if intent.constraints.accept_suspect_prices else suspects
        self.as_of = as_of
        self.max_age = intent.constraints.max_price_age_days  # price.stale (engine/_price_age.py)
        self.accounts = accounts
        self.resolved = resolved
        self.pin = pin
        self.sizer = sizer
        self.regions: dict[tuple[str, str, tuple[str, ...]], tuple[Reason, ...]] = {}
        self.pricing = {model: pricing_rule(model, self.constraints) for model in PRICE_MODELS}
        k = self.constraints
        self.caps: tuple[float, float, float] = (
            math.inf if k.max_hourly_usd is None else k.max_hourly_usd,
            math.inf if k.max_monthly_usd is None else k.max_monthly_usd,
            math.inf if k.max_total_usd is None else k.max_total_usd,
        )
        self._by_provider: dict[str, tuple[Reason, ...]] = {}
        self._shared: dict[tuple[str, str], tuple[Reason, ...]] = {}
        self._by_target: dict[tuple[str, bool, str, bool], tuple[Reason, ...]] = {}
        # without target limits every feature is assumed expressible
        self.targets_given = pin.targets is not None or bool(pin.unsupported) or bool(pin.require)
        # The provider services a placement runs on, for a GPU machine and a TPU slice
        kubernetes = "kubernetes_node_pool" in pin.require
        self._services = {tpu: placement_services(tpu=tpu, kubernetes=kubernetes) for tpu in (False, True)}
        self._by_accelerator: dict[str, tuple[Reason, ...]] = {}

    def _unsupported(self, provider: str) -> Mapping[str, str] | None:
        targets = self.pin.targets
        if targets is None:
            return self.pin.unsupported
        return targets.get(provider)

    def _run_target(self, row: Row, ctx: RunContext) -> tuple[Reason, ...]:
        """``target`` for an offer of the run ``ctx`` describes (kept by price model in the run)."""
        pricing, targets = row.offer.pricing, ctx.targets
        if targets is None:
            targets = ctx.targets = {}
        found = targets.get(pricing)
        if found is None:
            found = targets[pricing] = self.target(row, needs_fabric=ctx.sizing.needs_fabric)
        return found

    def _target(self, row: Row, needs_fabric: bool) -> tuple[Reason, ...]:
        pin, offer = self.pin, row.offer
        features = features_needed(
            accelerator=row.accelerator,
            pricing=offer.pricing,
            needs_fabric=needs_fabric,
            require=pin.require,
        )
        unsupported = self._unsupported(offer.provider)
        if unsupported is None:
            message = f"there is no Terraform target for provider {offer.provider}"
            return (Reason(rule="target.unsupported", message=message),)
        return target_rule(features, unsupported, offer.provider)

    def sizing(self, row: Row) -> Sizing:
        """The sizing of the row's instance type (the same for its whole run)."""
        provider, name = row.offer.provider, row.offer.instance_type
        if row.itype is None:
            message = f"instance type {name} of {provider} is not described in the catalog"
            return Sizing(instances=1, reasons=(Reason(rule="spec.unknown", message=message),))
        if row.accelerator is None:
            message = f"accelerator {row.itype.accelerator} of {name} is not described in the catalog"
            return Sizing(instances=1, reasons=(Reason(rule="spec.unknown", message=message),))
        return self.sizer.size(row.itype, row.accelerator)

    def _region(self, row: Row, services: tuple[str, ...]) -> tuple[Reason, ...]:
        offer = row.offer
        residency = residency_rule(offer.provider, offer.region, row.region, self.constraints, self.resolved)
        found = residency + compliance_rules(
            row.provider, offer.region, self.constraints.compliance, services
        )
        self.regions[(offer.provider, offer.region, services)] = found
        return found

    def context(self, run: tuple[Row, ...]) -> RunContext:
        """What every offer of ``run`` (offers sharing provider and instance type) shares."""
        first = run[0]
        itype, provider, sizing = first.itype, first.offer.provider, self.sizing(first)
        # A job pays its start-up and the provider's billing increments (the same for every offer of
        # the run but reservations, which pay whole terms: _reserved).
        hours = sizing.hours
        return RunContext(
            sizing,
            self.shared(first),
            self._services[first.accelerator is not None and first.accelerator.is_tpu],
            priced(sizing),
            itype.accelerator_count if itype is not None else 0,
            billed_hours(provider, hours) if hours is not None else None,
            billed_p10(provider, sizing),
        )

    def shared(self, first: Row) -> tuple[Reason, ...]:
        """The provider, accelerator and retirement reasons of the run ``first`` begins."""
        provider, itype = first.offer.provider, first.itype
        key = (provider, itype.accelerator if itype is not None else "")
        found = self._shared.get(key)
        if found is None:
            found = self._shared[key] = self.provider_reasons(provider) + self.accelerator_reasons(key[1])
        if (provider, first.offer.instance_type) in RETIRED:
            found += retired_rule(provider, first.offer.instance_type, self.as_of)
        return found

    def provider_reasons(self, provider: str) -> tuple[Reason, ...]:
        found = self._by_provider.get(provider)
        if found is None:
            found = self._by_provider[provider] = provider_rule(provider, self.constraints)
        return found

    def accelerator_reasons(self, accelerator: str) -> tuple[Reason, ...]:
        found = self._by_accelerator.get(accelerator)
        if found is None:
            found = self._by_accelerator[accelerator] = accelerator_rule(accelerator, self.resolved)
        return found

    def target(self, row: Row, *, needs_fabric: bool) -> tuple[Reason, ...]:
        """``target.unsupported`` of the row, with a multi-node fabric or not (memoised)."""
        if not self.targets_given:
            return ()
        tpu = row.accelerator is not None and row.accelerator.is_tpu
        key = (row.offer.provider, tpu, row.offer.pricing, needs_fabric)
        found = self._by_target.get(key)
        if found is None:
            found = self._by_target[key] = self._target(row, needs_fabric)
        return found

    def run(self, run: tuple[Row, ...], feasible: list[Candidate], rejected: list[Rejected]) -> None:
        """Evaluate one run of offers sharing (provider, instance type) into the two lists."""
        ctx = self.context(run)
        for row in run:
            found = self.offer(row, ctx)
            if isinstance(found, Candidate):
                feasible.append(found)
            else:
                rejected.append(found)

    def offer(self, row: Row, ctx: RunContext) -> Candidate | Rejected:
        """One offer of a run: a feasible Candidate, or the rejected tuple with all its reasons."""
        offer, sizing = row.offer, ctx.sizing
        region = self.regions.get((offer.provider, offer.region, ctx.services))
        if region is None:
            region = self._region(row, ctx.services)
        reasons = (
            ctx.shared + self.pricing[offer.pricing] + region + self._run_target(row, ctx) + sizing.reasons
        )
        if self.max_age is not None:
            reasons += stale_rule(offer.as_of, self.as_of, self.max_age)
        if self.suspects:
            suspect = self.suspects.get(offer_key(offer))
            if suspect is not None:
                reasons += (suspect,)
        price = offer.hourly_usd
        if price is None:
            return (row, sizing, None, None, (*reasons, _UNKNOWN_PRICE))
        instances = sizing.instances
        hourly, terms = price * instances, ""
        if self.accounts is not None:  # engine/_accounts.py: enabled, quota, the team's price
            reasons += account_rules(
                self.accounts, offer.provider, offer.region, ctx.per_instance * instances
            )
            hourly, terms = account_price(
                self.accounts,
                offer.provider,
                offer.instance_type,
                offer.region,
                offer.pricing,
                price,
                instances,
            )
        billed, billed_p10 = ctx.billed, ctx.billed_p10
        commitment, whole_term = None, False
        if offer.term_hours is not None:  # a reservation is paid for its whole term (_reserved)
            commitment, whole_term, billed = committed(hourly, offer.term_hours, billed)
            billed_p10 = committed(hourly, offer.term_hours, billed_p10)[2]
        total = hourly * billed if billed is not None else None
        # The budget cap is checked at the estimate's conservative (p10) point, like the deadline;
        # the caps are checked cheaply first, price_rules builds the messages only for a breach.
        cap_hourly, cap_monthly, cap_total = self.caps
        if ctx.priced and (
            hourly > cap_hourly
            or hourly * HOURS_PER_MONTH > cap_monthly
            or (billed_p10 is not None and hourly * billed_p10 > cap_total)
        ):
            reasons += price_rules(hourly, billed_p10, instances, price, self.constraints)
        if reasons:
            return (row, sizing, hourly, total, reasons)
        return Candidate(
            row=row,
            sizing=sizing,
            hourly=hourly,
            total=total,
            list_hourly=price * instances if terms else None,
            terms=terms,
            commitment=commitment,
            whole_term=whole_term,
            services=ctx.services,
        )

    def candidate(self, row: Row, ctx: RunContext, position: int) -> Candidate:
        """What ``offer`` returns for a priced offer known to break no rule, without accounts."""
        price = row.offer.hourly_usd
        assert price is not None and self.accounts is None
        hourly, billed = price * ctx.sizing.instances, ctx.billed
        if row.offer.term_months is None:  # the common case (hundreds)
            total = hourly * billed if billed is not None else None
            # every field in order: a dataclass is made in half the time from positional arguments
            return Candidate(
                row,
                ctx.sizing,
                hourly,
                0.0,
                0.0,
                total,
                (),
                (),
                0.0,
                None,
                "",
                None,
                False,
                ctx.services,
                position,
            )
        term = row.offer.term_hours
        assert term is not None
        commitment, whole_term, billed = committed(hourly, term, billed)
        return Candidate(
            row=row,
            sizing=ctx.sizing,
            hourly=hourly,
            total=hourly * billed if billed is not None else None,
            commitment=commitment,
            whole_term=whole_term,
            services=ctx.services,
            position=position,
        )

    def pin_rule(self, row: Row) -> str | None:
        if self.resolved.pin_provider is not None and row.offer.provider != self.resolved.pin_provider:
            return "pin.provider"
        if self.resolved.pin_region is not None and row.offer.region != self.resolved.pin_region:
            return "pin.region"
        return None


_UNKNOWN_PRICE = Reason(
    rule="price.unknown",
    message="no sourced price for this offer (hourly_usd is null); a missing price is never treated as 0",
)


def evaluator(
    intent: WorkloadIntent,
    resolved: Resolved,
    pin: Pin,
    sizer: Sizer,
    suspects: Mapping[tuple[str, str, str, str], Reason] | None = None,
    as_of: str = "",
    accounts: Accounts | None = None,
) -> Evaluator:
    """The rules of one decision, applied offer by offer (``evaluate_each``) or by group (``_groups``);
    without ``suspects`` and ``as_of``, ``price.suspect`` and ``offer.retired`` do not apply."""
    return Evaluator(intent, resolved, pin, sizer, suspects or {}, as_of or "0000", accounts)


def evaluate_each(evaluator: Evaluator, index: CatalogIndex) -> Evaluation:
    """Every offer, one by one (the grouped evaluation's reference, and the path with accounts).
    Offers outside the pin are evaluated too, but counted in ``pinned_out``, not listed."""
    feasible: list[Candidate] = []
    rejected: list[Rejected] = []
    for run in index.by_itype:
        evaluator.run(run, feasible, rejected)
    resolved = evaluator.resolved
    if resolved.pin_provider is None and resolved.pin_region is None:
        return Evaluation(feasible=feasible, rejected=rejected, pinned_out={}, pinned_out_feasible=[])
    result = Evaluation(feasible=[], rejected=[], pinned_out={}, pinned_out_feasible=[])
    inside: list[Rejected] = []
    for candidate in feasible:
        rule = evaluator.pin_rule(candidate.row)
        if rule is None:
            result.feasible.append(candidate)
        else:
            result.pinned_out[rule] = result.pinned_out.get(rule, 0) + 1
            result.pinned_out_feasible.append(candidate)
    for item in rejected:
        rule = evaluator.pin_rule(item[0])
        if rule is None:
            inside.append(item)
        else:
            result.pinned_out[rule] = result.pinned_out.get(rule, 0) + 1
    result.rejected = inside
    return result
