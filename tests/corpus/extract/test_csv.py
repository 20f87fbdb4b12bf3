"""CSV extraction: header names as labels, one document per file or per row, spans into the file."""

from __future__ import annotations

import pytest

from regrag.corpus.extract import csv_rows
from regrag.corpus.load import load_corpus
from regrag.engine import Index
from regrag.errors import InputError
from regrag.limits import DEFAULT_LIMITS

TABLE = ('Service,Fee (VND),Note\r\nDomestic transfer,2200,"same day, ""express"""\r\n'
         'Card replacement,55000,\r\n\r\n"Late payment",150000,"first line\nsecond line"\r\n')


def test_one_document_per_file_with_header_labels():
    ((suffix, result),) = csv_rows.extract(TABLE.encode(), "fees.csv", "fees", DEFAULT_LIMITS)
    assert suffix == ""
    assert result.text == ('Service: Domestic transfer\nFee (VND): 2200\nNote: same day, "express"\n\n'
                           "Service: Card replacement\nFee (VND): 55000\n\n"
                           "Service: Late payment\nFee (VND): 150000\nNote: first line\nsecond line")
    for piece in result.pieces:
        value, source = result.text[piece.start:piece.end], TABLE[piece.source_start:piece.source_end]
        assert value == source or source == '"same day, ""express"""'


def test_one_document_per_row(tmp_path):
    (tmp_path / "fees.csv").write_bytes(TABLE.encode())
    corpus = load_corpus(tmp_path, csv_rows=True)
    assert [d.id for d in corpus.documents] == ["fees.csv/row-1", "fees.csv/row-2", "fees.csv/row-3"]
    assert corpus.documents[2].title == "fees › row 3" and corpus.documents[2].source == "fees.csv"
    hits = Index.from_documents(corpus.documents).search("late payment fee")
    assert hits[0].document_id == "fees.csv/row-3"
    for match in hits[0].to_dict()["original"]["matches"]:
        (place,) = match["locations"]
        assert TABLE[place["source"][0]:place["source"][1]].lower().startswith(match["term"][:3])


def test_a_header_only_file_is_one_empty_document(tmp_path):
    (tmp_path / "empty.csv").write_bytes(b"a,b\n")
    assert [d.id for d in load_corpus(tmp_path, csv_rows=True).documents] == ["empty.csv"]


def test_malformed_quotes_name_the_line(tmp_path):
    with pytest.raises(InputError, match=r"bad.csv:2: a quoted field is not closed"):
        csv_rows.extract(b'a,b\n1,"open\n\n', "bad.csv", "bad", DEFAULT_LIMITS)
    with pytest.raises(InputError, match=r"bad.csv:3: text after a closing quote"):
        csv_rows.extract(b'a,b\n1,2\n"x"y,3\n', "bad.csv", "bad", DEFAULT_LIMITS)
    with pytest.raises(InputError, match=r"bad.csv:2: invalid UTF-8"):
        csv_rows.extract(b"a,b\n\xff,1\n", "bad.csv", "bad", DEFAULT_LIMITS)
