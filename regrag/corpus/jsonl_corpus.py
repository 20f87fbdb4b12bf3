"""JSONL and BEIR corpora: one JSON object per line, each line a document.

A JSONL line has ``id``, optional ``title``, ``text`` or ``sections`` and
``metadata``; a BEIR ``corpus.jsonl`` line has ``_id``, ``title``, ``text``
and ``metadata`` (whose nested values are kept as canonical JSON). A file
whose name ends in ``.gz`` is read through gzip (``regrag.jsonl``), with the
limits applied to the decompressed bytes.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from regrag.audit.canonical import canonical_json
from regrag.corpus.checks import (
    _ID_RULE,
    _Outcome,
    _check_field_text,
    _shown_id,
    _unique_sorted,
    id_length_error,
    id_problem,
)
from regrag.corpus.model import TITLE_SEPARATOR, Corpus, Document, Section
from regrag.errors import InputError
from regrag.jsonl import json_records, printable
from regrag.limits import DEFAULT_LIMITS, LimitError, Limits
from regrag.validation import is_int, is_number

BEIR_CORPUS_NAMES = ("corpus.jsonl", "corpus.jsonl.gz")


def _records_corpus(path: Path, beir: bool, limits: Limits, outcome: _Outcome) -> Corpus:
    return Corpus(_load_records(path, beir, limits, outcome), (), tuple(outcome.rejected))


def _load_records(path: Path, beir: bool, limits: Limits, outcome: _Outcome) -> tuple[Document, ...]:
    """Documents of a JSONL (or, with ``beir``, a BEIR ``corpus.jsonl``) file.
    A bad line goes to ``outcome``; of two lines with one id, the first stays."""
    documents: list[Document] = []
    first_line: dict[str, int] = {}
    where_file = printable(str(path))
    try:
        for number, record in json_records(path, limits):
            where = f"{where_file}:{number}"
            try:
                if isinstance(record, InputError):
                    raise record
                document = _record_document(record, beir, path, where, limits)
                if document.id in first_line:
                    raise InputError(
                        f"{where}: duplicate document id {document.id!r} (first on line {first_line[document.id]})"
                    )
            except InputError as error:
                outcome.reject(error, where)
                continue
            first_line[document.id] = number
            documents.append(document)
    except InputError as error:  # the whole file: unreadable, too large, UTF-16
        outcome.reject(error, where_file)
        return ()
    return _unique_sorted(documents, path)


def _record_document(record: dict[str, Any], beir: bool, path: Path, where: str, limits: Limits) -> Document:
    document_id = _id_field(record, "_id" if beir else "id", where, limits)
    title = _string_field(record, "title", where, required=False)
    metadata = _metadata_field(record, where, lenient=beir)
    if not beir and "sections" in record:
        if "text" in record:
            raise InputError(f"{where}: give 'text' or 'sections', not both")
        text, sections = _sections_field(record["sections"], title, where, limits)
    else:
        text = _string_field(record, "text", where)
        sections = (Section(title, 0, len(text)),)
    return Document(document_id, title, text, sections, metadata, path.name)


def load_jsonl(path: Path, *, limits: Limits = DEFAULT_LIMITS) -> tuple[Document, ...]:
    """Documents from a JSONL file: ``id``, ``title``, ``text`` or ``sections``, ``metadata``.

    No title is invented: a document without one has an empty title."""
    return _load_records(path, False, limits, _Outcome(collect=False))


def load_beir_corpus(path: Path, *, limits: Limits = DEFAULT_LIMITS) -> tuple[Document, ...]:
    """Documents from a BEIR ``corpus.jsonl`` (``_id``, ``title``, ``text``, ``metadata``)."""
    return _load_records(path, True, limits, _Outcome(collect=False))


def _string_field(record: dict, key: str, where: str, required: bool = True, field: str | None = None) -> str:
    value = record.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise InputError(f"{where}: field {field or key!r} must be a string")
    _check_field_text(value, field or key, where)
    return value


def _id_field(record: dict, key: str, where: str, limits: Limits = DEFAULT_LIMITS) -> str:
    value = record.get(key)
    if is_int(value):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: field {key!r} must be a non-empty string")
    too_long = id_length_error(value, f"{where}: field {key!r}", limits)
    if too_long is not None:
        raise too_long
    problem = id_problem(value)
    if problem is not None:
        raise InputError(f"{where}: field {key!r}: the document id {_shown_id(value, problem)} {problem} ({_ID_RULE})")
    return value


def _metadata_field(record: dict, where: str, lenient: bool = False) -> tuple[tuple[str, str], ...]:
    """Metadata as sorted (key, text) pairs. Strings are kept; finite numbers
    become their ``repr``. A JSONL corpus allows nothing else; a BEIR corpus
    (``lenient``) also keeps lists, objects, booleans and null, as their
    canonical JSON text, since published BEIR sets carry such metadata."""
    metadata = record.get("metadata")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict):
        raise InputError(f"{where}: field 'metadata' must be an object")
    pairs = []
    for key, value in metadata.items():
        _check_field_text(key, "metadata key", where)
        if isinstance(value, str):
            text = value
        elif is_number(value):
            if not math.isfinite(value):
                raise InputError(f"{where}: metadata {key!r} must be a finite number")
            text = repr(value)
        elif lenient:
            try:
                text = canonical_json(value)
            except ValueError:
                raise InputError(f"{where}: metadata {key!r} holds a non-finite number") from None
        else:
            raise InputError(f"{where}: metadata {key!r} must be a string or a number")
        _check_field_text(text, f"metadata.{key}", where)
        pairs.append((key, text))
    return tuple(sorted(pairs))


def _sections_field(value: Any, title: str, where: str, limits: Limits) -> tuple[str, tuple[Section, ...]]:
    if not isinstance(value, list) or not value:
        raise InputError(f"{where}: field 'sections' must be a non-empty list")
    if len(value) > limits.sections_per_document:
        raise LimitError(
            f"{where}: {len(value):,} sections; the limit is {limits.sections_per_document:,} "
            "(regrag.limits.Limits.sections_per_document)"
        )
    parts: list[str] = []
    sections: list[Section] = []
    position = 0
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise InputError(f"{where}: sections[{index}] must be an object")
        heading = _string_field(item, "title", where, required=False, field=f"sections[{index}].title")
        body = _string_field(item, "text", where, field=f"sections[{index}].text")
        if parts:
            parts.append("\n\n")
            position += 2
        names = [name for name in (title, heading) if name]
        sections.append(Section(TITLE_SEPARATOR.join(names), position, position + len(body)))
        parts.append(body)
        position += len(body)
    return "".join(parts), tuple(sections)
