"""The CDK Terrain constructs: ``ComputeWorkload`` (intent -> engine -> target) and ``WorkloadStack``.

Importing this package loads the cdktn runtime (through ``computeops_cdk._compat``) but no
provider binding: a target imports its binding when it emits, so only the chosen one is loaded.
"""

from __future__ import annotations

from ..targets.k8s import KubeConnection
from ._aspects import BudgetGuard
from ._record import DECISION_FILE
from ._stack import WorkloadStack
from ._workload import ComputeWorkload

__all__ = ["DECISION_FILE", "BudgetGuard", "ComputeWorkload", "KubeConnection", "WorkloadStack"]
