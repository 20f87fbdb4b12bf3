"""Readers for a BEIR-format folder and a writer for TREC run files.

A BEIR folder holds ``corpus.jsonl``, ``queries.jsonl`` (one JSON object per
line with string fields ``_id`` and ``text``) and ``qrels/{split}.tsv``
(tab-separated ``query-id``, ``corpus-id``, integer ``score``, with that
header line).

Every problem with an input file (missing or unreadable file, invalid UTF-8,
malformed line, duplicate id) raises :class:`regrag.errors.InputError` whose
message names the file and, for a bad line, its 1-based line number.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TextIO, Union

from regrag.errors import InputError
from regrag.io import files
from regrag.jsonl import json_objects, read_bytes
from regrag.validation import is_finite_number

__all__ = ["queries_for_split", "read_answers", "read_qrels", "read_queries", "read_query_records", "write_run_trec"]

PathLike = Union[str, "os.PathLike[str]"]

_QRELS_HEADER = ("query-id", "corpus-id", "score")
_INT_RE = re.compile(r"-?[0-9]+")
_WHITESPACE_RE = re.compile(r"\s")


def _lines(path: PathLike) -> Iterator[tuple[int, str]]:
    """Yield ``(1-based line number, text)`` for each line of ``path``.

    Accepts LF and CRLF line ends (one trailing CR is removed) and a leading
    UTF-8 byte-order mark.  The empty piece after a final newline is not a
    line.  Invalid UTF-8 raises InputError naming the line.
    """
    data = read_bytes(path)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    for number, raw in enumerate(pieces, start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{os.fspath(path)}:{number}: invalid UTF-8 (byte offset {exc.start} in the line)"
            ) from None
        yield number, text


def read_query_records(path: PathLike) -> dict[str, dict]:
    """Read a BEIR ``queries.jsonl``: query id -> ``{"text": ..., "metadata": {...}}``.

    Each non-blank line must be a JSON object with string ``_id`` (non-empty)
    and string ``text``, and optionally an object ``metadata``; other fields
    are ignored.  Blank lines are skipped.  A duplicate ``_id`` is an error.
    """
    where = os.fspath(path)
    queries: dict[str, dict] = {}
    first_line: dict[str, int] = {}
    for number, obj in json_objects(path):
        qid = obj.get("_id")
        text = obj.get("text")
        metadata = obj.get("metadata")
        if metadata is None:
            metadata = {}
        if not isinstance(qid, str) or not qid:
            raise InputError(f"{where}:{number}: '_id' must be a non-empty string")
        if not isinstance(text, str):
            raise InputError(f"{where}:{number}: 'text' must be a string")
        if not isinstance(metadata, dict):
            raise InputError(f"{where}:{number}: 'metadata' must be an object")
        if qid in queries:
            raise InputError(
                f"{where}:{number}: duplicate query id {qid!r} (first on line {first_line[qid]})"
            )
        queries[qid] = {"text": text, "metadata": metadata}
        first_line[qid] = number
    return queries


def read_queries(path: PathLike) -> dict[str, str]:
    """Read a BEIR ``queries.jsonl``: query id -> query text, in file order."""
    return {qid: record["text"] for qid, record in read_query_records(path).items()}


def read_answers(path: PathLike) -> dict[str, tuple[bool, tuple[str, ...]]]:
    """Read ``answers.jsonl``: query id -> (answerable, reference answers).

    Two line formats are accepted: the sample corpora's
    ``{"_id", "answerable", "answer"}`` and XQuAD's
    ``{"_id", "answers": [{"text", "answer_start"}, ...]}`` (answerable).
    An ``answer`` may be a string, a number (its JSON text: ``42``,
    ``3.5``) or a list of them; ``answers`` may list strings or objects
    with a string ``text``. With several references, any one counts
    (``regrag.eval.answers``). A message names the field that is wrong.
    """
    where = os.fspath(path)
    answers: dict[str, tuple[bool, tuple[str, ...]]] = {}
    for number, obj in json_objects(path):
        if not isinstance(obj.get("_id"), str) or not obj["_id"]:
            raise InputError(f"{where}:{number}: expected an object with a non-empty string '_id'")
        qid = obj["_id"]
        if qid in answers:
            raise InputError(f"{where}:{number}: duplicate query id {qid!r}")
        if "answers" in obj:
            items = obj["answers"]
            if not isinstance(items, list) or not all(
                isinstance(item, str) or (isinstance(item, dict) and isinstance(item.get("text"), str)) for item in items
            ):
                raise InputError(
                    f"{where}:{number}: 'answers' must be a list of strings or of objects with a string 'text'"
                )
            answers[qid] = (True, tuple(item if isinstance(item, str) else item["text"] for item in items))
            continue
        answerable = obj.get("answerable", True)
        if not isinstance(answerable, bool):
            raise InputError(f"{where}:{number}: 'answerable' must be true or false, got {type(answerable).__name__}")
        answers[qid] = (answerable, _reference_texts(obj.get("answer", ""), f"{where}:{number}"))
    return answers


def _reference_texts(value: object, where: str) -> tuple[str, ...]:
    """An ``answer`` field as reference texts: a string, a number or a list of them (empty strings dropped)."""
    items = value if isinstance(value, list) else [value]
    texts: list[str] = []
    for item in items:
        if isinstance(item, str):
            text = item
        elif is_finite_number(item):
            text = repr(item)
        else:
            raise InputError(
                f"{where}: 'answer' must be a string, a finite number or a list of them, "
                f"got {type(item).__name__}{' in the list' if isinstance(value, list) else ''}"
            )
        if text:
            texts.append(text)
    return tuple(texts)


def _read_qrels_lines(path: PathLike) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """Parse a qrels TSV; also return the line where each query id first appears."""
    where = os.fspath(path)
    qrels: dict[str, dict[str, int]] = {}
    first_line: dict[str, int] = {}
    for number, line in _lines(path):
        if line == "":
            continue
        fields = line.split("\t")
        if number == 1 and tuple(fields) == _QRELS_HEADER:
            continue
        if len(fields) != 3:
            raise InputError(
                f"{where}:{number}: expected 3 tab-separated fields "
                f"(query-id, corpus-id, score), found {len(fields)}"
            )
        qid, doc_id, score = fields
        if not qid or not doc_id:
            raise InputError(f"{where}:{number}: empty query-id or corpus-id")
        if not _INT_RE.fullmatch(score):
            raise InputError(f"{where}:{number}: score {score!r} is not an integer")
        judged = qrels.get(qid)
        if judged is None:
            judged = qrels[qid] = {}
            first_line[qid] = number
        if doc_id in judged:
            raise InputError(
                f"{where}:{number}: duplicate judgment for query {qid!r}, document {doc_id!r}"
            )
        judged[doc_id] = int(score)
    return qrels, first_line


def read_qrels(path: PathLike) -> dict[str, dict[str, int]]:
    """Read a BEIR qrels TSV: query id -> {document id -> integer relevance}.

    Lines are ``query-id<TAB>corpus-id<TAB>score`` with LF or CRLF ends.  The
    first line is skipped only when it is exactly the header
    ``query-id<TAB>corpus-id<TAB>score``; otherwise it is read as data.  Empty
    lines are skipped.  A line without exactly three fields, with an empty id,
    a score that is not an integer (optional ``-`` and ASCII digits), or that
    judges the same (query, document) pair twice is an error.  Queries and
    documents keep file order.
    """
    return _read_qrels_lines(path)[0]


def queries_for_split(beir_dir: PathLike, split: str = "test") -> dict[str, str]:
    """Queries of ``beir_dir/queries.jsonl`` that appear in ``qrels/{split}.tsv``.

    Returns query id -> text, sorted by query id (string order).  A query id
    of the qrels that is missing from ``queries.jsonl`` is an error.
    """
    queries_path = os.path.join(beir_dir, "queries.jsonl")
    qrels_path = os.path.join(beir_dir, "qrels", f"{split}.tsv")
    qrels, first_line = _read_qrels_lines(qrels_path)
    queries = read_queries(queries_path)
    selected: dict[str, str] = {}
    for qid in sorted(qrels):
        if qid not in queries:
            raise InputError(
                f"{qrels_path}:{first_line[qid]}: query id {qid!r} is not in {queries_path}"
            )
        selected[qid] = queries[qid]
    return selected


def _check_field(value: str, what: str) -> None:
    if not isinstance(value, str) or not value or _WHITESPACE_RE.search(value):
        raise InputError(
            f"cannot write TREC run: {what} {value!r} must be a non-empty string without whitespace"
        )


def _run_lines(run: Mapping[str, Sequence[tuple[str, float]]], tag: str) -> Iterator[str]:
    _check_field(tag, "run tag")
    for qid in sorted(run):
        _check_field(qid, "query id")
        seen: set[str] = set()
        for rank, (doc_id, score) in enumerate(run[qid], start=1):
            _check_field(doc_id, "document id")
            if doc_id in seen:
                raise InputError(
                    f"cannot write TREC run: document {doc_id!r} appears twice for query {qid!r}"
                )
            seen.add(doc_id)
            value = float(score)
            if not math.isfinite(value):
                raise InputError(
                    f"cannot write TREC run: score {value!r} of document {doc_id!r} "
                    f"for query {qid!r} is not finite"
                )
            yield f"{qid} Q0 {doc_id} {rank} {value!r} {tag}\n"


def write_run_trec(
    path_or_file: PathLike | TextIO,
    run: Mapping[str, Sequence[tuple[str, float]]],
    tag: str,
) -> None:
    """Write ``run`` in TREC format: ``qid Q0 docid rank score tag`` per line.

    Queries are written sorted by id; each query's hits in the given order
    with ranks 1, 2, ...; scores as ``repr`` of the float (round-trips
    exactly).  ``path_or_file`` is a path (written as UTF-8 with LF line
    ends) or an open text file.

    trec_eval ignores the rank column and re-sorts each query by score
    descending, ties by document id descending; give hits in that order
    (:func:`regrag.eval.metrics.trec_eval_order`) for trec_eval to see the
    same ranking.  Ids and the tag must be non-empty and contain no
    whitespace, document ids must not repeat within a query and scores must
    be finite; otherwise InputError is raised (before anything is written).
    """
    lines = list(_run_lines(run, tag))
    if hasattr(path_or_file, "write"):
        path_or_file.writelines(lines)  # type: ignore[union-attr]
        return
    where = os.fspath(path_or_file)  # type: ignore[arg-type]
    try:
        with files.open_text_for_writing(where) as handle:
            handle.writelines(lines)
    except OSError as exc:
        raise InputError(f"{where}: cannot write file: {exc.strerror or exc}") from None
