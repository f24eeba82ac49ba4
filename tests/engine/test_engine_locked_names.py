"""A catalog that drops a region or accelerator a LOCKED workload's intent names does not stop it.

Before, ``engine._resolve`` refused every name the catalog did not list, so a refreshed catalog
without aws us-east-1 (a soft preference of hipaa-us) or MI300X (one of lora-finetune's allowed
accelerators) stopped the locked synth, ``reevaluate`` (exit 2 for the whole lockfile) and ``lock
update``, against "a changed catalog changes a locked decision only when the user relocks". Now the
name matches nothing there, with a warning line; a fresh decision still refuses it."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from computeops_cdk import WorkloadIntent, load_catalog
from computeops_cdk.catalog import Catalog
from computeops_cdk.engine import LockedPlacement, decide, evaluate_drift
from computeops_cdk.errors import IntentError

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)


def without_accelerator(catalog: Catalog, accelerator: str) -> Catalog:
    types = {t.name for t in catalog.instance_types if t.accelerator == accelerator}
    return replace(
        catalog,
        accelerators=tuple(a for a in catalog.accelerators if a.id != accelerator),
        instance_types=tuple(t for t in catalog.instance_types if t.name not in types),
        offers=tuple(o for o in catalog.offers if o.instance_type not in types),
        sha256="d" * 64,
        version="test.dropped",
    )


def without_region(catalog: Catalog, provider: str, code: str) -> Catalog:
    return replace(
        catalog,
        regions=tuple(r for r in catalog.regions if (r.provider, r.code) != (provider, code)),
        offers=tuple(o for o in catalog.offers if (o.provider, o.region) != (provider, code)),
        sha256="d" * 64,
        version="test.dropped",
    )


def _intent(name: str, **changes: object) -> WorkloadIntent:
    intent = WorkloadIntent.from_file(ROOT / "examples" / f"{name}.yaml")
    doc = intent.to_dict()
    for path, value in changes.items():
        node = doc
        *parents, leaf = path.split(".")
        for key in parents:
            if node.get(key) is None:
                node[key] = {}
            node = node[key]
        node[leaf] = value
    return WorkloadIntent.from_dict(doc)


def _lock(intent: WorkloadIntent) -> LockedPlacement:
    decision = decide(intent)
    assert decision.chosen is not None
    return LockedPlacement.from_placement(
        decision.chosen,
        locked_at="2026-11-01T00:00:00Z",
        catalog_version=decision.catalog_version,
        catalog_sha256=decision.catalog_sha256,
    )


def test_a_fresh_decision_still_refuses_a_name_the_catalog_does_not_list() -> None:
    dropped = without_accelerator(load_catalog(), "MI300X")
    with pytest.raises(IntentError) as caught:
        decide(_intent("lora-finetune"), catalog=dropped)
    assert caught.value.path == "constraints.accelerators.allow[3]"
    assert "unknown accelerator 'MI300X'" in str(caught.value)


def test_drift_of_a_lock_whose_allow_list_lost_an_accelerator_keeps_the_others() -> None:
    intent = _intent("lora-finetune")
    locked = _lock(intent)
    dropped = without_accelerator(load_catalog(), "MI300X")
    drift = evaluate_drift(locked, intent, now=NOW, catalog=dropped)
    assert drift.status != "infeasible" and drift.current is not None
    (line,) = [d for d in drift.detail if d.startswith("Warning: intent ")]
    assert line.startswith(
        "Warning: intent 'lora-finetune', constraints.accelerators.allow[3]: catalog test.dropped lists "
        "no accelerator 'MI300X' (did you mean "
    )
    assert "so it matches nothing. To fix: correct the name" in line and "relock" in line
    # the other allowed accelerators still decide: the same drift as on a catalog naming only them
    narrowed = _intent("lora-finetune", **{"constraints.accelerators.allow": ["H100", "H200", "A100-80GB"]})
    same = evaluate_drift(locked, narrowed, now=NOW, catalog=dropped)
    assert (same.status, same.current, same.proposed) == (drift.status, drift.current, drift.proposed)


def test_drift_of_a_lock_whose_only_allowed_accelerator_is_gone_is_infeasible() -> None:
    intent = _intent("lora-finetune", **{"constraints.accelerators.allow": ["MI300X"]})
    locked = _lock(intent)
    machine = next(t for t in load_catalog().instance_types if t.name == locked.instance_type)
    assert machine.accelerator == "MI300X"
    drift = evaluate_drift(locked, intent, now=NOW, catalog=without_accelerator(load_catalog(), "MI300X"))
    assert (drift.status, drift.proposed) == ("infeasible", None)
    assert any("lists no accelerator 'MI300X'" in d for d in drift.detail)


def test_drift_and_the_locked_decision_with_a_dropped_preferred_region() -> None:
    intent = _intent("hipaa-us")
    assert "aws:us-east-1" in intent.preferences.regions
    locked = _lock(intent)
    assert (locked.provider, locked.region) != ("aws", "us-east-1")
    dropped = without_region(load_catalog(), "aws", "us-east-1")
    with pytest.raises(IntentError, match=r"unknown region 'aws:us-east-1'"):
        decide(intent, catalog=dropped)
    drift = evaluate_drift(locked, intent, now=NOW, catalog=dropped)
    assert drift.status != "infeasible"
    at = intent.preferences.regions.index("aws:us-east-1")
    (line,) = [d for d in drift.detail if d.startswith("Warning: intent ")]
    assert f"preferences.regions[{at}]: catalog test.dropped lists no region 'aws:us-east-1'" in line
    decision = decide(intent, catalog=dropped, locked=True)
    chosen = next(i for i, text in enumerate(decision.explanation) if text.startswith("Chosen:"))
    assert decision.explanation[chosen + 1] == line


def test_a_residency_that_lost_every_region_it_names_admits_nothing() -> None:
    intent = _intent("hipaa-us", **{"constraints.residency": {"regions": ["aws:us-east-1"]}})
    locked = _lock(intent)
    drift = evaluate_drift(
        locked, intent, now=NOW, catalog=without_region(load_catalog(), "aws", "us-east-1")
    )
    assert (drift.status, drift.proposed) == ("infeasible", None)
    assert any("constraints.residency.regions[0]: catalog test.dropped" in d for d in drift.detail)


def test_at_most_five_unlisted_names_are_described_and_the_rest_counted() -> None:
    regions = ["aws:us-east-1", *(f"aws:gone-{i}" for i in range(7))]
    intent = _intent("hipaa-us", **{"constraints.residency": {"regions": regions}})
    decision = decide(intent, locked=True)
    lines = [t for t in decision.explanation if t.startswith("Warning: intent ")]
    assert len(lines) == 5 + 1  # engine._resolve.MAX_INTENT_UNLISTED
    assert lines[-1] == (
        "Warning: intent 'clinical-notes' names 2 more regions or accelerators that catalog "
        f"{decision.catalog_version} does not list (fix those above first)."
    )


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("preferences.regions", ["aws:us_east_1"]),
        ("preferences.regions", ["aws:-us-east-1"]),
        ("constraints.residency", {"regions": ["aws:us.east.1"]}),
        ("constraints.accelerators.allow", ["H100", "Q9000!"]),
        ("constraints.accelerators.allow", ["-Q9000"]),
    ],
)
def test_a_malformed_name_stays_an_error_for_a_locked_workload(path: str, value: object) -> None:
    with pytest.raises(IntentError):
        decide(_intent("hipaa-us", **{path: value}), locked=True)


def test_the_name_forms_are_the_catalog_schemas() -> None:
    from computeops_cdk.catalog._types import ACCELERATOR_ALIAS as _ACCELERATOR_NAME
    from computeops_cdk.catalog._types import REGION_CODE as _REGION_CODE

    defs = json.loads((ROOT / "schemas" / "catalog.schema.json").read_text())["$defs"]
    assert f"^{_REGION_CODE}$" == defs["region_code"]["pattern"]
    assert f"^{_ACCELERATOR_NAME}$" == defs["accelerator_alias"]["pattern"]
