"""Golden files: the file form (``regrag-golden/1``), validation and the fingerprint.

Split out of ``regrag.audit.golden``; ``docs/golden.md`` describes the format
field by field.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

from regrag.audit.canonical import canonical_json, sha256_hex
from regrag.audit.golden_model import FORMAT, Golden, PathLike
from regrag.audit.golden_queries import checked_methods
from regrag.errors import InputError
from regrag.io.digests import is_sha256_hex
from regrag.io.writes import write_atomically
from regrag.jsonl import parse_json_object, read_bytes

_HEADER_REQUIRED = frozenset({"fingerprint", "format", "index_id", "k", "methods"})
_HEADER_OPTIONAL = frozenset({"corpus_root"})
_QUERY_LINE_KEYS = frozenset({"query", "text"})
_ENTRY_LINE_KEYS = frozenset({"document_id", "method", "passage_id", "query", "rank", "score"})
_QUERY_KEYS = frozenset({"id", "rankings", "text"})
_ENTRY_KEYS = frozenset({"document_id", "passage_id", "rank", "score"})


def golden_fingerprint(golden: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of every field but ``fingerprint``."""
    return sha256_hex({key: value for key, value in golden.items() if key != "fingerprint"})


# validation -------------------------------------------------------------------


def _header_problem(header: Mapping[str, Any]) -> str | None:
    """What is wrong with the header fields, or None."""
    if header.get("format") != FORMAT:
        return f"not a golden file of format {FORMAT!r} (format is {header.get('format')!r})"
    keys = set(header)
    if not _HEADER_REQUIRED <= keys or not keys <= _HEADER_REQUIRED | _HEADER_OPTIONAL:
        missing = sorted(_HEADER_REQUIRED - keys)
        extra = sorted(keys - _HEADER_REQUIRED - _HEADER_OPTIONAL)
        return f"header fields wrong (missing {missing}, unexpected {extra})"
    if not is_sha256_hex(header["fingerprint"]):
        return "fingerprint must be 64 lowercase hex digits"
    if not isinstance(header["index_id"], str) or not header["index_id"]:
        return "index_id must be a non-empty string"
    if "corpus_root" in header and (not isinstance(header["corpus_root"], str) or not header["corpus_root"]):
        return "corpus_root must be a non-empty string"
    k = header["k"]
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        return f"k must be a positive integer, got {k!r}"
    methods = header["methods"]
    if not isinstance(methods, list):
        return "methods must be a list"
    try:
        normalized = checked_methods(methods)
    except InputError as error:
        return str(error)
    if normalized != methods:
        return f"methods must be listed in the order {normalized!r}"
    return None


def _entry_problem(
    document_id: Any, passage_id: Any, rank: Any, score: Any, expected_rank: int, k: int, seen: set[str]
) -> str | None:
    """What is wrong with one ranking entry, or None."""
    if not isinstance(document_id, str) or not document_id:
        return "document_id must be a non-empty string"
    if not isinstance(passage_id, str) or passage_id.rpartition("#")[0] != document_id:
        return f"passage_id {passage_id!r} must be '{document_id}#N'"
    if isinstance(rank, bool) or not isinstance(rank, int) or rank != expected_rank:
        return f"rank must be {expected_rank} here (ranks run 1, 2, ... without gaps), got {rank!r}"
    if rank > k:
        return f"rank {rank} is beyond k = {k}"
    if not isinstance(score, float) or not math.isfinite(score):
        return f"score must be a finite floating-point number (written with a '.' or exponent), got {score!r}"
    if passage_id in seen:
        return f"passage {passage_id!r} appears twice in one ranking"
    return None


