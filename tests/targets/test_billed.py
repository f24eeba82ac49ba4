"""The billed extras' prices (targets/data/billed_extras.json): each cited, per region, never 0."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import pytest

from computeops_cdk import load_catalog
from computeops_cdk.targets._billed import priced

KEYS = (
    "ebs_gp3_gb_month",
    "nat_gateway_hour",
    "nlb_hour",
    "vpc_interface_endpoint_hour",
    "public_ipv4_address_hour",
)


def _entries() -> dict[str, list[dict[str, Any]]]:
    text = resources.files("computeops_cdk.targets").joinpath("data/billed_extras.json").read_text("utf-8")
    aws = json.loads(text)["aws"]
    return {key: value if isinstance(value, list) else [value] for key, value in aws.items()}


def test_every_price_cites_its_source_and_date_and_no_region_twice() -> None:
    entries = _entries()
    assert set(KEYS) <= set(entries)
    for key, items in entries.items():
        seen: set[str] = set()
        for entry in items:
            assert entry["usd"] > 0, key
            assert entry["source"].startswith("https://") and entry["quotes"].startswith(
                "https://aws.amazon.com/"
            )
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", entry["as_of"])
            regions = entry["regions"]
            if regions == "all":  # one figure for every region, as its source states
                assert len(items) == 1 and "all AWS regions" in entry["regions_note"], key
                continue
            assert not seen & set(regions), (key, seen & set(regions))
            seen |= set(regions)
            # A source naming no region prices no region (null with its note, never another region's).
            assert regions or entry["unpriced_note"], key


@pytest.mark.parametrize("key", KEYS)
def test_every_gpu_region_is_priced_from_a_source_or_null_with_the_reason(key: str) -> None:
    regions = sorted({o.region for o in load_catalog().offers if o.provider == "aws"})
    assert len(regions) > 10
    for region in regions:
        part = priced("aws", key, region, part="x", quantity=2)
        if part.hourly_usd is None:
            assert part.note.startswith(f"no sourced aws price for {region}") and part.source is None
        else:
            assert part.hourly_usd > 0 and part.source is not None and "list price" in part.note


def test_regions_priced_differently_take_their_own_entry() -> None:
    assert priced("aws", "nat_gateway_hour", "us-east-2", part="NAT", quantity=1).hourly_usd == 0.045
    singapore = priced("aws", "nat_gateway_hour", "ap-southeast-1", part="NAT", quantity=1)
    assert (
        singapore.hourly_usd == 0.059
        and singapore.source == "https://basavytix.com/blog/aws-nat-gateway-pricing"
    )
    assert priced("aws", "nat_gateway_hour", "eu-west-1", part="NAT", quantity=1).hourly_usd is None


def test_a_price_whose_source_names_no_region_is_null_with_that_reason() -> None:
    # Regression: the interface endpoint's region-less source was applied to us-east-1.
    endpoint = priced("aws", "vpc_interface_endpoint_hour", "us-east-1", part="endpoints", quantity=6)
    assert endpoint.hourly_usd is None and "names no region" in endpoint.note


def test_the_public_ipv4_charge_applies_in_every_region() -> None:
    for region in ("us-east-1", "eu-west-1", "ap-northeast-1"):
        ip = priced("aws", "public_ipv4_address_hour", region, part="NAT gateway Elastic IP", quantity=1)
        assert ip.hourly_usd == 0.005 and ip.source is not None and "2024-02-01" in ip.note


def test_gcp_cloud_nat_is_priced_in_every_gcp_region_and_capped_at_32_vms() -> None:
    from computeops_cdk.targets._billed import cloud_nat_parts

    regions = sorted({o.region for o in load_catalog().offers if o.provider == "gcp"})
    assert len(regions) > 10
    for region in regions:
        gateway, address, data = cloud_nat_parts(4, region)
        assert gateway.hourly_usd == round(4 * 0.0014, 4) and address.hourly_usd == 0.005
        assert gateway.source == address.source == "https://cloud.google.com/nat/pricing"
        assert data.hourly_usd is None and "traffic" in data.note
    text = resources.files("computeops_cdk.targets").joinpath("data/billed_extras.json").read_text("utf-8")
    for key in ("cloud_nat_vm_hour", "cloud_nat_gateway_hour_max", "cloud_nat_ip_hour"):
        entry = json.loads(text)["gcp"][key]
        assert entry["regions"] == "all" and "no region dimension" in entry["regions_note"]
        assert entry["quotes"].startswith("https://cloud.google.com/nat/pricing (") and entry["usd"] > 0
    (capped, *_) = cloud_nat_parts(40, "us-central1")
    assert capped.hourly_usd == 0.044 and "capped" in capped.part
    assert cloud_nat_parts(32, "us-central1")[0].hourly_usd == round(32 * 0.0014, 4)
