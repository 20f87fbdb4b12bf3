"""The four tools regrag offers an LLM assistant (``search``, ``ask``,
``explain``, ``verify``): their names, descriptions and JSON schemas, and
what a call of each returns, as JSON-ready data with full provenance.

Independent of the protocol that carries them (``mcp_server``): a call is
``call_tool(index, name, arguments)``, checked against the tool's input
schema first (``SchemaError``); regrag's own checks then apply (an unknown
passage id, a filter field no document has: ``InputError``). Every result
names the index and the generation it came from, and every passage comes
with its text (``Index.passage_text``), so the assistant can quote it and
an auditor can check the quote (docs/integrations.md).

``dense`` (a ``DenseSearcher`` over the index's stored vectors, optional):
``verify`` then checks dense and fused hits from a query vector or a ledger
entry, and, when the searcher has its embedder, ``search`` and ``ask`` offer
``dense`` and ``fused`` too (docs/integrations.md, "Dense hits").

``calibrations`` (``regrag.answer.calibration.CalibrationMap``, one per method,
optional): ``ask`` maps the confidence of a method's answers with its map
before the threshold (docs/calibration.md); the answer records both values."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Callable

from regrag.answer.calibration import calibration_for
from regrag.answer.options import DEFAULT_ASK_K, ask_options_from
from regrag.engine import Index
from regrag.errors import InputError
from regrag.integrations import schema
from regrag.integrations.verify_record import verify_record
from regrag.retrieval.filters import MAX_FILTERS
from regrag.retrieval.methods import METHODS, VECTOR_METHODS


@dataclass(frozen=True)
class Tool:
    """One tool as ``tools/list`` describes it, and the function that runs it."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    run: Callable[[Index, dict[str, Any]], dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {"annotations": {**ANNOTATIONS, "title": self.title}, "description": self.description,
                "inputSchema": self.input_schema, "name": self.name, "outputSchema": self.output_schema,
                "title": self.title}


def _text(description: str, max_length: int | None = None) -> dict[str, Any]:
    field: dict[str, Any] = {"type": "string", "minLength": 1, "description": description}
    if max_length is not None:
        field["maxLength"] = max_length
    return field


DENSE_TOOL_METHODS = VECTOR_METHODS


def _methods(dense: Any) -> tuple[str, ...]:
    """The methods search and ask offer: the lexical ones, and dense ones when queries can be embedded."""
    return METHODS + (DENSE_TOOL_METHODS if dense is not None and dense.embedder is not None else ())


def _search_fields(index: Index, default_k: int, dense: Any = None) -> dict[str, Any]:
    methods = _methods(dense)
    described = "bm25, tfidf, or hybrid (Reciprocal Rank Fusion of the two)"
    if len(methods) > len(METHODS):
        described += ("; dense (the stored passage vectors' exact scores), fused (Reciprocal Rank Fusion "
                      "of bm25, tfidf and dense) or rerank (the 20 best passages by dense score, ordered by bm25)")
    return {
        "k": {"type": "integer", "minimum": 1, "maximum": index.limits.k, "default": default_k,
              "description": "how many passages to return"},
        "method": {"type": "string", "enum": list(methods), "default": "hybrid", "description": described},
        "filters": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": MAX_FILTERS,
                    "description": "metadata filters applied before ranking, e.g. ['issuer=Acme Bank', "
                                   "'date>=2024-01-01'] (key=value, or key>=, <=, >, < an ISO date)"},
        "entities": {"type": "boolean", "default": True,
                     "description": "restrict to the issuer, product or ticker the query names (docs/entities.md)"},
    }


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


_RESULT_HEAD = {"index_id": {"type": "string"}, "corpus_root": {"type": "string"},
                "generation": {"type": ["integer", "null"]}}


# A hit as the tools return it: every field of ``Hit.to_dict`` (docs/provenance.md) and the passage's text.
_HIT_FIELDS = {"analyzer": "object", "corpus_root": "string", "document_id": "string", "index_id": "string",
               "matches": "array", "method": "string", "parameters": "object", "passage_id": "string",
               "passage_span": "array", "query": "string", "query_terms": "array", "rank": "integer",
               "retrievers": "array", "score": "number", "section_title": "string", "source": "string",
               "text": "string"}