def check_golden(golden: Any, where: str) -> Golden:
    """Validate a golden dict (shape and fingerprint); InputError naming ``where``."""
    if not isinstance(golden, dict):
        raise InputError(f"{where}: a golden record must be a dict, got {type(golden).__name__}")
    header = {key: value for key, value in golden.items() if key != "queries"}
    problem = _header_problem(header)
    if problem is None and not isinstance(golden.get("queries"), list):
        problem = "queries must be a list"
    if problem is not None:
        raise InputError(f"{where}: {problem}")
    methods, k = golden["methods"], golden["k"]
    previous: str | None = None
    for number, record in enumerate(golden["queries"], start=1):
        if not isinstance(record, dict) or set(record) != _QUERY_KEYS:
            raise InputError(f"{where}: query {number} must be an object with keys {sorted(_QUERY_KEYS)}")
        qid, text, rankings = record["id"], record["text"], record["rankings"]
        if not isinstance(qid, str) or not qid or not isinstance(text, str):
            raise InputError(f"{where}: query {number} needs a non-empty string id and a string text")
        if previous is not None and qid <= previous:
            raise InputError(f"{where}: query ids must be unique and ascending ({qid!r} after {previous!r})")
        previous = qid
        if not isinstance(rankings, dict) or set(rankings) != set(methods):
            raise InputError(f"{where}: query {qid!r}: rankings must have exactly the methods {methods}")
        for method in methods:
            entries = rankings[method]
            if not isinstance(entries, list):
                raise InputError(f"{where}: query {qid!r}, {method}: ranking must be a list")
            seen: set[str] = set()
            for expected, entry in enumerate(entries, start=1):
                if not isinstance(entry, dict) or set(entry) != _ENTRY_KEYS:
                    raise InputError(f"{where}: query {qid!r}, {method}: entries need keys {sorted(_ENTRY_KEYS)}")
                problem = _entry_problem(
                    entry["document_id"], entry["passage_id"], entry["rank"], entry["score"], expected, k, seen
                )
                if problem is not None:
                    raise InputError(f"{where}: query {qid!r}, {method}, rank {expected}: {problem}")
                seen.add(entry["passage_id"])
    if golden_fingerprint(golden) != golden["fingerprint"]:
        raise InputError(
            f"{where}: fingerprint does not match the content (the rankings or header were changed "
            "after recording; re-record instead of editing)"
        )
    return golden


# the file form ------------------------------------------------------------------


def dumps_golden(golden: Golden) -> str:
    """The file text of a golden dict: canonical JSON Lines, LF line ends.

    Line 1 is the header (every field but ``queries``); then for each query a
    line ``{"query", "text"}`` followed by its ranking entries, method by method
    in header order, rank by rank: ``{"document_id", "method", "passage_id",
    "query", "rank", "score"}``. The dict is validated first (shape and
    fingerprint), so only a consistent record can be written.
    """
    check_golden(golden, "golden record")
    lines = [canonical_json({key: value for key, value in golden.items() if key != "queries"})]
    for record in golden["queries"]:
        lines.append(canonical_json({"query": record["id"], "text": record["text"]}))
        for method in golden["methods"]:
            for entry in record["rankings"][method]:
                lines.append(canonical_json({**entry, "method": method, "query": record["id"]}))
    return "\n".join(lines) + "\n"


def write_golden(path: PathLike, golden: Golden) -> None:
    """Write ``golden`` to ``path`` (UTF-8, LF), atomically: the file is
    replaced only once the new text is complete."""
    write_atomically(path, dumps_golden(golden).encode("utf-8"))


def read_golden(path: PathLike) -> Golden:
    """Read and validate a golden file written by :func:`write_golden`.

    Raises ``InputError`` naming the file (and the line, when the problem is
    on one) for a file that is malformed, not in canonical form, or whose
    fingerprint does not match its content.
    """
    text, where = read_utf8(path)
    return loads_golden(text, where)


def read_utf8(path: PathLike) -> tuple[str, str]:
    """The text of a file regrag wrote, and its name for error messages;
    ``InputError`` naming the line of the first byte that is not UTF-8
    (shared by the golden answer files, ``regrag.audit.golden_answers``)."""
    where = os.fspath(path)
    data = read_bytes(path)
    try:
        return data.decode("utf-8"), where
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(f"{where}:{line}: invalid UTF-8") from None


