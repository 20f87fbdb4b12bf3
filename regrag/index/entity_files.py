"""The entity table stored in a generation: ``entities/names.json`` and
``entities/documents.json``, attached files (``attachments``: listed and
checksummed in the manifest, outside the index id).

Every publish computes the table from the generation it has just written
(``attach_table``), whatever wrote it (an in-memory, bounded, segmented,
sharded or Spark build, an update, ``regrag embed``), so a stored table is
always the table of the stored documents. An index opened from a directory
reads it (``stored_table``) instead of parsing every document's metadata and
checking every name: at 35,440 articles that was about two thirds of a
one-shot ``regrag search`` (docs/performance.md).

``names.json`` (canonical JSON): ``format``; ``rules`` (``TABLE_RULES``, bumped
whenever which names are used or how they are keyed changes: a table of other
rules is not used, the table is computed again); ``entity_names_per_document``
(the limit it was computed with: an index opened with another limit computes
its own); ``documents`` (the generation's document count); ``names``: one
``[key, case_sensitive, field, start, end]`` per name in matching order, where
``documents.json[start:end]`` is the canonical JSON array of the sorted ids of
the documents it names (parsed only when a query matches it); ``rejected``:
``[document_id, field, name, reason]``, sorted.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import re
from functools import partial
from pathlib import Path
from typing import Any, Callable

from regrag.audit.canonical import canonical_bytes
from regrag.errors import CorruptIndexError
from regrag.index import attachments, codec
from regrag.index.entity_rules import RejectedName
from regrag.index.entity_table import ENTITY_FIELDS, EntityEntry, EntityTable, build_entity_table
from regrag.index.stored_documents import METADATA
from regrag.index.generation_open import open_generation_files
from regrag.limits import DEFAULT_LIMITS
from regrag.io import writes

FOLDER = "entities"
NAMES = "names.json"
DOCUMENTS = "documents.json"
FORMAT = 1
# a metadata pair of an entity field as canonical JSON writes it (``["issuer_aliases","…"]``)
ENTITY_KEY = re.compile(rb'\["(?:' + b"|".join(sorted({f.split("_")[0].encode() for f in ENTITY_FIELDS})) + rb')[a-z_]*","')
TABLE_RULES = 1


def table_files(table: EntityTable, document_count: int, names_per_document: int) -> dict[str, bytes]:
    """The two files of ``table`` (names within the generation -> bytes)."""
    blobs: list[bytes] = []
    names: list[list[Any]] = []
    offset = 0
    for number, entry in enumerate(table.entries):
        blob = canonical_bytes(list(table.documents(number)))
        names.append([entry.key, entry.sensitive, entry.field, offset, offset + len(blob)])
        blobs.append(blob)
        offset += len(blob)
    head = {"documents": document_count, "entity_names_per_document": names_per_document, "format": FORMAT,
            "names": names, "rejected": [[r.document_id, r.field, r.name, r.reason] for r in table.rejected],
            "rules": TABLE_RULES}
    return {f"{FOLDER}/{NAMES}": canonical_bytes(head) + b"\n", f"{FOLDER}/{DOCUMENTS}": b"".join(blobs)}


def attach_table(directory: Path, manifest_bytes: bytes) -> bytes:
    """Compute the entity table of the generation just written to ``directory``
    (its manifest: ``manifest_bytes``), read back as any reader opens it, write
    the table's files there and list them in its manifest: the new manifest
    bytes (``manifest_bytes`` when the corpus has no entity metadata: nothing
    is written, the generation is what it was)."""
    if not _may_name_entities(directory):
        return manifest_bytes
    manifest = json.loads(manifest_bytes.decode("utf-8"))
    table, count = computed_table(open_generation_files(directory, manifest))
    if not table:
        return manifest_bytes
    files = table_files(table, count, DEFAULT_LIMITS.entity_names_per_document)
    listed = dict(manifest.get(attachments.KEY) or {})
    listed.update(attachments.entries(files))
    amended = attachments.amended_manifest(manifest_bytes, listed)
    writes.make_directory(directory / FOLDER, exist_ok=True)
    for name in sorted(files):
        writes.write_file(directory / name, files[name])
    writes.fsync_directory(directory / FOLDER)
    writes.write_file(directory / "manifest.json", amended, replace=True)
    writes.fsync_directory(directory)
    return amended


def _may_name_entities(directory: Path) -> bool:
    """Whether any ``metadata.json`` of the generation (its own, its segments'
    or shards') holds an entity field: one scan of the bytes, in place,
    before any metadata is parsed (10 million documents' metadata without
    such a field took 127 s of CPU and 11.7 GB to parse for an empty table)."""
    for path in sorted(directory.rglob(METADATA)):
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size == 0:
                continue
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                if ENTITY_KEY.search(data):
                    return True
    return False


def computed_table(inverted) -> tuple[EntityTable, int]:
    """The table of an opened generation under the default limit, and its document count."""
    from regrag.index.document_access import documents_with_metadata

    return build_entity_table(documents_with_metadata(inverted), inverted, DEFAULT_LIMITS), len(inverted.documents)


def reader(directory: Path, entry, inverted, limits) -> Callable[[], EntityTable | None]:
    """``stored_table`` of generation ``entry`` (a ``PublishedGeneration``) in
    ``directory``, opened as ``inverted`` with ``limits``, to call when first needed."""
    return partial(stored_table, directory, entry.manifest_sha256, len(inverted.documents),
                   limits.entity_names_per_document)


def stored_table(directory: Path, manifest_sha256: str, document_count: int,
                 names_per_document: int) -> EntityTable | None:
    """The table generation ``directory`` stores, its manifest checked against
    ``manifest_sha256`` (what ``CURRENT`` records) and every byte against the
    manifest; None when it stores none, or one computed by other rules, for
    another limit or another document count (the caller computes it then)."""
    manifest, data = codec.read_manifest(directory)
    if hashlib.sha256(data).hexdigest() != manifest_sha256:
        raise CorruptIndexError(f"{directory / codec.MANIFEST}: SHA-256 does not match CURRENT (altered or swapped)")
    problem = attachments.problem(manifest)
    if problem:
        raise CorruptIndexError(f"{directory / codec.MANIFEST}: {problem}")
    listed = attachments.listed(manifest, FOLDER)
    if not listed:  # none stored: the documents name no entity, or it was published before tables were stored
        return None
    if sorted(listed) != sorted((DOCUMENTS, NAMES)):
        raise CorruptIndexError(f"{directory / 'manifest.json'}: lists {', '.join(sorted(listed))} under {FOLDER}/, "
                                f"not the files of an entity table ({DOCUMENTS}, {NAMES})")
    where = directory / FOLDER / NAMES
    head = _parsed(where, attachments.read_checked(directory, f"{FOLDER}/{NAMES}", listed[NAMES]))
    if not isinstance(head, dict) or set(head) != {"documents", "entity_names_per_document", "format", "names",
                                                   "rejected", "rules"}:
        raise CorruptIndexError(f"{where}: malformed (not an entity table)")
    if head["format"] != FORMAT or head["rules"] != TABLE_RULES \
            or head["entity_names_per_document"] != names_per_document or head["documents"] != document_count:
        return None
    data = attachments.read_checked(directory, f"{FOLDER}/{DOCUMENTS}", listed[DOCUMENTS])
    documents = directory / FOLDER / DOCUMENTS
    return EntityTable(_entries(where, head["names"], data, documents), _rejected(where, head["rejected"]),
                       stored=data, where=str(documents))


def _parsed(where: Path, data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise CorruptIndexError(f"{where}: malformed (not UTF-8 JSON)") from None


def _entries(where: Path, names: Any, data: bytes, documents_path: Path) -> tuple[EntityEntry, ...]:
    if not isinstance(names, list):
        raise CorruptIndexError(f"{where}: malformed names (not a list)")
    entries = []
    end_before = 0
    for number, row in enumerate(names):
        if not (isinstance(row, list) and len(row) == 5 and isinstance(row[0], str) and row[0]
                and isinstance(row[1], bool) and row[2] in ENTITY_FIELDS
                and all(isinstance(v, int) and not isinstance(v, bool) for v in row[3:])
                and row[3] == end_before and row[3] < row[4] <= len(data)):
            raise CorruptIndexError(f"{where}: malformed name {number + 1}")
        end_before = row[4]
        entries.append(EntityEntry(row[0], row[1], row[2], span=(row[3], row[4])))
    if end_before != len(data):
        raise CorruptIndexError(f"{documents_path}: {len(data) - end_before:,} bytes no name refers to")
    return tuple(entries)


def _rejected(where: Path, rows: Any) -> tuple[RejectedName, ...]:
    if not isinstance(rows, list) or not all(isinstance(row, list) and len(row) == 4
                                             and all(isinstance(v, str) for v in row) for row in rows):
        raise CorruptIndexError(f"{where}: malformed rejected names")
    return tuple(RejectedName(*row) for row in rows)


def check_stored_table(directory: Path, manifest_sha256: str, inverted) -> None:
    """``regrag verify``: ``CorruptIndexError`` unless the table generation
    ``directory`` stores is the one its documents give now. A generation
    storing none (published before tables were stored) or one of other rules
    passes: such a table is never used, it is computed again."""
    stored = stored_table(directory, manifest_sha256, len(inverted.documents), DEFAULT_LIMITS.entity_names_per_document)
    if stored is None:
        return
    table, count = computed_table(inverted)
    expected = table_files(table, count, DEFAULT_LIMITS.entity_names_per_document) if table else {}
    for name in (f"{FOLDER}/{DOCUMENTS}", f"{FOLDER}/{NAMES}"):  # the bytes as stored (checked by stored_table)
        if expected.get(name) != (directory / name).read_bytes():
            raise CorruptIndexError(f"{directory / name}: differs from the entity table of the stored documents")
