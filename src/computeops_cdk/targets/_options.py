"""Reading target options (``ComputeWorkload(options=...)``) with a clear error for a wrong value.

Options arrive as an untyped mapping from user code; a value of the wrong type must be a
TargetError naming the option and the fix, never a ValueError from deep inside a target.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import TargetError
from ._base import TargetProps

__all__ = ["chosen_by", "flag_option", "require_applicable", "whole_option"]


def whole_option(props: TargetProps, key: str, default: int, *, target: str, unit: str = "GiB") -> int:
    """``props.options[key]`` as a whole number >= 1; ``default`` when absent or None (as elsewhere)."""
    given: Any = props.options.get(key)
    if given is None:
        return default
    try:
        number = int(given)
    except (TypeError, ValueError):
        number = 0
    # int(2.5) would silently round and int(True) is 1: neither is what the user meant.
    if number < 1 or isinstance(given, bool) or (isinstance(given, float) and not given.is_integer()):
        raise TargetError(
            f"{target} option {key!r} must be a whole number of {unit} >= 1 (got {given!r}). "
            f"To fix: options={{{key!r}: {default}}} (the default)"
        )
    return number


def flag_option(props: TargetProps, key: str, default: bool, *, target: str) -> bool:
    """``props.options[key]`` as a bool; ``default`` when absent or None.

    Only a real bool is accepted: ``bool("false")`` is True, so a string from a config file would
    silently mean the opposite of what it says.
    """
    given: Any = props.options.get(key)
    if given is None:
        return default
    if not isinstance(given, bool):
        raise TargetError(
            f"{target} option {key!r} must be true or false (got {given!r}). "
            f"To fix: options={{{key!r}: {default}}} (the default)"
        )
    return given


def chosen_by(props: TargetProps) -> str:
    """Who chose this target (the construct's internal ``chosen_by`` option), for a missing-binding error."""
    return str(props.options.get("chosen_by", "the engine"))


def require_applicable(
    props: TargetProps,
    *,
    target: str,
    emitted: str,
    readers: Mapping[str, tuple[str, ...]],
) -> None:
    """Refuse options that the emitted kind of machine does not read.

    A target emits different resources (a VM, a TPU VM, a node pool) and each reads only some options;
    a given option nobody reads must fail, not vanish: a KMS key or SSH key silently not applied
    leaves the user believing it is.

    Args:
        emitted: what this placement emits (e.g. "GPU VMs", "GKE node pools").
        readers: option -> the kinds that read it, for the options not every kind reads.
    """
    stray = [k for k in readers if props.options.get(k) is not None and emitted not in readers[k]]
    if stray:
        where = "; ".join(f"{k}: {' and '.join(readers[k])} only" for k in stray)
        if props.cluster:
            # The node pool comes from `cluster=`, not from the engine's choice of machine.
            fix = "drop `cluster=` (the target then emits machines of its own), or drop the option(s)"
        else:
            fix = "drop them, or constrain the intent so the engine chooses a machine they apply to"
        raise TargetError(
            f"{target} option(s) {', '.join(stray)} do not apply to {emitted}, which this placement "
            f"emits ({where}). To fix: {fix}."
        )
