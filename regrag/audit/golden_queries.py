"""Golden files: the queries to record, and checking methods and ``k``.

Split out of ``regrag.audit.golden``. ``load_golden_queries`` reads a BEIR
``queries.jsonl``, a BEIR folder, or a plain-text file of one query per line
(``docs/golden.md``, "Query files").
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from typing import Any

from regrag.audit.golden_model import PathLike, Queries
from regrag.errors import InputError
from regrag.io import files
from regrag.jsonl import printable, read_bytes, wide_encoding, wide_encoding_error
from regrag.limits import check_query_length
from regrag.retrieval.methods import METHODS
from regrag.validation import check_positive_int


#: What ``load_golden_queries`` accepts, named in every error about a query file's content.
QUERY_FORMATS = (
    'expected a BEIR queries.jsonl (one {"_id": ID, "text": TEXT} object per line), a BEIR folder '
    "holding queries.jsonl, or a plain-text file (.txt: one query per line)"
)

_JSONL_SUFFIXES = (".jsonl", ".json")
_TEXT_SUFFIXES = (".txt",)
_PLAIN_ID_PREFIX = "q-"
_PLAIN_ID_HEX_DIGITS = 12


def load_golden_queries(path: PathLike) -> list[tuple[str, str]]:
    """The ``(id, text)`` pairs of a query file, sorted by id, for :func:`record_golden`.

    Accepted: a BEIR ``queries.jsonl`` (its ``_id`` and ``text``), a BEIR
    folder (its ``queries.jsonl``), or plain text, one query per line (a
    ``.txt`` file, or a regular file without a ``.jsonl``/``.json`` suffix
    whose first non-blank line does not start with ``{``): each line is stripped of surrounding white space, blank
    lines are skipped, and each query's id is :func:`plain_text_query_id` of
    its text. ``InputError`` naming the file, the line and the accepted
    formats for a file that fits none of them.
    """
    where = printable(os.fspath(path))
    if files.is_directory(path, quiet=True):
        inner = os.path.join(path, "queries.jsonl")
        if not files.is_file(inner, quiet=True):
            raise InputError(f"{where}: a folder without queries.jsonl; {QUERY_FORMATS}")
        return _jsonl_queries(inner)
    name = os.fspath(path)
    suffix = os.path.splitext(name)[1].lower()
    if suffix in _JSONL_SUFFIXES or (suffix not in _TEXT_SUFFIXES and not files.is_file(name, quiet=True)):
        # A pipe (``<(...)``) can be read only once, so it is not sniffed: without a .txt
        # suffix it is JSON Lines, as before plain text was accepted.
        return _jsonl_queries(path)
    data = read_bytes(path)
    if suffix not in _TEXT_SUFFIXES and _looks_like_jsonl(data):
        return _jsonl_queries(path)
    return _plain_text_queries(where, data)


def plain_text_query_id(text: str) -> str:
    """The id of a query read from plain text: ``q-`` and the first 12 hex
    digits of the SHA-256 of its UTF-8 text. It depends on the text alone, so
    re-recording after adding, removing or reordering other lines keeps it."""
    return _PLAIN_ID_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()[:_PLAIN_ID_HEX_DIGITS]


def _looks_like_jsonl(data: bytes) -> bool:
    """Whether the first non-blank line starts with ``{`` (after a byte-order mark)."""
    return data.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"{")


def _jsonl_queries(path: PathLike) -> list[tuple[str, str]]:
    from regrag.eval.beir import read_query_records

    try:
        records = read_query_records(path)
    except InputError as error:
        raise InputError(f"{error}; {QUERY_FORMATS}") from None
    return sorted((qid, record["text"]) for qid, record in records.items())


def _plain_text_queries(where: str, data: bytes) -> list[tuple[str, str]]:
    """One query per non-blank line; ids from :func:`plain_text_query_id`."""
    encoding = wide_encoding(data[:4096])
    if encoding is not None:
        raise wide_encoding_error(f"{where}:1", encoding)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(f"{where}:{line}: invalid UTF-8 ({error.reason}); {QUERY_FORMATS}") from None
    first_line: dict[str, int] = {}
    pairs: list[tuple[str, str]] = []
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        query = line.strip()
        if not query:
            continue
        try:
            check_query_length(query)
        except InputError as error:
            raise InputError(f"{where}:{number}: {error}") from None
        qid = plain_text_query_id(query)
        if qid in first_line:
            raise InputError(f"{where}:{number}: the same query as line {first_line[qid]}; give each query once")
        first_line[qid] = number
        pairs.append((qid, query))
    if not pairs:
        raise InputError(f"{where}: no queries (the file is empty or blank); {QUERY_FORMATS}")
    return sorted(pairs)


def checked_queries(queries: Queries) -> list[tuple[str, str]]:
    """Validate ``(id, text)`` pairs and sort them by id; duplicates are an error."""
    if isinstance(queries, (str, bytes)):
        raise InputError("queries must be (id, text) pairs, not a string")
    items: Iterable[Any] = queries.items() if isinstance(queries, Mapping) else queries
    pairs: list[tuple[str, str]] = []
    seen: set[str] = set()
    for item in items:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise InputError(f"each query must be an (id, text) pair, got {item!r}")
        qid, text = item
        if not isinstance(qid, str) or not qid:
            raise InputError(f"query id must be a non-empty string, got {qid!r}")
        if not isinstance(text, str):
            raise InputError(f"text of query {qid!r} must be a string, got {type(text).__name__}")
        if qid in seen:
            raise InputError(f"duplicate query id {qid!r}")
        seen.add(qid)
        pairs.append((qid, text))
    if not pairs:
        raise InputError("no queries to record")
    pairs.sort(key=lambda pair: pair[0])
    return pairs


def checked_methods(methods: Iterable[Any]) -> list[str]:
    """Known methods, no repeats, in the engine's order (bm25, tfidf, hybrid)."""
    if isinstance(methods, str):
        methods = (methods,)
    wanted = list(methods)
    for method in wanted:
        if method not in METHODS:
            raise InputError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    if len(set(wanted)) != len(wanted):
        raise InputError(f"methods repeat: {wanted!r}")
    if not wanted:
        raise InputError("no methods to record")
    return [method for method in METHODS if method in wanted]


def check_k(k: Any) -> int:
    return check_positive_int(k, "k")
