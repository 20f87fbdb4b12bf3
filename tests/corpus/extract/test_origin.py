"""The source map: locating spans, merging within a part, and the stored form read back exactly."""

from __future__ import annotations

import json

import pytest

from regrag.corpus.model import Document, Section
from regrag.corpus.origin import Location, Origin, Piece, origin_from_record

PIECES = (
    Piece(0, 2, "", 10, 12),            # "24" character by character
    Piece(2, 3, "", 12, 18),            # "&nbsp;" -> one character
    Piece(3, 8, "", 18, 23),            # "hours"
    Piece(10, 13, "page 1", 0, 0, ((1.0, 2.0, 3.0, 4.0), (3.0, 2.0, 5.0, 4.0), (5.0, 2.0, 7.0, 4.0))),
)
ORIGIN = Origin("html", "regrag.html", "1", "0" * 64, 100, PIECES)


def test_locate_maps_character_by_character_and_whole_references():
    assert ORIGIN.locate(0, 2) == (Location("", 10, 12),)
    assert ORIGIN.locate(1, 5) == (Location("", 11, 20),)  # one part: the pieces merged
    assert ORIGIN.locate(2, 3) == (Location("", 12, 18),)
    assert ORIGIN.locate(8, 10) == ()  # a separator regrag inserted: no place in the file
    assert ORIGIN.locate(4, 12) == (Location("", 19, 23), Location("page 1", 0, 0, PIECES[3].boxes[:2]))


def test_bounded_and_describe():
    place = ORIGIN.locate(10, 13)[0]
    assert place.bounded().boxes == ((1.0, 2.0, 7.0, 4.0),)
    assert place.describe("pdf") == "page 1, box (1, 2, 7, 4)"
    assert Location("", 5, 9).describe("html") == "characters 5-9 of the file"


def test_the_stored_form_reads_back_equal_and_is_part_of_the_hash():
    assert origin_from_record(json.loads(json.dumps(ORIGIN.canonical()))) == ORIGIN
    plain = Document("a.html", "A", "24\xa0hours", (Section("A", 0, 8),), (), "a.html")
    extracted = Document("a.html", "A", "24\xa0hours", (Section("A", 0, 8),), (), "a.html", ORIGIN)
    assert "origin" not in plain.canonical() and extracted.canonical()["origin"] == ORIGIN.canonical()
    assert plain.content_hash() != extracted.content_hash()
    with pytest.raises(TypeError):
        origin_from_record([])
