"""Resource ``computeops_placement_lock``: a decision kept in Terraform state.

- **plan (create)** decides, and the plan shows the placement it will lock;
- **apply** stores exactly what was planned, with the time it was locked;
- **refresh** re-examines the lock on today's catalog (``engine.evaluate_drift``, as ``computeops
  reevaluate`` does) and records the finding in ``drift``; locked attributes never change alone;
- **plan (update)** warns when the finding is actionable (a placement cheaper beyond the hysteresis,
  or the lock no longer feasible) and, with ``auto_relock = true``, plans an in-place update to the
  proposed placement. The same catalog twice gives "No changes".
- **import** ``cloud/instance_type/region/pricing`` records that offer; the next plan binds it to the
  configuration's intent (sized and scored as that very offer, never another) in place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import fields
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ._framework import (
    BOOL,
    NUMBER,
    STRING,
    UNKNOWN,
    Attr,
    Diagnostics,
    ResourceSpec,
    list_of,
    object_of,
)
from ._placement import (
    PLACEMENT,
    PLACEMENT_OBJECT,
    _inputs,
    parse_inputs,
    placement_values,
    validate_intent_text,
)
from ._settings import SETTINGS

if TYPE_CHECKING:
    from ..engine import Drift, DriftPolicy, LockedPlacement, Placement

__all__ = ["DRIFT", "lock_resource", "lock_state", "locked_placement"]

# A proposed placement has the same shape as one of the data source's alternatives.
_PROPOSED = PLACEMENT_OBJECT
DRIFT = object_of(
    status=STRING,
    summary=STRING,
    held=BOOL,
    saving_percent=NUMBER,
    saving_usd_per_month=NUMBER,
    reasons=list_of(STRING),
    current_hourly_usd=NUMBER,
    current_unit_cost=NUMBER,
    proposed=_PROPOSED,
    catalog_version=STRING,
    catalog_sha256=STRING,
)

_POLICY = [
    Attr(
        "hysteresis_percent",
        NUMBER,
        "A new placement must be at least this much cheaper per unit of useful work (and score "
        "better) to displace the lock. Default: `10`.",
        optional=True,
    ),
    Attr(
        "min_hold_hours",
        NUMBER,
        "No move is proposed for a lock younger than this (an infeasible lock is always reported). "
        "Default: `24`.",
        optional=True,
    ),
    Attr(
        "auto_relock",
        BOOL,
        "Plan an in-place update to the proposed placement when the drift is actionable, instead of "
        "only warning. Default: `false`.",
        optional=True,
    ),
]

_LOCK_ONLY = [
    Attr("id", STRING, "`cloud/instance_type/region/pricing` of the locked offer.", computed=True),
    Attr("locked_at", STRING, "When the placement was locked, ISO-8601 UTC.", computed=True),
    Attr(
        "term_months",
        NUMBER,
        "A reserved lock's term in months (`12` or `36`): a 1-year and a 3-year reservation of one "
        "offer are different commitments, and the lock holds the one it locked. Null unless `pricing` "
        "is `reserved`.",
        computed=True,
    ),
    Attr(
        "upfront",
        STRING,
        "A reserved lock's upfront payment (`none`: the catalog's reservations are no-upfront). Null "
        "unless `pricing` is `reserved`.",
        computed=True,
    ),
    Attr(
        "drift",
        DRIFT,
        "What the last refresh found on the current catalog: `status` (`ok`, `cheaper`, "
        "`price_changed`, `infeasible`), `summary`, `held` (younger than `min_hold_hours`), "
        "`saving_percent` and `saving_usd_per_month` (cheaper), `reasons` (infeasible: rule and "
        "numbers), the locked offer's `current_hourly_usd` / `current_unit_cost` today, the "
        "`proposed` placement and the catalog checked.",
        computed=True,
    ),
]

_REPLACING = ("intent", "pin_provider", "pin_region", "cluster")
_OFFER = ("cloud", "instance_type", "region", "pricing")


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _stamp(now: datetime) -> str:
    return now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _whole(value: Any) -> Any:
    """A whole float from the wire as an int; anything else unchanged, for ``from_dict`` to judge."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _offer_id(values: dict[str, Any]) -> str:
    return "/".join(str(values[k]) for k in _OFFER)


# The state names LockedPlacement's fields have: the data source's, where the provider is `cloud`.
_STATE_NAMES = {"provider": "cloud"}


