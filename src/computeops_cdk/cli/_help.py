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
    texts = [DESCRIPTION, EPILOG, VERSION_HELP, *(help_text for _, _, help_text in COMMANDS)]
    if sys.version_info[:2] != VERIFIED_PYTHON or not MIN_COLUMNS <= columns <= MAX_COLUMNS:
        return None
    if any(not t.isascii() or "%" in t or "--" in t or t != " ".join(t.split()) for t in texts):
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


def _usage(width: int) -> str:
    """argparse's usage line for ``computeops [-h] [--version] COMMAND ...``, wrapped as it wraps."""
    prefix, options, positionals = "usage: ", ["[-h]", "[--version]"], [_METAVAR, "..."]
    usage = " ".join([_PROG, *options, *positionals])
    if len(prefix) + len(usage) <= width:
        return f"{prefix}{usage}\n\n"

    def lines_of(parts: list[str], indent: str, first: str | None = None) -> list[str]:
        lines: list[str] = []
        line: list[str] = []
        length = len(first if first is not None else indent) - 1
        for part in parts:
            if length + 1 + len(part) > width and line:
                lines.append(indent + " ".join(line))
                line, length = [], len(indent) - 1
            line.append(part)
            length += len(part) + 1
        if line:
            lines.append(indent + " ".join(line))
        if first is not None:
            lines[0] = lines[0][len(indent) :]
        return lines

    if len(prefix) + len(_PROG) <= 0.75 * width:
        indent = " " * (len(prefix) + len(_PROG) + 1)
        lines = [*lines_of([_PROG, *options], indent, prefix), *lines_of(positionals, indent)]
    else:
        indent = " " * len(prefix)
        lines = lines_of(options + positionals, indent)
        if len(lines) > 1:
            lines = [*lines_of(options, indent), *lines_of(positionals, indent)]
        lines = [_PROG, *lines]
    return prefix + "\n".join(lines) + "\n\n"


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
        start = 0
        for i, c in enumerate(word):
            if c != "-" or i == start:
                continue
            before = (i >= 2 and _is_letter(word[i - 2]) and _is_letter(word[i - 1])) or (
                i >= 3 and _is_letter(word[i - 3]) and word[i - 2] == "-" and _is_letter(word[i - 1])
            )
            after = word[i + 1 : i + 2]
            ahead = word[i + 2 : i + 4]
            letters_ahead = _is_letter(ahead[:1]) or (ahead[:1] == "-" and _is_letter(ahead[1:2]))
            if before and _is_letter(after) and letters_ahead:
                chunks.append(word[start : i + 1])
                start = i + 1
        chunks.append(word[start:])
    return [c for c in chunks if c]


def _wrap(text: str, width: int) -> list[str]:
    """``textwrap.wrap(text, width)`` (greedy, long words broken, at a hyphen when one fits)."""
    chunks = _chunks(text)
    chunks.reverse()
    lines: list[str] = []
    while chunks:
        line: list[str] = []
        length = 0
        if lines and not chunks[-1].strip():
            del chunks[-1]
        while chunks and length + len(chunks[-1]) <= width:
            length += len(chunks[-1])
            line.append(chunks.pop())
        if chunks and len(chunks[-1]) > width:
            _break_long_word(chunks, line, length, width)
        if line and not line[-1].strip():
            del line[-1]
        if line:
            lines.append("".join(line))
    return lines


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
