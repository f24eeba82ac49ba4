"""The target registry: lookup, did-you-mean, honest unsupported lists, no binding loaded by a lookup."""

from __future__ import annotations

import subprocess
import sys

import pytest

from computeops_cdk.errors import TargetError
from computeops_cdk.targets import FEATURES, TARGETS, get_target, supported_providers, unsupported_features


def test_every_registered_target_is_keyed_by_its_provider() -> None:
    assert supported_providers() == tuple(sorted(TARGETS))
    for provider, target in TARGETS.items():
        assert target.provider == provider
        assert get_target(provider) is target


def test_unsupported_features_are_known_features_with_reasons() -> None:
    for provider in supported_providers():
        for feature, reason in unsupported_features(provider).items():
            assert feature in FEATURES, (provider, feature)
            assert len(reason) > 10, (provider, feature)


def test_unknown_provider_suggests_a_close_one() -> None:
    with pytest.raises(TargetError) as err:
        get_target("awz")
    assert str(err.value).startswith("no Terraform target for provider 'awz' (did you mean 'aws'?). To fix:")


def test_registry_lookup_imports_no_cdk_runtime() -> None:
    code = (
        "import sys; from computeops_cdk.targets import TARGETS, unsupported_features;"
        "[unsupported_features(p) for p in TARGETS];"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jsii', 'cdktn', 'cdktf')"
        " or m.startswith('cdktn_provider')))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"