def lock_state(locked: Mapping[str, Any]) -> dict[str, Any]:
    """``engine._drift.locked_fields`` as state attributes: schema names, the unit cost as ``{unit,
    value}``, and the upfront payment (the catalog keeps no-upfront reservations only)."""
    state = {_STATE_NAMES.get(name, name): value for name, value in locked.items()}
    state["unit_cost"] = locked["unit_cost"].to_dict()
    state["upfront"] = None if locked["term_months"] is None else "none"
    return state


def locked_placement(state: Mapping[str, Any]) -> LockedPlacement:
    """``lock_state`` read back; a field the state lacks reads as null, for ``from_dict`` to judge."""
    from ..engine import LockedPlacement

    data: dict[str, Any] = {
        f.name: state.get(_STATE_NAMES.get(f.name, f.name)) for f in fields(LockedPlacement)
    }
    data["instances"] = _whole(data["instances"])
    data["term_months"] = _whole(data["term_months"])
    for name in ("catalog_version", "catalog_sha256"):
        data[name] = data[name] or ""
    return LockedPlacement.from_dict(data, path="computeops_placement_lock")


_FIELD = re.compile(r"computeops_placement_lock\.([a-z_]+)")


def _locked(diags: Diagnostics, state: Mapping[str, Any]) -> LockedPlacement | None:
    """The lock a state holds, or None after an error diagnostic on the attribute it names."""
    from ..errors import LockError

    try:
        return locked_placement(state)
    except LockError as err:
        found = _FIELD.match(str(err))
        name = _STATE_NAMES.get(found.group(1), found.group(1)) if found else None
        detail = str(err)
        if found and name != found.group(1):  # the field's state name, as the user sees it
            detail = detail.replace(found.group(0), f"computeops_placement_lock.{name}", 1)
        diags.error(
            "Invalid locked state",
            f"{detail}. The resource's state is not one this provider wrote. To fix: restore the "
            "state, or relock with `terraform apply -replace=<this resource's address>`.",
            attribute=name,
        )
        return None


