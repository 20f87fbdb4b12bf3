"""The three phases of a sharded build, as pure functions of canonical bytes
(docs/index-format.md, "Sharded generations").

- phase A, ``analyse_partition(documents, analyzer, parameters, shards)``:
  each document's analysis (the ``AnalyzedDocument`` a build makes) as one
  canonical-JSON record, keyed by its shard (``shard_of``).
- ``partial_statistics(records)`` / ``merge_partials(a, b)``: exact partial
  statistics (integers, the sum of the weighted lengths as a fraction),
  associative and commutative, so any reduction tree gives the same bytes.
- phase B, ``reduce_statistics(partials, analyzer, parameters, shards)``: the
  ``GlobalStatistics`` (N, the average length rounded once, every term's
  document frequency, the index id and Merkle root).
- phase C, ``build_shard(shard, records, statistics)``: the shard's files.

No function depends on the order of its inputs, on which process runs it,
or on how documents were grouped into partitions: everything is sorted by
its canonical key before use. Nothing is pickled; every value is canonical
JSON or a little-endian array.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Iterable, Sequence
from fractions import Fraction

from regrag.audit.canonical import canonical_bytes
from regrag.corpus.model import Document
from regrag.errors import InputError
from regrag.index.build import AnalyzedDocument, InvertedIndex, analyze_document, check_index_size
from regrag.index.parameters import IndexParameters, bm25_scorer, tfidf_scorer
from regrag.index.shard_statistics import LENGTH_NORMS, TFIDF_NORMS, GlobalStatistics, statistics_from_bytes
from regrag.index.stored_documents import document_record, parse_record
from regrag.limits import Limits
from regrag.scoring.tfidf import sublinear_table, tfidf_idf
from regrag.text.analyzer import Analyzer

SHARD_FUNCTION = "sha256-first-8-bytes-big-endian-mod"
SHARD_MAX = 4096
PARTIAL_FORMAT = "regrag-shard-partial/1"


def shard_of(document_id: str, shards: int) -> int:
    """The shard of a document: the first 8 bytes of the SHA-256 of its id
    (UTF-8), read as a big-endian unsigned integer, modulo ``shards``."""
    return int.from_bytes(hashlib.sha256(document_id.encode("utf-8")).digest()[:8], "big") % shards


def check_shard_count(shards: object) -> int:
    if isinstance(shards, bool) or not isinstance(shards, int) or not 1 <= shards <= SHARD_MAX:
        raise InputError(f"shards must be an integer from 1 to {SHARD_MAX}, not {shards!r}")
    return shards


def record_bytes(analysed: AnalyzedDocument) -> bytes:
    """One analysed document as canonical JSON: its stored record
    (``documents.jsonl``'s form), each passage's weighted length and its
    sorted terms with their weighted frequencies."""
    document = analysed.document
    return canonical_bytes({
        "lengths": list(analysed.lengths),
        "record": document_record(document, analysed.language, analysed.passages, document.content_hash()),
        "terms": [[list(terms), list(frequencies)] for terms, frequencies in analysed.terms],
    })


def record_from_bytes(data: bytes) -> tuple[AnalyzedDocument, str]:
    """``record_bytes``'s inverse: the analysed document and its content hash
    (``InputError`` for bytes it did not write)."""
    try:
        value = json.loads(bytes(data).decode("utf-8"))
        stored = parse_record(canonical_bytes(value["record"]), "an analysed record")
        lengths = tuple(float(length) for length in value["lengths"])
        terms = tuple((tuple(str(term) for term in pair[0]), array("d", map(float, pair[1])))
                      for pair in value["terms"])
    except Exception as error:  # noqa: BLE001 (any malformed input becomes one clear message)
        raise InputError(f"not an analysed record ({type(error).__name__}: {error})") from None
    if len(lengths) != len(stored.passages) or len(terms) != len(lengths) \
            or any(len(names) != len(values) for names, values in terms):
        raise InputError(f"analysed record of {stored.document.id!r}: lengths, terms and passages disagree")
    return AnalyzedDocument(stored.document, stored.language, stored.passages, lengths, terms), stored.content_hash


def analyse_partition(documents: Iterable[Document], analyzer: Analyzer, parameters: IndexParameters, shards: int,
                      limits: Limits | None = None) -> list[tuple[int, bytes]]:
    """Phase A: (shard, ``record_bytes``) of each document, sorted by
    (shard, document id). Pure: any partition of a corpus, in any order,
    gives records that together are the same set."""
    check_shard_count(shards)
    found = []
    title_cache: dict = {}
    for document in documents:
        analysed = analyze_document(document, analyzer, parameters, title_cache, limits)
        found.append((shard_of(document.id, shards), document.id, record_bytes(analysed)))
    found.sort(key=lambda entry: (entry[0], entry[1]))
    return [(shard, data) for shard, _key, data in found]


def partial_statistics(records: Iterable[bytes]) -> bytes:
    """The exact statistics of some analysed records: passage count, the sum
    of their weighted lengths as a fraction (every float is a dyadic
    rational, so the sum is exact), each term's number of passages, and the
    (document id, content hash) leaves, as canonical JSON."""
    passages = 0
    total = Fraction(0)
    frequencies: dict[str, int] = {}
    leaves = []
    for data in records:
        try:  # only the fields the statistics need (build_shard checks whole records)
            value = json.loads(bytes(data).decode("utf-8"))
            lengths, terms, key, digest = (value["lengths"], value["terms"], value["record"]["id"],
                                           value["record"]["content_hash"])
            if not isinstance(key, str) or not isinstance(digest, str) or len(lengths) != len(terms):
                raise ValueError("malformed fields")
            total += sum(map(Fraction, map(float, lengths)), Fraction(0))
            for names, _values in terms:
                for term in names:
                    frequencies[term] = frequencies.get(term, 0) + 1
        except Exception as error:  # noqa: BLE001
            raise InputError(f"not an analysed record ({type(error).__name__}: {error})") from None
        passages += len(lengths)
        leaves.append((key, digest))
    return _partial_bytes(passages, total, frequencies, leaves)


def _partial_bytes(passages: int, total: Fraction, frequencies: dict[str, int], leaves: list) -> bytes:
    leaves = sorted(leaves)
    for (first, _h), (second, _g) in zip(leaves, leaves[1:]):
        if first == second:
            raise InputError(f"duplicate document id {first!r}")
    return canonical_bytes({
        "documents": [list(leaf) for leaf in leaves], "format": PARTIAL_FORMAT,
        "length_sum": [total.numerator, total.denominator], "passages": passages,
        "terms": [[term, frequencies[term]] for term in sorted(frequencies)],
    })


def _parse_partial(data: bytes) -> tuple[int, Fraction, dict[str, int], list]:
    try:
        value = json.loads(bytes(data).decode("utf-8"))
        if value["format"] != PARTIAL_FORMAT:
            raise ValueError(f"format {value['format']!r}")
        numerator, denominator = value["length_sum"]
        total = Fraction(int(numerator), int(denominator))
        frequencies = {str(term): int(count) for term, count in value["terms"]}
        leaves = [(str(key), str(digest)) for key, digest in value["documents"]]
        return int(value["passages"]), total, frequencies, leaves
    except Exception as error:  # noqa: BLE001
        raise InputError(f"not partial statistics ({type(error).__name__}: {error})") from None


def merge_partials(*partials: bytes) -> bytes:
    """Partial statistics of the union (associative and commutative, exact:
    use it as Spark's ``treeReduce`` function)."""
    passages, total, frequencies, leaves = 0, Fraction(0), {}, []
    for data in partials:
        count, part, found, documents = _parse_partial(data)
        passages += count
        total += part
        for term, number in found.items():
            frequencies[term] = frequencies.get(term, 0) + number
        leaves.extend(documents)
    return _partial_bytes(passages, total, frequencies, leaves)


def reduce_statistics(partials: Iterable[bytes], analyzer: Analyzer, parameters: IndexParameters,
                      shards: int) -> GlobalStatistics:
    """Phase B: the global statistics from partials (of disjoint document
    sets) merged exactly; the average length rounded once, as a single
    build's ``fsum(lengths) / N`` (``fsum`` is the correctly rounded exact sum)."""
    from regrag.audit.merkle import merkle_root
    from regrag.index.build import index_id_from_hashes

    check_shard_count(shards)
    passages, total, frequencies, leaves = _parse_partial(merge_partials(*partials))
    check_index_size(passages, sum(frequencies.values()))
    average = float(total) / passages if passages else 0.0
    if average <= 0.0:
        average = 1.0
    terms = sorted(frequencies)
    return GlobalStatistics(
        shards=shards, shard_function=SHARD_FUNCTION, document_count=len(leaves), passage_count=passages,
        length_sum=total, average_length=average, terms=tuple(terms),
        document_frequencies=tuple(frequencies[term] for term in terms),
        index_id=index_id_from_hashes(analyzer, parameters, leaves), corpus_root=merkle_root(leaves))


def shard_index(records: Sequence[AnalyzedDocument], hashes: dict[str, str], analyzer: Analyzer,
                parameters: IndexParameters, limits: Limits | None = None) -> InvertedIndex:
    """The in-memory index of one shard's documents in local positions (what
    ``segment_files`` writes), from their analysed records sorted by id."""
    from regrag.index.segment_files import assembled_segment

    documents = {record.document.id: record.document for record in records}
    return assembled_segment(records, documents, dict(hashes), analyzer, parameters, limits)


def build_shard(shard: int, records: Iterable[bytes], statistics: GlobalStatistics | bytes, analyzer: Analyzer,
                parameters: IndexParameters, limits: Limits | None = None) -> dict[str, bytes]:
    """Phase C: shard ``shard``'s files, by name within its directory: one
    segment (``segments/NAME/…``, ``segment_files``' bytes) of its documents,
    the BM25 length norms and TF-IDF norms of its passages (local order)
    computed with the global statistics, and ``shard.json`` listing them."""
    from regrag.index.frequency_codes import little_endian
    from regrag.index.segment_files import SEGMENT_MANIFEST, segment_files
    from regrag.index.shard_statistics import shard_manifest

    if isinstance(statistics, (bytes, bytearray, memoryview)):
        statistics = statistics_from_bytes(bytes(statistics), "global statistics")
    if not 0 <= shard < statistics.shards:
        raise InputError(f"shard {shard} is not one of the {statistics.shards} shards")
    parsed = sorted((record_from_bytes(data) for data in records), key=lambda pair: pair[0].document.id)
    for (first, _h), (second, _g) in zip(parsed, parsed[1:]):
        if first.document.id == second.document.id:
            raise InputError(f"duplicate document id {first.document.id!r}")
    for analysed, _hash in parsed:
        if shard_of(analysed.document.id, statistics.shards) != shard:
            raise InputError(f"document {analysed.document.id!r} belongs to shard "
                             f"{shard_of(analysed.document.id, statistics.shards)}, not {shard}")
    analysed_records = [analysed for analysed, _hash in parsed]
    index = shard_index(analysed_records, {a.document.id: h for a, h in parsed}, analyzer, parameters, limits)
    files: dict[str, bytes] = {}
    segments = []
    if analysed_records:
        name, segment = segment_files(index, limits)
        files.update({f"segments/{name}/{file}": data for file, data in segment.items()})
        segments.append({"document_count": len(analysed_records), "name": name,
                         "passage_count": len(index.passages)})
        del segment
    files[LENGTH_NORMS] = little_endian(bm25_scorer(parameters, statistics.average_length).length_norms(index.lengths))
    files[TFIDF_NORMS] = little_endian(tfidf_norms(analysed_records, statistics, parameters))
    files["shard.json"] = shard_manifest(shard, segments, files, statistics)
    assert all(not name.endswith(SEGMENT_MANIFEST) or name.startswith("segments/") for name in files)
    return files


def tfidf_norms(records: Sequence[AnalyzedDocument], statistics: GlobalStatistics,
                parameters: IndexParameters) -> array:
    """Each passage's TF-IDF norm with the global IDFs: the build's
    ``tfidf.norm(tfidf.passage_weights(…))`` of the same values, so the same bits."""
    import bisect

    tfidf = tfidf_scorer(parameters)
    terms, frequencies = statistics.terms, statistics.document_frequencies
    idf_of: dict[int, float] = {}
    result = array("d")
    for record in records:
        for names, values in record.terms:
            idfs = {}
            for name in names:
                at = bisect.bisect_left(terms, name)
                if at == len(terms) or terms[at] != name:
                    raise InputError(f"term {name!r} of {record.document.id!r} is not in the global statistics")
                df = frequencies[at]
                if df not in idf_of:
                    idf_of[df] = tfidf_idf(statistics.passage_count, df)
                idfs[name] = idf_of[df]
            result.append(tfidf.norm(tfidf.passage_weights(names, values, idfs, sublinear_table(values))))
    return result
