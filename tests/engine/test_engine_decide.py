"""decide(): unit costs, ranking and tie-break, explanation, infeasibility, name resolution, pin."""

from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from engine_testdata import inference, intent_of, make_catalog, offer, training

from computeops_cdk.engine import Pin, decide
from computeops_cdk.engine._billing import STARTUP_HOURS
from computeops_cdk.errors import IntentError, NoFeasiblePlacementError

ROOT = Path(__file__).resolve().parents[2]


def test_inference_unit_cost_is_usd_per_million_served_tokens() -> None:
    decision = decide(inference(), catalog=make_catalog())
    for p in decision.ranked:
        assert p.unit_cost.unit == "usd_per_million_output_tokens"
        assert p.unit_cost.value == pytest.approx(p.hourly_usd / (2000 * 3600) * 1e6, abs=1e-4)
        assert p.monthly_usd == pytest.approx(p.hourly_usd * 730, abs=0.01)
        assert p.estimate.tokens_per_s >= 2000  # capacity covers the required rate
        assert p.total_usd is None and p.hours is None


def test_training_unit_cost_is_usd_per_step_and_fills_total_and_hours() -> None:
    # hours = compute + the assumed start-up; the total is the billed job (lambda: one-minute
    # increments); a step costs the billed job over its steps
    decision = decide(training(), catalog=make_catalog())
    for p in decision.ranked:
        assert p.unit_cost.unit == "usd_per_training_step"
        assert p.hours == pytest.approx(1e10 / p.estimate.tokens_per_s / 3600 + STARTUP_HOURS, rel=1e-3)
        billed = math.ceil(p.hours * 60 - 1e-9) / 60 if p.provider == "lambda" else p.hours
        assert p.total_usd == pytest.approx(p.hourly_usd * billed, rel=1e-3)
        assert p.unit_cost.value == pytest.approx(p.total_usd / (1e10 / 4_194_304), rel=1e-3)


def test_ranking_is_by_score_then_documented_tie_break() -> None:
    twins = (
        offer("lambda", "gpu_1x_a100", "us-east-1", 1.79),
        offer("lambda", "gpu_1x_a100", "europe-central-1", 1.79),
    )
    decision = decide(inference(), catalog=make_catalog(offers=twins), alternatives=5)
    # Same score and unit cost: the region breaks the tie (alphabetical), and the same instance type
    # in another region is not listed as an alternative.
    assert decision.chosen is not None and decision.chosen.region == "europe-central-1"
    assert decision.alternatives == ()
    assert decision.feasible == 2
    scores = [p.score for p in decide(inference(), catalog=make_catalog()).ranked]
    assert scores == sorted(scores, reverse=True)


def test_alternatives_limit() -> None:
    assert len(decide(inference(), catalog=make_catalog(), alternatives=1).alternatives) == 1
    assert len(decide(inference(), catalog=make_catalog(), alternatives=0).alternatives) == 0


def test_trade_off_against_the_runner_up_in_words_and_numbers() -> None:
    decision = decide(inference(), catalog=make_catalog())
    chosen, runner_up = decision.ranked[0], decision.ranked[1]
    assert decision.trade_off.startswith(
        f"Trade-off: chosen {chosen.provider} {chosen.instance_type} in {chosen.region} (on_demand) costs "
        f"{chosen.unit_cost.value:g} USD/1M output tokens vs {runner_up.unit_cost.value:g} for runner-up "
        f"{runner_up.provider} {runner_up.instance_type}"
    )
    cheaper = (runner_up.unit_cost.value - chosen.unit_cost.value) / runner_up.unit_cost.value * 100
    assert f"{cheaper:.0f} % cheaper" in decision.trade_off
    assert decision.trade_off in decision.explanation


def test_explanation_quotes_the_estimate_model_catalog_and_price_age() -> None:
    decision = decide(inference(), catalog=make_catalog())
    text = "\n".join(decision.explanation)
    assert decision.chosen is not None
    assert f"estimate by {decision.chosen.estimate.model}" in text
    assert "Catalog test.1 as of 2026-11-29" in text
    assert "price as of 2026-11-01, 28 day(s) before the catalog snapshot" in text
    assert (
        "Rejections by rule (a candidate can break several): "
        "price.unknown 1, pricing.model 1, spec.unknown 1." in text
    )


