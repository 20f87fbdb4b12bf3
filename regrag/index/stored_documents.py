"""The documents of a loaded index, read from ``documents.jsonl`` on demand.

Opening an index parses no document: ``document_ids.json`` (the sorted ids),
``document_offsets.i64`` (where each document's line starts, and the file's
end) and ``passage_starts.i32`` (each document's first passage position, and
the passage count) are enough to find any document or passage, and a
document's line is parsed, after its chunks are verified
(``regrag.index.chunks``), the first time a query needs it (kept for the next
``CACHE_SIZE`` documents). ``metadata.json`` holds the metadata of the
documents that have any, so filters and the entity catalog read it instead
of every document. The read-only mappings and sequences here stand in for
``InvertedIndex.documents``, ``passages`` and the rest.
"""

from __future__ import annotations

import bisect
import json
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from regrag.audit.canonical import canonical_bytes
from regrag.corpus.model import Document, Passage, Section
from regrag.corpus.origin import origin_from_record
from regrag.errors import CorruptIndexError
from regrag.index.chunks import CheckedBytes

DOCUMENTS = "documents.jsonl"
DOCUMENT_IDS = "document_ids.json"
DOCUMENT_OFFSETS = "document_offsets.i64"
PASSAGE_STARTS = "passage_starts.i32"
METADATA = "metadata.json"
CACHE_SIZE = 4096


def document_record(document: Document, language: str, passages: Sequence[Passage], content_hash: str) -> dict[str, Any]:
    record = {
        "content_hash": content_hash,
        "id": document.id,
        "language": language,
        "metadata": [list(pair) for pair in document.metadata],
        "passages": [[p.title, p.start, p.end] for p in passages],
        "sections": [[s.title, s.start, s.end] for s in document.sections],
        "source": document.source,
        "text": document.text,
        "title": document.title,
    }
    if document.origin is not None:  # extracted documents only (issue 18): other records are what they were
        record["origin"] = document.origin.canonical()
    return record



def locate_passage(starts: Sequence[int], position: int) -> tuple[int, int]:
    """(document number, passage index within it) of a passage position, from
    each document's first position and the passage count last (``passage_starts``)."""
    if not 0 <= position < starts[-1]:
        raise IndexError(position)
    number = bisect.bisect_right(starts, position) - 1
    return number, position - starts[number]

@dataclass(frozen=True)
class StoredRecord:
    """One parsed line of ``documents.jsonl``."""

    document: Document
    language: str
    passages: tuple[Passage, ...]
    content_hash: str


@dataclass(frozen=True)
class DocumentMetadata:
    """A document's id and metadata only (what filters and entity names read)."""

    id: str
    metadata: tuple[tuple[str, str], ...]

    def metadata_dict(self) -> dict[str, str]:
        return dict(self.metadata)


def parse_record(line: bytes, where: str) -> StoredRecord:
    try:
        record = json.loads(line.decode("utf-8"))
        document = Document(
            record["id"],
            record["title"],
            record["text"],
            tuple(Section(title, start, end) for title, start, end in record["sections"]),
            tuple((key, value) for key, value in record["metadata"]),
            record["source"],
            origin_from_record(record["origin"]) if "origin" in record else None,
        )
        passages = tuple(
            Passage(document.id, position, title, start, end)
            for position, (title, start, end) in enumerate(record["passages"], start=1)
        )
        return StoredRecord(document, record["language"], passages, record["content_hash"])
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, RecursionError, AttributeError) as error:
        raise CorruptIndexError(f"{where}: malformed document record ({type(error).__name__})") from None


class StoredDocuments:
    """Finds and parses documents of one generation (thread-safe cache)."""

    def __init__(self, directory: Path, data: CheckedBytes, offsets: Sequence[int], ids: list[str],
                 passage_starts: Sequence[int], metadata: CheckedBytes) -> None:
        self.directory = directory
        self._data = data
        self._offsets = offsets
        self.ids = ids
        self.passage_starts = passage_starts
        self._metadata_bytes = metadata
        self._metadata: list[DocumentMetadata] | None = None
        self._cache: OrderedDict[int, StoredRecord] = OrderedDict()
        self._lock = threading.Lock()

    def number(self, document_id: object) -> int | None:
        """The document's place in id order, or None."""
        if not isinstance(document_id, str):
            return None
        ids = self.ids
        at = bisect.bisect_left(ids, document_id)
        return at if at < len(ids) and ids[at] == document_id else None

    def record(self, number: int) -> StoredRecord:
        with self._lock:
            found = self._cache.get(number)
            if found is not None:
                self._cache.move_to_end(number)
                return found
        start, end = self._offsets[number], self._offsets[number + 1]
        where = f"{self.directory / DOCUMENTS}:{number + 1}"
        self._data.check(start, end)
        line = self._data.data[start:end]
        if not line or line[-1] != 0x0A:
            raise CorruptIndexError(f"{where}: not a whole line (document offsets or file damaged)")
        record = parse_record(bytes(line[:-1]), where)
        if record.document.id != self.ids[number]:
            raise CorruptIndexError(f"{where}: holds document {record.document.id!r}, {DOCUMENT_IDS} says {self.ids[number]!r}")
        if len(record.passages) != self.passage_starts[number + 1] - self.passage_starts[number]:
            raise CorruptIndexError(f"{where}: {len(record.passages)} passages, {PASSAGE_STARTS} says otherwise")
        with self._lock:
            self._cache[number] = record
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return record

    def content_hash(self, number: int) -> str:
        """A document's content hash, read from the start of its line without
        parsing it (canonical JSON puts ``content_hash`` first: ``{"content_hash":"<64 hex>",``);
        a line of any other shape is parsed."""
        with self._lock:
            found = self._cache.get(number)
        if found is not None:
            return found.content_hash
        start = self._offsets[number]
        end = min(start + 84, self._offsets[number + 1])
        self._data.check(start, end)
        head = bytes(self._data.data[start:end])
        if len(head) == 84 and head.startswith(b'{"content_hash":"') and head[81:84] == b'","' \
                and not head[17:81].strip(b"0123456789abcdef"):
            return head[17:81].decode("ascii")
        return self.record(number).content_hash

    def locate(self, position: int) -> tuple[int, int]:
        """(document number, passage index within it) of a passage position."""
        return locate_passage(self.passage_starts, position)

    def metadata_bytes(self) -> memoryview:
        """``metadata.json``'s bytes, verified whole against the manifest (read on first use)."""
        self._metadata_bytes.check_all()
        return self._metadata_bytes.data

    def metadata(self) -> list[DocumentMetadata]:
        """Every document with metadata, in id order (``metadata.json``, parsed once)."""
        if self._metadata is None:
            where = self.directory / METADATA
            self._metadata_bytes.check_all()
            try:
                table = json.loads(bytes(self._metadata_bytes.data).decode("utf-8"))
                entries = [DocumentMetadata(self.ids[number], tuple((k, v) for k, v in pairs)) for number, pairs in table]
                numbers = [number for number, _pairs in table]
            except (UnicodeDecodeError, ValueError, TypeError, IndexError, RecursionError):
                raise CorruptIndexError(f"{where}: malformed") from None
            if numbers != sorted(set(numbers)) or any(not (isinstance(n, int) and n >= 0) for n in numbers) \
                    or any(not isinstance(v, str) for e in entries for pair in e.metadata for v in pair):
                raise CorruptIndexError(f"{where}: malformed")
            self._metadata = entries
        return self._metadata


