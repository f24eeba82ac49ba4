"""Resource ``computeops_placement_lock`` in process: lock, re-examine, warn, relock, import."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import reserved_testdata
from tf_testdata import (
    SUPPORT_CHAT,
    chosen_and_runner_up,
    offer_key,
    runner_up_cheaper_by,
    without_chosen_offer,
    write_catalog,
)

from computeops_cdk.terraform._framework import UNKNOWN, Diagnostics, ResourceSpec, decode, encode
from computeops_cdk.terraform._lock import lock_resource
from computeops_cdk.terraform._settings import SETTINGS

T0 = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def spec(clock: Clock) -> ResourceSpec:
    return lock_resource(clock)


def wire(spec: ResourceSpec, state: dict[str, Any]) -> dict[str, Any]:
    """Through the wire and back, as Terraform stores and returns it."""
    return decode(spec.attributes, encode(spec.attributes, state))


def config(**extra: Any) -> dict[str, Any]:
    return {"intent": SUPPORT_CHAT.read_text(encoding="utf-8"), "min_hold_hours": 0, **extra}


def use_catalog(tmp_path: Path, change: Any, name: str = "c.json") -> None:
    SETTINGS.configure(Diagnostics(), {"catalog": str(write_catalog(tmp_path / name, change))})


def locked(spec: ResourceSpec, **extra: Any) -> dict[str, Any]:
    diags = Diagnostics()
    planned = spec.plan_create(diags, decode(spec.attributes, config(**extra)))  # type: ignore[misc]
    state = spec.create(diags, planned)
    assert state is not None and not diags.items, diags.items
    return wire(spec, state)


def refresh_and_plan(
    spec: ResourceSpec, state: dict[str, Any], **changes: Any
) -> tuple[dict[str, Any], Diagnostics]:
    diags = Diagnostics()
    refreshed = spec.read(diags, state)
    assert refreshed is not None, diags.items
    refreshed = wire(spec, refreshed)
    proposed = {**refreshed, **changes}
    changed = {k for k in changes if refreshed.get(k) != changes[k]}
    return spec.plan(diags, refreshed, proposed, changed), diags


def test_plan_shows_the_placement_and_apply_stores_exactly_it(spec: ResourceSpec, clock: Clock) -> None:
    chosen, _ = chosen_and_runner_up()
    diags = Diagnostics()
    planned = spec.plan_create(diags, decode(spec.attributes, config()))  # type: ignore[misc]
    assert (planned["cloud"], planned["instance_type"], planned["instances"]) == (
        chosen.provider,
        chosen.instance_type,
        chosen.instances,
    )
    assert planned["locked_at"] is UNKNOWN and planned["drift"] is UNKNOWN
    state = spec.create(diags, dict(planned))
    assert state is not None
    assert state["locked_at"] == "2026-12-01T12:00:00Z"
    assert {k: v for k, v in state.items() if k not in ("locked_at", "drift")} == {
        k: v for k, v in planned.items() if k not in ("locked_at", "drift")
    }
    assert state["drift"]["status"] == "ok" and state["drift"]["proposed"] is None
    assert state["unit_cost"] == {"unit": chosen.unit_cost.unit, "value": chosen.unit_cost.value}


def test_the_same_catalog_twice_changes_nothing(spec: ResourceSpec, clock: Clock) -> None:
    state = locked(spec)
    clock.now = T0 + timedelta(hours=30)
    planned, diags = refresh_and_plan(spec, state)
    assert planned == {**state, "drift": planned["drift"]} and not diags.items
    assert planned["drift"] == state["drift"]  # the refresh records the same finding


def test_a_cheaper_placement_below_the_hysteresis_is_not_reported(
    spec: ResourceSpec, clock: Clock, tmp_path: Path
) -> None:
    state = locked(spec)
    use_catalog(tmp_path, runner_up_cheaper_by(5))
    planned, diags = refresh_and_plan(spec, state)
    assert not diags.items and planned["drift"]["status"] == "ok"
    assert planned["instance_type"] == state["instance_type"]


def test_a_cheaper_placement_beyond_it_warns_and_never_moves_by_itself(
    spec: ResourceSpec, clock: Clock, tmp_path: Path
) -> None:
    state = locked(spec)
    _, runner_up = chosen_and_runner_up()
    use_catalog(tmp_path, runner_up_cheaper_by(25))
    planned, diags = refresh_and_plan(spec, state)
    (warning,) = diags.items
    assert warning.severity == "warning" and warning.summary == "A cheaper placement is available"
    assert runner_up.instance_type in warning.detail and "USD/month" in warning.detail
    drift = planned["drift"]
    assert drift["status"] == "cheaper" and drift["proposed"]["instance_type"] == runner_up.instance_type
    assert drift["saving_percent"] == pytest.approx(25, abs=0.5) and drift["saving_usd_per_month"] > 0
    for key in ("cloud", "instance_type", "region", "instances", "hourly_usd", "unit_cost", "locked_at"):
        assert planned[key] == state[key], key  # the fleet stays where it is


def test_auto_relock_plans_the_move_and_the_new_lock_is_stable(
    spec: ResourceSpec, clock: Clock, tmp_path: Path
) -> None:
    state = locked(spec, auto_relock=True)
    _, runner_up = chosen_and_runner_up()
    use_catalog(tmp_path, runner_up_cheaper_by(25))
    clock.now = T0 + timedelta(hours=1)
    planned, diags = refresh_and_plan(spec, state)
    assert diags.items[0].summary == "Relocking to a cheaper placement"
    assert (planned["cloud"], planned["instance_type"]) == (runner_up.provider, runner_up.instance_type)
    assert planned["locked_at"] is UNKNOWN and planned["drift"] is UNKNOWN
    assert planned["id"] == "/".join(
        (runner_up.provider, runner_up.instance_type, runner_up.region, "on_demand")
    )
    relocked = spec.update(Diagnostics(), state, dict(planned))
    assert relocked is not None and relocked["locked_at"] == "2026-12-01T13:00:00Z"
    assert relocked["drift"]["status"] == "ok"
    again, diags = refresh_and_plan(spec, wire(spec, relocked))
    assert not diags.items and again["instance_type"] == runner_up.instance_type  # no flap back


def test_a_young_lock_is_held(spec: ResourceSpec, clock: Clock, tmp_path: Path) -> None:
    state = locked(spec, min_hold_hours=24, auto_relock=True)
    use_catalog(tmp_path, runner_up_cheaper_by(25))
    clock.now = T0 + timedelta(hours=2)
    planned, diags = refresh_and_plan(spec, state)
    assert not diags.items and planned["drift"]["held"] is True
    assert planned["instance_type"] == state["instance_type"]


def test_a_vanished_offer_warns_with_the_rule_and_relocks_when_allowed(
    spec: ResourceSpec, clock: Clock, tmp_path: Path
) -> None:
    state = locked(spec, min_hold_hours=24)
    chosen, _ = chosen_and_runner_up()
    use_catalog(tmp_path, without_chosen_offer())
    planned, diags = refresh_and_plan(spec, state)
    (warning,) = diags.items
    assert warning.summary == "Locked placement is no longer feasible" and "offer.gone" in warning.detail
    assert planned["drift"]["status"] == "infeasible" and planned["drift"]["reasons"][0].startswith(
        "offer.gone"
    )
    assert planned["instance_type"] == chosen.instance_type
    relock, diags = refresh_and_plan(spec, state, auto_relock=True)
    assert diags.items[0].summary.startswith("Relocking")
    proposed = planned["drift"]["proposed"]
    assert relock["id"] != state["id"]
    assert (relock["cloud"], relock["instance_type"], relock["region"]) == (
        proposed["cloud"],
        proposed["instance_type"],
        proposed["region"],
    )


def test_a_price_that_breaks_a_cap_names_the_rule_and_the_numbers(
    spec: ResourceSpec, clock: Clock, tmp_path: Path
) -> None:
    state = locked(spec)
    chosen, _ = chosen_and_runner_up()
    key = (chosen.provider, chosen.instance_type, chosen.region, chosen.pricing)

    def septuple(doc: dict[str, Any]) -> None:
        for offer in doc["offers"]:
            if offer_key(offer) == key:
                offer["hourly_usd"] = round(offer["hourly_usd"] * 7, 4)  # 27 x 16 USD/h > the 400 cap

    use_catalog(tmp_path, septuple)
    planned, diags = refresh_and_plan(spec, state)
    assert diags.items[0].summary == "Locked placement is no longer feasible"
    assert "price.max_hourly" in diags.items[0].detail and "400" in diags.items[0].detail
    assert planned["drift"]["reasons"][0].startswith("price.max_hourly")


def test_changing_the_intent_or_a_pin_replaces_instead_of_drifting(spec: ResourceSpec) -> None:
    state = locked(spec)
    planned, diags = refresh_and_plan(spec, state, pin_provider="aws")
    assert planned["pin_provider"] == "aws" and planned["instance_type"] == state["instance_type"]
    assert not diags.items
    replacing = [a.name for a in spec.attributes if a.replace]
    assert replacing == ["intent", "pin_provider", "pin_region", "cluster"]


def test_a_policy_change_is_an_update_that_records_the_new_finding(spec: ResourceSpec) -> None:
    state = locked(spec)
    planned, _ = refresh_and_plan(spec, state, hysteresis_percent=20)
    assert planned["drift"] is UNKNOWN and planned["instance_type"] == state["instance_type"]


def test_import_records_the_offer_and_the_plan_binds_it_in_place(spec: ResourceSpec) -> None:
    _, runner_up = chosen_and_runner_up()
    offer = "/".join((runner_up.provider, runner_up.instance_type, runner_up.region, runner_up.pricing))
    diags = Diagnostics()
    imported = wire(spec, spec.import_(diags, offer) or {})
    assert imported["intent"] is None and imported["id"] == offer and imported["cloud"] == runner_up.provider
    assert spec.read(diags, imported) == imported  # not bound yet: nothing to re-examine
    planned = spec.plan(diags, imported, {**imported, **decode(spec.attributes, config())}, set())
    assert not diags.items
    assert (planned["instance_type"], planned["instances"], planned["hourly_usd"]) == (
        runner_up.instance_type,
        runner_up.instances,
        runner_up.hourly_usd,
    )
    assert planned["explanation"][0].startswith("Imported: ")


def test_import_of_an_unknown_or_infeasible_offer_is_an_error(spec: ResourceSpec) -> None:
    diags = Diagnostics()
    assert spec.import_(diags, "aws/p5.48xlarge") is None
    assert "cloud/instance_type/region/pricing" in diags.items[0].detail
    diags = Diagnostics()
    assert spec.import_(diags, "aws/p5.48xlarg/us-east-1/on_demand") is None
    assert "did you mean" in diags.items[0].detail and "p5.48xlarge" in diags.items[0].detail
    # an offer outside the intent's residency (US): binding names the rule
    from computeops_cdk import load_catalog

    catalog = load_catalog()
    country = {(r.provider, r.code): r.country for r in catalog.regions}
    abroad = next(
        o for o in catalog.offers if o.provider == "aws" and country[("aws", o.region)] not in ("US", None)
    )
    diags = Diagnostics()
    offer = f"aws/{abroad.instance_type}/{abroad.region}/{abroad.pricing}"
    imported = wire(spec, spec.import_(diags, offer) or {})
    assert not diags.items
    spec.plan(diags, imported, {**imported, **decode(spec.attributes, config())}, set())
    (error,) = diags.items
    assert error.attribute == "intent" and "residency.country" in error.summary + error.detail


def test_validation_refuses_a_bad_policy(spec: ResourceSpec) -> None:
    assert spec.validate is not None
    diags = Diagnostics()
    spec.validate(diags, {"intent": "x", "hysteresis_percent": 150, "min_hold_hours": -1})
    assert [d.attribute for d in diags.items] == ["hysteresis_percent", "min_hold_hours"]


def test_a_lock_is_made_and_re_examined_under_the_configured_accounts(
    spec: ResourceSpec, tmp_path: Path
) -> None:
    accounts = tmp_path / "computeops.accounts.yaml"
    accounts.write_text("providers:\n  aws:\n    discounts: [{percent: 10}]\n", encoding="utf-8")
    SETTINGS.configure(Diagnostics(), {"catalog": None, "accounts": str(accounts)})
    state = locked(spec)
    assert state["cloud"] == "aws"
    # A later accounts file that no longer enables aws makes the lock infeasible at refresh.
    accounts.write_text("providers:\n  runpod: {}\n", encoding="utf-8")
    SETTINGS.configure(Diagnostics(), {"catalog": None, "accounts": str(accounts)})
    _, diags = refresh_and_plan(spec, state)
    assert any("account.not_enabled" in d.detail for d in diags.items), diags.items


def _reserved_catalog(tmp_path: Path, name: str, factors: dict[str, float]) -> None:
    from reserved_testdata import with_reserved

    from computeops_cdk.catalog._build import build_catalog
    from computeops_cdk.catalog._build import write_catalog as write_built

    folder = tmp_path / name
    folder.mkdir()
    path = write_built(build_catalog(with_reserved(folder, factors)), folder / "catalog.json")
    SETTINGS.configure(Diagnostics(), {"catalog": str(path)})


RESERVED_CHAT = json.dumps(reserved_testdata.RESERVED_CHAT)


def test_a_reserved_lock_records_its_term_and_a_relock_to_another_term_says_so(
    spec: ResourceSpec, clock: Clock, tmp_path: Path
) -> None:
    _reserved_catalog(tmp_path, "one-year", {"ReservedPrice1yr": 0.6})
    state = locked(spec, intent=RESERVED_CHAT)
    assert state["pricing"] == "reserved"
    assert (state["term_months"], state["upfront"]) == (12, "none")  # through the wire and back
    clock.now = T0 + timedelta(hours=30)
    planned, diags = refresh_and_plan(spec, state)
    assert planned == {**state, "drift": planned["drift"]} and not diags.items  # round trip: no change

    # A 3-year reservation of the same offers appears, 1/3 cheaper: the lock still holds its 1-year
    # commitment (a lock that forgot its term took the 3-year one for its own, "price_changed").
    _reserved_catalog(tmp_path, "both", {"ReservedPrice1yr": 0.6, "ReservedPrice3yr": 0.4})
    planned, diags = refresh_and_plan(spec, state)
    assert planned["drift"]["status"] == "cheaper", planned["drift"]
    warning = next(d for d in diags.items if d.summary == "A cheaper placement is available")
    assert "Reservation term: 12 months -> 36 months." in warning.detail
    assert (
        "(reserved, 12 months)" in planned["drift"]["summary"]
        or "(reserved, 36 months)" in (planned["drift"]["summary"])
    )
    assert planned["term_months"] == 12  # warned, never moved by itself

    relocked, diags = refresh_and_plan(spec, state, auto_relock=True)
    assert (relocked["term_months"], relocked["upfront"]) == (36, "none")
    warning = next(d for d in diags.items if d.summary == "Relocking to a cheaper placement")
    assert "Reservation term: 12 months -> 36 months." in warning.detail


@pytest.mark.parametrize(
    ("pricing", "factors", "term"),
    [
        ("on_demand", {}, None),
        ("spot", {}, None),
        ("reserved", {"ReservedPrice1yr": 0.6}, 12),
        ("reserved", {"ReservedPrice3yr": 0.4}, 36),
    ],
)
def test_the_lock_state_keeps_what_the_lockfile_keeps_field_by_field(
    spec: ResourceSpec, tmp_path: Path, pricing: str, factors: dict[str, float], term: int | None
) -> None:
    """The provider's state and ``LockedPlacement.from_placement`` (lockfile, ``computeops lock``)
    map a placement through one function: read back from the state, every field is the lockfile's."""
    from dataclasses import fields

    from computeops_cdk import decide
    from computeops_cdk.engine import LockedPlacement
    from computeops_cdk.targets import placement_pin
    from computeops_cdk.terraform._lock import locked_placement

    _reserved_catalog(tmp_path, pricing + str(term), factors)
    intent = json.loads(RESERVED_CHAT)
    intent["constraints"]["pricing"] = [pricing]
    state = locked(spec, intent=json.dumps(intent))
    catalog = SETTINGS.catalog(Diagnostics())
    assert catalog is not None
    chosen = decide(intent, catalog=catalog, pin=placement_pin()).chosen
    assert chosen is not None and chosen.pricing == pricing
    expected = LockedPlacement.from_placement(
        chosen, locked_at=state["locked_at"], catalog_version=catalog.version, catalog_sha256=catalog.sha256
    )
    read_back = locked_placement(state)
    for field in fields(LockedPlacement):
        assert getattr(read_back, field.name) == getattr(expected, field.name), field.name
    assert (expected.term_months, state["term_months"]) == (term, term)
    assert state["upfront"] == (None if term is None else "none")
    assert (state["cloud"], state["unit_cost"]) == (chosen.provider, chosen.unit_cost.to_dict())


