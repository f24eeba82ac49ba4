"""What ``computeops --version`` reports, readable without importing the engine, pydantic or the catalog.

``__version__`` is the one place the package version is written (pyproject.toml reads it from here).
``PERF_MODEL_VERSION`` is the performance model's label (``perf.MODEL_VERSION`` is this constant; a
test keeps them equal); the catalog's version and sha256 are read from the end of its file.
"""

from __future__ import annotations

import os
import re
import stat

__version__ = "0.1.0"

PERF_MODEL_VERSION = "roofline-calibrated-v17"
"""Bumped with the performance model's constants or equations (history in ``perf/_calibration``)."""

EMBEDDED_CATALOG = os.path.join(os.path.dirname(__file__), "catalog", "data", "catalog.json")
CATALOG_ENV = "COMPUTEOPS_CATALOG"
"""Names the catalog decisions use instead of the embedded one (``catalog._load.CATALOG_ENV``; a test
keeps the two equal)."""

_TAIL_BYTES = 512
_META_LINE = r'^"(sha256|version)":"([^"\\]+)"'  # compiled on use: `computeops --help` has none


def version_text() -> str:
    """``computeops 0.1.0 (catalog 2026.11.29, sha256 9a2f290ca523; performance model ...)``, for the
    catalog decisions use (the embedded one, or the one ``$COMPUTEOPS_CATALOG`` names)."""
    chosen = os.environ.get(CATALOG_ENV)
    meta = embedded_catalog_meta(chosen) if chosen else embedded_catalog_meta()
    where = f" from ${CATALOG_ENV}" if chosen else ""
    catalog = f"catalog {meta['version']}, sha256 {meta['sha256'][:12]}" if meta else "catalog unreadable"
    return f"computeops {__version__} ({catalog}{where}; performance model {PERF_MODEL_VERSION})"


def embedded_catalog_meta(path: str = EMBEDDED_CATALOG) -> dict[str, str] | None:
    """``{"version": ..., "sha256": ...}`` of a canonical catalog file, from its last bytes only
    (the canonical JSON ends with those lines); None when the file is missing or its tail has not
    that shape (``computeops catalog validate`` says why)."""
    try:
        # Not blocking on a FIFO's open, and only a regular file (a FIFO or /dev/zero would hang).
        with open(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - _TAIL_BYTES))
            tail = handle.read(_TAIL_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    found = dict(re.findall(_META_LINE, tail, re.MULTILINE))
    if set(found) != {"sha256", "version"}:
        return None
    return found
