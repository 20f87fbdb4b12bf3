"""What a reader checks in ``CURRENT`` and in a manifest beyond parsing:
exactly the shapes, types and ranges the writer produces, and what the
writer guarantees (numbers and publication times increase, ``current`` is
the newest generation). Pure functions on parsed JSON (no I/O), so the
writer and the reader share one definition (docs/index-format.md,
"Hostile directories")."""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any

from regrag.audit.canonical import canonical_bytes
from regrag.errors import InputError
from regrag.io.digests import is_sha256_hex
from regrag.index.build import INT32_MAX
from regrag.index.parameters import IndexParameters

STORE_FORMAT = "regrag-store/1"
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")
MAX_GENERATION = INT32_MAX  # generation numbers a reader accepts


def state_checksum(state: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``CURRENT`` without its checksum."""
    return hashlib.sha256(canonical_bytes({k: v for k, v in state.items() if k != "checksum"})).hexdigest()


_MANIFEST_KEYS = frozenset({
    "analyzer", "average_length", "corpus_root", "document_count", "engine_version", "files", "format",
    "index_format", "index_id", "parameters", "passage_count", "posting_count", "term_count",
})  # exactly what codec.serialise writes (format regrag-index/3)


def _is_size(value: object, maximum: int | None = None) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool) and value >= 0
            and (maximum is None or value <= maximum))


def manifest_problem(manifest: dict[str, Any], format_keys: frozenset[str] | set[str] | None = None) -> str | None:
    """Why a manifest that parsed (``codec.read_manifest``) is still not one
    ``codec.serialise`` could have written, or None: exact keys, types and
    ranges, so no value reaches the loader that it would misuse.
    ``format_keys``: the keys expected (default format 2's)."""
    try:
        canonical_bytes(manifest)
    except (ValueError, RecursionError):
        return "malformed (NaN or Infinity, which the format never holds)"
    keys = set(manifest)
    expected = _MANIFEST_KEYS if format_keys is None else set(format_keys)
    if keys != expected:
        missing, extra = sorted(expected - keys), sorted(keys - expected)
        return "malformed (" + "; ".join(
            ([f"missing {', '.join(missing)}"] if missing else []) + ([f"unexpected {', '.join(extra)}"] if extra else [])
        ) + ")"
    for key in ("passage_count", "posting_count", "term_count"):
        if not _is_size(manifest[key], INT32_MAX):
            return f"malformed {key} ({manifest[key]!r}: not an integer from 0 to 2**31 - 1)"
    average = manifest["average_length"]
    if not isinstance(average, float) or not math.isfinite(average) or average <= 0.0:
        return f"malformed average_length ({average!r})"
    for key in ("index_id", "corpus_root"):
        if not is_sha256_hex(manifest[key]):
            return f"malformed {key} (not 64 lowercase hex digits)"
    for key in ("engine_version", "index_format"):
        if not isinstance(manifest[key], str):
            return f"malformed {key} (not a string)"
    analyzer = manifest["analyzer"]
    if not isinstance(analyzer, dict) or not isinstance(analyzer.get("name"), str):
        return "malformed analyzer (not an object with a name)"
    parameters = manifest["parameters"]
    if not isinstance(parameters, dict) or set(parameters) != set(IndexParameters.__dataclass_fields__):
        return "malformed parameters (not the parameters of this format)"
    try:
        IndexParameters(**parameters)
    except InputError as error:
        return f"malformed parameters ({error})"
    for name, entry in manifest["files"].items():
        if not isinstance(entry, dict) or set(entry) != {"bytes", "sha256"} or not _is_size(entry["bytes"]) \
                or not is_sha256_hex(entry["sha256"]):
            return f"malformed entry for {name}"
    return None


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def state_problem(state: object) -> str | None:
    """Why a parsed ``CURRENT`` is unusable, or None."""
    if not isinstance(state, dict):
        return "damaged (not a JSON object)"
    if state.get("format") != STORE_FORMAT:
        return f"format {state.get('format')!r} is not {STORE_FORMAT!r}"
    if sorted(state) != ["checksum", "current", "format", "generations"]:
        return "damaged (unexpected fields)"
    try:
        checksum = state_checksum(state)
    except (ValueError, RecursionError):
        return "damaged (NaN or Infinity, which CURRENT never holds)"
    if state["checksum"] != checksum:
        return "checksum does not match its content (the file was altered)"
    generations = state["generations"]
    if not isinstance(generations, list) or not generations:
        return "damaged (no generations)"
    numbers = []
    for entry in generations:
        if not isinstance(entry, dict) or sorted(entry) != ["corpus_root", "generation", "index_id", "manifest_sha256", "published"]:
            return "damaged (malformed generation entry)"
        if not _is_count(entry["generation"]) or entry["generation"] > MAX_GENERATION \
                or not isinstance(entry["published"], str) or not _TIMESTAMP.match(entry["published"]):
            return "damaged (malformed generation number or time)"
        if not all(is_sha256_hex(entry[key]) for key in ("corpus_root", "index_id", "manifest_sha256")):
            return "damaged (malformed hash)"
        numbers.append(entry["generation"])
    if numbers != sorted(set(numbers)):
        return "damaged (generations out of order)"
    stamps = [entry["published"] for entry in generations]
    if stamps != sorted(set(stamps)):  # publish stamps every generation later than the one before
        return "damaged (publication times do not increase with the generation numbers)"
    if not _is_count(state["current"]) or state["current"] not in numbers:
        return f"current generation {state['current']!r} is not in its history"
    if state["current"] != numbers[-1]:  # publish always makes the generation it adds current
        return f"current generation {state['current']} is not the newest listed ({numbers[-1]})"
    return None
