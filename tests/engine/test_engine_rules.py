"""One test (or a few) per hard-constraint rule, on the small hand-built catalog."""

from __future__ import annotations

import re

import pytest
from engine_testdata import inference, intent_of, make_catalog, offer, reasons_of, training

from computeops_cdk.engine import Pin, decide
from computeops_cdk.errors import NoFeasiblePlacementError


def _decide(intent, **kwargs):  # type: ignore[no-untyped-def]
    try:
        return decide(intent, catalog=make_catalog(**kwargs.pop("catalog", {})), **kwargs)
    except NoFeasiblePlacementError as err:
        return err


def _message(result, provider, itype, region, rule, pricing="on_demand"):  # type: ignore[no-untyped-def]
    rejections = result.rejected if hasattr(result, "rejected") else result.rejections
    for r in rejections:
        if (r.provider, r.instance_type, r.region, r.pricing) == (provider, itype, region, pricing):
            return next(x.message for x in r.reasons if x.rule == rule)
    raise AssertionError("candidate not rejected")


def test_compliance_needs_provider_claimed_evidence_in_scope() -> None:
    result = _decide(inference(compliance=["hipaa"]))
    assert "compliance.hipaa" not in reasons_of(result, "aws", "g6.xlarge", "us-east-1")
    assert _message(result, "lambda", "gpu_1x_a100", "us-east-1", "compliance.hipaa") == (
        "lambda has no hipaa attestation in the catalog"
    )


def test_keyword_only_evidence_never_satisfies_a_constraint() -> None:
    result = _decide(inference(compliance=["soc2"]))
    assert _message(result, "lambda", "gpu_8x_h100", "us-east-1", "compliance.soc2") == (
        "lambda's soc2 evidence is keyword_only; only provider_claimed evidence satisfies a hard constraint"
    )


def test_compliance_attested_only_in_some_regions() -> None:
    result = _decide(inference(compliance=["fedramp_high"]))
    assert _message(result, "aws", "p5.48xlarge", "us-east-1", "compliance.fedramp_high") == (
        "aws attests fedramp_high only in us-gov-west-1, not in us-east-1"
    )
    assert result.chosen is not None
    assert (result.chosen.provider, result.chosen.region) == ("aws", "us-gov-west-1")
    assert "fedramp_high" in result.chosen.attestations


def test_residency_country() -> None:
    result = _decide(inference(residency={"countries": ["DE"]}))
    assert _message(result, "aws", "g6.xlarge", "us-east-1", "residency.country") == (
        "region us-east-1 is in US, not in DE"
    )
    assert _message(result, "vast", "1x-h100", "nowhere", "residency.country") == (
        "region nowhere has no known country, not in DE"
    )
    assert all(p.country == "DE" for p in result.ranked)


def test_residency_continent() -> None:
    result = _decide(inference(residency={"continents": ["EU"]}))
    assert _message(result, "vast", "1x-h100", "us", "residency.continent") == "region us is in NA, not in EU"
    assert {p.continent for p in result.ranked} == {"EU"}


def test_residency_regions() -> None:
    result = _decide(inference(residency={"regions": ["lambda:us-east-1"]}))
    assert _message(result, "aws", "g6.xlarge", "us-east-1", "residency.region") == (
        "region aws:us-east-1 is not among lambda:us-east-1"
    )
    assert {(p.provider, p.region) for p in result.ranked} == {("lambda", "us-east-1")}


def test_provider_allow_and_exclude() -> None:
    allowed = _decide(inference(providers={"allow": ["aws"]}))
    assert _message(allowed, "vast", "1x-h100", "us", "provider.not_allowed") == (
        "provider vast is not in the allowed (aws)"
    )
    excluded = _decide(inference(providers={"exclude": ["vast"]}))
    assert (
        _message(excluded, "vast", "1x-h100", "us", "provider.excluded")
        == "provider vast is excluded by the intent"
    )
    assert all(p.provider != "vast" for p in excluded.ranked)


