"""Lookups everyone codes against: accelerator aliases, regions, providers, attestations."""

from __future__ import annotations

import dataclasses

import pytest

from computeops_cdk.catalog import Catalog, load_catalog


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("H100", "H100-SXM"),
        ("h100-sxm", "H100-SXM"),
        ("H100 SXM", "H100-SXM"),
        ("H100-MEGA", "H100-SXM"),
        ("A100", "A100-40GB"),
        ("A100-80GB", "A100-80GB"),
        ("a100 80gb pcie", "A100-80GB-PCIe"),
        ("tpu-v5e", "TPU-v5e"),
        ("v5litepod", "TPU-v5e"),
        ("tpu-v5litepod", "TPU-v5e"),
        ("RTX 4090", "RTX4090"),
        ("A6000", "RTXA6000"),
        ("H200-SXM", "H200"),
        ("Radeon MI25", "MI25"),
    ],
)
def test_find_accelerator_by_id_or_alias(catalog: Catalog, name: str, expected: str) -> None:
    found = catalog.find_accelerator(name)
    assert found is not None and found.id == expected


def test_a_copy_with_other_accelerators_looks_up_its_own(catalog: Catalog) -> None:
    """A ``dataclasses.replace`` copy has its own lookup tables (it shared the original's, so an
    accelerator the copy no longer has was still found)."""
    assert catalog.find_accelerator("H100-SXM") is not None  # builds the original's table
    kept = tuple(a for a in catalog.accelerators if a.id != "H100-SXM")
    copy = dataclasses.replace(catalog, accelerators=kept)
    found = copy.find_accelerator("H100-SXM")
    assert found is None or found.id != "H100-SXM"
    assert catalog.find_accelerator("H100-SXM") is not None


def test_unknown_accelerator_is_none_and_names_feed_did_you_mean(catalog: Catalog) -> None:
    from computeops_cdk.errors import did_you_mean

    assert catalog.find_accelerator("H1000") is None
    names = catalog.accelerator_names()
    assert {"H100-SXM", "H100", "TPU-v5e", "v5litepod"} <= set(names)
    assert "H100" in did_you_mean("H10", names)


def test_every_instance_type_accelerator_is_a_catalog_id(catalog: Catalog) -> None:
    ids = {a.id for a in catalog.accelerators}
    assert {t.accelerator for t in catalog.instance_types} <= ids


def test_blackwell_fp4_is_sourced(catalog: Catalog) -> None:
    b200 = catalog.accelerator("B200")
    assert b200.fp4_tflops == 9000
    assert "fp4_tflops: https://glennklockwood.com/garden/processors/B200" in b200.source


def test_accelerator_without_memory_is_kept_but_unsized(catalog: Catalog) -> None:
    # Azure sells MI25 partitions counted as whole GPUs, so no per-GPU memory is recorded: the
    # accelerator stays in the catalog (its offers too), unsized.
    mi25 = catalog.accelerator("MI25")
    assert mi25.memory_gb is None
    assert any(t.accelerator == "MI25" for t in catalog.instance_types)


def test_find_region_and_provider(catalog: Catalog) -> None:
    region = catalog.find_region("AWS", "US-EAST-1")
    assert region is not None and (region.country, region.continent) == ("US", "NA")
    assert catalog.find_region("aws", "atlantis-1") is None
    provider = catalog.find_provider("Vast")
    assert provider is not None and provider.kind == "marketplace"
    assert catalog.find_provider("ibm") is None


def test_provider_kinds_and_slas(catalog: Catalog) -> None:
    kinds = {p.id: p.kind for p in catalog.providers}
    assert [k for k, v in kinds.items() if v == "hyperscaler"] == ["aws", "gcp", "azure", "oci"]
    assert kinds["vast"] == "marketplace"
    assert all(p.sla_source for p in catalog.providers if p.sla_percent is not None)
    assert catalog.provider("gcp").sla_percent == 99.9


def _evidence(catalog: Catalog, provider: str, scope: str) -> set[str]:
    return {a.evidence for a in catalog.provider(provider).attestations if a.scope == scope}


def test_attestation_evidence_grades(catalog: Catalog) -> None:
    assert _evidence(catalog, "aws", "hipaa") == {"provider_claimed"}
    assert _evidence(catalog, "coreweave", "hipaa") == {"keyword_only"}
    assert _evidence(catalog, "runpod", "soc2") == {"keyword_only"}
    assert _evidence(catalog, "crusoe", "soc2") == {"provider_claimed"}
    # issue 11: Oracle's current government-cloud page states the level (FedRAMP High, JAB)
    assert _evidence(catalog, "oci", "fedramp_high") == {"provider_claimed"}
    assert _evidence(catalog, "oci", "fedramp_moderate") == set()
    assert _evidence(catalog, "nebius", "soc2") == set()  # "in progress" is not an attestation
    assert _evidence(catalog, "vast", "hipaa") == set()


def test_attestation_regional_scope(catalog: Catalog) -> None:
    by_scope = {a.scope: a for a in catalog.provider("aws").attestations}
    assert by_scope["fedramp_high"].regions == ("us-gov-east-1", "us-gov-west-1")
    assert by_scope["fedramp_moderate"].regions == ("us-east-1", "us-east-2", "us-west-1", "us-west-2")
    assert by_scope["hipaa"].regions is None
    gcp_high = next(a for a in catalog.provider("gcp").attestations if a.scope == "fedramp_high")
    assert gcp_high.regions and all(catalog.region("gcp", code).country == "US" for code in gcp_high.regions)
    # issue 11: scoped to the Assured Workloads regions named for the FedRAMP High data boundary, not
    # every US region (us-east5 and us-south1 are not supported, us-central2 is no AW location)
    assert gcp_high.regions == ("us-central1", "us-east1", "us-east4")
    oci_high = next(a for a in catalog.provider("oci").attestations if a.scope == "fedramp_high")
    assert oci_high.regions == ("us-langley-1", "us-luke-1")
    # every FedRAMP attestation says what its service scope is (attestation-services.csv)
    for provider in ("aws", "azure", "gcp", "oci"):
        for att in catalog.provider(provider).attestations:
            if att.scope.startswith("fedramp"):
                assert "Services:" in att.note, (provider, att.scope)


def test_is_tpu_is_the_one_rule_the_engine_and_perf_share() -> None:
    from computeops_cdk.engine import features_needed
    from computeops_cdk.perf._hardware import hardware_of

    catalog = load_catalog()
    tpus = {a.id for a in catalog.accelerators if a.is_tpu}
    assert tpus == {a.id for a in catalog.accelerators if a.id.startswith("TPU-")}
    for acc in catalog.accelerators:
        machine = features_needed(accelerator=acc, pricing="on_demand", needs_fabric=False)[0]
        assert machine == ("tpu" if acc.is_tpu else "gpu_vm"), acc.id
        if acc.memory_gb and acc.memory_bw_gbps and acc.bf16_tflops:
            assert hardware_of(acc).is_tpu is acc.is_tpu, acc.id
