"""Abbreviations the evidence writes for the question's words (regrag/answer/abbreviations.py)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from regrag.answer.abbreviations import abbreviated, abbreviation_steps, spelled_out
from regrag.answer.confidence import content_terms
from regrag.engine import Index


def table_of(index, question):
    return spelled_out(index.analyzer, question, "en", content_terms(index.analyzer, question, "en"))


def test_runs_of_content_words_are_keyed_by_their_initials(regulations):
    table = table_of(regulations, "What is the stock of high-quality liquid assets?")
    assert table["hqla"] == (frozenset({"high", "qualiti", "liquid", "asset"}), "high-quality liquid assets")
    assert table["hql"][1] == "high-quality liquid" and "sha" not in table  # "stock of": 'of' breaks the run
    # punctuation other than a space or a hyphen breaks a run
    assert "lcr" not in table_of(regulations, "What is the liquidity, coverage ratio?")


def test_only_words_in_capitals_count(regulations):
    table = table_of(regulations, "What is the minimum liquidity coverage ratio?")
    text = "an LCR of 100%, the LCRs, lcr, LCR5, XLCR and Lcr"
    assert abbreviated(text, 0, len(text), table) == [
        (3, 6, "coverag"), (3, 6, "liquid"), (3, 6, "ratio"),
        (20, 23, "coverag"), (20, 23, "liquid"), (20, 23, "ratio")]
    assert abbreviation_steps(text, table) == ("liquidity coverage ratio~LCR",)
    assert abbreviated(text, 0, len(text), {}) == []


def test_the_article_that_abbreviates_answers_the_spelled_out_question(regulations):
    # docs/ledger.md's example: the definition of the LCR was answered at 0.67 before (session 36)
    answer = regulations.ask("What is the minimum liquidity coverage ratio?")
    assert answer.found and answer.short_answer.text == "100%"
    assert answer.sentences[0].text.startswith("A credit institution shall maintain an LCR of at least 100%")
    assert answer.confidence.abbreviations == ("liquidity coverage ratio~LCR",)
    assert answer.confidence.bare_sentence is False and answer.confidence.type_supported is True


@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "omega"]), min_size=3, max_size=6, unique=True))
def test_every_key_is_the_initials_of_its_words(words):
    index = Index.from_documents([])
    question = "What is the " + " ".join(words) + "?"
    for key, (terms, typed) in spelled_out(index.analyzer, question, "en",
                                           content_terms(index.analyzer, question, "en")).items():
        assert key == "".join(word[0] for word in typed.split()) and 3 <= len(key) <= 6
        assert typed in question
