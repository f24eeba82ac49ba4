"""How much intent text is read: the bounds both readers (YAML and JSON) enforce.

A valid intent is about 1 KB, 5 levels deep and 50 values; the bounds are far above that and far
below what would cost noticeable time or memory.
"""

from __future__ import annotations

__all__ = ["MAX_DEPTH", "MAX_DIGITS", "MAX_INTENT_BYTES", "MAX_NODES"]

MAX_INTENT_BYTES = 1024 * 1024
"""The largest intent read (1 MiB; an intent is about 1 KB): a bigger file or text is refused unread."""

MAX_DEPTH = 32
"""The deepest nesting an intent may have (a valid one is 5 levels deep)."""

MAX_DIGITS = 20
"""The longest integer read: every intent number is below 10**17, and int() of 5,000 digits raises."""

MAX_NODES = 10_000
"""The most values an intent may expand to once YAML aliases are followed (a valid one has ~50):
an alias bomb (9 anchors of 9 aliases each = 387 million values, in 592 bytes) is refused unexpanded."""
