"""The global statistics of a sharded generation and the records that list a
shard's files (docs/index-format.md, "Sharded generations").

``GlobalStatistics`` holds exact values only (integers, the sum of the
weighted lengths as a fraction) and the one rounded value derived from
them, the average length. ``statistics_bytes`` is its file,
``global_statistics.json`` (canonical JSON and a newline), whose SHA-256
the manifest records; ``statistics_from_bytes`` reads it back, refusing
anything it did not write.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from regrag.audit.canonical import canonical_bytes
from regrag.errors import InputError

STATISTICS_FORMAT = "regrag-global-statistics/1"
STATISTICS_FILE = "global_statistics.json"
SHARD_FORMAT = "regrag-shard/1"
SHARD_MANIFEST = "shard.json"
LENGTH_NORMS, TFIDF_NORMS = "length_norms.f64", "tfidf_norms.f64"


@dataclass(frozen=True)
class GlobalStatistics:
    """Everything corpus-wide a shard's scores need: N (passages), the exact
    length sum, the average length rounded once from it, each term's
    document frequency (terms sorted), and the index id and Merkle root."""

    shards: int
    shard_function: str
    document_count: int
    passage_count: int
    length_sum: Fraction
    average_length: float
    terms: tuple[str, ...]
    document_frequencies: tuple[int, ...]
    index_id: str
    corpus_root: str

    def to_bytes(self) -> bytes:
        return statistics_bytes(self)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.to_bytes()).hexdigest()


def statistics_bytes(statistics: GlobalStatistics) -> bytes:
    """``global_statistics.json``: canonical JSON (floats as ``repr``, exact) and a newline."""
    return canonical_bytes({
        "average_length": statistics.average_length, "corpus_root": statistics.corpus_root,
        "document_count": statistics.document_count, "format": STATISTICS_FORMAT,
        "index_id": statistics.index_id,
        "length_sum": [statistics.length_sum.numerator, statistics.length_sum.denominator],
        "passage_count": statistics.passage_count, "shard_function": statistics.shard_function,
        "shards": statistics.shards,
        "terms": [[term, df] for term, df in zip(statistics.terms, statistics.document_frequencies)],
    }) + b"\n"


def statistics_from_bytes(data: bytes, where: str) -> GlobalStatistics:
    """``statistics_bytes``' inverse; ``InputError`` naming ``where`` for any other bytes."""
    try:
        value = json.loads(data.decode("utf-8"))
        numerator, denominator = value["length_sum"]
        terms = value["terms"]
        statistics = GlobalStatistics(
            shards=value["shards"], shard_function=value["shard_function"], document_count=value["document_count"],
            passage_count=value["passage_count"], length_sum=Fraction(numerator, denominator),
            average_length=value["average_length"], terms=tuple(term for term, _df in terms),
            document_frequencies=tuple(df for _term, df in terms), index_id=value["index_id"],
            corpus_root=value["corpus_root"])
    except Exception as error:  # noqa: BLE001 (any malformed file becomes one clear message)
        raise InputError(f"{where}: not a global-statistics file ({type(error).__name__})") from None
    if value.get("format") != STATISTICS_FORMAT or statistics_bytes(statistics) != data:
        raise InputError(f"{where}: not a global-statistics file this regrag writes ({STATISTICS_FORMAT})")
    if list(statistics.terms) != sorted(set(statistics.terms)) \
            or any(not isinstance(df, int) or df <= 0 for df in statistics.document_frequencies):
        raise InputError(f"{where}: terms not sorted and unique with positive document frequencies")
    return statistics


def shard_manifest(shard: int, segments: Sequence[Mapping[str, Any]], files: Mapping[str, bytes],
                   statistics: GlobalStatistics) -> bytes:
    """``shard.json``: the shard's number, its segments (name and counts),
    the SHA-256 of its own norm files and of the global statistics it was
    built with."""
    own = {name: {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
           for name, data in files.items() if "/" not in name}
    return canonical_bytes({
        "files": own, "format": SHARD_FORMAT, "segments": [dict(entry) for entry in segments], "shard": shard,
        "statistics_sha256": statistics.sha256,
    }) + b"\n"


def shard_manifest_problem(record: object, shard: int) -> str | None:
    """Why a parsed ``shard.json`` is not one ``shard_manifest`` writes for ``shard``, or None."""
    if not isinstance(record, dict) or set(record) != {"files", "format", "segments", "shard", "statistics_sha256"}:
        return "malformed (not the keys of a shard manifest)"
    if record["format"] != SHARD_FORMAT:
        return f"shard format {record['format']!r} is not supported (this regrag reads {SHARD_FORMAT!r})"
    if record["shard"] != shard:
        return f"describes shard {record['shard']!r}, not {shard}"
    files = record["files"]
    if not isinstance(files, dict) or sorted(files) != sorted((LENGTH_NORMS, TFIDF_NORMS)):
        return "the file list does not match a shard"
    for name, entry in files.items():
        if not isinstance(entry, dict) or set(entry) != {"bytes", "sha256"} or not isinstance(entry["sha256"], str) \
                or isinstance(entry["bytes"], bool) or not isinstance(entry["bytes"], int):
            return f"malformed entry for {name}"
    segments = record["segments"]
    if not isinstance(segments, list) or len(segments) > 1 or any(
            not isinstance(entry, dict) or set(entry) != {"document_count", "name", "passage_count"}
            or not isinstance(entry["name"], str) or len(entry["name"]) != 64
            or entry["name"].strip("0123456789abcdef") for entry in segments):
        return "malformed segments"
    return None
