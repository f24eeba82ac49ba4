"""FedRAMP authorises service by service (issue 11, section 5): a FedRAMP constraint on a placement
needs every provider service it runs on (the VM service, the managed Kubernetes service, the TPU
service) inside the authorisation, not only the region."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from engine_testdata import PROVIDERS, inference, intent_of, make_catalog

from computeops_cdk.catalog import Attestation, Provider, ServiceScope, load_catalog
from computeops_cdk.engine import Pin, decide
from computeops_cdk.engine._rules import attestation_applies, compliance_rules, placement_services
from computeops_cdk.engine._scores import compliance_credit
from computeops_cdk.errors import NoFeasiblePlacementError
from computeops_cdk.intent import WorkloadIntent


def _scope(service: str, status: str, name: str = "") -> ServiceScope:
    return ServiceScope(
        service=service,  # type: ignore[arg-type]
        name=name or service.upper(),
        status=status,  # type: ignore[arg-type]
        source="test page",
        read="2026-12-01",
    )


def _aws(*services: ServiceScope) -> Provider:
    """The test catalog's AWS, its FedRAMP High (us-gov-west-1) authorised for ``services`` only."""
    att = Attestation(
        scope="fedramp_high",
        evidence="provider_claimed",
        source="test",
        regions=("us-gov-west-1",),
        services=services,
    )
    return replace(PROVIDERS[0], attestations=(att,))


def test_placement_services_name_the_machine_service_and_the_cluster() -> None:
    assert placement_services(tpu=False, kubernetes=False) == ("vm",)
    assert placement_services(tpu=True, kubernetes=False) == ("tpu",)
    assert placement_services(tpu=False, kubernetes=True) == ("vm", "kubernetes")
    assert placement_services(tpu=True, kubernetes=True) == ("tpu", "kubernetes")


def test_a_vm_placement_needs_the_vm_service_in_scope() -> None:
    aws = _aws(_scope("vm", "in_scope", "Amazon EC2"), _scope("kubernetes", "not_in_scope", "Amazon EKS"))
    assert compliance_rules(aws, "us-gov-west-1", ("fedramp_high",), ("vm",)) == ()
    (reason,) = compliance_rules(aws, "us-gov-west-1", ("fedramp_high",), ("vm", "kubernetes"))
    assert reason.rule == "compliance.fedramp_high"
    assert reason.message == (
        "aws's fedramp_high authorisation does not cover Amazon EKS, which the placement runs on "
        "(per the source read 2026-12-01)"
    )


def test_a_service_no_source_names_is_not_taken_as_in_scope() -> None:
    aws = _aws(_scope("vm", "not_found", "Amazon EC2"))
    (reason,) = compliance_rules(aws, "us-gov-west-1", ("fedramp_high",), ("vm",))
    assert reason.message.startswith(
        "aws's fedramp_high authorisation is not known to cover Amazon EC2, which the placement runs on: "
        "no source read 2026-12-01 names it"
    )
    # a service the attestation does not list at all is not in scope either
    (reason,) = compliance_rules(aws, "us-gov-west-1", ("fedramp_high",), ("tpu",))
    assert reason.message == "aws's fedramp_high authorisation lists no tpu service"


def test_the_region_rule_still_comes_first() -> None:
    aws = _aws(_scope("vm", "in_scope"))
    (reason,) = compliance_rules(aws, "us-east-1", ("fedramp_high",), ("vm",))
    assert reason.message == "aws attests fedramp_high only in us-gov-west-1, not in us-east-1"


def test_an_attestation_not_scoped_by_service_covers_every_service() -> None:
    # SOC 2, HIPAA ... (services None) and the test catalog's unscoped FedRAMP record
    aws = PROVIDERS[0]
    for services in (("vm",), ("tpu", "kubernetes")):
        assert compliance_rules(aws, "us-gov-west-1", ("fedramp_high", "soc2"), services) == ()


def test_decide_rejects_a_kubernetes_placement_whose_cluster_service_is_out_of_scope() -> None:
    aws = _aws(_scope("vm", "in_scope", "Amazon EC2"), _scope("kubernetes", "not_in_scope", "Amazon EKS"))
    catalog = make_catalog(providers=(aws, *PROVIDERS[1:]))
    intent = inference(compliance=["fedramp_high"])
    vm = decide(intent, catalog=catalog)
    assert (vm.chosen.provider, vm.chosen.region) == ("aws", "us-gov-west-1")
    assert "fedramp_high" in vm.chosen.attestations
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(intent, catalog=catalog, pin=Pin(require=("kubernetes_node_pool",)))
    messages = {r.message for rej in caught.value.rejections for r in rej.reasons}
    assert any("does not cover Amazon EKS" in m for m in messages)


