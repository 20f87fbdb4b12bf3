"""The corpus read on the executors, not held by the driver (docs/distributed.md, "Design").

For a streamed corpus (an uncompressed ``.jsonl`` file or a BEIR folder:
``regrag.corpus.stream``), the driver checks the file once, keeping per
document only its id, byte offset and line number, and cuts the id-ordered
documents into contiguous ``CorpusSplit``s. Each Spark task reads its split's
documents from the file itself (shared storage on a cluster) with the
stream's own parser, so they are the documents ``load_corpus`` gives, and
every line read must parse to the id the driver saw; the file's size and
modification time must be the driver's (device and inode may differ from
one machine to another). Which split a document is read in never changes a
byte: phase A's records are canonical and grouped by shard afterwards.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass

from regrag.corpus.model import Document
from regrag.limits import Limits


@dataclass(frozen=True)
class CorpusSplit:
    """Documents ``ids`` (in id order) of one JSONL file: where each line starts and its number."""

    path: str
    beir: bool
    limits: Limits
    max_chars: int
    ids: tuple[str, ...]
    offsets: tuple[int, ...]
    lines: tuple[int, ...]
    size: int
    modified_ns: int


def corpus_splits(documents, count: int) -> list[CorpusSplit] | None:
    """``documents`` (a ``StreamedDocuments``) as at most ``count`` contiguous splits of about
    equal size; None when ``documents`` is not streamed (the driver then holds them)."""
    from regrag.corpus.stream import StreamedDocuments

    if not isinstance(documents, StreamedDocuments):
        return None
    records = documents.records
    total = len(records.ids)
    pieces = max(1, min(count, total))
    bounds = [total * part // pieces for part in range(pieces + 1)]
    return [CorpusSplit(str(documents.path), documents.beir, documents.limits, documents.counted_with[0],
                        tuple(records.ids[start:end]), tuple(records.offsets[start:end]),
                        tuple(records.lines[start:end]), records.state.size, records.state.modified_ns)
            for start, end in zip(bounds, bounds[1:]) if end > start]


def split_documents(split: CorpusSplit) -> Iterator[Document]:
    """The split's documents read from its file, in id order (``SourceChangedError`` when the
    file is not the one the driver scanned)."""
    from pathlib import Path

    from regrag.corpus.stream import StreamedDocuments
    from regrag.corpus.stream_scan import ScannedRecords
    from regrag.io.identity import RETRY, FileState, SourceChangedError
    from regrag.jsonl import printable

    path = Path(split.path)
    try:
        state = FileState.of(path.stat())
    except OSError as error:
        raise SourceChangedError(f"{printable(split.path)}: the executor cannot read it ({error.strerror}); "
                                 "the corpus must be on storage every executor reads") from None
    if (state.size, state.modified_ns) != (split.size, split.modified_ns):
        raise SourceChangedError(f"{printable(split.path)}: {RETRY}")
    count = len(split.ids)
    records = ScannedRecords(list(split.ids), array("q", split.offsets), array("q", split.lines),
                             array("q", bytes(8 * count)), array("q", bytes(8 * count)), state)
    yield from StreamedDocuments(path, split.beir, split.limits, records, split.max_chars)
