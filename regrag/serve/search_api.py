"""The JSON shapes of ``POST /_search``, ``POST /_ask`` and ``GET /_explain``.

Requests follow the subset of Elasticsearch's ``_search`` that clients
already speak (``query.match.text``, ``size``, ``from``, ``explain``) plus
regrag's own fields (``method``, ``filters``, ``entities``, ``rrf_depth``,
``generation``, ``as_of``); responses have ``hits.total``, ``hits.hits[]``
with ``_id``, ``_score``, ``_source`` (the canonical provenance record),
``highlight`` and ``_explanation``. Everything here is a pure function of
the request and the view searched, so the same request gives the same
bytes (``took`` is added by the server). docs/serve.md lists every field.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any, Mapping

from regrag.answer.options import AskOptions, check_threshold
from regrag.audit.canonical import sha256_hex
from regrag.errors import InputError
from regrag.retrieval.methods import DEFAULT_RRF_DEPTH
from regrag.retrieval.options import SearchOptions
from regrag.validation import is_int

SEARCH_FIELDS = frozenset({"query", "size", "from", "explain", "method", "filters", "entities", "rrf_depth",
                           "generation", "as_of", "highlight", "track_total_hits", "synonyms"})
ASK_FIELDS = frozenset({"question", "size", "method", "filters", "entities", "rrf_depth", "threshold",
                        "max_sentences", "generation", "as_of", "synonyms"})


@dataclass(frozen=True)
class Where:
    """Which generation a request reads: the current one, a number, or as of a time."""

    generation: int | None = None
    as_of: str | None = None


@dataclass(frozen=True)
class SearchRequest:
    query: str
    options: SearchOptions
    start: int = 0
    size: int = 10
    explain: bool = False
    where: Where = field(default_factory=Where)
    given: Mapping[str, Any] = field(default_factory=dict)  # the options as the ledger records them


@dataclass(frozen=True)
class AskRequest:
    question: str
    options: AskOptions
    where: Where = field(default_factory=Where)
    given: Mapping[str, Any] = field(default_factory=dict)


def _object(body: Any, fields: frozenset[str], what: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InputError(f"the {what} body must be a JSON object")
    unknown = sorted(set(body) - fields)
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r} in the {what} body; known: {', '.join(sorted(fields))}")
    return body


def _int(body: Mapping[str, Any], name: str, default: int, minimum: int) -> int:
    value = body.get(name, default)
    if not is_int(value) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def _bool(body: Mapping[str, Any], name: str, default: bool) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise InputError(f"{name} must be true or false, got {value!r}")
    return value


def _filters(body: Mapping[str, Any]) -> list[str]:
    value = body.get("filters", [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError("filters must be a list of strings such as [\"language=en\", \"effective_date>=2025-01-01\"]")
    return value


def where_of(body: Mapping[str, Any]) -> Where:
    generation = body.get("generation")
    as_of = body.get("as_of")
    if generation is not None and (not is_int(generation) or generation < 1):
        raise InputError(f"generation must be a positive integer, got {generation!r}")
    if as_of is not None and not isinstance(as_of, str):
        raise InputError(f"as_of must be a time such as \"2026-11-30T10:00:00Z\", got {as_of!r}")
    if generation is not None and as_of is not None:
        raise InputError("give generation or as_of, not both")
    return Where(generation, as_of)


def match_text(query: Any) -> str:
    """The text of ``{"match": {"text": "..."}}`` or ``{"match": {"text": {"query": "..."}}}``."""
    if not isinstance(query, dict) or set(query) != {"match"} or not isinstance(query["match"], dict) \
            or set(query["match"]) != {"text"}:
        raise InputError('query must be {"match": {"text": "..."}} (the only query regrag serves)')
    text = query["match"]["text"]
    if isinstance(text, dict):
        if set(text) != {"query"}:
            raise InputError('query.match.text must be a string or {"query": "..."}')
        text = text["query"]
    if not isinstance(text, str):
        raise InputError("query.match.text must be a string")
    return text


def parse_search(body: Any) -> SearchRequest:
    """A checked ``_search`` request (``InputError`` naming the field otherwise)."""
    body = _object(body, SEARCH_FIELDS, "_search")
    if "query" not in body:
        raise InputError('the _search body needs "query": {"match": {"text": "..."}}')
    text = match_text(body["query"])
    size = _int(body, "size", 10, 0)
    start = _int(body, "from", 0, 0)
    method = body.get("method", "hybrid")
    given = {"entities": _bool(body, "entities", True), "filters": _filters(body), "k": max(1, start + size),
             "method": method, "rrf_depth": _int(body, "rrf_depth", DEFAULT_RRF_DEPTH, 1)}
    synonyms = _synonyms(body, given, "none")  # as search's: none unless "builtin"
    options = SearchOptions(given["k"], method, given["filters"], given["rrf_depth"], given["entities"], synonyms=synonyms)
    return SearchRequest(text, options, start, size, _bool(body, "explain", False), where_of(body), given)


def parse_ask(body: Any) -> AskRequest:
    """A checked ``_ask`` request."""
    body = _object(body, ASK_FIELDS, "_ask")
    question = body.get("question")
    if not isinstance(question, str):
        raise InputError('the _ask body needs "question": "..." (a string)')
    given = {"entities": _bool(body, "entities", True), "filters": _filters(body), "k": _int(body, "size", 5, 1),
             "max_sentences": _int(body, "max_sentences", 3, 1), "method": body.get("method", "hybrid"),
             "rrf_depth": _int(body, "rrf_depth", DEFAULT_RRF_DEPTH, 1),
             "threshold": check_threshold(body.get("threshold", AskOptions().threshold))}
    _synonyms(body, given, "builtin")  # as ask's: the built-in set unless "none"
    options = AskOptions.from_record(given)
    return AskRequest(question, options, where_of(body), given)


def _synonyms(body: dict[str, Any], given: dict[str, Any], default: str):
    """The body's ``synonyms`` ("builtin" or "none"; no files over HTTP) as a
    ``SynonymSet`` or None; the built-in set is recorded in ``given``, so the ledger replays it."""
    synonyms = body.get("synonyms", default)
    if synonyms not in ("builtin", "none"):
        raise InputError('"synonyms" must be "builtin" or "none"')
    if synonyms == "none":
        return None
    from regrag.answer.lexicon import builtin_synonyms, synonyms_record

    given["synonyms"] = synonyms_record(builtin_synonyms())
    return builtin_synonyms()


def highlighted(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` HTML-escaped, with each span wrapped in ``<em>…</em>``."""
    out: list[str] = []
    last = 0
    for start, end in sorted(set(spans)):
        if start < last or end <= start or end > len(text):
            continue
        out.append(html.escape(text[last:start]))
        out.append("<em>" + html.escape(text[start:end]) + "</em>")
        last = end
    out.append(html.escape(text[last:]))
    return "".join(out)


