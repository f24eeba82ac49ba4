"""Hostile output paths for the catalog writers (red team, after issue 10 sections 2-3): a path that
names a FIFO, a device or a link to one is refused and left as it was, never replaced by the file."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from catalog_offline import no_internet  # noqa: F401  (autouse: no test leaves 127.0.0.1)
from pytest_httpserver import HTTPServer
from test_catalog_refresh import LAMBDA, _run, _serve

from computeops_cdk.catalog._build import write_catalog
from computeops_cdk.catalog._store import Store
from computeops_cdk.cli import main
from computeops_cdk.errors import CatalogError

NOT_REGULAR = "it is not a regular file (a FIFO, device or socket"


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    return ("127.0.0.1", 0)


@pytest.fixture(params=["fifo", "link-to-fifo"])
def special(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A FIFO, or a link to one (as /dev/stdout is a link to the process's pipe or terminal). Root in a
    CI container replaced /dev entries this way; a FIFO shows it without root."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    if request.param == "fifo":
        return fifo
    link = tmp_path / "stdout"
    link.symlink_to(fifo)
    return link


def _still_a_fifo(path: Path) -> bool:
    return stat.S_ISFIFO(path.stat().st_mode)


def test_write_catalog_refuses_a_fifo_and_leaves_it(special: Path) -> None:
    with pytest.raises(CatalogError, match=re.escape(NOT_REGULAR)) as info:
        write_catalog({"version": "x"}, special)
    assert "Nothing was changed. To fix:" in str(info.value)
    assert _still_a_fifo(special) and special.is_symlink() == (special.name == "stdout")
    assert sorted(p.name for p in special.parent.iterdir()) == sorted({"pipe", special.name})


def test_catalog_build_output_to_a_fifo_is_exit_2(special: Path, capsys: pytest.CaptureFixture[str]) -> None:
    market = Path(__file__).resolve().parents[2] / "data" / "market"
    assert main(["catalog", "build", "--source", str(market), "--output", str(special)]) == 2
    err = capsys.readouterr().err
    assert NOT_REGULAR in err and "Traceback" not in err
    assert _still_a_fifo(special)


def test_refresh_output_to_a_fifo_commits_nothing(httpserver: HTTPServer, tmp_path: Path) -> None:
    _serve(httpserver, "lambda", LAMBDA)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = tmp_path / "data"
    with pytest.raises(CatalogError, match=re.escape(NOT_REGULAR)):
        _run(httpserver, data, providers=["lambda"], output=fifo)
    assert _still_a_fifo(fifo) and Store(data).current() is None
