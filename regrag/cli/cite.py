"""``regrag cite PASSAGE_ID``: where in the original file a passage is.

For a document extracted from a PDF, DOCX, HTML or CSV file: the file's
SHA-256 and size, the extractor and its version, and the passage's places
in the file: character spans of the decoded file (HTML, CSV), XML paths and
character spans of their text (DOCX), pages with one bounding box per line
(PDF). For a Markdown or text file the passage span is already a span of
the file; for a JSONL or BEIR record, of the record's text. ``--json``
prints the same as canonical JSON (docs/corpus.md, "Citing the original").
"""

from __future__ import annotations

import argparse

from regrag.audit.canonical import canonical_json
from regrag.cli.options import add_index_options, load_index
from regrag.cli.status import ExitStatus
from regrag.corpus.model import Document, Passage
from regrag.corpus.origin import Location


def register(commands) -> None:
    cite = commands.add_parser("cite", help="where in the original file a passage is (page and boxes, XML path, span)")
    cite.add_argument("passage_id", metavar="PASSAGE_ID", help="a passage id from a hit, e.g. rules/fees.pdf#2")
    add_index_options(cite)
    cite.add_argument("--json", action="store_true", help="canonical JSON output")
    cite.set_defaults(handler=run_cite)


def run_cite(arguments: argparse.Namespace) -> int:
    index = load_index(arguments)
    passage = index.passage(index.position_of(arguments.passage_id))
    document = index.document(passage.document_id)
    record = citation(document, passage)
    if arguments.json:
        print(canonical_json(record))
        return ExitStatus.OK
    print(f"{record['passage_id']}  [{passage.start}:{passage.end}]  in {record['source']}")
    original = record["original"]
    if original is None:
        where = "the file's text" if document.source == document.id else "the record's text"
        print(f"  characters {passage.start}-{passage.end} of {where} (not an extracted document)")
        return ExitStatus.OK
    file = original["file"]
    print(f"  {file['format']} file, {file['file_bytes']:,} bytes, sha256 {file['file_sha256']}")
    print(f"  extracted by {file['extractor']} {file['extractor_version']}")
    for place in places(document, passage):
        print(f"  {place.describe(file['format'])}")
    return ExitStatus.OK


def citation(document: Document, passage: Passage) -> dict:
    """What ``cite`` prints, as data."""
    record = {"document_id": document.id, "passage_id": passage.id, "passage_span": [passage.start, passage.end],
              "source": document.source, "original": None}
    if document.origin is not None:
        record["original"] = {"file": document.origin.file_dict(),
                              "places": [place.to_dict() for place in places(document, passage)]}
    return record


def places(document: Document, passage: Passage) -> list[Location]:
    """The passage's places in its file: one per PDF line (its bounding box), else one per part."""
    return span_places(document, passage.start, passage.end)


def span_places(document: Document, start: int, end: int) -> list[Location]:
    """The places in its file of the span ``[start, end)`` of an extracted document's text."""
    origin = document.origin
    if origin is None:
        return []
    found: list[Location] = []
    for piece in origin.pieces:
        if piece.end <= start or piece.start >= end:
            continue
        for place in origin.locate(max(piece.start, start), min(piece.end, end)):
            place = place.bounded()
            if found and found[-1].part == place.part and not place.boxes:
                last = found[-1]
                found[-1] = Location(last.part, min(last.source_start, place.source_start),
                                     max(last.source_end, place.source_end))
            else:
                found.append(place)
    return found


def span_line(document: Document, start: int, end: int) -> str | None:
    """``in FILE: ...`` for a span of an extracted document (at most 3 places shown); None for other documents."""
    if document.origin is None:
        return None
    found = span_places(document, start, end)
    shown = "; ".join(place.describe(document.origin.format) for place in found[:3])
    more = f"; and {len(found) - 3} more place(s) (regrag cite)" if len(found) > 3 else ""
    return f"in {document.source}: {shown}{more}"


def original_line(hit) -> str:
    """One line for ``search``: where the first matches are in the original file."""
    original = hit.original
    file = dict(original.file)
    shown = []
    for match in original.matches[:3]:
        for place in match.locations[:1]:
            shown.append(f"{match.term!r} at {place.describe(file['format'])}")
    more = f"; {len(original.matches) - 3} more match(es)" if len(original.matches) > 3 else ""
    what = "; ".join(shown) if shown else "no match located"
    return f"in {hit.source} ({file['format']}, sha256 {file['file_sha256'][:12]}…): {what}{more}"
