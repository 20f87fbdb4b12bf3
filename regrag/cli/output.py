"""What ``regrag.cli.main`` does around every command: the argument-encoding
rule, failed writes to standard output or error, and Ctrl-C (docs/cli.md);
and the progress line commands draw on standard error.

- Arguments are text in UTF-8, whatever the locale. Under a locale whose
  encoding is not UTF-8, Python has already decoded the bytes with that
  encoding, and a UTF-8 query would reach the engine (and the ledger)
  garbled; a non-ASCII argument is therefore refused, naming the encoding
  and the fix, instead of being guessed at. An argument that is not valid
  UTF-8 is refused too.
- A failed write to standard output or error (a full disk, a closed pipe,
  an I/O error) is one line on standard error and exit status 2, never a
  traceback and never status 1 (which ``verify`` uses for "damaged"). Output
  is flushed before the status is returned, so a failure at the final flush
  is caught too, and the streams are pointed at ``os.devnull`` afterwards so
  that the interpreter's own flush at exit cannot fail again.
- Ctrl-C is ``regrag: interrupted`` and exit status 130 (128 + SIGINT).
- The progress line (``regrag.progress``) is drawn only when standard error
  is a terminal, and never with ``--quiet``.
"""

from __future__ import annotations

import argparse
import codecs
import sys
from typing import Callable, Sequence

from regrag.cli.status import ExitStatus
from regrag.io import files


class OutputError(Exception):
    """A write to standard output or error failed."""

    def __init__(self, name: str, error: OSError) -> None:
        super().__init__(f"cannot write to {name}: {error.strerror or error}")
        self.name = name


class _Guarded:
    """A text stream whose failed writes raise ``OutputError`` (everything else is the stream's)."""

    def __init__(self, stream, name: str) -> None:
        self._stream = stream
        self._name = name

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as error:
            raise OutputError(self._name, error) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as error:
            raise OutputError(self._name, error) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def argument_problem(arguments: Sequence[str], from_command_line: bool) -> str | None:
    """Why ``arguments`` cannot be read as UTF-8 text, or None.

    ``from_command_line``: they are ``sys.argv``, decoded by Python with the
    locale's encoding (``sys.getfilesystemencoding()``)."""
    encoding = codecs.lookup(sys.getfilesystemencoding()).name
    for position, value in enumerate(arguments, start=1):
        if from_command_line and encoding != "utf-8" and not value.isascii():
            return (f"argument {position} is not ASCII and the locale's character encoding is "
                    f"{encoding}, not UTF-8: regrag reads its arguments as UTF-8 and will not guess; "
                    "run it under a UTF-8 locale (e.g. LC_ALL=C.UTF-8) or with PYTHONUTF8=1")
        if any("\ud800" <= character <= "\udfff" for character in value):
            return f"argument {position} is not valid UTF-8"
    return None


def run_main(argv: Sequence[str] | None, body: Callable[[list[str]], int]) -> int:
    """Run ``body(arguments)`` under the rules above; returns the exit status."""
    if sys.stdout is None:
        _say("regrag: error: standard output is closed")
        return ExitStatus.USAGE
    from_command_line = argv is None
    arguments = list(sys.argv[1:] if argv is None else argv)
    problem = argument_problem(arguments, from_command_line)
    if problem is not None:
        _say(f"regrag: error: {problem}")
        return ExitStatus.USAGE
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Guarded(sys.stdout, "standard output"), _Guarded(sys.stderr, "standard error")
    try:
        try:
            status = body(arguments)
        except SystemExit as exit:  # argparse's --help and --version
            status = exit.code if isinstance(exit.code, int) else (ExitStatus.OK if exit.code is None else ExitStatus.USAGE)
        sys.stdout.flush()
        return status
    except OutputError as error:
        sys.stdout, sys.stderr = saved
        _silence(error.name)
        _say(f"regrag: error: {error}")
        return ExitStatus.USAGE
    except KeyboardInterrupt:
        sys.stdout, sys.stderr = saved
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            _silence("standard output")
        _say("regrag: interrupted")
        return ExitStatus.INTERRUPTED
    finally:
        sys.stdout, sys.stderr = saved


def _say(line: str) -> None:
    """One line on standard error; if even that fails there is nobody to tell."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        _silence("standard error")


def _silence(name: str) -> None:
    """Point the failed stream at os.devnull, so the exit-time flush of what is still buffered succeeds."""
    stream = sys.stdout if name == "standard output" else sys.stderr
    try:
        descriptor = stream.fileno()
    except (AttributeError, ValueError, OSError):
        return  # not a real file (e.g. captured in a test): nothing is flushed at exit
    try:
        files.point_at_null(descriptor)
    except OSError:
        pass


def progress(arguments: argparse.Namespace, label: str = "indexing", unit: str = "documents",
             finishing: str = "building the postings"):
    """A progress line on standard error (``regrag.progress``): drawn only on a terminal, never with --quiet."""
    from regrag.progress import Progress

    return Progress(label, unit, stream=sys.stderr, enabled=not getattr(arguments, "quiet", False), finishing=finishing)


def staged_progress(arguments: argparse.Namespace):
    """A progress line per stage (``eval``: indexing, then each method's queries)."""
    from regrag.progress import StagedProgress

    return StagedProgress(stream=sys.stderr, enabled=not getattr(arguments, "quiet", False))
