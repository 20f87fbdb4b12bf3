"""Command line: ``python -m regrag search|ask|explain|eval|index|verify|prove|verify-proof|golden|ledger``.

Exit status: 0 on success; 1 when ``ask`` finds no answer or a check
(``verify``, ``verify-proof``, ``golden verify``, ``ledger verify|replay``)
fails; 2 on bad usage or bad input, with a one-line message on standard error
naming what is wrong.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from regrag.audit.canonical import canonical_json
from regrag.answer.confidence import REFUSAL_THRESHOLD
from regrag.engine import DEFAULT_CORPUS, DEFAULT_RRF_DEPTH, METHODS, Index
from regrag.errors import InputError, RegragError
from regrag.index.parameters import IndexParameters
from regrag.pipeline.options import ask_defaults, check_with_pipeline, check_without_pipeline
from regrag.limits import DEFAULT_LIMITS, check_search_depth
from regrag.text.analyzer import ANALYZER_NAMES

SNIPPET_CHARS = 240


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


_BUILD_OPTIONS = ("analyzer", "k1", "b", "title_weight", "max_passage_chars")


def _index_options(parser: argparse.ArgumentParser, corpus: bool = True, stored: bool = True) -> None:
    if corpus:
        parser.add_argument("--corpus", default=None,
                            help="folder of .md/.txt files, a .jsonl file or a BEIR folder (default: the bundled corpus)")
        _corpus_loading_options(parser)
    if stored:
        parser.add_argument("--index", metavar="DIR", default=None,
                            help="an index directory written by 'regrag index' (instead of --corpus)")
        parser.add_argument("--generation", type=int, default=None, metavar="N",
                            help="with --index: use generation N instead of the current one")
        parser.add_argument("--as-of", default=None, metavar="TIME",
                            help="with --index: the generation current at TIME (ISO 8601, e.g. 2026-11-30T10:00:00Z)")
    _build_options(parser)


def _build_options(parser: argparse.ArgumentParser) -> None:
    defaults = IndexParameters()
    parser.add_argument("--analyzer", choices=ANALYZER_NAMES, default=None, help="text analyzer (default: auto)")
    parser.add_argument("--k1", type=float, default=None, help=f"BM25 k1 (default {defaults.k1})")
    parser.add_argument("--b", type=float, default=None, help=f"BM25 b (default {defaults.b})")
    parser.add_argument("--title-weight", type=float, default=None,
                        help=f"weight of section titles (default {defaults.title_weight})")
    parser.add_argument("--max-passage-chars", type=int, default=None,
                        help=f"longest passage in characters (default {defaults.max_passage_chars})")


def _corpus_loading_options(parser: argparse.ArgumentParser) -> None:
    """How a corpus is read (docs/corpus.md, "Hostile input and limits")."""
    parser.add_argument("--allow-symlinks-outside", action="store_true",
                        help="follow symbolic links whose target is outside the corpus folder (refused by default)")
    parser.add_argument("--errors", choices=("raise", "collect"), default=None,
                        help="raise: any bad file or line stops the load, nothing is indexed (default); "
                             "collect: index the rest and print every rejected input as a warning")


def _capped_int(field: str):
    """argparse type for ``-k`` / ``--rrf-depth``: an integer, refused at
    once (``LimitError``, exit 2) beyond ``DEFAULT_LIMITS``' cap ``field``,
    before any index is loaded. Whether it is positive is checked by search."""
    def parse(text: str) -> int:
        value = int(text)
        check_search_depth(value if field == "k" else 1, value if field == "rrf_depth" else None)
        return value
    parse.__name__ = "int"  # argparse names the type in "invalid int value"
    return parse


def _search_options(parser: argparse.ArgumentParser, default_k: int) -> None:
    parser.add_argument("-k", type=_capped_int("k"), default=default_k,
                        help=f"number of results (default {default_k}, at most {DEFAULT_LIMITS.k:,})")
    parser.add_argument("--method", choices=METHODS, default="hybrid", help="retriever (default: hybrid)")
    parser.add_argument("--filter", action="append", default=[], metavar="KEY=VALUE",
                        help="metadata filter: key=value, key>=YYYY-MM-DD, key<=..., key>..., key<...; repeatable")
    parser.add_argument("--rrf-depth", type=_capped_int("rrf_depth"), default=DEFAULT_RRF_DEPTH,
                        help=f"depth of each list fused by hybrid (default {DEFAULT_RRF_DEPTH}, at least k, "
                             f"at most {DEFAULT_LIMITS.rrf_depth:,})")
    parser.add_argument("--no-entities", action="store_true",
                        help="do not restrict to the issuer/product/ticker a query names (docs/entities.md)")
    parser.add_argument("--json", action="store_true", help="canonical JSON output")
    parser.add_argument("--exhaustive", action="store_true",
                        help="score every posting (no rank-safe pruning; the results are identical, docs/performance.md)")
    parser.add_argument("--ledger", metavar="FILE", default=None,
                        help="append a tamper-evident record of this call to FILE (docs/ledger.md)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="regrag", description="Deterministic, audit-grade retrieval with provenance.")
    parser.add_argument("--version", action="version", version=_version_line())
    commands = parser.add_subparsers(dest="command", required=False, parser_class=_Parser)  # none: usage and a hint

    search = commands.add_parser("search", help="rank passages for a query")
    search.add_argument("query")
    _index_options(search)
    _search_options(search, 10)

    ask = commands.add_parser("ask", help="answer a question with cited sentences")
    ask.add_argument("question")
    _index_options(ask)
    _search_options(ask, 5)
    ask.add_argument("--max-sentences", type=int, default=3, help="most sentences in the answer (default 3)")
    ask.add_argument("--threshold", type=float, default=None,
                     help=f"refuse below this confidence (default {REFUSAL_THRESHOLD})")
    pipeline = ask.add_argument_group("stock-news pipeline (docs/stock-news.md)")
    pipeline.add_argument("--pipeline", choices=("stock-news",), default=None,
                          help="dense recall, BM25 re-ranking and cited generation instead of the extractive answer")
    pipeline.add_argument("--mode", choices=("rerank", "rrf", "dense", "lexical"), default="rerank",
                          help="rerank: dense top-k re-ranked by BM25 (the paper's design, default); rrf; dense; lexical")
    pipeline.add_argument("--dense-k", type=int, default=20, help="dense candidates (default 20)")
    pipeline.add_argument("--embedder", default="sentence-transformers/LaBSE",
                          help="sentence-transformers model name or local folder, or 'packaged-minilm' "
                               "(default sentence-transformers/LaBSE)")
    pipeline.add_argument("--vector-index", choices=("exact", "faiss", "faiss-hnsw"), default="exact",
                          help="exact (standard library, default), faiss (IndexFlatL2), faiss-hnsw (approximate)")
    pipeline.add_argument("--generator", choices=("extractive", "gemini", "openai"), default="extractive",
                          help="extractive (offline, default), gemini (GEMINI_API_KEY), openai (any compatible server)")
    pipeline.add_argument("--llm-model", default=None, help="generator model (gemini default: gemini-1.5-flash)")
    pipeline.add_argument("--llm-base-url", default=None, help="generator API base URL")
    pipeline.add_argument("--template", default="stock-news.v1", help="prompt template name or .txt path")
    pipeline.add_argument("--segmentation", choices=("syllables", "syllable-pairs"), default="syllables",
                          help="preprocessing segmentation (default syllables)")
    pipeline.add_argument("--unsupported", choices=("mark", "refuse", "allow"), default="mark",
                          help="an answer with a figure not in its cited passages: mark it (default), refuse it, or allow it")
    ask.set_defaults(**ask_defaults(DEFAULT_RRF_DEPTH))  # defaults marked as not given: options the path cannot honour are refused

    explain = commands.add_parser("explain", help="per-term score breakdown of one passage")
    explain.add_argument("query")
    explain.add_argument("passage_id", help="passage id as printed by search, e.g. 'guide.md#2'")
    _index_options(explain)
    explain.add_argument("--json", action="store_true", help="canonical JSON output")

    evaluate = commands.add_parser("eval", help="evaluate on a labelled folder (BEIR layout; trec_eval conventions)")
    evaluate.add_argument("--beir", required=True, metavar="DIR",
                          help="BEIR folder (corpus.jsonl or documents/, queries.jsonl, qrels/, optional answers.jsonl)")
    evaluate.add_argument("--method", choices=METHODS + ("all",), default="all",
                          help="retriever, or all three side by side (default: all)")
    evaluate.add_argument("--split", default="test", help="qrels split (default: test)")
    evaluate.add_argument("--depth", type=int, default=1000, help="results ranked per query (default 1000)")
    evaluate.add_argument("--run-file", help="write the run in TREC format (needs a single --method)")
    evaluate.add_argument("--per-query", action="store_true", help="also show each query's first relevant rank per method")
    evaluate.add_argument("--no-answers", action="store_true", help="skip answer metrics even if answers.jsonl exists")
    _index_options(evaluate, corpus=False)
    evaluate.add_argument("--json", action="store_true", help="canonical JSON output")

    index = commands.add_parser("index", help="build an index directory, or update it (--update)")
    index.add_argument("corpus", help="folder of .md/.txt files, a .jsonl file or a BEIR folder")
    index.add_argument("--out", required=True, metavar="DIR", help="index directory (created if needed)")
    index.add_argument("--update", action="store_true",
                       help="add, replace and delete only the documents that changed since the current generation")
    index.add_argument("--keep", type=int, default=None, metavar="N",
                       help="retain only the newest N generations (default: keep all); prints what it pruned")
    index.add_argument("--ledger", action="append", default=None, metavar="FILE",
                       help="with --keep: never prune a generation the records of this ledger replay against (repeatable)")
    index.add_argument("--allow-deletions", action="store_true",
                       help="with --update: allow deleting more than half of the documents (refused by default)")
    index.add_argument("--allow-clock-skew", action="store_true",
                       help="publish even if the clock is more than an hour behind the newest generation's stamp")
    _corpus_loading_options(index)
    index.add_argument("--allow-empty", action="store_true",
                       help="publish even when the corpus has no document (refused by default, exit 2)")
    _build_options(index)

    verify = commands.add_parser("verify", help="check an index directory (exit 0 intact, 1 damaged)")
    verify.add_argument("directory", metavar="DIR")
    verify.add_argument("--generation", type=int, default=None, metavar="N", help="check only generation N")
    verify.add_argument("--quick", action="store_true",
                        help="check sizes and hashes only (what loading does), not a full re-index of the stored documents")

    prove = commands.add_parser("prove", help="Merkle inclusion proof that a document belongs to the indexed corpus")
    prove.add_argument("directory", metavar="DIR")
    prove.add_argument("document_id")
    prove.add_argument("--generation", type=int, default=None, metavar="N")

    verify_proof = commands.add_parser("verify-proof", help="check an inclusion proof without the index (exit 0 valid, 1 not)")
    verify_proof.add_argument("proof", metavar="FILE", help="a proof printed by 'regrag prove' ('-' for standard input)")
    verify_proof.add_argument("--root", default=None, help="the corpus root the proof must lead to (e.g. from a provenance record)")

    golden = commands.add_parser("golden", help="record rankings once, verify them forever (docs/golden.md)")
    golden_commands = golden.add_subparsers(dest="golden_command", required=True, parser_class=_Parser)
    record = golden_commands.add_parser("record", help="write the canonical rankings of a query set")
    record.add_argument("queries", help="a BEIR queries.jsonl (one {\"_id\", \"text\"} object per line), a BEIR folder, "
                                        "or a .txt file of one query per line (ids from the text's hash; docs/golden.md)")
    record.add_argument("--out", required=True, metavar="FILE")
    record.add_argument("--method", choices=METHODS + ("all",), default="all", help="retriever, or all three (default)")
    record.add_argument("-k", type=int, default=10, help="results per query (default 10)")
    _index_options(record)
    check = golden_commands.add_parser("verify", help="re-run a golden file (exit 0 identical, 1 changed)")
    check.add_argument("golden_file", metavar="FILE")
    _index_options(check)

    ledger = commands.add_parser("ledger", help="check or replay a ledger written with --ledger (docs/ledger.md)")
    ledger_commands = ledger.add_subparsers(dest="ledger_command", required=True, parser_class=_Parser)
    ledger_verify = ledger_commands.add_parser("verify", help="check the hash chain (exit 0 intact, 1 broken)")
    ledger_verify.add_argument("ledger_file", metavar="FILE")
    replay = ledger_commands.add_parser("replay", help="re-run every record against its generation (exit 0 identical, 1 not)")
    replay.add_argument("ledger_file", metavar="FILE")
    replay.add_argument("--index", required=True, metavar="DIR", help="the index directory the records were made with")
    _add_quiet(parser)
    return parser


def _version_line() -> str:
    from regrag._version import __version__

    return f"regrag {__version__} (Python {sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro})"


def _add_quiet(parser: argparse.ArgumentParser) -> None:
    """``--quiet`` before or after the command, on every (sub)command: no progress line (docs/cli.md)."""
    parser.add_argument("--quiet", "-q", action="store_true", default=False,
                        help="no progress line on standard error (it is shown only when standard error is a terminal)")
    for action in parser._actions:  # argparse keeps subcommands here; there is no public accessor
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                _add_quiet_after_command(subparser)


def _add_quiet_after_command(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: when not given after the command, the top-level value is kept
    parser.add_argument("--quiet", "-q", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                _add_quiet_after_command(subparser)


def _no_command(parser: argparse.ArgumentParser) -> int:
    """A bare ``regrag``: the usage and where to look, on standard error."""
    sys.stderr.write(parser.format_usage())
    print("regrag: error: a command is required; 'regrag --help' lists the commands, "
          "'regrag COMMAND --help' shows one command's options", file=sys.stderr)
    return 2


def _progress(arguments: argparse.Namespace, label: str = "indexing", unit: str = "documents",
              finishing: str = "building the postings"):
    """A progress line on standard error (``regrag.progress``): drawn only on a terminal, never with --quiet."""
    from regrag.progress import Progress

    return Progress(label, unit, stream=sys.stderr, enabled=not getattr(arguments, "quiet", False), finishing=finishing)


def _staged_progress(arguments: argparse.Namespace):
    from regrag.progress import StagedProgress

    return StagedProgress(stream=sys.stderr, enabled=not getattr(arguments, "quiet", False))


def _parameters(arguments: argparse.Namespace) -> IndexParameters:
    defaults = IndexParameters()
    chosen = {name: getattr(arguments, name) for name in ("k1", "b", "title_weight", "max_passage_chars")}
    return IndexParameters(**{name: getattr(defaults, name) if value is None else value for name, value in chosen.items()})


def _analyzer(arguments: argparse.Namespace) -> str:
    return arguments.analyzer or "auto"


def _stored(arguments: argparse.Namespace) -> Index | None:
    """The index named by ``--index`` (with ``--generation``/``--as-of``), or None."""
    directory = getattr(arguments, "index", None)
    generation, as_of = getattr(arguments, "generation", None), getattr(arguments, "as_of", None)
    if directory is None:
        if generation is not None or as_of is not None:
            raise InputError("--generation and --as-of need --index DIR")
        return None
    if getattr(arguments, "corpus", None) is not None:
        raise InputError("give --corpus or --index, not both")
    given = [f"--{name.replace('_', '-')}" for name in _BUILD_OPTIONS if getattr(arguments, name, None) is not None]
    if given:
        raise InputError(f"{', '.join(given)} cannot be combined with --index: a stored index keeps the analyzer "
                         "and parameters it was built with")
    return Index.open(directory, generation=generation, as_of=as_of)


def _load(arguments: argparse.Namespace) -> Index:
    return _load_index(arguments)


def _load_index(arguments: argparse.Namespace) -> Index:
    stored = _stored(arguments)
    if stored is not None:
        if getattr(arguments, "allow_symlinks_outside", False) or getattr(arguments, "errors", None) is not None:
            raise InputError("--allow-symlinks-outside and --errors apply to --corpus, not to --index")
        return stored
    corpus = _load_corpus(arguments, arguments.corpus if arguments.corpus is not None else str(DEFAULT_CORPUS))
    with _progress(arguments) as progress:
        index = Index.from_documents(corpus.documents, analyzer=_analyzer(arguments), parameters=_parameters(arguments),
                                     progress=progress, skipped=corpus.skipped)
    if index.skipped:
        names = ", ".join(f"{path} ({why})" for path, why in index.skipped[:5])
        more = f" and {len(index.skipped) - 5} more" if len(index.skipped) > 5 else ""
        print(f"regrag: note: {len(index.skipped)} file(s) not indexed: {names}{more}", file=sys.stderr)
    return index


def _load_corpus(arguments: argparse.Namespace, path: str):
    """``load_corpus`` with the command's corpus-loading options; every rejected input is printed as a warning."""
    from regrag.corpus.load import load_corpus

    corpus = load_corpus(path, allow_symlinks_outside=getattr(arguments, "allow_symlinks_outside", False),
                         errors=getattr(arguments, "errors", None) or "raise")
    for _where, message in corpus.rejected:
        print(f"regrag: warning: rejected: {message}", file=sys.stderr)
    if corpus.rejected:
        print(f"regrag: warning: {len(corpus.rejected)} input(s) rejected (--errors collect); they are not indexed",
              file=sys.stderr)
    return corpus


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


