"""Golden files: recording rankings, verifying them and the report.

Split out of ``regrag.audit.golden``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from regrag.audit.golden_file import check_golden, golden_fingerprint
from regrag.audit.golden_model import (
    DEFAULT_K,
    DEFAULT_METHODS,
    FORMAT,
    Golden,
    GoldenDifference,
    GoldenReport,
    Queries,
    RankingIndex,
)
from regrag.audit.golden_queries import check_k, checked_methods, checked_queries
from regrag.errors import InputError

_TEXT_PREVIEW = 80


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
    k = check_k(k)
    method_list = checked_methods(methods)
    records = []
    for qid, text in checked_queries(queries):
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
    golden = check_golden(golden, "golden record")
    supplied: dict[str, str] = {}
    if queries_text_from_golden:
        if queries is not None:
            raise InputError("queries are only used with queries_text_from_golden=False")
    else:
        if queries is None:
            raise InputError("queries_text_from_golden=False needs queries (id, text) pairs")
        supplied = dict(checked_queries(queries))
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
