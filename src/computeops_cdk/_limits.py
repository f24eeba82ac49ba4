"""Physical ranges shared by the layers that accept the same quantity (one number each).

The intent models (``intent._workload``), ``computeops estimate``'s flags and the engine's sizing
read these, so a value one of them accepts is one the others accept. Imports nothing: the CLI
checks its flags without loading the intent models.
"""

from __future__ import annotations

__all__ = [
    "MAX_ACCELERATORS",
    "MAX_ACCELERATORS_PER_INSTANCE",
    "MAX_CONCURRENCY",
    "MAX_GLOBAL_BATCH_TOKENS",
    "MAX_INSTANCES",
    "MAX_PARAMS_B",
    "MAX_TOKENS",
]

MAX_PARAMS_B = 100_000
"""Model parameters, in billions (total or active per token)."""

MAX_TOKENS = 10_000_000
"""Tokens of one request (prompt or completion) or one training sequence."""

MAX_GLOBAL_BATCH_TOKENS = 10**13
"""Tokens per optimizer step."""

MAX_ACCELERATORS_PER_INSTANCE = 16384
"""Accelerators of one instance (TPU slices: chips): catalog.schema.json's accelerator_count maximum."""

MAX_INSTANCES = 256
"""Largest deployment (instances of one offer) the engine considers."""

MAX_ACCELERATORS = MAX_ACCELERATORS_PER_INSTANCE * MAX_INSTANCES
"""Largest number of accelerators one deployment can have: the largest instance, MAX_INSTANCES times."""

MAX_BATCH_PER_REPLICA = 1024
"""Requests one serving replica schedules at most: the performance model's ``MAX_BATCH``
(perf/_calibration.py, TensorRT-LLM's default order of magnitude; a test keeps the two equal)."""

MAX_CONCURRENCY = MAX_ACCELERATORS * MAX_BATCH_PER_REPLICA
"""Requests in flight an inference estimate accepts: what the largest deployment can ever hold, one
replica per accelerator each at its largest batch."""
