"""A calibration map by isotonic regression (pool adjacent violators),
fitted on some labelled sets and applied to another (docs/evaluation.md,
"Calibration across sets").

``fit_isotonic`` sorts the (confidence, correct) pairs by confidence (ties:
incorrect first, a fixed order), starts one block per distinct confidence,
and merges neighbouring blocks while a block's accuracy is above the next
one's. A pair may carry a weight (``weights``, e.g. one over its set's size,
so that every set counts alike); sums are exact fractions, so no result
depends on the order of a float sum. The map is the blocks' (lowest
confidence, accuracy), ascending; ``calibrated`` gives a confidence the
accuracy of the last block starting at or below it (the first block's below
every start). Deterministic, no parameters: nothing is tuned per set.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from regrag.answer.calibration import step_value

# (lowest confidence, accuracy) steps, ascending; regrag.answer.calibration.CalibrationMap holds one in a file
StepMap = tuple[tuple[float, float], ...]


def fit_isotonic(pairs: Sequence[tuple[float, bool]], weights: Sequence[Fraction | int] | None = None) -> StepMap:
    """The non-decreasing step map from confidence to observed (weighted) accuracy."""
    weighted = [(float(c), bool(ok), Fraction(1) if weights is None else Fraction(weights[i]))
                for i, (c, ok) in enumerate(pairs)]
    blocks: list[list] = []  # [lowest confidence, weight of the correct pairs, weight of all]
    for confidence, correct, weight in sorted(weighted):
        if blocks and blocks[-1][0] == confidence:
            blocks[-1][1] += weight if correct else 0
            blocks[-1][2] += weight
        else:
            blocks.append([confidence, weight if correct else Fraction(0), weight])
        # merge while the previous block is more accurate than the last
        while len(blocks) > 1 and blocks[-2][1] * blocks[-1][2] > blocks[-1][1] * blocks[-2][2]:
            last = blocks.pop()
            blocks[-1][1] += last[1]
            blocks[-1][2] += last[2]
    return tuple((low, float(correct / total)) for low, correct, total in blocks)


def calibrated(mapping: StepMap, confidence: float) -> float:
    """``confidence`` through ``mapping`` (unchanged by an empty map)."""
    if not mapping:
        return confidence
    return step_value(mapping, confidence)
