"""Provider functions (Terraform >= 1.8, OpenTofu >= 1.7): cost per unit of useful work in HCL.

The formulas are the engine's (README "How a decision is made", step 4; a test checks them). A
training decision's unit cost also spreads start-up and billing increments over the steps, so it can
be slightly higher. They are written out here so that a plan process need not import the engine.
"""

from __future__ import annotations

import math
from typing import Any

from ._framework import NUMBER, FunctionError, FunctionSpec

__all__ = ["functions", "usd_per_million_tokens", "usd_per_training_step"]


def _positive(value: Any, position: int, name: str, *, zero_ok: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FunctionError(f"must be a number (got {type(value).__name__} {value!r})", argument=position)
    number = float(value)
    if not math.isfinite(number) or number < 0 or (number == 0 and not zero_ok):
        bound = ">= 0" if zero_ok else "> 0"
        raise FunctionError(
            f"must be a finite number {bound} (got {value!r}). To fix: pass {name} {bound}",
            argument=position,
        )
    return number


def usd_per_million_tokens(hourly_usd: Any, tokens_per_s: Any) -> float:
    """USD per 1M output tokens of a deployment costing ``hourly_usd`` that serves ``tokens_per_s``."""
    hourly = _positive(hourly_usd, 0, "hourly_usd", zero_ok=True)
    rate = _positive(tokens_per_s, 1, "tokens_per_s")
    return hourly / (rate * 3600) * 1e6


def usd_per_training_step(hourly_usd: Any, tokens_per_s: Any, global_batch_tokens: Any) -> float:
    """USD per optimizer step: one ``global_batch_tokens`` batch at ``tokens_per_s`` on ``hourly_usd``."""
    hourly = _positive(hourly_usd, 0, "hourly_usd", zero_ok=True)
    rate = _positive(tokens_per_s, 1, "tokens_per_s")
    batch = _positive(global_batch_tokens, 2, "global_batch_tokens")
    return batch / rate * hourly / 3600


def functions() -> list[FunctionSpec]:
    hourly = ("hourly_usd", NUMBER, "Whole deployment price, USD per hour (>= 0).")
    rate = ("tokens_per_s", NUMBER, "Sustained throughput, tokens per second (> 0).")
    return [
        FunctionSpec(
            name="usd_per_million_tokens",
            summary="USD per million output tokens",
            description="`hourly_usd / (tokens_per_s x 3600) x 1e6`: what a million tokens served "
            "at `tokens_per_s` costs on a deployment billed `hourly_usd`.",
            parameters=[hourly, rate],
            returns=NUMBER,
            call=lambda args: usd_per_million_tokens(*args),
        ),
        FunctionSpec(
            name="usd_per_training_step",
            summary="USD per training step",
            description="`global_batch_tokens / tokens_per_s x hourly_usd / 3600`: what one optimizer "
            "step of `global_batch_tokens` costs at `tokens_per_s` on a deployment billed `hourly_usd`.",
            parameters=[
                hourly,
                rate,
                ("global_batch_tokens", NUMBER, "Tokens per optimizer step (> 0)."),
            ],
            returns=NUMBER,
            call=lambda args: usd_per_training_step(*args),
        ),
    ]
