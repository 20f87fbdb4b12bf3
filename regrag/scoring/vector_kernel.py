"""The numpy scoring kernel: BM25 and TF-IDF top k by vectorised gathers,
the same floats as the pure-Python path, bit for bit.

Only ``regrag.retrieval.kernels`` imports this module, and only when numpy is
installed (``pip install 'regrag[fast]'``). It is exact because it performs
the pure-Python path's IEEE operations on the same operands in the same order:

- each passage's score starts as its first term's contribution (the Python
  path's ``0.0 + x == x``) and every later term, in the caller's term order,
  adds its contribution with one ``+`` (``scores[positions] += values``: a
  gather, an elementwise add, a scatter; positions are unique within one
  term, so no passage is added to twice in one step and no ``np.add.at`` is
  needed). No reduction (``np.sum``, pairwise summation) touches a score;
- a TF-IDF contribution is the product ``query_weight · weight`` and the
  cosine ``dot / (query_norm · passage_norm)``: single multiplications and a
  division, each correctly rounded, never fused, all in float64;
- every passage any term touches is a candidate, even when its score is
  0.0 (as in the Python dict), then ``allowed`` keeps its passages;
- the top k are taken in the total order (score descending, then position
  ascending): every candidate at least as good as the k-th best score is
  kept, then sorted by score descending; distinct scores have one order,
  so the fast unstable sort is used unless two are equal, when a stable
  sort of candidates already in position order breaks the tie.

The sums are one ``np.bincount`` (``_accumulate`` says why it adds in the
same order). Two accumulators give the same bits: a dense one (an array over all
passages, for queries touching many of them) and a sparse one (the distinct
touched positions, for few postings in a large index).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

# Use the sparse accumulator when the postings are fewer than passages / this.
SPARSE_RATIO = 16

Column = Sequence[int] | Sequence[float]


_INDEX_TYPES = (np.dtype(np.int32), np.dtype(np.int64))  # what bincount and fancy indexing take as they are


def _positions(values: Sequence[int]) -> "np.ndarray":
    """A term's positions as an integer index array, zero-copy for a typed
    buffer (an ``array('i')``, a mapped column's ``memoryview``): numpy
    indexes and bins with 32-bit integers as they are (widening each term's
    positions to ``intp`` first was a copy per term)."""
    if isinstance(values, np.ndarray) and values.dtype in _INDEX_TYPES:
        return values
    try:
        view = np.asarray(values if isinstance(values, memoryview) else memoryview(values))  # type: ignore[arg-type]
    except TypeError:
        return np.fromiter(values, dtype=np.intp, count=len(values))
    return view if view.dtype in _INDEX_TYPES else view.astype(np.intp)


def _floats(values: Sequence[float]) -> "np.ndarray":
    """A column of doubles (zero-copy for a float64 buffer; never narrowed)."""
    if isinstance(values, np.ndarray) and values.dtype == np.float64:
        return values
    try:
        view = np.asarray(values if isinstance(values, memoryview) else memoryview(values))  # type: ignore[arg-type]
    except TypeError:
        return np.fromiter(values, dtype=np.float64, count=len(values))
    return view if view.dtype == np.float64 else view.astype(np.float64)


def columns(postings: Any, scores: str) -> tuple["np.ndarray", "np.ndarray"]:
    """A term's positions and its ``scores`` column (``bm25_impacts`` or
    ``tfidf_weights``) as arrays (``postings``: a ``regrag.index.build.Postings``,
    not imported: scoring imports nothing of the index), made once per ``Postings`` and kept on it
    (``vector_columns``): zero-copy views, so they always hold what the
    columns hold; remade if a column object is replaced."""
    kept = postings.vector_columns
    source = getattr(postings, scores)
    if kept is None:
        kept = postings.vector_columns = {}
    found = kept.get(scores)
    if found is None or found[0] is not postings.passages or found[1] is not source:
        found = kept[scores] = (postings.passages, source, _positions(postings.passages), _floats(source))
    return found[2], found[3]


def _accumulate(
    terms: Sequence[tuple["np.ndarray", "np.ndarray"]], passage_count: int, sparse: bool | None
) -> tuple["np.ndarray", "np.ndarray"]:
    """(touched positions ascending, their summed scores), summed in term order.

    One ``np.bincount`` over every term's postings concatenated in term order
    does the whole sum: it adds each weight to its bin in input order,
    starting from 0.0 (``out[i] += w``, a sequential C loop), so each passage
    gets ``0.0 + c1 + c2 + ...`` in term order: the Python path's operations.
    The Python path starts a passage at its first contribution itself, which
    differs from ``0.0 + x`` only for ``x = -0.0``: a first term holding a
    negative zero (or any value with its sign bit set) is summed term by term
    instead (``_accumulate_by_term``)."""
    if np.signbit(terms[0][1]).any():
        return _accumulate_by_term(terms, passage_count, sparse)
    positions = np.concatenate([p for p, _v in terms]) if len(terms) > 1 else terms[0][0]
    values = np.concatenate([v for _p, v in terms]) if len(terms) > 1 else terms[0][1]
    if sparse is None:
        sparse = len(positions) * SPARSE_RATIO < passage_count
    if sparse:
        candidates, slots = np.unique(positions, return_inverse=True)
        return candidates, np.bincount(slots, weights=values, minlength=len(candidates))
    scores = np.bincount(positions, weights=values, minlength=passage_count)
    touched = np.zeros(passage_count, dtype=np.bool_)
    touched[positions] = True
    candidates = np.flatnonzero(touched)
    return candidates, scores[candidates]


def _accumulate_by_term(
    terms: Sequence[tuple["np.ndarray", "np.ndarray"]], passage_count: int, sparse: bool | None
) -> tuple["np.ndarray", "np.ndarray"]:
    """``_accumulate`` one term at a time: the first term's values assigned
    (so a -0.0 stays -0.0), each later one added with one ``+``."""
    total = sum(len(positions) for positions, _values in terms)
    if sparse is None:
        sparse = total * SPARSE_RATIO < passage_count
    if sparse:
        candidates, slots = np.unique(np.concatenate([p for p, _v in terms]), return_inverse=True)
        size = len(candidates)
    else:
        slots = None
        size = passage_count
    scores = np.zeros(size, dtype=np.float64)
    touched = None if sparse else np.zeros(size, dtype=np.bool_)
    start = 0
    for number, (positions, values) in enumerate(terms):
        if slots is not None:
            where = slots[start : start + len(positions)]
            start += len(positions)
        else:
            where = positions
            touched[where] = True  # type: ignore[index]
        if number == 0:
            scores[where] = values  # 0.0 + x == x, as the Python path's first term
        else:
            scores[where] += values  # unique within a term: one IEEE addition each
    if slots is not None:
        return candidates, scores
    candidates = np.flatnonzero(touched)
    return candidates, scores[candidates]


def _top_columns(candidates: "np.ndarray", scores: "np.ndarray", k: int,
                 allowed: "np.ndarray | None") -> tuple[list[int], list[float]]:
    """The ``k`` best positions and their scores, as two lists: score descending, then position."""
    if allowed is not None:
        keep = allowed[candidates]
        candidates, scores = candidates[keep], scores[keep]
    if len(scores) > k:
        kth = np.partition(scores, len(scores) - k)[len(scores) - k]
        keep = scores >= kth  # every tie at the boundary stays
        candidates, scores = candidates[keep], scores[keep]
    negated = -scores
    order = np.argsort(negated)  # introsort: 3-4x faster than the stable sort, any order among equal scores
    ranked = negated[order]
    if len(ranked) > 1 and (np.isnan(ranked[-1]) or not (ranked[1:] != ranked[:-1]).all()):
        # a tie (or a NaN): the stable sort, as candidates ascend, keeps equal scores in position order
        order = np.argsort(negated, kind="stable")
    order = order[:k]
    return candidates[order].tolist(), scores[order].tolist()


def allowed_mask(allowed: Iterable[int] | None, passage_count: int) -> "np.ndarray | None":
    """A boolean array over the passages, True at each position of ``allowed`` (None: all)."""
    if allowed is None:
        return None
    positions = np.fromiter(allowed, dtype=np.int64)
    mask = np.zeros(passage_count, dtype=np.bool_)
    mask[positions] = True
    return mask


def bm25_top(
    terms: Sequence[tuple[Sequence[int], Sequence[float]]], passage_count: int, k: int,
    allowed: Iterable[int] | None = None, sparse: bool | None = None,
) -> list[tuple[int, float]]:
    """Top ``k`` BM25 (position, score) from each query term's (positions,
    impacts), given in the canonical term order; ``sparse`` forces an accumulator (tests)."""
    return list(zip(*bm25_top_columns(terms, passage_count, k, allowed, sparse)))


def bm25_top_columns(
    terms: Sequence[tuple[Sequence[int], Sequence[float]]], passage_count: int, k: int,
    allowed: Iterable[int] | None = None, sparse: bool | None = None,
) -> tuple[list[int], list[float]]:
    """``bm25_top`` as two lists: the positions, and their scores."""
    if not terms:
        return [], []
    columns = [(_positions(p), _floats(v)) for p, v in terms]
    candidates, scores = _accumulate(columns, passage_count, sparse)
    return _top_columns(candidates, scores, k, allowed_mask(allowed, passage_count))


def tfidf_top(
    terms: Sequence[tuple[Sequence[int], Sequence[float], float]], query_norm: float,
    passage_norms: Sequence[float], passage_count: int, k: int,
    allowed: Iterable[int] | None = None, sparse: bool | None = None,
) -> list[tuple[int, float]]:
    """Top ``k`` TF-IDF cosines from each query term's (positions, passage
    weights, query weight) in term order, the query's norm and every passage's norm."""
    return list(zip(*tfidf_top_columns(terms, query_norm, passage_norms, passage_count, k, allowed, sparse)))


def tfidf_top_columns(
    terms: Sequence[tuple[Sequence[int], Sequence[float], float]], query_norm: float,
    passage_norms: Sequence[float], passage_count: int, k: int,
    allowed: Iterable[int] | None = None, sparse: bool | None = None,
) -> tuple[list[int], list[float]]:
    """``tfidf_top`` as two lists: the positions, and their cosines."""
    if not terms:
        return [], []
    columns = [(_positions(p), np.multiply(float(q), _floats(w))) for p, w, q in terms]
    candidates, dots = _accumulate(columns, passage_count, sparse)
    divisors = np.multiply(float(query_norm), _floats(passage_norms)[candidates])
    return _top_columns(candidates, np.divide(dots, divisors), k, allowed_mask(allowed, passage_count))