def _print_hits(index: Index, hits) -> None:
    for hit in hits:
        document = index.document(hit.document_id)
        offsets = [span for match in hit.matches for span in match.offsets]
        print(f"{hit.rank:>3}  {hit.score:.6f}  {hit.passage_id}  [{hit.passage_span[0]}:{hit.passage_span[1]}]")
        print(f"     {hit.section_title}")
        print(f"     {_snippet(document.text, hit.passage_span[0], hit.passage_span[1], offsets)}")


def _entity_line(step) -> str:
    names = ", ".join(f"{m.name!r} ({m.field})" for m in step.matches)
    if step.applied:
        return f"entities: {names} -> searched only {', '.join(step.documents)} (--no-entities to switch off)"
    return f"entities: {names} named, but none of their passages matches; searched everything"


def _print_entity_step(hits) -> None:
    """The entity step's line (docs/entities.md), when the query named an entity."""
    if hits and hits[0].entities is not None:
        print(_entity_line(hits[0].entities))


def _note_rejected_names(index: Index, entities: bool) -> None:
    """A note on standard error for the corpus metadata values not used as entity names."""
    rejected = index.entity_catalog.rejected if entities else ()
    if rejected:
        shown = "; ".join(f"{r.name!r} ({r.document_id} {r.field}: {r.reason})" for r in rejected[:3])
        more = f"; and {len(rejected) - 3} more" if len(rejected) > 3 else ""
        print(f"regrag: note: {len(rejected)} entity name(s) in the metadata not used (docs/entities.md): {shown}{more}",
              file=sys.stderr)


