"""Golden-file regression audits: record rankings once, verify them forever.

A golden file holds, for a fixed set of queries, the exact top-``k`` ranking
that each retrieval method gave on one index: rank, document id, passage id
and the score as a float written with ``repr`` (so it reads back bit for bit).
Verifying re-runs every recorded query and compares ranks and scores exactly;
any change, however small, is reported as "passage P of query Q moved from
rank a (score x) to rank b (score y)".

The file is JSON Lines, one canonical JSON object per line (sorted keys,
``,``/``:`` separators, UTF-8, ``repr`` floats, no NaN): a header line, then
per query (sorted by id) a query line followed by one line per ranking entry.
A changed ranking therefore shows in code review as a few changed lines, each
naming its query, method, rank and passage. A SHA-256 fingerprint over the
content, stored in the header, makes hand edits (tampering) detectable.
``docs/golden.md`` describes the format field by field.

Typical use (the ``python -m regrag golden record|verify`` commands wrap this)::

    queries = load_golden_queries("corpora/regulations/queries.jsonl")
    golden = record_golden(Index.from_path("corpora/regulations/documents"), queries, ("bm25",))
    write_golden("golden/regulations.bm25.golden", golden)
    report = verify_golden(Index.from_path(...), read_golden("golden/regulations.bm25.golden"))
    print(format_report(report))          # report.ok is True when nothing moved
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Union

from regrag.atomic import write_atomically
from regrag.audit.canonical import canonical_json, sha256_hex
from regrag.errors import InputError
from regrag.jsonl import parse_json_object, read_bytes

__all__ = [
    "DEFAULT_K",
    "DEFAULT_METHODS",
    "FORMAT",
    "GoldenDifference",
    "GoldenReport",
    "RankingIndex",
    "dumps_golden",
    "format_report",
    "golden_fingerprint",
    "load_golden_queries",
    "loads_golden",
    "read_golden",
    "record_golden",
    "verify_golden",
    "write_golden",
]

PathLike = Union[str, "os.PathLike[str]"]
Golden = dict[str, Any]
Queries = Union[Sequence[tuple[str, str]], Mapping[str, str]]

FORMAT = "regrag-golden/1"
DEFAULT_METHODS = ("bm25", "tfidf", "hybrid")
DEFAULT_K = 10

_HEADER_REQUIRED = frozenset({"fingerprint", "format", "index_id", "k", "methods"})
_HEADER_OPTIONAL = frozenset({"corpus_root"})
_QUERY_LINE_KEYS = frozenset({"query", "text"})
_ENTRY_LINE_KEYS = frozenset({"document_id", "method", "passage_id", "query", "rank", "score"})
_QUERY_KEYS = frozenset({"id", "rankings", "text"})
_ENTRY_KEYS = frozenset({"document_id", "passage_id", "rank", "score"})
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_TEXT_PREVIEW = 80


class RankingIndex(Protocol):
    """What recording and verifying need from an index (``regrag.Index`` has it)."""

    @property
    def index_id(self) -> str: ...

    def ranking(self, query: str, k: int = ..., method: str = ...) -> list[tuple[str, str, float]]: ...


# records --------------------------------------------------------------------


@dataclass(frozen=True)
class GoldenDifference:
    """One passage whose place in one recorded ranking is not what it was.

    ``old_*`` is the recording, ``new_*`` the ranking now; a side is ``None``
    when the passage is not in that top ``k``. Scores are compared bit for bit.
    """

    query_id: str
    method: str
    passage_id: str
    document_id: str
    old_rank: int | None
    old_score: float | None
    new_rank: int | None
    new_score: float | None

    @property
    def kind(self) -> str:
        """``added`` (new in the top k), ``dropped`` (gone from it), ``moved``
        (other rank) or ``rescored`` (same rank, score not bit-identical)."""
        if self.old_rank is None:
            return "added"
        if self.new_rank is None:
            return "dropped"
        if self.old_rank != self.new_rank:
            return "moved"
        return "rescored"


@dataclass(frozen=True)
class GoldenReport:
    """The outcome of :func:`verify_golden`.

    ``ok`` is True when every recorded ranking came back identical (same
    passages, ranks and bit-identical scores) for the recorded query texts. A
    changed index id alone does not fail verification (the rankings are what
    is audited); it is reported so a reader sees the corpus or parameters
    changed.
    """

    ok: bool
    index_id_then: str
    index_id_now: str
    corpus_root_then: str | None
    corpus_root_now: str | None
    k: int
    methods: tuple[str, ...]
    query_count: int
    differences: tuple[GoldenDifference, ...]
    changed_texts: tuple[tuple[str, str, str], ...] = ()  # (query id, recorded text, text used)
    query_texts: tuple[tuple[str, str], ...] = ()  # (query id, text used) of the queries with differences

    @property
    def index_changed(self) -> bool:
        return self.index_id_then != self.index_id_now

    @property
    def changed_queries(self) -> tuple[str, ...]:
        """Ids of the queries with at least one difference, sorted."""
        return tuple(sorted({d.query_id for d in self.differences}))

    def counts(self) -> dict[str, int]:
        """Number of differences of each kind (all four kinds always present)."""
        counts = {"moved": 0, "added": 0, "dropped": 0, "rescored": 0}
        for difference in self.differences:
            counts[difference.kind] += 1
        return counts


# queries ----------------------------------------------------------------------


def load_golden_queries(path: PathLike) -> list[tuple[str, str]]:
    """The ``(id, text)`` pairs of a BEIR ``queries.jsonl`` (or of the
    ``queries.jsonl`` inside a BEIR folder), sorted by id, for :func:`record_golden`."""
    if os.path.isdir(path):
        path = os.path.join(path, "queries.jsonl")
    from regrag.eval.beir import read_query_records

    return sorted((qid, record["text"]) for qid, record in read_query_records(path).items())


def _checked_queries(queries: Queries) -> list[tuple[str, str]]:
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


def _checked_methods(methods: Iterable[Any]) -> list[str]:
    """Known methods, no repeats, in the engine's order (bm25, tfidf, hybrid)."""
    from regrag.engine import METHODS  # late: regrag.engine imports regrag.audit

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


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"k must be a positive integer, got {k!r}")
    return k


