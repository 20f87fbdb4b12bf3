"""The first pass of a streamed JSONL or BEIR corpus (plain or gzipped): every line checked, one small record a document kept.

``scan_records`` reads the file once, line by line, with the very checks of
the loader (``regrag.jsonl.json_records``'s file checks and line parsing,
``regrag.corpus.jsonl_corpus._record_document``'s fields), and keeps, for
each good line, its id, byte offset, line number, size in characters and
number of passages; never its text. Duplicate ids are found by sorting
those records by id instead of a dictionary of every id: of two lines with
one id the first stays and the later one is the error, worded as the
loader words it. Which error is raised (``errors="raise"``) or in which
order they are listed (``"collect"``) is the loader's too: by line.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from regrag.corpus.checks import _Outcome
from regrag.corpus.jsonl_corpus import _record_document
from regrag.corpus.model import Document
from regrag.errors import InputError
from regrag.io.identity import FileState, check_unchanged, state_of_descriptor
from regrag.jsonl import (_SNIFF_BYTES, _Decompressed, _open, _records, printable, wide_encoding,
                          wide_encoding_error)
from regrag.limits import LimitError, Limits


class _Counting:
    """A binary file's ``readline`` that remembers where the line being read started."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle
        self.position = 0
        self.line_start = 0
        self._at_start = True

    def readline(self, limit: int = -1) -> bytes:
        if self._at_start:
            self.line_start = self.position
        data = self._handle.readline(limit)
        self.position += len(data)
        self._at_start = data.endswith(b"\n")
        return data


@dataclass
class ScannedRecords:
    """The good lines of a file in id order, side by side (``ids``,
    ``offsets`` of their first byte, 1-based ``lines``, ``sizes``: title plus
    text characters plus one, ``passage_counts``), the file's state when it
    was read, and the first passage-cap error in id order (raised by the
    build, as the loader's documents raise it there)."""

    ids: list[str]
    offsets: array  # 'q'
    lines: array  # 'q'
    sizes: array  # 'q'
    passage_counts: array  # 'q'
    state: FileState
    passage_error: LimitError | None = None


def _file_records(path: Path, limits: Limits, counting_out: list) -> Iterator[tuple[int, int, Any]]:
    """``(line number, offset, object or InputError)`` of each non-blank line:
    ``json_records`` with the offset of each line (in the decompressed stream
    for ``.gz``), ``Limits.streamed_file_bytes`` in place of ``file_bytes``;
    the file's state is put in ``counting_out`` once the whole file was read unchanged."""
    where = printable(os.fspath(path))
    raw_handle = _open(path, where)
    with raw_handle:
        before = state_of_descriptor(raw_handle.fileno())
        if before.size > limits.streamed_file_bytes:
            raise LimitError(
                f"{where}: the file has {before.size:,} bytes; the limit for a streamed corpus file is "
                f"{limits.streamed_file_bytes:,} (regrag.limits.Limits.streamed_file_bytes; "
                "regrag index --max-streamed-file-bytes raises it)"
            )
        handle: Any = raw_handle
        if is_gzipped(path):
            handle = _Decompressed(raw_handle, where, limits.streamed_file_bytes, "streamed_file_bytes")
        encoding = wide_encoding(handle.peek(_SNIFF_BYTES)[:_SNIFF_BYTES])
        if encoding is not None:
            raise wide_encoding_error(f"{where}:1", encoding)
        counting = _Counting(handle)
        try:
            for number, record in _records(counting, where, limits.document_bytes):
                if isinstance(record, InputError):
                    check_unchanged(before, raw_handle.fileno(), path, where)
                yield number, counting.line_start, record
        except InputError:  # a damaged gzip stream, too much decompressed data: the loader's order of checks
            check_unchanged(before, raw_handle.fileno(), path, where)
            raise
        check_unchanged(before, raw_handle.fileno(), path, where)
        counting_out.append(before)