def test_the_chosen_placement_lists_only_attestations_that_cover_its_services() -> None:
    aws = _aws(_scope("vm", "in_scope"), _scope("kubernetes", "not_in_scope"))
    soc2 = Attestation(scope="soc2", evidence="provider_claimed", source="test")
    aws = replace(aws, attestations=(*aws.attestations, soc2))
    catalog = make_catalog(providers=(aws, *PROVIDERS[1:]))
    pool = decide(
        inference(residency={"regions": ["aws:us-gov-west-1"]}),
        catalog=catalog,
        pin=Pin(require=("kubernetes_node_pool",)),
    )
    assert pool.chosen.region == "us-gov-west-1"
    assert pool.chosen.attestations == ("soc2",)  # fedramp_high does not cover the cluster service


# --- the embedded catalog: what each provider's own pages were found to say ----------------------


def test_embedded_aws_fedramp_moderate_covers_ec2_and_eks_on_a_kubernetes_placement() -> None:
    # the embedded catalog has no GovCloud prices, so FedRAMP High cannot be placed on AWS here;
    # Moderate (US East/West) covers both EC2 and EKS
    intent = intent_of(
        {
            "type": "inference",
            "model": {"name": "llama-3.1-8b", "precision": "bf16"},
            "serving": {"output_tokens_per_s": 100},
        },
        {"providers": {"allow": ["aws"]}, "compliance": ["fedramp_moderate"]},
    )
    decision = decide(intent, pin=Pin(require=("kubernetes_node_pool",)))
    assert decision.chosen.region in ("us-east-1", "us-east-2", "us-west-1", "us-west-2")
    assert "fedramp_moderate" in decision.chosen.attestations


def _gcp_fedramp_high(accelerators: list[str] | None = None) -> WorkloadIntent:
    constraints: dict[str, Any] = {"providers": {"allow": ["gcp"]}, "compliance": ["fedramp_high"]}
    if accelerators:
        constraints["accelerators"] = {"allow": accelerators}
    return intent_of(
        {
            "type": "inference",
            "model": {"name": "llama-3.1-8b", "precision": "bf16"},
            "serving": {"output_tokens_per_s": 100},
        },
        constraints,
    )


def test_embedded_gcp_fedramp_high_admits_compute_engine_and_gke_in_its_regions() -> None:
    # issue 11: the FedRAMP Marketplace record of Google's P-ATO (FR1805751477) names Compute Engine
    # and Google Kubernetes Engine among the services authorised at High; the regions stay the
    # Assured Workloads locations of the FedRAMP High data boundary (us-central1, us-east1, us-east4)
    for pin in (Pin(), Pin(require=("kubernetes_node_pool",))):
        decision = decide(_gcp_fedramp_high(), pin=pin)
        assert decision.chosen.provider == "gcp"
        assert decision.chosen.region in ("us-central1", "us-east1", "us-east4")
        assert "fedramp_high" in decision.chosen.attestations
        assert not decision.chosen.instance_type.startswith("tpu")


def test_embedded_gcp_fedramp_high_never_admits_a_tpu_slice_or_a_region_outside_its_boundary() -> None:
    # the same record names Cloud TPU in neither its High nor its Moderate list: not_in_scope, and the
    # rejection says so and where it was read; us-east5 is outside the data boundary's locations
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(_gcp_fedramp_high(["TPU-v6e"]))
    by_region = {
        (rej.region, r.message)
        for rej in caught.value.rejections
        for r in rej.reasons
        if r.rule == "compliance.fedramp_high"
    }
    central = {m for region, m in by_region if region == "us-central1"}
    assert any(
        m.startswith("gcp's fedramp_high authorisation does not cover Cloud TPU, which the placement runs on")
        and "2026-12-01" in m
        for m in central
    ), central
    assert (
        "us-east5",
        "gcp attests fedramp_high only in us-central1, us-east1, us-east4, not in us-east5",
    ) in by_region


def test_embedded_oci_fedramp_high_covers_compute_and_oke_in_its_government_realm_only() -> None:
    # the Marketplace record FR1900048743 authorises Compute and Container Engine for Kubernetes at
    # High; the realm's two regions have no prices in the catalog, so no decision changes
    oci = load_catalog().provider("oci")
    for services in (("vm",), ("vm", "kubernetes")):
        assert compliance_rules(oci, "us-langley-1", ("fedramp_high",), services) == ()
        assert compliance_rules(oci, "us-luke-1", ("fedramp_high",), services) == ()
    (reason,) = compliance_rules(oci, "us-ashburn-1", ("fedramp_high",), ("vm",))
    assert reason.message == "oci attests fedramp_high only in us-langley-1, us-luke-1, not in us-ashburn-1"


