"""The progress line (regrag/progress.py): rate-limited, erased at the end,
silent when not a terminal or disabled, and durations. (That commands draw it
on a terminal's standard error only, silenced by --quiet, without a byte of
difference on standard output or in what is written, is tested with each
command in tests/cli/.)"""

from __future__ import annotations

import io

import pytest

from regrag.progress import Progress, StagedProgress, format_duration, format_line


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_line_is_rate_limited_and_erased():
    now = [0.0]
    stream = FakeTerminal()
    progress = Progress("indexing", "documents", stream=stream, interval=1.0, clock=lambda: now[0])
    now[0] = 0.5
    progress(1, 4)  # first call: drawn
    now[0] = 0.9
    progress(2, 4)  # within the interval: not drawn
    now[0] = 2.0
    progress(3, 4)
    progress(4, 4)  # the last item is always drawn
    progress.close()
    assert stream.getvalue() == (
        "\rindexing: 1/4 documents (25%)  2.0/s  about 2 s left"
        "\rindexing: 3/4 documents (75%)  1.5/s  about 1 s left"
        "\rindexing: 4/4 documents (100%)  2.0/s" + " " * 15 +  # padded over the longer line before
        "\r" + " " * 37 + "\r")


def test_not_a_terminal_or_quiet_writes_nothing():
    for stream, enabled in ((io.StringIO(), True), (FakeTerminal(), False)):
        with Progress("indexing", stream=stream, enabled=enabled) as progress:
            progress(1, 1)
        assert stream.getvalue() == ""


def test_a_broken_terminal_does_not_stop_the_work():
    class Broken(FakeTerminal):
        def write(self, _text):
            raise OSError(5, "Input/output error")

    progress = Progress("indexing", stream=Broken())
    progress(1, 2)  # no exception
    assert not progress.enabled


def test_staged_progress_starts_a_line_per_stage():
    stream = FakeTerminal()
    with StagedProgress(stream=stream, interval=0.0, clock=lambda: 1.0) as progress:
        progress("indexing", 1, 1)
        progress("bm25 queries", 1, 2)
    text = stream.getvalue()
    assert "\rindexing: 1/1 (100%)" in text and "\rbm25 queries: 1/2 (50%)" in text
    assert text.index("indexing") < text.index("bm25 queries")


@pytest.mark.parametrize("seconds, text", [(0.4, "0 s"), (59.4, "59 s"), (61, "1 min 01 s"), (3725, "1 h 02 min")])
def test_durations(seconds, text):
    assert format_duration(seconds) == text


def test_unknown_total():
    assert format_line("loading", "files", 7, 0, 2.0) == "loading: 7 files  3.5/s"
