"""Index parameters: everything besides the documents and the analyzer that
changes scores. They are part of the index id."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from regrag.errors import InputError


@dataclass(frozen=True)
class IndexParameters:
    """BM25's ``k1`` and ``b``, the title weight, and the passage length bound (characters)."""

    k1: float = 1.5
    b: float = 0.75
    title_weight: float = 3.0
    max_passage_chars: int = 4000

    def __post_init__(self) -> None:
        for name in ("k1", "b", "title_weight"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise InputError(f"parameter {name} must be a finite number, got {value!r}")
            object.__setattr__(self, name, float(value))
        if self.k1 < 0:
            raise InputError(f"parameter k1 must be >= 0, got {self.k1!r}")
        if not 0.0 <= self.b <= 1.0:
            raise InputError(f"parameter b must be between 0 and 1, got {self.b!r}")
        if self.title_weight < 0:
            raise InputError(f"parameter title_weight must be >= 0, got {self.title_weight!r}")
        if isinstance(self.max_passage_chars, bool) or not isinstance(self.max_passage_chars, int) or self.max_passage_chars < 50:
            raise InputError(f"parameter max_passage_chars must be an integer >= 50, got {self.max_passage_chars!r}")

    def to_dict(self) -> dict:
        return asdict(self)


def weighted_count(body: float, title: float, title_weight: float) -> float:
    """BM25F-style field weighting: ``body + title_weight · title``. Used for
    term frequencies and for lengths, at indexing and in explanations alike."""
    return body + title_weight * title
