"""The provider's source address, in a module of its own: the package and its modules read it."""

from __future__ import annotations

__all__ = ["ADDRESS", "HOST", "NAMESPACE", "TYPE"]

HOST = "terraform.local"
"""The source address host: a name no registry answers for (the mirror is the only source)."""
NAMESPACE = "computeops"
TYPE = "computeops"
ADDRESS = f"{HOST}/{NAMESPACE}/{TYPE}"
"""``required_providers { computeops = { source = ADDRESS } }``."""