def test_accelerator_allow_takes_aliases() -> None:
    result = _decide(inference(accelerators={"allow": ["a100"]}))
    assert _message(result, "aws", "g6.xlarge", "us-east-1", "accelerator.not_allowed") == (
        "accelerator L4 is not among the allowed (A100-80GB)"
    )
    assert {p.accelerator for p in result.ranked} == {"A100-80GB"}


def test_pricing_model() -> None:
    result = _decide(inference())
    assert _message(result, "aws", "p5.48xlarge", "us-east-1", "pricing.model", "spot") == (
        "spot pricing is not allowed (allowed: on_demand)"
    )
    spot = _decide(inference(pricing=["spot"]))
    assert {p.pricing for p in spot.ranked} == {"spot"}


def test_unknown_price_is_rejected_never_zero() -> None:
    result = _decide(inference())
    assert reasons_of(result, "lambda", "gpu_1x_a100", "europe-central-1") == ["price.unknown"]


def test_price_caps_use_the_whole_deployment() -> None:
    result = _decide(inference(max_hourly_usd=5))
    # 2,000 tok/s of an 8B model needs several L4s: the cap applies to all of them together.
    message = _message(result, "aws", "g6.xlarge", "us-east-1", "price.max_hourly")
    assert message.endswith("USD/h exceeds max_hourly_usd 5.00") and " x 0.8 USD/h = " in message
    assert all(p.hourly_usd <= 5 for p in result.ranked)


def test_monthly_cap() -> None:
    result = _decide(inference(max_monthly_usd=1200))
    message = _message(result, "lambda", "gpu_1x_a100", "us-east-1", "price.max_monthly")
    # 2 instances: one A100 serves the 2,000 tok/s at the central estimate, not at p10 x 1.1 headroom
    assert message.startswith("2,613.40 USD/month (3.58 USD/h x 730)")
    assert all(p.monthly_usd <= 1200 for p in result.ranked)


def test_total_cap_for_training() -> None:
    result = _decide(training(constraints={"max_total_usd": 100}))
    assert "price.max_total" in reasons_of(result, "aws", "p5.48xlarge", "us-east-1")


def test_memory_fit_names_the_numbers() -> None:
    result = _decide(
        intent_of(
            {
                "type": "inference",
                "model": {"name": "llama-3.1-70b", "precision": "bf16"},
                "serving": {"output_tokens_per_s": 100},
            },
            {},
        )
    )
    message = _message(result, "aws", "g6.xlarge", "us-east-1", "memory.fit")
    assert message.startswith("llama-3.1-70b at bf16 needs ")
    # the usable memory the rule compares with, not the datasheet's (was "needs 134.3 GB but 1 x H200
    # hold 141.0 GB": a contradiction on its face)
    assert message.endswith(
        "but 1 x L4 offer 21.6 GB usable (21.6 GB of 24.0 GB each: the runtime's 90% memory share); "
        "the instance type is not multi-node"
    )


def test_latency_targets() -> None:
    result = _decide(
        intent_of(
            {
                "type": "inference",
                "model": {"name": "llama-3.1-8b", "precision": "bf16"},
                "serving": {"output_tokens_per_s": 100, "tpot_ms": 5, "ttft_ms": 1},
            },
            {},
        )
    )
    rules = reasons_of(result, "aws", "g6.xlarge", "us-east-1")
    assert {"latency.ttft", "latency.tpot"} <= set(rules)
    assert "exceeds tpot_ms 5 even at batch 1" in _message(
        result, "aws", "g6.xlarge", "us-east-1", "latency.tpot"
    )