def test_keyword_only_evidence_is_called_out_in_the_explanation() -> None:
    decision = decide(inference(providers={"allow": ["lambda"]}), catalog=make_catalog())
    assert any(
        line.startswith("Compliance score: lambda's soc2 claims rest on third-party or keyword-only evidence")
        for line in decision.explanation
    )


def test_document_shape_and_rejections_by_rule() -> None:
    doc = decide(inference(), catalog=make_catalog()).to_dict()
    assert doc["decision"]["provider"] == "vast"
    assert doc["rejections_by_rule"] == {"price.unknown": 1, "pricing.model": 1, "spec.unknown": 1}
    assert doc["summary"] == {
        "considered": 13,
        "feasible": 10,
        "rejected": 3,
        "rejections_listed": "summary",
        "pinned_out": {},
    }
    assert doc["catalog"] == {"version": "test.1", "as_of": "2026-11-29", "sha256": "0" * 64}


def test_same_bytes_for_a_shuffled_catalog() -> None:
    catalog = make_catalog()
    expected = decide(inference(), catalog=catalog).to_json()
    for seed in range(5):
        offers = list(catalog.offers)
        random.Random(seed).shuffle(offers)
        shuffled = make_catalog(
            offers=tuple(offers),
            providers=tuple(reversed(catalog.providers)),
            regions=tuple(reversed(catalog.regions)),
            instance_types=tuple(reversed(catalog.instance_types)),
        )
        assert decide(inference(), catalog=shuffled).to_json() == expected


def _pythonpath() -> dict[str, str]:
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}


