"""Run retrieval methods over a labelled folder and score them like trec_eval.

A labelled folder is a BEIR folder (``corpus.jsonl``, ``queries.jsonl``,
``qrels/<split>.tsv``) or a sample corpus of this project, which keeps its
documents as Markdown in ``documents/`` instead of ``corpus.jsonl``. An
optional ``answers.jsonl`` adds answer metrics; queries whose metadata (or
answer line) says ``"answerable": false`` are the unanswerable ones.

Conventions (those of Pyserini's BEIR reproductions): each query's ranking is
cut at ``depth`` (1000); a hit whose id equals the query id is dropped; when
the qrels name documents, passages become documents by keeping each
document's best passage, and when every qrels id is a passage id
(``doc#n``), passages are judged directly; the ranking is re-ordered as
trec_eval reads a run (score descending, ties by id descending); metrics are
averaged over the judged queries of the split (queries without results
count as 0).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from regrag.corpus.load import load_corpus
from regrag.engine import Index
from regrag.errors import InputError
from regrag.io import files
from regrag.eval.answers import contains_reference, exact_match, token_f1
from regrag.eval.beir import read_answers, read_qrels, read_query_records
from regrag.eval.metrics import evaluate, trec_eval_order
from regrag.retrieval.methods import METHODS

DEFAULT_DEPTH = 1000
ANSWER_METRIC_NAMES = (
    "answer_contains", "answered_contains", "answer_exact", "answer_f1", "refused_answerable", "refused_unanswerable",
    "confident_wrong",
)


@dataclass(frozen=True)
class LabelledSet:
    """Queries, judgments and reference answers of one folder and split."""

    root: Path
    corpus_path: Path
    split: str
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    unanswerable: tuple[str, ...]
    references: dict[str, tuple[str, ...]]


def load_labelled_set(root: str | Path, split: str = "test", answers: bool = True) -> LabelledSet:
    """Queries, qrels and (unless ``answers`` is false) ``answers.jsonl`` of a
    labelled folder; ``corpus.jsonl`` and ``queries.jsonl`` may be gzipped
    (``.gz``). Without ``answers`` the file is not opened at all."""
    root = Path(root)
    if files.is_file(root / "corpus.jsonl") or files.is_file(root / "corpus.jsonl.gz"):
        corpus_path = root  # load_corpus reads a folder holding corpus.jsonl(.gz) as BEIR
    elif files.is_directory(root / "documents"):
        corpus_path = root / "documents"
    else:
        raise InputError(f"{root}: not a BEIR folder (no corpus.jsonl) and no documents/ folder")
    qrels_path = root / "qrels" / f"{split}.tsv"
    if not files.is_file(qrels_path):
        raise InputError(f"{qrels_path}: no qrels for split {split!r}")
    queries_path = root / "queries.jsonl"
    if not files.is_file(queries_path) and files.is_file(root / "queries.jsonl.gz"):
        queries_path = root / "queries.jsonl.gz"
    records = read_query_records(queries_path)
    qrels = read_qrels(qrels_path)
    for query_id in sorted(qrels):
        if query_id not in records:
            raise InputError(f"{qrels_path}: query id {query_id!r} is not in {queries_path}")
    answers_path = root / "answers.jsonl"
    references_by_query = read_answers(answers_path) if answers and files.is_file(answers_path) else {}
    unanswerable = sorted(
        query_id
        for query_id, record in records.items()
        if record["metadata"].get("answerable") is False
        or (query_id in references_by_query and not references_by_query[query_id][0])
    )
    for query_id in unanswerable:
        if query_id in qrels and any(value > 0 for value in qrels[query_id].values()):
            raise InputError(f"{qrels_path}: query {query_id!r} is labelled unanswerable but has relevant judgments")
    references = {
        query_id: refs for query_id, (ok, refs) in sorted(references_by_query.items()) if ok and refs and query_id in qrels
    }
    return LabelledSet(
        root=root,
        corpus_path=corpus_path,
        split=split,
        queries={query_id: record["text"] for query_id, record in sorted(records.items())},
        qrels=qrels,
        unanswerable=tuple(unanswerable),
        references=references,
    )


@dataclass(frozen=True)
class MethodResult:
    """Metrics of one method, with per-query values and timings."""

    method: str
    metrics: dict[str, float]
    per_query: dict[str, dict[str, float]]
    first_relevant_rank: dict[str, int | None]
    query_seconds: tuple[float, ...]
    run: dict[str, list[tuple[str, float]]]
    answer_metrics: dict[str, float] = field(default_factory=dict)
    refused: dict[str, bool] = field(default_factory=dict)
    confidence: dict[str, tuple[float, bool]] = field(default_factory=dict)
    wrong: dict[str, bool] = field(default_factory=dict)  # answered: True when the cited passage is not relevant
    # every question asked: whether ask found sentences to answer with (refusal aside), and whether
    # what it would cite is not relevant (always, for an unanswerable question): for out-of-fold maps
    found: dict[str, bool] = field(default_factory=dict)
    cited_wrong: dict[str, bool] = field(default_factory=dict)

    def reliability(self, bins: int = 5):
        """Reliability table and expected calibration error of the answers' confidence."""
        from regrag.eval.calibration import expected_calibration_error, reliability_table

        table = reliability_table([self.confidence[q] for q in sorted(self.confidence)], bins)
        return table, expected_calibration_error(table)

    def timing_summary(self) -> dict[str, float]:
        ordered = sorted(self.query_seconds)
        if not ordered:
            return {"queries_per_second": 0.0}
        total = sum(ordered)
        return {
            "query_mean_ms": 1000 * total / len(ordered),
            "query_p50_ms": 1000 * _percentile(ordered, 0.50),
            "query_p99_ms": 1000 * _percentile(ordered, 0.99),
            "queries_per_second": len(ordered) / total if total > 0 else 0.0,
        }


