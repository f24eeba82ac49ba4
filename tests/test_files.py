"""``_files.path_text``: a path as ``pathlib`` reads it, without importing ``pathlib`` for a str."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from computeops_cdk._files import path_text

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the str fast path is POSIX's")

_SPELLINGS = [
    "",
    ".",
    "..",
    "/",
    "//",
    "///",
    "////x",
    "//x//y/",
    "examples/support-chat.yaml",
    "examples//support-chat.yaml",
    "./examples/./support-chat.yaml",
    "examples/support-chat.yaml/",
    "examples/../examples/support-chat.yaml",
    "a.json",
    "a.JSON",
    ".json",
    "a.",
    "a..",
    "a.b.json",
    "dir.d/",
    "dir.d/.",
    "x\x00y.yaml",
    "caf\u00e9.yml",
    "a\tb .yaml",
]


@pytest.mark.parametrize("path", _SPELLINGS)
def test_the_spellings_users_write_read_as_pathlib_reads_them(path: str) -> None:
    assert path_text(path) == (str(PurePosixPath(path)), PurePosixPath(path).suffix)
    assert path_text(path) == (str(Path(path)), Path(path).suffix)


@given(st.text(alphabet="/.a\u00e9\x00 ", max_size=16))
def test_any_str_reads_as_pathlib_reads_it(path: str) -> None:
    assert path_text(path) == (str(PurePosixPath(path)), PurePosixPath(path).suffix)


def test_anything_but_a_str_is_given_to_pathlib() -> None:
    class Named(str):
        pass

    for path in (Path("a//b.json/"), Named("a//b.json/"), PurePosixPath("x/./y.yaml")):
        assert path_text(path) == (str(Path(path)), Path(path).suffix)
    with pytest.raises(TypeError):
        path_text(b"a.yaml")  # type: ignore[arg-type]  # as Path(b"a.yaml") raises