def is_gzipped(path: Path) -> bool:
    """Whether the file is read through gzip (its name ends in ``.gz``, as the loader decides)."""
    return os.fspath(path).endswith(".gz")


def scan_records(path: Path, beir: bool, limits: Limits, outcome: _Outcome,
                 passages: Callable[[Document], int]) -> ScannedRecords | None:
    """Pass over ``path`` once; None when the whole file is rejected
    (``outcome`` collecting), else its good lines' records in id order.
    ``passages(document)`` counts a document's passages (a ``LimitError``
    from it is kept for the build, not raised here)."""
    ids: list[str] = []
    offsets, lines, sizes, counts = array("q"), array("q"), array("q"), array("q")
    bad: list[tuple[int, InputError]] = []
    passage_errors: list[tuple[str, int, LimitError]] = []  # (id, line, error): rare
    where_file = printable(str(path))
    state: list = []
    try:
        for number, offset, record in _file_records(path, limits, state):
            where = f"{where_file}:{number}"
            try:
                if isinstance(record, InputError):
                    raise record
                document = _record_document(record, beir, path, where, limits)
            except InputError as error:
                if not outcome.collect:  # an earlier duplicate is the first problem, if there is one
                    _raise_first_duplicate(ids, lines, where_file, outcome)
                outcome.reject(error, where)
                bad.append((number, error))
                continue
            try:
                count = passages(document)
            except LimitError as error:
                count = 0
                passage_errors.append((document.id, number, error))
            ids.append(document.id)
            offsets.append(offset)
            lines.append(number)
            sizes.append(len(document.text) + len(document.title) + 1)
            counts.append(count)
    except InputError as error:  # the whole file: unreadable, too large, UTF-16, changed while read
        outcome.reject(error, where_file)
        return None
    order = _id_order(ids)
    duplicates = _duplicates(ids, lines, order, where_file)
    if duplicates:
        if not outcome.collect:
            outcome.reject(duplicates[0][1], f"{where_file}:{duplicates[0][0]}")
        merged = sorted(bad + duplicates, key=lambda item: item[0])  # the loader's order: by line
        outcome.rejected[:] = [(f"{where_file}:{number}", str(error)) for number, error in merged]
        dropped = {number for number, _error in duplicates}
        order = [place for place in order if lines[place] not in dropped]
        passage_errors = [item for item in passage_errors if item[1] not in dropped]
    records = ScannedRecords([ids[place] for place in order], _picked(offsets, order), _picked(lines, order),
                             _picked(sizes, order), _picked(counts, order), state[0])
    records.passage_error = min(passage_errors, key=lambda item: item[0])[2] if passage_errors else None
    return records


def _id_order(ids: list[str]) -> list[int]:
    """Places of ``ids`` in id order (code points, as the loader sorts); equal ids stay in line order."""
    return sorted(range(len(ids)), key=ids.__getitem__)


def _picked(values: array, order: list[int]) -> array:
    return array(values.typecode, map(values.__getitem__, order))


def _duplicates(ids: list[str], lines: array, order: list[int], where_file: str) -> list[tuple[int, InputError]]:
    """(line, the loader's error) for every line whose id an earlier line has, by line."""
    found = []
    first = None
    for previous, place in zip(order, order[1:]):
        if ids[previous] != ids[place]:
            first = None
            continue
        if first is None:
            first = previous
        found.append((lines[place], ids[place], lines[first]))
    return [(line, InputError(f"{where_file}:{line}: duplicate document id {document_id!r} (first on line {first})"))
            for line, document_id, first in sorted(found)]


def _raise_first_duplicate(ids: list[str], lines: array, where_file: str, outcome: _Outcome) -> None:
    """Reject (and so raise) the first duplicate among the lines read so far, if any."""
    duplicates = _duplicates(ids, lines, _id_order(ids), where_file)
    if duplicates:
        outcome.reject(duplicates[0][1], f"{where_file}:{duplicates[0][0]}")
