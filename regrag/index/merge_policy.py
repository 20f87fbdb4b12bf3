"""When an update merges its segments: a pure function of the segment list
(docs/index-format.md, "Merge policy"), so the same history of updates
always gives the same generations.

An update publishes its new segment beside the earlier ones unless the
generation would then hold more than ``MAX_SEGMENTS`` segments, or more
than ``MAX_DELETED_SHARE`` of the passages its segments store would be
deleted ones, or would be one segment without deletions (every earlier
segment replaced); then it merges everything into one segment without
deletions (a format-2 generation: the bytes of a fresh build).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

MAX_SEGMENTS = 8
MAX_DELETED_SHARE = Fraction(1, 4)


def should_merge(segments: Sequence[tuple[int, int]]) -> bool:
    """Whether a generation of these segments ((stored passages, deleted
    passages) each, oldest first, the new segment included) is merged."""
    if len(segments) > MAX_SEGMENTS or (len(segments) == 1 and segments[0][1] == 0):
        return True  # too many; or one segment without deletions, which format 2 stores at today's cost
    stored = sum(passages for passages, _deleted in segments)
    deleted = sum(deleted for _passages, deleted in segments)
    return stored > 0 and Fraction(deleted, stored) > MAX_DELETED_SHARE
