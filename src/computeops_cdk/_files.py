"""Reading a user's input file in bounded time and memory (intents, catalogs).

A FIFO (``open`` blocks), a device (``/dev/zero`` never ends) or a huge file is refused before
anything is read, and no more than the cap is ever read, even from a file that grows meanwhile.
"""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["MIB", "UnreadableFile", "read_regular_file", "shown_path"]

MIB = 1024 * 1024


class UnreadableFile(Exception):
    """The path names something that is not an input file we read; ``reason`` says why, for a message."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def read_regular_file(path: str | os.PathLike[str], *, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises:
        UnreadableFile: the name holds a NUL byte, the path is not a regular file, or the file is
            larger than ``limit``.
        OSError: as ``open`` raises it (FileNotFoundError, IsADirectoryError, PermissionError, ...).
    """
    name = os.fspath(path)
    if "\x00" in name:
        raise UnreadableFile("its name contains a NUL byte")
    info = os.stat(name)
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    if not stat.S_ISREG(info.st_mode):
        raise UnreadableFile("it is not a regular file (a FIFO, device or socket)")
    if info.st_size > limit:
        raise UnreadableFile(f"it is {_size(info.st_size)}, over the {_size(limit)} limit")
    with open(name, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise UnreadableFile(f"it is over the {_size(limit)} limit")
    return data


def _size(count: int) -> str:
    return f"{count / MIB:,.1f} MiB" if count % MIB else f"{count // MIB:,} MiB"


def shown_path(path: str | os.PathLike[str], *, limit: int = 120) -> str:
    """``repr`` of a path for a message (a NUL byte shows as ``\\x00``), cut at ``limit`` characters."""
    text = repr(os.fspath(path))
    return text if len(text) <= limit else text[: limit - 4] + "...'"
