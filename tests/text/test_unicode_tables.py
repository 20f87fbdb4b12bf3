"""The stored character tables equal what ``unicodedata`` derives, and the
BMP-only patterns match exactly as the full ones on text without astral characters."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.text import language, normalize, scripts, tokenize, unicode_tables


def test_stored_tables_equal_the_derived_ones():
    if unicodedata.unidata_version not in unicode_tables.STORED:  # derived in every process: slower, still right
        pytest.skip(f"no stored tables for Unicode {unicodedata.unidata_version}: python3 -m regrag.text.unicode_tables")
    unicode_tables.ranges.cache_clear()
    for name in unicode_tables.NAMES:
        assert unicode_tables.ranges(name) == unicode_tables.compute(name), name


def test_each_stored_entry_is_well_formed():
    for version, tables in unicode_tables.STORED.items():
        assert set(tables) == set(unicode_tables.NAMES), version
        for name, text in tables.items():
            found = unicode_tables._decode(text)
            assert list(found) == sorted(found) and all(a <= b for a, b in found), (version, name)
            assert unicode_tables.encode(found) == text.strip(), (version, name)


def test_the_joiner_set_is_the_joiner_pattern():
    pattern, members = normalize._joiner_pattern(), normalize._joiner_set()
    for code in range(sys.maxunicode + 1):
        character = chr(code)
        assert (pattern.match(character) is not None) == (character in members), hex(code)


def test_has_astral():
    assert not scripts.has_astral("Cổ phiếu 年 \uffff")
    assert scripts.has_astral("a\U00010000") and scripts.has_astral("\U0010ffff")


BMP_AND_MARKS = st.text(alphabet=st.characters(max_codepoint=0xFFFF, blacklist_categories=("Cs",)), max_size=80)
MARK_HEAVY = st.lists(st.sampled_from(["a", "e", "đ", " ", "\u0301", "\u0323", "\u0306", "\u1dc0", "\u20d0", "\ufe20",
                                       "ｶ", "\uff9e", "\u1161", "年", "1,2", "'", "%"]), max_size=60).map("".join)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(BMP_AND_MARKS, MARK_HEAVY, MARK_HEAVY.map(lambda text: text * 12)))
def test_bmp_patterns_match_as_the_full_ones(text):
    full_chunk, full_atom = tokenize._patterns(True)
    bmp_chunk, bmp_atom = tokenize._patterns(False)
    assert [m.span() for m in full_chunk.finditer(text)] == [m.span() for m in bmp_chunk.finditer(text)]
    assert [(m.span(), m.lastgroup) for m in full_atom.finditer(text)] == [
        (m.span(), m.lastgroup) for m in bmp_atom.finditer(text)]
    full_run, bmp_run = normalize._long_joining_run(True), normalize._long_joining_run(False)
    assert [m.span() for m in full_run.finditer(text)] == [m.span() for m in bmp_run.finditer(text)]
    decomposed = unicodedata.normalize("NFD", text)
    assert [m.span() for m in language._maybe_vietnamese(True).finditer(decomposed)] == [
        m.span() for m in language._maybe_vietnamese(False).finditer(decomposed)]
