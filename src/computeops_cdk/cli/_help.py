"""``computeops --help`` without importing argparse: the same bytes, a third of the start-up.

Importing argparse (with ``re``, ``enum``, ``gettext`` and ``locale``) costs about as much as the whole
bare interpreter start, so the top-level help alone could not be within 2x of ``python -c pass``
(``benchmarks/bench_startup.py``). The top-level help has one fixed layout: the usage line, the
description, the subcommand list, two options and the epilog. ``top_help`` lays it out with
argparse's own rules (``HelpFormatter``: usage wrapping, help position, ``textwrap`` filling with
its hyphen breaks) from the same texts the parser is built from, and answers ``None`` wherever it
is not proven identical, so that argparse renders it instead: another Python minor version (its
argparse may lay out differently), a terminal narrower or wider than the widths
``tests/cli/test_help_fast_path.py`` compares one by one against argparse, or a text with what this
renderer does not model (``%`` formatting, ``--`` dashes, non-ASCII).

Nothing here imports beyond ``os`` and ``sys``.
"""

from __future__ import annotations

import os
import sys

__all__ = [
    "COMMANDS",
    "DESCRIPTION",
    "EPILOG",
    "MAX_COLUMNS",
    "MIN_COLUMNS",
    "VERIFIED_PYTHON",
    "VERSION_HELP",
    "terminal_columns",
    "top_help",
]

COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("decide", "_decide", "decide where a workload intent runs (provider, instance, region, price model)"),
    (
        "estimate",
        "_estimate",
        "estimate throughput, latency, memory and MFU for one model on one accelerator type",
    ),
    ("catalog", "_catalog", "inspect, validate, build or refresh the market catalog"),
    (
        "reevaluate",
        "_reevaluate",
        "re-decide locked workloads against today's catalog: ok, cheaper, price_changed, infeasible",
    ),
    ("lock", "_lock", "list, relock or remove the entries of computeops.lock.json"),
    (
        "observe",
        "_observe",
        "measure a running vLLM deployment (/metrics) and record it against its locked estimate",
    ),
    (
        "provider",
        "_provider",
        "install the Terraform/OpenTofu provider 'computeops' as a local filesystem mirror",
    ),
    ("completion", "_completion", "print a shell completion script (bash or zsh)"),
)
"""(subcommand, module in this package, the help its ``register`` gives): the table ``--help``
reads without importing the modules (a test keeps the help texts equal)."""

DESCRIPTION = (
    "Decide where an AI workload runs (provider, accelerator, region, price model) from a "
    "workload intent and an embedded market catalog, deterministically and with reasons."
)
EPILOG = "Start with: computeops decide examples/support-chat.yaml"
VERSION_HELP = "show the package, catalog and performance-model versions and exit"
_HELP_HELP = "show this help message and exit"  # argparse's own -h help
_PROG = "computeops"
_METAVAR = "COMMAND"

VERIFIED_PYTHON = (3, 11)
"""The Python minor version whose argparse the renderer is compared with (the project's CI Python)."""
MIN_COLUMNS = 24
MAX_COLUMNS = 500
"""Terminal widths the test compares one by one; outside them argparse renders the help."""


def terminal_columns() -> int:
    """What ``shutil.get_terminal_size().columns`` returns: COLUMNS, else the terminal, else 80
    (without importing shutil and with it zlib, bz2 and lzma)."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
        if columns > 0:
            return columns
    except ValueError:
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def top_help(columns: int) -> str | None:
    """The text argparse prints for ``computeops --help`` on a terminal ``columns`` wide, or None
    where that is not proven (argparse then renders it)."""
    if not _proven(columns):
        return None
    width = columns - 2  # argparse leaves two columns
    entries = [(name, help_text) for name, _, help_text in COMMANDS]
    longest = max(len(_METAVAR), len("-h, --help"), len("--version"), *(len(n) for n, _ in entries))
    position = min(longest + 2 + 2, min(24, max(width - 20, 4)))  # section indent 2, gap 2
    parts = [
        _usage(width),
        _fill(DESCRIPTION, max(width, 11)),
        "\n\npositional arguments:\n",
        f"  {_METAVAR}\n",
        *(_action(name, help_text, 4, position, width) for name, help_text in entries),
        "\noptions:\n",
        _action("-h, --help", _HELP_HELP, 2, position, width),
        _action("--version", VERSION_HELP, 2, position, width),
        "\n",
        _fill(EPILOG, max(width, 11)),
    ]
    return "".join(parts).strip("\n") + "\n"


def _proven(columns: int) -> bool:
    """The Python, the width and every text are ones the test compares with argparse."""
    if sys.version_info[:2] != VERIFIED_PYTHON or not MIN_COLUMNS <= columns <= MAX_COLUMNS:
        return False
    texts = [DESCRIPTION, EPILOG, VERSION_HELP, *(help_text for _, _, help_text in COMMANDS)]
    return all(_modelled(text) for text in texts)


def _modelled(text: str) -> bool:
    """Single-spaced ASCII without ``%`` (argparse formats it) or ``--`` (textwrap splits it apart)."""
    return text.isascii() and "%" not in text and "--" not in text and text == " ".join(text.split())


_USAGE_PREFIX = "usage: "
_OPTIONS = ["[-h]", "[--version]"]
_POSITIONALS = [_METAVAR, "..."]


def _usage(width: int) -> str:
    """argparse's usage line for ``computeops [-h] [--version] COMMAND ...``, wrapped as it wraps."""
    usage = " ".join([_PROG, *_OPTIONS, *_POSITIONALS])
    if len(_USAGE_PREFIX) + len(usage) <= width:
        return f"{_USAGE_PREFIX}{usage}\n\n"
    return _USAGE_PREFIX + "\n".join(_long_usage(width)) + "\n\n"


