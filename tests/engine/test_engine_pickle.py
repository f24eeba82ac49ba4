"""Decisions, their errors and catalogs cross process boundaries (a worker pool pickles them), and a
decision depends only on its inputs, not on what the process decided before."""

from __future__ import annotations

import pickle
from dataclasses import replace

import pytest
from engine_testdata import H100, ITYPES, inference, make_catalog

from computeops_cdk.catalog import Catalog, load_catalog
from computeops_cdk.engine import decide
from computeops_cdk.engine._sizing import Sizer, model_spec
from computeops_cdk.errors import NoFeasiblePlacementError


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_a_decision_pickles_as_what_it_says(catalog: Catalog) -> None:
    """The lazy rejections held the grouped evaluation (with a weak mapping): pickling raised
    "cannot pickle 'weakref.ReferenceType' object", so ``decide`` in a worker pool failed."""
    decision = decide("examples/support-chat.yaml", catalog=catalog)
    again = pickle.loads(pickle.dumps(decision))
    assert again.to_json(rejections="all") == decision.to_json(rejections="all")
    assert again.rejected == decision.rejected


def test_an_infeasible_decision_error_pickles(catalog: Catalog) -> None:
    with pytest.raises(NoFeasiblePlacementError) as raised:
        decide("examples/infeasible-budget.yaml", catalog=catalog)
    err = raised.value
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err)
    assert again.nearest_misses == err.nearest_misses
    assert again.rejections == err.rejections
    assert again.document == err.document


def test_a_catalog_pickles_after_a_decision_without_its_caches(catalog: Catalog) -> None:
    decide("examples/support-chat.yaml", catalog=catalog)
    again = pickle.loads(pickle.dumps(catalog))
    assert again == catalog
    assert again._index == {}
    assert decide("examples/support-chat.yaml", catalog=again).to_json() == (
        decide("examples/support-chat.yaml", catalog=catalog).to_json()
    )


def test_the_error_keeps_its_own_copy_of_a_rejections_list() -> None:
    given = [1, 2]
    err = NoFeasiblePlacementError("none", rejections=given)
    given.append(3)
    assert err.rejections == [1, 2]


def test_a_decision_does_not_depend_on_an_earlier_decision_over_another_catalog() -> None:
    """The same workload decided over a catalog whose accelerators are three times faster: the same
    bytes whether or not the process decided over the original catalog first (the sizings were kept
    by accelerator id, so the faster catalog was sized with the original's specs)."""

    def faster() -> Catalog:
        base = make_catalog()
        boosted = tuple(
            replace(a, memory_bw_gbps=a.memory_bw_gbps * 3, bf16_tflops=a.bf16_tflops * 3)
            if a.memory_bw_gbps is not None and a.bf16_tflops is not None
            else a
            for a in base.accelerators
        )
        return replace(base, accelerators=boosted)

    alone = decide(inference(), catalog=faster()).to_json(rejections="all")
    original = decide(inference(), catalog=make_catalog()).to_json(rejections="all")
    after = decide(inference(), catalog=faster()).to_json(rejections="all")
    assert original != alone  # the specs matter to this decision
    assert after == alone


def test_a_sizer_keeps_one_entry_for_equal_accelerator_records() -> None:
    """Catalogs loaded again hold equal records: one sizing each (keyed by the record's identity,
    the cache kept every record of every catalog loaded since, 180 -> 5,400 entries in 30 loads)."""
    workload = inference().workload
    sizer = Sizer(workload, model_spec(workload))
    first = sizer.size(ITYPES[0], H100)
    again = sizer.size(ITYPES[0], replace(H100))  # an equal record from another load
    assert again == first and len(sizer._cache) == 1