def _header(index: Index) -> str:
    return (f"index {index.index_id[:16]}  ·  {index.document_count} documents  ·  "
            f"{index.passage_count} passages  ·  analyzer {index.analyzer.name}")


def _run_search(arguments: argparse.Namespace) -> int:
    index = _load(arguments)
    _note_rejected_names(index, not arguments.no_entities)
    hits = index.search(arguments.query, k=arguments.k, method=arguments.method,
                        filters=arguments.filter, rrf_depth=arguments.rrf_depth, entities=not arguments.no_entities,
                        exhaustive=arguments.exhaustive)
    if arguments.ledger:
        _append_ledger(arguments, index, "search", hits)
    if arguments.json:
        for hit in hits:
            print(hit.to_json())
        return 0
    print(_header(index) + f"  ·  method {arguments.method}")
    _print_entity_step(hits)
    if not hits:
        print("no passage matches the query")
        return 0
    _print_hits(index, hits)
    return 0


def _run_ask(arguments: argparse.Namespace) -> int:
    # options the chosen path cannot honour are refused before anything is loaded
    (check_with_pipeline if arguments.pipeline else check_without_pipeline)(arguments)
    index = _load(arguments)
    if arguments.pipeline:
        from regrag.pipeline.cli import run_pipeline

        return run_pipeline(arguments, index)
    _note_rejected_names(index, not arguments.no_entities)
    answer = index.ask(arguments.question, k=arguments.k, method=arguments.method,
                       filters=arguments.filter, max_sentences=arguments.max_sentences,
                       entities=not arguments.no_entities, threshold=arguments.threshold,
                       rrf_depth=arguments.rrf_depth, exhaustive=arguments.exhaustive)
    if arguments.ledger:
        _append_ledger(arguments, index, "ask", answer.hits, answer)
    if arguments.json:
        print(answer.to_json())
        return 0 if answer.found else 1
    confidence = answer.confidence
    if not answer.found:
        if not answer.hits:
            print("Not found in the corpus: no passage matches the question.")
            return 1
        if not answer.refused:
            print("Not found in the corpus: the closest passages match the question only in their titles, "
                  "so no sentence can be cited.")
            print()
            print("Closest passages:")
            for hit in answer.hits[:3]:
                print(f"  {hit.rank}. {hit.passage_id}  {hit.section_title}")
            _print_entity_step(answer.hits)
            return 1
        print(f"Not found in the corpus: confidence {confidence.value:.2f} is below the threshold {confidence.threshold:.2f} "
              f"(coverage {confidence.coverage:.2f}, agreement {confidence.agreement:.1f}; "
              f"missing: {' '.join(confidence.missing_words) or '-'}).")
        print()
        print("Closest passages:")
        for hit in answer.hits[:3]:
            print(f"  {hit.rank}. {hit.passage_id}  {hit.section_title}")
        _print_entity_step(answer.hits)
        return 1
    print(answer.text)
    print()
    print(f"Confidence {confidence.value:.2f} (coverage {confidence.coverage:.2f}, agreement {confidence.agreement:.1f}, "
          f"threshold {confidence.threshold:.2f})")
    print("Sources:")
    for number, sentence in enumerate(answer.sentences, start=1):
        print(f"  [{number}] {sentence.document_id}, {sentence.section_title}, "
              f"characters {sentence.span[0]}–{sentence.span[1]} (passage {sentence.passage_id})")
    _print_entity_step(answer.hits)
    print()
    print(_header(index))
    return 0


