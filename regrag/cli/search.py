"""``regrag search QUERY``: ranked passages with snippets, or canonical JSON.

Also the lines ``ask`` prints the same way: the index header, the entity
step and the note on entity names the metadata holds but matching ignores.
"""

from __future__ import annotations

import argparse
import sys

from regrag.cli.batch_search import add_topics_options, check_single_query, run_batch_search
from regrag.cli.cite import original_line
from regrag.cli.ledger import append_call
from regrag.cli.options import add_index_options, add_search_options, add_synonyms_option, load_index, synonyms_of
from regrag.cli.status import ExitStatus
from regrag.engine import Index
from regrag.errors import InputError
from regrag.retrieval.methods import VECTOR_METHODS
from regrag.retrieval.options import SearchOptions

SNIPPET_CHARS = 240


def register(commands) -> None:
    search = commands.add_parser("search", help="rank passages for a query")
    search.add_argument("query", nargs="?", default=None, help="the query (or --topics FILE)")
    add_index_options(search)
    add_search_options(search, 10)
    add_synonyms_option(search, "none")
    add_topics_options(search)  # batch search, on Spark with --spark (docs/distributed.md)
    search.set_defaults(handler=run_search)


def run_search(arguments: argparse.Namespace) -> int:
    if arguments.topics is not None:
        return run_batch_search(arguments)
    check_single_query(arguments)
    if arguments.method in VECTOR_METHODS:  # over stored vectors (docs/dense.md)
        from regrag.cli.dense_search import run_dense_search

        if getattr(arguments, "synonyms", "none") != "none":
            raise InputError(f"--synonyms expands the lexical query; --method {arguments.method} ranks by vectors")
        return run_dense_search(arguments, _print_hits)
    synonyms = synonyms_of(arguments)  # a bad file is reported before the index is loaded
    index = load_index(arguments)
    note_rejected_names(index, not arguments.no_entities)
    options = SearchOptions(arguments.k, arguments.method, arguments.filter, arguments.rrf_depth,
                            not arguments.no_entities, arguments.exhaustive, synonyms=synonyms)
    hits = index.search(arguments.query, options=options)
    if arguments.ledger:
        append_call(arguments, index, "search", hits)
    if arguments.json:
        for hit in hits:
            print(hit.to_json())
        return ExitStatus.OK
    print(header(index) + f"  ·  method {arguments.method}")
    print_entity_step(hits)
    print_synonym_step(hits)
    if not hits:
        print("no passage matches the query")
        return ExitStatus.OK
    _print_hits(index, hits)
    return ExitStatus.OK


def header(index: Index) -> str:
    return (f"index {index.index_id[:16]}  ·  {index.document_count} documents  ·  "
            f"{index.passage_count} passages  ·  analyzer {index.analyzer.name}")


def print_entity_step(hits) -> None:
    """The entity step's line (docs/entities.md), when the query named an entity."""
    if hits and hits[0].entities is not None:
        print(_entity_line(hits[0].entities))


def print_synonym_step(hits) -> None:
    """The synonym step's line (docs/synonyms.md), when synonyms were applied."""
    if hits and hits[0].synonyms is not None:
        expansion = hits[0].synonyms
        steps = "; ".join(f"{s.matched} (line {s.line}) +{' +'.join(s.added) or '-'}"
                          + (f" -{' -'.join(s.removed)}" if s.removed else "") for s in expansion.steps)
        print(f"synonyms: {expansion.name} sha256 {expansion.sha256[:16]}: {steps or 'no rule matched'}")


def _entity_line(step) -> str:
    names = ", ".join(f"{m.name!r} ({m.field})" for m in step.matches)
    if step.applied:
        return f"entities: {names} -> searched only {', '.join(step.documents)} (--no-entities to switch off)"
    return f"entities: {names} named, but none of their passages matches; searched everything"


def note_rejected_names(index: Index, entities: bool) -> None:
    """A note on standard error for the corpus metadata values not used as entity names."""
    rejected = index.entity_catalog.rejected if entities else ()
    if rejected:
        shown = "; ".join(f"{r.name!r} ({r.document_id} {r.field}: {r.reason})" for r in rejected[:3])
        more = f"; and {len(rejected) - 3} more" if len(rejected) > 3 else ""
        print(f"regrag: note: {len(rejected)} entity name(s) in the metadata not used (docs/entities.md): {shown}{more}",
              file=sys.stderr)


def _print_hits(index: Index, hits) -> None:
    for hit in hits:
        document = index.document(hit.document_id)
        offsets = [span for match in hit.matches for span in match.offsets]
        print(f"{hit.rank:>3}  {hit.score:.6f}  {hit.passage_id}  [{hit.passage_span[0]}:{hit.passage_span[1]}]")
        print(f"     {hit.section_title}")
        print(f"     {_snippet(document.text, hit.passage_span[0], hit.passage_span[1], offsets)}")
        if hit.original is not None:  # an extracted document (issue 18): where the matches are in the file
            print(f"     {original_line(hit)}")


def _snippet(text: str, start: int, end: int, offsets: list[tuple[int, int]]) -> str:
    """The passage around its first match, matched terms in [brackets], on one line."""
    first = min((s for s, _e in offsets), default=start)
    window_start = max(start, first - SNIPPET_CHARS // 3)
    window_end = min(end, window_start + SNIPPET_CHARS)
    pieces = []
    cursor = window_start
    for s, e in sorted(offsets):
        if s < cursor or e > window_end:
            continue
        pieces.append(text[cursor:s])
        pieces.append(f"[{text[s:e]}]")
        cursor = e
    pieces.append(text[cursor:window_end])
    snippet = " ".join("".join(pieces).split())
    prefix = "…" if window_start > start else ""
    suffix = "…" if window_end < end else ""
    return f"{prefix}{snippet}{suffix}"
