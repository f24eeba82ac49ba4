"""computeops-cdk: decide where an AI workload runs, then emit that provider's Terraform.

Data flows one way: intent -> catalog -> engine -> Decision -> target -> construct.

    >>> from computeops_cdk import WorkloadIntent, decide
    >>> decision = decide(WorkloadIntent.from_file("examples/support-chat.yaml"))
    >>> decision.chosen.provider, decision.chosen.instance_type  # doctest: +SKIP

The constructs (``ComputeWorkload``, ``WorkloadStack``) are imported lazily: they load the cdktn
runtime, which the engine and the CLI never need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .catalog import Catalog, load_catalog
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

if TYPE_CHECKING:
    from .constructs import ComputeWorkload, WorkloadStack

__version__ = "0.1.0"

__all__ = [
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

_LAZY = {"ComputeWorkload", "WorkloadStack"}


def __getattr__(name: str) -> Any:
    # The constructs pull in jsii and the cdktn runtime (about a second); load them on first use only.
    if name in _LAZY:
        from . import constructs

        return getattr(constructs, name)
    raise AttributeError(f"module 'computeops_cdk' has no attribute {name!r}")
