"""The letter count of language detection, in regular expressions, equals
the character loop it replaced, on any text (NFD, as detection gives it)."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.text.language import _language_by_letters, _language_by_letters_loop, detect_language

PIECES = st.sampled_from(["a", "A", "e", "y", "K", "\u212a", "đ", "Đ", "\u0306", "\u0303", "\u0309", "\u0323", "\u031b",
                          "\u0301", "\u0300", "\u0302", "\u0308", "\u0307", "\u0130", " ", "ệ", "ơ", "ă", "ẽ", "ấ",
                          "Ngân hàng ", "lãi suất ", "the rate ", "café ", "naïve ", "1", "中"])
TEXTS = st.one_of(st.lists(PIECES, max_size=60).map("".join), st.text(max_size=80))


@settings(max_examples=1500, deadline=None)
@given(TEXTS)
def test_the_patterns_count_as_the_loop_did(text):
    decomposed = unicodedata.normalize("NFD", text)
    assert _language_by_letters(decomposed) == _language_by_letters_loop(decomposed)
    assert _language_by_letters(text) == _language_by_letters_loop(text)  # and on text not in NFD


def test_examples():
    assert detect_language("Lãi suất ngân hàng tăng mạnh trong quý ba") == "vi"
    english = ("The rate at the café near Nguyễn Huệ street was high today, said the bank, and the analysts expected "
               "the central bank to hold its policy rate through the end of the year.")
    assert detect_language(english) == "en"
    assert detect_language("Nguyễn Huệ") == "vi"
    assert detect_language("plain ascii") == "en"