def hit_highlight(view, hit) -> dict[str, list[str]]:
    """The hit's passage text and section title with the matched terms in ``<em>``."""
    start, end = hit.passage_span
    text = view.index.passage_text(hit.passage_id)
    body = [(a - start, b - start) for match in hit.matches for a, b in match.offsets]
    title = [span for match in hit.matches for span in match.title_offsets]
    found: dict[str, list[str]] = {"text": [highlighted(text, body)]}
    if title:
        found["section_title"] = [highlighted(hit.section_title, title)]
    return found


def search_response(view, request: SearchRequest, hits: list) -> dict[str, Any]:
    """The ``_search`` response (without ``took``) for ``hits`` ranked by ``request``."""
    shown = hits[request.start: request.start + request.size]
    rows = []
    for hit in shown:
        row: dict[str, Any] = {"_id": hit.passage_id, "_index": hit.index_id, "_score": hit.score,
                               "_source": hit.to_dict(), "highlight": hit_highlight(view, hit)}
        if request.explain:
            row["_explanation"] = view.explain(request.query, hit.passage_id, request.options.synonyms).to_dict()
        rows.append(row)
    relation = "gte" if len(hits) >= request.options.k else "eq"
    return {
        "hits": {"hits": rows, "max_score": hits[0].score if hits else None,
                 "total": {"relation": relation, "value": len(hits)}},
        "regrag": _regrag(view, sha256_hex([hit.to_dict() for hit in hits])),
        "timed_out": False,
    }


def ask_response(view, answer) -> dict[str, Any]:
    return {"answer": answer.to_dict(), "regrag": _regrag(view, sha256_hex(answer.to_dict())), "timed_out": False}


def explain_response(view, query: str, passage_id: str) -> dict[str, Any]:
    explanation = view.explain(query, passage_id)
    return {"_id": passage_id, "_index": view.index_id, "explanation": explanation.to_dict(),
            "matched": bool(explanation.bm25.score or explanation.tfidf.score),
            "regrag": _regrag(view, sha256_hex(explanation.to_dict()))}


def _regrag(view, output_sha256: str) -> dict[str, Any]:
    generation = view.generation
    return {"corpus_root": view.corpus_root, "generation": generation.number if generation is not None else None,
            "index_id": view.index_id, "output_sha256": output_sha256}
