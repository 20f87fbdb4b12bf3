"""The option groups several commands share, and what they load.

- ``add_index_options``: where the index comes from (``--corpus`` or
  ``--index`` with ``--generation``/``--as-of``) and how it is built;
- ``add_corpus_loading_options``, ``add_build_options``: the parts of it
  that ``index`` also takes;
- ``add_search_options``: ``-k``, ``--method``, ``--filter`` ... of
  ``search`` and ``ask``;
- ``load_index``, ``stored_index``, ``load_corpus``: the index or corpus
  those options name, with the checks that refuse options which cannot apply.
"""

from __future__ import annotations

import argparse
import sys

from regrag.cli.output import progress
from regrag.engine import DEFAULT_CORPUS, Index
from regrag.errors import InputError
from regrag.index.parameters import IndexParameters
from regrag.limits import DEFAULT_LIMITS, check_search_depth
from regrag.retrieval.methods import DEFAULT_RRF_DEPTH, METHODS, VECTOR_METHODS
from regrag.text.analyzer import ANALYZER_NAMES
from regrag.text.underthesea_words import WORD_ANALYZERS

BUILD_OPTIONS = ("analyzer", "k1", "b", "title_weight", "max_passage_chars")


def add_index_options(parser: argparse.ArgumentParser, corpus: bool = True, stored: bool = True) -> None:
    if corpus:
        parser.add_argument("--corpus", default=None,
                            help="folder of .md/.txt/.html/.docx/.pdf/.csv files, a .jsonl file or a BEIR folder "
                                 "(default: the bundled corpus)")
        add_corpus_loading_options(parser)
    if stored:
        parser.add_argument("--index", metavar="DIR", default=None,
                            help="an index directory written by 'regrag index' (instead of --corpus)")
        parser.add_argument("--generation", type=int, default=None, metavar="N",
                            help="with --index: use generation N instead of the current one")
        parser.add_argument("--as-of", default=None, metavar="TIME",
                            help="with --index: the generation current at TIME (ISO 8601, e.g. 2026-11-30T10:00:00Z)")
    add_build_options(parser)


def add_build_options(parser: argparse.ArgumentParser) -> None:
    defaults = IndexParameters()
    parser.add_argument("--analyzer", choices=ANALYZER_NAMES + WORD_ANALYZERS, default=None,
                        help="text analyzer (default: auto; vi-words, vi-words-syllables: underthesea, regrag[vi])")
    parser.add_argument("--k1", type=float, default=None, help=f"BM25 k1 (default {defaults.k1})")
    parser.add_argument("--b", type=float, default=None, help=f"BM25 b (default {defaults.b})")
    parser.add_argument("--title-weight", type=float, default=None,
                        help=f"weight of section titles (default {defaults.title_weight})")
    parser.add_argument("--max-passage-chars", type=int, default=None,
                        help=f"longest passage in characters (default {defaults.max_passage_chars})")


def add_corpus_loading_options(parser: argparse.ArgumentParser) -> None:
    """How a corpus is read (docs/corpus.md, "Hostile input and limits")."""
    parser.add_argument("--allow-symlinks-outside", action="store_true",
                        help="follow symbolic links whose target is outside the corpus folder (refused by default)")
    parser.add_argument("--errors", choices=("raise", "collect"), default=None,
                        help="raise: any bad file or line stops the load, nothing is indexed (default); "
                             "collect: index the rest and print every rejected input as a warning")
    parser.add_argument("--csv-rows", action="store_true",
                        help="one document per CSV row (id FILE/row-N) instead of one per CSV file (docs/corpus.md)")


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


def add_search_options(parser: argparse.ArgumentParser, default_k: int) -> None:
    parser.add_argument("-k", type=_capped_int("k"), default=default_k,
                        help=f"number of results (default {default_k}, at most {DEFAULT_LIMITS.k:,})")
    parser.add_argument("--method", choices=METHODS + VECTOR_METHODS, default="hybrid",
                        help="retriever (default: hybrid); dense, fused (RRF of bm25, tfidf, dense) and rerank "
                             "(the dense top 20 ordered by BM25) need --index DIR with stored vectors "
                             "(regrag embed DIR; docs/dense.md)")
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


def add_synonyms_option(parser: argparse.ArgumentParser, default: str) -> None:
    """``--synonyms builtin|none|FILE`` (docs/synonyms.md)."""
    parser.add_argument("--synonyms", default=default, metavar="builtin|none|FILE",
                        help="query-time synonyms: builtin (regrag's lexicon), none, or a Solr synonyms.txt file "
                             f"(default {default}; docs/synonyms.md)")


def synonyms_of(arguments: argparse.Namespace):
    """The ``SynonymSet`` that ``--synonyms`` names (None for none), kept on
    ``arguments`` as ``synonym_set`` for the ledger record."""
    from regrag.answer.lexicon import resolve_synonyms

    arguments.synonym_set = resolve_synonyms(str(arguments.synonyms))
    return arguments.synonym_set


