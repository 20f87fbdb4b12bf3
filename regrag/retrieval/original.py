"""Where a hit on an extracted document is in the original file.

A hit's offsets index the extracted text; for a document read from a PDF,
DOCX, HTML or CSV file its ``Origin`` maps them back into the file, so the
hit can say which bytes (HTML, CSV), which XML element (DOCX) or which page
and character boxes (PDF) hold the passage and every matched term
(docs/corpus.md, "Extracted formats").
"""

from __future__ import annotations

from regrag.corpus.model import Passage
from regrag.corpus.origin import Origin
from regrag.provenance import MatchPlaces, OriginalPlaces, TermMatch


def original_places(origin: Origin, passage: Passage, matches: tuple[TermMatch, ...]) -> OriginalPlaces:
    """The file, the passage's first and last location (a PDF page's boxes
    as their one bounding box), and each match's locations."""
    passage_places = origin.locate(passage.start, passage.end)
    ends = tuple(place.bounded() for place in
                 (passage_places if len(passage_places) <= 2 else (passage_places[0], passage_places[-1])))
    places = tuple(
        MatchPlaces(match.term, span, origin.locate(span[0], span[1]))
        for match in matches for span in match.offsets
    )
    return OriginalPlaces(tuple(sorted(origin.file_dict().items())), ends, places)

