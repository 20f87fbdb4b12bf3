"""A JSONL or BEIR corpus read from its file as the build needs it, never held whole.

``load_corpus`` keeps every ``Document`` (about 2.3 KB each for English
passages: 23 GB for ten million), before the bounded build
(``regrag.index.bounded_build``) sees any. ``stream_corpus`` instead checks
the file once (``regrag.corpus.stream_scan``: the loader's checks, errors
and ``errors="collect"``) keeping, per document, its id, byte offset, line,
size and passage count, and gives a ``StreamedDocuments``: a sequence of the
documents in id order that parses each one again from its line when it is
read. The documents are those ``load_corpus`` returns, in the same order,
so a build over either writes the same bytes (tests/corpus/test_stream.py).

The file must not change between the passes: its state (device, inode,
size, times) is checked before and after each pass and every line read again
must parse to the id it had; otherwise ``SourceChangedError``. Streamed: a
``.jsonl`` or ``.jsonl.gz`` file, or a BEIR folder whose ``corpus.jsonl``
(or ``corpus.jsonl.gz``) is a regular file. Anything else (a folder of
files, a symbolic ``corpus.jsonl``) is not streamed (``stream_corpus``
returns None) and goes through ``load_corpus``. The file's size is checked
against ``Limits.streamed_file_bytes``, not ``file_bytes`` (a streamed file
is never held whole).

A gzip stream cannot seek: every pass decompresses it again from its start
(the scan, the passage analysis of each worker and the document files: with
``--workers N``, N + 2 decompressions, each about a second a 100 MB of
JSONL), and a file not in id order is decompressed once more for each block
of documents that starts before the previous block ended
(``_gzipped_range``).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from regrag.corpus.checks import _Outcome
from regrag.corpus.jsonl_corpus import BEIR_CORPUS_NAMES, _record_document
from regrag.corpus.load import _COLLECT_HINT, _NOT_LOADED, ERROR_MODES
from regrag.corpus.model import Document
from regrag.corpus.passages import split_passages
from regrag.corpus.stream_scan import ScannedRecords, is_gzipped, scan_records
from regrag.errors import InputError
from regrag.io import files
from regrag.io.identity import RETRY, SourceChangedError, check_unchanged, state_of_descriptor
from regrag.jsonl import _UTF8_BOM, JSON_DEPTH_LIMIT, _open, parse_json_object, printable
from regrag.limits import DEFAULT_LIMITS, LimitError, Limits

# Characters (titles and texts) of the documents a gzipped file's block
# holds as raw lines at once: a few tens of MB at most.
GZIP_BLOCK_CHARACTERS = 8_000_000


class StreamedDocuments(Sequence[Document]):
    """The documents of one JSONL file in id order, each parsed from its line when read."""

    def __init__(self, path: Path, beir: bool, limits: Limits, records: ScannedRecords, max_chars: int) -> None:
        self.path = path
        self.beir = beir
        self.limits = limits
        self.records = records
        self.counted_with = (max_chars, limits.passages_per_document)  # what the passage counts were counted with

    @property
    def ids(self) -> list[str]:
        """Every document id, in order (held: the build needs them all for the Merkle tree)."""
        return self.records.ids

    @property
    def passage_error(self) -> LimitError | None:
        """The first document (by id) with more passages than the limit allows, as ``split_passages`` raised it."""
        return self.records.passage_error

    def __len__(self) -> int:
        return len(self.records.ids)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return list(self.range(*index.indices(len(self))[:2]))
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        return next(self.range(index % len(self), index % len(self) + 1))

    def __iter__(self) -> Iterator[Document]:
        return self.range(0, len(self))

    def range(self, start: int, end: int) -> Iterator[Document]:
        """Documents ``start`` to ``end - 1``, read from the file (open once);
        ``SourceChangedError`` if the file is no longer the one scanned."""
        where_file = printable(str(self.path))
        records = self.records
        end = min(end, len(records.ids))
        if start >= end:
            return
        with _open(self.path, where_file) as handle:
            if state_of_descriptor(handle.fileno()) != records.state:
                raise SourceChangedError(f"{where_file}: {RETRY}")
            if is_gzipped(self.path):
                yield from self._gzipped_range(handle, start, end, where_file)
            else:
                for place in range(start, end):
                    handle.seek(records.offsets[place])
                    yield self._parsed(handle.readline(), place, where_file)
            check_unchanged(records.state, handle.fileno(), self.path, where_file)

    def _gzipped_range(self, handle, start: int, end: int, where_file: str) -> Iterator[Document]:
        """``range`` of a gzip file, which cannot seek: blocks of documents
        (about ``GZIP_BLOCK_CHARACTERS`` characters) have their lines read in
        file order, and the stream is decompressed again from its start only
        when a block begins before where the last one ended (never, for a file
        in id order)."""
        records = self.records
        stream = gzip.GzipFile(fileobj=handle, mode="rb")
        for block_start, block_end in _blocks(records.sizes, start, end, GZIP_BLOCK_CHARACTERS):
            wanted = sorted(range(block_start, block_end), key=records.offsets.__getitem__)
            lines = {}
            try:
                if records.offsets[wanted[0]] < stream.tell():
                    stream.seek(0)  # gzip rewinds: a pass from the start
                for place in wanted:
                    stream.seek(records.offsets[place])  # forward: reads and drops what is between
                    lines[place] = stream.readline()
            except (OSError, EOFError, zlib.error):
                raise SourceChangedError(f"{where_file}: {RETRY}") from None
            for place in range(block_start, block_end):
                yield self._parsed(lines.pop(place), place, where_file)

    def _parsed(self, raw: bytes, place: int, where_file: str) -> Document:
        number = self.records.lines[place]
        where = f"{where_file}:{number}"
        raw = raw[:-1] if raw.endswith(b"\n") else raw
        raw = raw[:-1] if raw.endswith(b"\r") else raw
        if number == 1 and raw.startswith(_UTF8_BOM):
            raw = raw[len(_UTF8_BOM):]
        try:
            record = parse_json_object(raw.decode("utf-8"), where, max_depth=JSON_DEPTH_LIMIT)
            document = _record_document(record, self.beir, self.path, where, self.limits)
        except (InputError, UnicodeDecodeError):
            raise SourceChangedError(f"{where_file}: {RETRY}") from None
        if document.id != self.records.ids[place]:
            raise SourceChangedError(f"{where_file}: {RETRY}")
        return document


def _blocks(sizes: Sequence[int], start: int, end: int, characters: int) -> Iterator[tuple[int, int]]:
    """Consecutive ``(start, end)`` ranges covering ``start``-``end`` of about ``characters`` characters each."""
    block_start, total = start, 0
    for place in range(start, end):
        total += sizes[place]
        if total >= characters:
            yield block_start, place + 1
            block_start, total = place + 1, 0
    if block_start < end:
        yield block_start, end


@dataclass(frozen=True)
class StreamedCorpus:
    """``Corpus`` with streamed documents: ``documents`` in id order, nothing
    ``skipped`` (a file has no other entries), ``rejected`` as ``Corpus``'s."""

    documents: StreamedDocuments
    skipped: tuple[tuple[str, str], ...] = ()
    rejected: tuple[tuple[str, str], ...] = ()