def loads_golden(text: str, where: str = "<golden>") -> Golden:
    """Parse and validate the text of a golden file (see :func:`read_golden`);
    ``where`` names the source in error messages."""
    if text.startswith("\ufeff"):
        text = text[1:]
    pieces = text.split("\n")
    if pieces and pieces[-1] == "":
        pieces.pop()
    if not pieces:
        raise InputError(f"{where}: empty file, not a golden file")
    golden: Golden | None = None
    records: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    method_position = 0
    seen: set[str] = set()
    for number, line in enumerate(pieces, start=1):
        if line.endswith("\r"):
            line = line[:-1]
        at = f"{where}:{number}"
        obj = _parse_line(line, at)
        if number == 1:
            problem = _header_problem(obj)
            if problem is not None:
                raise InputError(f"{at}: {problem}")
            golden = dict(obj)
            continue
        assert golden is not None
        keys = set(obj)
        if keys == _QUERY_LINE_KEYS:
            qid, query_text = obj["query"], obj["text"]
            if not isinstance(qid, str) or not qid or not isinstance(query_text, str):
                raise InputError(f"{at}: a query line needs a non-empty string 'query' and a string 'text'")
            if records and qid <= records[-1]["id"]:
                raise InputError(f"{at}: query ids must be unique and ascending ({qid!r} after {records[-1]['id']!r})")
            current = {"id": qid, "rankings": {method: [] for method in golden["methods"]}, "text": query_text}
            records.append(current)
            method_position = 0
        elif keys == _ENTRY_LINE_KEYS:
            if current is None:
                raise InputError(f"{at}: ranking line before the first query line")
            if obj["query"] != current["id"]:
                raise InputError(f"{at}: ranking line of query {obj['query']!r} under query {current['id']!r}")
            method = obj["method"]
            if method not in golden["methods"]:
                raise InputError(f"{at}: method {method!r} is not in the header's methods {golden['methods']}")
            position = golden["methods"].index(method)
            if position < method_position:
                raise InputError(f"{at}: rankings of a query must follow the header's method order {golden['methods']}")
            method_position = position
            entries = current["rankings"][method]
            if not entries:  # the first entry of this query's ranking for this method
                seen = set()
            problem = _entry_problem(
                obj["document_id"], obj["passage_id"], obj["rank"], obj["score"], len(entries) + 1, golden["k"], seen
            )
            if problem is not None:
                raise InputError(f"{at}: {problem}")
            seen.add(obj["passage_id"])
            entries.append({key: obj[key] for key in _ENTRY_KEYS})
        else:
            raise InputError(
                f"{at}: expected a query line with keys {sorted(_QUERY_LINE_KEYS)} or a ranking line "
                f"with keys {sorted(_ENTRY_LINE_KEYS)}, got keys {sorted(keys)}"
            )
    assert golden is not None
    if not records:
        raise InputError(f"{where}: no queries after the header")
    golden["queries"] = records
    if golden_fingerprint(golden) != golden["fingerprint"]:
        raise InputError(
            f"{where}: fingerprint does not match the content (the file was edited after recording, "
            "or damaged; re-record it instead of editing)"
        )
    return golden


def _parse_line(line: str, at: str) -> dict[str, Any]:
    """One line as a JSON object, which must be in canonical form."""
    if not line.strip():
        raise InputError(f"{at}: blank line")
    return canonical_line(line, at, " (sorted keys, no spaces, repr floats); golden files are written by regrag, "
                                    "not by hand")


def canonical_line(line: str, at: str, advice: str) -> dict[str, Any]:
    """``line`` as a JSON object that must be in canonical form; ``advice``
    ends the message when it is not (shared with ``regrag.audit.golden_answers``)."""
    obj = parse_json_object(line, at)
    try:
        canonical = canonical_json(obj)
    except ValueError:
        raise InputError(f"{at}: NaN or Infinity is not allowed") from None
    if canonical != line:
        raise InputError(f"{at}: line is not in canonical JSON form{advice}")
    return obj
