"""ROUGE-1, ROUGE-2 and ROUGE-L for scoring generated answers against references.

Definitions (Lin 2004, as computed by Google's ``rouge-score`` package, whose
figures these reproduce to 1e-9 when both are given the same tokens; see
``bench/crosscheck_rouge.py`` and docs/rouge.md):

- ROUGE-N: the n-grams of each token list counted as a multiset; the overlap
  is the *clipped* count, the sum over n-grams of min(count in candidate,
  count in reference), so a repeated candidate n-gram earns credit only as
  often as the reference has it. Precision = overlap / candidate n-grams,
  recall = overlap / reference n-grams; a side with no n-grams (empty, or
  shorter than n) divides by 1 instead of 0, so its scores are 0.
- ROUGE-L: sentence-level LCS (``rougeL``, not the summary-level
  ``rougeLsum``). Precision = LCS length / candidate length, recall = LCS
  length / reference length; when either list is empty all three are 0.
- F-measure = 2PR / (P + R), and 0 when P + R = 0 (F1, beta = 1).

So an empty candidate, an empty reference, or both empty score 0 on every
figure: there is no "both empty means a perfect match" rule, as in rouge-score.

Tokens (:func:`rouge_tokens`) are regrag's analyzer tokens without the
analyzer's retrieval-only rules: no stemming, no stopwords, Vietnamese
syllables but not syllable pairs, CJK as single characters rather than
bigrams. rouge-score's default tokenizer keeps only ``[a-z0-9]`` runs of the
lower-cased text, so it cuts Vietnamese words at every accented letter
("tăng" gives "t", "ng") and drops Chinese entirely; that is why regrag
tokenises itself and the cross-check gives both the same token lists.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from regrag.errors import InputError
from regrag.text.analyzer import ANALYZER_NAMES
from regrag.text.normalize import normalize_with_offsets
from regrag.text.tokenize import CJK_RUN, tokenize
from regrag.validation import is_int

__all__ = [
    "ROUGE_TYPES",
    "RougeScore",
    "mean_scores",
    "rouge_l",
    "rouge_n",
    "rouge_scores",
    "rouge_tokens",
]

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")


@dataclass(frozen=True)
class RougeScore:
    """Precision, recall and F-measure of one ROUGE variant, each in [0, 1]."""

    precision: float
    recall: float
    fmeasure: float


def _fmeasure(precision: float, recall: float) -> float:
    """F1 = 2PR / (P + R); 0 when P + R = 0. Written as rouge-score writes it,
    so the floating-point result is bit-identical."""
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def _ngram_counts(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    """Multiset of the contiguous n-grams of ``tokens`` (empty when fewer than n tokens)."""
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def rouge_n(candidate_tokens: Sequence[str], reference_tokens: Sequence[str], n: int) -> RougeScore:
    """ROUGE-N with clipped n-gram counts. A side without n-grams divides by 1,
    so its scores are 0 rather than undefined (as in rouge-score)."""
    if not is_int(n) or n < 1:
        raise InputError(f"ROUGE-N needs a positive integer n, got {n!r}")
    candidate = _ngram_counts(candidate_tokens, n)
    reference = _ngram_counts(reference_tokens, n)
    overlap = sum(min(count, reference[ngram]) for ngram, count in candidate.items())
    precision = overlap / max(sum(candidate.values()), 1)
    recall = overlap / max(sum(reference.values()), 1)
    return RougeScore(precision, recall, _fmeasure(precision, recall))


def _lcs_length(first: Sequence[str], second: Sequence[str]) -> int:
    """Length of a longest common subsequence: the classic dynamic programme,
    one row at a time over the shorter sequence (O(len1 x len2) time,
    O(min(len1, len2)) memory). Only the length matters, so ties between
    different longest subsequences cannot change a score."""
    if len(second) > len(first):
        first, second = second, first
    previous = [0] * (len(second) + 1)
    for token in first:
        current = [0]
        for column, other in enumerate(second, start=1):
            if token == other:
                current.append(previous[column - 1] + 1)
            else:
                current.append(max(previous[column], current[column - 1]))
        previous = current
    return previous[-1]


def rouge_l(candidate_tokens: Sequence[str], reference_tokens: Sequence[str]) -> RougeScore:
    """Sentence-level ROUGE-L (rouge-score's ``rougeL``): LCS length over the
    candidate length (precision) and over the reference length (recall);
    all 0 when either side is empty."""
    if not candidate_tokens or not reference_tokens:
        return RougeScore(0.0, 0.0, 0.0)
    common = _lcs_length(candidate_tokens, reference_tokens)
    precision = common / len(candidate_tokens)
    recall = common / len(reference_tokens)
    return RougeScore(precision, recall, _fmeasure(precision, recall))


def rouge_tokens(text: str, language: str | None = None) -> list[str]:
    """The tokens regrag scores ROUGE on, in text order.

    The text is normalised as the analyzer does (NFKC + casefold, segment by
    segment) and split by regrag's tokenizer, so numbers stay whole
    (``1.318,42``, ``4,35%``), ``T+1`` and ``VN30`` are one token, and
    ``’`` inside a word becomes ``'``. Then, unlike the analyzer: nothing is
    stemmed or dropped as a stopword, a Vietnamese syllable is one token (no
    syllable pairs), and every CJK run is split into its single characters
    (code points of the normalised text) instead of bigrams, as ROUGE on
    Chinese is conventionally computed over characters.

    ``language`` (``None`` or one of ``auto``, ``en``, ``vi``, ``zh``) is
    checked but does not change the tokens: the rules that differ between
    the analyzer's languages are exactly the ones switched off here.
    """
    if language is not None and language not in ANALYZER_NAMES:
        raise InputError(f"unknown language {language!r}; choose one of {', '.join(ANALYZER_NAMES)}")
    normalized = normalize_with_offsets(text).text
    tokens: list[str] = []
    for kind, start, end in tokenize(normalized):
        if kind == CJK_RUN:
            tokens.extend(normalized[start:end])
        else:
            tokens.append(normalized[start:end].replace("\u2019", "'"))
    return tokens


def rouge_scores(candidate: str, reference: str, language: str | None = None) -> dict[str, RougeScore]:
    """ROUGE-1, ROUGE-2 and ROUGE-L of ``candidate`` against ``reference``,
    keyed ``rouge1``, ``rouge2``, ``rougeL``, over :func:`rouge_tokens`."""
    candidate_tokens = rouge_tokens(candidate, language)
    reference_tokens = rouge_tokens(reference, language)
    return {
        "rouge1": rouge_n(candidate_tokens, reference_tokens, 1),
        "rouge2": rouge_n(candidate_tokens, reference_tokens, 2),
        "rougeL": rouge_l(candidate_tokens, reference_tokens),
    }


def mean_scores(per_pair: Iterable[Mapping[str, RougeScore]]) -> dict[str, RougeScore]:
    """Macro average over pairs: for each ROUGE type, the arithmetic mean of
    the per-pair precisions, recalls and F-measures (``math.fsum``, so the
    result does not depend on the order of the pairs). The mean F is the
    mean of the per-pair Fs, not the F of the mean P and R. Every pair must
    have the same keys; no pairs gives an empty dict."""
    pairs = list(per_pair)
    if not pairs:
        return {}
    keys = list(pairs[0])
    for number, scores in enumerate(pairs, start=1):
        if set(scores) != set(keys):
            raise InputError(f"pair {number} has ROUGE types {sorted(scores)}, expected {sorted(keys)}")
    count = len(pairs)
    return {
        key: RougeScore(
            math.fsum(scores[key].precision for scores in pairs) / count,
            math.fsum(scores[key].recall for scores in pairs) / count,
            math.fsum(scores[key].fmeasure for scores in pairs) / count,
        )
        for key in keys
    }