def calibrations_of(paths: list[str], command: str) -> tuple:
    """The calibration maps of ``--calibration FILE`` given to a server (``serve``,
    ``mcp``), in method order, read before the index is loaded; a note on
    standard error for each map fitted under other answer rules or another
    synonym set than the built-in one the server's answers use by default."""
    if not paths:
        return ()
    from regrag.answer.calibration import read_calibrations, staleness
    from regrag.answer.lexicon import LEXICON_VERSION
    from regrag.answer.rules_version import ANSWER_RULES

    maps = read_calibrations(paths)
    for method in sorted(maps):
        why = staleness(maps[method], ANSWER_RULES, LEXICON_VERSION)
        if why:
            print(f"regrag {command}: note: the {method} map was fitted under {why}; it may not fit these "
                  "confidences: fit it again (regrag eval --fit-calibration)", file=sys.stderr)
    return tuple(maps[method] for method in sorted(maps))


def given_build_options(arguments: argparse.Namespace) -> list[str]:
    """The analyzer and parameter flags on the command line, e.g. ``["--k1", "--b"]``."""
    return [f"--{name.replace('_', '-')}" for name in BUILD_OPTIONS if getattr(arguments, name, None) is not None]


def parameters(arguments: argparse.Namespace) -> IndexParameters:
    """The BM25 and passage parameters given, the defaults for the rest."""
    defaults = IndexParameters()
    chosen = {name: getattr(arguments, name) for name in ("k1", "b", "title_weight", "max_passage_chars")}
    return IndexParameters(**{name: getattr(defaults, name) if value is None else value for name, value in chosen.items()})


def analyzer(arguments: argparse.Namespace) -> str:
    return arguments.analyzer or "auto"


def stored_index(arguments: argparse.Namespace) -> Index | None:
    """The index named by ``--index`` (with ``--generation``/``--as-of``), or None."""
    directory = getattr(arguments, "index", None)
    generation, as_of = getattr(arguments, "generation", None), getattr(arguments, "as_of", None)
    if directory is None:
        if generation is not None or as_of is not None:
            raise InputError("--generation and --as-of need --index DIR")
        return None
    if getattr(arguments, "corpus", None) is not None:
        raise InputError("give --corpus or --index, not both")
    given = given_build_options(arguments)
    if given:
        raise InputError(f"{', '.join(given)} cannot be combined with --index: a stored index keeps the analyzer "
                         "and parameters it was built with")
    return Index.open(directory, generation=generation, as_of=as_of)


def load_index(arguments: argparse.Namespace) -> Index:
    """The index the options name: ``--index``, else ``--corpus`` (or the bundled corpus) indexed now."""
    return _stored_or_built(arguments)


def _stored_or_built(arguments: argparse.Namespace) -> Index:
    stored = stored_index(arguments)
    if stored is not None:
        if getattr(arguments, "allow_symlinks_outside", False) or getattr(arguments, "errors", None) is not None:
            raise InputError("--allow-symlinks-outside and --errors apply to --corpus, not to --index")
        if getattr(arguments, "csv_rows", False):
            raise InputError("--csv-rows applies to --corpus, not to --index")
        return stored
    corpus = load_corpus(arguments, arguments.corpus if arguments.corpus is not None else str(DEFAULT_CORPUS))
    with progress(arguments) as shown:
        index = Index.from_documents(corpus.documents, analyzer=analyzer(arguments), parameters=parameters(arguments),
                                     progress=shown, skipped=corpus.skipped)
    if index.skipped:
        names = ", ".join(f"{path} ({why})" for path, why in index.skipped[:5])
        more = f" and {len(index.skipped) - 5} more" if len(index.skipped) > 5 else ""
        print(f"regrag: note: {len(index.skipped)} file(s) not indexed: {names}{more}", file=sys.stderr)
    return index


def load_corpus(arguments: argparse.Namespace, path: str):
    """``load_corpus`` with the command's corpus-loading options; every rejected input is printed as a warning."""
    from regrag.corpus.load import load_corpus as load

    corpus = load(path, allow_symlinks_outside=getattr(arguments, "allow_symlinks_outside", False),
                  errors=getattr(arguments, "errors", None) or "raise", csv_rows=getattr(arguments, "csv_rows", False))
    print_rejected(corpus)
    return corpus


def print_rejected(corpus) -> None:
    """A warning for every input ``corpus`` rejected (``--errors collect``), and their count."""
    for _where, message in corpus.rejected:
        print(f"regrag: warning: rejected: {message}", file=sys.stderr)
    if corpus.rejected:
        print(f"regrag: warning: {len(corpus.rejected)} input(s) rejected (--errors collect); they are not indexed",
              file=sys.stderr)
