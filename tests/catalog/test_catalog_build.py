"""The builder is reproducible, the shipped catalog is what data/market builds, and coverage holds."""

from __future__ import annotations

from typing import Any

import pytest
from catalog_testdata import MARKET, ROOT

from computeops_cdk.catalog import PROVIDER_IDS, load_catalog
from computeops_cdk.catalog._build import canonical_json, content_sha256
from computeops_cdk.catalog._load import EMBEDDED_CATALOG
from computeops_cdk.catalog._validate import SCHEMA_PATH


@pytest.fixture(scope="module")
def built_doc() -> dict[str, Any]:
    """The catalog built from data/market (about half a second, so once per module)."""
    from computeops_cdk.catalog._build import build_catalog

    return build_catalog(MARKET)


def test_rebuild_equals_committed_catalog_byte_for_byte(built_doc: dict[str, Any]) -> None:
    assert canonical_json(built_doc).encode("utf-8") == EMBEDDED_CATALOG.read_bytes()


def test_build_is_deterministic(built_doc: dict[str, Any]) -> None:
    from computeops_cdk.catalog._build import build_catalog

    assert canonical_json(build_catalog(MARKET)) == canonical_json(built_doc)


def test_sha256_covers_content_without_itself(built_doc: dict[str, Any]) -> None:
    assert built_doc["sha256"] == content_sha256(built_doc)
    changed = {**built_doc, "as_of": "2026-11-30"}
    assert content_sha256(changed) != built_doc["sha256"]


def test_canonical_json_has_sorted_keys_and_trailing_newline(built_doc: dict[str, Any]) -> None:
    text = canonical_json(built_doc)
    assert text.endswith("}\n")
    top_keys = [line.split('"')[1] for line in text.splitlines() if line.startswith('"')]
    assert top_keys == sorted(top_keys)


def test_repository_schema_is_the_packaged_schema() -> None:
    assert (ROOT / "schemas" / "catalog.schema.json").read_bytes() == SCHEMA_PATH.read_bytes()


def test_embedded_catalog_passes_schema_integrity_and_sha() -> None:
    catalog = load_catalog(validate=True)
    assert catalog.as_of == "2026-11-29"
    assert catalog.version == "2026.11.29"


def test_all_ten_providers_are_present() -> None:
    catalog = load_catalog()
    assert [p.id for p in catalog.providers] == list(PROVIDER_IDS)
    offered = {o.provider for o in catalog.offers if o.hourly_usd is not None}
    assert offered == set(PROVIDER_IDS)


def test_at_least_54_distinct_priced_gpu_or_tpu_instance_types() -> None:
    catalog = load_catalog()
    priced = {(o.provider, o.instance_type) for o in catalog.offers if o.hourly_usd is not None}
    with_accelerator = {(t.provider, t.name) for t in catalog.instance_types if t.accelerator_count >= 1}
    assert len(priced & with_accelerator) >= 54


def test_every_offer_has_a_source_and_date() -> None:
    catalog = load_catalog()
    assert all(o.source and o.as_of for o in catalog.offers)
    assert all(o.hourly_usd is None or o.hourly_usd > 0 for o in catalog.offers)


def _market_with(tmp_path: Any, services_csv: str) -> Any:
    """A copy of data/market whose attestation-services.csv is ``services_csv``."""
    import shutil

    copy = tmp_path / "market"
    shutil.copytree(MARKET, copy)
    (copy / "attestation-services.csv").write_text(services_csv, encoding="utf-8")
    return copy


def test_a_provider_claimed_fedramp_record_without_service_scope_is_a_build_error(tmp_path: Any) -> None:
    # issue 11: FedRAMP authorises service by service; a record that does not say which services
    # it covers would let every placement through
    from computeops_cdk.catalog._build import build_catalog
    from computeops_cdk.errors import CatalogError

    header = (MARKET / "attestation-services.csv").read_text(encoding="utf-8").splitlines()[0]
    with pytest.raises(CatalogError, match=r"aws fedramp_high has no service scope\. To fix: add"):
        build_catalog(_market_with(tmp_path, header + "\n"))


def test_service_scope_rows_are_checked(tmp_path: Any) -> None:
    from computeops_cdk.catalog._build import build_catalog
    from computeops_cdk.errors import CatalogError

    rows = (MARKET / "attestation-services.csv").read_text(encoding="utf-8")
    orphan = rows + "lambda,fedramp_high,vm,Lambda VMs,in_scope,some page,2026-12-01,\n"
    with pytest.raises(CatalogError, match=r"lambda fedramp_high match no attestations\.csv row"):
        build_catalog(_market_with(tmp_path, orphan))
    bad = rows.replace("aws,fedramp_high,vm,Amazon EC2,in_scope", "aws,fedramp_high,vm,Amazon EC2,maybe", 1)
    with pytest.raises(CatalogError, match=r"status 'maybe' is not one of in_scope, not_in_scope, not_found"):
        build_catalog(_market_with(tmp_path / "b", bad))


def _gcp_fedramp_high_services(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    gcp = next(p for p in doc["providers"] if p["id"] == "gcp")
    (att,) = [a for a in gcp["attestations"] if a["scope"] == "fedramp_high"]
    return {s["service"]: s for s in att["services"]}


def test_the_build_carries_each_service_scopes_condition() -> None:
    # Google's FedRAMP page: High workloads must use Assured Workloads (Data Boundary for FedRAMP
    # High) and Assured Support; the column reaches the catalog record so the decision can say it
    from computeops_cdk.catalog._build import build_catalog

    services = _gcp_fedramp_high_services(build_catalog(MARKET))
    assert services["vm"]["requires"].startswith("an Assured Workloads folder with the FedRAMP High")
    assert services["kubernetes"]["requires"] == services["vm"]["requires"]
    assert services["tpu"]["requires"] == ""
    embedded = load_catalog().provider("gcp")
    (att,) = [a for a in embedded.attestations if a.scope == "fedramp_high"]
    assert att.service("vm") is not None and att.service("vm").requires == services["vm"]["requires"]  # type: ignore[union-attr]


def test_a_market_folder_without_the_requires_column_builds_with_no_condition(tmp_path: Any) -> None:
    import csv
    import io

    from computeops_cdk.catalog._build import build_catalog

    rows = list(
        csv.DictReader(io.StringIO((MARKET / "attestation-services.csv").read_text(encoding="utf-8")))
    )
    out = io.StringIO()
    fields = [f for f in rows[0] if f != "requires"]
    writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    services = _gcp_fedramp_high_services(build_catalog(_market_with(tmp_path, out.getvalue())))
    assert {s["requires"] for s in services.values()} == {""}


def test_a_catalog_written_before_the_requires_field_still_loads(tmp_path: Any) -> None:
    # a user catalog from an older build has no "requires" key: it validates and reads as "" (no
    # condition known), so upgrading never refuses a catalog that loaded before
    import json

    doc = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    for provider in doc["providers"]:
        for att in provider["attestations"]:
            for entry in att.get("services") or ():
                del entry["requires"]
    doc["sha256"] = content_sha256(doc)
    path = tmp_path / "old.json"
    path.write_text(canonical_json(doc), encoding="utf-8")
    gcp = load_catalog(path, validate=True).provider("gcp")
    (att,) = [a for a in gcp.attestations if a.scope == "fedramp_high"]
    assert {s.requires for s in att.services or ()} == {""}
