"""Every example stack in one app (the root ``cdktf.json``): one process, each binding loaded once.

cdktn synth        # from the repository root; writes cdktf.out/stacks/<example>/
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from cdktn import App

HERE = Path(__file__).resolve().parent


def build(app: App) -> None:
    """Add each ``stacks/<name>/main.py`` example's stack to ``app``."""
    for main in sorted(HERE.glob("*/main.py")):
        spec = importlib.util.spec_from_file_location(f"example_{main.parent.name.replace('-', '_')}", main)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {main}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.build(app)


if __name__ == "__main__":
    app = App()
    build(app)
    app.synth()