def test_every_provider_claimed_fedramp_record_states_its_service_scope_with_source_and_date() -> None:
    catalog = load_catalog()
    seen = {}
    for provider in catalog.providers:
        for att in provider.attestations:
            if att.scope.startswith("fedramp") and att.evidence == "provider_claimed":
                assert att.services, (provider.id, att.scope)
                for entry in att.services:
                    assert entry.source and entry.name and entry.read == "2026-12-01", (provider.id, entry)
                seen[(provider.id, att.scope)] = {e.service: e.status for e in att.services}
    assert seen == {
        ("aws", "fedramp_high"): {"vm": "in_scope", "kubernetes": "in_scope"},
        ("aws", "fedramp_moderate"): {"vm": "in_scope", "kubernetes": "in_scope"},
        ("azure", "fedramp_high"): {"vm": "in_scope", "kubernetes": "in_scope"},
        ("gcp", "fedramp_high"): {"vm": "in_scope", "kubernetes": "in_scope", "tpu": "not_in_scope"},
        ("oci", "fedramp_high"): {"vm": "in_scope", "kubernetes": "in_scope"},
    }


# --- the soft compliance score uses the filter's scope rule ----------------------------------------


def test_the_score_does_not_credit_an_authorisation_that_does_not_cover_the_services() -> None:
    # issue 11 review: the filter scoped FedRAMP by service, the score still credited it anyway
    aws = _aws(_scope("vm", "in_scope", "Amazon EC2"), _scope("kubernetes", "not_in_scope", "Amazon EKS"))
    assert compliance_credit(aws, "us-gov-west-1", ("vm",))[0] == pytest.approx(1 / 7)
    assert compliance_credit(aws, "us-gov-west-1", ("vm", "kubernetes"))[0] == 0.0
    assert compliance_credit(aws, "us-gov-west-1", ("tpu",))[0] == 0.0  # lists no TPU service
    not_found = _aws(_scope("vm", "not_found", "Amazon EC2"))
    assert compliance_credit(not_found, "us-gov-west-1", ("vm",))[0] == 0.0
    assert compliance_credit(aws, "us-east-1", ("vm",))[0] == 0.0  # the region rule as before


def test_embedded_gcp_fedramp_high_is_scored_exactly_where_the_filter_accepts_it() -> None:
    # the soft score credits the authorisation for Compute Engine and GKE placements in its regions
    # and for nothing on Cloud TPU or outside them, as the filter does
    gcp = load_catalog().provider("gcp")
    fedramp = [a for a in gcp.attestations if a.scope == "fedramp_high"]
    without = replace(gcp, attestations=tuple(a for a in gcp.attestations if a.scope != "fedramp_high"))
    for code in ("us-central1", "us-east1", "us-east4", "us-east5"):
        for services in (("vm",), ("tpu",), ("vm", "kubernetes"), ("tpu", "kubernetes")):
            gain = compliance_credit(gcp, code, services)[0] - compliance_credit(without, code, services)[0]
            covered = code != "us-east5" and "tpu" not in services
            assert gain == pytest.approx(1 / 7 if covered else 0.0), (code, services)
    assert fedramp and all(attestation_applies(a, "us-central1", ("vm", "kubernetes")) for a in fedramp)


def test_score_and_filter_agree_on_every_provider_claimed_attestation_of_the_embedded_catalog() -> None:
    # one rule for both: a scope the filter accepts earns the full credit, one it rejects earns none
    # from its provider_claimed records
    catalog = load_catalog()
    checked = 0
    for provider in catalog.providers:
        claimed = {a.scope for a in provider.attestations if a.evidence == "provider_claimed"}
        regions = {code for a in provider.attestations for code in a.regions or ()} | {"us-east-1"}
        for code in sorted(regions):
            for services in (("vm",), ("tpu",), ("vm", "kubernetes")):
                for scope in sorted(claimed):
                    alone = replace(
                        provider,
                        attestations=tuple(
                            a
                            for a in provider.attestations
                            if a.scope == scope and a.evidence == "provider_claimed"
                        ),
                    )
                    passes = compliance_rules(provider, code, (scope,), services) == ()
                    credited = compliance_credit(alone, code, services)[0] == pytest.approx(1 / 7)
                    assert passes == credited, (provider.id, code, services, scope)
                    checked += 1
    assert checked > 50
