"""Argument types shared by the subcommands: numbers in a stated range, refused with the flag's name."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = ["number_in", "whole_at_least"]


def number_in(
    flag: str, low: float, high: float, *, low_open: bool = False, high_open: bool = False
) -> Callable[[str], float]:
    """An argparse ``type`` for a finite number in [low, high] (``low_open``/``high_open`` exclude an end)."""
    shown = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be a number (got {text!r})") from None
        above = value > low if low_open else value >= low
        below = value < high if high_open else value <= high
        if not math.isfinite(value) or not (above and below):
            raise argparse.ArgumentTypeError(f"{flag} must be in {shown} (got {text})")
        return value

    return parse


def whole_at_least(flag: str, minimum: int) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number >= ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be a whole number (got {text!r})") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{flag} must be >= {minimum} (got {value})")
        return value

    return parse
