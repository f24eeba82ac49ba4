"""Properties over random intents: nothing ranked ever breaks a hard constraint; decide is deterministic."""

from __future__ import annotations

from typing import Any

from engine_testdata import PROVIDERS, intent_of, make_catalog
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from computeops_cdk.engine import Decision, Pin, Placement, decide
from computeops_cdk.errors import NoFeasiblePlacementError
from computeops_cdk.intent import WorkloadIntent

CATALOG = make_catalog()
REGIONS = {(r.provider, r.code): r for r in CATALOG.regions}
ALIASES = {"H100": "H100-SXM", "A100": "A100-80GB", "L4": "L4"}


def _subset(items: list[str]) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(items), min_size=1, max_size=len(items), unique=True)


@st.composite
def intents(draw: st.DrawFn) -> WorkloadIntent:
    constraints: dict[str, Any] = {"pricing": draw(_subset(["on_demand", "spot"]))}
    if draw(st.booleans()):
        constraints["compliance"] = draw(_subset(["hipaa", "soc2", "gdpr", "fedramp_high"]))
    residency = draw(st.sampled_from([None, "countries", "continents", "regions"]))
    if residency == "countries":
        constraints["residency"] = {"countries": draw(_subset(["US", "DE"]))}
    elif residency == "continents":
        constraints["residency"] = {"continents": draw(_subset(["NA", "EU"]))}
    elif residency == "regions":
        constraints["residency"] = {"regions": draw(_subset([f"{p}:{c}" for p, c in REGIONS]))}
    providers = draw(st.sampled_from([None, "allow", "exclude"]))
    if providers is not None:
        constraints["providers"] = {providers: draw(_subset(["aws", "lambda", "vast"]))}
    if draw(st.booleans()):
        constraints["accelerators"] = {"allow": draw(_subset(list(ALIASES)))}
    for cap, low, high in (("max_hourly_usd", 0.5, 200.0), ("max_monthly_usd", 300.0, 100_000.0)):
        if draw(st.booleans()):
            constraints[cap] = draw(st.floats(low, high))
    if draw(st.booleans()):
        workload = {
            "type": "inference",
            "model": {"name": "llama-3.1-8b", "precision": draw(st.sampled_from(["bf16", "fp8"]))},
            "serving": {
                "output_tokens_per_s": draw(st.floats(50, 50_000)),
                "tpot_ms": draw(st.sampled_from([None, 20.0, 60.0])),
            },
        }
    else:
        workload = {
            "type": draw(st.sampled_from(["training", "fine_tuning"])),
            "model": {"name": "llama-3.1-8b", "precision": "bf16"},
            "training": {
                "tokens": draw(st.floats(1e8, 1e11)),
                "deadline_hours": draw(st.sampled_from([None, 5.0, 50.0, 500.0])),
                "method": draw(st.sampled_from(["full", "lora"])),
            },
        }
        if draw(st.booleans()):
            constraints["max_total_usd"] = draw(st.floats(10.0, 100_000.0))
    return intent_of(workload, constraints)


def _violations(p: Placement, intent: WorkloadIntent) -> list[str]:
    """Each hard constraint re-checked independently of the engine's rule code."""
    k, out = intent.constraints, []
    region = REGIONS[(p.provider, p.region)]
    if k.providers and k.providers.allow is not None and p.provider not in k.providers.allow:
        out.append("provider.allow")
    if k.providers and k.providers.exclude is not None and p.provider in k.providers.exclude:
        out.append("provider.exclude")
    if k.accelerators and p.accelerator not in {ALIASES[a] for a in k.accelerators.allow}:
        out.append("accelerator")
    if p.pricing not in k.pricing:
        out.append("pricing")
    if k.residency and k.residency.countries and region.country not in k.residency.countries:
        out.append("country")
    if k.residency and k.residency.continents and region.continent not in k.residency.continents:
        out.append("continent")
    if k.residency and k.residency.regions and f"{p.provider}:{p.region}" not in k.residency.regions:
        out.append("region")
    provider = next(x for x in PROVIDERS if x.id == p.provider)
    for scope in k.compliance:
        if not any(
            a.scope == scope
            and a.evidence == "provider_claimed"
            and (a.regions is None or p.region in a.regions)
            for a in provider.attestations
        ):
            out.append(f"compliance.{scope}")
    if k.max_hourly_usd is not None and p.hourly_usd > k.max_hourly_usd + 1e-3:
        out.append("hourly")
    if k.max_monthly_usd is not None and p.monthly_usd > k.max_monthly_usd + 1e-2:
        out.append("monthly")
    if k.max_total_usd is not None and (p.total_usd is None or p.total_usd > k.max_total_usd + 1e-2):
        out.append("total")
    serving, training = intent.workload.serving, intent.workload.training
    if serving is not None:
        if p.estimate.tokens_per_s < serving.output_tokens_per_s - 0.1:
            out.append("throughput")
        if serving.tpot_ms is not None and (p.estimate.tpot_ms or 0) > serving.tpot_ms + 0.01:
            out.append("tpot")
    deadline = training.deadline_hours if training is not None else None
    if deadline is not None and (p.hours is None or p.hours > deadline + 0.01):
        out.append("deadline")
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(intents())
def test_nothing_ranked_breaks_a_hard_constraint(intent: WorkloadIntent) -> None:
    try:
        decision: Decision | None = decide(intent, catalog=CATALOG, alternatives=50)
    except NoFeasiblePlacementError as err:
        assert err.document is not None and err.document["decision"] is None
        assert len(err.rejections) == len(CATALOG.offers)
        decision = None
    if decision is not None:
        for placement in decision.ranked:
            assert _violations(placement, intent) == [], placement
        assert decision.considered == decision.feasible + len(decision.rejected) == len(CATALOG.offers)
        assert all(r.reasons for r in decision.rejected)


@settings(max_examples=25, deadline=None)
@given(intents(), st.randoms(use_true_random=False))
def test_shuffled_catalog_gives_the_same_bytes(intent: WorkloadIntent, rnd: Any) -> None:
    offers = list(CATALOG.offers)
    rnd.shuffle(offers)
    shuffled = make_catalog(offers=tuple(offers))
    try:
        expected = decide(intent, catalog=CATALOG).to_json()
    except NoFeasiblePlacementError as err:
        with_shuffle = None
        try:
            decide(intent, catalog=shuffled)
        except NoFeasiblePlacementError as again:
            with_shuffle = again
        assert with_shuffle is not None and with_shuffle.document == err.document
        return
    assert decide(intent, catalog=shuffled).to_json() == expected


@settings(max_examples=40, deadline=None)
@given(
    intents(), st.sampled_from([None, "aws", "lambda", "vast"]), st.sampled_from([None, "us-east-1", "us"])
)
def test_a_pin_only_narrows_and_never_relaxes(
    intent: WorkloadIntent, provider: str | None, region: str | None
) -> None:
    if region is not None and provider is not None and (provider, region) not in REGIONS:
        region = None
    pin = Pin(provider=provider, region=region)
    try:
        pinned = decide(intent, catalog=CATALOG, pin=pin, alternatives=50)
    except NoFeasiblePlacementError as err:
        assert all(provider in (None, r.provider) and region in (None, r.region) for r in err.rejections)
        return
    for placement in pinned.ranked:
        assert provider in (None, placement.provider) and region in (None, placement.region)
        assert _violations(placement, intent) == []
    assert pinned.considered + sum(pinned.pinned_out.values()) == len(CATALOG.offers)
