"""The decision engine: filter by hard constraints, size, estimate, cost, score, rank, explain.

Pure and deterministic; never imports cdktn, never prints. Rule ids, score formulas, defaults and
the tie-break are documented in README.md (and in ``_rules``, ``_scores``, ``_decide``).
"""

from __future__ import annotations

from ._decide import DEFAULT_ALTERNATIVES, decide
from ._decision import (
    SCORE_DIMENSIONS,
    Decision,
    EstimateSummary,
    Placement,
    Reason,
    Rejection,
    UnitCost,
)
from ._pin import FEATURES, Pin
from ._rules import features_needed
from ._sizing import MAX_INSTANCES

__all__ = [
    "DEFAULT_ALTERNATIVES",
    "FEATURES",
    "MAX_INSTANCES",
    "SCORE_DIMENSIONS",
    "Decision",
    "EstimateSummary",
    "Pin",
    "Placement",
    "Reason",
    "Rejection",
    "UnitCost",
    "decide",
    "features_needed",
]
