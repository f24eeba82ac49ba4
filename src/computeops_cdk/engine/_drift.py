"""The drift rules: is a locked placement still the one to run, and if not, what should replace it?

``reevaluate``, the constructs' lockfile and ``computeops_placement_lock`` all call
``evaluate_drift``. Pure: no clock (the caller passes ``now``), no I/O.

The rules, in the order they are applied:

1. **infeasible**: the locked offer is gone from the catalog, has lost its price, or a hard
   constraint now rejects it; reported whatever the lock's age, with the best feasible replacement.
2. **cheaper**: a feasible placement at least ``hysteresis_percent`` cheaper per unit of useful work
   *and* with a strictly better weighted score, on today's catalog in the same field of candidates;
   the first in rank order is proposed, unless the lock is younger than ``min_hold_hours``.
3. **price_changed**: the locked offer's own price moved, nothing qualifies as cheaper.
4. **ok**: otherwise.

A move needs a real gain: once accepted, the old placement is no longer cheaper by the margin.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from .._limits import MAX_INSTANCES
from ..accounts import Accounts
from ..catalog import PRICE_MODELS, PROVIDER_IDS, Catalog, Offer
from ..catalog._validate import identifier_problem
from ..errors import LockError, PinnedPlacementError, described, did_you_mean, did_you_mean_text, shown
from ..intent import WorkloadIntent
from ._decide import Ranked, as_catalog, as_intent, ranked
from ._decision import Placement, Reason, UnitCost
from ._evaluate import Candidate
from ._explain import compare, unit_label
from ._pin import Pin
from ._sizing import Calibration

__all__ = [
    "DEFAULT_HYSTERESIS_PERCENT",
    "DEFAULT_MIN_HOLD_HOURS",
    "DRIFT_STATUSES",
    "Drift",
    "DriftPolicy",
    "DriftStatus",
    "LockedPlacement",
    "evaluate_drift",
    "locked_fields",
    "parse_utc",
    "placement_of",
]

DriftStatus = Literal["ok", "cheaper", "price_changed", "infeasible"]
DRIFT_STATUSES: tuple[DriftStatus, ...] = ("ok", "cheaper", "price_changed", "infeasible")
DEFAULT_HYSTERESIS_PERCENT = 10.0
"""A replacement must be at least this much cheaper per unit of useful work to displace a lock."""
DEFAULT_MIN_HOLD_HOURS = 24.0
"""A lock younger than this is never proposed for a move."""

_PRICE_EPSILON = 1e-6  # relative: a price "changed" when it moved by more than float noise


def parse_utc(text: str, *, what: str = "locked_at") -> datetime:
    """An ISO-8601 UTC timestamp (``2026-12-01T12:00:00Z``) as an aware datetime; LockError otherwise."""
    if not isinstance(text, str):
        raise LockError(f"{what} must be an ISO-8601 UTC timestamp string (got {described(text)})")
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise LockError(
            f"{what} is not an ISO-8601 timestamp (got {described(text)}). To fix: e.g. 2026-12-01T12:00:00Z"
        ) from None
    if value.tzinfo is None or value.utcoffset() != timedelta(0):
        raise LockError(f"{what} must be in UTC with a 'Z' suffix (got {text!r})")
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class LockedPlacement:
    """What a lock keeps of a decision: the offer, its size and what it cost and scored when locked.

    Attributes:
        provider, instance_type, region, pricing: the locked offer.
        instances: the locked deployment size.
        hourly_usd: the whole deployment's hourly price when locked.
        unit_cost: cost per unit of useful work when locked.
        score: weighted score when locked.
        locked_at: when it was locked, ISO-8601 UTC (``2026-12-01T12:00:00Z``).
        catalog_version, catalog_sha256: the catalog it was decided on.
        term_months: a reserved lock's term (12 or 36; a 1-year and a 3-year reservation of one
            offer are different commitments); None for other price models.
    """

    provider: str
    instance_type: str
    region: str
    pricing: str
    instances: int
    hourly_usd: float
    unit_cost: UnitCost
    score: float
    locked_at: str
    catalog_version: str = ""
    catalog_sha256: str = ""
    term_months: int | None = None

    @classmethod
    def from_placement(
        cls, placement: Placement, *, locked_at: str, catalog_version: str = "", catalog_sha256: str = ""
    ) -> LockedPlacement:
        """Lock ``placement`` as of ``locked_at``."""
        parse_utc(locked_at)
        return cls(
            **locked_fields(placement),
            locked_at=locked_at,
            catalog_version=catalog_version,
            catalog_sha256=catalog_sha256,
        )

    def holds(self, c: Candidate) -> bool:
        """True when ``c`` is this lock's offer (and term; a lock without a term holds any)."""
        return _key(c.row.offer) == self.key and self.term_months in (None, c.row.offer.term_months)

    @property
    def key(self) -> tuple[str, str, str, str]:
        """(provider, instance type, region, price model): the offer this lock holds."""
        return (self.provider, self.instance_type, self.region, self.pricing)

    @property
    def name(self) -> str:
        return _name(self)

    def to_dict(self) -> dict[str, Any]:
        """The lock's JSON form (the lockfile's ``placement`` and the provider's state)."""
        return {
            "provider": self.provider,
            "instance_type": self.instance_type,
            "region": self.region,
            "pricing": self.pricing,
            "instances": self.instances,
            "hourly_usd": self.hourly_usd,
            "unit_cost": self.unit_cost.to_dict(),
            "score": self.score,
            "locked_at": self.locked_at,
            "catalog_version": self.catalog_version,
            "catalog_sha256": self.catalog_sha256,
            **({"term_months": self.term_months} if self.term_months is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: object, *, path: str = "placement") -> LockedPlacement:
        """Read ``to_dict``'s form back; a LockError naming the field for anything else."""
        if not isinstance(data, Mapping):
            raise LockError(f"{path}: must be an object (got {described(data)})")
        strings = ("provider", "instance_type", "region", "pricing", "locked_at")
        for name in strings:
            if not isinstance(data.get(name), str) or not data[name]:
                raise LockError(
                    f"{path}.{name}: must be a non-empty string (got {described(data.get(name))})"
                )
        _check_offer_ids(data, path)
        if data["pricing"] not in PRICE_MODELS:  # lock.schema.json's enum: a typo is not a price model
            raise LockError(
                f"{path}.pricing: must be one of {', '.join(PRICE_MODELS)} (got {described(data['pricing'])})"
            )
        instances = data.get("instances")
        if (
            isinstance(instances, bool)
            or not isinstance(instances, int)
            or not 1 <= instances <= MAX_INSTANCES
        ):
            # Bounded as the engine sizes: a corrupt count reached the synthesized stack (10**30
            # instances ran node out of memory at synth) and the drift report.
            raise LockError(
                f"{path}.instances: must be a whole number in 1..{MAX_INSTANCES} "
                f"(got {described(instances)}). To fix: restore the lockfile, or relock the workload"
            )
        numbers = {name: data.get(name) for name in ("hourly_usd", "score")}
        unit = data.get("unit_cost")
        if not isinstance(unit, Mapping) or unit.get("unit") not in (
            "usd_per_million_output_tokens",
            "usd_per_training_step",
        ):
            raise LockError(
                f"{path}.unit_cost: must be {{unit, value}} with a known unit (got {described(unit)})"
            )
        numbers["unit_cost.value"] = unit.get("value")
        for name, value in numbers.items():
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value < 0
            ):
                raise LockError(f"{path}.{name}: must be a finite number >= 0 (got {described(value)})")
        parse_utc(data["locked_at"], what=f"{path}.locked_at")
        term = data.get("term_months")
        if term is not None and (isinstance(term, bool) or term not in (12, 36)):
            raise LockError(f"{path}.term_months: must be 12 or 36 (got {described(term)})")
        return cls(
            term_months=term,
            provider=data["provider"],
            instance_type=data["instance_type"],
            region=data["region"],
            pricing=data["pricing"],
            instances=instances,
            hourly_usd=float(data["hourly_usd"]),
            unit_cost=UnitCost(unit=unit["unit"], value=float(unit["value"])),
            score=float(data["score"]),
            locked_at=data["locked_at"],
            catalog_version=str(data.get("catalog_version", "")),
            catalog_sha256=str(data.get("catalog_sha256", "")),
        )


