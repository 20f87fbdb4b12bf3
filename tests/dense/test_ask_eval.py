"""``ask`` and ``eval`` with ``--method dense|fused``, and ``eval --method
ablation`` (bm25, tfidf, dense, each pair, all three), on a tiny labelled
folder with the small deterministic embedder of tests/dense/support.py."""

from __future__ import annotations

import json

import pytest

from regrag import Index
from regrag.cli import main
from regrag.dense import generation
from regrag.dense.answers import DenseMethod, dense_answer
from regrag.dense.search import DenseSearcher
from regrag.dense.store import embed_index
from regrag.eval.ablation import ABLATION, ListFusion, dense_methods
from regrag.eval.run import evaluate_folder
from regrag.retrieval.fusion import reciprocal_rank_fusion
from tests.dense.support import HashingEmbedder

DOCUMENTS = [
    {"id": "fees", "title": "Fees", "text": "The account fee is 5 dollars a month. Fees are charged on the first day."},
    {"id": "rates", "title": "Rates", "text": "The deposit rate is 3 percent a year. Rates change in January."},
    {"id": "loans", "title": "Loans", "text": "A loan needs two guarantors. Loans are approved within ten days."},
    {"id": "cards", "title": "Cards", "text": "A lost card is blocked at once. Cards expire after four years."},
]
QUERIES = {"q1": "what is the account fee", "q2": "deposit rate per year", "q3": "how many guarantors for a loan",
           "q4": "when do cards expire"}
QRELS = {"q1": "fees", "q2": "rates", "q3": "loans", "q4": "cards"}


@pytest.fixture()
def folder(tmp_path):
    root = tmp_path / "labelled"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": d["id"], "title": d["title"], "text": d["text"]}) + "\n"
                                               for d in DOCUMENTS))
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in QUERIES.items()))
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n"
                                             + "".join(f"{q}\t{d}\t1\n" for q, d in QRELS.items()))
    (root / "answers.jsonl").write_text(json.dumps({"_id": "q1", "answerable": True, "answer": "5 dollars"}) + "\n")
    return root


@pytest.fixture()
def stored(folder, tmp_path):
    directory = tmp_path / "index"
    assert main(["index", str(folder), "--out", str(directory), "--quiet"]) == 0
    index = Index.open(directory)
    generation.publish_vectors(directory, index, embed_index(index, HashingEmbedder()))
    return directory


@pytest.fixture()
def test_embedder(monkeypatch):
    monkeypatch.setattr("regrag.adapters.choose.embedder_for", lambda identity: HashingEmbedder())


def searcher_of(directory):
    index = Index.open(directory)
    return DenseSearcher(index, generation.load(directory, index), HashingEmbedder())


def test_a_dense_answer_is_extracted_from_the_dense_hits(stored):
    searcher = searcher_of(stored)
    for method in ("dense", "fused", "rerank"):
        answer = dense_answer(searcher, "what is the account fee", method, threshold=0.0)
        hits = searcher.search("what is the account fee", k=5, method=method)
        assert [h.to_json() for h in answer.hits] == [h.to_json() for h in hits]
        assert answer.index_id == searcher.dense_index_id and answer.found
        assert {s.passage_id for s in answer.sentences} <= {h.passage_id for h in hits[:3]}


def test_the_eval_methods_rank_as_search_does(stored):
    searcher = searcher_of(stored)
    index = searcher.index
    for method in ("dense", "fused", "rerank"):
        ranking = DenseMethod(searcher, method).ranking("deposit rate per year", k=4)
        hits = searcher.search("deposit rate per year", k=4, method=method)
        assert [(d, p) for d, p, _s in ranking] == [(h.document_id, h.passage_id) for h in hits]
        assert [s for _d, _p, s in ranking] == [h.score for h in hits]
    made = dense_methods(ABLATION, index, searcher.vectors, searcher.embedder)
    assert sorted(made) == sorted(ABLATION) and len(ABLATION) == 7
    query = "how many guarantors for a loan"
    assert made["bm25+tfidf+dense"].ranking(query, k=4) == DenseMethod(searcher, "fused").ranking(query, k=4)
    analyzed = index.analyze_query(query)
    bm25 = [p for p, _s in index.rank_positions(analyzed, "bm25", 100)]
    tfidf = [p for p, _s in index.rank_positions(analyzed, "tfidf", 100)]
    expected = [index.passage_id(p) for p, _s, _b in reciprocal_rank_fusion([bm25, tfidf])][:4]
    assert [p for _d, p, _s in made["bm25+tfidf"].ranking(query, k=4)] == expected
    assert [p for _d, p, _s in made["bm25"].ranking(query, k=4)] == [index.passage_id(p) for p in bm25[:4]]
    with pytest.raises(Exception, match="not a combination"):
        ListFusion(searcher, ("bm25", "bm25"), lambda q: ())


def test_eval_with_the_dense_methods_and_the_ablation(folder, stored, test_embedder, capsys):
    assert main(["eval", "--beir", str(folder), "--index", str(stored), "--method", "fused", "--json", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(report["methods"]) == ["fused"] and "answers" in report["methods"]["fused"]
    assert report["methods"]["fused"]["metrics"]["hit@1"] > 0
    assert main(["eval", "--beir", str(folder), "--index", str(stored), "--method", "ablation", "--quiet"]) == 0
    out = capsys.readouterr().out
    for name in ABLATION:
        assert f"  {name} " in out
    # the same figures from the library, and the lexical methods as before
    index = Index.open(stored)
    vectors = generation.load(stored, index)
    extra = dense_methods(("dense",), index, vectors, HashingEmbedder())
    both = evaluate_folder(folder, methods=("bm25", "dense"), index=index, extra_methods=extra)
    alone = evaluate_folder(folder, methods=("bm25",), index=index)
    assert both.result("bm25").metrics == alone.result("bm25").metrics
    assert both.result("dense").answer_metrics


def test_ask_dense_records_and_replays_without_the_embedder(stored, test_embedder, tmp_path, capsys, monkeypatch):
    ledger = tmp_path / "ledger.jsonl"
    assert main(["ask", "what is the account fee", "--index", str(stored), "--method", "fused",
                 "--ledger", str(ledger), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["found"] and all(hit["method"] == "fused" for hit in answer["hits"])
    [record] = [json.loads(line)["record"] for line in ledger.read_text().splitlines()]
    assert record["command"] == "ask" and len(record["dense"]["query_vector"]) == 32

    def unavailable(identity):
        raise AssertionError("the replay must not build an embedder")

    monkeypatch.setattr("regrag.adapters.choose.embedder_for", unavailable)
    assert main(["ledger", "replay", str(ledger), "--index", str(stored)]) == 0
    assert "1 of 1 records replayed identically" in capsys.readouterr().out
