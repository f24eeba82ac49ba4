"""The argument parser: subcommands, "did you mean" on a typo, ``--version``.

``build_parser(command)`` registers the subcommand being run in full and every other one as a stub
(its name and one-line help, enough for ``computeops --help`` and for argparse to accept the
name), so a command imports only its own module (``benchmarks/bench_startup.py``).
"""

from __future__ import annotations

import argparse
import re
import sys
from importlib import import_module

from ..errors import did_you_mean, did_you_mean_text
from ._help import COMMANDS, DESCRIPTION, EPILOG, VERSION_HELP, terminal_columns

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (`computeops --help` is timed)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import NoReturn

__all__ = ["COMMANDS", "build_parser", "command_of"]


def command_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` runs (its first word not starting with '-'); "" when there is none
    (``computeops --help``), None when the word is not a subcommand (argparse then reports it)."""
    names = {name for name, _, _ in COMMANDS}
    for word in argv:
        if not word.startswith("-"):
            return word if word in names else None
    return ""


_INVALID_CHOICE = r"invalid choice: '(?P<given>[^']*)' \(choose from (?P<choices>.*)\)"
"""Compiled by ``re`` (and kept in its cache) on the first error, not at every start."""


class _Parser(argparse.ArgumentParser):
    """argparse with "did you mean ..." on a mistyped subcommand or choice (Python 3.11 has none).

    Subparsers inherit the class (``add_subparsers`` uses ``type(self)``), so every level gets it.
    """

    def error(self, message: str) -> NoReturn:
        found = re.search(_INVALID_CHOICE, message)
        if found:
            message += _hint(found["given"], re.findall(r"'([^']*)'", found["choices"]))
        elif message.startswith("unrecognized arguments: "):
            # Raised by the top parser, which does not know the subcommands' options: offer all.
            for flag in message.removeprefix("unrecognized arguments: ").split():
                if flag.startswith("--"):
                    message += _hint(flag.split("=")[0], sorted(_option_strings(self)))
                    break
        super().error(message)

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse makes a formatter for every add_argument (to check the metavar) and, given no
        # width, each one imports shutil (and with it zlib, bz2 and lzma: about 2 ms of a cold
        # `computeops decide`) to ask the terminal's width: the same width, found without shutil.
        return self.formatter_class(prog=self.prog, width=terminal_columns() - 2)  # type: ignore[call-arg]


def _hint(given: str, choices: list[str]) -> str:
    return did_you_mean_text(did_you_mean(given, choices))


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    names: set[str] = set()
    for action in parser._actions:  # argparse has no public way to walk the parser tree
        names.update(s for s in action.option_strings if s.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                names |= _option_strings(sub)
    return names


class _Version(argparse.Action):
    """``--version`` given with other arguments (alone, ``main`` answers before building a parser)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from . import version_text

        sys.stdout.write(version_text() + "\n")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; ``command`` None registers every subcommand in full (completion, tests), a name
    only that one ("" none: the top-level ``--help``)."""
    parser = _Parser(
        prog="computeops",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument(
        "--version",
        action=_Version,
        nargs=0,
        help=VERSION_HELP,
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module, help_text in COMMANDS:
        if command is None or name == command:
            import_module(f".{module}", __package__).register(commands)
        else:
            commands.add_parser(name, help=help_text, add_help=False)
    return parser
