"""The decision engine: filter by hard constraints, size, estimate, cost, score, rank, explain.

Pure and deterministic; never imports cdktn, never prints. Rule ids, score formulas, defaults and
the tie-break are documented in docs/decisions.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
from ._pin import FEATURES, Pin
from ._rules import features_needed
from ._sizing import MAX_INSTANCES, Calibration, model_spec

if TYPE_CHECKING:
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

_DRIFT_NAMES = frozenset(
    {
        "DEFAULT_HYSTERESIS_PERCENT",
        "DEFAULT_MIN_HOLD_HOURS",
        "DRIFT_STATUSES",
        "Drift",
        "DriftPolicy",
        "DriftStatus",
        "LockedPlacement",
        "evaluate_drift",
        "parse_utc",
        "placement_of",
    }
)
"""Names of ``_drift`` (locks, re-evaluation), imported on first use (a decision needs none)."""


def __getattr__(name: str) -> object:
    if name in _DRIFT_NAMES:
        from . import _drift

        value = getattr(_drift, name)
        globals()[name] = value  # later reads are plain module attributes
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_DRIFT_NAMES})


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
