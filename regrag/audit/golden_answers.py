"""Golden answer files: every answer ``ask`` gives to a fixed set of questions.

The golden ranking files (``regrag.audit.golden``) hold ``search``; these hold
``ask`` with its default options: for each question, whether it was answered,
its confidence (``repr`` float, exact), its text, its short answer, and the
SHA-256 of the canonical JSON of the whole answer (the value a ledger records
as ``output_sha256``). The header names the index, the answer rules
(``regrag.answer.rules_version``) and the built-in lexicon they were made
under, and a fingerprint over the content catches hand edits.

A changed answer may be recorded only under new answer rules, a new lexicon
or a new index (``rerecord_problem``): so a ledger record of ``ask`` that
replays differently always points at one of the three.

The file is JSON Lines, one canonical JSON object per line: the header, then
one line per question in ascending id order. ``docs/golden.md`` describes it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

from regrag.answer.lexicon import LEXICON_VERSION
from regrag.answer.rules_version import ANSWER_RULES
from regrag.audit.canonical import canonical_json, sha256_hex
from regrag.audit.golden_file import canonical_line, read_utf8
from regrag.errors import InputError
from regrag.io.digests import is_sha256_hex
from regrag.io.writes import write_atomically

ANSWERS_FORMAT = "regrag-golden-answers/1"
_HEADER_KEYS = frozenset({"answer_rules", "corpus_root", "fingerprint", "format", "index_id", "lexicon"})
_LINE_KEYS = frozenset({"answer", "confidence", "found", "output_sha256", "query", "short", "text"})


def record_answers(index, queries: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Ask every ``(id, text)`` of ``queries`` on ``index`` with the default
    options and return the golden-answers record (answers in id order)."""
    ids = [qid for qid, _text in queries]
    if len(set(ids)) != len(ids):
        raise InputError("golden answers: query ids must be unique")
    answers = []
    for qid, text in sorted(queries):
        answer = index.ask(text)
        short = answer.short_answer
        answers.append({
            "answer": answer.text, "confidence": answer.confidence.value, "found": answer.found,
            "output_sha256": sha256_hex(answer.to_dict()), "query": qid,
            "short": short.text if short is not None else None, "text": text,
        })
    record = {"answer_rules": ANSWER_RULES, "answers": answers, "corpus_root": index.corpus_root,
              "format": ANSWERS_FORMAT, "index_id": index.index_id, "lexicon": LEXICON_VERSION}
    record["fingerprint"] = answers_fingerprint(record)
    return record


