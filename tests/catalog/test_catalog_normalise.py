"""Normalisation: GCP sums, AWS spot medians, variant mapping, TPU chips, corrections, CoreWeave."""

from __future__ import annotations

import csv
import statistics

import pytest
from catalog_testdata import MARKET

from computeops_cdk.catalog import Catalog, load_catalog
from computeops_cdk.catalog._offers import vast_region_code


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _rows(name: str) -> list[dict[str, str]]:
    with (MARKET / name).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _price(
    catalog: Catalog, provider: str, itype: str, region: str, pricing: str = "on_demand"
) -> float | None:
    (offer,) = [o for o in catalog.offers_of(provider, itype) if o.region == region and o.pricing == pricing]
    return offer.hourly_usd


def test_gcp_gpu_vm_price_is_host_plus_accelerator_rows(catalog: Catalog) -> None:
    rows = _rows("raw/gcp.csv")
    (host,) = [r for r in rows if r["InstanceType"] == "a3-highgpu-8g" and r["Region"] == "us-west1"]
    (accel,) = [
        r
        for r in rows
        if r["RowType"] == "accelerator"
        and (r["AcceleratorName"], r["AcceleratorCount"], r["Region"]) == ("H100", "8", "us-west1")
    ]
    for pricing, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
        expected = float(host[column]) + float(accel[column])
        assert _price(catalog, "gcp", "a3-highgpu-8g", "us-west1", pricing) == pytest.approx(expected)
    assert catalog.instance_type("gcp", "a3-highgpu-8g").accelerator == "H100-SXM"


def test_gcp_gpu_rows_without_a_host_row_make_no_vm(catalog: Catalog) -> None:
    # T4/L4/V100 accelerator rows attach to n1/g2 hosts that were not transcribed: no invented VM.
    assert not [t for t in catalog.instance_types if t.provider == "gcp" and t.accelerator in ("T4", "L4")]


def test_aws_spot_is_the_median_across_availability_zones(catalog: Catalog) -> None:
    rows = [
        r for r in _rows("raw/aws.csv") if r["InstanceType"] == "p5.48xlarge" and r["Region"] == "us-east-1"
    ]
    spots = [float(r["SpotPrice"]) for r in rows if r["SpotPrice"]]
    assert len(set(spots)) > 1
    assert _price(catalog, "aws", "p5.48xlarge", "us-east-1", "spot") == pytest.approx(
        statistics.median(spots)
    )
    (offer,) = [
        o for o in catalog.offers_of("aws", "p5.48xlarge") if (o.region, o.pricing) == ("us-east-1", "spot")
    ]
    assert offer.source.endswith(f"(median of {len(spots)} AZ prices)")


def test_aws_p5e_has_no_invented_on_demand_price(catalog: Catalog) -> None:
    pricings = {o.pricing for o in catalog.offers_of("aws", "p5e.48xlarge")}
    assert pricings == {"spot"}


@pytest.mark.parametrize(
    ("provider", "itype", "accelerator"),
    [
        ("lambda", "gpu_1x_h100_pcie", "H100-PCIe"),
        ("lambda", "gpu_8x_h100_sxm5", "H100-SXM"),
        ("lambda", "gpu_1x_a100", "A100-40GB-PCIe"),
        ("lambda", "gpu_1x_a100_sxm4", "A100-40GB"),
        ("runpod", "1x_H100_SECURE", "H100-PCIe"),
        ("runpod", "1x_H100-SXM_SECURE", "H100-SXM"),
        ("runpod", "1x_A100-80GB_SECURE", "A100-80GB-PCIe"),
        ("runpod", "1x_A100-80GB-SXM_SECURE", "A100-80GB"),
        ("azure", "Standard_NC40ads_H100_v5", "H100-NVL"),
        ("azure", "Standard_NC24ads_A100_v4", "A100-80GB-PCIe"),
        ("azure", "Standard_ND96amsr_A100_v4", "A100-80GB"),
        ("vast", "1x-H100_NVL-32-65536", "H100-NVL"),
        ("vast", "1x-A100_SXM4-32-65536", "A100-40GB"),
        ("gcp", "a3-megagpu-8g", "H100-SXM"),
        ("gcp", "tpu-v5litepod-1", "TPU-v5e"),
    ],
)
def test_raw_names_map_to_the_right_variant(
    catalog: Catalog, provider: str, itype: str, accelerator: str
) -> None:
    assert catalog.instance_type(provider, itype).accelerator == accelerator


