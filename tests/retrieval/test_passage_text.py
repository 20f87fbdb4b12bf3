"""``Index.passage_text``: the passage span of its document's text, verbatim,
the same from an index built in memory and from one opened from disk."""

from __future__ import annotations

import pytest

from regrag import Index, InputError


def test_passage_text_is_the_span_of_the_document_text(default_index):
    hits = default_index.search("annual fee credit card", k=5)
    assert hits
    for hit in hits:
        start, end = hit.passage_span
        text = default_index.passage_text(hit.passage_id)
        assert text == default_index.document(hit.document_id).text[start:end]
        assert len(text) == end - start > 0
        for match in hit.matches:  # the term offsets index the document text inside this span
            for match_start, match_end in match.offsets:
                assert start <= match_start < match_end <= end


def test_passage_text_of_a_loaded_index_equals_the_built_one(default_index, tmp_path):
    default_index.save(tmp_path / "index")
    opened = Index.open(tmp_path / "index")
    for position in range(0, default_index.passage_count, 7):
        passage_id = default_index.passage_id(position)
        assert opened.passage_text(passage_id) == default_index.passage_text(passage_id)


@pytest.mark.parametrize("passage_id", ["missing.md#1", "guide", "", 3])
def test_an_unknown_passage_id_is_an_input_error(default_index, passage_id):
    with pytest.raises(InputError, match="passage"):
        default_index.passage_text(passage_id)
