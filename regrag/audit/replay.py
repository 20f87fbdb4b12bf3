"""What a ledger records about a ``search`` or ``ask`` call, and replaying it.

A record names the index (id, corpus root, generation), the call (command,
query, options) and its outcome: result ids and scores, and the SHA-256 of
the canonical JSON of the full output (every hit's provenance, and for
``ask`` the whole answer), so a replay can show that it gives the same bytes.
An ``ask`` record also names the answer rules it was made under
(``regrag.answer.rules_version``): a replay that differs says when this
engine applies other rules, since then a different answer is expected.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from regrag.answer.lexicon import synonyms_from_record
from regrag.answer.options import AskOptions
from regrag.answer.rules_version import ANSWER_RULES
from regrag.audit.canonical import sha256_hex
from regrag.errors import InputError
from regrag.retrieval.methods import VECTOR_METHODS
from regrag.retrieval.options import SearchOptions
from regrag.validation import is_int


def call_record(command: str, query: str, options: dict[str, Any], index, hits, answer=None) -> dict[str, Any]:
    """The ledger record of one call. ``options`` is the call's options as the
    caller gave them (filters as typed), the fields of ``SearchOptions``
    (``AskOptions`` for ``ask``) but ``exhaustive``, which cannot change a result."""
    record: dict[str, Any] = {
        "analyzer": index.analyzer.name,
        "command": command,
        "corpus_root": index.corpus_root,
        "generation": index.generation.number if index.generation is not None else None,
        "index_id": index.index_id,
        "options": options,
        "parameters": index.parameters.to_dict(),
        "query": query,
        "results": [[hit.passage_id, hit.score] for hit in hits],
    }
    if answer is None:
        record["output_sha256"] = sha256_hex([hit.to_dict() for hit in hits])
    else:
        record["answer"] = {"confidence": answer.confidence.value, "found": answer.found, "text": answer.text}
        record["answer_rules"] = ANSWER_RULES
        record["output_sha256"] = sha256_hex(answer.to_dict())
    return record


def rerun(index, record: dict[str, Any], directory: str | Path | None = None) -> dict[str, Any]:
    """Run the recorded call again on ``index`` and return its record (a dense or
    fused search from its recorded query vector and ``directory``'s stored vectors)."""
    options = record["options"]
    if not isinstance(options, dict):
        raise InputError("malformed record: options is not an object")
    if options.get("method") in VECTOR_METHODS:
        from regrag.dense.records import rerun_dense

        return rerun_dense(index, record, directory, call_record)
    command = record["command"]
    if command == "search":
        search = replace(SearchOptions.from_record(options), synonyms=synonyms_from_record(options.get("synonyms")))
        hits = index.search(record["query"], options=search)
        return call_record(command, record["query"], options, index, hits)
    if command == "ask":
        answer = index.ask(record["query"], options=AskOptions.from_record(options))
        return call_record(command, record["query"], options, index, answer.hits, answer)
    raise InputError(f"unknown command {command!r} in a ledger record")


def rules_note(record: dict[str, Any]) -> str:
    """For an ``ask`` record made under other answer rules than this engine's,
    the clause that says so (empty otherwise): its answer may differ for that
    reason alone, the index being the same."""
    if record.get("command") != "ask" or record.get("answer_rules") == ANSWER_RULES:
        return ""
    recorded = record.get("answer_rules")
    made = f"answer rules {recorded}" if isinstance(recorded, str) else "answer rules older than regrag-answer/1 (none recorded)"
    return f"; recorded under {made}, this engine applies {ANSWER_RULES}"


@dataclass(frozen=True)
class ReplayOutcome:
    ok: bool
    lines: tuple[str, ...]


def replay_ledger(ledger_path: str | Path, index_directory: str | Path) -> ReplayOutcome:
    """Check the ledger's chain, then re-run every record against the
    generation it names (or, when it was made from a corpus rather than an
    index directory, a retained generation with the same index id)."""
    from regrag.audit.ledger import format_report, read_ledger, verify_ledger
    from regrag.engine import Index
    from regrag.index.directory import IndexStore

    report = verify_ledger(ledger_path)
    if not report.ok:
        return ReplayOutcome(False, (format_report(report), "not replayed: the chain is broken"))
    store = IndexStore(index_directory)
    _current, generations = store.history()
    opened: dict[int, Index] = {}
    lines: list[str] = []
    same = 0
    # Only the prefix verify checked: appends made since then are not replayed.
    for entry in read_ledger(ledger_path)[: report.entries]:
        record = entry.record
        try:
            number = record.get("generation")
            if number is not None and not is_int(number):
                raise InputError(f"malformed record: generation {number!r} is not a number")
            if number is None:
                matching = [g.number for g in generations if g.index_id == record.get("index_id")]
                if not matching:
                    raise InputError(f"no retained generation has index id {str(record.get('index_id'))[:16]}")
                number = matching[-1]
            if number not in opened:
                opened[number] = Index.open(index_directory, generation=number)
            index = opened[number]
            if index.index_id != record.get("index_id"):
                raise InputError(f"generation {number} has index id {index.index_id[:16]}, the record {str(record.get('index_id'))[:16]}")
            again = rerun(index, record, index_directory)
            again["generation"] = record.get("generation")
        except (InputError, KeyError, TypeError, ValueError) as error:
            message = error if isinstance(error, InputError) else f"malformed record ({type(error).__name__}: {error})"
            lines.append(f"record {entry.sequence}: NOT REPLAYED: {message}")
            continue
        if again == record:
            same += 1
            lines.append(f"record {entry.sequence}: identical ({record['command']} {record['query']!r}, generation {number})")
        else:
            changed = sorted(key for key in record.keys() | again.keys() if record.get(key) != again.get(key))
            lines.append(f"record {entry.sequence}: DIFFERENT ({record['command']} {record['query']!r}, generation {number}): "
                         f"{', '.join(changed)} changed{rules_note(record)}")
    total = len(lines)
    lines.append(f"{same} of {total} records replayed identically")
    return ReplayOutcome(same == total, tuple(lines))
