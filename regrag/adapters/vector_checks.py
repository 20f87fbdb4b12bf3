"""What both vector indexes (``vector_index.ExactVectorIndex``,
``faiss_index.FaissVectorIndex``) check and share: file formats and headers,
validated vectors and queries, the total order of results, squared L2."""

from __future__ import annotations

import heapq
import math
import numbers
from typing import Any, Iterable, Sequence

from regrag.adapters.base import Vector, VectorHit
from regrag.errors import InputError
from regrag.jsonl import parse_json_object, read_bytes
from regrag.validation import check_positive_int, is_int

EXACT_FORMAT = "regrag-exact-vector-index"
FAISS_IDS_FORMAT = "regrag-faiss-vector-index-ids"
FORMAT_VERSION = 1
FAISS_KINDS = ("flat", "hnsw")
IDS_SUFFIX = ".ids.json"
HNSW_MIN_EF_SEARCH = 64
"""The smallest HNSW search beam (FAISS's default is 16); it is raised to the number of hits fetched."""


# --- shared validation ----------------------------------------------------------------------------


def _check_k(k: object) -> int:
    return check_positive_int(k, "k")


def _components(vector: object, what: str) -> tuple[float, ...]:
    """``vector`` as a tuple of finite floats, or an ``InputError`` naming ``what``."""
    if isinstance(vector, (str, bytes, dict)):
        raise InputError(f"{what} must be a sequence of numbers, got {type(vector).__name__}")
    try:
        values = list(vector)  # type: ignore[call-overload]
    except TypeError:
        raise InputError(f"{what} must be a sequence of numbers, got {type(vector).__name__}") from None
    components = []
    for position, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise InputError(f"{what}: component {position} must be a number, got {type(value).__name__}")
        number = float(value)
        if not math.isfinite(number):
            raise InputError(f"{what}: component {position} is not finite ({number!r})")
        components.append(number)
    return tuple(components)


def _validated_batch(
    ids: Sequence[str], vectors: Sequence[Vector], dimension: int | None, known: set[str]
) -> tuple[list[str], list[tuple[float, ...]], int | None]:
    """Check a batch before anything is stored, so a failed ``add`` changes nothing.

    Returns the ids, the vectors as float tuples and the (possibly newly fixed) dimension.
    """
    if isinstance(ids, (str, bytes)):
        raise InputError("ids must be a sequence of strings, not a single string")
    id_list = list(ids)
    rows_in = list(vectors)
    if len(id_list) != len(rows_in):
        raise InputError(f"{len(id_list)} ids but {len(rows_in)} vectors")
    seen: set[str] = set()
    rows: list[tuple[float, ...]] = []
    for identifier, vector in zip(id_list, rows_in):
        if not isinstance(identifier, str) or not identifier:
            raise InputError(f"ids must be non-empty strings, got {identifier!r}")
        if identifier in known or identifier in seen:
            raise InputError(f"duplicate id {identifier!r}")
        seen.add(identifier)
        row = _components(vector, f"vector {identifier!r}")
        if dimension is None:
            if not row:
                raise InputError(f"vector {identifier!r} is empty; vectors need at least one component")
            dimension = len(row)
        elif len(row) != dimension:
            raise InputError(f"vector {identifier!r} has dimension {len(row)}; the index has dimension {dimension}")
        rows.append(row)
    return id_list, rows, dimension


def _validated_query(vector: Vector, dimension: int | None) -> tuple[float, ...]:
    query = _components(vector, "the query vector")
    if dimension is not None and len(query) != dimension:
        raise InputError(f"the query vector has dimension {len(query)}; the index has dimension {dimension}")
    return query


def _ranked(candidates: Iterable[tuple[float, str]], k: int) -> list[VectorHit]:
    """The k smallest ``(distance, id)`` pairs as hits ranked from 1 (ids are unique, so the order is total)."""
    best = heapq.nsmallest(k, candidates)
    return [VectorHit(identifier, rank, distance) for rank, (distance, identifier) in enumerate(best, start=1)]


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed")


def _read_json_object(path: str) -> dict[str, Any]:
    """The JSON object stored in ``path``; ``InputError`` naming the file otherwise."""
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: invalid UTF-8 ({error.reason} at byte {error.start})") from None
    return parse_json_object(text, path, parse_constant=_reject_constant)


def _check_header(path: str, record: dict[str, Any], expected_format: str, keys: set[str]) -> None:
    if record.get("format") != expected_format:
        raise InputError(f"{path}: not a {expected_format} file (format is {record.get('format')!r})")
    if record.get("version") != FORMAT_VERSION or isinstance(record.get("version"), bool):
        raise InputError(f"{path}: unsupported version {record.get('version')!r} (expected {FORMAT_VERSION})")
    if set(record) != keys:
        missing = sorted(keys - set(record))
        extra = sorted(set(record) - keys)
        raise InputError(f"{path}: unexpected fields (missing {missing}, unknown {extra})")


def _check_dimension_field(path: str, dimension: object, count: int) -> int | None:
    if dimension is None and count == 0:
        return None
    if not is_int(dimension) or dimension < 1:
        raise InputError(f"{path}: dimension must be a positive integer, got {dimension!r}")
    return dimension


# --- the exhaustive, standard-library index ----------------------------------------------------------


def squared_l2(query: Sequence[float], vector: Sequence[float]) -> float:
    """Squared L2 distance: each difference and square rounded once in float64, then an exactly
    rounded sum (``math.fsum``), so the result does not depend on summation order."""
    return math.fsum((a - b) * (a - b) for a, b in zip(query, vector))
