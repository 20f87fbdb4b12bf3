"""``FaissVectorIndex``: the ``VectorIndex`` contract (``regrag.adapters.vector_index``)
over FAISS (``flat``: exhaustive, float32; ``hnsw``: approximate), ties re-sorted by id."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Sequence

from regrag.adapters.base import MissingExtraError, Vector, VectorHit
from regrag.adapters.vector_checks import (
    FAISS_IDS_FORMAT, FAISS_KINDS, FORMAT_VERSION, HNSW_MIN_EF_SEARCH, IDS_SUFFIX, _check_dimension_field, _check_header,
    _check_k, _ranked, _read_json_object, _validated_batch, _validated_query,
)
from regrag.audit.canonical import canonical_bytes
from regrag.errors import InputError
from regrag.io.writes import write_atomically
from regrag.jsonl import read_bytes
from regrag.validation import is_int


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
