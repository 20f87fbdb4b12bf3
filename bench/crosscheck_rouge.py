"""Cross-check regrag's ROUGE (regrag/eval/rouge.py) against Google's rouge-score.

    python3 -m pip install rouge-score
    python3 bench/crosscheck_rouge.py [--xquad ../shared/data/xquad_vi ...] [--limit N]

Pairs: every answerable question of ``corpora/vn-stock-news`` and of the XQuAD
folders (default ``../shared/data/xquad_vi`` and ``../shared/data/xquad_zh``,
skipped when absent), the reference being the gold answer (XQuAD: its first
answer). The candidate is a deterministic stand-in for a generated answer:
the text of ``Index.ask(question, method="bm25", max_sentences=1,
threshold=0.0)``, i.e. the best-supported sentence of the top BM25 passages
with refusal off (empty when no sentence matches the question).

Both sides are tokenised once with ``rouge_tokens``; the same token lists go
to regrag (``rouge_n``/``rouge_l``) and to ``rouge_scorer.RougeScorer`` through
a tokenizer that returns the tokens it is given, because rouge-score's default
tokenizer keeps only ``[a-z0-9]`` runs (Vietnamese words are cut at accented
letters, Chinese vanishes). Prints, per data set, the pairs and regrag's mean
F-measures (and, for information, rouge-score's means with its own default
tokenizer on the raw texts), then the number of pairs and values compared and
the largest absolute difference over all P/R/F values. Exit status 1 if that
difference exceeds 1e-9, 2 if rouge-score is missing.
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from regrag import Index  # noqa: E402
from regrag.eval.beir import read_answers, read_queries  # noqa: E402
from regrag.eval.rouge import ROUGE_TYPES, RougeScore, mean_scores, rouge_l, rouge_n, rouge_tokens  # noqa: E402

TOLERANCE = 1e-9
SHARED = REPO.parent / "shared" / "data"
VN_STOCK_NEWS = REPO / "corpora" / "vn-stock-news"
FIELDS = ("precision", "recall", "fmeasure")


class GivenTokens:
    """rouge-score tokenizer returning the token list it is passed: for
    ``rouge1``/``rouge2``/``rougeL``, ``RougeScorer.score`` hands its arguments
    straight to ``tokenize`` (checked in rouge-score 0.1.2)."""

    def tokenize(self, tokens: list[str]) -> list[str]:
        return list(tokens)


def answer_pairs(folder: Path, documents: Path, limit: int | None) -> list[tuple[str, str]]:
    """(candidate, reference) for each answerable question, in file order."""
    questions = read_queries(folder / "queries.jsonl")
    answers = read_answers(folder / "answers.jsonl")
    index = Index.from_path(documents)
    pairs: list[tuple[str, str]] = []
    for query_id, question in questions.items():
        answerable, references = answers.get(query_id, (False, ()))
        if not answerable or not references:
            continue
        answer = index.ask(question, method="bm25", max_sentences=1, threshold=0.0)
        pairs.append((answer.text, references[0]))
        if limit is not None and len(pairs) >= limit:
            break
    return pairs


def ours(candidate: list[str], reference: list[str]) -> dict[str, RougeScore]:
    return {
        "rouge1": rouge_n(candidate, reference, 1),
        "rouge2": rouge_n(candidate, reference, 2),
        "rougeL": rouge_l(candidate, reference),
    }


def largest_difference(mine: dict[str, RougeScore], theirs: dict[str, Any]) -> float:
    return max(abs(getattr(mine[key], field) - getattr(theirs[key], field)) for key in ROUGE_TYPES for field in FIELDS)


def format_f(scores: dict[str, float]) -> str:
    return " ".join(f"{key} {scores[key]:.4f}" for key in ROUGE_TYPES)


def main() -> int:
    parser = argparse.ArgumentParser(description="compare regrag's ROUGE with rouge-score's on the same tokens")
    parser.add_argument("--vn-stock-news", type=Path, default=VN_STOCK_NEWS, help="sample corpus folder")
    parser.add_argument("--xquad", type=Path, action="append",
                        help="XQuAD BEIR folder (repeatable; default ../shared/data/xquad_vi and xquad_zh)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many questions per data set")
    arguments = parser.parse_args()
    try:
        from rouge_score import rouge_scorer  # type: ignore[import-untyped]
    except ImportError:
        print("rouge-score is missing: python3 -m pip install rouge-score", file=sys.stderr)
        return 2
    logging.getLogger("absl").setLevel(logging.ERROR)  # rouge-score logs "Using default tokenizer."
    given = rouge_scorer.RougeScorer(list(ROUGE_TYPES), tokenizer=GivenTokens())
    default = rouge_scorer.RougeScorer(list(ROUGE_TYPES))

    data_sets = [("vn-stock-news", arguments.vn_stock_news, arguments.vn_stock_news / "documents")]
    for folder in arguments.xquad or [SHARED / "xquad_vi", SHARED / "xquad_zh"]:
        if not folder.is_dir():
            print(f"{folder}: not found, skipped", file=sys.stderr)
            continue
        data_sets.append((folder.name, folder, folder))

    worst = 0.0
    pair_count = 0
    for name, folder, documents in data_sets:
        pairs = answer_pairs(folder, documents, arguments.limit)
        per_pair: list[dict[str, RougeScore]] = []
        default_f: dict[str, list[float]] = {key: [] for key in ROUGE_TYPES}
        empty_candidates = 0
        for candidate_text, reference_text in pairs:
            candidate, reference = rouge_tokens(candidate_text), rouge_tokens(reference_text)
            empty_candidates += not candidate
            mine = ours(candidate, reference)
            per_pair.append(mine)
            worst = max(worst, largest_difference(mine, given.score(reference, candidate)))  # (target, prediction)
            theirs_default = default.score(reference_text, candidate_text)
            for key in ROUGE_TYPES:
                default_f[key].append(theirs_default[key].fmeasure)
        pair_count += len(pairs)
        mean = mean_scores(per_pair)
        print(f"{name}: {len(pairs)} pairs ({empty_candidates} empty candidates); mean F (regrag tokens) "
              f"{format_f({key: mean[key].fmeasure for key in ROUGE_TYPES}) if mean else '-'}; "
              f"rouge-score default tokenizer on the raw texts "
              f"{format_f({key: math.fsum(v) / len(v) for key, v in default_f.items()}) if pairs else '-'}")
    compared = pair_count * len(ROUGE_TYPES) * len(FIELDS)
    print(f"{pair_count} pairs, {compared} values compared (P/R/F of {', '.join(ROUGE_TYPES)} on the same tokens), "
          f"largest absolute difference {worst:.3g}")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