def _run_explain(arguments: argparse.Namespace) -> int:
    index = _load(arguments)
    explanation = index.explain(arguments.query, arguments.passage_id)
    if arguments.json:
        print(explanation.to_json())
        return 0
    bm25, tfidf = explanation.bm25, explanation.tfidf
    print(f"passage {explanation.passage_id}  ·  index {explanation.index_id[:16]}")
    print(f"query terms: {' '.join(explanation.query_terms) or '(none)'}")
    print()
    print(f"BM25  k1={bm25.k1!r} b={bm25.b!r} title_weight={bm25.title_weight!r} "
          f"length={bm25.weighted_length!r} average_length={bm25.average_length!r}")
    print(f"  {'term':<20} {'idf':>20} {'body':>5} {'title':>5} {'weighted tf':>12} {'contribution':>22}")
    for term in bm25.terms:
        print(f"  {term.term:<20} {term.idf!r:>20} {term.body_frequency:>5} {term.title_frequency:>5} "
              f"{term.weighted_frequency!r:>12} {term.contribution!r:>22}")
    print(f"  score = {bm25.score!r} (sum of the contributions, top to bottom)")
    absent_line = _absent_terms(index, explanation)
    if absent_line:
        print(f"  {absent_line}")
    print()
    print(f"TF-IDF  query_norm={tfidf.query_norm!r} passage_norm={tfidf.passage_norm!r}")
    print(f"  {'term':<20} {'idf':>20} {'query weight':>20} {'passage weight':>20} {'product':>22}")
    for part in tfidf.terms:
        print(f"  {part.term:<20} {part.idf!r:>20} {part.query_weight!r:>20} {part.passage_weight!r:>20} {part.product!r:>22}")
    print(f"  score = dot / (query_norm × passage_norm) = {tfidf.dot!r} / ({tfidf.query_norm!r} × {tfidf.passage_norm!r}) = {tfidf.score!r}")
    return 0


