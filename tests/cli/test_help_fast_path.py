"""``computeops --help`` rendered without argparse (``cli/_help``) is argparse's output byte for byte.

The fast path exists for start-up (``benchmarks/bench_startup.py``: importing argparse alone costs
about a bare interpreter start). It is proven here, not assumed: every terminal width it serves is
compared with what argparse prints for the same parser, and the renderer's word splitting is
compared with textwrap's on generated text (hypothesis).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from computeops_cdk.cli import _help
from computeops_cdk.cli._help import MAX_COLUMNS, MIN_COLUMNS, VERIFIED_PYTHON, top_help

pytestmark = pytest.mark.skipif(
    sys.version_info[:2] != VERIFIED_PYTHON, reason="the fast path serves only the Python it is verified on"
)


def _argparse_help(columns: int, monkeypatch: pytest.MonkeyPatch) -> str:
    from computeops_cdk.cli._parser import build_parser

    monkeypatch.setenv("COLUMNS", str(columns))
    return build_parser("").format_help()


def test_every_width_it_serves_is_argparses_text(monkeypatch: pytest.MonkeyPatch) -> None:
    differ = [c for c in range(MIN_COLUMNS, MAX_COLUMNS + 1) if top_help(c) != _argparse_help(c, monkeypatch)]
    assert differ == []


def test_outside_the_verified_widths_argparse_renders_it() -> None:
    assert top_help(MIN_COLUMNS - 1) is None and top_help(MAX_COLUMNS + 1) is None


def test_a_text_it_does_not_model_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_help, "EPILOG", "a -- dash")
    assert top_help(80) is None
    monkeypatch.setattr(_help, "EPILOG", "100% sure")
    assert top_help(80) is None


_WORD = st.text(alphabet="ab_-1'./", min_size=1, max_size=14).filter(lambda w: "--" not in w)


@settings(max_examples=400, deadline=None)
@given(words=st.lists(_WORD, min_size=1, max_size=12), width=st.integers(min_value=1, max_value=40))
def test_wrapping_is_textwraps(words: list[str], width: int) -> None:
    text = " ".join(words)
    assert _help._wrap(text, width) == textwrap.wrap(text, width)


def test_the_cli_prints_it_without_importing_argparse() -> None:
    code = (
        "import sys\nfrom computeops_cdk.cli import main\ncode = main(['--help'])\n"
        "heavy = sorted(m for m in ('argparse', 're', 'textwrap') if m in sys.modules)\n"
        "print(code, heavy, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"COLUMNS": "80", **_env()}
    )
    assert done.stderr.strip() == "0 []", done.stderr
    assert done.stdout == top_help(80) and done.stdout.startswith("usage: computeops [-h] [--version]")


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "COLUMNS"}
