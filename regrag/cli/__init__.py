"""Command line: ``python -m regrag search|ask|explain|eval|index|verify|prove|verify-proof|golden|ledger|mcp|serve|cite|embed``.

Exit status (``ExitStatus``): 0 on success; 1 when ``ask`` finds no answer
or a check (``verify``, ``verify-proof``, ``golden verify``, ``ledger
verify|replay``) fails; 2 on bad usage or bad input, with a one-line message
on standard error naming what is wrong; 130 on Ctrl-C.

Each command is a module of this package with a ``register(commands)`` that
adds its parser and sets its handler (``set_defaults(handler=...)``);
``options`` holds the option groups they share, ``output`` what ``main``
does around every command (docs/architecture.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from regrag.cli import ask, cite, embed, explain, golden, index, ledger, mcp, proof, search, serve
from regrag.cli import eval as evaluate
from regrag.cli.status import ExitStatus
from regrag.errors import RegragError

__all__ = ["ExitStatus", "build_parser", "main"]

# In the order ``regrag --help`` lists the commands.
_COMMAND_MODULES = (search, ask, explain, evaluate, index, proof, golden, ledger, mcp, serve, cite, embed)


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="regrag", description="Deterministic, audit-grade retrieval with provenance.")
    parser.add_argument("--version", action="version", version=_version_line())
    commands = parser.add_subparsers(dest="command", required=False, parser_class=_Parser)  # none: usage and a hint
    for module in _COMMAND_MODULES:
        module.register(commands)
    _add_quiet(parser)
    return parser


def _version_line() -> str:
    from regrag._version import __version__

    return f"regrag {__version__} (Python {sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro})"


def _add_quiet(parser: argparse.ArgumentParser) -> None:
    """``--quiet`` before or after the command, on every (sub)command: no progress line (docs/cli.md)."""
    parser.add_argument("--quiet", "-q", action="store_true", default=False,
                        help="no progress line on standard error (it is shown only when standard error is a terminal)")
    for action in parser._actions:  # argparse keeps subcommands here; there is no public accessor
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                _add_quiet_after_command(subparser)


def _add_quiet_after_command(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: when not given after the command, the top-level value is kept
    parser.add_argument("--quiet", "-q", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                _add_quiet_after_command(subparser)


def _no_command(parser: argparse.ArgumentParser) -> int:
    """A bare ``regrag``: the usage and where to look, on standard error."""
    sys.stderr.write(parser.format_usage())
    print("regrag: error: a command is required; 'regrag --help' lists the commands, "
          "'regrag COMMAND --help' shows one command's options", file=sys.stderr)
    return ExitStatus.USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (docs/cli.md, "Exit status").

    Besides the commands' own statuses: a failed write to standard output
    (a full disk, a closed pipe) is one line on standard error and status 2;
    Ctrl-C is one line and status 130; never a traceback for either."""
    from regrag.cli.output import run_main

    return run_main(argv, _main)


def _main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")  # the same bytes whatever the locale
    try:
        parser = build_parser()
        arguments = parser.parse_args(argv)
        if arguments.command is None:
            return _no_command(parser)
        return arguments.handler(arguments)
    except _UsageError as error:
        print(f"{error}", file=sys.stderr)
        return ExitStatus.USAGE
    except RegragError as error:
        print(f"regrag: error: {error}", file=sys.stderr)
        return ExitStatus.USAGE
