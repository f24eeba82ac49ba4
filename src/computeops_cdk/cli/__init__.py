"""The ``computeops`` command line. The only layer that prints.

Exit codes: 0 success, 2 invalid input (a message, never a traceback), 3 no feasible placement or
a model that does not fit, 141 the reader of stdout closed the pipe early, 1 an unexpected internal
error.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

from ..errors import (
    ComputeOpsError,
    DoesNotFitError,
    NoFeasiblePlacementError,
    did_you_mean,
    did_you_mean_text,
)

EXIT_OK = 0
EXIT_INVALID = 2
EXIT_INFEASIBLE = 3
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader closed

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INFEASIBLE", "EXIT_INVALID", "EXIT_OK", "build_parser", "main"]


_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<given>[^']*)' \(choose from (?P<choices>.*)\)")


class _Parser(argparse.ArgumentParser):
    """argparse with "did you mean ..." on a mistyped subcommand or choice (Python 3.11 has none).

    Subparsers inherit the class (``add_subparsers`` uses ``type(self)``), so every level gets it.
    """

    def error(self, message: str) -> NoReturn:
        found = _INVALID_CHOICE.search(message)
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
    """``--version``, read from the installed metadata only when asked (keeps the cold start short)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("computeops-cdk")
        except PackageNotFoundError:  # a source tree that was never installed
            text = "unknown (not installed)"
        sys.stdout.write(f"{parser.prog} {text}\n")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    from . import _catalog, _decide, _estimate, _lock, _reevaluate

    parser = _Parser(
        prog="computeops",
        description=(
            "Decide where an AI workload runs (provider, accelerator, region, price model) from a "
            "workload intent and an embedded market catalog, deterministically and with reasons."
        ),
        epilog="Start with: computeops decide examples/support-chat.yaml",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _decide.register(commands)
    _estimate.register(commands)
    _catalog.register(commands)
    _reevaluate.register(commands)
    _lock.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (the console script exits with it)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
        return code
    except NoFeasiblePlacementError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_INFEASIBLE
    except DoesNotFitError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_INFEASIBLE
    except ComputeOpsError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`computeops catalog list --json | head`): not an error of ours.
        # Point stdout at /dev/null so the interpreter's final flush does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
