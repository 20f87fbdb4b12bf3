"""The underthesea word analyzers (``regrag[vi]``): terms with offsets into
the original text, syllable terms exactly the built-in rules', words joined
from them, the segmenter in the identity, and non-Vietnamese text as the
built-in ``auto`` analyzer gives it. Skipped without underthesea."""

from __future__ import annotations

import pytest

pytest.importorskip("underthesea")

from regrag import Index  # noqa: E402
from regrag.corpus.model import Document, Section  # noqa: E402
from regrag.text.analyzer import Analyzer  # noqa: E402
from regrag.text.underthesea_words import WordSegmentedAnalyzer, word_analyzer  # noqa: E402

TEXT = "Ngân hàng Nhà nước  công bố lãi suất điều hành.\nLãi sau thuế quý 2/2026 của QMS tăng 38,5%."


@pytest.fixture(scope="module")
def words():
    return WordSegmentedAnalyzer("vi-words")


@pytest.fixture(scope="module")
def both():
    return WordSegmentedAnalyzer("vi-words-syllables")


def syllables(text):
    return [(t, s, e) for t, s, e in Analyzer("auto").analyze(text, "vi") if " " not in t]


def test_words_are_joined_syllable_terms_with_original_offsets(words):
    terms = words.analyze(TEXT, "vi")
    base = syllables(TEXT)
    assert ("ngân hàng", 0, 9) in terms and ("nhà nước", 10, 18) in terms
    for term, start, end in terms:
        inside = [t for t, s, e in base if start <= s and e <= end]
        assert term == " ".join(inside)  # every term is the built-in syllable terms of its span
        assert TEXT[start:end].split()[0].casefold().startswith(inside[0][:1])
    # every syllable is covered exactly once, in order
    covered = [t for term, _s, _e in terms for t in term.split(" ")]
    assert covered == [t for t, _s, _e in base]


def test_words_and_syllables(words, both):
    terms = both.analyze(TEXT, "vi")
    assert set(syllables(TEXT)) <= set(terms)
    assert {t for t in terms if " " in t[0]} == {t for t in words.analyze(TEXT, "vi") if " " in t[0]}


def test_identity_and_other_languages(words):
    identity = words.identity()
    assert identity["name"] == "vi-words" and identity["segmenter"].startswith("underthesea ")
    assert len(identity["segmenter_model_sha256"]) == 64
    english = "The deposit rates were changed in January."
    assert words.analyze(english) == Analyzer("auto").analyze(english)
    assert word_analyzer("auto") == Analyzer("auto")


def test_an_index_built_with_words_answers_with_them(words):
    texts = {"a": "Ngân hàng Nhà nước công bố lãi suất điều hành mới.", "b": "Thép Quang Minh báo lãi quý 2 tăng mạnh."}
    documents = [Document(key, "", text, (Section("", 0, len(text)),), (), "test") for key, text in texts.items()]
    index = Index.from_documents(documents, analyzer=words)
    plain = Index.from_documents(documents)
    assert index.index_id != plain.index_id
    [hit] = index.search("ngân hàng nhà nước", k=1, method="bm25")
    assert hit.document_id == "a" and dict(hit.analyzer)["name"] == "vi-words"
    assert {m["term"] for m in hit.to_dict()["matches"]} >= {"ngân hàng", "nhà nước"}