def test_same_bytes_across_processes_and_hash_seeds() -> None:
    script = (
        "import sys; sys.path.insert(0, 'tests/engine')\n"
        "from engine_testdata import inference, make_catalog\n"
        "from computeops_cdk.engine import decide\n"
        "sys.stdout.write(decide(inference(compliance=['soc2']), catalog=make_catalog()).to_json())\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            # A bare environment (no inherited seed) running the same code (PYTHONPATH, when set).
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin", **_pythonpath()},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1
    assert outputs == {decide(inference(compliance=["soc2"]), catalog=make_catalog()).to_json()}


def test_infeasible_carries_rejections_nearest_misses_and_a_null_document() -> None:
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(inference(max_hourly_usd=1.0, compliance=["hipaa"]), catalog=make_catalog())
    err = caught.value
    assert err.document is not None and err.document["decision"] is None
    assert len(err.decision.to_dict(rejections="all")["rejected"]) == 13 == len(err.rejections)
    assert (
        err.document["summary"]["rejected"] == 13
        and err.document["summary"]["rejections_listed"] == "summary"
    )
    first = re.fullmatch(
        r"relaxing max_hourly_usd to ([\d.]+) would admit aws g6.xlarge \((\d+) instance\(s\)\) in us-east-1 "
        r"\(on_demand, ([\d.]+) USD/h\)",
        err.nearest_misses[0],
    )
    assert first is not None  # the cheapest HIPAA deployment: n x 0.80 USD/h
    assert float(first[1]) == float(first[3]) == pytest.approx(int(first[2]) * 0.8)
    assert any(m.startswith("dropping hipaa from constraints.compliance") for m in err.nearest_misses)
    assert str(err).startswith("no feasible placement for intent 't': all 13 candidates were rejected\n")
    assert "To fix: relax one of the constraints above" in str(err)


def test_nearest_miss_for_a_deadline() -> None:
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(training(deadline_hours=0.01), catalog=make_catalog())
    assert any(m.startswith("relaxing deadline_hours to ") for m in caught.value.nearest_misses)


def test_nothing_relaxable_gives_no_misses() -> None:
    catalog = make_catalog(offers=(offer("vast", "1x-x9", "us", 0.1),))
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(inference(), catalog=catalog)
    assert caught.value.nearest_misses == []


@pytest.mark.parametrize(
    ("constraints", "message"),
    [
        (
            {"accelerators": {"allow": ["H100", "A1000"]}},
            "constraints.accelerators.allow[1]: unknown accelerator 'A1000'. To fix: use a catalog id or "
            "alias (computeops catalog accelerators lists them) "
            "(did you mean 'A100' or 'A100-80GB' or 'H100'?)",
        ),
        (
            {"residency": {"regions": ["aws:us-east-2"]}},
            "constraints.residency.regions[0]: unknown region 'aws:us-east-2' in the catalog. To fix: use "
            "provider:code as `computeops catalog list` shows it (did you mean 'aws:us-east-1' or "
            "'aws:us-gov-west-1'?)",
        ),
    ],
)
def test_catalog_names_are_resolved_with_did_you_mean(constraints: dict[str, object], message: str) -> None:
    with pytest.raises(IntentError) as caught:
        decide(inference(**constraints), catalog=make_catalog())
    assert str(caught.value) == message


def test_preferred_region_must_exist() -> None:
    intent = intent_of(inference().workload.to_dict(), {}, preferences={"regions": ["vast:uss"]})
    with pytest.raises(IntentError, match=r"^preferences.regions\[0\]: unknown region 'vast:uss'"):
        decide(intent, catalog=make_catalog())


def test_unknown_pin_names() -> None:
    # The Python API names the Pin's attribute; the CLI and the constructs reword it for their flag/prop.
    with pytest.raises(IntentError) as err:
        decide(inference(), catalog=make_catalog(), pin=Pin(provider="lamda"))
    assert str(err.value) == (
        "pin.provider: unknown provider 'lamda'. To fix: pin one of aws, lambda, vast, or no provider "
        "(did you mean 'lambda'?)"
    )
    with pytest.raises(IntentError) as err:
        decide(inference(), catalog=make_catalog(), pin=Pin(provider="aws", region="us-east1"))
    assert str(err.value).startswith(
        "pin.region: unknown region 'us-east1' of provider aws. To fix: pin a region code of provider aws "
        "as `computeops catalog list --provider aws` shows it, or no region (did you mean 'us-east-1'"
    )


def test_decide_reads_an_intent_path(tmp_path: Path) -> None:
    path = tmp_path / "i.yaml"
    path.write_text(inference().to_yaml(), encoding="utf-8")
    assert (
        decide(path, catalog=make_catalog()).to_json()
        == decide(inference(), catalog=make_catalog()).to_json()
    )


def test_a_copied_catalog_does_not_reuse_the_index() -> None:
    catalog = make_catalog()
    decide(inference(), catalog=catalog)
    cheaper = replace(catalog, offers=(offer("aws", "g6.xlarge", "us-east-1", 0.01),))
    decision = decide(inference(), catalog=cheaper)
    assert decision.chosen is not None and decision.chosen.hourly_usd < 1 and decision.considered == 1


def test_a_copy_with_other_providers_is_decided_on_its_own_records() -> None:
    """``dataclasses.replace`` with other providers: the copy's decision reads the copy's providers
    (the copy shared the cache, so the removed provider was still chosen from the old index)."""
    catalog = make_catalog()
    first = decide(inference(), catalog=catalog).chosen
    assert first is not None
    others = replace(catalog, providers=tuple(p for p in catalog.providers if p.id != first.provider))
    again = decide(inference(), catalog=others).chosen
    assert again is not None and again.provider != first.provider


@pytest.mark.parametrize(
    "constraints",
    [
        {"max_hourly_usd": 1.0},
        {"max_monthly_usd": 500.0},
        {"max_hourly_usd": 1.0, "residency": {"countries": ["DE"]}},
        {"compliance": ["hipaa"], "max_hourly_usd": 1.0},
        {"providers": {"allow": ["lambda"]}, "max_hourly_usd": 1.5},
        # Regions that differ only by the residency widening they need are one grouped miss.
        {"residency": {"regions": ["vast:us"]}, "providers": {"allow": ["aws"]}},
        {"residency": {"regions": ["vast:us"]}, "providers": {"allow": ["aws"]}, "max_hourly_usd": 1.0},
    ],
)
def test_each_nearest_miss_really_admits_its_candidate(constraints: dict[str, object]) -> None:
    intent = inference(**constraints)
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(intent, catalog=make_catalog())
    assert caught.value.nearest_misses
    for miss in caught.value.nearest_misses:
        relaxed = dict(constraints)
        for name, value in re.findall(r"relaxing (\w+) to ([\d.]+)", miss):
            relaxed[name] = float(value)
        if "constraints.residency" in miss:
            relaxed.pop("residency")
        if "from constraints.compliance" in miss:
            relaxed.pop("compliance")
        if "to constraints.providers.allow" in miss:
            relaxed.pop("providers")
        for model in re.findall(r"allowing (\w+) in constraints.pricing", miss):
            relaxed["pricing"] = ["on_demand", model]
        # One region, or a grouped miss's regions: "in us-east-1, eu-central-1 (+2 more) (on_demand".
        found = re.search(r"would admit (\S+) (\S+) \(\d+ instance\(s\)\) in (.+?) \((\w+)", miss)
        assert found is not None, miss
        provider, itype, regions, pricing = found.groups()
        decision = decide(inference(**relaxed), catalog=make_catalog(), alternatives=100)
        admitted = {(p.provider, p.instance_type, p.region, p.pricing) for p in decision.ranked}
        rejected = {(r.provider, r.instance_type, r.region, r.pricing) for r in decision.rejected}
        assert decision.feasible >= 1
        for region in re.sub(r" \(\+\d+ more\)$", "", regions).split(", "):
            candidate = (provider, itype, region, pricing)
            assert candidate not in rejected, miss
            assert candidate in admitted or decision.feasible > len(admitted), miss


def test_features_needed() -> None:
    from engine_testdata import H100

    from computeops_cdk.engine import features_needed

    tpu = replace(H100, id="TPU-v5e", vendor="Google")
    assert features_needed(accelerator=H100, pricing="on_demand", needs_fabric=False) == ("gpu_vm",)
    on_tpu = features_needed(accelerator=tpu, pricing="spot", needs_fabric=True)
    assert on_tpu == ("tpu", "spot", "multi_node")
    # A node pool replaces the VM; required features come after the implied ones, once each.
    assert features_needed(
        accelerator=H100,
        pricing="spot",
        needs_fabric=False,
        require=("kubernetes_node_pool", "spot", "repeatable_plan"),
    ) == ("spot", "kubernetes_node_pool", "repeatable_plan")


def test_json_and_yaml_spellings_have_the_same_sha(tmp_path: Path) -> None:
    path = tmp_path / "i.json"
    path.write_text(json.dumps(inference().to_dict()), encoding="utf-8")
    assert decide(path, catalog=make_catalog()).intent_sha256 == inference().sha256


def test_an_empty_catalog_is_infeasible_with_a_plain_message() -> None:
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(inference(), catalog=make_catalog(offers=()))
    assert str(caught.value).startswith(
        "no feasible placement for intent 't': there is no offer in the catalog\n"
    )
    with pytest.raises(NoFeasiblePlacementError) as caught:
        only_lambda = make_catalog(offers=(offer("lambda", "gpu_1x_a100", "us-east-1", 1.79),))
        decide(inference(), catalog=only_lambda, pin=Pin(provider="aws"))
    assert "there is no offer inside the pin" in str(caught.value)


def test_the_garbage_collector_state_is_restored() -> None:
    import gc

    assert gc.isenabled()
    decide(inference(), catalog=make_catalog())
    assert gc.isenabled()
    with pytest.raises(NoFeasiblePlacementError):
        decide(inference(max_hourly_usd=0.01), catalog=make_catalog())
    assert gc.isenabled()
    gc.disable()
    try:
        decide(inference(), catalog=make_catalog())
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_tpu_in_a_cluster_needs_a_tpu_node_pool() -> None:
    from engine_testdata import H100

    from computeops_cdk.engine import features_needed

    tpu = replace(H100, id="TPU-v6e", vendor="Google")
    needed = features_needed(
        accelerator=tpu, pricing="on_demand", needs_fabric=False, require=("kubernetes_node_pool",)
    )
    assert needed == ("tpu", "tpu_node_pool", "kubernetes_node_pool")


def test_the_infeasible_document_is_built_on_read_and_matches_the_rejections() -> None:
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(inference(max_hourly_usd=0.01), catalog=make_catalog())
    err = caught.value
    document = err.document
    assert document is not None and document["decision"] is None
    assert [r["provider"] for r in document["rejected"]] == [
        r.provider for r in err.decision.listed_rejections("summary")
    ]
    every = err.decision.to_dict(rejections="all")["rejected"]
    assert [r["provider"] for r in every] == [r.provider for r in err.rejections]
    assert err.document is document  # built once
