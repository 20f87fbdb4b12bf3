"""Incremental updates: a new index equal, bit for bit, to a fresh build.

Only upserted documents are analysed; the others' postings are carried over
with their positions renumbered, and everything corpus-wide is recomputed by
``regrag.index.build.finish_index``, the code a fresh build uses.
"""

from __future__ import annotations

from array import array
from collections import Counter

from regrag.corpus.model import Document, Passage
from regrag.index.build import InvertedIndex, analyze_document, append_passages, checked_changes, finish_index
from regrag.limits import Limits


def update_index(
    index: InvertedIndex,
    upserts: list[Document] | tuple[Document, ...] = (),
    deletions: list[str] | tuple[str, ...] = (),
    limits: Limits | None = None,
) -> InvertedIndex:
    """A new index equal, bit for bit, to a fresh build of the index's
    documents with ``upserts`` added or replacing those with the same id and
    ``deletions`` removed. Only the upserted documents are analysed; the
    others' postings are carried over with their positions renumbered, and
    everything corpus-wide is recomputed by the same code as a fresh build.

    An index opened from a directory is updated as segments
    (``regrag.index.segment_update``: one new segment, deletions, global
    statistics recomputed) unless the merge policy merges it; merging, and
    any index built in memory, take the full path below."""
    from regrag.index.segment_update import segmented_update

    segmented = segmented_update(index, upserts, deletions, limits)
    if segmented is not None:
        return segmented
    return merged_update(index, upserts, deletions, limits)


def merged_update(
    index: InvertedIndex,
    upserts: list[Document] | tuple[Document, ...] = (),
    deletions: list[str] | tuple[str, ...] = (),
    limits: Limits | None = None,
) -> InvertedIndex:
    """``update_index`` as one segment without deletions (a merge): every
    kept posting carried over and renumbered, then ``finish_index``."""
    changed, removed = checked_changes(index, upserts, deletions, limits)
    keep = {key for key in index.documents if key not in removed and key not in changed}
    # An unchanged replacement keeps its recorded analysis.
    for document_id in sorted(changed):
        old = index.documents.get(document_id)
        if old is not None and old == changed[document_id]:
            keep.add(document_id)
            del changed[document_id]
    title_cache: dict[tuple[str, str], Counter] = {}
    fresh = {key: analyze_document(changed[key], index.analyzer, index.parameters, title_cache, limits)
             for key in sorted(changed)}

    old_ranges: dict[str, tuple[int, int]] = {}
    for position, passage in enumerate(index.passages):
        first, _last = old_ranges.get(passage.document_id, (position, position))
        old_ranges[passage.document_id] = (first, position + 1)
    documents: dict[str, Document] = {}
    document_languages: dict[str, str] = {}
    passages: list[Passage] = []
    passage_languages: list[str] = []
    lengths = array("d")
    renumbered = array("i", [-1]) * len(index.passages)
    additions: dict[str, list[tuple[int, float]]] = {}
    for document_id in sorted(keep | fresh.keys()):
        record = fresh.get(document_id)
        if record is None:
            documents[document_id] = index.documents[document_id]
            language = document_languages[document_id] = index.document_languages[document_id]
            first, end = old_ranges.get(document_id, (0, 0))
            for old_position in range(first, end):
                renumbered[old_position] = len(passages)
                passages.append(index.passages[old_position])
                passage_languages.append(language)
                lengths.append(index.lengths[old_position])
            continue
        documents[document_id] = record.document
        document_languages[document_id] = record.language
        for position, passage_terms, passage_frequencies in append_passages(record, passages, passage_languages, lengths):
            for term, frequency in zip(passage_terms, passage_frequencies):
                additions.setdefault(term, []).append((position, frequency))

    term_postings: dict[str, tuple[array, array]] = {}
    stored = getattr(index.postings, "positions_and_frequencies", None)  # a loaded index: no scores computed
    carried = stored() if stored else ((t, e.passages, e.frequencies) for t, e in index.postings.items())
    for term, kept_positions, kept_frequencies in carried:
        pairs = [(renumbered[p], f) for p, f in zip(kept_positions, kept_frequencies) if renumbered[p] >= 0]
        added = additions.pop(term, None)
        if added:
            pairs = sorted(pairs + added)  # renumbered kept positions are ascending; new ones interleave
        if pairs:
            term_postings[term] = (array("i", (p for p, _f in pairs)), array("d", (f for _p, f in pairs)))
    for term, added in additions.items():
        term_postings[term] = (array("i", (p for p, _f in added)), array("d", (f for _p, f in added)))
    known = {key: index.content_hashes[key] for key in keep if key in index.content_hashes}
    return finish_index(
        index.analyzer, index.parameters, documents, document_languages, passages, passage_languages, lengths,
        term_postings, None, known, limits,
    )


def changes_between(index: InvertedIndex, documents) -> tuple[list[Document], list[str]]:
    """What turns ``index``'s corpus into ``documents``
    (``regrag.corpus.changes.corpus_changes``), where a stored document whose
    content hash is the new document's is unchanged without being parsed (the
    hash covers every field); any other is parsed and compared, so the answer
    is that of comparing every document."""
    from regrag.corpus.changes import corpus_changes

    stored = getattr(index.passages, "stored", None)
    if stored is None:
        return corpus_changes(index.documents, documents)

    def unchanged(document: Document) -> bool:
        number = stored.number(document.id)
        return number is not None and stored.content_hash(number) == document.content_hash()

    return corpus_changes(index.documents, documents, unchanged)
