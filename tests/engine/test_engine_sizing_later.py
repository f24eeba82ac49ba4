"""An inference sizing's central figure worked out when first read (engine/_sizing.py, a cold decide's
first call): only feasible candidates' are read, and a sizing read later, or through repr, ==,
replace or pickling, gives the number the central estimate gives."""

from __future__ import annotations

import gc
import math
import pickle
import weakref
from dataclasses import replace
from pathlib import Path

import pytest

from computeops_cdk import perf
from computeops_cdk.catalog import Accelerator, InstanceType, load_catalog
from computeops_cdk.engine import MAX_INSTANCES, _sizing, decide, model_spec
from computeops_cdk.engine._sizing import STACK_SERVING_ENGINE, Sizer, Sizing
from computeops_cdk.intent import WorkloadIntent

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _intent(name: str = "support-chat") -> WorkloadIntent:
    return WorkloadIntent.from_file(EXAMPLES / f"{name}.yaml")


def _sizer(intent: WorkloadIntent) -> Sizer:
    return Sizer(intent.workload, model_spec(intent.workload), intent.preferences.capacity_headroom)


def _pending(s: Sizing) -> bool:
    return getattr(s, "_central_later", None) is not None


def _shapes() -> list[tuple[InstanceType, Accelerator]]:
    catalog = load_catalog()
    found, seen = [], set()
    for itype in catalog.instance_types:
        acc = catalog.accelerator(itype.accelerator)
        key = (acc.id, itype.accelerator_count, itype.multi_node)
        if key not in seen:
            seen.add(key)
            found.append((itype, acc))
    return found


def _central_by_hand(intent: WorkloadIntent, s: Sizing, itype: InstanceType, acc: Accelerator) -> int | None:
    """What the central estimate alone sizes, from the performance model's public function."""
    serving = intent.workload.serving
    assert serving is not None
    count = s.group_instances * itype.accelerator_count
    # an intent naming no engine is sized for the engine the stacks run where that differs (AMD)
    engine, version = (serving.engine, serving.engine_version)
    if engine is None:
        engine, version = STACK_SERVING_ENGINE.get(perf.platform_of(acc), (None, None))
    est = perf.estimate_inference(
        model_spec(intent.workload),
        precision=intent.workload.model.precision,
        accelerator=acc,
        count=count,
        input_tokens=serving.input_tokens,
        output_tokens=serving.output_tokens,
        ttft_ms=serving.ttft_ms,
        tpot_ms=serving.tpot_ms,
        gpus_per_node=itype.accelerator_count,
        engine=engine,
        engine_version=version,
    )
    missed = (serving.ttft_ms is not None and est.ttft_ms > serving.ttft_ms) or (
        serving.tpot_ms is not None and est.tpot_ms > serving.tpot_ms
    )
    if not est.fits or est.tokens_per_s <= 0 or missed:
        return None
    groups = math.ceil(serving.output_tokens_per_s / est.tokens_per_s - 1e-9)
    return groups * s.group_instances if groups * s.group_instances <= MAX_INSTANCES else None


@pytest.mark.parametrize("name", ["support-chat", "support-chat-qwen", "hipaa-us"])
def test_every_shapes_central_figure_is_the_central_estimates(name: str) -> None:
    intent, sizer = _intent(name), _sizer(_intent(name))
    later = 0
    for itype, acc in _shapes():
        s = sizer.size(itype, acc)
        if not _pending(s):  # no estimate fits (or none can be made): no central figure
            assert s.central_instances is None and s.tokens_per_s == 0
            continue
        later += 1
        assert s.central_instances == _central_by_hand(intent, s, itype, acc)
        assert not _pending(s)
    assert later > 50


def test_a_decision_reads_only_its_feasible_candidates_central_figures() -> None:
    """Fails when every fitting shape's central estimate is made while sizing (before: all ~100)."""
    intent = _intent()
    _sizing.sizer_for.cache_clear()
    decision = decide(intent)
    kept = list(_sizing.sizer_for(intent.workload, intent.preferences.capacity_headroom, ())._cache.values())
    assert sum(_pending(s) for s in kept) > len(kept) / 4  # most are never read
    assert decision.chosen is not None and decision.chosen.estimate.central_instances is not None


@pytest.mark.parametrize("read", ["repr", "eq", "replace", "pickle", "hash"])
def test_a_sizing_read_any_way_gives_the_same_figure(read: str) -> None:
    intent = _intent()
    itype, acc = next((t, a) for t, a in _shapes() if a.id == "H100-SXM" and t.accelerator_count == 8)
    later, eager = _sizer(intent).size(itype, acc), _sizer(intent).size(itype, acc)
    assert _pending(later) and _pending(eager)
    expected = eager.central_instances
    assert not _pending(eager) and _pending(later)
    if read == "repr":
        assert f"central_instances={expected!r}" in repr(later)
    elif read == "eq":
        assert later == eager
    elif read == "replace":
        assert replace(later).central_instances == expected
    elif read == "pickle":
        copy = pickle.loads(pickle.dumps(later))
        assert copy == eager and copy.central_instances == expected
    else:
        assert hash(later) == hash(eager)
    assert not _pending(later) and later.central_instances == expected


def test_a_pending_figure_keeps_no_sizer_alive() -> None:
    """The call held until the figure is read names the estimate's inputs, not the Sizer: the
    columns keep a workload's sizings in a mapping keyed weakly by its Sizer."""
    intent = _intent()
    itype, acc = next((t, a) for t, a in _shapes() if a.id == "H100-SXM" and t.accelerator_count == 8)
    sizer = _sizer(intent)
    s = sizer.size(itype, acc)
    assert _pending(s)
    alive = weakref.ref(sizer)
    del sizer
    gc.collect()
    assert alive() is None
    assert s.central_instances is not None


def test_other_missing_attributes_are_attribute_errors() -> None:
    s = Sizing(instances=1)
    with pytest.raises(AttributeError, match="'Sizing' object has no attribute 'nosuch'"):
        s.nosuch  # type: ignore[attr-defined]  # noqa: B018
    assert s.central_instances is None
