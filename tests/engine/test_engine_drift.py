"""The drift rules (engine/_drift.py): each status from constructed catalogs, hysteresis, hold, no flap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from engine_testdata import OFFERS, inference, make_catalog

from computeops_cdk.catalog import Catalog, Offer
from computeops_cdk.engine import (
    Drift,
    DriftPolicy,
    LockedPlacement,
    Pin,
    decide,
    evaluate_drift,
    placement_of,
)
from computeops_cdk.errors import LockError, PinnedPlacementError

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
LOCKED_AT = "2026-11-01T00:00:00Z"  # 30 days before NOW: past any hold
INTENT = inference(providers={"allow": ["aws", "lambda"]})


def _lock(catalog: Catalog, *, locked_at: str = LOCKED_AT) -> LockedPlacement:
    d = decide(INTENT, catalog=catalog)
    assert d.chosen is not None
    return LockedPlacement.from_placement(
        d.chosen, locked_at=locked_at, catalog_version=d.catalog_version, catalog_sha256=d.catalog_sha256
    )


def _reprice(offers: tuple[Offer, ...], key: tuple[str, str, str, str], factor: float) -> tuple[Offer, ...]:
    out = []
    for o in offers:
        if (o.provider, o.instance_type, o.region, o.pricing) == key and o.hourly_usd is not None:
            o = Offer(**{**_fields(o), "hourly_usd": round(o.hourly_usd * factor, 6)})
        out.append(o)
    return tuple(out)


def _fields(o: Offer) -> dict[str, object]:
    return {name: getattr(o, name) for name in Offer.__dataclass_fields__}


def _drift(lock: LockedPlacement, catalog: Catalog, **kw: object) -> Drift:
    return evaluate_drift(lock, INTENT, now=kw.pop("now", NOW), catalog=catalog, **kw)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def base() -> Catalog:
    return make_catalog()


@pytest.fixture(scope="module")
def lock(base: Catalog) -> LockedPlacement:
    return _lock(base)


def _threshold_factor(base: Catalog, lock: LockedPlacement, hysteresis: float = 10.0) -> float:
    """The factor on the locked price at which its cheapest rival becomes exactly `hysteresis` % cheaper."""
    d = decide(INTENT, catalog=base, alternatives=100)
    cheapest = min(p.unit_cost.value for p in d.alternatives)
    return cheapest / (lock.unit_cost.value * (1 - hysteresis / 100))


def test_same_catalog_is_ok_and_never_flaps(base: Catalog, lock: LockedPlacement) -> None:
    first = _drift(lock, base)
    assert first.status == "ok" and first.proposed is None and not first.actionable
    assert first.current is not None and first.current.instance_type == lock.instance_type
    assert [_drift(lock, base).to_dict() for _ in range(3)] == [first.to_dict()] * 3


def test_price_rise_below_hysteresis_is_price_changed(base: Catalog, lock: LockedPlacement) -> None:
    factor = _threshold_factor(base, lock) * 0.97
    assert factor > 1  # the lock must really get dearer for the test to mean anything
    drift = _drift(lock, make_catalog(offers=_reprice(OFFERS, lock.key, factor)))
    assert drift.status == "price_changed"
    assert drift.proposed is None
    assert "moved from" in drift.detail[0] and "%" in drift.detail[0]
    assert drift.current is not None and drift.current.unit_cost.value > lock.unit_cost.value


def test_price_rise_above_hysteresis_proposes_the_cheaper_placement(
    base: Catalog, lock: LockedPlacement
) -> None:
    factor = _threshold_factor(base, lock) * 1.05
    drift = _drift(lock, make_catalog(offers=_reprice(OFFERS, lock.key, factor)))
    assert drift.status == "cheaper" and drift.actionable
    assert drift.proposed is not None and drift.current is not None
    assert (drift.proposed.provider, drift.proposed.instance_type) != (lock.provider, lock.instance_type)
    assert drift.saving_percent is not None and drift.saving_percent >= 10
    assert drift.proposed.score > drift.current.score
    expected = drift.current.monthly_usd * (
        1 - drift.proposed.unit_cost.value / drift.current.unit_cost.value
    )
    assert drift.saving_usd_per_month == pytest.approx(expected, rel=1e-3)
    assert any(line.startswith("Trade-off: proposed") for line in drift.detail)


def test_a_wider_hysteresis_keeps_the_lock(base: Catalog, lock: LockedPlacement) -> None:
    catalog = make_catalog(offers=_reprice(OFFERS, lock.key, _threshold_factor(base, lock) * 1.05))
    assert _drift(lock, catalog, policy=DriftPolicy(hysteresis_percent=40)).status == "price_changed"


def test_a_lock_younger_than_the_hold_is_never_moved(base: Catalog, lock: LockedPlacement) -> None:
    young = _lock(base, locked_at="2026-12-01T00:00:00Z")  # 12 h before NOW
    catalog = make_catalog(offers=_reprice(OFFERS, young.key, _threshold_factor(base, young) * 1.5))
    drift = _drift(young, catalog)
    assert drift.status == "price_changed" and drift.held and drift.proposed is None
    assert any("minimum hold" in line for line in drift.detail)
    assert _drift(young, catalog, policy=DriftPolicy(min_hold_hours=6)).status == "cheaper"


def test_equal_scores_never_flip(base: Catalog, lock: LockedPlacement) -> None:
    # A rival exactly as good as the lock: same instance type in another region at the same price.
    twin = Offer(
        **{
            **_fields(
                next(o for o in OFFERS if (o.provider, o.instance_type, o.region, o.pricing) == lock.key)
            ),
            "region": "europe-central-1",
        }
    )
    offers = tuple(
        o
        for o in OFFERS
        if (o.provider, o.instance_type, o.region) != (lock.provider, lock.instance_type, "europe-central-1")
    )
    drift = _drift(lock, make_catalog(offers=(*offers, twin)), policy=DriftPolicy(hysteresis_percent=0))
    assert drift.status == "ok"


def test_a_removed_offer_is_infeasible_with_a_replacement(base: Catalog, lock: LockedPlacement) -> None:
    offers = tuple(o for o in OFFERS if (o.provider, o.instance_type, o.region, o.pricing) != lock.key)
    drift = _drift(lock, make_catalog(offers=offers))
    assert drift.status == "infeasible" and drift.actionable
    assert [r.rule for r in drift.reasons] == ["offer.gone"]
    assert drift.proposed is not None and "best feasible replacement" in drift.summary


def test_a_cap_broken_by_a_price_rise_names_the_rule_and_numbers(
    base: Catalog, lock: LockedPlacement
) -> None:
    capped = inference(providers={"allow": ["aws", "lambda"]}, max_hourly_usd=lock.hourly_usd * 1.1)
    catalog = make_catalog(offers=_reprice(OFFERS, lock.key, 1.5))
    drift = evaluate_drift(lock, capped, now=NOW, catalog=catalog)
    assert drift.status == "infeasible"
    assert "price.max_hourly" in [r.rule for r in drift.reasons]
    assert "USD/h" in drift.reasons[0].message or any("USD" in r.message for r in drift.reasons)


def test_infeasible_is_reported_even_inside_the_hold(base: Catalog) -> None:
    young = _lock(base, locked_at="2026-12-01T11:00:00Z")
    offers = tuple(o for o in OFFERS if (o.provider, o.instance_type, o.region, o.pricing) != young.key)
    drift = _drift(young, make_catalog(offers=offers))
    assert drift.status == "infeasible" and drift.held


def test_lock_round_trips_and_bad_entries_name_the_field(lock: LockedPlacement) -> None:
    assert LockedPlacement.from_dict(json.loads(json.dumps(lock.to_dict()))) == lock
    for field, value in (
        ("instances", 0),
        ("hourly_usd", float("nan")),
        ("locked_at", "yesterday"),
        ("provider", 3),
    ):
        with pytest.raises(LockError, match=rf"placement\.{field}"):
            LockedPlacement.from_dict({**lock.to_dict(), field: value})
    with pytest.raises(LockError, match="UTC"):
        LockedPlacement.from_dict({**lock.to_dict(), "locked_at": "2026-11-01T00:00:00+02:00"})


def test_now_must_be_aware_and_the_policy_checked(base: Catalog, lock: LockedPlacement) -> None:
    with pytest.raises(LockError, match="timezone-aware"):
        _drift(lock, base, now=datetime(2026, 12, 1))
    for bad in (-1, 100, float("nan"), True, "10"):
        with pytest.raises(LockError, match="hysteresis_percent"):
            DriftPolicy(hysteresis_percent=bad)  # type: ignore[arg-type]


def test_placement_of_matches_the_decision_and_refuses_what_a_rule_rejects(base: Catalog) -> None:
    d = decide(INTENT, catalog=base)
    assert d.chosen is not None
    c = d.chosen
    same = placement_of(
        INTENT,
        provider=c.provider,
        instance_type=c.instance_type,
        region=c.region,
        pricing=c.pricing,
        catalog=base,
    )
    assert same == c
    with pytest.raises(PinnedPlacementError, match=r"provider\.not_allowed") as err:
        placement_of(
            INTENT, provider="vast", instance_type="1x-h100", region="us", pricing="on_demand", catalog=base
        )
    assert err.value.rule == "provider.not_allowed"
    with pytest.raises(PinnedPlacementError, match=r"offer\.gone"):
        placement_of(
            INTENT,
            provider="aws",
            instance_type="p5.48xlarge",
            region="mars-1",
            pricing="on_demand",
            catalog=base,
        )


def test_a_pin_is_honoured(base: Catalog) -> None:
    pinned = decide(INTENT, catalog=base, pin=Pin(provider="aws"))
    assert pinned.chosen is not None
    lock = LockedPlacement.from_placement(pinned.chosen, locked_at=LOCKED_AT)
    # Without the pin lambda would be proposed; inside it, aws stays.
    drift = evaluate_drift(lock, INTENT, now=NOW, catalog=base, pin=Pin(provider="aws"))
    assert drift.proposed is None or drift.proposed.provider == "aws"


def test_drift_report_is_byte_identical_across_processes(tmp_path: object) -> None:
    code = (
        "import json; from datetime import datetime, UTC; from computeops_cdk import decide;"
        "from computeops_cdk.engine import LockedPlacement, evaluate_drift;"
        "d = decide('examples/support-chat.yaml');"
        "lock = LockedPlacement.from_placement(d.chosen, locked_at='2026-01-01T00:00:00Z');"
        "now = datetime(2026, 12, 1, tzinfo=UTC);"
        "print(json.dumps(evaluate_drift(lock, 'examples/support-chat.yaml', now=now).to_dict()))"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**_env(), "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outs) == 1 and '"status": "ok"' in outs.pop()


def _env() -> dict[str, str]:
    return dict(os.environ)


def test_hold_is_measured_in_hours(base: Catalog, lock: LockedPlacement) -> None:
    just_locked = _lock(
        base, locked_at=(NOW - timedelta(hours=23, minutes=59)).strftime("%Y-%m-%dT%H:%M:%SZ")
    )
    assert _drift(just_locked, base).held
    assert not _drift(lock, base).held


def test_an_accepted_proposal_does_not_flap_back(base: Catalog, lock: LockedPlacement) -> None:
    catalog = make_catalog(offers=_reprice(OFFERS, lock.key, _threshold_factor(base, lock) * 1.05))
    drift = _drift(lock, catalog)
    assert drift.status == "cheaper" and drift.proposed is not None
    relocked = LockedPlacement.from_placement(drift.proposed, locked_at="2026-11-02T00:00:00Z")
    assert _drift(relocked, catalog).status == "ok"


def _cheapest_rival(base: Catalog, lock: LockedPlacement) -> tuple[tuple[str, str, str, str], float]:
    """The feasible rival with the lowest unit cost (its offer key) and that unit cost."""
    d = decide(INTENT, catalog=base, alternatives=100)
    rival = min(
        (p for p in d.alternatives if (p.provider, p.instance_type, p.region, p.pricing) != lock.key),
        key=lambda p: p.unit_cost.value,
    )
    return (rival.provider, rival.instance_type, rival.region, rival.pricing), rival.unit_cost.value


@pytest.mark.parametrize(("cheaper_by", "status"), [(0.05, "ok"), (0.15, "cheaper")])
def test_a_rivals_price_cut_below_and_above_the_hysteresis(
    base: Catalog, lock: LockedPlacement, cheaper_by: float, status: str
) -> None:
    key, unit_cost = _cheapest_rival(base, lock)
    factor = lock.unit_cost.value * (1 - cheaper_by) / unit_cost  # the rival ends up `cheaper_by` cheaper
    drift = _drift(lock, make_catalog(offers=_reprice(OFFERS, key, factor)))
    assert drift.status == status
    if status == "cheaper":
        assert drift.proposed is not None and drift.saving_percent == pytest.approx(15, abs=0.5)
