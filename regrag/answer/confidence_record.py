"""The confidence record: the value of an answer's confidence and every input it was computed
from, so a user can recompute the number by hand (``regrag.answer.confidence`` computes it;
docs/answers.md defines each field)."""

from __future__ import annotations

from dataclasses import dataclass

from regrag.audit.canonical import JsonRecord


@dataclass(frozen=True)
class Confidence(JsonRecord):
    """The confidence of an answer and everything it was computed from."""

    value: float
    coverage: float
    agreement: float
    content_terms: tuple[str, ...]
    covered_terms: tuple[str, ...]
    missing_specifics: tuple[str, ...]  # numbers and identifiers the evidence lacks
    top_passage_id: str | None
    threshold: float
    refused: bool
    # the content terms the evidence lacks, as the question writes them
    # (``insider dealing``, not the stems ``insid deal``), in question order
    missing_words: tuple[str, ...] = ()
    # what the question asks for (regrag.answer.question) and whether the evidence has it
    expected_type: str = "other"
    type_supported: bool = True
    scaffolding: tuple[str, ...] = ()  # the question's interrogative words, as typed
    missing_sides: tuple[str, ...] = ()  # sides of a two-entity or contrast question without support
    synonyms: tuple[str, ...] = ()  # lexicon steps used: "question word~evidence word"
    lexicon: str = ""  # the synonym set used: its version (builtin) or "NAME sha256:HEX"; "" when none
    content_words: tuple[str, ...] = ()  # the content terms as the question writes them
    covered_words: tuple[str, ...] = ()  # the covered ones, as the question writes them
    # coverage by the sentence holding the short answer, in its context (None: no sentence yet)
    sentence_coverage: float | None = None
    # the entities the cited sentence names instead of the question's (regrag.answer.requirements)
    other_entities: tuple[str, ...] = ()
    # the question's entity names when the cited sentence, in its context, names none of its entities
    unnamed_entities: tuple[str, ...] = ()
    # the question's numbers the cited sentence lacks while giving another of the same kind (12期 for 24期)
    conflicting_numbers: tuple[str, ...] = ()
    # question words the cited sentence lacks while holding their opposite: "term~opposite" (mua~bán)
    opposites: tuple[str, ...] = ()
    # a typed question's cited sentence holds no content term of it beyond the entity names it uses
    bare_sentence: bool = False
    # a question naming an entity: the words of the attribute it asks, none of which the cited sentence holds
    missing_attribute: tuple[str, ...] = ()
    # the search rank of the evidence passage (top_passage_id): 1 unless a lower hit held the
    # question's numbers and all the top one held (regrag.answer.evidence_choice); None: no hits
    evidence_rank: int | None = None
    # abbreviations the cited sentence writes for the question's words: "words~ABBR"
    # (liquidity coverage ratio~LCR; regrag.answer.abbreviations), counted as those words
    abbreviations: tuple[str, ...] = ()
    # the cited sentence comes from a document none of the evidence passages is from: the
    # confidence was measured on passages that do not hold the answer given (session 36)
    outside_evidence: bool = False
    # with a calibration map (AskOptions.calibration, docs/calibration.md): ``value`` is the mapped
    # one, this the rule-based value it was mapped from, and ``calibration`` names the map
    uncalibrated: float | None = None
    calibration: str = ""
    # the verb an English question asks about ("keep", "respond"), as typed, when the evidence
    # does not cover it (regrag.answer.specifics.missing_predicate; session 37)
    missing_predicate: tuple[str, ...] = ()
    # question words the cited sentence holds only as what its figures are compared with
    # ("so với giá đóng cửa": not the closing price; regrag.answer.comparisons; session 39)
    compared_only: tuple[str, ...] = ()
    # the head noun of an English what/which question ("Which form <number> must …") when the
    # cited sentence holds none of it (regrag.answer.head_noun; session 39)
    missing_head: tuple[str, ...] = ()
    # the terms a definition question's cited sentence defines when none is the one asked
    # ('"Person discharging managerial responsibilities" means'; regrag.answer.definitions; session 39)
    defines_other: tuple[str, ...] = ()
    # for a question naming an entity, runs of its CJK words the cited sentence replaces between
    # the same neighbours: "question~sentence" (代驾~道路救援; regrag.answer.substitutes; session 40)
    substituted: tuple[str, ...] = ()
    # the question's bound words (最多, "minimum") the evidence states a limit for (上限, "up to"): left
    # out of the coverage like scaffolding (regrag.answer.bounds; session 41)
    bound_words: tuple[str, ...] = ()
    # a question asking a limit one way (最多, "minimum"), answered by a sentence stating only
    # the other way's: that sentence's words of the other limit (起点; regrag.answer.bounds; session 41)
    other_bound: tuple[str, ...] = ()
    # the phrase an English question ends with ("in casinos") when the evidence covers none of it
    # (regrag.answer.scope; session 41)
    missing_scope: tuple[str, ...] = ()
    # the question's amount a stated rate with bounds applies to, so not missing (regrag.answer.applied_rates)
    rate_base: tuple[str, ...] = ()
