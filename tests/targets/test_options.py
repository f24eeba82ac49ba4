"""Target options of the wrong type are TargetErrors naming the option and the fix."""

from __future__ import annotations

import pytest

from computeops_cdk.errors import TargetError
from computeops_cdk.targets import TargetProps
from computeops_cdk.targets._options import flag_option, whole_option


def _props(**options: object) -> TargetProps:
    return TargetProps(name="t", options=options)


def test_absent_is_the_default_and_whole_numbers_pass() -> None:
    assert whole_option(_props(), "os_disk_gb", 256, target="azure", unit="GB") == 256
    assert whole_option(_props(os_disk_gb=None), "os_disk_gb", 256, target="azure", unit="GB") == 256
    assert whole_option(_props(os_disk_gb=1024), "os_disk_gb", 256, target="azure", unit="GB") == 1024
    assert whole_option(_props(os_disk_gb="512"), "os_disk_gb", 256, target="azure", unit="GB") == 512


@pytest.mark.parametrize("value", ["big", 0, -5, 2.5, True, [100]])
def test_anything_else_is_a_target_error(value: object) -> None:
    # int("big") used to escape as a ValueError traceback; 2.5 and True were silently 2 and 1.
    with pytest.raises(TargetError) as caught:
        whole_option(_props(boot_disk_gb=value), "boot_disk_gb", 200, target="gcp", unit="GB")
    assert str(caught.value) == (
        f"gcp option 'boot_disk_gb' must be a whole number of GB >= 1 (got {value!r}). "
        "To fix: options={'boot_disk_gb': 200} (the default)"
    )


def test_a_flag_is_a_real_bool_or_the_default() -> None:
    assert flag_option(_props(), "secure_boot", True, target="gcp") is True
    assert flag_option(_props(secure_boot=None), "secure_boot", True, target="gcp") is True
    assert flag_option(_props(secure_boot=False), "secure_boot", True, target="gcp") is False


@pytest.mark.parametrize("value", ["false", 0, "no"])
def test_a_flag_of_another_type_is_a_target_error(value: object) -> None:
    # bool("false") is True: secure_boot="false" used to leave secure boot on without a word.
    with pytest.raises(TargetError) as caught:
        flag_option(_props(secure_boot=value), "secure_boot", True, target="gcp")
    assert str(caught.value) == (
        f"gcp option 'secure_boot' must be true or false (got {value!r}). "
        "To fix: options={'secure_boot': True} (the default)"
    )
