"""Format regrag-index/3 stores no BM25 impact and no TF-IDF weight: a loaded
index computes them for a term when it is first read. Every posting of a
loaded index must hold exactly the bits of the index it was saved from:
positions, frequencies, impacts, weights and IDFs, for every term, memory
mapped or not, whatever the parameters (title weights below 1 give
frequencies below 1, which take TF-IDF's other branch)."""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrag import Index
from regrag.corpus.load import load_corpus
from regrag.index import frequency_codes
from regrag.index.parameters import IndexParameters
from tests.strategies import corpora

SAMPLES = Path(__file__).resolve().parents[2] / "regrag" / "data" / "default_corpus"


def _bits(values) -> bytes:
    return b"".join(struct.pack("<d", float(value)) for value in values)


def _posting_bits(index: Index) -> dict[str, tuple]:
    postings = index.inverted.postings
    return {
        term: (
            list(entry.passages),
            _bits(entry.frequencies),
            _bits(entry.bm25_impacts),
            _bits(entry.tfidf_weights),
            _bits((entry.bm25_idf, entry.tfidf_idf)),
        )
        for term in sorted(postings)
        for entry in (postings[term],)
    }


def _check_every_posting(built: Index) -> None:
    expected = _posting_bits(built)
    with tempfile.TemporaryDirectory() as directory:
        built.save(directory)
        for memory_map in (True, False):
            opened = Index.open(directory, memory_map=memory_map)
            assert _posting_bits(opened) == expected
            stored = Path(directory, "generations", "000001")
            assert not (stored / "bm25_impacts.f64").exists() and not (stored / "tfidf_weights.f64").exists()


@pytest.mark.parametrize("title_weight", [0.0, 0.5, 1.0, 2.5])
def test_every_posting_of_the_sample_corpus_is_the_built_bits(title_weight):
    documents = list(load_corpus(SAMPLES).documents)
    _check_every_posting(Index.from_documents(documents, parameters=IndexParameters(title_weight=title_weight)))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(min_size=1, max_size=6), st.sampled_from([0.0, 0.3, 1.0, 3.0]), st.sampled_from([0.0, 0.75, 1.0]))
def test_every_posting_of_random_corpora_is_the_built_bits(documents, title_weight, b):
    built = Index.from_documents(documents, parameters=IndexParameters(title_weight=title_weight, b=b))
    if built.passage_count:
        _check_every_posting(built)


def test_code_width_follows_the_table_size():
    assert [frequency_codes.code_width(n) for n in (1, 256, 257, 65536, 65537)] == [1, 1, 2, 2, 4]


def test_frequencies_are_stored_once_with_one_byte_codes():
    documents = list(load_corpus(SAMPLES).documents)
    built = Index.from_documents(documents)
    with tempfile.TemporaryDirectory() as directory:
        built.save(directory)
        stored = Path(directory, "generations", "000001")
        postings = sum(len(built.inverted.postings[t].passages) for t in built.inverted.postings)
        values = (stored / frequency_codes.VALUES).stat().st_size // 8
        assert values <= 256
        assert (stored / frequency_codes.CODES).stat().st_size == postings
