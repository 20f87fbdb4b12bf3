"""The indexing hot path (``IdCounter``, chunk by chunk) counts exactly the
terms of the full analysis, and the ASCII chunk pattern finds tokenize's chunks."""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import count

from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.index.id_counts import IdCounter
from regrag.text.analyzer import ASCII_CHUNK, Analyzer
from regrag.text.tokenize import _patterns

ANALYZERS = {name: Analyzer(name) for name in ("auto", "en", "vi", "zh")}

ascii_texts = st.lists(
    st.sampled_from(list("abcsXYZ HPG's 3.45% 1,250 T+1 5G'-.,()_\n\t\x1cIT ON")
                    + ["the ", "ON. ", "IT, ", "PONIES. ", "company's ", "relational ", "ponies ", "a.b ", "VN30 ", "U.S. ", "x__y "]),
    max_size=40,
).map("".join)
any_texts = st.one_of(ascii_texts, st.text(max_size=60),
                      st.text(alphabet=st.sampled_from(list("ab Z’\u0301\ufeff年费 İ.,'")), max_size=40))


def _reference(analyzer: Analyzer, text: str, language: str) -> Counter:
    return Counter(term for term, _s, _e in analyzer.analyze(text, language))


@settings(max_examples=400, deadline=None)
@given(st.lists(any_texts, min_size=1, max_size=6), st.sampled_from(sorted(ANALYZERS)),
       st.sampled_from([None, "en", "vi", "zh"]))
def test_id_counts_equal_the_counted_analysis(texts, name, language):
    analyzer = ANALYZERS[name]
    term_id = defaultdict(count().__next__)
    counter = IdCounter(analyzer, term_id.__getitem__)  # one counter for all the texts: its caches warm up
    for text in texts + texts:
        chosen = language or analyzer.language_of(text)
        counts = counter.counts(text, chosen)
        vocabulary = {number: term for term, number in term_id.items()}
        assert Counter({vocabulary[number]: times for number, times in counts.items()}) == _reference(
            analyzer, text, chosen)
        assert all(times > 0 for times in counts.values())


@settings(max_examples=400, deadline=None)
@given(ascii_texts)
def test_the_ascii_chunk_pattern_finds_tokenizes_chunks(text):
    assert ASCII_CHUNK.findall(text) == _patterns(False)[0].findall(text) == _patterns(True)[0].findall(text)


def test_id_counts_on_examples():
    analyzer = Analyzer("en")
    term_id = defaultdict(count().__next__)
    counter = IdCounter(analyzer, term_id.__getitem__)
    text = "HPG's margin rose 3.45% in Q2; IT and ON stay, the company's fees fell. a.b a.b x_y"
    counts = counter.counts(text, "en")
    names = {number: term for term, number in term_id.items()}
    assert Counter({names[n]: c for n, c in counts.items()}) == _reference(analyzer, text, "en")
    assert names[max(counts, key=counts.get)] in {"a", "b"}  # the chunk of two terms, counted twice
    assert "the" not in term_id  # a stopword gets no id


def test_title_only_terms_under_title_weight_zero_leave_no_term_without_postings():
    from regrag import Index
    from regrag.corpus.model import Document, Section
    from regrag.index.parameters import IndexParameters

    documents = [Document(id="d1", title="Zanthor overview", text="Margins rose.",
                          sections=(Section(title="Zanthor overview", start=0, end=13),), metadata=(),
                          source="test", origin=None)]
    built = Index.from_documents(documents, parameters=IndexParameters(title_weight=0.0))
    assert sorted(built.inverted.postings) == ["margin", "rose"]
    assert all(len(built.inverted.postings[term].passages) == 1 for term in ("margin", "rose"))
