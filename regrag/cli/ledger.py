"""``regrag ledger verify|replay FILE`` (docs/ledger.md), and the record
``search --ledger`` and ``ask --ledger`` append."""

from __future__ import annotations

import argparse

from regrag.cli.status import ExitStatus
from regrag.engine import Index


def register(commands) -> None:
    ledger = commands.add_parser("ledger", help="check or replay a ledger written with --ledger (docs/ledger.md)")
    ledger_commands = ledger.add_subparsers(dest="ledger_command", required=True, parser_class=type(ledger))
    verify = ledger_commands.add_parser("verify", help="check the hash chain (exit 0 intact, 1 broken)")
    verify.add_argument("ledger_file", metavar="FILE")
    verify.set_defaults(handler=run_verify_ledger)
    replay = ledger_commands.add_parser("replay", help="re-run every record against its generation (exit 0 identical, 1 not)")
    replay.add_argument("ledger_file", metavar="FILE")
    replay.add_argument("--index", required=True, metavar="DIR", help="the index directory the records were made with")
    replay.set_defaults(handler=run_replay)


def run_verify_ledger(arguments: argparse.Namespace) -> int:
    from regrag.audit import ledger

    report = ledger.verify_ledger(arguments.ledger_file)
    print(ledger.format_report(report))
    return ExitStatus.OK if report.ok else ExitStatus.CHECK_FAILED


def run_replay(arguments: argparse.Namespace) -> int:
    from regrag.audit.replay import replay_ledger

    outcome = replay_ledger(arguments.ledger_file, arguments.index)
    for line in outcome.lines:
        print(line)
    return ExitStatus.OK if outcome.ok else ExitStatus.CHECK_FAILED


def append_call(arguments: argparse.Namespace, index: Index, command: str, hits, answer=None) -> None:
    """Append the record of this ``search`` or ``ask`` to ``--ledger FILE``."""
    from regrag.audit.ledger import append_record
    from regrag.audit.replay import call_record

    query = arguments.query if command == "search" else arguments.question
    options = {
        "entities": not arguments.no_entities,
        "filters": list(arguments.filter),
        "k": arguments.k,
        "method": arguments.method,
        "rrf_depth": arguments.rrf_depth,
    }
    synonyms = getattr(arguments, "synonym_set", None)  # the set the call used (regrag.cli.options.synonyms_of)
    if synonyms is not None:  # recorded only when used, so records without synonyms are as before
        from regrag.answer.lexicon import synonyms_record

        options["synonyms"] = synonyms_record(synonyms)
    if command == "ask":
        options["max_sentences"] = arguments.max_sentences
        options["threshold"] = answer.confidence.threshold
        calibration = getattr(arguments, "calibration_map", None)
        if calibration is not None:  # recorded only when used: the whole map, so a replay needs no file
            options["calibration"] = calibration.to_dict()
    append_record(arguments.ledger, call_record(command, query, options, index, hits, answer))
