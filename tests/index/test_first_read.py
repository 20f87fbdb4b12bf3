"""A term's first read from a loaded index (docs/index-format.md, "A term's
first read"): with numpy imported, long terms are decoded and gathered by
numpy; without it, by the plain loops; the block heads of the vocabulary's
binary search are kept. Every path must give the built index's bits, and
the lookups the same numbers, before and after the heads are cached."""

from __future__ import annotations

import random
import sys
import tempfile

import pytest

from regrag import Index
from regrag.errors import CorruptIndexError
from regrag.index import position_codes
from regrag.index.parameters import IndexParameters
from tests.index.test_lazy_scores import _posting_bits
from tests.strategies import make_document

numpy = pytest.importorskip("numpy")


def _documents(count: int = 700) -> list:
    """Common words (postings far beyond the 256 where numpy takes over),
    with gaps of every width, and rare ones."""
    rng = random.Random("first-read")
    common = [f"common{n}" for n in range(6)]
    documents = []
    for number in range(count):
        words = [rng.choice(common) for _ in range(rng.randint(1, 12))]
        words += [f"rare{rng.randint(0, 9000)}" for _ in range(rng.randint(0, 8))]
        if number % 300 == 0:
            words.append("sparse")  # gaps of 300 passages: two bytes
        documents.append(make_document(f"d{number:05d}", " ".join(words), title=rng.choice(common + [""])))
    return documents


@pytest.mark.parametrize("title_weight", [1.0, 0.5, 2.5])
def test_every_posting_is_the_built_bits_with_and_without_numpy(monkeypatch, title_weight):
    built = Index.from_documents(_documents(), parameters=IndexParameters(title_weight=title_weight))
    expected = _posting_bits(built)
    assert max(len(built.inverted.postings[term].passages) for term in expected) >= 256
    with tempfile.TemporaryDirectory() as directory:
        built.save(directory)
        assert _posting_bits(Index.open(directory)) == expected  # numpy imported (this module did)
        with monkeypatch.context() as hidden:
            hidden.delitem(sys.modules, "numpy")
            assert _posting_bits(Index.open(directory)) == expected


def test_lookups_are_the_same_before_and_after_the_heads_are_kept():
    built = Index.from_documents(_documents(400))
    with tempfile.TemporaryDirectory() as directory:
        built.save(directory)
        terms = Index.open(directory).inverted.postings._terms
        vocabulary = list(terms)
        assert vocabulary == sorted(vocabulary) and len(vocabulary) > 16 * 64
        for _ in range(2):  # cold heads, then kept ones
            assert [terms.number(term) for term in vocabulary] == list(range(len(vocabulary)))
            assert [terms.number(term + "\x00") for term in vocabulary[::97]] == [None] * len(vocabulary[::97])
            assert terms.number("") is None and terms.number("\U0010ffff") is None
        assert 0 < len(terms._heads) < 4096


@pytest.mark.parametrize("width", [1, 2, 4])
def test_numpy_decoding_is_the_plain_decoding(monkeypatch, width):
    rng = random.Random(width)
    limit = (1 << (8 * width)) - 1 if width < 4 else (1 << 31) // 400
    positions = sorted(rng.sample(range(limit * 2 if width < 4 else limit * 300), 300))
    code, data = position_codes.encode_term(positions)
    decoded = position_codes.decode_term(data, code, len(positions), position_codes.Path("p"))
    with monkeypatch.context() as hidden:
        hidden.delitem(sys.modules, "numpy")
        plain = position_codes.decode_term(data, code, len(positions), position_codes.Path("p"))
    assert decoded.typecode == plain.typecode == "i" and list(decoded) == list(plain) == positions


def test_numpy_decoding_refuses_positions_beyond_int32(monkeypatch):
    data = b"\xff\xff\xff\xff" * 300  # every gap 2^32 - 1
    with pytest.raises(CorruptIndexError, match="out of range"):
        position_codes.decode_term(data, 4, 300, position_codes.Path("p"))
    with monkeypatch.context() as hidden:
        hidden.delitem(sys.modules, "numpy")
        with pytest.raises(CorruptIndexError, match="out of range"):
            position_codes.decode_term(data, 4, 300, position_codes.Path("p"))
