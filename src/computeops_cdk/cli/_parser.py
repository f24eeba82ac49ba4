"""The argument parser: subcommands, "did you mean" on a typo, ``--version``.

``build_parser(command)`` registers the subcommand being run in full and every other one by its
name and one-line help (enough for ``computeops --help`` and for argparse to accept the name), so
a command imports only its own module and ``--help`` none of the engine.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from importlib import import_module

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn

__all__ = ["COMMANDS", "HelpFormatter", "build_parser", "command_of"]

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
    ("completion", "_completion", "print a shell completion script (bash, zsh or tcsh)"),
)
"""(subcommand, module in this package, the help its ``register`` gives; a test keeps them equal)."""

_DESCRIPTION = """\
Decide where an AI workload runs (provider, accelerator, region, price model) from a
workload intent and an embedded market catalog, deterministically and with reasons."""
_EPILOG = """\
start with:
  computeops decide examples/support-chat.yaml
  computeops COMMAND --help

exit codes:
  0    success
  2    invalid input (a message says what and how to fix it)
  3    no feasible placement, a model that does not fit or a missed latency target
  4    catalog refresh: a provider's feed was refused (the others were committed)
  130  interrupted
  141  the reader of stdout closed the pipe early
  1    an unexpected internal error
"""


def command_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` runs (its first word not starting with '-'); "" when there is none
    (``computeops --help``), None when the word is not a subcommand (argparse then reports it)."""
    names = {name for name, _, _ in COMMANDS}
    for word in argv:
        if not word.startswith("-"):
            return word if word in names else None
    return ""


def _terminal_width() -> int:
    """``shutil.get_terminal_size().columns``, in its order: ``$COLUMNS``, then stdout's terminal, then 80."""
    with contextlib.suppress(KeyError, ValueError):
        columns = int(os.environ["COLUMNS"])
        if columns > 0:
            return columns
    with contextlib.suppress(AttributeError, ValueError, OSError):  # no stdout, closed, or not a tty
        columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        if columns > 0:
            return columns
    return 80


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter with the terminal's width found without ``shutil``: argparse builds a
    formatter on every ``add_argument`` and its own width lookup imports ``shutil`` (and with it
    ``bz2``, ``lzma`` and ``fnmatch``), a fifth of what ``computeops --version`` adds to Python's
    own start (benchmarks/STARTUP.md)."""

    def __init__(self, prog: str, **options: Any) -> None:  # argparse passes prog (and options) by name
        options["width"] = options.get("width") or _terminal_width() - 2
        super().__init__(prog, **options)


_INVALID_CHOICE = r"invalid choice: '(?P<given>[^']*)' \(choose from (?P<choices>.*)\)"


class _Parser(argparse.ArgumentParser):
    """argparse with "did you mean ..." on a mistyped subcommand or choice (Python 3.11 has none);
    subparsers inherit the class (``add_subparsers`` uses ``type(self)``)."""

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


def _hint(given: str, choices: list[str]) -> str:
    from ..errors import did_you_mean, did_you_mean_text

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
    """``--version``: the text as it is (argparse's ``version`` action would wrap it to the terminal)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from .._version import version_text

        sys.stdout.write(version_text() + "\n")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; ``command`` None registers every subcommand in full (completion, tests), a name
    only that one ("" none: the top-level ``--help``)."""
    parser = _Parser(
        prog="computeops",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "--version",
        action=_Version,
        nargs=0,
        help="show the package, catalog and performance-model versions and exit",
    )
    # prog given: argparse would otherwise build a help formatter (and import shutil) to work it out
    commands = parser.add_subparsers(
        dest="command", title="commands", metavar="COMMAND", required=True, prog="computeops"
    )
    for name, module, help_text in COMMANDS:
        if command is None or name == command:
            import_module(f".{module}", __package__).register(commands)
        else:
            commands.add_parser(name, help=help_text, add_help=False)
    return parser
