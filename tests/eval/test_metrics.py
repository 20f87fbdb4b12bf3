"""Metric tests against hand-computed values (arithmetic in the comments)."""

from __future__ import annotations

import math
import random

import pytest

from regrag.eval.metrics import (
    METRIC_NAMES,
    evaluate,
    hit_at_k,
    mean,
    ndcg_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
    trec_eval_order,
)

L2_3 = math.log2(3)
L2_4 = 2.0  # log2(4)
L2_5 = math.log2(5)


# --------------------------------------------------------------------- nDCG


def test_ndcg_binary_relevant_at_ranks_1_and_3():
    # relevant a (rank 1) and c (rank 3); two relevant judged.
    # DCG  = 1/log2(2) + 1/log2(4) = 1 + 0.5
    # IDCG = 1/log2(2) + 1/log2(3) = 1 + 0.6309...
    qrels = {"a": 1, "c": 1}
    got = ndcg_at_k(["a", "b", "c", "d"], qrels, 10)
    assert got == pytest.approx((1 + 1 / L2_4) / (1 + 1 / L2_3), abs=1e-15)
    assert got == pytest.approx(0.919720, abs=1e-6)


def test_ndcg_perfect_and_zero():
    qrels = {"a": 1, "b": 1}
    assert ndcg_at_k(["a", "b", "x"], qrels, 10) == 1.0
    assert ndcg_at_k(["b", "a"], qrels, 10) == 1.0
    assert ndcg_at_k(["x", "y"], qrels, 10) == 0.0
    assert ndcg_at_k([], qrels, 10) == 0.0


def test_ndcg_graded_relevance():
    # qrels: a=2, b=1, c=3; ranking b, x, a, c
    # DCG  = 1/log2(2) + 0 + 2/log2(4) + 3/log2(5) = 1 + 1 + 3/2.3219... = 3.29203...
    # IDCG = 3/log2(2) + 2/log2(3) + 1/log2(4)      = 3 + 1.26186 + 0.5   = 4.76186...
    qrels = {"a": 2, "b": 1, "c": 3}
    got = ndcg_at_k(["b", "x", "a", "c"], qrels, 10)
    expected = (1 + 2 / L2_4 + 3 / L2_5) / (3 + 2 / L2_3 + 1 / L2_4)
    assert got == pytest.approx(expected, abs=1e-15)
    assert got == pytest.approx(0.691333, abs=1e-6)


def test_ndcg_cut_applies_to_dcg_and_ideal():
    # k=2, qrels a=3, b=2, c=1; ranking c, a, b
    # DCG@2  = 1/log2(2) + 3/log2(3)        = 1 + 1.89279 = 2.89279
    # IDCG@2 = 3/log2(2) + 2/log2(3)        = 3 + 1.26186 = 4.26186
    qrels = {"a": 3, "b": 2, "c": 1}
    got = ndcg_at_k(["c", "a", "b"], qrels, 2)
    assert got == pytest.approx((1 + 3 / L2_3) / (3 + 2 / L2_3), abs=1e-15)


def test_ndcg_ideal_counts_unretrieved_relevant():
    # Three relevant judged, only one retrieved, at rank 1.
    # DCG = 1; IDCG = 1 + 1/log2(3) + 1/log2(4) = 2.13093
    qrels = {"a": 1, "b": 1, "c": 1}
    got = ndcg_at_k(["a"], qrels, 10)
    assert got == pytest.approx(1 / (1 + 1 / L2_3 + 0.5), abs=1e-15)


def test_ndcg_nonpositive_relevance_gives_no_gain():
    # b=0 and c=-1 are judged but not relevant: no gain, not in the ideal.
    # DCG = 1/log2(4) (a at rank 3) = 0.5; IDCG = 1
    qrels = {"a": 1, "b": 0, "c": -1}
    assert ndcg_at_k(["b", "c", "a"], qrels, 10) == 0.5


def test_ndcg_no_relevant_judgments_is_zero():
    assert ndcg_at_k(["a", "b"], {}, 10) == 0.0
    assert ndcg_at_k(["a", "b"], {"a": 0, "b": -1}, 10) == 0.0


def test_ndcg_k_larger_than_ranking():
    # Ranking of 2 with k=10: rank 2 relevant. DCG = 1/log2(3); IDCG = 1.
    assert ndcg_at_k(["x", "a"], {"a": 1}, 10) == pytest.approx(1 / L2_3, abs=1e-15)


