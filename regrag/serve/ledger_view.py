"""The server's ledger: browsing, verifying and replaying it.

Only principals with ``"ledger": true`` may read it (403 otherwise): an
entry names the principal, the query and the result ids, whatever the
groups of whoever reads the ledger. A served ``search`` or ``ask`` record is
replayed through the view of the groups it records (``served.groups``), at
the generation it names, and must give the same record again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from regrag.answer.options import AskOptions
from regrag.audit.replay import call_record
from regrag.retrieval.options import SearchOptions
from regrag.serve.auth import Principal
from regrag.serve.responses import HttpError
from regrag.serve.search_api import Where

if TYPE_CHECKING:
    from regrag.serve.app import Request

PAGE_SIZE = 50
MAX_PAGE = 1000


def _allowed(request: "Request") -> str:

    if not request.principal.ledger:
        raise HttpError(403, "security_exception", f"{request.principal.name!r} may not read the ledger")
    path = request.server.config.ledger
    if path is None:
        raise HttpError(404, "not_found", "this server keeps no ledger (regrag serve --ledger FILE)")
    return path


def _number(text: str | None, default: int, largest: int) -> int:
    if text is None or text == "":
        return default
    if not text.isdigit():

        raise HttpError(400, "illegal_argument_exception", f"expected a number, got {text[:20]!r}")
    return min(int(text), largest)


def ledger_summary(request: "Request", start: str | None, size: str | None) -> dict[str, Any]:
    """The chain's verify report and a page of entries (newest last)."""
    from regrag.audit.ledger import format_report, read_ledger, verify_ledger

    path = _allowed(request)
    with request.server.ledger_lock:
        report = verify_ledger(path)
        entries = read_ledger(path)
    count = _number(size, PAGE_SIZE, MAX_PAGE)
    first = _number(start, max(0, len(entries) - count), len(entries))
    return {"entries": [entry.to_dict() for entry in entries[first:first + count]], "from": first,
            "total": len(entries), "verify": {"ok": report.ok, "report": format_report(report)}}


def rerun_served(holder, record: dict[str, Any]) -> dict[str, Any]:
    """The record a served ``search`` or ``ask`` gives when run again."""
    served = record["served"]
    principal = Principal(served["principal"], tuple(served["groups"]))
    number = record.get("generation")
    index = holder.index_for(Where(generation=number) if number is not None else Where())
    view = holder.view(index, principal)
    options = record["options"]
    if record["command"] == "search":
        hits = view.search(record["query"], options=SearchOptions.from_record(options))
        again = call_record("search", record["query"], options, view, hits)
    else:
        answer = view.ask(record["query"], AskOptions.from_record(options))
        again = call_record("ask", record["query"], options, view, answer.hits, answer)
    return dict(again, served=dict(served, readable_passages=view.readable_passage_count))


def replay_summary(request: "Request") -> dict[str, Any]:
    """Replay every served search and ask of the server's ledger (ledger readers only)."""
    path = _allowed(request)
    with request.server.ledger_lock:
        return replay_served(request.server.holder, path)


def replay_served(holder, path) -> dict[str, Any]:
    """Check the chain, then replay every served search and ask; one line for each."""
    from regrag.audit.ledger import format_report, read_ledger, verify_ledger

    report = verify_ledger(path)
    entries = read_ledger(path)[: report.entries]
    lines, same, total = [], 0, 0
    for entry in entries:
        record = entry.record
        if record.get("command") not in ("search", "ask") or "served" not in record:
            continue
        total += 1
        try:
            again = rerun_served(holder, record)
        except Exception as error:  # a retired generation, a malformed record: reported, not raised
            lines.append(f"record {entry.sequence}: NOT REPLAYED: {error}")
            continue
        kept = {k: v for k, v in record.items() if k not in ("principal", "status")}
        if again == kept:
            same += 1
            lines.append(f"record {entry.sequence}: identical ({record['command']} {record['query']!r})")
        else:
            changed = sorted(k for k in kept.keys() | again.keys() if kept.get(k) != again.get(k))
            lines.append(f"record {entry.sequence}: DIFFERENT ({record['command']} {record['query']!r}): "
                         f"{', '.join(changed)} changed")
    return {"chain": format_report(report), "chain_ok": report.ok, "identical": same, "lines": lines,
            "replayed": total}
