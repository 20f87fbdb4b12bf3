"""The sample corpora: labels consistent with the documents; answers verbatim and cited."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from regrag import Index
from regrag.eval.run import load_labelled_set

CORPORA = Path(__file__).resolve().parents[1] / "corpora"
NAMES = ["product-manuals", "regulations", "vn-stock-news"]
NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")


@pytest.fixture(scope="module", params=NAMES)
def corpus(request):
    labelled = load_labelled_set(CORPORA / request.param)
    return request.param, labelled, Index.from_path(labelled.corpus_path)


def test_readme_marks_the_corpus_fictional(corpus):
    name, _labelled, _index = corpus
    readme = (CORPORA / name / "README.md").read_text(encoding="utf-8").lower()
    assert "fictional" in readme


def test_labels_are_consistent(corpus):
    _name, labelled, index = corpus
    passages = {p.id: p for p in index.inverted.passages}
    assert len(labelled.unanswerable) >= 10
    assert len(labelled.qrels) >= 30
    # without pdfminer.six a folder's PDF is listed as not indexed; its labels are then not checked here
    not_indexed = {path for path, _why in index.skipped}
    for query_id, judged in labelled.qrels.items():
        assert query_id not in labelled.unanswerable
        judged = {p: v for p, v in judged.items() if p.split("#")[0] not in not_indexed}
        if not judged:
            continue
        for passage_id in judged:
            assert passage_id in passages, (query_id, passage_id)
        # the reference answer is in one of the relevant passages
        for reference in labelled.references.get(query_id, ()):
            texts = [index.document(passages[p].document_id).text[passages[p].start : passages[p].end] for p in judged]
            assert any(reference in text for text in texts), (query_id, reference)


def test_every_number_of_every_answer_is_verbatim_from_its_citation(corpus):
    _name, labelled, index = corpus
    checked = 0
    for query_id, question in labelled.queries.items():
        answer = index.ask(question, threshold=0.0)
        for sentence in answer.sentences:
            text = index.document(sentence.document_id).text
            start, end = sentence.span
            cited = text[start:end]
            assert cited == sentence.text
            for number in NUMBER.findall(sentence.text):
                assert number in cited
                checked += 1
            # never cut inside a number
            assert not (start > 0 and text[start - 1].isdigit() and text[start].isdigit())
            assert not (end < len(text) and text[end - 1].isdigit() and text[end].isdigit())
    assert checked > 50