def test_throughput_beyond_the_instance_limit() -> None:
    result = _decide(
        intent_of(
            {
                "type": "inference",
                "model": {"name": "llama-3.1-8b", "precision": "bf16"},
                "serving": {"output_tokens_per_s": 2_000_000},
            },
            {},
        )
    )
    message = _message(result, "aws", "g6.xlarge", "us-east-1", "throughput")
    assert re.fullmatch(
        r"sustaining 2,200,000 output tok/s at [\d,]+ tok/s \(p10\) per 1 instance\(s\) needs more than 256 "
        r"instances, the largest deployment considered",
        message,
    )


def test_deadline_explains_a_single_node_shape() -> None:
    result = _decide(training(deadline_hours=2))
    message = _message(result, "lambda", "gpu_8x_h100", "us-east-1", "deadline")
    assert "over deadline_hours 2" in message
    assert message.endswith("one instance (the instance type is not multi-node, so it cannot scale out)")


def test_multi_node_shapes_scale_out_to_meet_a_deadline() -> None:
    relaxed = decide(training(deadline_hours=1000), catalog=make_catalog())
    tight = decide(training(deadline_hours=10), catalog=make_catalog())
    p5 = next(p for p in tight.ranked if p.instance_type == "p5.48xlarge")
    assert p5.instances > 1 and p5.hours is not None and p5.hours <= 10
    assert all(p.instances == 1 for p in relaxed.ranked)
    assert "lambda" not in {p.provider for p in tight.ranked}  # single-node shape cannot meet it


def test_spec_unknown() -> None:
    result = _decide(inference())
    assert reasons_of(result, "vast", "1x-x9", "us") == ["spec.unknown"]


def test_rejections_keep_every_failing_reason() -> None:
    result = _decide(
        inference(residency={"countries": ["DE"]}, providers={"allow": ["aws"]}, pricing=["spot"])
    )
    assert reasons_of(result, "lambda", "gpu_1x_a100", "us-east-1") == [
        "provider.not_allowed",
        "pricing.model",
        "residency.country",
    ]


def test_target_unsupported_for_a_pinned_target() -> None:
    pin = Pin(provider="aws", unsupported={"spot": "spot needs a market option the target does not emit"})
    result = _decide(inference(pricing=["on_demand", "spot"]), pin=pin)
    assert _message(result, "aws", "p5.48xlarge", "us-east-1", "target.unsupported", "spot") == (
        "the aws target cannot do spot: spot needs a market option the target does not emit"
    )


def test_providers_without_a_target() -> None:
    result = _decide(inference(), pin=Pin(targets={"aws": {}}))
    assert _message(result, "vast", "1x-h100", "us", "target.unsupported") == (
        "there is no Terraform target for provider vast"
    )
    assert {p.provider for p in result.ranked} == {"aws"}


def test_pin_restricts_without_listing_pinned_out_offers_as_rejections() -> None:
    result = _decide(inference(), pin=Pin(provider="lambda", region="us-east-1"))
    assert {(p.provider, p.region) for p in result.ranked} == {("lambda", "us-east-1")}
    assert all(r.provider == "lambda" and r.region == "us-east-1" for r in result.rejected)
    assert result.pinned_out == {"pin.provider": 9, "pin.region": 2}


def test_a_pinned_candidate_is_still_checked() -> None:
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(inference(compliance=["hipaa"]), catalog=make_catalog(), pin=Pin(provider="lambda"))
    assert {r.reasons[0].rule for r in caught.value.rejections} >= {"compliance.hipaa"}
    assert any(m.startswith("removing the pin would admit aws") for m in caught.value.nearest_misses)


def test_offer_of_an_unknown_instance_type() -> None:
    catalog = {
        "offers": (offer("aws", "p99.unknown", "us-east-1", 1.0), offer("aws", "g6.xlarge", "us-east-1", 0.8))
    }
    result = _decide(inference(), catalog=catalog)
    assert _message(result, "aws", "p99.unknown", "us-east-1", "spec.unknown") == (
        "instance type p99.unknown of aws is not described in the catalog"
    )