class _Lock:
    """The handlers; ``clock`` is the caller's clock (the engine reads none)."""

    def __init__(self, clock: Callable[[], datetime]) -> None:
        self.clock = clock

    # -- helpers -------------------------------------------------------------------------------

    def _policy(self, diags: Diagnostics, config: dict[str, Any]) -> DriftPolicy | None:
        from ..engine import DriftPolicy
        from ..errors import LockError

        given = {k: config[k] for k in ("hysteresis_percent", "min_hold_hours") if config.get(k) is not None}
        try:
            return DriftPolicy(**given)
        except LockError as err:
            name = next((k for k in given if k in str(err)), "hysteresis_percent")
            diags.error(f"Invalid {name}", str(err), attribute=name)
            return None

    def _drift(self, diags: Diagnostics, state: dict[str, Any]) -> Drift | None:
        from ..engine import evaluate_drift

        inputs = parse_inputs(diags, state)
        policy = self._policy(diags, state)
        catalog, accounts = SETTINGS.catalog(diags), SETTINGS.accounts(diags)
        if inputs is None or policy is None or catalog is None or accounts is None:
            return None
        intent, pin = inputs
        locked = _locked(diags, state)
        if locked is None:
            return None
        return evaluate_drift(
            locked,
            intent,
            catalog=catalog,
            pin=pin,
            now=self.clock(),
            policy=policy,
            accounts=accounts[0],
        )

    @staticmethod
    def _drift_values(drift: Drift) -> dict[str, Any]:
        p = drift.proposed
        proposed = (
            None
            if p is None
            else {
                "cloud": p.provider,
                "instance_type": p.instance_type,
                "region": p.region,
                "pricing": p.pricing,
                "accelerator": p.accelerator,
                "instances": p.instances,
                "hourly_usd": p.hourly_usd,
                "monthly_usd": p.monthly_usd,
                "unit_cost": {"unit": p.unit_cost.unit, "value": p.unit_cost.value},
                "score": p.score,
            }
        )
        catalog = SETTINGS.catalog(Diagnostics())
        return {
            "status": drift.status,
            "summary": drift.summary,
            "held": drift.held,
            "saving_percent": drift.saving_percent,
            "saving_usd_per_month": drift.saving_usd_per_month,
            "reasons": [f"{r.rule}: {r.message}" for r in drift.reasons],
            "current_hourly_usd": drift.current.hourly_usd if drift.current else None,
            "current_unit_cost": drift.current.unit_cost.value if drift.current else None,
            "proposed": proposed,
            "catalog_version": catalog.version if catalog else None,
            "catalog_sha256": catalog.sha256 if catalog else None,
        }

    @staticmethod
    def _locked_values(placement: Placement, explanation: list[str], intent_sha256: str) -> dict[str, Any]:
        catalog = SETTINGS.catalog(Diagnostics())
        assert catalog is not None  # the caller decided on it
        from ..engine._drift import locked_fields

        values = {**placement_values(placement), **lock_state(locked_fields(placement))}
        return {
            **values,
            "id": _offer_id(values),
            "catalog_version": catalog.version,
            "catalog_sha256": catalog.sha256,
            "intent_sha256": intent_sha256,
            "explanation": explanation,
        }

    def _finish(self, diags: Diagnostics, state: dict[str, Any]) -> dict[str, Any] | None:
        """Stamp a planned lock with the time and record its first drift finding."""
        if state.get("locked_at") in (None, UNKNOWN):
            state["locked_at"] = _stamp(self.clock())
        drift = self._drift(diags, state)
        if drift is None:
            return None
        state["drift"] = self._drift_values(drift)
        return state

    # -- handlers ------------------------------------------------------------------------------

    def plan_create(self, diags: Diagnostics, planned: dict[str, Any]) -> dict[str, Any]:
        """A new lock: decide now, so the plan shows the placement it will lock."""
        from ._placement import decide_config

        if any(planned.get(k) is UNKNOWN for k in _REPLACING):
            return planned  # decided at apply, when the intent is known
        if self._policy(diags, planned) is None:
            return planned
        decision = decide_config(diags, planned)
        if decision is None or decision.chosen is None:
            return planned
        values = self._locked_values(decision.chosen, list(decision.explanation), decision.intent_sha256)
        return {**planned, **values, "locked_at": UNKNOWN, "drift": UNKNOWN}

    def create(self, diags: Diagnostics, planned: dict[str, Any]) -> dict[str, Any] | None:
        state = dict(planned)
        if state.get("cloud") in (None, UNKNOWN):  # the intent was unknown at plan time
            state = self.plan_create(diags, state)
            if diags.has_errors:
                return None
        return self._finish(diags, state)

    def read(self, diags: Diagnostics, state: dict[str, Any]) -> dict[str, Any] | None:
        if state.get("intent") is None:
            return state  # imported, not bound to its configuration yet (the next plan does it)
        drift = self._drift(diags, state)
        if drift is None:
            return None
        return {**state, "drift": self._drift_values(drift)}

    def plan(
        self, diags: Diagnostics, prior: dict[str, Any], proposed: dict[str, Any], changed: set[str]
    ) -> dict[str, Any]:
        if prior.get("intent") is None:
            return self._bind_import(diags, prior, proposed)
        if changed & set(_REPLACING) or any(proposed.get(k) is UNKNOWN for k in _REPLACING):
            return proposed  # replaced: Terraform plans the new lock as a create
        drift = self._drift(diags, proposed)
        if drift is None:
            return proposed
        relock = self._report(diags, drift, bool(proposed.get("auto_relock")))
        if relock is not None:
            explanation = [drift.summary, *drift.detail]
            values = self._locked_values(relock, explanation, str(proposed.get("intent_sha256") or ""))
            return {**proposed, **values, "locked_at": UNKNOWN, "drift": UNKNOWN}
        if changed:
            return {**proposed, "drift": UNKNOWN}  # a policy change: apply records the new finding
        return proposed

    def update(
        self, diags: Diagnostics, prior: dict[str, Any], planned: dict[str, Any]
    ) -> dict[str, Any] | None:
        return self._finish(diags, dict(planned))

    def import_(self, diags: Diagnostics, offer_id: str) -> dict[str, Any] | None:
        parts = offer_id.split("/")
        if len(parts) != 4 or not all(parts):
            diags.error(
                "Invalid import ID",
                f"{offer_id!r} is not cloud/instance_type/region/pricing. To fix: e.g. "
                "terraform import computeops_placement_lock.NAME aws/p5.48xlarge/us-east-1/on_demand",
            )
            return None
        catalog = SETTINGS.catalog(diags)
        if catalog is None:
            return None
        key = tuple(parts)
        offers = {(o.provider, o.instance_type, o.region, o.pricing) for o in catalog.offers}
        if key not in offers:
            from ..errors import did_you_mean, did_you_mean_text

            same_provider = ["/".join(k) for k in sorted(offers) if k[0] == parts[0]]
            diags.error(
                "Unknown offer",
                f"catalog {catalog.version} has no offer {offer_id!r}"
                f"{did_you_mean_text(did_you_mean(offer_id, same_provider))}. To fix: import an offer "
                f"the catalog lists (`computeops catalog list --provider {parts[0]}`)",
            )
            return None
        return {**dict(zip(_OFFER, parts, strict=True)), "id": offer_id}

    # -- plan details --------------------------------------------------------------------------

    def _bind_import(
        self, diags: Diagnostics, prior: dict[str, Any], proposed: dict[str, Any]
    ) -> dict[str, Any]:
        """An imported offer meets its intent: lock that very offer, sized for the intent."""
        from ..engine import placement_of
        from ..errors import PinnedPlacementError

        if any(proposed.get(k) is UNKNOWN for k in _REPLACING):
            return proposed
        inputs = parse_inputs(diags, proposed)
        catalog, accounts = SETTINGS.catalog(diags), SETTINGS.accounts(diags)
        if inputs is None or catalog is None or accounts is None:
            return proposed
        intent, pin = inputs
        try:
            placement = placement_of(
                intent,
                provider=prior["cloud"],
                instance_type=prior["instance_type"],
                region=prior["region"],
                pricing=prior["pricing"],
                catalog=catalog,
                pin=pin,
                accounts=accounts[0],
            )
        except PinnedPlacementError as err:
            diags.error(f"Imported placement breaks {err.rule}", str(err), attribute="intent")
            return proposed
        explanation = [
            f"Imported: {placement.provider} {placement.instance_type} x{placement.instances} in "
            f"{placement.region} ({placement.pricing}) locked as it is, sized for intent {intent.name!r}, "
            f"{placement.hourly_usd:,.2f} USD/h, unit cost {placement.unit_cost.value:g} "
            f"({placement.unit_cost.unit})."
        ]
        values = self._locked_values(placement, explanation, intent.sha256)
        return {**proposed, **values, "locked_at": UNKNOWN, "drift": UNKNOWN}

    @staticmethod
    def _report(diags: Diagnostics, drift: Drift, auto_relock: bool) -> Placement | None:
        """Warn about an actionable drift; return the placement to relock to when ``auto_relock``."""
        from ..engine._drift import term_change

        fix = (
            "To move: set auto_relock = true (the plan then shows the relock as an in-place update), or "
            "replace the lock (terraform apply -replace=ADDRESS)."
        )
        detail = "\n".join([drift.summary, *drift.detail])
        if drift.status == "cheaper" and drift.proposed is not None:
            if auto_relock:
                diags.warning("Relocking to a cheaper placement", detail)
                return drift.proposed
            diags.warning("A cheaper placement is available", f"{detail}\n\n{fix}")
        elif drift.status == "infeasible":
            reasons = "\n".join(f"- {r.rule}: {r.message}" for r in drift.reasons)
            if drift.proposed is not None and term_change(drift.locked, drift.proposed):
                reasons += "\n" + term_change(drift.locked, drift.proposed)
            if drift.proposed is None:
                diags.warning(
                    "Locked placement is no longer feasible",
                    f"{drift.summary}\n{reasons}\n\nNothing feasible to relock to: relax the intent.",
                )
                return None
            if auto_relock:
                diags.warning(
                    "Relocking: the locked placement is no longer feasible", f"{drift.summary}\n{reasons}"
                )
                return drift.proposed
            diags.warning("Locked placement is no longer feasible", f"{drift.summary}\n{reasons}\n\n{fix}")
        return None


