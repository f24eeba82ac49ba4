"""Aspects: cross-cutting policy over every workload in a scope, reported through Annotations."""

from __future__ import annotations

from typing import Any

import jsii

from .._compat import Annotations, IAspect, TerraformStack
from ._workload import ComputeWorkload

__all__ = ["BudgetGuard"]


@jsii.implements(IAspect)
class BudgetGuard:
    """Fail synth when the workloads of a stack would cost more per hour than a budget.

    ``Aspects.of(app).add(BudgetGuard(max_hourly_usd=500))``. Each stack's workloads are summed
    (the engine already keeps each one within its own intent's limits; this guards the sum, which
    no single intent sees). An error annotation names the stack, the total and every workload.

    Args:
        max_hourly_usd: the budget per stack, in USD per hour; must be positive.
        warn_only: report a warning instead of an error. Default: False (synth fails).
    """

    def __init__(self, *, max_hourly_usd: float, warn_only: bool = False) -> None:
        if not max_hourly_usd > 0:
            raise ValueError(f"'max_hourly_usd' ({max_hourly_usd}) must be positive")
        self.max_hourly_usd = max_hourly_usd
        self.warn_only = warn_only

    def visit(self, node: Any) -> None:
        if not TerraformStack.is_stack(node):
            return
        workloads = [c for c in node.node.find_all() if isinstance(c, ComputeWorkload)]
        total = sum(w.placement.hourly_usd for w in workloads)
        if total <= self.max_hourly_usd:
            return
        parts = ", ".join(f"{w.node.id} {w.placement.hourly_usd:,.2f}" for w in workloads)
        message = (
            f"workloads cost {total:,.2f} USD/h, over the budget of {self.max_hourly_usd:,.2f} USD/h "
            f"({parts}). To fix: tighten the intents' max_hourly_usd, or raise the BudgetGuard budget."
        )
        if self.warn_only:
            Annotations.of(node).add_warning(message)
        else:
            Annotations.of(node).add_error(message)
