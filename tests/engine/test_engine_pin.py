"""Pin validates itself: a wrong type or an unknown feature name is an IntentError, never ignored."""

from __future__ import annotations

from typing import Any

import pytest

from computeops_cdk import engine, targets
from computeops_cdk.engine import Pin
from computeops_cdk.errors import IntentError


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"provider": 5},
            "pin.provider: must be a non-empty string or None (got int 5). "
            "To fix: pass e.g. provider='aws', or leave it out to let the engine choose",
        ),
        ({"region": " "}, "pin.region: must be a non-empty string or None (got str ' ')."),
        (
            {"require": ("bogus",)},
            "pin.require[0]: unknown feature 'bogus'. To fix: use one of gpu_vm, tpu, spot, multi_node, "
            "kubernetes_node_pool, tpu_node_pool, repeatable_plan",
        ),
        ({"require": ("kubernetes_nodepool",)}, "(did you mean 'kubernetes_node_pool'"),
        ({"require": "spot"}, "pin.require: must be a tuple of feature names (got str 'spot')."),
        ({"unsupported": {"spto": "no"}}, "pin.unsupported['spto']: unknown feature 'spto'."),
        ({"unsupported": ["spot"]}, "pin.unsupported: must be a mapping of feature name -> reason"),
        ({"targets": {"aws": {"tpuu": "no"}}}, "pin.targets['aws']['tpuu']: unknown feature 'tpuu'."),
        ({"targets": ["aws"]}, "pin.targets: must be a mapping of provider id -> {feature: reason} or None"),
    ],
)
def test_bad_pin_is_an_intent_error_naming_the_attribute(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(IntentError) as err:
        Pin(**kwargs)
    assert message in str(err.value)


def test_every_target_pin_is_valid_and_features_are_shared() -> None:
    # One tuple, defined by the engine (which must not import targets) and re-exported by targets.
    assert targets.FEATURES is engine.FEATURES
    for provider in targets.supported_providers():
        for cluster in (False, True):
            assert targets.placement_pin(provider=provider, cluster=cluster).provider == provider
    assert targets.placement_pin(cluster=True).require == ("kubernetes_node_pool", "repeatable_plan")


def test_a_huge_bad_value_is_cut_in_the_message() -> None:
    with pytest.raises(IntentError) as err:
        Pin(provider=list(range(10_000)))  # type: ignore[arg-type]
    message = str(err.value)
    assert "(got list [0, 1, 2," in message and "...)" in message and len(message) < 300
