"""The "To fix" of an infeasible decision follows the rules that actually rejected the candidates."""

from __future__ import annotations

import pytest
from engine_testdata import inference, make_catalog

from computeops_cdk.engine import Pin, decide
from computeops_cdk.errors import NoFeasiblePlacementError

NO_POOL = "the provider has no Kubernetes resources"


def _fix(pin: Pin) -> str:
    with pytest.raises(NoFeasiblePlacementError) as err:
        decide(inference(), catalog=make_catalog(), pin=pin)
    return str(err.value).splitlines()[-1]


def test_a_pinned_target_that_cannot_express_a_required_feature_says_so_not_relax() -> None:
    targets = {"aws": {}, "lambda": {"kubernetes_node_pool": NO_POOL}, "vast": {}}
    fix = _fix(Pin(provider="lambda", targets=targets, require=("kubernetes_node_pool",)))
    assert fix == (
        "To fix: the pinned provider's Terraform target (lambda) cannot express kubernetes_node_pool "
        f"({NO_POOL}), which every candidate needs, so relaxing constraints cannot help: pin a provider "
        "whose target can (aws, vast), or drop the cluster (--cluster / cluster=)."
    )


def test_no_target_for_any_candidate_says_so() -> None:
    targets = {p: {"gpu_vm": "no VMs"} for p in ("aws", "lambda", "vast")}
    assert _fix(Pin(targets=targets)) == (
        "To fix: no candidate's Terraform target can express gpu_vm, which every candidate needs, so "
        "relaxing constraints cannot help: no target can express it, or change the intent so placements "
        "need less."
    )


def test_other_rejections_still_say_relax() -> None:
    intent = inference(max_hourly_usd=0.01)
    with pytest.raises(NoFeasiblePlacementError) as err:
        decide(intent, catalog=make_catalog())
    assert str(err.value).endswith(
        "To fix: relax one of the constraints above, or widen providers, regions or accelerators."
    )


def test_misses_differing_only_by_the_residency_region_are_one_line() -> None:
    intent = inference(residency={"regions": ["vast:us"]}, providers={"allow": ["aws"]}, max_hourly_usd=1.0)
    with pytest.raises(NoFeasiblePlacementError) as err:
        decide(intent, catalog=make_catalog())
    g6 = [m for m in err.value.nearest_misses if "aws g6.xlarge" in m]
    # One line for both regions; the cap named is the one that admits the dearer region too.
    assert g6 == [
        "relaxing max_hourly_usd to 15.2 and widening constraints.residency to any of 2 aws regions "
        "(DE, US) would admit aws g6.xlarge (16 instance(s)) in us-east-1, eu-central-1 "
        "(on_demand, 12.80-15.20 USD/h)"
    ]
