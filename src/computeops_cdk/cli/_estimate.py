"""PLACEHOLDER subcommand module: replaced by its owner."""

from __future__ import annotations

import argparse
from typing import Any


def register(commands: Any) -> None:
    pass
