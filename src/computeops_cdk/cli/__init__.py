"""The ``computeops`` command line. The only layer that prints.

Exit codes: 0 success, 2 invalid input (a message, never a traceback), 3 no feasible placement, a
model that does not fit or a missed latency target, 141 the reader of stdout closed the pipe early,
1 an unexpected internal error.

The parser (``_parser``) registers in full only the subcommand being run, and each subcommand's
module imports what it needs, so ``--version`` and ``--help`` never load the engine or the catalog.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

EXIT_OK = 0
EXIT_INVALID = 2
EXIT_INFEASIBLE = 3
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader closed

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_INFEASIBLE",
    "EXIT_INVALID",
    "EXIT_OK",
    "build_parser",
    "main",
    "version_text",
]


def version_text() -> str:
    """``computeops 0.1.0 (catalog 2026.11.29, sha256 9a2f290ca523; performance model ...)``."""
    from .._version import version_text as text

    return text()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (given ``command``, only that subcommand in full, the others by name)."""
    from ._parser import build_parser as build

    return build(command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code. argparse's own exits (``--help``, ``--version``, a usage
    error) raise ``SystemExit`` as usual.

    Without ``argv`` (the console script) the cyclic collector is paused and frozen around the
    command (benchmarks/STARTUP.md); a caller passing ``argv`` keeps its collector as it was.
    """
    if sys.stdout is None:
        # `computeops decide ... >&-`: refuse before running rather than do the work and lose it.
        message = (
            "error: cannot write the output (stdout is closed). Nothing was run. "
            "To fix: give the command a stdout, e.g. redirect it to a file or to /dev/null."
        )
        if sys.stderr is not None:
            print(message, file=sys.stderr)
        return EXIT_INVALID
    collecting = gc.isenabled()
    if sys.stderr is None:
        # `computeops decide ... 2>&-`: print(file=None) writes to stdout, so every message meant for
        # stderr would land in the decision a pipeline reads. Messages go nowhere; exit codes stay.
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115  # lives as long as the process
    try:
        return _run(argv)
    finally:
        if argv is None:  # on every way out (argparse's exit, an error): decide ran with it paused
            gc.freeze()
            if collecting:
                gc.enable()


def _run(argv: Sequence[str] | None) -> int:
    """``main``'s command, with a full disk, a closed stdout or a broken pipe as an exit code."""
    try:
        try:
            code = _main(list(sys.argv[1:] if argv is None else argv), console=argv is None)
        except SystemExit:  # argparse printed help, the version or a usage error: flush it too
            sys.stdout.flush()
            raise
        sys.stdout.flush()  # a buffered tail fails here, not in the interpreter's last flush
    except BrokenPipeError:
        code = _quiet_stdout(EXIT_BROKEN_PIPE)
    except OSError as err:
        full = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
        if err.errno not in (*full, errno.EIO, errno.EBADF):
            raise
        # `computeops decide ... > decision.json` on a full disk, or `1</dev/null` (stdout open for
        # reading only): say so, not a traceback.
        fix = (
            "free space on the device stdout goes to, or redirect it elsewhere"
            if err.errno in full
            else "give the command a writable stdout, e.g. redirect it to a file"
        )
        message = f"error: cannot write the output ({err.strerror}). Nothing more was written. To fix: {fix}."
        with contextlib.suppress(OSError):  # stderr fails too (`2>/dev/full`): the exit code says it
            print(message, file=sys.stderr)
        code = _quiet_stdout(EXIT_INVALID)
    return code


_RUN_PAUSED = frozenset({"decide"})
"""Commands the console script runs with the collector paused: bounded work (an intent of at most
1 MiB, one catalog, one decision) whose objects reference counting frees."""


def _main(given: list[str], *, console: bool = False) -> int:
    refused = _refused_word(given)
    if refused is not None:
        print(f"computeops: error: {refused}", file=sys.stderr)
        return EXIT_INVALID
    parser = _parser_unscanned(given) if console else _command_parser(given)
    args = parser.parse_args(given)  # --help and --version exit here, before the errors load
    from ..errors import ComputeOpsError, DoesNotFitError, NoFeasiblePlacementError

    try:
        code: int = args.handler(args)
        return code
    except (NoFeasiblePlacementError, DoesNotFitError) as err:
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
        return _quiet_stdout(EXIT_BROKEN_PIPE)


def _command_parser(given: list[str]) -> argparse.ArgumentParser:
    """The parser of the command ``given`` runs (the others registered by name only)."""
    from ._parser import build_parser as build
    from ._parser import command_of

    return build(command_of(given))


def _parser_unscanned(given: list[str]) -> argparse.ArgumentParser:
    """``_command_parser``, its modules (argparse's too) imported with the collector paused and then frozen
    out of it; for the commands of ``_RUN_PAUSED`` the collector stays paused (``main`` restores it)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _command_parser(given)
    finally:
        gc.freeze()
        from ._parser import command_of

        if enabled and command_of(given) not in _RUN_PAUSED:
            gc.enable()


def _refused_word(given: list[str]) -> str | None:
    """Why a word of ``given`` is no command-line word, or None: an item that is not a str, or
    ``--OPTION=--`` (argparse gives the option []). Words after a bare ``--`` are positional."""
    for index, word in enumerate(given):
        if not isinstance(word, str):
            from ..errors import shown

            return (
                f"argv item {index} ({shown(word, limit=40)}) is of type {type(word).__name__}, not str. "
                "To fix: pass strings (each item is one word of the command line)"
            )
    for word in given:
        if word == "--":
            break
        option, equals, value = word.partition("=")
        if equals and value == "--" and option.startswith("--"):
            return (
                f"argument {option}: '--' is not a value (it ends the options). To fix: give "
                f"{option} its value ({option}=VALUE), or leave it out"
            )
    return None


def _quiet_stdout(code: int) -> int:
    """Point stdout at /dev/null so the interpreter's final flush does not raise again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
