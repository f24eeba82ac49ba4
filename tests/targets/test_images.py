"""Issue 9: the machine image is exact and recorded, never a moving reference (AWS ``most_recent``, a GCP
image family, an Azure ``latest`` version) unless the user opts in, and then with a warning. The AWS
side and the lock are tested in test_aws.py and tests/constructs/test_lock.py."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import make_placement
from targets_testdata import resources, synth_cases

from computeops_cdk.targets import TargetProps, get_target
from computeops_cdk.targets.azure import DEFAULT_IMAGE as AZURE_IMAGE
from computeops_cdk.targets.gcp import DEFAULT_IMAGE as GCP_IMAGE

pytestmark = pytest.mark.synth


def _gcp(**changes: Any) -> Any:
    return make_placement(
        **{"provider": "gcp", "instance_type": "a3-highgpu-8g", "region": "us-central1", **changes}
    )


def _azure(**changes: Any) -> Any:
    return make_placement(
        **{"provider": "azure", "instance_type": "Standard_ND96isr_H100_v5", "region": "eastus", **changes}
    )


def test_the_defaults_name_one_exact_image() -> None:
    assert "/family/" not in GCP_IMAGE and GCP_IMAGE.endswith("-v20260320")
    assert AZURE_IMAGE["version"] not in ("", "latest")
    assert get_target("gcp").image_reference(_gcp(), cluster=False) == {"image": GCP_IMAGE}
    assert get_target("azure").image_reference(_azure(), cluster=False) == dict(AZURE_IMAGE)
    # Node pools boot the managed service's node image; TPU VMs a named runtime version.
    assert get_target("gcp").image_reference(_gcp(), cluster=True) is None
    assert get_target("azure").image_reference(_azure(), cluster=True) is None
    tpu = _gcp(
        instance_type="tpu-v5p-8", accelerator="TPU-v5p", accelerators_per_instance=4, region="us-east5"
    )
    assert get_target("gcp").image_reference(tpu, cluster=False) is None


def test_gcp_boots_the_recorded_image_and_warns_on_a_family() -> None:
    gcp = get_target("gcp")
    recorded = (
        "projects/deeplearning-platform-release/global/images/common-cu128-ubuntu-2204-nvidia-570-v20251216"
    )
    family = "projects/deeplearning-platform-release/global/images/family/common-cu128-ubuntu-2204-nvidia-570"
    doc, roles = synth_cases(
        "gcp",
        {
            "default": (gcp, _gcp(), TargetProps(name="default", options={"project": "p"})),
            "locked": (
                gcp,
                _gcp(),
                TargetProps(name="locked", options={"project": "p"}, image={"image": recorded}),
            ),
            "family": (gcp, _gcp(), TargetProps(name="family", options={"project": "p", "image": family})),
        },
    )

    def image(prefix: str) -> str:
        (vm,) = resources(doc, "google_compute_instance", prefix)
        return str(vm["boot_disk"]["initialize_params"]["image"])

    assert image("default") == GCP_IMAGE and "warnings" not in roles["default"]
    assert image("locked") == recorded
    assert image("family") == family
    assert any("image family" in w and "newest image at every plan" in w for w in roles["family"]["warnings"])


def test_azure_boots_the_recorded_version_and_warns_on_latest() -> None:
    azure = get_target("azure")
    key = {"ssh_public_key": "ssh-ed25519 AAAAtest"}
    recorded = {**AZURE_IMAGE, "version": "22.04.2024102301"}
    doc, roles = synth_cases(
        "azure",
        {
            "default": (azure, _azure(), TargetProps(name="default", options=key)),
            "locked": (azure, _azure(), TargetProps(name="locked", options=key, image=recorded)),
            "latest": (
                azure,
                _azure(),
                TargetProps(name="latest", options={**key, "image": {**AZURE_IMAGE, "version": "latest"}}),
            ),
        },
    )

    def version(prefix: str) -> str:
        (vm,) = resources(doc, "azurerm_linux_virtual_machine", prefix)
        return str(vm["source_image_reference"]["version"])

    assert version("default") == AZURE_IMAGE["version"] and "warnings" not in roles["default"]
    assert version("locked") == "22.04.2024102301"
    assert version("latest") == "latest"
    assert any("'latest'" in w and "every plan" in w for w in roles["latest"]["warnings"])
