"""Answer metrics: does the extractive answer hold the reference answer?

- ``contains``: the normalised answer text contains a normalised reference;
- ``exact``: the normalised answer equals a normalised reference;
- ``token_f1``: F1 between the multisets of analyzer terms (no stemming, no
  stopwords: the ``zh`` rules, with CJK bigrams) of the answer and the best
  reference, as in SQuAD but language-aware.
Normalisation is NFKC + casefold with runs of whitespace collapsed.
Refusal rates count, among answerable and unanswerable questions, how many
``ask`` refused.
"""

from __future__ import annotations

from collections import Counter

from regrag.text.analyzer import Analyzer
from regrag.text.normalize import normalize_term

_TOKENS = Analyzer("zh")


def normalize_answer(text: str) -> str:
    return " ".join(normalize_term(text).split())


def contains_reference(answer: str, references: tuple[str, ...]) -> float:
    normalized = normalize_answer(answer)
    return 1.0 if any(normalize_answer(r) and normalize_answer(r) in normalized for r in references) else 0.0


def exact_match(answer: str, references: tuple[str, ...]) -> float:
    normalized = normalize_answer(answer)
    return 1.0 if any(normalize_answer(r) == normalized for r in references) else 0.0


def token_f1(answer: str, references: tuple[str, ...]) -> float:
    """Best F1 over the references between analyzer-term multisets."""
    answer_terms = Counter(term for term, _s, _e in _TOKENS.analyze(answer))
    best = 0.0
    for reference in references:
        reference_terms = Counter(term for term, _s, _e in _TOKENS.analyze(reference))
        common = sum((answer_terms & reference_terms).values())
        if common == 0:
            continue
        precision = common / sum(answer_terms.values())
        recall = common / sum(reference_terms.values())
        best = max(best, 2 * precision * recall / (precision + recall))
    return best
