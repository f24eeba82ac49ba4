"""The public API is deliberate: nothing is exported by accident, and nothing promised goes missing."""

from __future__ import annotations

import subprocess
import sys

import computeops_cdk

EXPECTED = [
    "BudgetGuard",
    "Catalog",
    "CatalogError",
    "CatalogRefreshError",
    "ComputeOpsError",
    "ComputeWorkload",
    "Decision",
    "DoesNotFitError",
    "EstimateError",
    "IntentError",
    "MissingExtraError",
    "NoFeasiblePlacementError",
    "Pin",
    "PinnedPlacementError",
    "Placement",
    "Rejection",
    "TargetError",
    "WorkloadIntent",
    "WorkloadStack",
    "decide",
    "load_catalog",
]


def test_all_is_pinned_and_sorted() -> None:
    assert computeops_cdk.__all__ == EXPECTED
    assert sorted(computeops_cdk.__all__) == computeops_cdk.__all__


def test_every_exported_name_resolves() -> None:
    for name in computeops_cdk.__all__:
        assert getattr(computeops_cdk, name) is not None, name


def test_error_types_share_one_root() -> None:
    for name in EXPECTED:
        obj = getattr(computeops_cdk, name)
        if name.endswith("Error"):
            assert issubclass(obj, computeops_cdk.ComputeOpsError), name


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        computeops_cdk.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as err:
        assert "NoSuchThing" in str(err)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")


def test_importing_the_package_loads_no_cdk_runtime() -> None:
    # The engine and CLI must stay light: jsii/cdktn load only when a construct is used.
    code = (
        "import sys, computeops_cdk; heavy = ('jsii', 'cdktn', 'cdktf', 'constructs'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_engine_imports_none_of_the_clis_dependencies() -> None:
    # The Terraform provider imports the engine on every plan: it must not pay for the CLI's libraries.
    code = (
        "import sys, computeops_cdk.engine\n"
        "print(' '.join(m for m in ('rich', 'jsonschema', 'httpx', 'cdktn', 'jsii', 'argparse', 'shtab',"
        " 'matplotlib') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
