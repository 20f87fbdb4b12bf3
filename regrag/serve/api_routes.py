"""The JSON endpoints: ``_search``, ``_ask``, ``_explain``, ``_health``,
``_stats`` and ``_ledger`` (docs/serve.md, "API")."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from regrag.audit.replay import call_record
from regrag.errors import InputError
from regrag.serve import search_api
from regrag.serve.responses import HttpError, Response, json_bytes
from regrag.serve.search_api import Where

if TYPE_CHECKING:
    from regrag.serve.app import Request


def _respond(value: dict[str, Any], started: float | None = None) -> "Response":
    if started is not None:
        value = dict(value, took=int((time.perf_counter() - started) * 1000))
    return Response(200, json_bytes(value))


def _not_found(error: InputError):

    return HttpError(404, "not_found", str(error))


def served_fields(request: "Request", view) -> dict[str, Any]:
    """What the ledger records about who asked and how their view was made."""
    holder = request.server.holder
    return {"groups": list(request.principal.groups), "principal": request.principal.name,
            "statistics": holder.served.statistics, "unlabelled": holder.served.unlabelled,
            "readable_passages": view.readable_passage_count}


def view_for(request: "Request", where: Where):
    holder = request.server.holder
    return holder.view(holder.index_for(where), request.principal)


def run_search(request: "Request", parsed: search_api.SearchRequest):
    """The view and hits of a parsed search; its ledger record is set on ``request``."""
    view = view_for(request, parsed.where)
    hits = view.search(parsed.query, options=parsed.options)
    request.ledger_entry = dict(call_record("search", parsed.query, dict(parsed.given), view, hits),
                                served=served_fields(request, view))
    return view, hits


def run_ask(request: "Request", parsed: search_api.AskRequest):
    """The view and answer of a parsed question; its ledger record is set on ``request``."""
    view = view_for(request, parsed.where)
    options, given = parsed.options, dict(parsed.given)
    calibration = request.server.holder.served.calibration_for(options.search.method)
    if calibration is not None:  # the server's map of this method; the ledger keeps it whole, for replay
        options = replace(options, calibration=calibration)
        given["calibration"] = calibration.to_dict()
    answer = view.ask(parsed.question, options)
    request.ledger_entry = dict(call_record("ask", parsed.question, given, view, answer.hits, answer),
                                served=served_fields(request, view))
    return view, answer


def search(request: "Request") -> "Response":
    started = time.perf_counter()
    parsed = search_api.parse_search(request.json())
    view, hits = run_search(request, parsed)
    return _respond(search_api.search_response(view, parsed, hits), started)


def ask(request: "Request") -> "Response":
    started = time.perf_counter()
    view, answer = run_ask(request, search_api.parse_ask(request.json()))
    return _respond(search_api.ask_response(view, answer), started)


def explain(request: "Request") -> "Response":
    started = time.perf_counter()
    query, passage_id = request.query.get("q"), request.query.get("id")
    if not query or not passage_id:
        raise InputError("GET /_explain needs ?q=QUERY&id=PASSAGE_ID")
    generation = request.query.get("generation")
    where = search_api.where_of({"generation": int(generation) if generation and generation.isdigit() else generation,
                                 "as_of": request.query.get("as_of")})
    view = view_for(request, where)
    try:
        view.position_of(passage_id)
    except InputError as error:
        raise _not_found(error) from None
    body = search_api.explain_response(view, query, passage_id)
    request.ledger_entry = {"command": "explain", "index_id": view.index_id, "passage_id": passage_id,
                            "query": query, "output_sha256": body["regrag"]["output_sha256"],
                            "generation": body["regrag"]["generation"], "served": served_fields(request, view)}
    return _respond(body, started)


def health(request: "Request") -> "Response":
    request.server.holder.current()
    return _respond({"status": "green"})


def stats(request: "Request") -> "Response":
    server = request.server
    view = view_for(request, Where())
    with server.counts_lock:
        counts = dict(server.counts)
    generation = view.generation
    return _respond({
        "generation": generation.number if generation is not None else None,
        "index_id": view.index_id,
        "passages": view.readable_passage_count,
        "principal": request.principal.name,
        "reloads": server.holder.reloads,
        "responses": counts,
        "uptime_seconds": int(time.monotonic() - server.started),
    })


def ledger(request: "Request") -> "Response":
    from regrag.serve.ledger_view import ledger_summary

    return _respond(ledger_summary(request, request.query.get("from"), request.query.get("size")))


def ledger_replay(request: "Request") -> "Response":
    from regrag.serve.ledger_view import replay_summary

    return _respond(replay_summary(request))


ROUTES = {
    ("POST", "/_search"): search,
    ("GET", "/_search"): search,
    ("POST", "/_ask"): ask,
    ("GET", "/_explain"): explain,
    ("GET", "/_health"): health,
    ("GET", "/_stats"): stats,
    ("GET", "/_ledger"): ledger,
    ("POST", "/_ledger/replay"): ledger_replay,
}
