"""When an update merges segments: pure functions of the segment list
(docs/index-format.md, "Merge policy"), so the same history of updates
always gives the same generations.

``should_merge``: an update merges everything into one segment without
deletions (a format-3 generation: the bytes of a fresh build) when the
generation would otherwise hold more than ``MAX_SEGMENTS`` segments, or
more than ``MAX_DELETED_SHARE`` of the passages its segments store would be
deleted ones, or would be one segment without deletions (every earlier
segment replaced).

``tier_merge``: otherwise, segments are merged by tiers (as Lucene's tiered
policy does, simplified): a segment's tier is the number of digits of its
live passage count less one (``TIER_FACTOR`` 10: 1-9 passages tier 0,
10-99 tier 1, ...); when a tier holds ``SEGMENTS_PER_TIER`` (4) segments
or more, the lowest such tier's segments are merged into one, which lands
about one tier higher. A merge so costs about the size of what it merges,
never a rebuild, and the segments stay few: at most
``SEGMENTS_PER_TIER - 1`` a tier before one more arrives.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

MAX_SEGMENTS = 8
MAX_DELETED_SHARE = Fraction(1, 4)
TIER_FACTOR = 10
SEGMENTS_PER_TIER = 4


def should_merge(segments: Sequence[tuple[int, int]]) -> bool:
    """Whether a generation of these segments ((stored passages, deleted
    passages) each, oldest first, the new segment included) is merged."""
    if len(segments) > MAX_SEGMENTS or (len(segments) == 1 and segments[0][1] == 0):
        return True  # too many; or one segment without deletions, which format 3 stores at today's cost
    stored = sum(passages for passages, _deleted in segments)
    deleted = sum(deleted for _passages, deleted in segments)
    return stored > 0 and Fraction(deleted, stored) > MAX_DELETED_SHARE


def tier(live_passages: int) -> int:
    """The tier of a segment with this many live passages (integers only)."""
    level, bound = 0, TIER_FACTOR
    while live_passages >= bound:
        level, bound = level + 1, bound * TIER_FACTOR
    return level


def tier_merge(segments: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """The places (ascending) of the segments to merge into one: every
    segment of the lowest tier that holds ``SEGMENTS_PER_TIER`` or more;
    () when no tier does. ``segments`` as for ``should_merge``."""
    tiers = [tier(passages - deleted) for passages, deleted in segments]
    for level in sorted(set(tiers)):
        chosen = tuple(place for place, found in enumerate(tiers) if found == level)
        if len(chosen) >= SEGMENTS_PER_TIER:
            return chosen
    return ()