def _absent_terms(index: Index, explanation) -> str:
    """Which query words the passage lacks (as typed), and, when it lacks
    them all, that this is why its score is zero; empty if it has them all."""
    from regrag.answer.confidence import surface_words

    if not explanation.query_terms:
        return "the score is zero: the query has no terms after analysis"
    present = {term.term for term in explanation.bm25.terms}
    absent = [term for term in explanation.query_terms if term not in present]
    if not absent:
        return ""
    language = index.analyze_query(explanation.query).language
    words = ", ".join(repr(word) for word in surface_words(index.analyzer, explanation.query, language, set(absent)))
    if not present:
        return f"the score is zero: no query term occurs in this passage (absent: {words})"
    return f"not in this passage (they add nothing): {words}"


def _run_eval(arguments: argparse.Namespace) -> int:
    from regrag.eval.beir import write_run_trec
    from regrag.eval.run import ANSWER_METRIC_NAMES, evaluate_folder

    methods = METHODS if arguments.method == "all" else (arguments.method,)
    if arguments.run_file and len(methods) != 1:
        raise InputError("--run-file needs a single --method")
    with _staged_progress(arguments) as progress:
        report = evaluate_folder(arguments.beir, methods=methods, split=arguments.split, depth=arguments.depth,
                                 analyzer=_analyzer(arguments), parameters=_parameters(arguments),
                                 answers=not arguments.no_answers, index=_stored(arguments), progress=progress)
    if arguments.run_file:
        write_run_trec(arguments.run_file, report.results[0].run, f"regrag-{methods[0]}")
    if arguments.json:  # the record is reproducible byte for byte; the timings go apart, to standard error
        print(canonical_json(report.to_dict(per_query=arguments.per_query)))
        print(f"regrag: timings: {canonical_json(report.timings())}", file=sys.stderr)
        return 0
    print(f"{report.root}  split {report.split}  ·  {report.judged_count} judged queries"
          f"{f' + {report.unanswerable_count} unanswerable' if report.unanswerable_count else ''}  ·  "
          f"{report.document_count} documents  ·  {report.passage_count} passages  ·  judged by {report.unit}")
    names = list(report.results[0].metrics)
    print(f"  {'method':<8}" + "".join(f"{name:>12}" for name in names))
    for result in report.results:
        print(f"  {result.method:<8}" + "".join(f"{result.metrics[name]:>12.4f}" for name in names))
    answered = [r for r in report.results if r.answer_metrics]
    if answered:
        present = [name for name in ANSWER_METRIC_NAMES if name in answered[0].answer_metrics]
        print()
        print(f"  {'answers':<8}" + "".join(f"{name:>22}" for name in present))
        for result in answered:
            print(f"  {result.method:<8}" + "".join(f"{result.answer_metrics[name]:>22.4f}" for name in present))
    calibrated = [r for r in report.results if r.confidence]
    if calibrated:
        print()
        print("  confidence   (bins of the answer confidence: queries, mean confidence, fraction whose top result is relevant)")
        for result in calibrated:
            table, error = result.reliability()
            cells = "  ".join(f"[{b.low:.1f},{b.high:.1f}{']' if b.high == 1.0 else ')'} n={b.count} {b.mean_confidence:.2f}/{b.accuracy:.2f}" for b in table)
            print(f"  {result.method:<8} ECE {error:.3f}  {cells}")
    print()
    print(f"  indexing {report.index_seconds:.2f} s")
    for result in report.results:
        timings = result.timing_summary()
        if result.query_seconds:
            print(f"  {result.method:<8} per query mean {timings['query_mean_ms']:.2f} ms  p50 {timings['query_p50_ms']:.2f} ms  "
                  f"p99 {timings['query_p99_ms']:.2f} ms  ({timings['queries_per_second']:.1f} queries/s, top {report.depth})")
    if arguments.per_query:
        print()
        print(f"  {'query':<24}" + "".join(f"{r.method:>8}" for r in report.results) + "   (rank of the first relevant result; R = refused)")
        for query_id in sorted(set(report.results[0].first_relevant_rank) | set(report.results[0].refused)):
            ranks = []
            for result in report.results:
                rank = result.first_relevant_rank.get(query_id, "")
                mark = "R" if result.refused.get(query_id) else ""
                ranks.append(f"{'-' if rank is None else rank}{mark}")
            print(f"  {query_id:<24}" + "".join(f"{cell:>8}" for cell in ranks))
    return 0


