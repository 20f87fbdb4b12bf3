"""A topics file for batch search (``regrag search --topics FILE``), as Pyserini reads them.

Two formats: a BEIR ``queries.jsonl`` (one ``{"_id": ..., "text": ...}``
object per line; or a BEIR folder holding one), and TSV, one ``id<TAB>text``
per line. The pairs come back sorted by id, the order of the run file.
"""

from __future__ import annotations

import os

from regrag.errors import InputError
from regrag.io import files
from regrag.jsonl import printable, read_bytes
from regrag.limits import check_query_length

TOPIC_FORMATS = ("topics are a BEIR queries.jsonl ({\"_id\": ..., \"text\": ...} per line), a BEIR folder, "
                 "or TSV (id<TAB>text per line)")


def load_topics(path: str) -> list[tuple[str, str]]:
    """The ``(id, text)`` pairs of ``path``, sorted by id; ``InputError`` naming the file and line."""
    from regrag.audit.golden_queries import load_golden_queries

    where = printable(os.fspath(path))
    if files.is_directory(path, quiet=True) or os.fspath(path).lower().endswith((".jsonl", ".json")):
        return load_golden_queries(path)
    if not files.is_file(path, quiet=True):
        raise InputError(f"{where}: no such topics file; {TOPIC_FORMATS}")
    data = read_bytes(path)
    if data.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"{"):
        return load_golden_queries(path)
    return _tsv_topics(where, data)


def _tsv_topics(where: str, data: bytes) -> list[tuple[str, str]]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(f"{where}:{line}: invalid UTF-8 ({error.reason}); {TOPIC_FORMATS}") from None
    first_line: dict[str, int] = {}
    pairs: list[tuple[str, str]] = []
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        topic_id, tab, query = line.partition("\t")
        topic_id, query = topic_id.strip(), query.strip()
        if not tab or not topic_id or not query:
            raise InputError(f"{where}:{number}: expected id<TAB>text; {TOPIC_FORMATS}")
        if any(character.isspace() for character in topic_id):
            raise InputError(f"{where}:{number}: the topic id {topic_id!r} contains white space (a TREC run cannot hold it)")
        try:
            check_query_length(query)
        except InputError as error:
            raise InputError(f"{where}:{number}: {error}") from None
        if topic_id in first_line:
            raise InputError(f"{where}:{number}: topic {topic_id!r} again (first on line {first_line[topic_id]})")
        first_line[topic_id] = number
        pairs.append((topic_id, query))
    if not pairs:
        raise InputError(f"{where}: no topics (the file is empty or blank); {TOPIC_FORMATS}")
    return sorted(pairs)