def _corpus_root(index: object) -> str | None:
    """The index's Merkle root of its corpus, when it exposes one."""
    root = getattr(index, "corpus_root", None)
    if callable(root):
        root = root()
    if root is None:
        return None
    if not isinstance(root, str):
        raise TypeError(f"index.corpus_root must be a string, got {type(root).__name__}")
    return root


def _entries(ranking: Sequence[tuple[str, str, float]]) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for rank, (document_id, passage_id, score) in enumerate(ranking, start=1):
        value = float(score)
        if not math.isfinite(value):
            raise InputError(f"score {value!r} of passage {passage_id!r} is not finite")
        entries.append({"document_id": document_id, "passage_id": passage_id, "rank": rank, "score": value})
    return entries


# record -----------------------------------------------------------------------


def golden_fingerprint(golden: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of every field but ``fingerprint``."""
    return sha256_hex({key: value for key, value in golden.items() if key != "fingerprint"})


def record_golden(
    index: RankingIndex,
    queries: Queries,
    methods: Sequence[str] = DEFAULT_METHODS,
    k: int = DEFAULT_K,
) -> Golden:
    """Record the top-``k`` ranking of each query under each method.

    ``queries`` are ``(id, text)`` pairs (or an id -> text mapping); they are
    stored sorted by id, a duplicate id is an ``InputError``. Methods are
    stored in the engine's order. Everything else (RRF depth, entity step,
    no filters) is the engine's default, exactly as ``index.ranking`` gives it.
    Returns the golden dict (see ``docs/golden.md``), fingerprint included.
    """
    k = _check_k(k)
    method_list = _checked_methods(methods)
    records = []
    for qid, text in _checked_queries(queries):
        rankings = {method: _entries(index.ranking(text, k=k, method=method)) for method in method_list}
        records.append({"id": qid, "rankings": rankings, "text": text})
    golden: Golden = {
        "format": FORMAT,
        "index_id": index.index_id,
        "k": k,
        "methods": method_list,
        "queries": records,
    }
    root = _corpus_root(index)
    if root is not None:
        golden["corpus_root"] = root
    golden["fingerprint"] = golden_fingerprint(golden)
    return golden


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
    if not isinstance(header["fingerprint"], str) or not _SHA256_HEX.fullmatch(header["fingerprint"]):
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
        normalized = _checked_methods(methods)
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


def _check_golden(golden: Any, where: str) -> Golden:
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
    _check_golden(golden, "golden record")
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
    where = os.fspath(path)
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(f"{where}:{line}: invalid UTF-8") from None
    return loads_golden(text, where)


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
    obj = parse_json_object(line, at)
    try:
        canonical = canonical_json(obj)
    except ValueError:
        raise InputError(f"{at}: NaN or Infinity is not allowed") from None
    if canonical != line:
        raise InputError(f"{at}: line is not in canonical JSON form (sorted keys, no spaces, repr floats); "
                         "golden files are written by regrag, not by hand")
    return obj


# verify ---------------------------------------------------------------------------


def _same_score(old: float, new: float) -> bool:
    """Bit-for-bit equality: ``==`` and the same ``repr`` (so 0.0 is not -0.0)."""
    return old == new and repr(old) == repr(new)


def _compare(
    query_id: str, method: str, old: list[dict[str, Any]], new: list[dict[str, Any]]
) -> list[GoldenDifference]:
    """The passages whose presence, rank or exact score differs, ordered by rank."""
    before = {entry["passage_id"]: entry for entry in old}
    after = {entry["passage_id"]: entry for entry in new}
    differences = []
    for passage_id in before.keys() | after.keys():
        was, now = before.get(passage_id), after.get(passage_id)
        if was is not None and now is not None:
            if was["rank"] == now["rank"] and _same_score(was["score"], now["score"]):
                continue
        differences.append(
            GoldenDifference(
                query_id=query_id,
                method=method,
                passage_id=passage_id,
                document_id=(was or now or {})["document_id"],
                old_rank=None if was is None else was["rank"],
                old_score=None if was is None else was["score"],
                new_rank=None if now is None else now["rank"],
                new_score=None if now is None else now["score"],
            )
        )
    differences.sort(key=_difference_order)
    return differences


def _difference_order(d: GoldenDifference) -> tuple[int, int, str]:
    """By the higher of its two ranks; at one rank, what was there before what is there now."""
    top = min(rank for rank in (d.old_rank, d.new_rank) if rank is not None)
    return top, 0 if d.old_rank == top else 1, d.passage_id


def verify_golden(
    index: RankingIndex,
    golden: Golden,
    queries_text_from_golden: bool = True,
    queries: Queries | None = None,
) -> GoldenReport:
    """Re-run every recorded query with the recorded method and ``k`` and
    compare with the recording: ranks and scores exactly (bit for bit).

    By default the query texts are the recorded ones (the file is
    self-contained). With ``queries_text_from_golden=False`` the texts come
    from ``queries`` (``(id, text)`` pairs, e.g. the current queries.jsonl):
    every recorded id must be there, extra ids are ignored, and a text that
    differs from the recording is listed in ``changed_texts`` and fails the
    report. ``golden`` is validated first (shape and fingerprint).
    """
    golden = _check_golden(golden, "golden record")
    supplied: dict[str, str] = {}
    if queries_text_from_golden:
        if queries is not None:
            raise InputError("queries are only used with queries_text_from_golden=False")
    else:
        if queries is None:
            raise InputError("queries_text_from_golden=False needs queries (id, text) pairs")
        supplied = dict(_checked_queries(queries))
    k, methods = golden["k"], golden["methods"]
    differences: list[GoldenDifference] = []
    changed_texts: list[tuple[str, str, str]] = []
    texts_used: dict[str, str] = {}
    for record in golden["queries"]:
        qid, text = record["id"], record["text"]
        if not queries_text_from_golden:
            if qid not in supplied:
                raise InputError(f"recorded query {qid!r} is not among the queries given")
            if supplied[qid] != text:
                changed_texts.append((qid, text, supplied[qid]))
            text = supplied[qid]
        texts_used[qid] = text
        for method in methods:
            now = _entries(index.ranking(text, k=k, method=method))
            differences.extend(_compare(qid, method, record["rankings"][method], now))
    changed = sorted({d.query_id for d in differences} | {c[0] for c in changed_texts})
    return GoldenReport(
        ok=not differences and not changed_texts,
        index_id_then=golden["index_id"],
        index_id_now=index.index_id,
        corpus_root_then=golden.get("corpus_root"),
        corpus_root_now=_corpus_root(index),
        k=k,
        methods=tuple(methods),
        query_count=len(golden["queries"]),
        differences=tuple(differences),
        changed_texts=tuple(changed_texts),
        query_texts=tuple((qid, texts_used[qid]) for qid in changed),
    )


# report -----------------------------------------------------------------------------


def _preview(text: str) -> str:
    if len(text) > _TEXT_PREVIEW:
        text = text[: _TEXT_PREVIEW - 1] + "…"
    return json.dumps(text, ensure_ascii=False)


def _value(value: object) -> str:
    """``none`` for an absent value, a string as is, a number as ``repr`` (exact)."""
    if value is None:
        return "none"
    return value if isinstance(value, str) else repr(value)


def format_report(report: GoldenReport) -> str:
    """A readable diff: the index identity then and now, one line per moved,
    added, dropped or rescored passage grouped by query, and a summary line."""
    methods = ", ".join(report.methods)
    plural = "method" if len(report.methods) == 1 else "methods"
    lines = [
        f"golden verify: {report.query_count} queries x {len(report.methods)} {plural} ({methods}), k={report.k}",
        f"index id: {report.index_id_then} -> {report.index_id_now}"
        if report.index_changed
        else f"index id: {report.index_id_now} (unchanged)",
    ]
    if report.corpus_root_then is not None or report.corpus_root_now is not None:
        if report.corpus_root_then == report.corpus_root_now:
            lines.append(f"corpus root: {report.corpus_root_now} (unchanged)")
        else:
            lines.append(f"corpus root: {_value(report.corpus_root_then)} -> {_value(report.corpus_root_now)}")
    texts = dict(report.query_texts)
    changed_texts = {qid: (old, new) for qid, old, new in report.changed_texts}
    by_query: dict[str, list[GoldenDifference]] = {}
    for difference in report.differences:
        by_query.setdefault(difference.query_id, []).append(difference)
    width = max((len(d.passage_id) for d in report.differences), default=0)
    for qid in report.changed_queries + tuple(sorted(set(changed_texts) - set(by_query))):
        lines.append("")
        lines.append(f"{qid} {_preview(texts.get(qid, ''))}")
        if qid in changed_texts:
            old, new = changed_texts[qid]
            lines.append(f"  text changed: {_preview(old)} -> {_preview(new)}")
        for d in by_query.get(qid, []):
            lines.append(
                f"  {d.method:<6} {d.kind:<8} {d.passage_id:<{width}}"
                f"  rank {_value(d.old_rank)} -> {_value(d.new_rank)}"
                f"  score {_value(d.old_score)} -> {_value(d.new_score)}"
            )
    lines.append("")
    if report.ok:
        lines.append(f"OK: all {report.query_count * len(report.methods)} rankings identical, scores bit for bit")
    else:
        counts = report.counts()
        kinds = ", ".join(f"{counts[kind]} {kind}" for kind in ("moved", "added", "dropped", "rescored"))
        queries = len(set(report.changed_queries) | set(changed_texts))
        summary = (
            f"FAIL: {len(report.differences)} differences ({kinds}) in {queries} of {report.query_count} queries"
        )
        if report.changed_texts:
            summary += f"; {len(report.changed_texts)} query texts changed"
        lines.append(summary)
    return "\n".join(lines) + "\n"