def _append_ledger(arguments: argparse.Namespace, index: Index, command: str, hits, answer=None) -> None:
    from regrag.audit.replay import call_record
    from regrag.audit.ledger import append_record

    query = arguments.query if command == "search" else arguments.question
    options = {
        "entities": not arguments.no_entities,
        "filters": list(arguments.filter),
        "k": arguments.k,
        "method": arguments.method,
        "rrf_depth": arguments.rrf_depth,
    }
    if command == "ask":
        options["max_sentences"] = arguments.max_sentences
        options["threshold"] = answer.confidence.threshold
    append_record(arguments.ledger, call_record(command, query, options, index, hits, answer))


def _run_index(arguments: argparse.Namespace) -> int:
    from regrag.index.store import IndexStore

    store = IndexStore(arguments.out)
    try:
        return _index_and_publish(arguments, store)
    except KeyboardInterrupt:  # publish removed what it wrote: say what is current, in one line
        try:
            number = store.current_number()
            where = f"generation {number} is current" if number else "the directory has no generation"
        except RegragError as error:
            where = str(error)
        print(f"regrag: interrupted; {where}", file=sys.stderr)
        return 130


def _index_and_publish(arguments: argparse.Namespace, store) -> int:
    """``regrag index``: build or update, then publish only if the generation
    it started from is still current (docs/index-format.md, "Publishing")."""
    import time

    from regrag.index import publishing

    started = time.perf_counter()
    if arguments.ledger and arguments.keep is None:
        raise InputError("--ledger protects generations from --keep; give --keep N too")
    if arguments.allow_deletions and not arguments.update:
        raise InputError("--allow-deletions applies to --update")
    # The generation current before the corpus is read: what it publishes over, for a rebuild and an update alike.
    base = store.current_number()
    corpus = _load_corpus(arguments, arguments.corpus)
    _refuse_empty(corpus, arguments)
    if arguments.update:
        given = [f"--{name.replace('_', '-')}" for name in _BUILD_OPTIONS if getattr(arguments, name, None) is not None]
        if given:
            raise InputError(f"{', '.join(given)} cannot be combined with --update: the index keeps the analyzer "
                             "and parameters it was built with (re-index without --update to change them)")
        current = Index.open(arguments.out)
        publishing.check_base(store.root, current.generation.number, base)  # published while the corpus was read
        upserts, deletions = current.changes_to(corpus.documents)
        if not upserts and not deletions:
            print(f"no changes; generation {base} stays current (nothing was published or pruned)")
            return 0
        publishing.check_deletions(store.root, base, len(deletions), current.document_count, arguments.allow_deletions)
        index = current.updated(upserts, deletions)
        changes = {
            "added": sum(1 for d in upserts if not current.has_document(d.id)),
            "replaced": sum(1 for d in upserts if current.has_document(d.id)),
            "deleted": len(deletions),
        }
    else:
        with _progress(arguments) as progress:
            index = Index.from_documents(corpus.documents, analyzer=_analyzer(arguments),
                                         parameters=_parameters(arguments), progress=progress)
        changes = None
    needs = None
    if arguments.ledger and base:
        needs = publishing.ledger_needs(arguments.ledger, store.history()[1], index.index_id)
    result = index.commit_to(store, keep=arguments.keep, base=base,
                          protect=needs.retained if needs else (), allow_clock_skew=arguments.allow_clock_skew)
    generation = result.generation
    seconds = time.perf_counter() - started
    for path, why in corpus.skipped:
        print(f"regrag: note: not indexed: {path} ({why})", file=sys.stderr)
    if needs is not None and needs.missing:
        print(f"regrag: warning: {', '.join(arguments.ledger)} refers to {publishing.numbers_text(needs.missing)}, "
              "no longer retained: ledger replay cannot re-run those records", file=sys.stderr)
    summary = f"generation {generation.number}  ·  {index.document_count} documents  ·  {index.passage_count} passages"
    if changes is not None:
        summary += f"  ·  {changes['added']} added, {changes['replaced']} replaced, {changes['deleted']} deleted"
    print(summary)
    print(f"index id     {generation.index_id}")
    print(f"corpus root  {generation.corpus_root}")
    print(f"published    {generation.published}  ({seconds:.2f} s)")
    if arguments.keep is not None:
        print(f"pruned       {publishing.numbers_text(result.pruned) if result.pruned else 'nothing'} (--keep {arguments.keep})")
    if result.protected:
        print(f"protected    {publishing.numbers_text(result.protected)} (records of {', '.join(arguments.ledger)} need them)")
    return 0


