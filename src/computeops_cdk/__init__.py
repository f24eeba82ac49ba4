"""computeops-cdk: decide where an AI workload runs, then emit that provider's Terraform.

Data flows one way: intent -> catalog -> engine -> Decision -> target -> construct.

    >>> from computeops_cdk import WorkloadIntent, decide
    >>> decision = decide(WorkloadIntent.from_file("examples/support-chat.yaml"))
    >>> decision.chosen.provider, decision.chosen.instance_type  # doctest: +SKIP

Everything is imported on first use: the constructs (``ComputeWorkload``,
``WorkloadStack``) load the cdktn runtime, which the engine and the CLI never need.
"""

from __future__ import annotations

from ._version import __version__ as __version__  # re-exported: computeops_cdk.__version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from typing import Any

    from .catalog import Catalog, load_catalog
    from .constructs import BudgetGuard, ComputeWorkload, WorkloadStack
    from .engine import Decision, Pin, Placement, Rejection, decide
    from .errors import (
        CatalogError,
        CatalogRefreshError,
        ComputeOpsError,
        DoesNotFitError,
        EstimateError,
        IntentError,
        MissingExtraError,
        NoFeasiblePlacementError,
        PinnedPlacementError,
        TargetError,
    )
    from .intent import WorkloadIntent


__all__ = [
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

# Name -> the subpackage that defines it, imported on first use: `import computeops_cdk` (every
# `computeops` command pays it) loads neither pydantic, the catalog nor the cdktn runtime.
_LAZY = {
    "CatalogError": "errors",
    "CatalogRefreshError": "errors",
    "ComputeOpsError": "errors",
    "DoesNotFitError": "errors",
    "EstimateError": "errors",
    "IntentError": "errors",
    "MissingExtraError": "errors",
    "NoFeasiblePlacementError": "errors",
    "PinnedPlacementError": "errors",
    "TargetError": "errors",
    "Catalog": "catalog",
    "load_catalog": "catalog",
    "Decision": "engine",
    "Pin": "engine",
    "Placement": "engine",
    "Rejection": "engine",
    "decide": "engine",
    "WorkloadIntent": "intent",
    "BudgetGuard": "constructs",
    "ComputeWorkload": "constructs",
    "WorkloadStack": "constructs",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'computeops_cdk' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value
