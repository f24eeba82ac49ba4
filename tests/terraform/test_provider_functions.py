"""Provider functions: the engine's unit-cost formulas, and errors that name the argument."""

from __future__ import annotations

import math

import pytest
from tf_testdata import ROOT, SUPPORT_CHAT

from computeops_cdk import WorkloadIntent, decide
from computeops_cdk.terraform._framework import FunctionError
from computeops_cdk.terraform._functions import usd_per_million_tokens, usd_per_training_step


def test_usd_per_million_tokens_is_the_engines_unit_cost() -> None:
    intent = WorkloadIntent.from_file(SUPPORT_CHAT)
    chosen = decide(intent).chosen
    assert chosen is not None and intent.workload.serving is not None
    value = usd_per_million_tokens(chosen.hourly_usd, intent.workload.serving.output_tokens_per_s)
    assert value == pytest.approx(chosen.unit_cost.value, abs=5e-5)  # the engine rounds to 4 decimals


def test_usd_per_training_step_is_the_engines_unit_cost() -> None:
    intent = WorkloadIntent.from_file(ROOT / "examples" / "llama-8b-pretrain.yaml")
    chosen = decide(intent).chosen
    assert chosen is not None and intent.workload.training is not None
    value = usd_per_training_step(
        chosen.hourly_usd, chosen.estimate.tokens_per_s, intent.workload.training.global_batch_tokens
    )
    # The engine also spreads the job's start-up and billing increments over its steps (a few tenths
    # of a percent here); the function prices the step alone.
    assert value <= chosen.unit_cost.value
    assert value == pytest.approx(chosen.unit_cost.value, rel=1e-2)


def test_known_values() -> None:
    assert usd_per_million_tokens(36, 10_000) == pytest.approx(1.0)
    assert usd_per_training_step(3600, 1000, 1000) == pytest.approx(1.0)
    assert usd_per_million_tokens(0, 5) == 0  # a free deployment is allowed, a zero rate is not


@pytest.mark.parametrize(
    ("call", "position", "text"),
    [
        (lambda: usd_per_million_tokens(10, 0), 1, "tokens_per_s > 0"),
        (lambda: usd_per_million_tokens(-1, 10), 0, "hourly_usd >= 0"),
        (lambda: usd_per_million_tokens(math.inf, 10), 0, "finite"),
        (lambda: usd_per_million_tokens("10", 10), 0, "must be a number"),
        (lambda: usd_per_million_tokens(True, 10), 0, "must be a number"),
        (lambda: usd_per_training_step(10, 10, 0), 2, "global_batch_tokens > 0"),
        (lambda: usd_per_training_step(10, math.nan, 5), 1, "finite"),
    ],
)
def test_bad_arguments_are_function_errors_naming_the_argument(call, position, text) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(FunctionError) as caught:
        call()
    assert caught.value.argument == position and text in str(caught.value)
