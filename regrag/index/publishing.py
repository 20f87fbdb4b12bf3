"""The rules a publish follows besides writing files: that it was computed
from the generation still current, that its time stamp is sane, which
generations it retains, and how much an update may delete.

Every rule refuses before anything is written, with one line that says what
happened and what to do (docs/index-format.md, "Publishing (atomic)").
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from regrag.errors import InputError

if TYPE_CHECKING:
    from regrag.index.directory import PublishedGeneration

# How far the clock may be behind the newest published stamp before a publish
# refuses (a small step back, an NTP correction, is absorbed by stamping one
# microsecond after the previous generation).
CLOCK_SKEW_TOLERANCE = timedelta(hours=1)
# An update that would delete more than this share of the documents of the
# generation it starts from is refused unless deletions are allowed: an empty
# or half-written corpus file looks exactly like that.
MAX_DELETED_SHARE = 0.5


class StaleBaseError(InputError):
    """The generation an update or rebuild was computed from is no longer current."""


class ClockError(InputError):
    """The clock is far behind the newest published stamp, or no later stamp exists."""


@dataclass(frozen=True)
class Publication:
    """What one publish did: the new generation, the one current before it
    (0: none), the generations it pruned, and those it kept only because
    they were protected (for example referenced by a ledger)."""

    generation: "PublishedGeneration"
    previous: int
    pruned: tuple[int, ...]
    protected: tuple[int, ...]


def check_base(root: object, current: int, base: int | None) -> None:
    """``StaleBaseError`` unless ``current`` is ``base`` (None: no condition)."""
    if base is None or current == base:
        return
    started = f"generation {base}" if base else "no generation (an empty directory)"
    raise StaleBaseError(
        f"{root}: generation {current} was published while this index was being computed from {started}; "
        f"nothing was published (generation {current} stays current): run the command again"
    )


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp[:-1] + "+00:00")


def next_stamp(root: object, newest: tuple[int, str] | None, moment: datetime, allow_clock_skew: bool,
               format_timestamp) -> str:
    """The ``published`` stamp of a new generation: ``moment``, or one
    microsecond after the newest stamp ``newest`` = (generation, stamp) when
    the clock is behind it by at most ``CLOCK_SKEW_TOLERANCE`` (or by any
    amount with ``allow_clock_skew``). ``ClockError`` otherwise, and when no
    later time can be represented."""
    published = format_timestamp(moment)
    if newest is None or published > newest[1]:
        return published
    number, stamp = newest
    previous = _parse(stamp)
    if previous - moment > CLOCK_SKEW_TOLERANCE and not allow_clock_skew:
        raise ClockError(
            f"{root}: generation {number} was published at {stamp}, later than this clock ({published}): "
            "this clock or that stamp is wrong, and --as-of cannot find a generation stamped before an older one; "
            "nothing was published. Fix the clock, or pass --allow-clock-skew (allow_clock_skew=True) to stamp "
            "the new generation one microsecond after generation "
            f"{number}"
        )
    try:
        return format_timestamp(previous + timedelta(microseconds=1))
    except (OverflowError, ValueError):
        raise ClockError(
            f"{root}: generation {number} was published at {stamp}, the latest time a stamp can hold, so no later "
            "generation can be published in this directory (stamps must increase); nothing was published. "
            "Re-index into a new directory"
        ) from None


def retained_after(history: Sequence, entry, keep: int | None,
                   protect: Iterable[int] = ()) -> tuple[list, tuple[int, ...], tuple[int, ...]]:
    """(generations to retain, numbers pruned, numbers kept only because
    protected) when ``entry`` is published after ``history`` with ``keep``."""
    every = [*history, entry]
    if keep is None:
        return every, (), ()
    newest = {g.number for g in every[-keep:]}
    shielded = {number for number in protect if isinstance(number, int)} & {g.number for g in every}
    keeping = newest | shielded
    return ([g for g in every if g.number in keeping],
            tuple(g.number for g in every if g.number not in keeping),
            tuple(sorted(shielded - newest)))


def check_deletions(root: object, base: int, deleted: int, total: int, allowed: bool) -> None:
    """``InputError`` when an update deletes more than ``MAX_DELETED_SHARE``
    of the ``total`` documents of generation ``base`` and that is not ``allowed``."""
    if allowed or deleted <= MAX_DELETED_SHARE * total:
        return
    raise InputError(
        f"{root}: this update would delete {deleted:,} of the {total:,} documents of generation {base} "
        f"(more than {MAX_DELETED_SHARE:.0%}); nothing was published. An empty or half-written corpus file "
        "looks like this: check the corpus, or pass --allow-deletions if the deletions are intended"
    )


@dataclass(frozen=True)
class LedgerNeeds:
    """The retained generations the records of some ledgers replay against,
    and the generations they name that are no longer retained."""

    retained: frozenset[int]
    missing: tuple[int, ...]


def ledger_needs(paths: Iterable[str | os.PathLike[str]], history: Sequence, new_index_id: str | None = None) -> LedgerNeeds:
    """What ``regrag ledger replay`` needs of ``history`` for every record of
    the ledgers at ``paths`` (read with ``regrag.audit.ledger.read_ledger``):
    the generation a record names, or, for a record made from a corpus, the
    newest retained generation with its index id (none when the generation
    about to be published, ``new_index_id``, has that id)."""
    from regrag.audit.ledger import read_ledger

    numbers = {g.number for g in history}
    needed: set[int] = set()
    missing: set[int] = set()
    for path in paths:
        for entry in read_ledger(path):
            record = entry.record
            number = record.get("generation")
            if isinstance(number, int) and not isinstance(number, bool):
                (needed if number in numbers else missing).add(number)
            elif number is None and record.get("index_id") != new_index_id:
                matching = [g.number for g in history if g.index_id == record.get("index_id")]
                if matching:
                    needed.add(matching[-1])
    return LedgerNeeds(frozenset(needed), tuple(sorted(missing)))


def numbers_text(numbers: Iterable[int]) -> str:
    """``generation 3`` or ``generations 1, 2``."""
    listed = sorted(numbers)
    return ("generation " if len(listed) == 1 else "generations ") + ", ".join(str(n) for n in listed)


def check_publish_arguments(keep: Any, base: Any, now: Any) -> None:
    """The checks of a publish's ``keep``, ``base`` and ``now``, made before
    anything is written (both publishing paths: a built index, a written build)."""
    from regrag.io.clock import format_timestamp

    if keep is not None and (isinstance(keep, bool) or not isinstance(keep, int) or keep < 1):
        raise InputError(f"keep must be a positive integer, got {keep!r}")
    if base is not None and (isinstance(base, bool) or not isinstance(base, int) or base < 0):
        raise InputError(f"base must be a generation number (0: none), got {base!r}")
    if now is not None:
        format_timestamp(now)  # rejects a naive time before anything is written