def test_ndcg_duplicates_count_once():
    # "a" then "a" again then "b": distinct ranking is a, b.
    # DCG = 1 + 1/log2(3) = IDCG -> 1.0 (the repeat of "a" adds nothing
    # and does not push "b" to rank 3).
    qrels = {"a": 1, "b": 1}
    assert ndcg_at_k(["a", "a", "b"], qrels, 10) == 1.0
    # k counts distinct documents: at k=2 "b" is still in.
    assert ndcg_at_k(["a", "a", "b"], qrels, 2) == 1.0


# ------------------------------------------------------------------- recall


def test_recall():
    qrels = {"a": 1, "b": 2, "c": 1, "d": 0}
    ranking = ["x", "a", "d", "b", "y"]
    # relevant = a, b, c (d has 0). top-2 finds a: 1/3; top-5 finds a, b: 2/3.
    assert recall_at_k(ranking, qrels, 2) == pytest.approx(1 / 3)
    assert recall_at_k(ranking, qrels, 5) == pytest.approx(2 / 3)
    # k beyond the ranking: same as the whole ranking.
    assert recall_at_k(ranking, qrels, 100) == pytest.approx(2 / 3)
    assert recall_at_k(["a", "b", "c"], qrels, 3) == 1.0


def test_recall_no_relevant_and_duplicates():
    assert recall_at_k(["a"], {"a": 0}, 10) == 0.0
    assert recall_at_k(["a"], {}, 10) == 0.0
    # Duplicate "a" counted once: 1 of 2 relevant, not 2 of 2.
    assert recall_at_k(["a", "a"], {"a": 1, "b": 1}, 10) == 0.5
    # Duplicates dropped before the cut: distinct top-2 is a, b.
    assert recall_at_k(["a", "a", "b"], {"a": 1, "b": 1}, 2) == 1.0


# ----------------------------------------------------------- reciprocal rank


def test_reciprocal_rank():
    qrels = {"c": 1, "e": 2}
    ranking = ["a", "b", "c", "d", "e"]
    # first relevant is c at rank 3 -> 1/3
    assert reciprocal_rank_at_k(ranking, qrels, 10) == pytest.approx(1 / 3)
    # cut at 2: nothing relevant in the top 2
    assert reciprocal_rank_at_k(ranking, qrels, 2) == 0.0
    # exactly at the cut
    assert reciprocal_rank_at_k(ranking, qrels, 3) == pytest.approx(1 / 3)
    assert reciprocal_rank_at_k(["c"], qrels, 10) == 1.0
    assert reciprocal_rank_at_k([], qrels, 10) == 0.0
    # relevance 0 is not relevant
    assert reciprocal_rank_at_k(["z", "c"], {"z": 0, "c": 1}, 10) == 0.5


def test_reciprocal_rank_duplicates():
    # distinct ranking a, c -> c at rank 2 -> 1/2
    assert reciprocal_rank_at_k(["a", "a", "a", "c"], {"c": 1}, 10) == 0.5
    # the 11th raw position is the 2nd distinct one -> still within k=10
    assert reciprocal_rank_at_k(["a"] * 10 + ["c"], {"c": 1}, 10) == 0.5


# ---------------------------------------------------------------------- hit


def test_hit():
    qrels = {"b": 1}
    assert hit_at_k(["b", "a"], qrels, 1) == 1.0
    assert hit_at_k(["a", "b"], qrels, 1) == 0.0
    assert hit_at_k(["a", "b"], qrels, 2) == 1.0
    assert hit_at_k([], qrels, 1) == 0.0
    assert hit_at_k(["b"], {"b": 0}, 1) == 0.0


def test_invalid_arguments():
    with pytest.raises(ValueError):
        ndcg_at_k(["a"], {"a": 1}, 0)
    with pytest.raises(ValueError):
        recall_at_k(["a"], {"a": 1}, -1)
    with pytest.raises(TypeError):
        hit_at_k("ab", {"a": 1}, 1)
    with pytest.raises(ValueError):
        evaluate({}, {"q": {"a": 1}}, depth=0)


# --------------------------------------------------------------------- mean


