"""The user data directory where refreshed catalogs live: generations, one pointer, a lock.

Layout (``data_dir()``: ``$COMPUTEOPS_DATA_DIR``, else ``$XDG_DATA_HOME/computeops``, else
``~/.local/share/computeops``)::

    current -> generations/<id>      the one pointer; switched by renaming a new symlink over it
    generations/<id>/catalog.json    a complete refreshed catalog (what --catalog points at)
    generations/<id>/state.json      per provider: source, last refresh, rows, refusals
    generations/<id>/market/         the market-data folder it was built from (last good raw files)
    staging/                         work in progress; anything here at start is a killed run's
    refresh.lock                     flock()ed by the running refresh; the kernel drops it on a kill
    catalog.json                     where `computeops catalog build` writes by default

A refresh builds a whole generation in ``staging/``, renames it into ``generations/`` and only then
switches ``current``: a reader of ``current/catalog.json`` sees the old set or the new set, never a
mix, and a kill at any point leaves the previous generation intact byte for byte.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import CatalogRefreshError

__all__ = ["KEEP_GENERATIONS", "Store", "data_dir", "os_error_text"]

KEEP_GENERATIONS = 3
"""Generations kept: the current one and the two before it (the previous one is always kept)."""


def data_dir() -> Path:
    """The user data directory (see the module docstring for the order)."""
    explicit = os.environ.get("COMPUTEOPS_DATA_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "computeops"


def os_error_text(err: OSError) -> str:
    """A short reason for an OSError, with a hint for a full disk."""
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return "no space left on the device. To fix: free some disk space and run it again"
    reason = err.strerror or str(err)
    where = f" ({err.filename})" if err.filename else ""
    return f"{reason}{where}. To fix: make the data directory writable or set COMPUTEOPS_DATA_DIR"


class Store:
    """One user data directory."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else data_dir()

    @property
    def current_link(self) -> Path:
        return self.root / "current"

    @property
    def catalog_path(self) -> Path:
        """What users point ``--catalog`` / ``COMPUTEOPS_CATALOG`` at."""
        return self.current_link / "catalog.json"

    def current(self) -> Path | None:
        """The current generation's folder, or None before the first refresh."""
        link = self.current_link
        if not link.is_symlink() and not link.is_dir():
            return None
        target = link.resolve()
        return target if (target / "catalog.json").is_file() else None

    def state(self) -> dict[str, Any]:
        """The current generation's state.json (empty before the first refresh)."""
        current = self.current()
        if current is None:
            return {}
        try:
            loaded = json.loads((current / "state.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return loaded if isinstance(loaded, dict) else {}

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the refresh lock; a second refresh fails at once with a clear error."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            handle = (self.root / "refresh.lock").open("a+", encoding="utf-8")
        except OSError as err:
            raise CatalogRefreshError(
                f"cannot use the data directory {self.root}: {os_error_text(err)}."
            ) from err
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.seek(0)
                holder = handle.read().strip() or "unknown"
                raise CatalogRefreshError(
                    f"another catalog refresh is running on {self.root} (pid {holder}). Nothing was "
                    "changed. To fix: wait for it to finish, then run this one again."
                ) from None
            handle.seek(0)
            handle.truncate()
            handle.write(str(os.getpid()))
            handle.flush()
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def clean_staging(self) -> list[str]:
        """Remove what killed runs left in staging/ (only call with the lock held); returns names."""
        staging = self.root / "staging"
        if not staging.is_dir():
            return []
        names = sorted(p.name for p in staging.iterdir())
        shutil.rmtree(staging, ignore_errors=True)
        return names

    def new_staging(self, name: str) -> Path:
        folder = self.root / "staging" / name
        folder.mkdir(parents=True)
        return folder

    def commit(self, staged: Path, name: str) -> Path:
        """Move a complete staged generation into place and point ``current`` at it (atomic)."""
        generations = self.root / "generations"
        generations.mkdir(parents=True, exist_ok=True)
        final = generations / name
        _sync_tree(staged)
        os.rename(staged, final)
        link_tmp = self.root / f".current.{os.getpid()}"
        link_tmp.unlink(missing_ok=True)
        os.symlink(Path("generations") / name, link_tmp)
        os.replace(link_tmp, self.current_link)  # rename(2) over the old link: the one switch
        self._prune(keep=name)
        return final

    def _prune(self, *, keep: str) -> None:
        generations = self.root / "generations"
        names = sorted((p.name for p in generations.iterdir() if p.is_dir()), reverse=True)
        old = [n for n in names if n != keep][KEEP_GENERATIONS - 1 :]
        for name in old:
            shutil.rmtree(generations / name, ignore_errors=True)


def _sync_tree(folder: Path) -> None:
    """fsync every file of a staged generation, so the switch never points at unwritten data."""
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
