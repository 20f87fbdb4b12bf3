"""The executors read a streamed corpus themselves (``regrag.distributed.corpus_splits``): the
splits cover every document once, in id order, read back as the loader's documents; a file
changed after the driver's scan is refused; a corpus that is not streamed is not split."""

from __future__ import annotations

import pytest

from regrag.corpus.load import load_corpus
from regrag.corpus.stream import stream_corpus
from regrag.distributed.corpus_splits import corpus_splits, split_documents
from regrag.io.identity import SourceChangedError
from tests.distributed.spark_fixtures import corpus_documents, write_jsonl


def test_splits_read_back_the_loaders_documents(tmp_path):
    documents = corpus_documents()[0][:120]
    corpus = write_jsonl(documents[::-1], tmp_path / "corpus.jsonl")
    streamed = stream_corpus(corpus, max_chars=4000).documents
    expected = load_corpus(corpus).documents
    for count in (1, 3, 7, 500):
        splits = corpus_splits(streamed, count)
        assert len(splits) == min(count, len(expected))
        assert [document for split in splits for document in split_documents(split)] == list(expected)
    assert corpus_splits(list(expected), 3) is None  # loaded documents: the driver hands them over


def test_a_file_changed_after_the_scan_is_refused(tmp_path):
    corpus = write_jsonl(corpus_documents()[0][:20], tmp_path / "corpus.jsonl")
    splits = corpus_splits(stream_corpus(corpus, max_chars=4000).documents, 2)
    with open(corpus, "a", encoding="utf-8") as handle:
        handle.write('{"_id": "zzz", "title": "", "text": "late"}\n')
    with pytest.raises(SourceChangedError):
        list(split_documents(splits[0]))
    corpus.unlink()
    with pytest.raises(SourceChangedError, match="storage every executor reads"):
        list(split_documents(splits[1]))
