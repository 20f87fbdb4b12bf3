"""``SearchOptions``: how one search is run, checked once when made.

Every entry point that ranks (``Index.search``, ``Index.ranking``,
``Index.ask`` through ``AskOptions``, ledger records and their replay)
takes one of these instead of six keyword arguments threaded by hand.
The caps of an index (``Limits.k``, ``Limits.rrf_depth``) depend on the
index, so they are checked by ``within(limits)`` when the options meet it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from regrag.errors import InputError
from regrag.limits import DEFAULT_LIMITS, Limits, check_query_length, check_search_depth
from regrag.retrieval.filters import Filter, coerce_filters
from regrag.retrieval.methods import DEFAULT_K, DEFAULT_METHOD, DEFAULT_RRF_DEPTH, METHODS
from regrag.retrieval.kernels import resolve_kernel
from regrag.text.synonyms import SynonymSet
from regrag.validation import check_positive_int

FilterSpec = Iterable["Filter | str"] | Mapping[str, str] | None


@dataclass(frozen=True)
class SearchOptions:
    """k, method, filters, RRF depth, the entity step, exhaustive scoring and the kernel.

    ``filters`` may be given as filter strings, ``Filter`` objects or a
    mapping of equality filters; they are kept as a tuple of ``Filter``.
    ``exhaustive`` scores every posting instead of rank-safe pruning: the
    results are the same bits either way (for audits and benchmarks).
    ``kernel`` (``python``, ``numpy`` or ``auto``; None: ``REGRAG_KERNEL``,
    else numpy when installed) picks the scoring kernel: again the same bits
    either way, so neither it nor ``exhaustive`` is recorded anywhere.
    ``synonyms`` (a ``regrag.text.synonyms.SynonymSet``; None: none) expands
    the query at query time (docs/synonyms.md); every hit records it."""

    k: int = DEFAULT_K
    method: str = DEFAULT_METHOD
    filters: tuple[Filter, ...] = ()
    rrf_depth: int = DEFAULT_RRF_DEPTH
    entities: bool = True
    exhaustive: bool = False
    kernel: str | None = None
    synonyms: SynonymSet | None = None

    def __post_init__(self) -> None:
        check_positive_int(self.k, "k")
        if self.method not in METHODS:
            raise InputError(f"unknown method {self.method!r}; choose one of {', '.join(METHODS)}")
        check_positive_int(self.rrf_depth, "rrf_depth")
        object.__setattr__(self, "filters", coerce_filters(self.filters))
        object.__setattr__(self, "entities", bool(self.entities))
        object.__setattr__(self, "exhaustive", bool(self.exhaustive))
        if self.kernel is not None:
            resolve_kernel(self.kernel)  # an unknown or unavailable kernel fails here, not mid-search
        if self.synonyms is not None and not isinstance(self.synonyms, SynonymSet):
            raise InputError(f"synonyms must be a regrag.text.synonyms.SynonymSet or None, got {type(self.synonyms).__name__}")

    @property
    def fused_depth(self) -> int:
        """How deep each list fused by ``hybrid`` is: ``max(k, rrf_depth)``."""
        return max(self.k, self.rrf_depth)

    def within(self, limits: Limits = DEFAULT_LIMITS) -> "SearchOptions":
        """These options, after ``LimitError`` if ``k`` or (for ``hybrid``, the
        only method that uses it) ``rrf_depth`` exceeds ``limits``."""
        check_search_depth(self.k, self.rrf_depth if self.method == "hybrid" else None, limits)
        return self

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> "SearchOptions":
        """The options of a ledger record's ``options`` object (``regrag.audit.replay``)."""
        return cls(k=record["k"], method=record["method"], filters=record["filters"],
                   rrf_depth=record["rrf_depth"], entities=record["entities"])


DEFAULT_OPTIONS = SearchOptions()


def options_from(options: SearchOptions | None, k: int, method: str, filters: FilterSpec, rrf_depth: int,
                 entities: bool, exhaustive: bool, default_k: int = DEFAULT_K) -> SearchOptions:
    """``options``, or options made from the keyword arguments (not both:
    with ``options``, the keyword arguments must keep their defaults)."""
    if options is None:
        return SearchOptions(k, method, filters, rrf_depth, entities, exhaustive)
    if not isinstance(options, SearchOptions):
        raise InputError(f"options must be a regrag.SearchOptions, got {type(options).__name__}")
    if (k, method, rrf_depth, entities, exhaustive) != (default_k, DEFAULT_METHOD, DEFAULT_RRF_DEPTH, True, False) or filters:
        raise InputError("give options= or the keyword arguments k, method, filters, rrf_depth, entities, "
                         "exhaustive, not both")
    return options


def check_query(query: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """``InputError`` unless ``query`` is a str of valid Unicode text, and
    ``LimitError`` when it is longer than ``limits.query_characters``."""
    if not isinstance(query, str):
        raise InputError("query must be a string")
    check_query_length(query, limits)  # before encoding: a huge query is refused without copying it
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError("the query is not valid Unicode text (it holds a lone surrogate or undecodable bytes)") from None
