"""PLACEHOLDER: replaced by the intent implementation."""

from __future__ import annotations


class WorkloadIntent:  # PLACEHOLDER
    pass


__all__ = ["WorkloadIntent"]
