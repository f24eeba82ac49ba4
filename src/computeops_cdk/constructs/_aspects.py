"""Aspects: cross-cutting policy over every workload in a scope, reported through Annotations."""

from __future__ import annotations

import math
from typing import Any

import jsii

from .. import _compat
from .._compat import IAspect, in_scope_framework
from ..errors import TargetError
from ._record import InheritedAspect
from ._workload import ComputeWorkload

__all__ = ["BudgetGuard"]


@jsii.implements(
    IAspect
)  # the default core's interface: jsii matches implementers by shape, so it serves either core's app
class BudgetGuard(InheritedAspect):
    """Fail synth when the workloads of a stack would cost more per hour than a budget.

    ``Aspects.of(app).add(BudgetGuard(max_hourly_usd=500))`` guards every stack of the app (cdktn itself
    invokes aspects from each stack down, so the workloads' stacks apply the App's guards at synth);
    ``Aspects.of(stack).add(...)`` guards that stack. Each stack's workloads are summed
    (the engine already keeps each one within its own intent's limits; this guards the sum, which
    no single intent sees). An error annotation names the stack, the total and every workload.

    Args:
        max_hourly_usd: the budget per stack, in USD per hour; a positive finite number, else a
            ``TargetError``.
        warn_only: report a warning instead of an error. Default: False (synth fails).
    """

    def __init__(self, *, max_hourly_usd: float, warn_only: bool = False) -> None:
        # bool is an int and NaN is a float: neither is a budget (a NaN budget would never be exceeded).
        number = isinstance(max_hourly_usd, int | float) and not isinstance(max_hourly_usd, bool)
        if not number or not 0 < max_hourly_usd < math.inf:
            raise TargetError(
                f"BudgetGuard 'max_hourly_usd' must be a positive number of USD per hour "
                f"(got {max_hourly_usd!r}). To fix: e.g. BudgetGuard(max_hourly_usd=500)"
            )
        self.max_hourly_usd = max_hourly_usd
        self.warn_only = warn_only

    @in_scope_framework
    def visit(self, node: Any) -> None:
        """Annotate ``node`` when it is a stack whose workloads' hourly prices sum over the budget."""
        if not _compat.TerraformStack.is_stack(node):
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
            _compat.Annotations.of(node).add_warning(message)
        else:
            _compat.Annotations.of(node).add_error(message)
