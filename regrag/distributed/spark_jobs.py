"""Starting Spark and running one job of pure tasks, with errors made readable.

``spark_context(master)`` starts (or reuses) a SparkContext; ``collect(rdd)``
runs the job and turns a task's failure into one ``RegragError`` line: an
executor mismatch (``worker_identity``) or an input error raised in a task
keeps its own message, not Spark's Java stack trace.

``REGRAG_SPARK_FAIL_FIRST_ATTEMPT`` (a testing aid, docs/distributed.md):
``all`` or comma-separated partition numbers whose first attempt raises, so
a test can show that the retried task gives the same bytes; ``staged``: every
phase-C task's first attempt raises after writing its shard's staged files
(a retry then renames the same bytes over them). A retry needs a master that
allows one (e.g. ``local[2,2]``); without, the job fails.
"""

from __future__ import annotations

import os
import re
import shutil

from regrag.distributed.worker_identity import MISMATCH_MARKER
from regrag.errors import InputError, RegragError

DEFAULT_MASTER = "local[*]"
FAIL_FIRST_ATTEMPT = "REGRAG_SPARK_FAIL_FIRST_ATTEMPT"
_TASK_ERROR_MARKER = "regrag-task-error:"


class SparkUnavailable(InputError):
    """pyspark or Java is missing."""


def spark_missing_reason() -> str | None:
    """Why Spark cannot run here (pyspark not installed, no ``java``), else None."""
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install 'regrag[spark]')"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Java is not installed (Spark needs Java 17 or later on the PATH or in JAVA_HOME)"
    return None


def spark_context(master: str | None = None, app_name: str = "regrag"):
    """The active SparkContext, else a new one on ``master`` (None or "": what
    spark-submit configured, else ``local[*]``). Quiet: Spark logs warnings only."""
    reason = spark_missing_reason()
    if reason is not None:
        raise SparkUnavailable(f"--spark: {reason}")
    from pyspark import SparkConf, SparkContext

    active = SparkContext._active_spark_context
    if active is not None and (not master or active.master == master):
        return active
    if active is not None:
        active.stop()
    conf = SparkConf().setAppName(app_name).set("spark.ui.showConsoleProgress", "false")
    if master:
        conf.setMaster(master)
    elif not conf.contains("spark.master"):
        conf.setMaster(DEFAULT_MASTER)
    context = SparkContext(conf=conf)
    context.setLogLevel("WARN")
    return context


def fail_on_first_attempt(partition: int, staged: bool = False) -> None:
    """Raise in a task's first attempt when ``REGRAG_SPARK_FAIL_FIRST_ATTEMPT`` names its partition
    (``staged``: the call made after a phase-C task staged its files, which only ``staged`` names)."""
    chosen = os.environ.get(FAIL_FIRST_ATTEMPT, "")
    if not chosen or (chosen == "staged") != staged:
        return
    from pyspark import TaskContext

    task = TaskContext.get()
    if task is None or task.attemptNumber() > 0:
        return
    if chosen in ("all", "staged") or str(partition) in chosen.split(","):
        after = " after staging its files" if staged else ""
        raise RuntimeError(f"{FAIL_FIRST_ATTEMPT}: partition {partition} fails its first attempt{after}")


def task_error(error: Exception) -> RuntimeError:
    """A task's ``RegragError`` wrapped so ``collect`` can show its message alone."""
    return RuntimeError(f"{_TASK_ERROR_MARKER} {error}")


def collect(rdd) -> list:
    """``rdd.collect()``, a failed task reported as one ``RegragError`` line."""
    try:
        return rdd.collect()
    except Exception as error:  # Py4JJavaError or pyspark's PythonException: both carry the worker's text
        raise RegragError(f"the Spark job failed: {reason_of(str(error))}") from None


def reason_of(text: str) -> str:
    """The line of a failed job's text that says why: regrag's own message, else pyspark's or the last line."""
    for marker in (MISMATCH_MARKER, _TASK_ERROR_MARKER):
        at = text.rfind(marker)
        if at >= 0:
            return text[at + len(marker):].strip().splitlines()[0]
    version = text.find("PYTHON_VERSION_MISMATCH")  # pyspark's own check of the worker's minor version
    if version >= 0:
        return " ".join(text[version:].split("\n")[0:2]).strip()
    memory = re.search(r"java\.lang\.OutOfMemoryError: ?([^\n]*)", text)  # a JVM's heap, not Python's
    if memory is not None:
        return (f"a Spark JVM ran out of memory (java.lang.OutOfMemoryError: {memory.group(1).strip() or 'no detail'}); "
                f"give it more with spark-submit --driver-memory 4g (--executor-memory on a cluster), or "
                f"PYSPARK_SUBMIT_ARGS='--driver-memory 4g pyspark-shell' before regrag ... --spark local[N] "
                f"(docs/distributed.md, \"Memory\")")
    python = re.search(r"^(\w+(?:Error|Exception): .+)$", text, re.MULTILINE)  # the task's Python exception
    if python is not None:
        return python.group(1).strip()
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else "no message"
