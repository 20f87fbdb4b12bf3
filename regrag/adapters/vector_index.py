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

import math
import numbers
import os
from pathlib import Path
from typing import Any, Sequence

from regrag.adapters.base import Vector, VectorHit
from regrag.adapters.vector_checks import (  # noqa: F401 (squared_l2: public here too)
    EXACT_FORMAT, FORMAT_VERSION, _check_dimension_field, _check_header, _check_k, _ranked, _read_json_object,
    _validated_batch, _validated_query, squared_l2,
)
from regrag.audit.canonical import canonical_bytes
from regrag.errors import InputError
from regrag.io.writes import write_atomically


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


# FaissVectorIndex lives in regrag.adapters.faiss_index (it imports FAISS only when constructed); importable here too.
from regrag.adapters.faiss_index import FaissVectorIndex  # noqa: E402,F401
