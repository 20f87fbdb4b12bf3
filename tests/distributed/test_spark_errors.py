"""A failed Spark job is one readable line (no pyspark needed: the text is parsed here)."""

from __future__ import annotations

from regrag.distributed.spark_jobs import reason_of, task_error
from regrag.distributed.worker_identity import MISMATCH_MARKER

# the shape of a Py4J error whose task died of a full JVM heap (written here, not copied from a log)
HEAP_FAILURE = """An error occurred while calling z:org.apache.spark.api.python.PythonRDD.collectAndServe.
: org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 2.0 failed 1 times, \
most recent failure: Lost task 0.0 in stage 2.0 (TID 8) (host executor driver): java.lang.OutOfMemoryError: Java heap space
\tat java.base/java.util.Arrays.copyOf(Arrays.java:3537)
"""


def test_a_full_jvm_heap_names_the_cause_and_the_setting_to_raise():
    reason = reason_of(HEAP_FAILURE)
    assert reason.startswith("a Spark JVM ran out of memory (java.lang.OutOfMemoryError: Java heap space); ")
    assert "--driver-memory" in reason and "PYSPARK_SUBMIT_ARGS" in reason and "\n" not in reason


def test_regrag_messages_and_python_errors_keep_their_own_text():
    assert reason_of(f"noise\n{task_error(ValueError('corpus.jsonl:3: not JSON'))}\nmore") == "corpus.jsonl:3: not JSON"
    assert reason_of(f"x {MISMATCH_MARKER} the executor runs analyzer b, the driver a\ntrace") == \
        "the executor runs analyzer b, the driver a"
    assert reason_of("Traceback...\nKeyError: 'w'\n") == "KeyError: 'w'"
    assert reason_of("\n\n") == "no message"