def _long_usage(width: int) -> list[str]:
    """The usage lines after ``usage: `` when it does not fit one line: the options and positionals
    indented under the program's first argument when the program name leaves room (3/4 of the
    width), else each group on lines of their own below the program name (``HelpFormatter._format_usage``)."""
    if len(_USAGE_PREFIX) + len(_PROG) <= 0.75 * width:
        indent = " " * (len(_USAGE_PREFIX) + len(_PROG) + 1)
        first = _usage_lines([_PROG, *_OPTIONS], indent, width, start=len(_USAGE_PREFIX))
        return [first[0][len(indent) :], *first[1:], *_usage_lines(_POSITIONALS, indent, width)]
    indent = " " * len(_USAGE_PREFIX)
    lines = _usage_lines(_OPTIONS + _POSITIONALS, indent, width)
    if len(lines) > 1:
        lines = [*_usage_lines(_OPTIONS, indent, width), *_usage_lines(_POSITIONALS, indent, width)]
    return [_PROG, *lines]


def _usage_lines(parts: list[str], indent: str, width: int, start: int | None = None) -> list[str]:
    """``parts`` joined by spaces into lines of at most ``width``, each after ``indent``; the first
    line's length counted from ``start`` columns (default: the indent), as argparse's ``get_lines``."""
    lines: list[str] = []
    line: list[str] = []
    length = (len(indent) if start is None else start) - 1
    for part in parts:
        if line and length + 1 + len(part) > width:
            lines.append(indent + " ".join(line))
            line, length = [], len(indent) - 1
        line.append(part)
        length += len(part) + 1
    if line:
        lines.append(indent + " ".join(line))
    return lines


def _action(header: str, help_text: str, indent: int, position: int, width: int) -> str:
    """One entry of a section, as ``HelpFormatter._format_action`` lays it out."""
    lines = _wrap(help_text, max(width - position, 11))
    room = position - indent - 2
    if len(header) <= room:
        first = " " * indent + header.ljust(room) + "  " + lines[0] + "\n"
    else:
        first = " " * indent + header + "\n" + " " * position + lines[0] + "\n"
    return first + "".join(" " * position + line + "\n" for line in lines[1:])


def _fill(text: str, width: int) -> str:
    return "\n".join(_wrap(text, width))


def _is_letter(c: str) -> bool:
    """One character (not "": past the end of the word) that textwrap's "[^\\d\\W]" matches, on ASCII."""
    return len(c) == 1 and (c.isalpha() or c == "_")


def _chunks(text: str) -> list[str]:
    """``textwrap.TextWrapper._split_chunks`` on single-spaced ASCII text without ``--``: the words
    and the spaces between them, each word also cut after a hyphen between letters
    (``performance-`` ``model``), as textwrap's ``wordsep_re`` cuts it."""
    chunks: list[str] = []
    for n, word in enumerate(text.split(" ")):
        if n:
            chunks.append(" ")
        chunks += _hyphen_pieces(word)
    return [c for c in chunks if c]


def _hyphen_pieces(word: str) -> list[str]:
    """``word`` cut after each hyphen textwrap breaks at (a hyphen that starts a piece never is)."""
    pieces: list[str] = []
    start = 0
    for i, c in enumerate(word):
        if c == "-" and i != start and _breaks_after(word, i):
            pieces.append(word[start : i + 1])
            start = i + 1
    pieces.append(word[start:])
    return pieces


def _breaks_after(word: str, i: int) -> bool:
    """textwrap breaks after the hyphen ``word[i]``: two letters (or letter, hyphen, letter) before
    it, a letter after it, and after that a letter or a hyphen and a letter."""
    before = (i >= 2 and _is_letter(word[i - 2]) and _is_letter(word[i - 1])) or (
        i >= 3 and _is_letter(word[i - 3]) and word[i - 2] == "-" and _is_letter(word[i - 1])
    )
    ahead = word[i + 2 : i + 4]
    letters_ahead = _is_letter(ahead[:1]) or (ahead[:1] == "-" and _is_letter(ahead[1:2]))
    return before and _is_letter(word[i + 1 : i + 2]) and letters_ahead


def _wrap(text: str, width: int) -> list[str]:
    """``textwrap.wrap(text, width)`` (greedy, long words broken, at a hyphen when one fits)."""
    chunks = _chunks(text)
    chunks.reverse()  # taken from the end, as textwrap does
    lines: list[str] = []
    while chunks:
        line = _take_line(chunks, width, first=not lines)
        if line:
            lines.append(line)
    return lines


def _take_line(chunks: list[str], width: int, *, first: bool) -> str:
    """The next line off ``chunks`` (reversed): a space starting a later line is dropped, as is a
    space ending it; a chunk longer than the whole width is broken to fill the line."""
    if not first and not chunks[-1].strip():
        del chunks[-1]
    line: list[str] = []
    length = 0
    while chunks and length + len(chunks[-1]) <= width:
        length += len(chunks[-1])
        line.append(chunks.pop())
    if chunks and len(chunks[-1]) > width:
        _break_long_word(chunks, line, length, width)
    if line and not line[-1].strip():
        del line[-1]
    return "".join(line)


def _break_long_word(chunks: list[str], line: list[str], length: int, width: int) -> None:
    space = 1 if width < 1 else width - length
    chunk = chunks[-1]
    end = space
    if len(chunk) > space:
        hyphen = chunk.rfind("-", 0, space)
        if hyphen > 0 and any(c != "-" for c in chunk[:hyphen]):
            end = hyphen + 1
    line.append(chunk[:end])
    chunks[-1] = chunk[end:]
