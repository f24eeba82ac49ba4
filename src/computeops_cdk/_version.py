"""What ``computeops --version`` reports, readable without importing the engine, pydantic or the catalog.

``__version__`` is the one place the package version is written (pyproject.toml reads it from here).
``PERF_MODEL_VERSION`` is the performance model's label (``perf.MODEL_VERSION`` is this constant; a
test keeps them equal); the embedded catalog's version is read from the end of its file.
"""

from __future__ import annotations

import os
import stat  # os imports it already: no start-up cost

__version__ = "0.1.0"

PERF_MODEL_VERSION = "roofline-calibrated-v10"
"""Bumped with the performance model's constants or equations (history in ``perf/_calibration``)."""

EMBEDDED_CATALOG = os.path.join(os.path.dirname(__file__), "catalog", "data", "catalog.json")
CATALOG_ENV = "COMPUTEOPS_CATALOG"
"""Names the catalog decisions use instead of the embedded one (``catalog._load.CATALOG_ENV``; a test
keeps the two equal)."""

_TAIL_BYTES = 512


def embedded_catalog_meta(path: str = EMBEDDED_CATALOG) -> dict[str, str] | None:
    """``{"version": ..., "sha256": ...}`` of a canonical catalog file, from its last bytes only.

    The canonical JSON (sorted keys, one record per line) ends with ``"sha256"`` and ``"version"``;
    parsing the whole file (a megabyte) would cost more than the rest of ``--version``. None when the
    file is missing or its tail does not have that shape (``computeops catalog validate`` says why).
    """
    try:
        # Without blocking on a FIFO's open, and only from a regular file: $COMPUTEOPS_CATALOG naming
        # a FIFO or /dev/zero made --version wait (or read) forever.
        with open(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - _TAIL_BYTES))
            tail = handle.read(_TAIL_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    found = {key: _string_value(tail, key) for key in ("sha256", "version")}
    if any(value is None for value in found.values()):
        return None
    return {key: value for key, value in found.items() if value is not None}


def _string_value(text: str, key: str) -> str | None:
    marker = f'\n"{key}":"'
    start = text.rfind(marker)
    if start < 0:
        return None
    start += len(marker)
    end = text.find('"', start)
    return text[start:end] if end > start else None
