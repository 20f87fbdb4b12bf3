"""A calibration map by isotonic regression (pool adjacent violators),
fitted on some labelled sets and applied to another (docs/evaluation.md,
"Calibration across sets").

``fit_isotonic`` sorts the (confidence, correct) pairs by confidence (ties:
incorrect first, a fixed order), starts one block per distinct confidence,
and merges neighbouring blocks while a block's accuracy is above the next
one's; each block's accuracy is its count of correct pairs over its size
(integers, so no float sum depends on order). The map is the blocks'
(lowest confidence, accuracy), ascending; ``calibrated`` gives a confidence
the accuracy of the last block starting at or below it (the first block's
below every start). Deterministic, no parameters: nothing is tuned per set.
"""

from __future__ import annotations

import bisect
from typing import Sequence

CalibrationMap = tuple[tuple[float, float], ...]


def fit_isotonic(pairs: Sequence[tuple[float, bool]]) -> CalibrationMap:
    """The non-decreasing step map from confidence to observed accuracy."""
    blocks: list[list[float | int]] = []  # [lowest confidence, correct, count]
    for confidence, correct in sorted((float(c), bool(ok)) for c, ok in pairs):
        if blocks and blocks[-1][0] == confidence:
            blocks[-1][1] += int(correct)
            blocks[-1][2] += 1
        else:
            blocks.append([confidence, int(correct), 1])
        # merge while the previous block is more accurate than the last
        while len(blocks) > 1 and blocks[-2][1] * blocks[-1][2] > blocks[-1][1] * blocks[-2][2]:
            last = blocks.pop()
            blocks[-1][1] += last[1]
            blocks[-1][2] += last[2]
    return tuple((float(low), correct / count) for low, correct, count in blocks)


def calibrated(mapping: CalibrationMap, confidence: float) -> float:
    """``confidence`` through ``mapping`` (unchanged by an empty map)."""
    if not mapping:
        return confidence
    starts = [low for low, _accuracy in mapping]
    return mapping[max(bisect.bisect_right(starts, confidence) - 1, 0)][1]