def check_every_record(stored: StoredDocuments) -> None:
    """Parse and check every document record, and ``metadata.json`` against
    the records (what ``regrag verify --quick`` adds to opening)."""
    with_metadata = []
    for number in range(len(stored.ids)):
        document = stored.record(number).document
        if document.metadata:
            with_metadata.append(DocumentMetadata(document.id, document.metadata))
    if stored.metadata() != with_metadata:
        raise CorruptIndexError(f"{stored.directory / METADATA}: does not match the metadata in {DOCUMENTS}")


def document_files(documents: Mapping[str, Document], languages: Mapping[str, str], hashes: Mapping[str, str],
                   passages: Sequence[Passage]) -> tuple[bytes, list[str], list[int], list[int], bytes]:
    """``documents.jsonl``, the sorted ids, the line offsets (and end), the
    first passage of each document (and the count), and ``metadata.json``."""
    by_document: dict[str, list[Passage]] = {key: [] for key in documents}
    for passage in passages:
        by_document[passage.document_id].append(passage)
    ids = sorted(documents)
    lines, offsets, starts, metadata = [], [0], [0], []
    for number, key in enumerate(ids):
        line = canonical_bytes(document_record(documents[key], languages[key], by_document[key], hashes[key])) + b"\n"
        lines.append(line)
        offsets.append(offsets[-1] + len(line))
        starts.append(starts[-1] + len(by_document[key]))
        if documents[key].metadata:
            metadata.append([number, [list(pair) for pair in documents[key].metadata]])
    return b"".join(lines), ids, offsets, starts, canonical_bytes(metadata) + b"\n"


class DocumentMap(Mapping[str, Document]):
    """Document id -> ``Document``, parsed on first use."""

    def __init__(self, stored: StoredDocuments) -> None:
        self.stored = stored

    def __getitem__(self, key: str) -> Document:
        number = self.stored.number(key)
        if number is None:
            raise KeyError(key)
        return self.stored.record(number).document

    def __contains__(self, key: object) -> bool:
        return self.stored.number(key) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.stored.ids)

    def __len__(self) -> int:
        return len(self.stored.ids)


class FieldMap(DocumentMap):
    """Document id -> its ``language`` or ``content_hash``, read from its record."""

    def __init__(self, stored: StoredDocuments, field: str) -> None:
        super().__init__(stored)
        self.field = field

    def __getitem__(self, key: str) -> str:  # type: ignore[override]
        number = self.stored.number(key)
        if number is None:
            raise KeyError(key)
        return getattr(self.stored.record(number), self.field)


class PassageList(Sequence[Passage]):
    """Passage position -> ``Passage`` (its document parsed on first use)."""

    def __init__(self, stored: StoredDocuments) -> None:
        self.stored = stored

    def __len__(self) -> int:
        return self.stored.passage_starts[-1]

    def __getitem__(self, position):  # type: ignore[override]
        if isinstance(position, slice):
            return [self[p] for p in range(*position.indices(len(self)))]
        if position < 0:
            position += len(self)
        number, within = self.stored.locate(position)
        return self._value(number, within)

    def _value(self, number: int, within: int) -> Any:
        return self.stored.record(number).passages[within]

    def document_ids(self) -> "PassageDocumentIds":
        return PassageDocumentIds(self.stored)


class PassageLanguages(PassageList):
    """Passage position -> the language its document was analysed as."""

    def _value(self, number: int, within: int) -> str:
        return self.stored.record(number).language


class PassageDocumentIds(PassageList):
    """Passage position -> its document's id (no document is parsed)."""

    def _value(self, number: int, within: int) -> str:
        return self.stored.ids[number]


class PassageIds(PassageList):
    """Passage position -> its passage id, ``DOCUMENT_ID#N`` (no document is parsed)."""

    def _value(self, number: int, within: int) -> str:
        return f"{self.stored.ids[number]}#{within + 1}"
