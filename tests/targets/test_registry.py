"""The target registry: lookup, did-you-mean, honest unsupported lists, no binding loaded by an import
or a lookup."""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys

import pytest

from computeops_cdk.errors import TargetError
from computeops_cdk.targets import (
    FEATURES,
    TARGETS,
    get_target,
    placement_pin,
    supported_providers,
    unsupported_features,
)
from computeops_cdk.targets._unsupported import UNSUPPORTED


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


def test_every_target_honours_the_one_declaration_of_what_it_cannot_do() -> None:
    # One table, read by the targets themselves and by placement_pin without importing them: the
    # registry has a target for exactly its providers, in its order, each reading its own entry.
    assert tuple(UNSUPPORTED) == tuple(TARGETS)
    for provider, target in TARGETS.items():
        assert target.unsupported is UNSUPPORTED[provider]
        assert type(target).unsupported is UNSUPPORTED[provider]
        assert unsupported_features(provider) is UNSUPPORTED[provider]
    pin = placement_pin()
    assert pin.targets == {provider: target.unsupported for provider, target in TARGETS.items()}
    assert tuple(pin.targets or {}) == tuple(TARGETS)


def test_a_declaration_cannot_be_changed_at_run_time() -> None:
    with pytest.raises(TypeError):
        UNSUPPORTED["aws"]["spot"] = "no"  # type: ignore[index]
    with pytest.raises(TypeError):
        TARGETS["aws"] = TARGETS["gcp"]  # type: ignore[index]


def test_the_pin_and_the_declarations_copy_and_pickle() -> None:
    # Callers deep-copy or pickle a Pin (a construct's props, a worker pool); the read-only tables it
    # carries were once MappingProxyType views, which do neither ("cannot pickle 'mappingproxy'").
    pin = placement_pin(provider="aws", cluster=True)
    assert copy.deepcopy(pin) == pin
    assert pickle.loads(pickle.dumps(pin)) == pin
    assert dict(copy.deepcopy(unsupported_features("aws"))) == dict(UNSUPPORTED["aws"])


def test_a_decision_reads_the_declarations_without_importing_a_target_module() -> None:
    # What a cold `computeops decide` needs from the targets: the pin with every target's unsupported
    # features. It must not pay for importing the ten target modules (benchmarks/STARTUP.md).
    code = (
        "import json, sys\n"
        "import computeops_cdk.targets as targets\n"
        "pin = targets.placement_pin(provider='aws', cluster=True)\n"
        "targets.unsupported_features('vast'), targets.supported_providers()\n"
        "before = sorted(m for m in sys.modules if m.startswith('computeops_cdk.targets.'))\n"
        "targets.get_target('aws')\n"
        "after = sorted(m for m in sys.modules if m.startswith('computeops_cdk.targets.'))\n"
        "print(json.dumps({'before': before, 'after': after, 'targets': sorted(pin.targets)}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    report = json.loads(out)
    modules = ("aws", "gcp", "azure", "oci", "coreweave", "lambda_", "nebius", "crusoe", "runpod", "vast")
    target_modules = {f"computeops_cdk.targets.{name}" for name in (*modules, "k8s", "_boot")}
    assert "computeops_cdk.targets._unsupported" in report["before"]
    assert not target_modules & set(report["before"])
    assert report["targets"] == sorted(UNSUPPORTED)
    # the registry's first use imports them all (explicitly, never from a built name)
    assert target_modules <= set(report["after"])


def test_unknown_provider_suggests_a_close_one() -> None:
    with pytest.raises(TargetError) as err:
        get_target("awz")
    assert str(err.value).startswith("no Terraform target for provider 'awz' (did you mean 'aws'?). To fix:")
    with pytest.raises(TargetError) as err:  # the table answers known providers; unknown ones: the same error
        unsupported_features("awz")
    assert str(err.value).startswith("no Terraform target for provider 'awz' (did you mean 'aws'?). To fix:")
    for wrong in (None, ["aws"]):  # were AttributeError / unhashable-type TypeError
        with pytest.raises(TargetError) as err:
            get_target(wrong)  # type: ignore[arg-type]
        assert str(err.value).startswith(f"no Terraform target for provider {wrong!r}. To fix: use one of ")


def test_target_modules_and_lookups_load_no_cdk_runtime() -> None:
    # Bindings load inside configure/emit only. One fresh interpreter imports each public module of
    # the folder (every target, k8s too), loads the registry and asks every target what it cannot
    # do. (_generic is private and imports cdktn by design: targets import it lazily.)
    code = (
        "import importlib, json, pkgutil, sys\n"
        "import computeops_cdk.targets as targets\n"
        "names = [m.name for m in pkgutil.iter_modules(targets.__path__) if not m.name.startswith('_')]\n"
        "for name in names: importlib.import_module(f'computeops_cdk.targets.{name}')\n"
        "[(targets.unsupported_features(p), t.unsupported) for p, t in targets.TARGETS.items()]\n"
        "heavy = sorted(m for m in sys.modules if m.startswith(('jsii', 'cdktn', 'cdktf')))\n"
        "print(json.dumps({'imported': names, 'heavy': heavy}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    report = json.loads(out)
    assert {"aws", "gcp", "azure", "k8s", "lambda_", "vast"} <= set(report["imported"])
    assert report["heavy"] == []