def locked_fields(placement: Placement) -> dict[str, Any]:
    """What a lock keeps of ``placement``, by ``LockedPlacement`` field name (all but when and on
    which catalog): the one mapping the lockfile and the Terraform lock's state both build on."""
    return {
        "provider": placement.provider,
        "instance_type": placement.instance_type,
        "region": placement.region,
        "pricing": placement.pricing,
        "instances": placement.instances,
        "hourly_usd": placement.hourly_usd,
        "unit_cost": placement.unit_cost,
        "score": placement.score,
        "term_months": placement.term_months,
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class DriftPolicy:
    """When a lock is worth moving.

    Attributes:
        hysteresis_percent: a replacement must be at least this much cheaper per unit of useful work
            (and score strictly better). Default: 10.
        min_hold_hours: a lock younger than this is never proposed for a move. Default: 24.
    """

    hysteresis_percent: float = DEFAULT_HYSTERESIS_PERCENT
    min_hold_hours: float = DEFAULT_MIN_HOLD_HOURS

    def __post_init__(self) -> None:
        for name, top in (("hysteresis_percent", 100.0), ("min_hold_hours", 24.0 * 3650)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < top:
                raise LockError(
                    f"{name} must be a number in [0, {top:g}) (got {described(value)}). "
                    f"To fix: e.g. {name}={_DEFAULTS[name]:g}"
                )


_DEFAULTS = {"hysteresis_percent": DEFAULT_HYSTERESIS_PERCENT, "min_hold_hours": DEFAULT_MIN_HOLD_HOURS}


@dataclass(frozen=True, slots=True, kw_only=True)
class Drift:
    """What ``evaluate_drift`` found for one lock.

    Attributes:
        status: ``ok``, ``cheaper``, ``price_changed`` or ``infeasible`` (rules in the module docstring).
        locked: the lock that was checked.
        current: the locked offer re-evaluated, scored and sized on today's catalog (None when infeasible).
        proposed: the placement to move to (``cheaper``; ``infeasible`` when anything is feasible).
        saving_percent: how much cheaper per unit of useful work ``proposed`` is than ``current`` (cheaper).
        saving_usd_per_month: what the same useful work costs less per month (cheaper).
        reasons: why the lock is infeasible (rule + message with the numbers).
        held: the lock is younger than ``min_hold_hours`` (no move is proposed).
        summary: one line in words, e.g. for a PR comment's table.
        detail: further lines: the price move, the trade-off, the hold, and the regions and
            instance types the accounts file names that the catalog does not list (warnings).
    """

    status: DriftStatus
    locked: LockedPlacement
    current: Placement | None
    proposed: Placement | None
    saving_percent: float | None = None
    saving_usd_per_month: float | None = None
    reasons: tuple[Reason, ...] = ()
    held: bool = False
    summary: str = ""
    detail: tuple[str, ...] = ()

    @property
    def actionable(self) -> bool:
        """True when someone should act: a cheaper placement or an infeasible lock."""
        return self.status in ("cheaper", "infeasible")

    def to_dict(self) -> dict[str, Any]:
        """The drift report of one lock as JSON (``computeops reevaluate --format json``)."""
        return {
            "status": self.status,
            "summary": self.summary,
            "locked": self.locked.to_dict(),
            "current": _brief(self.current),
            "proposed": _brief(self.proposed),
            "saving_percent": self.saving_percent,
            "saving_usd_per_month": self.saving_usd_per_month,
            "reasons": [r.to_dict() for r in self.reasons],
            "held": self.held,
            "detail": list(self.detail),
        }


def _brief(p: Placement | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {
        "provider": p.provider,
        "instance_type": p.instance_type,
        "region": p.region,
        "pricing": p.pricing,
        "instances": p.instances,
        "accelerator": p.accelerator,
        "accelerators_per_instance": p.accelerators_per_instance,
        "hourly_usd": p.hourly_usd,
        "monthly_usd": p.monthly_usd,
        "unit_cost": p.unit_cost.to_dict(),
        "score": p.score,
        "tokens_per_s": p.estimate.tokens_per_s,
        "price_as_of": p.price_as_of,
    }


def _key(o: Offer) -> tuple[str, str, str, str]:
    return (o.provider, o.instance_type, o.region, o.pricing)


def _why_gone(run: Ranked, locked: LockedPlacement) -> tuple[Reason, ...]:
    """The reasons the locked offer is not feasible today: its rejection, or that it is gone."""
    for row, _sizing, _hourly, _total, reasons in run.header.result.rejected:
        if _key(row.offer) == locked.key and locked.term_months in (None, row.offer.term_months):
            return reasons
    catalog = run.header.catalog
    return (
        Reason(
            rule="offer.gone",
            message=(
                f"catalog {catalog.version} (sha256 {catalog.sha256[:12]}) no longer offers "
                f"{locked.provider} "
                f"{locked.instance_type} in {locked.region} ({locked.pricing}"
                + (f", {locked.term_months} months)" if locked.term_months is not None else ")")
            ),
        ),
    )


def _age_hours(locked: LockedPlacement, now: datetime) -> float:
    if not isinstance(now, datetime) or now.tzinfo is None:
        raise LockError(
            f"now must be a timezone-aware datetime (got {described(now)}); the engine reads no clock"
        )
    return (now - parse_utc(locked.locked_at)).total_seconds() / 3600


def _money(value: float) -> str:
    return f"{value:,.2f}"


def evaluate_drift(
    locked: LockedPlacement,
    intent: WorkloadIntent | Mapping[str, Any] | str | os.PathLike[str],
    *,
    now: datetime,
    catalog: Catalog | str | os.PathLike[str] | None = None,
    pin: Pin | None = None,
    policy: DriftPolicy | None = None,
    calibrations: Sequence[Calibration] = (),
    accounts: Accounts | None = None,
) -> Drift:
    """Apply the drift rules (module docstring) to ``locked`` for ``intent`` on ``catalog`` at ``now``.

    Args:
        locked: the lock to check.
        intent: the locked workload's intent (a WorkloadIntent, a mapping or a path).
        now: the caller's clock, timezone-aware (the engine reads none).
        catalog: today's catalog. Default: the embedded catalog.
        pin: the pin the lock was decided with. Default: no pin.
        policy: hysteresis and minimum hold. Default: ``DriftPolicy()`` (10 %, 24 h).
        calibrations: production-measured efficiencies, as ``decide`` takes them. Default: none.
        accounts: the team's accounts (enabled providers, quotas, rates, owned capacity), as
            ``decide`` takes them: the lock is re-checked under today's. Default: none.

    Raises:
        LockError: ``now`` is naive or ``locked.locked_at`` does not parse.
        IntentError, CatalogError: as ``decide``.
    """
    policy = policy if policy is not None else DriftPolicy()
    if not isinstance(locked, LockedPlacement):
        raise LockError(f"locked must be a LockedPlacement (got {described(locked)})")
    age = _age_hours(locked, now)
    held = age < policy.min_hold_hours
    pin = pin if pin is not None else Pin()
    today = as_catalog(catalog)
    gone = pin_gone(pin, today)
    if gone is not None:
        return Drift(
            status="infeasible",
            locked=locked,
            current=None,
            proposed=None,
            reasons=(gone,),
            held=held,
            summary=f"infeasible: {locked.name} now breaks {gone.rule}; nothing is feasible inside the pin",
            detail=(f"{gone.rule}: {gone.message}",),
        )
    # locked: a region or accelerator of the intent that today's catalog dropped matches nothing (a
    # warning line of the detail), it does not stop the re-evaluation (engine._resolve)
    run = ranked(as_intent(intent), today, pin, calibrations, accounts, locked=True)
    feasible = run.feasible
    mine = next((c for c in feasible if locked.holds(c)), None)
    if mine is None:
        return _infeasible(run, locked, held)
    current = run.placement(mine)
    threshold = mine.unit_cost * (1 - policy.hysteresis_percent / 100)
    # Rank order: the first rival that beats the lock on both counts is the one proposed.
    rival = next(
        (c for c in feasible if c.score > mine.score and c.unit_cost <= threshold and c is not mine), None
    )
    detail = list(_price_move(locked, current))
    if rival is not None and held:
        detail.append(
            f"A cheaper placement exists, but the lock is {age:,.1f} h old "
            f"(< {policy.min_hold_hours:g} h minimum hold): no move is proposed yet."
        )
    if rival is not None and not held:
        proposed = run.placement(rival)
        fraction = 1 - rival.unit_cost / mine.unit_cost
        saving = round(current.monthly_usd * fraction, 2)
        percent = round(fraction * 100, 2)
        summary = (
            f"cheaper: {_name(proposed)} is {percent:g} % cheaper per unit of useful work "
            f"({proposed.unit_cost.value:g} vs {current.unit_cost.value:g} {unit_label(current)}), "
            f"saving about {_money(saving)} USD/month"
        )
        detail.append(compare(proposed, current, "proposed", "locked"))
        detail += [line for line in (term_change(locked, proposed),) if line]
        return Drift(
            status="cheaper",
            locked=locked,
            current=current,
            proposed=proposed,
            saving_percent=percent,
            saving_usd_per_month=saving,
            held=False,
            summary=summary,
            detail=(*detail, *run.header.unlisted),
        )
    if _price_moved(locked, current):
        status: DriftStatus = "price_changed"
        summary = (
            f"price_changed: {locked.name} now costs {current.hourly_usd:,.2f} USD/h (locked at "
            f"{locked.hourly_usd:,.2f}); no placement beats it by >= {policy.hysteresis_percent:g} % "
            "per unit "
            "of useful work with a better score" + ("; the lock is inside its minimum hold" if held else "")
        )
    else:
        status = "ok"
        summary = (
            f"ok: {locked.name} is still the placement to run (nothing beats it by "
            f">= {policy.hysteresis_percent:g} % per unit of useful work with a better score)"
        )
    return Drift(
        status=status,
        locked=locked,
        current=current,
        proposed=None,
        held=held,
        summary=summary,
        detail=(*detail, *run.header.unlisted),
    )


def pin_gone(pin: Pin, catalog: Catalog) -> Reason | None:
    """The lock's pin names a provider or region ``catalog`` no longer lists: the locked offer is
    gone with it, an infeasible lock to report (a malformed pin is refused when the lock is read)."""
    providers = sorted(p.id for p in catalog.providers)
    if pin.provider is not None and pin.provider not in providers:
        return Reason(
            rule="pin.provider",
            message=f"catalog {catalog.version} lists no provider {shown(pin.provider)}, which the lock is "
            "pinned to: the locked offer is gone",
        )
    if pin.region is None:
        return None
    codes = sorted({r.code for r in catalog.regions if pin.provider in (None, r.provider)})
    if pin.region in codes:
        return None
    where = f"{pin.provider} " if pin.provider else ""
    return Reason(
        rule="pin.region",
        message=f"catalog {catalog.version} lists no {where}region {shown(pin.region)}, which the lock is "
        f"pinned to{did_you_mean_text(did_you_mean(pin.region, codes))}: the locked offer is gone",
    )


def _name(p: Placement | LockedPlacement) -> str:
    term = f", {p.term_months} months" if p.term_months is not None else ""
    return f"{p.provider} {p.instance_type} x{p.instances} in {p.region} ({p.pricing}{term})"


def term_change(locked: LockedPlacement, proposed: Placement) -> str:
    """The words for a relock that changes the reservation term ("" when the term stays): a new
    term is a new commitment, so it is said on its own line, not only in the placement's name."""
    if locked.term_months == proposed.term_months:
        return ""

    def term(months: int | None, pricing: str) -> str:
        return f"{months} months" if months is not None else f"none ({pricing})"

    then, now = term(locked.term_months, locked.pricing), term(proposed.term_months, proposed.pricing)
    return f"Reservation term: {then} -> {now}."


def _price_moved(locked: LockedPlacement, current: Placement) -> bool:
    per_instance_then = locked.hourly_usd / locked.instances
    per_instance_now = current.hourly_usd / current.instances
    return abs(per_instance_now - per_instance_then) > _PRICE_EPSILON * max(per_instance_then, 1.0)


def _price_move(locked: LockedPlacement, current: Placement) -> tuple[str, ...]:
    lines = []
    if _price_moved(locked, current):
        then = locked.hourly_usd / locked.instances
        now = current.hourly_usd / current.instances
        change = (now - then) / then * 100 if then else math.inf
        lines.append(
            f"{locked.provider} {locked.instance_type} in {locked.region} ({locked.pricing}) moved from "
            f"{then:,.4g} to {now:,.4g} USD/h per instance ({change:+.1f} %); unit cost "
            f"{locked.unit_cost.value:g} -> {current.unit_cost.value:g} {unit_label(current)}"
        )
    if current.instances != locked.instances:
        lines.append(
            f"today's sizing gives {current.instances} instance(s) for this offer "
            f"(locked: {locked.instances}); "
            "the lock keeps its size until you relock"
        )
    return tuple(lines)


def _infeasible(run: Ranked, locked: LockedPlacement, held: bool) -> Drift:
    reasons = _why_gone(run, locked)
    proposed = run.placement(run.feasible[0]) if run.feasible else None
    rules = ", ".join(dict.fromkeys(r.rule for r in reasons))
    replacement = f"; best feasible replacement: {_name(proposed)}" if proposed else "; nothing is feasible"
    detail = tuple(f"{r.rule}: {r.message}" for r in reasons)
    term = term_change(locked, proposed) if proposed is not None else ""
    detail += (term,) if term else ()
    return Drift(
        status="infeasible",
        locked=locked,
        current=None,
        proposed=proposed,
        reasons=reasons,
        held=held,
        summary=f"infeasible: {locked.name} now breaks {rules}{replacement}",
        detail=(*detail, *run.header.unlisted),
    )


def placement_of(
    intent: WorkloadIntent | Mapping[str, Any] | str | os.PathLike[str],
    *,
    provider: str,
    instance_type: str,
    region: str,
    pricing: str,
    catalog: Catalog | str | os.PathLike[str] | None = None,
    pin: Pin | None = None,
    calibrations: Sequence[Calibration] = (),
    accounts: Accounts | None = None,
    locked: bool = False,
) -> Placement:
    """The engine's sized and scored placement of one given offer (``terraform import``, a relock check).

    Scored among every feasible candidate inside ``pin``, so its scores compare with a fresh decision's.
    ``locked``: the offer is a locked workload's (as ``decide`` takes it). Default: False.

    Raises:
        PinnedPlacementError: a hard constraint rejects the offer, or the catalog has no such offer;
            the message names the rule and the numbers.
    """
    for name, value in (
        ("provider", provider),
        ("instance_type", instance_type),
        ("region", region),
        ("pricing", pricing),
    ):
        if not isinstance(value, str) or not value:
            raise PinnedPlacementError(
                f"{name} must be a non-empty string (got {described(value)})", rule="input"
            )
    run = ranked(
        as_intent(intent),
        as_catalog(catalog),
        pin if pin is not None else Pin(),
        calibrations,
        accounts,
        locked=locked,
    )
    key = (provider, instance_type, region, pricing)
    found = next((c for c in run.feasible if _key(c.row.offer) == key), None)
    if found is not None:
        return run.placement(found)
    probe = LockedPlacement(
        provider=provider,
        instance_type=instance_type,
        region=region,
        pricing=pricing,
        instances=1,
        hourly_usd=0.0,
        unit_cost=UnitCost(unit="usd_per_training_step", value=0.0),
        score=0.0,
        locked_at="1970-01-01T00:00:00Z",
    )
    reasons = _why_gone(run, probe)
    text = "; ".join(f"{r.rule}: {r.message}" for r in reasons)
    raise PinnedPlacementError(
        f"{provider} {instance_type} in {region} ({pricing}) is not a feasible placement for intent "
        f"{run.header.intent.name!r}: {text}. To fix: choose an offer the intent admits "
        "(`computeops decide INTENT --provider P --region R` lists them), or relax the constraint",
        rule=reasons[0].rule,
        reasons=[(r.rule, r.message) for r in reasons],
    )


def _check_offer_ids(data: Mapping[str, Any], path: str) -> None:
    """lock.schema.json's rules for the offer a placement names: a catalog provider id, and a region
    and instance type a catalog could hold (these strings reach Terraform)."""
    provider = data["provider"]
    if provider not in PROVIDER_IDS:
        raise LockError(
            f"{path}.provider: unknown provider {shown(provider)}. To fix: one of {', '.join(PROVIDER_IDS)}"
            + did_you_mean_text(did_you_mean(provider, PROVIDER_IDS))
            + ", or relock the workload"
        )
    for name, kind in (("region", "region_code"), ("instance_type", "instance_type_name")):
        problem = identifier_problem(kind, data[name])
        if problem is not None:
            raise LockError(
                f"{path}.{name}: {shown(data[name])} {problem}. To fix: restore it, or relock the workload"
            )