@pytest.mark.parametrize(
    ("attribute", "value", "said"),
    [
        ("cloud", "amazon", "unknown provider 'amazon'"),
        ("region", "${var.r}", "is not a region code"),
        ("hourly_usd", -1.0, "must be a finite number >= 0"),
        ("locked_at", "yesterday", "yesterday"),
        ("pricing", "free", "must be one of on_demand, spot, reserved"),
        ("instances", None, "must be a whole number in 1..256"),
        ("instances", 2.5, "must be a whole number in 1..256"),
        ("instances", 10**30, "must be a whole number in 1..256"),
        ("unit_cost", {"unit": "usd", "value": 1.0}, "known unit"),
    ],
)
def test_a_corrupt_state_is_an_error_on_the_attribute_it_names(
    spec: ResourceSpec, attribute: str, value: Any, said: str
) -> None:
    # Before: the error diagnostic had no attribute path (only its detail named the field), and an
    # instances of null was an internal error ("This is a bug"), 2.5 read as 2 instances.
    state = {**locked(spec), attribute: value}
    diags = Diagnostics()
    assert spec.read(diags, state) is None
    (error,) = diags.items
    assert (error.severity, error.summary, error.attribute) == ("error", "Invalid locked state", attribute)
    assert f"computeops_placement_lock.{attribute}" in error.detail and said in error.detail
    assert "To fix" in error.detail
