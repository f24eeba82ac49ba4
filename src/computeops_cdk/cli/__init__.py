"""The ``computeops`` command line. The only layer that prints.

Exit codes: 0 success, 2 invalid input (a message, never a traceback), 3 no feasible placement or
a model that does not fit, 1 an unexpected internal error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..errors import ComputeOpsError, DoesNotFitError, NoFeasiblePlacementError

EXIT_OK = 0
EXIT_INVALID = 2
EXIT_INFEASIBLE = 3

__all__ = ["EXIT_INFEASIBLE", "EXIT_INVALID", "EXIT_OK", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    from . import _catalog, _decide, _estimate

    parser = argparse.ArgumentParser(
        prog="computeops",
        description=(
            "Decide where an AI workload runs (provider, accelerator, region, price model) from a "
            "workload intent and an embedded market catalog, deterministically and with reasons."
        ),
        epilog="Start with: computeops decide examples/support-chat.yaml",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _decide.register(commands)
    _estimate.register(commands)
    _catalog.register(commands)
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
