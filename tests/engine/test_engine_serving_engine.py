"""A named serving engine is a hard constraint: an accelerator it does not run on is a rejection."""

from __future__ import annotations

import pytest
from engine_testdata import ITYPES, OFFERS, intent_of, make_catalog, offer, reasons_of

from computeops_cdk.catalog import Accelerator, InstanceType
from computeops_cdk.engine import decide
from computeops_cdk.errors import NoFeasiblePlacementError

MI300X = Accelerator(
    id="MI300X",
    vendor="AMD",
    architecture="CDNA 3",
    memory_gb=192,
    memory_bw_gbps=5300,
    bf16_tflops=1307,
    fp8_tflops=2615,
    interconnect="Infinity Fabric",
    interconnect_gbps=896,
)


def _catalog() -> object:
    base = make_catalog()
    return make_catalog(
        accelerators=(*base.accelerators, MI300X),
        instance_types=(
            *ITYPES,
            InstanceType(provider="aws", name="mi-1", accelerator="MI300X", accelerator_count=1),
        ),
        offers=(*OFFERS, offer("aws", "mi-1", "us-east-1", 0.5)),
    )


def _intent(engine: str | None, **constraints: object):  # type: ignore[no-untyped-def]
    serving: dict[str, object] = {"output_tokens_per_s": 2000}
    if engine is not None:
        serving["engine"] = engine
    return intent_of(
        {"type": "inference", "model": {"name": "llama-3.1-8b", "precision": "bf16"}, "serving": serving},
        constraints,
    )


def test_an_engine_that_does_not_run_on_the_accelerator_rejects_it() -> None:
    catalog = _catalog()
    # without an engine the cheap AMD offer wins; naming TensorRT-LLM rejects it with the reason
    assert decide(_intent(None), catalog=catalog).chosen.accelerator == "MI300X"  # type: ignore[arg-type]
    decision = decide(_intent("tensorrt-llm"), catalog=catalog)  # type: ignore[arg-type]
    assert decision.chosen is not None and decision.chosen.accelerator == "H100-SXM"
    assert reasons_of(decision, "aws", "mi-1", "us-east-1") == ["engine.platform"]
    message = next(r for r in decision.rejected if r.instance_type == "mi-1").reasons[0].message
    assert "tensorrt-llm does not run on AMD GPUs" in message and "sglang or vllm" in message
    assert any("serving engine: tensorrt-llm" in a for a in decision.chosen.estimate.assumptions)
    # an engine that does run there keeps it
    assert decide(_intent("sglang"), catalog=catalog).chosen.accelerator == "MI300X"  # type: ignore[arg-type]


def test_nothing_left_is_infeasible_with_the_engine_as_the_miss() -> None:
    with pytest.raises(NoFeasiblePlacementError) as err:
        decide(_intent("jetstream", accelerators={"allow": ["MI300X"]}), catalog=_catalog())  # type: ignore[arg-type]
    rules = {r.rule for rejection in err.value.rejections for r in rejection.reasons}
    assert "engine.platform" in rules
    assert any("naming a serving.engine that runs on MI300X" in m for m in err.value.nearest_misses)


def test_naming_vllm_on_amd_sizes_with_its_measured_range() -> None:
    # v17: the sizing meets the intent at the low end of the band the named engine's rows read
    from computeops_cdk.perf._calibration import ENGINE_MEASURED_RANGE

    only_amd = {"accelerators": {"allow": ["MI300X"]}}
    vllm = decide(_intent("vllm", **only_amd), catalog=_catalog())  # type: ignore[arg-type]
    assert vllm.chosen is not None
    v = vllm.chosen.estimate
    assert v.evidence == "measured"
    assert v.tokens_per_s_p10 == pytest.approx(
        v.tokens_per_s * ENGINE_MEASURED_RANGE[("MI300X", "vllm")][0], rel=1e-3
    )
    assert v.tokens_per_s_p10 >= 2000  # type: ignore[operator]


def test_naming_no_engine_on_amd_sizes_for_the_vllm_the_stacks_run() -> None:
    # the stacks boot AMD's rocm/vllm (vLLM 0.10.1) on MI300X, which AMD's own tables measure at
    # about half the unnamed estimate (AMD's MLPerf build): a decision naming no engine was sized
    # for a build no stack runs, so its fleet fell short at the band's low end
    from computeops_cdk.engine._sizing import STACK_SERVING_ENGINE

    only_amd = {"accelerators": {"allow": ["MI300X"]}}
    plain = decide(_intent(None, **only_amd), catalog=_catalog())  # type: ignore[arg-type]
    serving = {
        "output_tokens_per_s": 2000,
        "engine": "vllm",
        "engine_version": STACK_SERVING_ENGINE["amd"][1],
    }
    named = decide(
        intent_of(
            {"type": "inference", "model": {"name": "llama-3.1-8b", "precision": "bf16"}, "serving": serving},
            only_amd,
        ),
        catalog=_catalog(),  # type: ignore[arg-type]
    )
    assert plain.chosen is not None and named.chosen is not None
    p, n = plain.chosen.estimate, named.chosen.estimate
    assert (plain.chosen.instances, p.tokens_per_s, p.tokens_per_s_p10, p.evidence) == (
        named.chosen.instances,
        n.tokens_per_s,
        n.tokens_per_s_p10,
        n.evidence,
    )
    note = "no serving.engine named: sized for vllm 0.10.1, the engine the stacks run on MI300X"
    assert p.assumptions[0].startswith(note) and not any(note in a for a in n.assumptions)
    assert p.assumptions[1:] == n.assumptions
    # NVIDIA stacks run vLLM too, whose rule there is the unnamed estimate: nothing is named
    nvidia = decide(_intent(None, accelerators={"allow": ["H100-SXM"]}), catalog=_catalog())  # type: ignore[arg-type]
    assert nvidia.chosen is not None
    assert not any("serving engine" in a or "serving.engine" in a for a in nvidia.chosen.estimate.assumptions)
