"""Tests for regrag.corpus.passages.split_passages: exact spans and a hypothesis property."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.corpus.load import load_corpus
from regrag.corpus.model import Document, Passage, Section
from regrag.corpus.passages import split_passages

SEP = " › "


def one_section(text: str, title: str = "T", document_id: str = "d") -> Document:
    return Document(document_id, title, text, (Section(title, 0, len(text)),), (), "test")


def texts(document: Document, passages: list[Passage]) -> list[str]:
    return [document.text[p.start : p.end] for p in passages]


def check_invariants(document: Document, passages: list[Passage], max_chars: int) -> None:
    """Everything the contract promises about the passages of ``document``."""
    text = document.text
    assert [p.number for p in passages] == list(range(1, len(passages) + 1))
    assert all(p.document_id == document.id for p in passages)
    assert all(p.id == f"{document.id}#{p.number}" for p in passages)

    non_empty = [p for p in passages if p.end > p.start]
    if not any(text[s.start : s.end].strip() for s in document.sections):
        # Nothing to index: exactly one empty passage, for the first section.
        assert len(passages) == 1
        (only,) = passages
        assert only.start == only.end
        assert only.title == document.sections[0].title
        return
    assert len(non_empty) == len(passages)

    # In order, non-overlapping, bounded, trimmed.
    for a, b in zip(passages, passages[1:]):
        assert a.end <= b.start
    for p in passages:
        assert 0 <= p.start < p.end <= len(text)
        assert p.end - p.start <= max_chars
        piece = text[p.start : p.end]
        assert not piece[0].isspace() and not piece[-1].isspace(), repr(piece)

    # Per section: passages stay inside it, carry its title, and cover every
    # non-whitespace character exactly once.
    remaining = list(passages)
    for section in document.sections:
        body = text[section.start : section.end]
        mine = [p for p in remaining if section.start <= p.start and p.end <= section.end]
        remaining = [p for p in remaining if p not in mine]
        assert all(p.title == section.title for p in mine)
        covered = [0] * len(text)
        for p in mine:
            for i in range(p.start, p.end):
                covered[i] += 1
        for i in range(section.start, section.end):
            if not text[i].isspace():
                assert covered[i] == 1, (i, text[i])
        stripped = body.strip()
        if not stripped:
            assert mine == []
        elif len(stripped) <= max_chars:
            assert len(mine) == 1
            assert text[mine[0].start : mine[0].end] == stripped
        else:
            # Greedy: a passage could not have taken in the whole next one.
            for a, b in zip(mine, mine[1:]):
                assert b.end - a.start > max_chars
    assert remaining == [], "a passage crosses a section boundary"


# ---------------------------------------------------------------- exact spans

def test_short_section_is_one_trimmed_passage():
    document = one_section("  Short body.\n")
    passages = split_passages(document, 100)
    assert passages == [Passage("d", 1, "T", 2, 13)]
    assert texts(document, passages) == ["Short body."]
    assert passages[0].id == "d#1"


def test_section_of_exactly_max_chars_is_not_split():
    body = "One. Two. Three."
    document = one_section(body)
    assert split_passages(document, len(body)) == [Passage("d", 1, "T", 0, len(body))]
    assert len(split_passages(document, len(body) - 1)) > 1


def test_long_section_split_at_sentence_ends():
    text = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota. Kappa lambda mu."
    document = one_section(text)
    passages = split_passages(document, 40)
    assert [(p.number, p.title, p.start, p.end) for p in passages] == [(1, "T", 0, 37), (2, "T", 38, 70)]
    assert texts(document, passages) == [
        "Alpha beta gamma. Delta epsilon zeta.",
        "Eta theta iota. Kappa lambda mu.",
    ]
    check_invariants(document, passages, 40)


def test_long_section_split_at_line_breaks_and_question_marks():
    text = "\n  Is it fast?  Yes!\nIt is deterministic\nand audit grade.\n"
    document = one_section(text)
    passages = split_passages(document, 25)
    assert texts(document, passages) == ["Is it fast?  Yes!", "It is deterministic", "and audit grade."]
    check_invariants(document, passages, 25)


def test_over_long_sentence_cut_at_whitespace():
    text = "one two three four five six seven eight nine ten"
    document = one_section(text)
    passages = split_passages(document, 15)
    assert texts(document, passages) == ["one two three", "four five six", "seven eight", "nine ten"]
    assert [(p.start, p.end) for p in passages] == [(0, 13), (14, 27), (28, 39), (40, 48)]
    check_invariants(document, passages, 15)


def test_over_long_word_cut_hard_at_limit():
    text = "abcdefghijklmnopqrstuvwxyz"
    document = one_section(text)
    passages = split_passages(document, 10)
    assert texts(document, passages) == ["abcdefghij", "klmnopqrst", "uvwxyz"]
    check_invariants(document, passages, 10)


def test_cjk_without_spaces_or_punctuation_is_cut_hard():
    text = "机器学习是人工智能的一个分支"
    document = one_section(text)
    passages = split_passages(document, 5)
    assert [(p.start, p.end) for p in passages] == [(0, 5), (5, 10), (10, 14)]
    assert texts(document, passages) == ["机器学习是", "人工智能的", "一个分支"]
    check_invariants(document, passages, 5)


def test_cjk_sentences_split_after_full_stop():
    text = "第一句话。第二句话。第三句话。"
    document = one_section(text)
    passages = split_passages(document, 10)
    assert [(p.start, p.end) for p in passages] == [(0, 10), (10, 15)]
    assert texts(document, passages) == ["第一句话。第二句话。", "第三句话。"]
    check_invariants(document, passages, 10)


def test_decimal_point_is_not_a_sentence_end():
    text = "Rate is 3.45 percent now. Fee is 12.50 dollars."
    document = one_section(text)
    passages = split_passages(document, 30)
    assert texts(document, passages) == ["Rate is 3.45 percent now.", "Fee is 12.50 dollars."]


def test_document_with_only_headings_has_one_empty_passage(tmp_path):
    (tmp_path / "h.md").write_text("# Title\n## A\n## B\n", encoding="utf-8")
    (document,) = load_corpus(tmp_path).documents
    passages = split_passages(document, 100)
    assert len(passages) == 1
    (passage,) = passages
    assert passage.number == 1
    assert passage.id == "h.md#1"
    assert passage.title == "Title"
    assert passage.start == passage.end == document.sections[0].start
    check_invariants(document, passages, 100)


def test_empty_sections_make_no_passage(tmp_path):
    text = "# Guide\nintro text\n## Empty\n\n## Full\nbody text\n### Also empty\n   \n"
    (tmp_path / "g.md").write_text(text, encoding="utf-8")
    (document,) = load_corpus(tmp_path).documents
    passages = split_passages(document, 100)
    assert [(p.id, p.title, document.text[p.start : p.end]) for p in passages] == [
        ("g.md#1", "Guide", "intro text"),
        ("g.md#2", f"Guide{SEP}Full", "body text"),
    ]
    check_invariants(document, passages, 100)


def test_multi_section_markdown_passages_keep_section_titles(tmp_path):
    text = (
        "# Card\n"
        "Short intro.\n"
        "## Fees\n"
        "The annual fee is fifty dollars. The late fee is ten dollars. "
        "Foreign transactions cost three percent.\n"
    )
    (tmp_path / "card.md").write_text(text, encoding="utf-8")
    (document,) = load_corpus(tmp_path).documents
    passages = split_passages(document, 64)
    assert [(p.number, p.title, document.text[p.start : p.end]) for p in passages] == [
        (1, "Card", "Short intro."),
        (2, f"Card{SEP}Fees", "The annual fee is fifty dollars. The late fee is ten dollars."),
        (3, f"Card{SEP}Fees", "Foreign transactions cost three percent."),
    ]
    check_invariants(document, passages, 64)


# ---------------------------------------------------------------- property

_WORD = st.text(alphabet=string.ascii_letters, min_size=1, max_size=12)
_LONG_WORD = st.text(alphabet=string.ascii_letters, min_size=40, max_size=450)
_TOKEN = st.one_of(
    _WORD,
    _WORD,
    _WORD,
    st.sampled_from([" ", " ", " ", ". ", "。", "\n", "  ", "\n\n"]),
    _LONG_WORD,
)


@st.composite
def documents(draw) -> Document:
    text = "".join(draw(st.lists(_TOKEN, max_size=120)))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
    bounds = [0, *cuts, len(text)]
    sections = tuple(
        Section(f"S{index}", start, end) for index, (start, end) in enumerate(zip(bounds, bounds[1:]))
    )
    return Document("doc", "Doc", text, sections, (), "test")


@settings(max_examples=300, deadline=None)
@given(documents(), st.integers(min_value=50, max_value=400))
def test_passage_invariants_hold_for_random_texts(document, max_chars):
    passages = split_passages(document, max_chars)
    check_invariants(document, passages, max_chars)
    assert split_passages(document, max_chars) == passages  # deterministic
