"""The ``computeops`` command line. The only layer that prints.

Exit codes: 0 success, 2 invalid input (a message, never a traceback), 3 no feasible placement, a
model that does not fit or a missed latency target, 141 the reader of stdout closed the pipe early,
1 an unexpected internal error.

Start-up is part of the interface (``benchmarks/bench_startup.py``): this module imports only os, sys
and gc; ``computeops --version`` answers from here, ``computeops --help`` from ``_help``
(argparse's layout without argparse), a ``decide`` written plainly is read
without argparse too (``_decide.plain_args``, proven equal to argparse's reading), and otherwise
the parser lives in ``_parser`` and registers in full only the subcommand being run, whose module
then imports what it needs.
"""

from __future__ import annotations

import gc  # built in (tens of microseconds): main keeps the collector as it found it
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name too)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from types import SimpleNamespace

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
    """``computeops 0.1.0 (catalog 2026.11.29, sha256 9a2f290ca523; performance model ...)``.

    Read without loading the catalog or the model: the catalog's canonical JSON (the embedded one,
    or the one ``$COMPUTEOPS_CATALOG`` names) ends with its ``sha256`` and ``version`` keys, and the
    model version is a constant of ``_version``.
    """
    from .._version import CATALOG_ENV, PERF_MODEL_VERSION, __version__, embedded_catalog_meta

    chosen = os.environ.get(CATALOG_ENV)  # what decisions use (catalog refresh points users at it)
    meta = embedded_catalog_meta(chosen) if chosen else embedded_catalog_meta()
    where = f" from ${CATALOG_ENV}" if chosen else ""
    catalog = f"catalog {meta['version']}, sha256 {meta['sha256'][:12]}" if meta else "catalog unreadable"
    return f"computeops {__version__} ({catalog}{where}; performance model {PERF_MODEL_VERSION})"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered (or, given ``command``, only that one in
    full and the others as names with their help: what ``main`` uses to start fast)."""
    from ._parser import build_parser as build

    return build(command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (the console script exits with it).

    Called without ``argv`` (the console script, ``python -m computeops_cdk.cli``), the process is
    ours: the command's modules are imported with the cyclic garbage collector paused and what they
    made (classes: objects that live as long as the process) is then frozen out of it, so the
    collector neither runs during the imports nor walks those objects again (about 70 passes, 15 ms
    of CPU of a cold ``decide``, benchmarks/STARTUP.md); what the command makes afterwards is
    collected as usual, but for ``decide``, which runs with the collector paused (``_RUN_PAUSED``).
    When the command is done, everything is frozen: the collection at interpreter shutdown only
    reclaimed memory the exit returns anyway (about 35 ms of CPU of a cold ``decide``). atexit
    handlers, flushing and module teardown still run. A caller passing ``argv`` (tests, an embedding
    program) keeps its collector as it was.
    """
    if sys.stdout is None:
        # `computeops decide ... >&-`: the interpreter found no stdout. Refuse before running, as
        # on a full disk, rather than do the work and lose its output (or raise on the flush).
        # print() to a missing stderr writes nothing: the exit code still says it.
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
        code = _main(list(sys.argv[1:] if argv is None else argv), console=argv is None)
        sys.stdout.flush()  # a buffered tail fails here, not in the interpreter's last flush
    except BrokenPipeError:
        code = _quiet_stdout(EXIT_BROKEN_PIPE)
    except OSError as err:
        import errno  # only here: start-up imports nothing it does not need

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
        import contextlib

        with contextlib.suppress(OSError):  # stderr fails too (`2>/dev/full`): the exit code says it
            print(message, file=sys.stderr)
        code = _quiet_stdout(EXIT_INVALID)
    return code


def _main(given: list[str], *, console: bool = False) -> int:
    refused = _refused_word(given)
    if refused is not None:
        print(f"computeops: error: {refused}", file=sys.stderr)
        return EXIT_INVALID
    if given == ["--version"]:  # the common case, answered before argparse is even imported
        sys.stdout.write(version_text() + "\n")
        return EXIT_OK
    if given in (["--help"], ["-h"]):  # argparse's bytes without argparse (cli/_help), where proven
        from ._help import terminal_columns, top_help

        text = top_help(terminal_columns())
        if text is not None:
            sys.stdout.write(text)
            return EXIT_OK
    from ..errors import ComputeOpsError, DoesNotFitError, NoFeasiblePlacementError

    args: argparse.Namespace | SimpleNamespace | None
    if console:  # argparse and the command's modules are imported with the collector paused
        args = _plain_unscanned(given)
        if args is None:
            args = _parser_unscanned(given).parse_args(given)
    else:
        args = _plain(given)
        if args is None:
            from ._parser import build_parser as build
            from ._parser import command_of

            args = build(command_of(given)).parse_args(given)
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
        return _quiet_stdout(EXIT_BROKEN_PIPE)


def _refused_word(given: list[str]) -> str | None:
    """Why a word of ``given`` is no command-line word, or None: an item that is not a str
    (``main(["decide", None])`` was an AttributeError traceback), or ``--OPTION=--``, for which
    argparse gives the option [] (``decide --catalog=--`` ignored the catalog, ``--plot=--`` was a
    TypeError traceback) while ``_decide.plain_args`` read "--". Words after a bare ``--`` are
    positional, whatever they look like."""
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


_RUN_PAUSED = frozenset({"decide"})
"""Commands the console script also runs with the collector paused: bounded work (an intent of at
most 1 MiB, one catalog, one decision; the engine pauses the collector for the decision itself)
whose objects reference counting frees. The collector's passes around the decision (reading the
intent, writing the output) walked the catalog's records young and freed a few dozen objects:
about 3 ms of CPU of a cold ``decide`` (benchmarks/STARTUP.md). Their few cycles stay until exit."""


def _plain(given: list[str]) -> SimpleNamespace | None:
    """argparse's arguments for a ``decide`` written plainly, without argparse (``_decide.plain_args``:
    about 4 ms of a cold decide); None for any other command line, which argparse parses."""
    if given[:1] != ["decide"]:
        return None
    from ._decide import plain_args

    return plain_args(given)


def _plain_unscanned(given: list[str]) -> SimpleNamespace | None:
    """``_plain``, the command's modules imported with the collector paused and then frozen out of it,
    as ``_parser_unscanned`` imports them (the collector stays paused for ``_RUN_PAUSED``)."""
    if given[:1] != ["decide"]:
        return None
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _plain(given)
    finally:
        gc.freeze()
        if enabled and "decide" not in _RUN_PAUSED:
            gc.enable()


def _parser_unscanned(given: list[str]) -> argparse.ArgumentParser:
    """The parser of the command ``given`` runs, its modules (argparse too) imported with the
    collector paused and then frozen out of it (``main``). The import-time garbage frozen with them
    (classes that ``dataclass(slots=True)`` replaced, ...: about 570 objects for ``decide``) stays
    until exit. For the commands of ``_RUN_PAUSED`` the collector stays paused (``main`` restores it)."""
    enabled = gc.isenabled()
    gc.disable()
    command = None
    try:
        from ._parser import build_parser as build
        from ._parser import command_of

        command = command_of(given)
        return build(command)
    finally:
        gc.freeze()
        if enabled and command not in _RUN_PAUSED:
            gc.enable()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