def answers_fingerprint(record: dict[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of every field but ``fingerprint``."""
    return sha256_hex({key: value for key, value in record.items() if key != "fingerprint"})


def dumps_answers(record: dict[str, Any]) -> str:
    """The file text: the header line, then one line per answer (LF line ends)."""
    header = {key: value for key, value in record.items() if key != "answers"}
    return "\n".join([canonical_json(header), *(canonical_json(line) for line in record["answers"])]) + "\n"


def write_answers(path: str | os.PathLike[str], record: dict[str, Any]) -> None:
    """Write ``record`` to ``path`` atomically (replaced only once complete)."""
    write_atomically(path, dumps_answers(record).encode("utf-8"))


def read_answers(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and validate a golden answers file; ``InputError`` naming the
    file and line for anything malformed, out of canonical form or edited."""
    text, where = read_utf8(path)
    return loads_answers(text, where)


def loads_answers(text: str, where: str = "<golden answers>") -> dict[str, Any]:
    """Parse and validate the text of a golden answers file (``read_answers``)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise InputError(f"{where}: empty file, not a golden answers file")
    header = _canonical_object(lines[0], f"{where}:1")
    if header.get("format") != ANSWERS_FORMAT:
        raise InputError(f"{where}:1: not a golden answers file of format {ANSWERS_FORMAT!r} "
                         f"(format is {header.get('format')!r})")
    if set(header) != _HEADER_KEYS:
        raise InputError(f"{where}:1: header fields must be {sorted(_HEADER_KEYS)}, got {sorted(header)}")
    if not is_sha256_hex(header["fingerprint"]):
        raise InputError(f"{where}:1: fingerprint must be 64 lowercase hex digits")
    for key in ("answer_rules", "index_id", "lexicon"):
        if not isinstance(header[key], str) or not header[key]:
            raise InputError(f"{where}:1: {key} must be a non-empty string")
    if header["corpus_root"] is not None and not isinstance(header["corpus_root"], str):
        raise InputError(f"{where}:1: corpus_root must be a string or null")
    answers = []
    for number, line in enumerate(lines[1:], start=2):
        at = f"{where}:{number}"
        entry = _canonical_object(line, at)
        problem = _line_problem(entry)
        if problem is None and answers and entry["query"] <= answers[-1]["query"]:
            problem = f"query ids must be unique and ascending ({entry['query']!r} after {answers[-1]['query']!r})"
        if problem is not None:
            raise InputError(f"{at}: {problem}")
        answers.append(entry)
    record = dict(header, answers=answers)
    if answers_fingerprint(record) != header["fingerprint"]:
        raise InputError(f"{where}: fingerprint does not match the content (edited after recording, or damaged; "
                         "re-record it with bench/record_golden.py --answers instead of editing)")
    return record


def _canonical_object(line: str, at: str) -> dict[str, Any]:
    return canonical_line(line, at, "; golden answer files are written by regrag")


def _line_problem(entry: dict[str, Any]) -> str | None:
    """What is wrong with one answer line, or None."""
    if set(entry) != _LINE_KEYS:
        return f"an answer line needs the keys {sorted(_LINE_KEYS)}, got {sorted(entry)}"
    if not isinstance(entry["query"], str) or not entry["query"] or not isinstance(entry["text"], str):
        return "query must be a non-empty string and text a string"
    if not isinstance(entry["found"], bool) or not isinstance(entry["answer"], str):
        return "found must be true or false and answer a string"
    confidence = entry["confidence"]
    if not isinstance(confidence, float) or not math.isfinite(confidence):
        return f"confidence must be a finite floating-point number, got {confidence!r}"
    if entry["short"] is not None and not isinstance(entry["short"], str):
        return "short must be a string or null"
    if not is_sha256_hex(entry["output_sha256"]):
        return "output_sha256 must be 64 lowercase hex digits"
    return None


def answer_changes(recorded: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """One line per question whose answer differs (or that only one side
    holds), naming what changed: ``reg-q007: confidence 0.689 -> 0.512, found true -> false``."""
    old = {entry["query"]: entry for entry in recorded["answers"]}
    new = {entry["query"]: entry for entry in fresh["answers"]}
    lines = []
    for qid in sorted(old.keys() | new.keys()):
        if qid not in new or qid not in old:
            lines.append(f"{qid}: {'no longer asked' if qid not in new else 'not recorded'}")
            continue
        was, now = old[qid], new[qid]
        if was == now:
            continue
        parts = [f"{key} {canonical_json(was[key])} -> {canonical_json(now[key])}"
                 for key in ("found", "confidence", "short", "answer") if was[key] != now[key]]
        lines.append(f"{qid}: {', '.join(parts) or 'output_sha256 changed (a field of the answer record)'}")
    return lines


def rerecord_problem(recorded: dict[str, Any], fresh: dict[str, Any]) -> str | None:
    """Why ``fresh`` may not replace ``recorded`` (None when it may): the
    answer to some question asked in both (same id, same text) changed, yet
    the answer rules, the lexicon and the index are all those it was recorded
    under. Questions added or removed need no new rules."""
    if any(recorded[key] != fresh[key] for key in ("answer_rules", "lexicon", "index_id")):
        return None
    old = {entry["query"]: entry for entry in recorded["answers"]}
    changed = sorted(entry["query"] for entry in fresh["answers"]
                     if entry["query"] in old and old[entry["query"]]["text"] == entry["text"]
                     and old[entry["query"]] != entry)
    if not changed:
        return None
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    return (f"the answers to {shown} changed under the same answer rules {fresh['answer_rules']}, "
            f"lexicon {fresh['lexicon']} "
            "and index: raise ANSWER_RULES in regrag/answer/rules_version.py (and say why in its history) "
            "before recording them")