def test_mean():
    assert mean([]) == 0.0
    assert mean([1.0, 0.0, 0.5]) == 0.5
    # fsum is exactly rounded: order does not matter
    values = [1e16, 1.0, -1e16, 0.1, 0.2, 0.3]
    assert mean(values) == mean(list(reversed(values)))
    assert mean(values) == math.fsum(values) / 6
    assert mean([0.1] * 10) == pytest.approx(0.1, abs=0)


# ------------------------------------------------------------ trec ordering


def test_trec_eval_order_ties_by_docno_descending():
    scored = [("d1", 1.0), ("d3", 2.0), ("d2", 2.0), ("d10", 1.0), ("a", 0.5)]
    # score descending; ties by docno descending: "d3" > "d2", and
    # "d10" > "d1" (same prefix, longer string sorts after)
    assert trec_eval_order(scored) == ["d3", "d2", "d10", "d1", "a"]
    with pytest.raises(ValueError):
        trec_eval_order([("a", float("nan"))])


# ----------------------------------------------------------------- evaluate


def test_evaluate_hand_computed():
    qrels = {
        "q1": {"a": 1, "c": 1},
        "q2": {"x": 2, "y": 1},
        "q3": {"m": 1},  # missing from the run: counts as 0 (trec_eval -c)
        # No relevant document: left out of the means.  (trec_eval -c would
        # still count it in the denominator, with 0 on every measure.)
        "q4": {"n": 0},
    }
    run = {
        "q1": ["a", "b", "c"],
        "q2": ["z", "y", "x"],
        "q9": ["a"],  # not in qrels: ignored
    }
    result = evaluate(run, qrels)
    assert list(result["per_query"]) == ["q1", "q2", "q3"]
    assert result["num_queries"] == 3
    assert result["num_missing"] == 1
    q1, q2, q3 = (result["per_query"][q] for q in ("q1", "q2", "q3"))

    # q1: ndcg = (1 + 1/log2(4)) / (1 + 1/log2(3)); recall 2/2; rr 1; hit 1
    ndcg1 = (1 + 0.5) / (1 + 1 / L2_3)
    # map: relevant at ranks 1 and 3 -> (1/1 + 2/3) / 2; hit@3 1
    assert q1 == pytest.approx({"ndcg@10": ndcg1, "recall@100": 1.0, "mrr@10": 1.0, "hit@1": 1.0,
                                "hit@3": 1.0, "map": (1 + 2 / 3) / 2})
    # q2: y (1) at rank 2, x (2) at rank 3
    #   DCG = 1/log2(3) + 2/log2(4) = 0.63093 + 1 ; IDCG = 2 + 1/log2(3)
    #   recall 2/2; rr = 1/2; hit@1 = 0
    ndcg2 = (1 / L2_3 + 2 / L2_4) / (2 + 1 / L2_3)
    # map: relevant at ranks 2 and 3 -> (1/2 + 2/3) / 2
    assert q2 == pytest.approx({"ndcg@10": ndcg2, "recall@100": 1.0, "mrr@10": 0.5, "hit@1": 0.0,
                                "hit@3": 1.0, "map": (1 / 2 + 2 / 3) / 2})
    assert q3 == {"ndcg@10": 0.0, "recall@100": 0.0, "mrr@10": 0.0, "hit@1": 0.0, "hit@3": 0.0, "map": 0.0}

    means = result["means"]
    assert list(means) == list(METRIC_NAMES)
    assert means["ndcg@10"] == pytest.approx((ndcg1 + ndcg2 + 0) / 3, abs=1e-15)
    assert means["recall@100"] == pytest.approx(2 / 3)
    assert means["mrr@10"] == pytest.approx(1.5 / 3)
    assert means["hit@1"] == pytest.approx(1 / 3)


def test_evaluate_depth_truncation():
    qrels = {"q": {"r": 1}}
    run = {"q": ["a", "b", "c", "r"]}  # relevant at rank 4
    # depth 3 drops "r": everything 0
    cut = evaluate(run, qrels, depth=3)["per_query"]["q"]
    assert cut == {"ndcg@10": 0.0, "recall@100": 0.0, "mrr@10": 0.0, "hit@1": 0.0, "hit@3": 0.0, "map": 0.0}
    # depth 4 keeps it: ndcg = 1/log2(5), recall 1, rr 1/4
    full = evaluate(run, qrels, depth=4)["per_query"]["q"]
    assert full == pytest.approx({"ndcg@10": 1 / L2_5, "recall@100": 1.0, "mrr@10": 0.25, "hit@1": 0.0,
                                  "hit@3": 0.0, "map": 0.25})
    # depth counts distinct ids: the repeated "a" does not use up a slot
    dup = evaluate({"q": ["a", "a", "b", "c", "r"]}, qrels, depth=4)["per_query"]["q"]
    assert dup == full


