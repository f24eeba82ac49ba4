"""Hostile output paths for the catalog writers (red team, after issue 10 sections 2-3): a path that
names a FIFO, a device or a link to one is refused and left as it was, never replaced by the file."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from catalog_offline import no_internet  # noqa: F401  (autouse: no test leaves 127.0.0.1)
from pytest_httpserver import HTTPServer
from test_catalog_refresh import LAMBDA, _run, _serve

from computeops_cdk.catalog._build import system_entry_on_the_way, write_catalog
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


# -- links into /proc (today's review: the link was replaced by the catalog) ------------------------

SYSTEM_ENTRY = "a process or device entry"


@pytest.fixture
def fd_link(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(a link to /proc/self/fd/N, the regular file N has open): ``--output /dev/stdout`` with stdout
    redirected to a file. ``exists() and not is_file()`` followed the link to that file and let the
    rename replace the link (as root, /dev/stdout became a regular file)."""
    redirected = tmp_path / "out.json"
    redirected.write_text("redirected", encoding="utf-8")
    with redirected.open("a", encoding="utf-8") as handle:
        link = tmp_path / "stdout"
        link.symlink_to(f"/proc/self/fd/{handle.fileno()}")
        assert link.is_file()  # what the old check saw
        yield link, redirected


def _untouched(link: Path, redirected: Path) -> bool:
    return (
        link.is_symlink()
        and redirected.read_text(encoding="utf-8") == "redirected"
        and sorted(p.name for p in link.parent.iterdir()) == ["out.json", "stdout"]
    )


def test_write_catalog_refuses_a_link_to_an_open_descriptor(fd_link: tuple[Path, Path]) -> None:
    link, redirected = fd_link
    with pytest.raises(CatalogError, match=SYSTEM_ENTRY) as info:
        write_catalog({"version": "x"}, link)
    assert str(info.value).startswith(f"cannot write {str(link)!r}: it is or links to '/proc/self")
    assert "Nothing was changed. To fix:" in str(info.value)
    assert _untouched(link, redirected)


def test_catalog_build_output_to_a_descriptor_link_is_exit_2(
    fd_link: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    link, redirected = fd_link
    market = Path(__file__).resolve().parents[2] / "data" / "market"
    assert main(["catalog", "build", "--source", str(market), "--output", str(link)]) == 2
    err = capsys.readouterr().err
    assert SYSTEM_ENTRY in err and "Traceback" not in err
    assert _untouched(link, redirected)


def test_refresh_output_to_a_descriptor_link_commits_nothing(
    httpserver: HTTPServer, tmp_path: Path, fd_link: tuple[Path, Path]
) -> None:
    link, redirected = fd_link
    _serve(httpserver, "lambda", LAMBDA)
    data = tmp_path / "data"
    with pytest.raises(CatalogError, match=SYSTEM_ENTRY):
        _run(httpserver, data, providers=["lambda"], output=link)
    assert Store(data).current() is None and link.is_symlink()
    assert redirected.read_text(encoding="utf-8") == "redirected"


@pytest.mark.parametrize("how", ["absolute", "relative", "through-a-folder-link"])
def test_a_link_to_a_regular_file_writes_that_file_and_keeps_the_link(tmp_path: Path, how: str) -> None:
    tracked = tmp_path / "repo" / "catalog.json"
    tracked.parent.mkdir()
    tracked.write_text("old", encoding="utf-8")
    link = tmp_path / "out.json"
    if how == "through-a-folder-link":
        (tmp_path / "repo-link").symlink_to(tracked.parent)
        link.symlink_to(tmp_path / "repo-link" / "catalog.json")
    else:
        link.symlink_to(tracked if how == "absolute" else Path("repo") / "catalog.json")
    write_catalog({"version": "x"}, link)
    assert link.is_symlink() and tracked.read_text(encoding="utf-8").startswith('{\n"version":"x"')
    assert sorted(p.name for p in tracked.parent.iterdir()) == ["catalog.json"]


@pytest.mark.parametrize(
    ("path", "entry"),
    [
        ("/dev/stdout", "/dev/stdout"),
        ("/proc/self/fd/1", "/proc/self/fd/1"),
        ("/tmp/../proc/x", "/proc/x"),
        ("/dev/shm/catalog.json", None),
        ("relative/catalog.json", None),
    ],
)
def test_system_entries_are_found_on_the_way(path: str, entry: str | None) -> None:
    found = system_entry_on_the_way(Path(path))
    assert (found if found is None else str(found)) == entry
