"""The decision engine: filter by hard constraints, size, estimate, cost, score, rank, explain.

Pure and deterministic; never imports cdktn, never prints. Rule ids, score formulas, defaults and
the tie-break are documented in README.md (and in ``_rules``, ``_scores``, ``_decide``).
"""

from __future__ import annotations

from ._decide import DEFAULT_ALTERNATIVES, decide
from ._decision import (
    DEFAULT_REJECTIONS,
    REJECTION_LISTINGS,
    SCORE_DIMENSIONS,
    Decision,
    EstimateSummary,
    Placement,
    Reason,
    Rejection,
    UnitCost,
)
from ._drift import (
    DEFAULT_HYSTERESIS_PERCENT,
    DEFAULT_MIN_HOLD_HOURS,
    DRIFT_STATUSES,
    Drift,
    DriftPolicy,
    DriftStatus,
    LockedPlacement,
    evaluate_drift,
    parse_utc,
    placement_of,
)
from ._pin import FEATURES, Pin
from ._rules import features_needed
from ._sizing import MAX_INSTANCES, Calibration, model_spec

__all__ = [
    "DEFAULT_ALTERNATIVES",
    "DEFAULT_HYSTERESIS_PERCENT",
    "DEFAULT_MIN_HOLD_HOURS",
    "DEFAULT_REJECTIONS",
    "DRIFT_STATUSES",
    "FEATURES",
    "MAX_INSTANCES",
    "REJECTION_LISTINGS",
    "SCORE_DIMENSIONS",
    "Calibration",
    "Decision",
    "Drift",
    "DriftPolicy",
    "DriftStatus",
    "EstimateSummary",
    "LockedPlacement",
    "Pin",
    "Placement",
    "Reason",
    "Rejection",
    "UnitCost",
    "decide",
    "evaluate_drift",
    "features_needed",
    "model_spec",
    "parse_utc",
    "placement_of",
]
