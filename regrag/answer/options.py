"""``AskOptions``: the search options of an answer plus how it is made
(``max_sentences``), when it is refused (``threshold``) and the corpus's
calibration map, if any (``calibration``, docs/calibration.md)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from regrag.answer.calibration import CalibrationMap, calibration_from_dict
from regrag.answer.threshold import REFUSAL_THRESHOLD
from regrag.answer.lexicon import builtin_synonyms, synonyms_from_record
from regrag.errors import InputError
from regrag.limits import Limits
from regrag.retrieval.methods import DEFAULT_RRF_DEPTH
from regrag.retrieval.options import FilterSpec, SearchOptions, check_query, options_from
from regrag.validation import check_positive_int, is_number

DEFAULT_ASK_K = 5


@dataclass(frozen=True)
class AskOptions:
    """``search`` (k 5 and the built-in synonyms unless given), ``max_sentences``
    and the refusal ``threshold`` (0 to 1). ``search.synonyms`` expands the
    search and counts for coverage (None: no synonyms). ``calibration`` maps
    the confidence before the threshold is applied (None: the rule-based value)."""

    search: SearchOptions = field(default_factory=lambda: SearchOptions(k=DEFAULT_ASK_K, synonyms=builtin_synonyms()))
    max_sentences: int = 3
    threshold: float = REFUSAL_THRESHOLD
    calibration: CalibrationMap | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "threshold", check_threshold(self.threshold))
        check_positive_int(self.max_sentences, "max_sentences")
        if not isinstance(self.search, SearchOptions):
            raise InputError(f"search must be a regrag.SearchOptions, got {type(self.search).__name__}")
        if self.calibration is not None and not isinstance(self.calibration, CalibrationMap):
            raise InputError(f"calibration must be a regrag CalibrationMap (read_calibration), "
                             f"got {type(self.calibration).__name__}")

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> "AskOptions":
        """The options of a ledger record (no ``synonyms`` recorded: none, as before they existed;
        no ``calibration``: none)."""
        search = replace(SearchOptions.from_record(record), synonyms=synonyms_from_record(record.get("synonyms")))
        calibration = record.get("calibration")
        return cls(search, record["max_sentences"], record["threshold"],
                   None if calibration is None else calibration_from_dict(calibration, "ledger record: calibration"))


def check_threshold(threshold: Any) -> float:
    """A refusal threshold as a float; ``InputError`` unless a number in [0, 1]."""
    if not is_number(threshold) or not 0.0 <= threshold <= 1.0:
        raise InputError(f"threshold must be a number between 0 and 1, got {threshold!r}")
    return float(threshold)


def ask_options_from(options: AskOptions | None, limits: Limits, question: str, k: int, method: str,
                     filters: FilterSpec, max_sentences: int, entities: bool, threshold: float | None,
                     rrf_depth: int = DEFAULT_RRF_DEPTH, exhaustive: bool = False) -> AskOptions:
    """``options``, or ``AskOptions`` made from ``Index.ask``'s keyword arguments
    (with the built-in synonyms),
    checked in the order ``ask`` has always checked them: threshold,
    max_sentences, the question, then the search options."""
    if options is not None:
        if not isinstance(options, AskOptions):
            raise InputError(f"options must be a regrag.AskOptions, got {type(options).__name__}")
        if (k, method, filters, max_sentences, entities, threshold, rrf_depth, exhaustive) != (
                DEFAULT_ASK_K, "hybrid", None, 3, True, None, DEFAULT_RRF_DEPTH, False):
            raise InputError("give options= or the keyword arguments, not both")
        check_query(question, limits)
        return options
    threshold = check_threshold(REFUSAL_THRESHOLD if threshold is None else threshold)
    check_positive_int(max_sentences, "max_sentences")
    check_query(question, limits)
    search = replace(options_from(None, k, method, filters, rrf_depth, entities, exhaustive),
                     synonyms=builtin_synonyms())
    return AskOptions(search, max_sentences, threshold)
