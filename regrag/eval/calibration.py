"""Reliability of the answer confidence: bins, observed accuracy, ECE.

Each labelled query gives a pair (confidence, correct), where *correct* means
the top passage (or, when judged by document, the top document) is relevant;
an unanswerable query is never correct. Confidences fall into ``bins`` equal
bins over [0, 1] (the last one closed). The expected calibration error is
``Σ (n_b / N) · |accuracy_b − mean confidence_b|``, summed with ``math.fsum``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from regrag.audit.canonical import JsonRecord


@dataclass(frozen=True)
class ReliabilityBin(JsonRecord):
    low: float
    high: float
    count: int
    mean_confidence: float
    accuracy: float


def reliability_table(pairs: Sequence[tuple[float, bool]], bins: int = 5) -> tuple[ReliabilityBin, ...]:
    """Non-empty bins of (confidence, correct) pairs, lowest first."""
    grouped: list[list[tuple[float, bool]]] = [[] for _ in range(bins)]
    for confidence, correct in pairs:
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"confidence {confidence!r} is outside [0, 1]")
        grouped[min(int(confidence * bins), bins - 1)].append((confidence, correct))
    table = []
    for number, members in enumerate(grouped):
        if not members:
            continue
        table.append(
            ReliabilityBin(
                low=number / bins,
                high=(number + 1) / bins,
                count=len(members),
                mean_confidence=math.fsum(c for c, _ in members) / len(members),
                accuracy=sum(1 for _, ok in members if ok) / len(members),
            )
        )
    return tuple(table)


def expected_calibration_error(table: Sequence[ReliabilityBin]) -> float:
    total = sum(b.count for b in table)
    if total == 0:
        return 0.0
    return math.fsum(b.count / total * abs(b.accuracy - b.mean_confidence) for b in table)
