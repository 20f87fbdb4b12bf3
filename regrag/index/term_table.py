"""The vocabulary of a loaded index, found by binary search in place.

Format ``regrag-index/2`` stores the terms as one blob, ``terms.bin``: their
UTF-8 bytes back to back in code-point order (UTF-8 byte order is code-point
order), with ``term_offsets.i32`` giving where each term starts (and the
blob's size last). Opening reads the offsets, not the terms: a vocabulary of
millions of terms is not parsed into a list and a dict before the first
query. A lookup compares at most about log2(terms) terms, each after its
chunk of the blob is verified (``regrag.index.chunks``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from regrag.errors import CorruptIndexError
from regrag.index.chunks import CheckedBytes

TERMS = "terms.bin"
TERM_OFFSETS = "term_offsets.i32"
POSTING_STARTS = "posting_starts.i32"


def term_blob(terms: Iterable[str]) -> tuple[bytes, list[int]]:
    """``terms.bin`` and its offsets (``terms`` already in code-point order)."""
    encoded = [term.encode("utf-8") for term in terms]
    offsets = [0]
    for data in encoded:
        offsets.append(offsets[-1] + len(data))
    return b"".join(encoded), offsets


class TermTable(Sequence[str]):
    """Term number -> term, and term -> number by binary search."""

    def __init__(self, blob: CheckedBytes, offsets: Sequence[int], starts_file: Path) -> None:
        self._blob = blob
        self._offsets = offsets
        self.starts_file = starts_file

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def _bytes(self, number: int) -> bytes:
        start, end = self._offsets[number], self._offsets[number + 1]
        if start > end:
            raise CorruptIndexError(f"{self._blob.path.with_name(TERM_OFFSETS)}: offsets of term {number} descend")
        self._blob.check(start, end)
        return bytes(self._blob.data[start:end])

    def __getitem__(self, number):  # type: ignore[override]
        if isinstance(number, slice):
            return [self[n] for n in range(*number.indices(len(self)))]
        try:
            return self._bytes(number).decode("utf-8")
        except UnicodeDecodeError:
            raise CorruptIndexError(f"{self._blob.path}: term {number} is not UTF-8") from None

    def __iter__(self) -> Iterator[str]:
        for number in range(len(self)):
            yield self[number]

    def number(self, term: object) -> int | None:
        """The term's number, or None when the index does not hold it."""
        if not isinstance(term, str):
            return None
        try:
            wanted = term.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate is no indexed term
            return None
        low, high = 0, len(self)
        while low < high:
            middle = (low + high) // 2
            if self._bytes(middle) < wanted:
                low = middle + 1
            else:
                high = middle
        return low if low < len(self) and self._bytes(low) == wanted else None

    def all_terms(self) -> list[str]:
        """Every term, in order, the blob verified and decoded at once (what a
        pass over the whole vocabulary reads)."""
        self._blob.check_all()
        offsets, blob = self._offsets, bytes(self._blob.data)
        if any(a > b for a, b in zip(offsets, offsets[1:])):
            raise CorruptIndexError(f"{self._blob.path.with_name(TERM_OFFSETS)}: offsets descend")
        try:
            return [blob[a:b].decode("utf-8") for a, b in zip(offsets, offsets[1:])]
        except UnicodeDecodeError:
            raise CorruptIndexError(f"{self._blob.path}: a term is not UTF-8") from None
