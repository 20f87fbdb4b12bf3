"""What an executor must share with the driver, checked at the start of every task.

Two machines give the same bytes only if they run the same code on the same
rules: the Python version (float formatting, ``unicodedata``), regrag's
version and the analyzer's identity (its rules and Unicode version, part of
the index id). A task on an executor that differs fails the job with a
message naming both values, instead of writing different bytes.
"""

from __future__ import annotations

import platform
from typing import Mapping

from regrag._version import __version__
from regrag.audit.canonical import canonical_json

# Starts the message of a task that refused to run, so the driver can find it
# in the Java stack trace Spark wraps it in.
MISMATCH_MARKER = "regrag-executor-mismatch:"


class ExecutorMismatch(RuntimeError):
    """An executor's environment differs from the driver's."""


def environment_identity(analyzer_name: str) -> dict[str, str]:
    """This process's Python version, regrag version and the identity of analyzer ``analyzer_name``."""
    from regrag.text.analyzer import Analyzer

    return {
        "python": platform.python_version(),
        "regrag": __version__,
        "analyzer": canonical_json(Analyzer(analyzer_name).identity()),
    }


def check_executor(expected: Mapping[str, str], analyzer_name: str) -> None:
    """``ExecutorMismatch`` naming the executor's and the driver's value of the
    first field that differs (``expected`` is the driver's ``environment_identity``)."""
    here = environment_identity(analyzer_name)
    for field in sorted(expected):
        if here.get(field) != expected[field]:
            raise ExecutorMismatch(
                f"{MISMATCH_MARKER} the executor's {field} is {here.get(field)} but the driver's is "
                f"{expected[field]}; every executor must run the driver's Python, regrag and analyzer "
                "(docs/distributed.md, \"Cluster recipe\")")
