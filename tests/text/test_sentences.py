"""Tests for regrag.text.sentences.sentence_spans.

Contract: spans of the sentences of ``text[start:end]`` as offsets into ``text``, trimmed of
whitespace; a sentence ends after ``.``/``!``/``?`` (with any closing quotes or brackets) when
whitespace follows, directly after ``。！？；``, and at every newline; a decimal point inside a
number never ends a sentence.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.text.sentences import sentence_spans


def sentences(text: str, start: int = 0, end: int | None = None) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text, start, end)]


# --- English ----------------------------------------------------------------------------


def test_english_terminators() -> None:
    text = "Rates rose. Yields fell!  Why? Because."
    assert sentence_spans(text) == [(0, 11), (12, 24), (26, 30), (31, 39)]
    assert sentences(text) == ["Rates rose.", "Yields fell!", "Why?", "Because."]


def test_spans_are_trimmed() -> None:
    text = "  Hello.   World.  "
    assert sentence_spans(text) == [(2, 8), (11, 17)]


def test_last_sentence_without_terminator() -> None:
    assert sentence_spans("One. Two") == [(0, 4), (5, 8)]
    assert sentence_spans("no terminator at all") == [(0, 20)]


def test_terminator_runs() -> None:
    text = "What?! Really... Yes!!! No"
    assert sentences(text) == ["What?!", "Really...", "Yes!!!", "No"]


@pytest.mark.parametrize(
    "text",
    ["Hello.World", "x.y.z", "Wait...what", "end?no", "Yahoo!x"],
)
def test_terminator_without_following_whitespace_does_not_end(text: str) -> None:
    assert sentence_spans(text) == [(0, len(text))]


@pytest.mark.parametrize("space", [" ", "\t", "\u00a0", "\u3000", "  \t "])
def test_any_whitespace_after_terminator_ends(space: str) -> None:
    text = f"Done.{space}Next"
    assert sentence_spans(text) == [(0, 5), (5 + len(space), len(text))]


# --- Numbers ----------------------------------------------------------------------------


def test_decimal_points_do_not_end_sentences() -> None:
    text = "The rate was 3.45% in 2024. It rose to 1,250.5 points."
    assert sentence_spans(text) == [(0, 27), (28, 54)]
    assert sentences(text) == ["The rate was 3.45% in 2024.", "It rose to 1,250.5 points."]


@pytest.mark.parametrize(
    "text",
    ["Version 2.0 is out", "Pi is 3.14159 roughly", "It cost 12.000 tỷ đồng", "v1.2.3 shipped"],
)
def test_numbers_are_not_split(text: str) -> None:
    assert sentence_spans(text) == [(0, len(text))]


def test_number_at_sentence_end() -> None:
    text = "It closed at 3.45. Then it fell to 3.2."
    assert sentences(text) == ["It closed at 3.45.", "Then it fell to 3.2."]


def test_chinese_decimal() -> None:
    text = "利率为3.45%。下调"
    assert sentence_spans(text) == [(0, 9), (9, 11)]


# --- Quotes and brackets after terminators ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ('He said "stop." Then left.', 'He said "stop."'),
        ("He said 'stop.' Then left.", "He said 'stop.'"),
        ("He said \u201cstop.\u201d Then left.", "He said \u201cstop.\u201d"),
        ("He said \u2018stop.\u2019 Then left.", "He said \u2018stop.\u2019"),
        ("He said (stop!) Then left.", "He said (stop!)"),
        ("He said [stop?] Then left.", "He said [stop?]"),
        ('He said ("stop.") Then left.', 'He said ("stop.")'),
    ],
)
def test_closing_quotes_stay_with_the_sentence(text: str, first: str) -> None:
    assert sentences(text) == [first, "Then left."]


def test_closing_quote_without_following_whitespace_does_not_end() -> None:
    text = 'He said "stop."Then'
    assert sentence_spans(text) == [(0, len(text))]


# --- Chinese ----------------------------------------------------------------------------


def test_chinese_terminators() -> None:
    text = "央行下调利率。市场上涨！为什么？因为；所以"
    assert sentence_spans(text) == [(0, 7), (7, 12), (12, 16), (16, 19), (19, 21)]
    assert sentences(text) == ["央行下调利率。", "市场上涨！", "为什么？", "因为；", "所以"]


def test_chinese_terminator_run() -> None:
    assert sentences("真的？！是的。") == ["真的？！", "是的。"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("他说：\u201c好。\u201d然后走了。", ["他说：\u201c好。\u201d", "然后走了。"]),
        ("他说\u300c好。\u300d然后", ["他说\u300c好。\u300d", "然后"]),
        ("他说\u300e好。\u300f然后", ["他说\u300e好。\u300f", "然后"]),
        ("（他说好。）然后", ["（他说好。）", "然后"]),
    ],
)
def test_chinese_closing_quotes(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_chinese_terminator_followed_by_space() -> None:
    text = "好。 然后"
    assert sentence_spans(text) == [(0, 2), (3, 5)]


def test_mixed_chinese_and_english() -> None:
    text = "LPR下调。Rates fell. 市场上涨！"
    assert sentences(text) == ["LPR下调。", "Rates fell.", "市场上涨！"]


# --- Newlines ---------------------------------------------------------------------------


def test_newlines_end_sentences() -> None:
    text = "line one\nline two\r\nline three"
    assert sentence_spans(text) == [(0, 8), (9, 17), (19, 29)]


def test_newline_inside_a_sentence_splits_it() -> None:
    assert sentences("The rate\nrose.") == ["The rate", "rose."]


def test_blank_lines_give_no_empty_sentences() -> None:
    assert sentence_spans("a\n\n\nb") == [(0, 1), (4, 5)]
    assert sentence_spans("a.\n\n  \nb") == [(0, 2), (7, 8)]


@pytest.mark.parametrize(
    "newline",
    ["\r", "\x85", "\u2028", "\u2029", "\v", "\f"],
    ids=["CR", "NEL", "LS", "PS", "VT", "FF"],
)
def test_other_line_breaks_end_sentences(newline: str) -> None:
    text = f"line one{newline}line two"
    assert sentence_spans(text) == [(0, 8), (9, 17)]


# --- Empty input and sub-ranges ---------------------------------------------------------


@pytest.mark.parametrize("text", ["", " ", "   \n\t ", "\n", "\r\n\r\n", "\u3000"])
def test_empty_or_whitespace_input(text: str) -> None:
    assert sentence_spans(text) == []


TEXT = "First one. Second one. Third."


def test_sub_range_is_in_original_offsets() -> None:
    assert sentence_spans(TEXT, 11, 22) == [(11, 22)]
    assert sentence_spans(TEXT, 11) == [(11, 22), (23, 29)]
    assert sentence_spans(TEXT, 0, None) == sentence_spans(TEXT) == [(0, 10), (11, 22), (23, 29)]


def test_sub_range_cutting_sentences() -> None:
    assert sentence_spans(TEXT, 3) == [(3, 10), (11, 22), (23, 29)]
    assert sentence_spans(TEXT, 0, 14) == [(0, 10), (11, 14)]
    assert sentence_spans(TEXT, 10, 11) == []  # only whitespace
    assert sentence_spans(TEXT, 5, 5) == []
    assert sentence_spans("A. B. C.", 2, 6) == [(3, 5)]


def test_sub_range_ending_inside_a_number() -> None:
    text = "It rose 3.45 today"
    # "It rose 3." : the point is followed by a digit in the text, so it is not an end.
    assert sentence_spans(text, 0, 10) == [(0, 10)]
    assert sentence_spans(text, 9) == [(9, 18)]


def test_sub_range_ending_at_terminator() -> None:
    assert sentence_spans("Hi. There", 0, 3) == [(0, 3)]
    assert sentence_spans("Hi. There", 0, 4) == [(0, 3)]


# --- Properties -------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",))), st.data())
def test_spans_are_ordered_trimmed_and_inside_the_range(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    spans = sentence_spans(text, start, end)
    previous_end = start
    for s, e in spans:
        assert previous_end <= s < e <= end
        assert not text[s].isspace() and not text[e - 1].isspace()
        previous_end = e
    # Nothing but whitespace is left out.
    covered = {i for s, e in spans for i in range(s, e)}
    assert all(text[i].isspace() for i in range(start, end) if i not in covered)
    # No sentence runs over a newline.
    assert all("\n" not in text[s:e] for s, e in spans)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.from_regex(r"\A[0-9]{1,4}[.,][0-9]{1,3}\Z"),
        min_size=1,
        max_size=5,
    )
)
def test_numbers_never_split(numbers: list[str]) -> None:
    text = "Value " + " and ".join(numbers) + " end"
    assert sentence_spans(text) == [(0, len(text))]