@dataclass(frozen=True)
class EvaluationReport:
    """Every method's results on one labelled folder."""

    root: str
    split: str
    unit: str
    index_id: str
    document_count: int
    passage_count: int
    index_seconds: float
    judged_count: int
    unanswerable_count: int
    depth: int
    results: tuple[MethodResult, ...]
    unanswerable: tuple[str, ...] = ()  # their ids (kept out of to_dict: the count is there)

    def result(self, method: str) -> MethodResult:
        return next(r for r in self.results if r.method == method)

    def timings(self) -> dict:
        """Indexing and query times: kept out of ``to_dict`` because they differ on every run."""
        return {
            "index_seconds": self.index_seconds,
            "methods": {result.method: result.timing_summary() for result in self.results},
        }

    def to_dict(self, per_query: bool = False) -> dict:
        """The canonical record: byte for byte the same on every run (timings: ``timings()``)."""
        methods = {}
        for result in self.results:
            entry: dict[str, object] = {"metrics": result.metrics}
            if result.answer_metrics:
                entry["answers"] = result.answer_metrics
            if result.confidence:
                table, error = result.reliability()
                entry["calibration"] = {"bins": [b.to_dict() for b in table], "ece": error}
            if per_query:
                entry["first_relevant_rank"] = result.first_relevant_rank
                entry["refused"] = result.refused
            methods[result.method] = entry
        return {
            "depth": self.depth,
            "document_count": self.document_count,
            "index_id": self.index_id,
            "judged_queries": self.judged_count,
            "methods": methods,
            "passage_count": self.passage_count,
            "root": self.root,
            "split": self.split,
            "unanswerable_queries": self.unanswerable_count,
            "unit": self.unit,
        }


