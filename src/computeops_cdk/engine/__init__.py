"""The decision engine: filter by hard constraints, size, estimate, cost, score, rank, explain.

Pure and deterministic; never imports cdktn, never prints.
"""

from __future__ import annotations

from ._decide import decide
from ._decision import (
    SCORE_DIMENSIONS,
    Decision,
    EstimateSummary,
    Placement,
    Reason,
    Rejection,
    UnitCost,
)
from ._pin import Pin

__all__ = [
    "SCORE_DIMENSIONS",
    "Decision",
    "EstimateSummary",
    "Pin",
    "Placement",
    "Reason",
    "Rejection",
    "UnitCost",
    "decide",
]
