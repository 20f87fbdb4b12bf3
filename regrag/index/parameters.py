"""Index parameters: everything besides the documents and the analyzer that
changes scores. They are part of the index id."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from regrag.errors import InputError
from regrag.scoring.bm25 import BM25Scorer
from regrag.scoring.tfidf import TfidfScorer
from regrag.validation import is_finite_number, is_int


# Accepted ranges (docs/scoring.md, "Parameter ranges"). The upper bounds keep
# every intermediate of BM25 and TF-IDF far below the largest double for any
# index within regrag.limits.Limits (weighted counts stay below 2**53, so
# integer-weighted counts are exact); the smallest positive title weight keeps
# the square of a title-only term's TF-IDF weight from underflowing to 0
# (a passage whose body has no term would get a zero norm).
K1_MAX = 1000.0
TITLE_WEIGHT_MIN = 0.001  # or exactly 0: titles ignored
TITLE_WEIGHT_MAX = 1000.0
MAX_PASSAGE_CHARS_MIN = 50
MAX_PASSAGE_CHARS_MAX = 2**31 - 1  # character offsets are stored as 32-bit integers


@dataclass(frozen=True)
class IndexParameters:
    """BM25's ``k1`` and ``b``, the title weight, and the passage length bound (characters).

    ``InputError`` naming the field and its range for anything outside
    0 ≤ k1 ≤ 1000, 0 ≤ b ≤ 1, title_weight 0 or 0.001–1000, and an integer
    max_passage_chars 50–2**31−1."""

    k1: float = 1.5
    b: float = 0.75
    title_weight: float = 3.0
    max_passage_chars: int = 4000

    def __post_init__(self) -> None:
        for name in ("k1", "b", "title_weight"):
            value = getattr(self, name)
            if not is_finite_number(value):
                raise InputError(f"parameter {name} must be a finite number, got {value!r}")
            object.__setattr__(self, name, float(value) + 0.0)  # + 0.0: -0.0 becomes 0.0 (one index id)
        if not 0.0 <= self.k1 <= K1_MAX:
            raise InputError(f"parameter k1 must be between 0 and {K1_MAX:g}, got {self.k1!r}")
        if not 0.0 <= self.b <= 1.0:
            raise InputError(f"parameter b must be between 0 and 1, got {self.b!r}")
        if not (self.title_weight == 0.0 or TITLE_WEIGHT_MIN <= self.title_weight <= TITLE_WEIGHT_MAX):
            raise InputError(f"parameter title_weight must be 0 or between {TITLE_WEIGHT_MIN:g} and "
                             f"{TITLE_WEIGHT_MAX:g}, got {self.title_weight!r}")
        chars = self.max_passage_chars
        if (not is_int(chars)
                or not MAX_PASSAGE_CHARS_MIN <= chars <= MAX_PASSAGE_CHARS_MAX):
            raise InputError(f"parameter max_passage_chars must be an integer between {MAX_PASSAGE_CHARS_MIN} and "
                             f"{MAX_PASSAGE_CHARS_MAX:,}, got {chars!r}")

    def to_dict(self) -> dict:
        return asdict(self)


def bm25_scorer(parameters: IndexParameters, average_length: float) -> BM25Scorer:
    """The BM25 scorer of an index with these parameters and this average weighted length."""
    return BM25Scorer(parameters.k1, parameters.b, parameters.title_weight, average_length)


def tfidf_scorer(parameters: IndexParameters) -> TfidfScorer:
    """The TF-IDF scorer of an index with these parameters."""
    return TfidfScorer(parameters.title_weight)