def test_evaluate_recall_at_100_needs_depth_100():
    relevant = {f"r{i}": 1 for i in range(4)}
    ranking = [f"n{i}" for i in range(98)] + ["r0", "r1", "r2", "r3"]
    # r0, r1 at ranks 99, 100 -> recall@100 = 2/4
    result = evaluate({"q": ranking}, {"q": relevant})
    assert result["per_query"]["q"]["recall@100"] == 0.5


def test_evaluate_empty():
    result = evaluate({"q": ["a"]}, {})
    assert result["num_queries"] == 0
    assert result["means"] == {name: 0.0 for name in METRIC_NAMES}


def test_evaluate_deterministic_regardless_of_dict_order():
    rng = random.Random(7)
    qrels = {f"q{i}": {f"d{j}": rng.randint(0, 3) for j in range(0, 30, 3)} for i in range(20)}
    run = {q: [f"d{j}" for j in rng.sample(range(40), 25)] for q in qrels}
    a = evaluate(run, qrels)
    b = evaluate(dict(reversed(list(run.items()))), dict(reversed(list(qrels.items()))))
    assert a == b


# -------------------------------------------------- optional pytrec_eval check


def test_cross_check_with_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = random.Random(1234)
    docs = [f"d{i}" for i in range(60)]
    qrels: dict[str, dict[str, int]] = {}
    scored_run: dict[str, dict[str, float]] = {}
    for q in range(50):
        qid = f"q{q}"
        judged = rng.sample(docs, rng.randint(1, 15))
        qrels[qid] = {d: rng.choice([0, 1, 1, 2, 3]) for d in judged}
        hits = rng.sample(docs, rng.randint(0, 40))
        # coarse scores to create ties that trec_eval breaks by docno
        scored_run[qid] = {d: float(rng.randint(0, 5)) for d in hits}
    run = {q: trec_eval_order(s.items()) for q, s in scored_run.items()}
    ours = evaluate(run, qrels)["per_query"]

    full = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100", "success.1"})
    theirs = full.evaluate({q: s for q, s in scored_run.items() if s})
    top10 = {q: {d: scored_run[q][d] for d in run[q][:10]} for q in run if run[q]}
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top10)
    for qid, values in theirs.items():
        if not any(rel > 0 for rel in qrels[qid].values()):
            continue
        assert ours[qid]["ndcg@10"] == pytest.approx(values["ndcg_cut_10"], abs=1e-12)
        assert ours[qid]["recall@100"] == pytest.approx(values["recall_100"], abs=1e-12)
        assert ours[qid]["hit@1"] == pytest.approx(values["success_1"], abs=1e-12)
        assert ours[qid]["mrr@10"] == pytest.approx(rr[qid]["recip_rank"], abs=1e-12)


# --- average precision and hit@3 (added with the evaluation report) ---------

from regrag.eval.metrics import average_precision  # noqa: E402


def test_average_precision_by_hand():
    qrels = {"a": 1, "b": 1, "c": 1}
    # relevant at ranks 1 and 3, "c" never retrieved: (1/1 + 2/3) / 3
    assert average_precision(["a", "x", "b", "y"], qrels) == (1.0 + 2 / 3) / 3
    assert average_precision([], qrels) == 0.0
    assert average_precision(["x"], {}) == 0.0
    # graded relevance counts only as relevant / not relevant; duplicates count once
    assert average_precision(["a", "a", "b"], {"a": 2, "b": 1}) == (1.0 + 1.0) / 2


def test_evaluate_reports_hit_at_3_and_map():
    result = evaluate({"q": ["x", "y", "a"]}, {"q": {"a": 1}})
    assert result["per_query"]["q"]["hit@3"] == 1.0
    assert result["per_query"]["q"]["hit@1"] == 0.0
    assert result["per_query"]["q"]["map"] == 1 / 3
