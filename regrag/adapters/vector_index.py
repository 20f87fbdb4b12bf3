"""Vector indexes: the ``VectorIndex`` protocol, exhaustive and with FAISS.

Both implementations share one contract, so either can stand in for the other:

- distance is the squared L2 distance ``sum((q_i - v_i)^2)``, which is what
  FAISS's ``IndexFlatL2`` returns (no square root);
- results are totally ordered: distance ascending, then id ascending (code
  points), and ranked from 1. FAISS on its own breaks ties by its internal
  position (``IndexFlatL2``: insertion order; HNSW: the order the graph is
  visited), which is not a property of the data; the FAISS adapter re-sorts
  ties by id;
- ids are unique non-empty strings: adding an id twice raises ``InputError``;
- the dimension is fixed by the first ``add``; a vector or query of another
  length raises ``InputError``; components must be finite numbers;
- ``search(vector, k)`` returns ``min(k, len(index))`` hits; an empty index
  returns ``[]``; k must be a positive integer.

``ExactVectorIndex`` is pure standard library (float64, exhaustive, exactly
rounded sums). ``FaissVectorIndex`` computes in float32; its ``flat`` kind is
exhaustive and gives the same ids, order and distances as ``ExactVectorIndex``
whenever FAISS's float32 arithmetic is exact (vectors of small integers or
dyadic values, as the tests use). On general data its distances differ by
float32 rounding: for larger indexes FAISS computes ``|q|² + |v|² − 2<q, v>``,
whose absolute error is about float32 epsilon × (|q|² + |v|²) (a vector's
distance to itself may come out as 1e-5, not 0), so two distances closer than
that may be ordered differently from the exact index. The ``hnsw`` kind is
approximate.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import numbers
import os
from pathlib import Path
from typing import Any, Iterable, Sequence

from regrag.adapters.base import MissingExtraError, Vector, VectorHit
from regrag.audit.canonical import canonical_bytes
from regrag.io.writes import write_atomically
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


class ExactVectorIndex:
    """Exhaustive nearest neighbours in pure Python: every stored vector is scored on every search.

    Exact and reproducible bit for bit (float64, ``math.fsum``); linear in the
    number of vectors, which suits corpora up to some tens of thousands of passages.
    """

    def __init__(self) -> None:
        self._ids: list[str] = []
        self._vectors: list[tuple[float, ...]] = []
        self._known: set[str] = set()
        self._dimension: int | None = None

    @property
    def dimension(self) -> int | None:
        """The vector length, fixed by the first ``add`` (None while the index is empty)."""
        return self._dimension

    def __len__(self) -> int:
        return len(self._ids)

    def add(self, ids: Sequence[str], vectors: Sequence[Vector]) -> None:
        """Store ``vectors`` under ``ids``; all or nothing (a bad batch changes nothing)."""
        id_list, rows, dimension = _validated_batch(ids, vectors, self._dimension, self._known)
        self._ids.extend(id_list)
        self._vectors.extend(rows)
        self._known.update(id_list)
        self._dimension = dimension

    def search(self, vector: Vector, k: int) -> list[VectorHit]:
        """The k nearest ids by squared L2 distance, ties by id."""
        _check_k(k)
        query = _validated_query(vector, self._dimension)
        return _ranked(
            ((squared_l2(query, row), identifier) for identifier, row in zip(self._ids, self._vectors)), k
        )

    def to_bytes(self) -> bytes:
        """The canonical file form: JSON, entries sorted by id, floats as ``repr``, one trailing newline."""
        entries = sorted(zip(self._ids, self._vectors))
        return (
            canonical_bytes(
                {
                    "format": EXACT_FORMAT,
                    "version": FORMAT_VERSION,
                    "dimension": self._dimension,
                    "entries": [{"id": identifier, "vector": list(row)} for identifier, row in entries],
                }
            )
            + b"\n"
        )

    def save(self, path: str | Path) -> None:
        """Write the canonical JSON form to ``path`` atomically (plain canonical JSON)."""
        write_atomically(os.fspath(path), self.to_bytes())

    @classmethod
    def load(cls, path: str | Path) -> "ExactVectorIndex":
        """Read a file written by ``save``, checking its shape; ``InputError`` naming the file otherwise."""
        where = os.fspath(path)
        record = _read_json_object(where)
        _check_header(where, record, EXACT_FORMAT, {"format", "version", "dimension", "entries"})
        entries = record["entries"]
        if not isinstance(entries, list):
            raise InputError(f"{where}: entries must be a list, got {type(entries).__name__}")
        dimension = _check_dimension_field(where, record["dimension"], len(entries))
        ids: list[str] = []
        vectors: list[Any] = []
        for number, entry in enumerate(entries, start=1):
            if not isinstance(entry, dict) or set(entry) != {"id", "vector"}:
                raise InputError(f"{where}: entry {number} must be an object with exactly 'id' and 'vector'")
            if not isinstance(entry["vector"], list):
                raise InputError(f"{where}: entry {number}: vector must be a list of numbers")
            ids.append(entry["id"])
            vectors.append(entry["vector"])
        index = cls()
        index._dimension = dimension
        try:
            index.add(ids, vectors)
        except InputError as error:
            raise InputError(f"{where}: {error}") from None
        return index


# --- FAISS ------------------------------------------------------------------------------------------


def _import_faiss() -> tuple[Any, Any]:
    """``(faiss, numpy)``, imported on first use; ``MissingExtraError`` when absent."""
    try:
        import faiss
        import numpy
    except ImportError:
        raise MissingExtraError("faiss-cpu", "faiss") from None
    return faiss, numpy


class FaissVectorIndex:
    """Nearest neighbours with FAISS: ``kind="flat"`` (``IndexFlatL2``, exact) or
    ``kind="hnsw"`` (``IndexHNSWFlat``, approximate).

    FAISS stores and compares float32 values: components are rounded to float32
    on ``add`` (vectors from ``embed`` already are float32 values), and
    distances are computed in float32, so they equal ``ExactVectorIndex``'s to
    within float32 rounding (exactly, when the float32 arithmetic is exact). Ties are re-sorted by id: FAISS is asked
    for more than k hits until the k-th distance is strictly below the last one
    fetched, so every tie at the cut is seen.

    ``hnsw`` trades recall for speed: a graph search can miss true neighbours
    (recall below 1, worse for small ``hnsw_neighbors`` and search beams), and
    its ties are resolved only among the candidates the graph reaches. The
    graph is built on one thread so that the same insertions give the same
    graph (FAISS's parallel insertion depends on thread scheduling).
    """

    def __init__(self, kind: str = "flat", hnsw_neighbors: int = 32) -> None:
        if kind not in FAISS_KINDS:
            raise InputError(f"unknown FAISS index kind {kind!r}; choose one of {', '.join(FAISS_KINDS)}")
        if not is_int(hnsw_neighbors) or hnsw_neighbors < 2:
            raise InputError(f"hnsw_neighbors must be an integer of at least 2, got {hnsw_neighbors!r}")
        self._faiss, self._numpy = _import_faiss()
        self._kind = kind
        self._hnsw_neighbors = hnsw_neighbors
        self._index: Any = None
        self._ids: list[str] = []  # self._ids[p] is the id of FAISS position p
        self._known: set[str] = set()
        self._dimension: int | None = None

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def dimension(self) -> int | None:
        """The vector length, fixed by the first ``add`` (None while the index is empty)."""
        return self._dimension

    def __len__(self) -> int:
        return len(self._ids)

    def _new_index(self, dimension: int) -> Any:
        if self._kind == "flat":
            return self._faiss.IndexFlatL2(dimension)
        return self._faiss.IndexHNSWFlat(dimension, self._hnsw_neighbors)

    def _float32_matrix(self, rows: Sequence[tuple[float, ...]], what: str) -> Any:
        with self._numpy.errstate(over="ignore"):  # an overflow becomes inf, refused just below
            matrix = self._numpy.ascontiguousarray(rows, dtype=self._numpy.float32)
        if not self._numpy.isfinite(matrix).all():
            raise InputError(f"{what}: a component is too large for float32")
        return matrix

    def add(self, ids: Sequence[str], vectors: Sequence[Vector]) -> None:
        """Store ``vectors`` under ``ids`` (rounded to float32); all or nothing."""
        id_list, rows, dimension = _validated_batch(ids, vectors, self._dimension, self._known)
        if not id_list:
            return
        assert dimension is not None
        matrix = self._float32_matrix(rows, "vectors")
        index = self._index if self._index is not None else self._new_index(dimension)
        if self._kind == "hnsw":
            threads = self._faiss.omp_get_max_threads()
            self._faiss.omp_set_num_threads(1)
            try:
                index.add(matrix)
            finally:
                self._faiss.omp_set_num_threads(threads)
        else:
            index.add(matrix)
        self._index = index
        self._ids.extend(id_list)
        self._known.update(id_list)
        self._dimension = dimension

    def _faiss_search(self, query: Any, fetch: int) -> list[tuple[float, int]]:
        """FAISS's ``fetch`` nearest ``(distance, position)`` pairs, ascending (fewer if HNSW finds fewer)."""
        if self._kind == "hnsw":
            parameters = self._faiss.SearchParametersHNSW(efSearch=max(HNSW_MIN_EF_SEARCH, fetch))
            distances, positions = self._index.search(query, fetch, params=parameters)
        else:
            distances, positions = self._index.search(query, fetch)
        return [
            (float(distance), int(position))
            for distance, position in zip(distances[0].tolist(), positions[0].tolist())
            if position >= 0
        ]

    def search(self, vector: Vector, k: int) -> list[VectorHit]:
        """The k nearest ids by squared L2 distance (float32), ties by id."""
        _check_k(k)
        query = _validated_query(vector, self._dimension)
        size = len(self._ids)
        if size == 0:
            return []
        matrix = self._float32_matrix([query], "the query vector")
        wanted = min(k, size)
        fetch = min(size, wanted + 1)
        while True:
            found = self._faiss_search(matrix, fetch)
            if fetch >= size:
                break
            if len(found) > wanted and found[-1][0] > found[wanted - 1][0]:
                break  # the last fetched is strictly farther than the k-th: no tie is cut off
            fetch = min(size, fetch * 2)
        return _ranked(((distance, self._ids[position]) for distance, position in found), wanted)

    def _sidecar(self, index_bytes: bytes) -> bytes:
        return (
            canonical_bytes(
                {
                    "format": FAISS_IDS_FORMAT,
                    "version": FORMAT_VERSION,
                    "kind": self._kind,
                    "hnsw_neighbors": self._hnsw_neighbors,
                    "dimension": self._dimension,
                    "index_sha256": hashlib.sha256(index_bytes).hexdigest(),
                    "ids": self._ids,
                }
            )
            + b"\n"
        )

    def save(self, path: str | Path) -> None:
        """Write the FAISS index to ``path`` (``faiss.write_index`` format) and the ids, in FAISS
        position order, with the kind and the index file's SHA-256, to ``path + ".ids.json"``."""
        where = os.fspath(path)
        if self._index is None:
            raise InputError(f"{where}: cannot save an empty FaissVectorIndex (FAISS needs a dimension)")
        index_bytes = self._faiss.serialize_index(self._index).tobytes()
        write_atomically(where, index_bytes)
        write_atomically(where + IDS_SUFFIX, self._sidecar(index_bytes))

    @classmethod
    def load(cls, path: str | Path) -> "FaissVectorIndex":
        """Read an index written by ``save``; ``InputError`` naming the file when the two files
        are malformed or disagree (kind, dimension, count, checksum)."""
        where = os.fspath(path)
        sidecar = where + IDS_SUFFIX
        record = _read_json_object(sidecar)
        _check_header(
            sidecar,
            record,
            FAISS_IDS_FORMAT,
            {"format", "version", "kind", "hnsw_neighbors", "dimension", "index_sha256", "ids"},
        )
        kind, neighbors, ids = record["kind"], record["hnsw_neighbors"], record["ids"]
        if kind not in FAISS_KINDS:
            raise InputError(f"{sidecar}: unknown kind {kind!r}")
        if not is_int(neighbors) or neighbors < 2:
            raise InputError(f"{sidecar}: hnsw_neighbors must be an integer of at least 2, got {neighbors!r}")
        if not isinstance(ids, list) or not ids:
            raise InputError(f"{sidecar}: ids must be a non-empty list of strings")
        dimension = _check_dimension_field(sidecar, record["dimension"], len(ids))
        if not all(isinstance(identifier, str) and identifier for identifier in ids):
            raise InputError(f"{sidecar}: ids must be non-empty strings")
        if len(set(ids)) != len(ids):
            raise InputError(f"{sidecar}: duplicate ids")

        loaded = cls(kind, neighbors)
        faiss, numpy = loaded._faiss, loaded._numpy
        index_bytes = read_bytes(where)
        if hashlib.sha256(index_bytes).hexdigest() != record["index_sha256"]:
            raise InputError(f"{where}: the file does not match the SHA-256 recorded in {sidecar}")
        try:
            index = faiss.deserialize_index(numpy.frombuffer(index_bytes, dtype=numpy.uint8))
        except RuntimeError as error:
            raise InputError(f"{where}: not a readable FAISS index ({str(error).strip().splitlines()[-1][:200]})") from None
        expected_type = faiss.IndexFlatL2 if kind == "flat" else faiss.IndexHNSWFlat
        if not isinstance(index, expected_type):
            raise InputError(f"{where}: holds a {type(index).__name__}, but {sidecar} says kind {kind!r}")
        if index.d != dimension:
            raise InputError(f"{where}: dimension {index.d}, but {sidecar} says {dimension}")
        if index.ntotal != len(ids):
            raise InputError(f"{where}: holds {index.ntotal} vectors, but {sidecar} lists {len(ids)} ids")
        loaded._index = index
        loaded._ids = list(ids)
        loaded._known = set(ids)
        loaded._dimension = dimension
        return loaded
