"""Where the running cdktn app lives: relative intent paths and the default lockfile are found there."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["app_directory"]


def app_directory() -> Path:
    """The cdktn app's directory: where the running ``main.py`` sits next to its ``cdktf.json``.

    ``cdktn synth`` runs the app from there, but ``python stacks/x/main.py`` or an IDE may run it
    from anywhere; a relative intent path means the same file either way. Without such a main
    script (a notebook, a test runner) it is the current directory.
    """
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    if isinstance(main, str):
        folder = Path(main).resolve().parent
        if (folder / "cdktf.json").is_file():
            return folder
    return Path.cwd()
