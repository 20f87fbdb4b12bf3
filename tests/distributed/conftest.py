"""Spark tests (marked ``spark``) run only when asked for: ``pytest -m spark`` (.ci/run's opt-in
step) or ``REGRAG_SPARK_TESTS=1``; they skip with the reason when pyspark or Java is absent."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _spark_only_when_asked(request):
    if request.node.get_closest_marker("spark") is None:
        return
    from regrag.distributed.spark_jobs import spark_missing_reason

    reason = spark_missing_reason()
    if reason is not None:
        pytest.skip(f"Spark test: {reason}")
    if "spark" not in (request.config.getoption("markexpr") or "") and not os.environ.get("REGRAG_SPARK_TESTS"):
        pytest.skip("Spark tests take minutes: run them with pytest -m spark (or REGRAG_SPARK_TESTS=1), as .ci/run does")
