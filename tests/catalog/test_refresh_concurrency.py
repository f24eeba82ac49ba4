"""A killed refresh and two refreshes at once, with a real process and a real server on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from catalog_offline import no_internet  # noqa: F401  (autouse: no test leaves 127.0.0.1)
from catalog_testdata import MARKET, RECORDED
from pytest_httpserver import HTTPServer
from werkzeug import Request as WRequest
from werkzeug import Response

from computeops_cdk.catalog._refresh import refresh_catalog
from computeops_cdk.catalog._store import Store
from computeops_cdk.errors import CatalogRefreshError

LAMBDA = (RECORDED / "lambda-vms.csv").read_bytes()
NEBIUS = (RECORDED / "nebius-vms.csv").read_bytes()

_ONLY: dict[str, Any] = {"providers": ["lambda", "nebius"], "env": {}}
_CHILD = """
import sys
from computeops_cdk.catalog._refresh import refresh_catalog
refresh_catalog(
    sys.argv[1], data_dir=sys.argv[2], base_url=sys.argv[3], providers=["lambda", "nebius"], env={}
)
"""


class _Gate:
    """A feed handler that blocks until released, and says when a request reached it."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.release = threading.Event()

    def __call__(self, _request: WRequest) -> Response:
        self.reached.set()
        self.release.wait(30)
        return Response(NEBIUS, mimetype="text/csv")


@pytest.fixture
def blocking_server() -> Iterator[tuple[HTTPServer, _Gate]]:
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    gate = _Gate()
    server.expect_request("/sky/catalogs/v8/lambda/vms.csv").respond_with_data(
        LAMBDA, content_type="text/csv"
    )
    server.expect_request("/sky/catalogs/v8/nebius/vms.csv").respond_with_handler(gate)
    try:
        yield server, gate
    finally:
        gate.release.set()
        server.clear()
        server.stop()


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _first_generation(server: HTTPServer, gate: _Gate, data: Path) -> Path:
    gate.release.set()
    result = refresh_catalog(MARKET, data_dir=data, base_url=server.url_for("/sky"), **_ONLY,
                             now=datetime(2026, 11, 30, tzinfo=UTC))  # fmt: skip
    gate.release.clear()
    gate.reached.clear()
    return result.generation


def _start_child(server: HTTPServer, data: Path) -> subprocess.Popen[bytes]:
    with (data.parent / "child.log").open("wb") as log:
        return subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(MARKET), str(data), server.url_for("/sky")],
            env=os.environ.copy(),
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def test_a_killed_refresh_leaves_the_previous_catalog_intact_and_is_cleaned_up(
    blocking_server: tuple[HTTPServer, _Gate], tmp_path: Path
) -> None:
    server, gate = blocking_server
    data = tmp_path / "data"
    first = _first_generation(server, gate, data)
    before = _snapshot(data / "generations")
    child = _start_child(server, data)
    try:
        assert gate.reached.wait(60), "the child refresh never reached the second feed"
        assert any((data / "staging").iterdir())  # it was mid-way: staging has its work
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    assert child.returncode == -signal.SIGKILL
    assert _snapshot(data / "generations") == before  # byte for byte
    assert Store(data).current() == first
    gate.release.set()
    again = refresh_catalog(MARKET, data_dir=data, base_url=server.url_for("/sky"), **_ONLY)
    assert len(again.cleaned) == 1  # the killed run's staging folder
    assert list((data / "staging").iterdir()) == []


def test_two_refreshes_at_once_the_second_is_refused(
    blocking_server: tuple[HTTPServer, _Gate], tmp_path: Path
) -> None:
    server, gate = blocking_server
    data = tmp_path / "data"
    first = _first_generation(server, gate, data)
    child = _start_child(server, data)
    try:
        assert gate.reached.wait(60)
        with pytest.raises(CatalogRefreshError) as info:
            refresh_catalog(MARKET, data_dir=data, base_url=server.url_for("/sky"), **_ONLY)
        assert str(info.value) == (
            f"another catalog refresh is running on {data} (pid {child.pid}). Nothing was changed. "
            "To fix: wait for it to finish, then run this one again."
        )
        assert Store(data).current() == first
        gate.release.set()
        assert child.wait(60) == 0, (tmp_path / "child.log").read_text(encoding="utf-8")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(30)
    assert Store(data).current() != first  # the first one to hold the lock committed
