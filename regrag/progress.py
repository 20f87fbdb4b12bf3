"""Progress lines on standard error for long CLI work (docs/cli.md, "Progress").

Only the command line uses this: library code takes an optional
``progress(done, total)`` callback and knows nothing about terminals. A
``Progress`` draws one self-overwriting line (``\\r``) on its stream when that
stream is a terminal and ``quiet`` is off, and does nothing otherwise, so
standard output, results and files never change. The line shows items done,
rate and time left; it is redrawn at most every ``interval`` seconds and
cleared when the work ends.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

ProgressCallback = Callable[[int, int], None]
"""``callback(done, total)``: ``done`` of ``total`` items finished (``total`` 0 when unknown)."""


def stream_is_terminal(stream: TextIO | None) -> bool:
    """True when ``stream`` is an open terminal (never raises)."""
    try:
        return stream is not None and not stream.closed and stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


class Progress:
    """One progress line for one task; a no-op unless enabled on a terminal."""

    def __init__(self, label: str, unit: str = "items", stream: TextIO | None = None,
                 enabled: bool = True, interval: float = 0.2, clock: Callable[[], float] = time.monotonic,
                 finishing: str = "") -> None:
        self.label = label
        self.finishing = finishing  # shown once every item is done, while the rest of the work runs
        self.unit = unit
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled and stream_is_terminal(self.stream)
        self.interval = interval
        self._clock = clock
        self._started = clock()
        self._last_drawn: float | None = None
        self._width = 0

    def __call__(self, done: int, total: int) -> None:
        """The ``ProgressCallback``: redraw if the interval has passed (or at the end)."""
        if not self.enabled:
            return
        now = self._clock()
        if self._last_drawn is not None and now - self._last_drawn < self.interval and done != total:
            return
        self._last_drawn = now
        line = format_line(self.label, self.unit, done, total, now - self._started)
        if self.finishing and total and done >= total:
            line += f"; {self.finishing}"
        self._draw(line)

    def close(self) -> None:
        """Erase the line (the terminal is left as it was)."""
        if self.enabled and self._width:
            self._write("\r" + " " * self._width + "\r")
        self._width = 0

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _draw(self, line: str) -> None:
        padding = " " * max(0, self._width - len(line))
        self._width = len(line)
        self._write("\r" + line + padding)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False  # a broken terminal must not stop the work


def format_line(label: str, unit: str, done: int, total: int, elapsed: float) -> str:
    """``label: done/total unit (p%)  rate/s  about T left`` (``total`` 0: no share, no time left)."""
    rate = done / elapsed if elapsed > 0 else 0.0
    if total > 0:
        line = f"{label}: {done:,}/{total:,}{' ' + unit if unit else ''} ({100 * done // total}%)"
    else:
        line = f"{label}: {done:,}{' ' + unit if unit else ''}"
    if rate > 0:
        line += f"  {rate:,.1f}/s"
        if total > 0 and done < total:
            line += f"  about {format_duration((total - done) / rate)} left"
    return line


def format_duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``1 h 02 min``."""
    whole = int(seconds + 0.5)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


class StagedProgress:
    """A ``progress(stage, done, total)`` callback: one ``Progress`` line per stage, in turn."""

    def __init__(self, unit: str = "", stream: TextIO | None = None, enabled: bool = True,
                 interval: float = 0.2, clock: Callable[[], float] = time.monotonic) -> None:
        self._options = dict(unit=unit, stream=stream, enabled=enabled, interval=interval, clock=clock)
        self._stage: str | None = None
        self._current: Progress | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self._stage:
            self.close()
            self._stage = stage
            self._current = Progress(stage, **self._options)
        assert self._current is not None
        self._current(done, total)

    def close(self) -> None:
        if self._current is not None:
            self._current.close()
        self._current = None

    def __enter__(self) -> "StagedProgress":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
