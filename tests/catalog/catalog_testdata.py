"""Paths shared by the catalog tests (a plain module: test files import it by name)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKET = ROOT / "data" / "market"
RECORDED = Path(__file__).resolve().parent / "recorded"
