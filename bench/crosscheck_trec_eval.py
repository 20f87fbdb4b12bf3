"""Cross-check regrag's metrics against trec_eval (pytrec_eval) on a real run.

    python3 -m pip install -e ".[bench]"
    python3 bench/crosscheck_trec_eval.py [../shared/data/scifact] [--method bm25]

Builds the run with ``regrag.eval.run.evaluate_folder``, then scores the same
run with ``pytrec_eval`` (measures ``ndcg_cut_10``, ``recall_100``, ``map``,
``recip_rank`` on the run cut at 10, ``success_1``/``success_3``) and compares
every query's values; exits 1 if any differs by more than 1e-9.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from regrag.eval.beir import read_qrels  # noqa: E402
from regrag.eval.run import evaluate_folder  # noqa: E402

TOLERANCE = 1e-9
PAIRS = (("ndcg@10", "ndcg_cut_10"), ("recall@100", "recall_100"), ("map", "map"), ("hit@1", "success_1"), ("hit@3", "success_3"))


def main() -> int:
    parser = argparse.ArgumentParser(description="compare regrag's metrics with trec_eval's")
    parser.add_argument("beir", nargs="?", default=str(REPO.parent / "shared" / "data" / "scifact"))
    parser.add_argument("--method", default="bm25", choices=("bm25", "tfidf", "hybrid"))
    arguments = parser.parse_args()
    try:
        import pytrec_eval
    except ImportError:
        print("pytrec_eval is missing: python3 -m pip install -e '.[bench]'", file=sys.stderr)
        return 2
    report = evaluate_folder(arguments.beir, methods=(arguments.method,), answers=False)
    result = report.result(arguments.method)
    qrels = {q: {d: r for d, r in judged.items()} for q, judged in read_qrels(Path(arguments.beir) / "qrels" / "test.tsv").items()}
    run = {q: {d: s for d, s in hits} for q, hits in result.run.items() if hits}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100", "map", "success.1,3"}).evaluate(run)
    top10 = {q: dict(sorted(hits.items(), key=lambda item: (-item[1], _descending(item[0])))[:10]) for q, hits in run.items()}
    reciprocal = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top10)
    worst = 0.0
    compared = 0
    for query_id, ours in sorted(result.per_query.items()):
        expected = theirs.get(query_id)
        for our_name, their_name in PAIRS:
            value = expected[their_name] if expected else 0.0
            worst = max(worst, abs(ours[our_name] - value))
            compared += 1
        value = reciprocal[query_id]["recip_rank"] if query_id in reciprocal else 0.0
        worst = max(worst, abs(ours["mrr@10"] - value))
        compared += 1
    print(f"{arguments.beir} ({arguments.method}): {len(result.per_query)} queries, {compared} values compared, "
          f"largest difference {worst:.3g}")
    return 0 if worst <= TOLERANCE else 1


def _descending(text: str):
    """Sort key that orders strings descending inside an ascending sort (trec_eval's tie order)."""
    return tuple(-ord(c) for c in text) + (0,)


if __name__ == "__main__":
    sys.exit(main())