HIT_SCHEMA = {"type": "object", "properties": {**{name: {"type": kind} for name, kind in _HIT_FIELDS.items()},
                                               "entities": {"type": ["object", "null"]},
                                               "query_vector_sha256": {"type": "string"}},
              "required": sorted([*_HIT_FIELDS, "entities"])}
# Every tool only reads a fixed index: the same call, the same result, nothing outside the index (MCP tool annotations).
ANNOTATIONS = {"destructiveHint": False, "idempotentHint": True, "openWorldHint": False, "readOnlyHint": True}


def _result_schema(**fields: Any) -> dict[str, Any]:
    properties = {**_RESULT_HEAD, **fields}
    return {"type": "object", "properties": properties, "required": sorted(properties)}


def _verify_fields(dense: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {"record": {"type": "object", "description": "a hit record from search or ask"},
                              "quote": {"type": "string", "minLength": 1, "maxLength": 100_000,
                                        "description": "text that should occur verbatim in the passage"}}
    if dense is not None:
        fields["query_vector"] = {"type": "array", "items": {"type": "integer", "minimum": -127, "maximum": 127},
                                  "maxItems": 4096, "description": "a dense or fused hit's quantised query vector "
                                  "(the hit records its SHA-256; the call's ledger entry records the vector)"}
        fields["ledger_entry"] = {"type": "object", "description": "the ledger entry (or its record) of the dense "
                                  "or fused call that returned the hit: its query vector is read from it"}
    return fields


def tools(index: Index, dense: Any = None, calibrations: tuple = ()) -> tuple[Tool, ...]:
    """The tools over ``index``, in the order ``tools/list`` gives them (their
    caps, such as the largest ``k``, are the index's ``limits``); ``dense``
    and ``calibrations``: module docstring."""
    query_chars = index.limits.query_characters
    hit_list = {"type": "array", "items": HIT_SCHEMA,
                "description": "hits in rank order: the provenance record (docs/provenance.md) plus 'text'"}
    return (
        Tool("search", "Search the indexed documents",
             "Rank the passages of the indexed documents for a query (BM25, TF-IDF or their fusion). "
             "Each hit carries its text and full provenance: document, passage id, character span, section "
             "title, where each query term matched, each retriever's rank and score, the index id and the "
             "corpus Merkle root. Deterministic: the same call gives the same result, byte for byte.",
             _object({"query": _text("what to search for", query_chars), **_search_fields(index, 10, dense)}, ["query"]),
             _result_schema(query=_text("the query"), method={"type": "string"}, hits=hit_list),
             partial(run_search, dense=dense) if dense is not None else run_search),
        Tool("ask", "Answer a question from the documents",
             "An extractive answer: sentences copied verbatim from the best passages, each cited "
             "(document, passage id, character span), with a confidence; refused (no sentences, "
             "found=false) when the evidence is too weak, with the closest passages still listed.",
             _object({"question": _text("the question", query_chars), **_search_fields(index, DEFAULT_ASK_K, dense),
                      "max_sentences": {"type": "integer", "minimum": 1, "maximum": 100, "default": 3,
                                        "description": "longest answer, in sentences"},
                      "threshold": {"type": "number", "minimum": 0, "maximum": 1,
                                    "description": "refuse below this confidence (default: regrag's)"}},
                     ["question"]),
             _result_schema(question={"type": "string"}, found={"type": "boolean"}, text={"type": "string"},
                            sentences={"type": "array", "items": {"type": "object"}},
                            confidence={"type": "object"}, hits=hit_list),
             partial(run_ask, dense=dense, calibrations=calibrations)),
        Tool("explain", "Explain one passage's score",
             "The per-term BM25 and TF-IDF breakdown of one passage's scores for a query; the "
             "contributions add up, in the order shown, to exactly the score search gives.",
             _object({"query": _text("the query", query_chars),
                      "passage_id": _text("a passage id as search returns it, e.g. 'guide.md#2'")},
                     ["query", "passage_id"]),
             _result_schema(query={"type": "string"}, passage_id={"type": "string"}, text={"type": "string"},
                            query_terms={"type": "array", "items": {"type": "string"}},
                            bm25={"type": "object"}, tfidf={"type": "object"}),
             run_explain),
        Tool("verify", "Verify a search hit or a quotation",
             "Check a hit record (as search or ask returned it) against this index: same index and corpus "
             "root, the passage exists with that document, span, title and text, the matches and "
             "the retriever scores recompute exactly; and, if given, that 'quote' occurs verbatim in the "
             "passage. Returns each check and a Merkle inclusion proof of the document.",
             _object(_verify_fields(dense), ["record"]),
             _result_schema(valid={"type": "boolean"}, passage_id={"type": ["string", "null"]},
                            checks={"type": "array", "items": {"type": "object"}},
                            proof={"type": ["object", "null"]}),
             partial(run_verify, dense=dense) if dense is not None else run_verify),
    )


def find_tool(index: Index, name: str, dense: Any = None, calibrations: tuple = ()) -> Tool | None:
    for tool in tools(index, dense, calibrations):
        if tool.name == name:
            return tool
    return None


def call_tool(index: Index, name: str, arguments: dict[str, Any], dense: Any = None,
              calibrations: tuple = ()) -> dict[str, Any]:
    """Run tool ``name``: ``InputError`` for an unknown tool, ``SchemaError``
    for arguments its schema refuses, ``InputError`` for what regrag refuses."""
    tool = find_tool(index, name, dense, calibrations)
    if tool is None:
        raise InputError(f"unknown tool {name!r}; the tools are {', '.join(t.name for t in tools(index, dense))}")
    schema.check(arguments, tool.input_schema)
    return tool.run(index, arguments)


def result_head(index: Index) -> dict[str, Any]:
    """What every result starts with: which index and generation answered."""
    generation = index.generation
    return {"corpus_root": index.corpus_root, "generation": None if generation is None else generation.number,
            "index_id": index.index_id}


def hit_record(index: Index, hit_dict: dict[str, Any]) -> dict[str, Any]:
    """A hit's provenance record (``Hit.to_dict``) with the passage's text added as ``text``."""
    return {**hit_dict, "text": index.passage_text(hit_dict["passage_id"])}


def _search_options(arguments: dict[str, Any], default_k: int) -> dict[str, Any]:
    return {"k": arguments.get("k", default_k), "method": arguments.get("method", "hybrid"),
            "filters": arguments.get("filters") or None, "entities": arguments.get("entities", True)}


def run_search(index: Index, arguments: dict[str, Any], dense: Any = None) -> dict[str, Any]:
    options = _search_options(arguments, 10)
    if options["method"] in DENSE_TOOL_METHODS:  # the schema offered them: dense has its embedder
        hits = dense.search(arguments["query"], k=options["k"], method=options["method"], filters=options["filters"])
    else:
        hits = index.search(arguments["query"], **options)
    return {**result_head(index), "hits": [hit_record(index, hit.to_dict()) for hit in hits],
            "method": options["method"], "query": arguments["query"]}


def run_ask(index: Index, arguments: dict[str, Any], dense: Any = None, calibrations: tuple = ()) -> dict[str, Any]:
    options = _search_options(arguments, DEFAULT_ASK_K)
    if options["method"] in DENSE_TOOL_METHODS:  # no entity step for dense (docs/dense.md)
        from regrag.dense.answers import dense_answer

        answer = dense_answer(dense, arguments["question"], options["method"], k=options["k"],
                              filters=options["filters"], max_sentences=arguments.get("max_sentences", 3),
                              threshold=arguments.get("threshold"))
    else:
        asking = ask_options_from(None, index.limits, arguments["question"], options["k"], options["method"],
                                  options["filters"], arguments.get("max_sentences", 3), options["entities"],
                                  arguments.get("threshold"))
        answer = index.ask(arguments["question"],
                           options=replace(asking, calibration=calibration_for(calibrations, options["method"])))
    record = answer.to_dict()
    record["hits"] = [hit_record(index, hit) for hit in record["hits"]]
    return {**record, **result_head(index)}


def run_explain(index: Index, arguments: dict[str, Any]) -> dict[str, Any]:
    explanation = index.explain(arguments["query"], arguments["passage_id"])
    return {**explanation.to_dict(), **result_head(index), "text": index.passage_text(explanation.passage_id)}


def run_verify(index: Index, arguments: dict[str, Any], dense: Any = None) -> dict[str, Any]:
    vector = None
    if dense is not None:
        from regrag.dense.hit_check import query_vector_from

        vector = query_vector_from(arguments.get("query_vector"), arguments.get("ledger_entry"))
    return {**result_head(index), **verify_record(index, arguments["record"], arguments.get("quote"), dense=dense,
                                                  query_vector=vector)}
