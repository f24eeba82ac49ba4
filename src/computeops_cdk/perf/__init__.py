"""PLACEHOLDER: the performance model package (see _types.py for the contract)."""

from ._types import InferenceEstimate, ModelSpec, TrainingEstimate

__all__ = ["InferenceEstimate", "ModelSpec", "TrainingEstimate"]