def _percentile(ordered: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    position = max(0, min(len(ordered) - 1, int(-(-fraction * len(ordered) // 1)) - 1))
    return ordered[position]


def document_ranking(index: Index, query_id: str, text: str, method: str, depth: int) -> list[tuple[str, float]]:
    """Best-passage document ranking of one query, without the query's own id."""
    # Asking for depth + (passages − documents) + 1 passages guarantees
    # ``depth`` distinct documents besides the query's own whenever that many match.
    wanted = depth + index.passage_count - index.document_count + 1
    seen: set[str] = set()
    documents: list[tuple[str, float]] = []
    for document_id, _passage_id, score in index.ranking(text, k=wanted, method=method):
        if document_id == query_id or document_id in seen:
            continue
        seen.add(document_id)
        documents.append((document_id, score))
        if len(documents) == depth:
            break
    return documents


def passage_ranking(index: Index, query_id: str, text: str, method: str, depth: int) -> list[tuple[str, float]]:
    return [(passage_id, score) for _d, passage_id, score in index.ranking(text, k=depth, method=method) if passage_id != query_id]


def judging_unit(index: Index, qrels: dict[str, dict[str, int]]) -> str:
    """"passage" when every judged id is a passage id of ``index``, else "document":
    what ``evaluate_folder`` ranks (also read by ``regrag.distributed.precomputed``)."""
    # a passage label (DOC#N) on a document the index does not hold (a PDF indexed without pdfminer.six)
    # does not switch the unit to documents; it still counts as relevant and not retrieved
    held = set(index.content_hashes())
    ids = {corpus_id for judged in qrels.values() for corpus_id in judged
           if "#" not in corpus_id or corpus_id.rsplit("#", 1)[0] in held}
    passage_ids = {index.passage_id(position) for position in range(index.passage_count)}
    return "passage" if ids and ids <= passage_ids else "document"


def evaluate_folder(
    root: str | Path,
    methods: tuple[str, ...] = METHODS,
    split: str = "test",
    depth: int = DEFAULT_DEPTH,
    analyzer: str = "auto",
    parameters=None,
    answers: bool = True,
    index: Index | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    extra_methods: dict | None = None,
    calibration=None,
) -> EvaluationReport:
    """Index the folder's corpus (or use ``index``, e.g. one opened from an
    index directory), run each method's queries, score runs and answers.
    ``progress(stage, done, total)`` hears of each indexed document and each
    ranked query (for the CLI's progress line; it cannot change the report).
    ``extra_methods``: methods beyond ``METHODS`` by name, each an object with
    the index's ``ranking`` and (for answer metrics) ``ask``
    (``regrag.eval.ablation``: dense, fused and the ablation's lists).
    ``calibration`` (a ``regrag.answer.calibration.CalibrationMap``): ask with
    it, so the confidences and refusals are the calibrated ones."""
    extra = extra_methods or {}
    if calibration is not None and any(method in extra for method in methods):
        raise InputError("a calibration map applies to bm25, tfidf and hybrid answers only")
    for method in methods:
        if method not in METHODS and method not in extra:
            raise InputError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    if depth < 1:
        raise InputError(f"depth must be >= 1, got {depth}")
    labelled = load_labelled_set(root, split, answers=answers)
    started = time.perf_counter()
    if index is None:
        # eval has no --errors: a bad record stops it, and the message does not offer errors='collect'
        corpus = load_corpus(labelled.corpus_path, collect_hint=False)
        index = Index.from_documents(
            corpus.documents, analyzer=analyzer, parameters=parameters,
            progress=None if progress is None else (lambda done, total: progress("indexing", done, total)),
            skipped=corpus.skipped)
    index_seconds = time.perf_counter() - started
    unit = judging_unit(index, labelled.qrels)
    rank_one = passage_ranking if unit == "passage" else document_ranking
    judged = sorted(labelled.qrels)
    results = []
    for method in methods:
        source = extra.get(method, index)  # what ranks (and answers) by this method
        run: dict[str, list[tuple[str, float]]] = {}
        timings: list[float] = []
        for query_id in judged:
            started = time.perf_counter()
            run[query_id] = rank_one(source, query_id, labelled.queries[query_id], method, depth)
            timings.append(time.perf_counter() - started)
            if progress is not None:
                progress(f"{method} queries", len(timings), len(judged))
        ordered = {query_id: trec_eval_order(scored) for query_id, scored in run.items()}
        scored = evaluate(ordered, labelled.qrels, depth=depth)
        first = {
            query_id: next(
                (rank for rank, item in enumerate(ordered[query_id], start=1) if labelled.qrels[query_id].get(item, 0) > 0),
                None,
            )
            for query_id in judged
        }
        answer_metrics, refused, confidence, wrong, found, cited_wrong = (
            _answer_metrics(source, labelled, method, unit, calibration) if answers else ({}, {}, {}, {}, {}, {}))
        results.append(
            MethodResult(method, dict(scored["means"]), scored["per_query"], first, tuple(timings), run,
                         answer_metrics, refused, confidence, wrong, found, cited_wrong)
        )
    return EvaluationReport(
        root=str(root),
        split=split,
        unit=unit,
        index_id=index.index_id,
        document_count=index.document_count,
        passage_count=index.passage_count,
        index_seconds=index_seconds,
        judged_count=len(judged),
        unanswerable_count=len(labelled.unanswerable),
        depth=depth,
        results=tuple(results),
        unanswerable=labelled.unanswerable,
    )


def _answer_metrics(index: Index, labelled: LabelledSet, method: str, unit: str, calibration=None):
    """Answer quality, refusal rates and (confidence, evidence passage relevant) per query.

    Each question is asked once with refusal off: ``answer_contains`` measures
    the whole extractive answer (its sentences), ``answer_exact`` and
    ``answer_f1`` its short answer (``Answer.short_answer``; the sentences
    when it has none); ``answered_contains`` counts a refused answer as
    empty; a question is refused when its confidence is below the default
    threshold, exactly as ``ask`` decides. ``confident_wrong`` is the share of
    the answered questions (answerable or not) whose cited passage (the short
    answer's, or by document when judged by document) is not relevant; an
    answered unanswerable question is always wrong."""
    if not labelled.references and not labelled.unanswerable:
        return {}, {}, {}, {}, {}, {}
    from dataclasses import replace

    from regrag.answer.confidence import REFUSAL_THRESHOLD
    from regrag.answer.options import AskOptions
    from regrag.eval.metrics import mean

    def ask(question: str):
        if calibration is None:
            return index.ask(question, method=method, threshold=0.0)
        defaults = AskOptions()
        return index.ask(question, options=AskOptions(replace(defaults.search, method=method), defaults.max_sentences,
                                                      0.0, calibration))

    refused: dict[str, bool] = {}
    confidence: dict[str, tuple[float, bool]] = {}
    wrong: dict[str, bool] = {}
    contains, answered, exact, f1 = [], [], [], []

    def cited(answer) -> str | None:
        short = answer.short_answer
        source = short if short is not None else (answer.sentences[0] if answer.sentences else None)
        if source is None:
            return None
        return source.passage_id if unit == "passage" else source.document_id

    found: dict[str, bool] = {}
    cited_wrong: dict[str, bool] = {}
    for query_id, references in labelled.references.items():
        answer = ask(labelled.queries[query_id])
        found[query_id] = answer.found
        refused[query_id] = answer.confidence.value < REFUSAL_THRESHOLD or not answer.found
        # the evidence passage the confidence was measured on (regrag.answer.evidence_choice)
        top = next((hit for hit in answer.hits if hit.passage_id == answer.confidence.top_passage_id), None)
        top_id = None if top is None else (top.passage_id if unit == "passage" else top.document_id)
        confidence[query_id] = (answer.confidence.value, top_id is not None and labelled.qrels[query_id].get(top_id, 0) > 0)
        source = cited(answer)
        cited_wrong[query_id] = source is None or labelled.qrels[query_id].get(source, 0) <= 0
        if not refused[query_id]:
            wrong[query_id] = cited_wrong[query_id]
        short = answer.short_answer.text if answer.short_answer is not None else answer.text
        contains.append(contains_reference(answer.text, references))
        answered.append(0.0 if refused[query_id] else contains[-1])
        exact.append(exact_match(short, references))
        f1.append(token_f1(short, references))
    for query_id in labelled.unanswerable:
        answer = ask(labelled.queries[query_id])
        found[query_id] = answer.found
        cited_wrong[query_id] = True
        refused[query_id] = answer.confidence.value < REFUSAL_THRESHOLD or not answer.found
        confidence[query_id] = (answer.confidence.value, False)
        if not refused[query_id]:
            wrong[query_id] = True
    metrics: dict[str, float] = {}
    if labelled.references:
        metrics["answer_contains"] = mean(contains)
        metrics["answered_contains"] = mean(answered)
        metrics["answer_exact"] = mean(exact)
        metrics["answer_f1"] = mean(f1)
        metrics["refused_answerable"] = mean([1.0 if refused[q] else 0.0 for q in labelled.references])
    if labelled.unanswerable:
        metrics["refused_unanswerable"] = mean([1.0 if refused[q] else 0.0 for q in labelled.unanswerable])
    metrics["confident_wrong"] = mean([1.0 if wrong[q] else 0.0 for q in sorted(wrong)]) if wrong else 0.0
    return metrics, refused, confidence, wrong, found, cited_wrong
