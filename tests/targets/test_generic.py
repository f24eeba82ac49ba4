"""Generic providers/resources: required_providers, schema attribute names, None left out, shared blocks."""

from __future__ import annotations

import json
from typing import Any

import pytest

from computeops_cdk import _compat
from computeops_cdk.targets._generic import (
    PROVIDER_SOURCES,
    GenericResource,
    LambdalabsInstance,
    VastaiGpuOffers,
    VastaiInstance,
    option_or_variable,
    provider_for,
)

pytestmark = pytest.mark.synth


def synth(stack: Any) -> dict[str, Any]:
    return json.loads(_compat.Testing.synth(stack))  # type: ignore[no-any-return]


def test_provider_goes_into_required_providers_with_source_and_version() -> None:
    stack = _compat.TerraformStack(_compat.Testing.app(), "s")
    provider_for(stack, "crusoe")
    doc = synth(stack)
    assert doc["terraform"]["required_providers"]["crusoe"] == {
        "source": "crusoecloud/crusoe",
        "version": "~> 1.1",
    }
    assert doc["provider"]["crusoe"] == [{}]


def test_provider_is_created_once_per_stack() -> None:
    stack = _compat.TerraformStack(_compat.Testing.app(), "s")
    first = provider_for(stack, "oci", {"region": "us-phoenix-1"})
    again = provider_for(stack, "oci", {"region": "ignored"})
    assert again is first
    assert synth(stack)["provider"]["oci"] == [{"region": "us-phoenix-1"}]


def test_typed_resource_synthesizes_schema_names_and_drops_none() -> None:
    stack = _compat.TerraformStack(_compat.Testing.app(), "s")
    provider = provider_for(stack, "lambdalabs")
    LambdalabsInstance(
        stack,
        "box",
        provider=provider,
        region_name="us-east-1",
        instance_type_name="gpu_1x_h100_pcie",
        ssh_key_names=["me"],
    )
    (box,) = synth(stack)["resource"]["lambdalabs_instance"].values()
    assert box == {
        "provider": "lambdalabs",
        "region_name": "us-east-1",
        "instance_type_name": "gpu_1x_h100_pcie",
        "ssh_key_names": ["me"],
    }


def test_nested_values_keep_their_keys_and_lose_none() -> None:
    stack = _compat.TerraformStack(_compat.Testing.app(), "s")
    provider = provider_for(stack, "nebius")
    GenericResource(
        stack,
        "r",
        resource_type="nebius_thing",
        provider=provider,
        attributes={"outer_block": {"inner_key": 1, "gone": None}, "items": [{"a_b": True}, None]},
    )
    (thing,) = synth(stack)["resource"]["nebius_thing"].values()
    assert thing["outer_block"] == {"inner_key": 1}
    assert thing["items"] == [{"a_b": True}]


def test_data_source_reference_feeds_a_resource() -> None:
    stack = _compat.TerraformStack(_compat.Testing.app(), "s")
    provider = provider_for(stack, "vastai")
    offers = VastaiGpuOffers(stack, "offers", provider=provider, gpu_name="RTX 4090", num_gpus=1)
    VastaiInstance(
        stack,
        "box",
        provider=provider,
        offer_id=offers.number_attr("most_affordable.id"),
        disk_gb=50,
        image="img",
    )
    doc = synth(stack)
    (query,) = doc["data"]["vastai_gpu_offers"].values()
    assert query["datacenter_only"] is True
    assert query["offer_type"] == "on-demand"
    (box,) = doc["resource"]["vastai_instance"].values()
    assert box["offer_id"] == "${data.vastai_gpu_offers.offers.most_affordable.id}"


def test_option_or_variable() -> None:
    stack = _compat.TerraformStack(_compat.Testing.app(), "s")
    given = option_or_variable(stack, {"subnet_id": "sn-1"}, "subnet_id", prefix="w", description="d")
    missing = option_or_variable(stack, {}, "project_id", prefix="my-work", description="Nebius project")
    assert given == "sn-1"
    GenericResource(
        stack,
        "r",
        resource_type="nebius_thing",
        provider=provider_for(stack, "nebius"),
        attributes={"p": missing},
    )
    doc = synth(stack)
    assert doc["variable"] == {"my_work_project_id": {"type": "string", "description": "Nebius project"}}
    (thing,) = doc["resource"]["nebius_thing"].values()
    assert thing["p"] == "${var.my_work_project_id}"


def test_every_generic_provider_has_a_namespaced_source_and_a_constraint() -> None:
    for local, (source, version) in PROVIDER_SOURCES.items():
        assert source.count("/") == 1, local
        assert version.startswith("~> "), local


def test_configure_makes_a_fresh_block_that_the_construct_can_alias() -> None:
    from constructs import Construct

    from computeops_cdk.targets._base import TargetProps
    from computeops_cdk.targets.oci import OciTarget

    stack = _compat.TerraformStack(_compat.Testing.app(), "s")
    target = OciTarget()
    first = target.configure(stack, region="us-phoenix-1", props=TargetProps(name="a"))

    second = target.configure(Construct(stack, "other"), region="us-sanjose-1", props=TargetProps(name="b"))
    second.alias = "sanjose"
    assert second is not first
    GenericResource(stack, "r", resource_type="oci_thing", provider=second, attributes={"a": 1})
    doc = synth(stack)
    blocks = doc["provider"]["oci"]
    assert {"region": "us-phoenix-1"} in blocks
    assert {"region": "us-sanjose-1", "alias": "sanjose"} in blocks
    (thing,) = doc["resource"]["oci_thing"].values()
    assert thing["provider"] == "oci.sanjose"