def _refuse_empty(corpus, arguments: argparse.Namespace) -> None:
    """``InputError`` for a corpus without documents unless ``--allow-empty``: a folder of
    files none of which is a document would otherwise publish an empty index (and,
    with ``--update``, delete every document)."""
    if corpus.documents or getattr(arguments, "allow_empty", False):
        return
    from regrag.jsonl import printable

    found = []
    if corpus.skipped:
        found.append(f"{len(corpus.skipped)} file(s) skipped, e.g. {corpus.skipped[0][0]} ({corpus.skipped[0][1]})")
    if corpus.rejected:
        found.append(f"{len(corpus.rejected)} input(s) rejected")
    detail = f" ({'; '.join(found)})" if found else ""
    raise InputError(f"{printable(arguments.corpus)}: no document to index{detail}; nothing was published "
                     "(--allow-empty publishes an empty index)")


def _engine_version() -> str:
    from regrag._version import __version__

    return __version__


def _run_verify(arguments: argparse.Namespace) -> int:
    from regrag.index.store import verify_store

    report = verify_store(arguments.directory, generation=arguments.generation, full=not arguments.quick)
    kind = "sizes and hashes" if arguments.quick else "sizes, hashes and a full re-index of the stored documents"
    for number, problem in report.problems:
        print(f"generation {number}: DAMAGED: {problem}")
    broken = {number for number, _p in report.problems}
    for number in report.checked:
        if number not in broken:
            print(f"generation {number}: ok ({kind})")
    for number in report.pruned:
        print(f"generation {number}: pruned by a writer during the check (no longer retained; not checked)")
    if not report.checked:
        raise InputError(f"{arguments.directory}: nothing was checked: every generation to check was pruned by a writer "
                         "during the check; run verify again")
    return 0 if report.ok else 1