@pytest.mark.parametrize(
    ("itype", "chips", "accelerator"),
    [
        ("tpu-v5p-8", 4, "TPU-v5p"),
        ("tpu-v4-8", 4, "TPU-v4"),
        ("tpu-v6e-8", 8, "TPU-v6e"),
        ("tpu-v5litepod-4", 4, "TPU-v5e"),
    ],
)
def test_tpu_slice_names_give_chip_counts(catalog: Catalog, itype: str, chips: int, accelerator: str) -> None:
    tpu = catalog.instance_type("gcp", itype)
    assert (tpu.accelerator_count, tpu.accelerator, tpu.interconnect) == (chips, accelerator, "ICI")


def test_azure_nd_h100_v5_is_corrected_to_eight_gpus(catalog: Catalog) -> None:
    nd = catalog.instance_type("azure", "Standard_ND96isr_H100_v5")
    assert nd.accelerator_count == 8
    assert "corrected from 12 to 8" in nd.notes
    assert nd.multi_node and nd.interconnect == "InfiniBand"


def test_multi_node_fabrics(catalog: Catalog) -> None:
    assert catalog.instance_type("aws", "p5.48xlarge").interconnect == "EFA"
    assert not catalog.instance_type("aws", "g6e.xlarge").multi_node
    assert catalog.instance_type("nebius", "gpu-h100-sxm_8gpu-128vcpu-1600gb").multi_node
    assert not catalog.instance_type("nebius", "gpu-h100-sxm_1gpu-16vcpu-200gb").multi_node


def test_vast_region_codes_and_cheapest_listing(catalog: Catalog) -> None:
    assert vast_region_code("Michigan, US, NA") == "us-michigan"
    assert vast_region_code(", US, NA") == "us"
    assert vast_region_code("Hafnarfjarðarkaupstaður, IS, EU") == "is-hafnarfjardarkaupstadur"
    region = catalog.find_region("vast", "fr-france")
    assert region is not None and (region.country, region.continent) == ("FR", "EU")
    rows = [r for r in _rows("raw/vast.csv") if r["InstanceType"] == "2x-RTX_4090-32-65536"]
    by_region: dict[str, list[float]] = {}
    for r in rows:
        by_region.setdefault(vast_region_code(r["Region"]), []).append(float(r["Price"]))
    for code, prices in by_region.items():
        assert _price(catalog, "vast", "2x-RTX_4090-32-65536", code) == min(prices)


def test_runpod_regions_are_data_centres_with_countries(catalog: Catalog) -> None:
    offers = catalog.offers_of("runpod", "1x_H100_SECURE")
    assert {o.region for o in offers} >= {"US-TX-3", "EU-RO-1", "CA-MTL-1"}
    region = catalog.find_region("runpod", "EU-RO-1")
    assert region is not None and region.country == "RO"
    conflicting = catalog.find_region("runpod", "EU-SE-1")  # listed under NO and SE upstream
    assert conflicting is not None and (conflicting.country, conflicting.continent) == (None, "EU")


def test_government_regions_are_flagged(catalog: Catalog) -> None:
    flagged = {(r.provider, r.code) for r in catalog.regions if r.government}
    assert flagged == {
        ("aws", "us-gov-east-1"),
        ("aws", "us-gov-west-1"),
        ("oci", "us-langley-1"),
        ("oci", "us-luke-1"),
    }


def test_coreweave_prices_are_sourced_and_contact_sales_is_unknown(catalog: Catalog) -> None:
    h100 = catalog.offers_of("coreweave", "hgx-h100-8x")
    assert {o.hourly_usd for o in h100 if o.pricing == "on_demand"} == {49.24}
    assert all("coreweave.com/pricing" in o.source and o.as_of == "2026-09-20" for o in h100)
    b300 = [o for o in catalog.offers_of("coreweave", "hgx-b300-8x") if o.pricing == "on_demand"]
    assert b300 and all(o.hourly_usd is None for o in b300)  # the engine rejects these with price.unknown


def test_crusoe_prices_name_the_reseller_catalog(catalog: Catalog) -> None:
    offers = catalog.offers_of("crusoe", "crusoe_A100-80GBx2")
    assert offers and all("shadeform" in o.source.lower() for o in offers)
