"""The target registry: lookup, did-you-mean, honest unsupported lists, no binding loaded by an import
or a lookup."""

from __future__ import annotations

import json
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
    for wrong in (None, ["aws"]):  # were AttributeError / unhashable-type TypeError
        with pytest.raises(TargetError) as err:
            get_target(wrong)  # type: ignore[arg-type]
        assert str(err.value).startswith(f"no Terraform target for provider {wrong!r}. To fix: use one of ")


def test_target_modules_and_lookups_load_no_cdk_runtime() -> None:
    # Bindings load inside configure/emit only. Importing any one target module runs the package
    # __init__, which imports every registered target, so one fresh interpreter covers them all;
    # it also imports each public module of the folder (k8s too) and asks every target what it
    # cannot do. (_generic is private and imports cdktn by design: targets import it lazily.)
    code = (
        "import importlib, json, pkgutil, sys\n"
        "import computeops_cdk.targets as targets\n"
        "names = [m.name for m in pkgutil.iter_modules(targets.__path__) if not m.name.startswith('_')]\n"
        "for name in names: importlib.import_module(f'computeops_cdk.targets.{name}')\n"
        "[targets.unsupported_features(p) for p in targets.TARGETS]\n"
        "heavy = sorted(m for m in sys.modules if m.startswith(('jsii', 'cdktn', 'cdktf')))\n"
        "print(json.dumps({'imported': names, 'heavy': heavy}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    report = json.loads(out)
    assert {"aws", "gcp", "azure", "k8s", "lambda_", "vast"} <= set(report["imported"])
    assert report["heavy"] == []
