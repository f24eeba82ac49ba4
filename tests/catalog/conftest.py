"""Fixtures for the catalog tests: the repository's market data and the embedded catalog document."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from catalog_testdata import MARKET


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    """pytest-httpserver binds the loopback address explicitly (tests never leave the machine)."""
    return ("127.0.0.1", 0)


@pytest.fixture(scope="session")
def built_doc() -> dict[str, Any]:
    """The catalog built from data/market (built once per session: about half a second)."""
    from computeops_cdk.catalog._build import build_catalog

    return build_catalog(MARKET)


@pytest.fixture
def embedded_doc() -> dict[str, Any]:
    """A fresh, mutable copy of the embedded catalog document."""
    from computeops_cdk.catalog._load import EMBEDDED_CATALOG

    doc: dict[str, Any] = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    return doc


@pytest.fixture
def market_copy(tmp_path: Path) -> Path:
    """A writable copy of data/market (refresh tests rewrite it)."""
    target = tmp_path / "market"
    shutil.copytree(MARKET, target)
    return target
