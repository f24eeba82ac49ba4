"""``computeops decide`` parsed without argparse (``cli._decide.plain_args``) gives argparse's arguments.

The plain reading serves only the spellings it is proven on; anything else returns None and
argparse parses it (its errors, abbreviations, ``--help``). Each test fails if the two drift apart,
e.g. an option added to ``register`` and not to ``plain_args``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from computeops_cdk.cli._decide import plain_args
from computeops_cdk.cli._parser import build_parser

_PARSER = build_parser("decide")


def _argparse(argv: list[str]) -> dict[str, Any] | None:
    """argparse's namespace of ``argv`` as a dict, None when it refuses it (exit 2) or exits."""
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return vars(_PARSER.parse_args(argv))
        except SystemExit:
            return None


_PLAIN = [
    ["decide", "examples/support-chat.yaml"],
    ["decide", "x.yaml", "--format", "json"],
    ["decide", "x.yaml", "--format=json"],
    ["decide", "--format", "csv", "x.yaml", "--rejections", "all"],
    ["decide", "x.yaml", "--top", "3", "--format", "markdown"],
    ["decide", "x.yaml", "--top=0"],
    ["decide", "x.yaml", "--top", " 7"],
    ["decide", "x.yaml", "--top", "1_000"],
    ["decide", "x.yaml", "--provider", "aws", "--region", "us-east-1", "--cluster"],
    ["decide", "x.yaml", "--catalog", "c.json", "--accounts", "a.yaml"],
    ["decide", "x.yaml", "--catalog="],
    ["decide", "x.yaml", "--provider=-x"],
    ["decide", "x.yaml", "--plot", "out.svg"],
    ["decide", "a=b.yaml"],
    ["decide", ""],
    ["decide", "decide"],
]


@pytest.mark.parametrize("argv", _PLAIN)
def test_the_plain_spellings_read_as_argparse_reads_them(argv: list[str]) -> None:
    plain = plain_args(argv)
    assert plain is not None
    assert vars(plain) == _argparse(argv)


_OTHERS = [
    [],
    ["estimate"],
    ["--version", "decide", "x.yaml"],
    ["decide"],
    ["decide", "x.yaml", "y.yaml"],
    ["decide", "x.yaml", "--form", "json"],  # an abbreviation argparse accepts
    ["decide", "x.yaml", "--format", "yaml"],
    ["decide", "x.yaml", "--format"],
    ["decide", "x.yaml", "--format", "json", "--format", "csv"],
    ["decide", "x.yaml", "--top", "-1"],
    ["decide", "x.yaml", "--top", "x"],
    ["decide", "x.yaml", "--top=-1"],
    ["decide", "x.yaml", "--cluster", "--cluster"],
    ["decide", "x.yaml", "--cluster=yes"],
    ["decide", "x.yaml", "--provider", "-"],
    ["decide", "-", "--format", "json"],
    ["decide", "--", "x.yaml"],
    ["decide", "x.yaml", "-h"],
    ["decide", "x.yaml", "--help"],
    ["decide", "x.yaml", "--version"],
    ["decide", "-1"],
]


@pytest.mark.parametrize("argv", _OTHERS)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert plain_args(argv) is None


_WORDS = st.sampled_from(
    [
        "x.yaml",
        "examples/support-chat.yaml",
        "-",
        "--",
        "-h",
        "--help",
        "--version",
        "--format",
        "--format=json",
        "--format=",
        "--form",
        "json",
        "csv",
        "table",
        "markdown",
        "yaml",
        "--rejections",
        "--rejections=all",
        "all",
        "summary",
        "--top",
        "--top=3",
        "--top=-1",
        "3",
        "-1",
        "0",
        " 7",
        "x",
        "--cluster",
        "--cluster=1",
        "--plot",
        "f.svg",
        "--catalog",
        "--catalog=c.json",
        "--accounts",
        "--provider",
        "--provider=aws",
        "aws",
        "--region",
        "us-east-1",
        "a=b",
        "",
        "-x y",
        "decide",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_WORDS, max_size=7))
def test_whatever_the_plain_reading_accepts_argparse_reads_the_same(words: list[str]) -> None:
    argv = ["decide", *words]
    plain = plain_args(argv)
    if plain is not None:
        assert vars(plain) == _argparse(argv)


def test_every_option_of_the_decide_parser_is_read() -> None:
    # Drift guard: every option string register() declares is one plain_args knows.
    sub = next(a for a in _PARSER._actions if isinstance(a, argparse._SubParsersAction))
    decide = sub.choices["decide"]
    flags = {s for a in decide._actions for s in a.option_strings} - {"-h", "--help"}
    for flag in flags:
        value = [] if flag == "--cluster" else ["0"]
        if flag == "--format":
            value = ["json"]
        elif flag == "--rejections":
            value = ["all"]
        argv = ["decide", "x.yaml", flag, *value]
        plain = plain_args(argv)
        assert plain is not None, flag
        assert vars(plain) == _argparse(argv)