def _run_prove(arguments: argparse.Namespace) -> int:
    from regrag.audit.merkle import inclusion_proof

    index = Index.open(arguments.directory, generation=arguments.generation)
    hashes = index.content_hashes()
    if arguments.document_id not in hashes:
        raise InputError(f"no document with id {arguments.document_id!r} in {arguments.directory}")
    proof = inclusion_proof([(key, hashes[key]) for key in sorted(hashes)], arguments.document_id)
    print(canonical_json(proof.to_dict()))
    return 0


def _run_verify_proof(arguments: argparse.Namespace) -> int:
    from regrag.audit.merkle import InclusionProof, verify_inclusion
    from regrag.jsonl import parse_json_object, read_bytes

    where = "standard input" if arguments.proof == "-" else arguments.proof
    data = sys.stdin.buffer.read() if arguments.proof == "-" else read_bytes(arguments.proof)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{where}: not a JSON proof (invalid UTF-8)") from None
    proof = InclusionProof.from_dict(parse_json_object(text, where))
    if verify_inclusion(proof, arguments.root):
        print(f"valid: {proof.document_id!r} (content hash {proof.content_hash[:16]}…) is leaf {proof.leaf_index} "
              f"of {proof.tree_size} under root {proof.root}")
        return 0
    reason = "does not lead to the given --root" if arguments.root and arguments.root != proof.root else "does not lead to its root"
    print(f"INVALID: the proof for {proof.document_id!r} {reason}")
    return 1


class _CountingRankings:
    """``index`` for ``record_golden``, telling ``progress`` of each query once all its methods are ranked."""

    def __init__(self, index: Index, methods: int, queries: int, progress) -> None:
        self._index, self._methods, self._queries, self._progress = index, methods, queries, progress
        self._calls = 0

    def ranking(self, *args, **kwargs):
        result = self._index.ranking(*args, **kwargs)
        self._calls += 1
        if self._calls % self._methods == 0:
            self._progress(self._calls // self._methods, self._queries)
        return result

    def __getattr__(self, name: str):
        return getattr(self._index, name)


def _run_golden(arguments: argparse.Namespace) -> int:
    from regrag.audit import golden

    index = _load(arguments)
    if arguments.golden_command == "record":
        methods = METHODS if arguments.method == "all" else (arguments.method,)
        queries = golden.load_golden_queries(arguments.queries)
        with _progress(arguments, "recording", "queries", finishing="") as progress:
            recorded = golden.record_golden(_CountingRankings(index, len(methods), len(queries), progress),
                                            queries, methods=methods, k=arguments.k)
        golden.write_golden(arguments.out, recorded)
        print(f"recorded {len(queries)} queries × {len(methods)} method(s), top {arguments.k}, "
              f"index {index.index_id[:16]} -> {arguments.out}")
        return 0
    report = golden.verify_golden(index, golden.read_golden(arguments.golden_file))
    print(golden.format_report(report), end="")  # the report ends with its own newline
    return 0 if report.ok else 1


def _run_ledger(arguments: argparse.Namespace) -> int:
    from regrag.audit import ledger

    if arguments.ledger_command == "verify":
        report = ledger.verify_ledger(arguments.ledger_file)
        print(ledger.format_report(report))
        return 0 if report.ok else 1
    from regrag.audit.replay import replay_ledger

    outcome = replay_ledger(arguments.ledger_file, arguments.index)
    for line in outcome.lines:
        print(line)
    return 0 if outcome.ok else 1


_COMMANDS = {
    "search": _run_search, "ask": _run_ask, "explain": _run_explain, "eval": _run_eval, "index": _run_index,
    "verify": _run_verify, "prove": _run_prove, "verify-proof": _run_verify_proof, "golden": _run_golden,
    "ledger": _run_ledger,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (docs/cli.md, "Exit status").

    Besides the commands' own statuses: a failed write to standard output
    (a full disk, a closed pipe) is one line on standard error and status 2;
    Ctrl-C is one line and status 130; never a traceback for either."""
    from regrag.cli_run import run_main

    return run_main(argv, _main)


def _main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")  # the same bytes whatever the locale
    try:
        parser = build_parser()
        arguments = parser.parse_args(argv)
        if arguments.command is None:
            return _no_command(parser)
        return _COMMANDS[arguments.command](arguments)
    except _UsageError as error:
        print(f"{error}", file=sys.stderr)
        return 2
    except RegragError as error:
        print(f"regrag: error: {error}", file=sys.stderr)
        return 2