def _validate(diags: Diagnostics, config: dict[str, Any]) -> None:
    validate_intent_text(diags, config)
    for name, top in (("hysteresis_percent", 100.0), ("min_hold_hours", 87600.0)):
        value = config.get(name)
        if value is None or value is UNKNOWN:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < top:
            diags.error(
                f"Invalid {name}",
                f"{name} must be a number in [0, {top:g}) (got {value!r}).",
                attribute=name,
            )


def lock_resource(clock: Callable[[], datetime] = _utc_now) -> ResourceSpec:
    """The ``computeops_placement_lock`` resource; ``clock`` gives the current UTC time."""
    lock = _Lock(clock)
    return ResourceSpec(
        name="placement_lock",
        description=(
            "Locks the engine's placement in state: downstream resources read the locked attributes, "
            "so a catalog update never moves a running fleet by itself. Refresh and plan re-examine "
            "the lock with the drift rules (hysteresis, minimum hold) and warn when a cheaper "
            "placement beyond the hysteresis exists or the lock is no longer feasible; "
            "`auto_relock = true` plans the move."
        ),
        attributes=[*_inputs(replace=True), *_POLICY, *PLACEMENT, *_LOCK_ONLY],
        create=lock.create,
        read=lock.read,
        update=lock.update,
        plan=lock.plan,
        plan_create=lock.plan_create,
        import_=lock.import_,
        validate=_validate,
    )
