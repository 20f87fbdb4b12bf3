"""Resource limits: the documented caps on what regrag accepts.

Compliance systems feed regrag whatever arrives, so every input that could
make time or memory grow without bound has a cap, and exceeding a cap is a
clear ``LimitError`` (an ``InputError``) naming the input and the limit,
never a crash, a hang or a silent truncation. The defaults are generous for
real documents and queries; a caller that needs more passes its own
``Limits`` (``load_corpus``, ``Index.from_documents``, ``Index.updated``).
The caps and why they are what they are: docs/security.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrag.errors import InputError
from regrag.validation import check_positive_int


class LimitError(InputError):
    """An input exceeds one of the documented resource limits."""


@dataclass(frozen=True)
class Limits:
    """Caps on inputs. All counts are inclusive maxima."""

    # A document's text, in UTF-8 bytes as read (a JSONL line or a file).
    document_bytes: int = 64 * 1024 * 1024
    # Passages one document may be split into (the passage splitter's output).
    passages_per_document: int = 100_000
    # A corpus file (JSONL, BEIR corpus.jsonl, or one Markdown/text file).
    file_bytes: int = 4 * 1024 * 1024 * 1024
    # A corpus file a full build streams instead of loading (a JSONL or BEIR
    # file, plain or gzipped: regrag.corpus.stream), compressed and, for gzip,
    # decompressed. It replaces ``file_bytes`` there: a streamed file is never
    # held (about 110 bytes a document are), so the cap bounds time, the
    # per-document arrays and a gzip bomb instead. 16 GiB takes ten million
    # English passages (a 13 GB JSONL); ``regrag index --max-streamed-file-bytes``.
    streamed_file_bytes: int = 16 * 1024 * 1024 * 1024
    # Passages in one index: positions are stored as signed 32-bit integers.
    index_passages: int = 2**31 - 1
    # Postings in one index (the same 32-bit bound applies to term statistics).
    index_postings: int = 2**31 - 1
    # A query's length in characters, and its distinct analysed terms.
    query_characters: int = 10_000
    query_terms: int = 1_000
    # Sections one document may have (Markdown headings, or a JSONL record's
    # "sections"), checked while reading: every section is a record in memory
    # before any passage is made (8 MB of "# a\nb\n" is 1.4 million sections).
    sections_per_document: int = 100_000
    # A document id, in UTF-8 bytes (issue 12): the id is repeated in every
    # hit, passage id, golden line, Merkle proof and ledger record, so a 5 MB
    # id would put 10 MB into each search output. 4,096 is Linux's PATH_MAX.
    document_id_bytes: int = 4096
    # Entity names (issuer, product, ticker values and aliases) one document's
    # metadata may give (docs/entities.md). Unlike the other caps this one does
    # not raise: the entity catalog is built when the first query needs it,
    # so a document beyond it contributes no names, and they are listed in
    # EntityCatalog.rejected (a real document has a handful; 2,000 documents
    # with 100 aliases each are matched in linear time all the same).
    entity_names_per_document: int = 100
    # (issue 12) Results one search may ask for (``k``, ``-k``; also the
    # entries given to ``hits``), and the depth of each list hybrid fuses
    # (``rrf_depth``, ``--rrf-depth``): time and memory grow with both, since
    # every hit carries its provenance (SciFact, 1,000 query terms: -k 100000
    # --rrf-depth 100000 took 11.8 CPU s and 263 MB peak against 5.3 s and
    # 98 MB for -k 10). 10,000 is ten times the deepest evaluation run.
    k: int = 10_000
    rrf_depth: int = 10_000
    # (issue 18) Extracted formats (docs/corpus.md, "Extracted formats"). How
    # deep HTML elements (and DOCX XML elements) may nest: the open elements
    # are a stack, and an end tag looks through it.
    markup_depth: int = 1_024
    # A DOCX is a ZIP archive: caps on its members (count), on one member's
    # uncompressed size, on all the members read together, and on a member's
    # uncompressed/compressed ratio (beyond its first MiB), so a ZIP bomb is
    # refused before it is inflated.
    archive_members: int = 10_000
    archive_member_bytes: int = 256 * 1024 * 1024
    archive_total_bytes: int = 1024 * 1024 * 1024
    archive_ratio: int = 200
    # Pages of one PDF.
    pdf_pages: int = 100_000

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            check_positive_int(value, f"limit {name}")


DEFAULT_LIMITS = Limits()


def check_query_length(query: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """``LimitError`` when a query is longer than ``limits.query_characters``."""
    if len(query) > limits.query_characters:
        raise LimitError(
            f"the query has {len(query):,} characters; the limit is {limits.query_characters:,} "
            "(regrag.limits.Limits.query_characters)"
        )


def check_query_terms(distinct_terms: int, limits: Limits = DEFAULT_LIMITS, typed: int | None = None) -> None:
    """``LimitError`` when a query analyses to more distinct terms than allowed;
    ``typed``: the count before a synonym expansion, when one added terms."""
    if distinct_terms > limits.query_terms:
        origin = "after analysis" if typed is None else f"after analysis and synonym expansion ({typed:,} as typed)"
        raise LimitError(
            f"the query has {distinct_terms:,} distinct terms {origin}; the limit is "
            f"{limits.query_terms:,} (regrag.limits.Limits.query_terms)"
        )


def check_search_depth(k: int, rrf_depth: int | None, limits: Limits = DEFAULT_LIMITS) -> None:
    """``LimitError`` when ``k`` exceeds ``limits.k`` or ``rrf_depth`` (when
    given) exceeds ``limits.rrf_depth``. Both must already be positive integers."""
    for name, value in (("k", k), ("rrf_depth", rrf_depth)):
        if value is not None and value > getattr(limits, name):
            raise LimitError(
                f"{name} is {value:,}; the limit is {getattr(limits, name):,} (regrag.limits.Limits.{name})"
            )


def checked_limits(limits: "Limits | None") -> Limits:
    """``limits``, or ``DEFAULT_LIMITS`` for None; ``InputError`` for anything else."""
    if limits is None:
        return DEFAULT_LIMITS
    if not isinstance(limits, Limits):
        raise InputError(f"limits must be a regrag.limits.Limits, got {type(limits).__name__}")
    return limits
