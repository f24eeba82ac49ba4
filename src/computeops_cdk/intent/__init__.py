"""The workload intent: a typed, validated description of what an AI workload must do.

    >>> intent = WorkloadIntent.from_file("examples/support-chat.yaml")  # doctest: +SKIP

Hard constraints (``Constraints``) filter candidates; soft preferences (``Preferences``) only rank
them. Every invalid input is an IntentError naming the field path.
"""

from __future__ import annotations

from ._base import CONTINENTS
from ._constraints import (
    DEFAULT_PRICING,
    DEFAULT_WEIGHTS,
    AcceleratorFilter,
    Constraints,
    Preferences,
    ProviderFilter,
    Residency,
    Weights,
)
from ._intent import API_VERSION, MAX_INTENT_BYTES, WorkloadIntent
from ._workload import ModelRef, Serving, Training, Workload

__all__ = [
    "API_VERSION",
    "CONTINENTS",
    "DEFAULT_PRICING",
    "DEFAULT_WEIGHTS",
    "MAX_INTENT_BYTES",
    "AcceleratorFilter",
    "Constraints",
    "ModelRef",
    "Preferences",
    "ProviderFilter",
    "Residency",
    "Serving",
    "Training",
    "Weights",
    "Workload",
    "WorkloadIntent",
]
