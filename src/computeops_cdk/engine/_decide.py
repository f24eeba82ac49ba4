"""PLACEHOLDER: replaced by the engine implementation."""

from __future__ import annotations

from typing import Any


def decide(intent: Any, *, catalog: Any = None, pin: Any = None) -> Any:
    raise NotImplementedError("engine not implemented yet")
