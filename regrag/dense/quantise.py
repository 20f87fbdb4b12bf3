"""Quantised vectors and their exact scores.

**The rounding rule.** A component ``x`` (a finite float; embedders give
L2-normalised vectors, so ``|x| ≤ 1``) becomes the integer
``clamp(round_half_even(x · 127), −127, 127)``: ``x · 127`` is one IEEE
binary64 multiplication (exact for float32 inputs, whose 24-bit significands
times 7 bits fit in 53), ``round_half_even`` is Python's ``round``. So a
vector's quantised form is a function of its float values only.

**The score** of a passage for a query is the integer dot product
``Σ qᵢ · pᵢ`` of their quantised vectors: exact (at most 384 · 127² =
6,193,536 in absolute value for 384 dimensions, well inside int32), so it is
the same number on every machine, in any summation order, with or without
numpy. Rankings are by score descending, then index position (document id,
then passage number), as for the lexical methods.

**The hash** of a quantised vector is the SHA-256 of its components as
signed bytes (int8, in order): what a dense hit's provenance names and a
ledger entry stores the vector for.
"""

from __future__ import annotations

import hashlib
import heapq
import math
from array import array
from operator import mul
from typing import Sequence

from regrag.errors import InputError

SCALE = 127
RULE = "int8: clamp(round_half_even(x * 127), -127, 127); score: exact integer dot product"


def quantise(vector: Sequence[float]) -> tuple[int, ...]:
    """The int8 form of ``vector`` under the rounding rule (module docstring)."""
    values = []
    for position, x in enumerate(vector):
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise InputError(f"vector component {position} is not a finite number: {x!r}")
        values.append(max(-SCALE, min(SCALE, round(float(x) * SCALE))))
    return tuple(values)


def to_bytes(quantised: Sequence[int]) -> bytes:
    """Signed bytes, one per component (the stored form)."""
    return array("b", quantised).tobytes()


def vector_hash(quantised: Sequence[int]) -> str:
    """SHA-256 of the quantised vector's signed bytes."""
    return hashlib.sha256(to_bytes(quantised)).hexdigest()


def check_query_vector(values: object, dimension: int) -> tuple[int, ...]:
    """A recorded query vector: ``dimension`` integers in [−127, 127] (``InputError`` otherwise)."""
    if not isinstance(values, (list, tuple)) or len(values) != dimension:
        raise InputError(f"the query vector must be a list of {dimension} integers")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or not -SCALE <= value <= SCALE:
            raise InputError(f"the query vector holds {value!r}, not an integer in [-127, 127]")
    return tuple(values)


def scores(query: Sequence[int], data: bytes, dimension: int, kernel: str = "auto") -> list[int]:
    """Every stored vector's exact score for ``query`` (``data``: the int8 rows, back to back).
    ``kernel``: ``python``, ``numpy`` or ``auto`` (numpy when installed); the same integers."""
    if kernel != "python":
        try:
            import numpy
        except ImportError:
            if kernel == "numpy":
                raise InputError("kernel 'numpy' needs numpy (pip install 'regrag[fast]')") from None
        else:
            matrix = numpy.frombuffer(data, dtype=numpy.int8).reshape(-1, dimension).astype(numpy.int32)
            return [int(value) for value in matrix @ numpy.asarray(query, dtype=numpy.int32)]
    rows = array("b", data)
    return [sum(map(mul, query, rows[start : start + dimension])) for start in range(0, len(rows), dimension)]


def top(scored: Sequence[int], k: int, allowed: frozenset[int] | None = None) -> list[tuple[int, int]]:
    """The ``k`` best (position, score): score descending, then position ascending."""
    candidates = ((-score, position) for position, score in enumerate(scored) if allowed is None or position in allowed)
    return [(position, -negated) for negated, position in heapq.nsmallest(k, candidates)]