def streamed_file(path: str | Path) -> tuple[Path, bool] | None:
    """(the JSONL file, whether it is BEIR's) when ``path`` is a corpus
    ``stream_corpus`` streams; None otherwise (``load_corpus`` reads it)."""
    path = Path(path)
    if files.is_directory(path):
        for name in BEIR_CORPUS_NAMES:
            candidate = path / name
            if files.is_symlink(candidate):
                return None
            if files.is_file(candidate):
                return candidate, True
        return None
    if path.name.endswith((".jsonl", ".jsonl.gz")) and files.is_file(path):
        return path, path.name in BEIR_CORPUS_NAMES
    return None


def stream_corpus(
    path: str | Path,
    *,
    max_chars: int,
    limits: Limits = DEFAULT_LIMITS,
    errors: str = "raise",
    collect_hint: bool = True,
) -> StreamedCorpus | None:
    """The corpus at ``path`` as ``load_corpus(path, limits=, errors=,
    collect_hint=)`` would load it (same documents, order, errors and
    rejections), streamed; None when ``path`` is not streamed (see the module
    docstring). ``max_chars`` is the build's passage bound: each document's
    passages are counted on the first pass."""
    if errors not in ERROR_MODES:
        raise InputError(f"errors must be one of {', '.join(ERROR_MODES)}, got {errors!r}")
    found = streamed_file(path)
    if found is None:
        return None
    file, beir = found
    outcome = _Outcome(collect=errors == "collect")
    outcome.whole = printable(str(file))
    counter: Callable[[Document], int] = lambda document: len(split_passages(document, max_chars, limits))  # noqa: E731
    try:
        records = scan_records(file, beir, limits, outcome, counter)
    except InputError as error:
        if outcome.collect:
            raise
        helps = collect_hint and outcome.part_failed() and not isinstance(error, SourceChangedError)
        raise type(error)(f"{error}{_NOT_LOADED}{_COLLECT_HINT if helps else ''}") from None
    if records is None:
        from array import array

        from regrag.io.identity import FileState

        records = ScannedRecords([], array("q"), array("q"), array("q"), array("q"), FileState(0, 0, 0, 0, 0))
    return StreamedCorpus(StreamedDocuments(file, beir, limits, records, max_chars), (), tuple(outcome.rejected))
