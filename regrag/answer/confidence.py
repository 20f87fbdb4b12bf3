"""Answer confidence: how much of the question the best evidence covers, and
whether the two retrievers agree on it. Every input is recorded, so a user
can recompute the number by hand.

Definitions (docs/answers.md):
- *content terms*: the question's distinct analyzed terms, less question and
  function words (``QUESTION_WORDS``, analyzed with the question's own
  rules; for CJK, any bigram containing a character of ``QUESTION_CHARACTERS``;
  for Vietnamese, any syllable pair containing a question syllable; for CJK,
  any bigram overlapping a Chinese function word, ``CJK_FUNCTION_WORDS``);
- each content term weighs its BM25 IDF; a term the corpus lacks weighs the
  IDF of a term in no passage (the largest there is), except a CJK bigram,
  which weighs the mean IDF of the question's known content terms: unseen
  bigrams are mostly artefacts of word junctions (``守丢`` in ``防守丢了``);
  a CJK bigram that only joins two found words (``法中`` in ``宪法中``,
  ``regrag.answer.cjk_junctions``) is left out of the content terms;
- *evidence*: the top passage, its title, and its document's title and
  metadata values; when the query names several entities (docs/entities.md),
  also the best passage from each named entity's documents; and the cited
  sentence's passage when it is another hit of the top passage's document;
- *coverage*: the weight of the content terms found in the evidence over the
  weight of all content terms, summed with ``math.fsum``;
- *agreement*: 1 when BM25 and TF-IDF both rank the top passage first, 0.5
  when both rank it in their top 3, else 0;
- *numbers*: the question's numeric terms (those starting with a digit, and
  the Roman numerals i–iv used for quarters) must appear in the evidence
  (leading zeros ignored, so ``19/3/2026`` finds a ``date: 2026-03-19``);
  if one is missing, the
  confidence is multiplied by ``MISSING_NUMBER_FACTOR``;
- *confidence* = coverage × (1 − AGREEMENT_WEIGHT + AGREEMENT_WEIGHT × agreement)
  × (MISSING_NUMBER_FACTOR if a number or identifier is missing else 1)
  × the factors of ``confidence_value`` for a missing type or side, a cited
  sentence covering less than the evidence, and a cited sentence about
  another entity than the question's, or from a document no evidence
  passage is from (``OTHER_ENTITY_FACTOR``).
``ask`` refuses when the confidence is below ``REFUSAL_THRESHOLD``.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

from regrag.answer.abbreviations import abbreviation_steps, spelled_out
from regrag.answer.applied_rates import FEE_TYPES, rate_bases
from regrag.answer.bounds import asked_bound, bound_terms, other_side, stated_words, states, states_only_other
from regrag.answer.cjk_junctions import bridged_bigrams
from regrag.answer.comparisons import reference_terms
from regrag.answer.definitions import defines_other
from regrag.answer.head_noun import missing_head
from regrag.answer.evidence import evidence_characters, evidence_hits, evidence_terms, named_in_question
from regrag.answer.date_groups import held_group_numbers, other_day, unwritten_quarters
from regrag.answer.answer_types import TYPED
from regrag.answer.lexicon import synonym_cover
from regrag.answer.opposites import contained_opposites, opposed_terms
from regrag.answer.units import asked_counter, asked_unit, other_counts, other_units
from regrag.answer.question import QuestionReading, is_scaffolding, read_question
from regrag.answer.ranges import ranged_numbers
from regrag.answer.scope import missing_scope
from regrag.answer.threshold import REFUSAL_THRESHOLD  # noqa: F401 (re-exported: its documented home)
from regrag.answer.substitutes import substituted_runs
from regrag.answer.specifics import missing_identifiers, missing_numbers, missing_predicate, number_key, scaled_numbers
from regrag.answer.requirements import (conflicting_numbers, entity_sides, is_bare, lacks_attribute, missing_sides,
                                        other_entities, sentence_evidence, side_hits, type_supported,
                                        type_word_terms, unnamed_entities)
from regrag.answer.confidence_record import Confidence  # noqa: F401 (re-exported: its documented home)
from regrag.text.question_words import CJK_FUNCTION_WORDS, QUESTION_CHARACTERS, QUESTION_WORDS
from regrag.scoring.bm25 import bm25_idf
from regrag.text.scripts import HAS_CJK

if TYPE_CHECKING:
    from regrag.answer.options import AskOptions
    from regrag.answer.searcher import Searcher

AGREEMENT_WEIGHT = 0.25
MISSING_NUMBER_FACTOR = 0.5
MISSING_TYPE_FACTOR = 0.75
MISSING_SIDE_FACTOR = 0.5
OTHER_ENTITY_FACTOR = 0.5  # the cited sentence names only entities the question does not, or none
SENTENCE_FLOOR = 0.5  # the share of the value the answer sentence's own coverage cannot take away


def content_terms(analyzer, question: str, language: str, reading: "QuestionReading | None" = None) -> tuple[str, ...]:
    """The question's distinct terms that carry content, sorted: neither
    question or function words nor inside the question's scaffolding."""
    reading = reading if reading is not None else read_question(question)
    framing = function_word_spans(question)
    terms = {term for term, start, end in analyzer.analyze(question, language)
             if not is_scaffolding(reading, start, end, bool(HAS_CJK.search(term)))
             and not (HAS_CJK.search(term) and any(start < e and s < end for s, e in framing))}
    rules = "vi" if language == "vi" else "en"
    stop = {term for term, _s, _e in analyzer.analyze(QUESTION_WORDS[rules], rules)}
    kept = []
    for term in sorted(terms):
        if term in stop:
            continue
        if any(character in QUESTION_CHARACTERS for character in term):
            continue
        if " " in term:
            continue  # Vietnamese syllable pairs: the syllables already count

        kept.append(term)
    return tuple(kept)


def function_word_spans(question: str) -> list[tuple[int, int]]:
    """Where the question holds a Chinese function word (``CJK_FUNCTION_WORDS``), in order."""
    return sorted((found, found + len(word)) for word in CJK_FUNCTION_WORDS
                  for found in _occurrences(question, word))


def _occurrences(text: str, word: str):
    start = text.find(word)
    while start != -1:
        yield start
        start = text.find(word, start + 1)


def surface_words(analyzer, question: str, language: str, wanted) -> tuple[str, ...]:
    """The words of ``question`` whose analysed terms are in ``wanted``, as
    typed (the analyzer's offsets into the question), each once, in order."""
    words: list[str] = []
    for term, start, end in analyzer.analyze(question, language):
        word = question[start:end]
        if term in wanted and word not in words:
            words.append(word)
    return tuple(words)


def agreement_of(bm25_rank: int | None, tfidf_rank: int | None) -> float:
    if bm25_rank == 1 and tfidf_rank == 1:
        return 1.0
    if bm25_rank is not None and tfidf_rank is not None and bm25_rank <= 3 and tfidf_rank <= 3:
        return 0.5
    return 0.0


def confidence_value(coverage: float, agreement: float, numbers_missing: bool, type_missing: bool = False,
                     sides_missing: bool = False, sentence_coverage: float | None = None,
                     other_entity: bool = False) -> float:
    """coverage × (1 − w + w × agreement), times a factor for each kind of
    missing support: a number or identifier, the expected answer type, a side,
    the cited sentence's own coverage, the entity asked (the cited sentence
    names only others)."""
    value = coverage * (1.0 - AGREEMENT_WEIGHT + AGREEMENT_WEIGHT * agreement)
    if numbers_missing:
        value *= MISSING_NUMBER_FACTOR
    if type_missing:
        value *= MISSING_TYPE_FACTOR
    if sides_missing:
        value *= MISSING_SIDE_FACTOR
    if sentence_coverage is not None and coverage > 0:
        value *= SENTENCE_FLOOR + (1.0 - SENTENCE_FLOOR) * min(1.0, sentence_coverage / coverage)
    if other_entity:
        value *= OTHER_ENTITY_FACTOR
    return value


def _passage_text(index, hit) -> str:
    """The text of a hit's passage."""
    start, end = hit.passage_span
    return index.document(hit.document_id).text[start:end]


def lexicon_label(rules) -> str:
    """How ``Confidence.lexicon`` names the synonym set: its version, else name and hash."""
    return "" if rules is None else (rules.version or f"{rules.name} sha256:{rules.sha256}")


def measure_confidence(index: "Searcher", question: str, hits, options: "AskOptions", sentence=None) -> Confidence:
    """Confidence of answering ``question`` from ``hits`` (the search results
    obtained with ``options.search``), refused below ``options.threshold``;
    with ``sentence`` (the answer sentence holding the short answer), also
    how much of the question that sentence covers in its context."""
    threshold = options.threshold
    analyzed = index.analyze_query(question)
    language = analyzed.language
    reading = read_question(question)
    terms = content_terms(index.analyzer, question, language, reading)
    words = surface_words(index.analyzer, question, language, set(terms))
    calibration = options.calibration
    if not hits or not terms:  # nothing to answer from: 0, refused, not mapped
        return Confidence(0.0, 0.0, 0.0, terms, (), (), hits[0].passage_id if hits else None, threshold, True,
                          words, reading.expected_type, False, reading.scaffolding, content_words=words,
                          evidence_rank=hits[0].rank if hits else None,
                          uncalibrated=None if calibration is None else 0.0,
                          calibration="" if calibration is None else calibration.label())
    top = hits[0]
    chosen = evidence_hits(hits, sentence)
    sides = entity_sides(index, question)
    for hit in side_hits(hits, sides):
        if all(hit.passage_id != c.passage_id for c in chosen):
            chosen.append(hit)
    names, inside = named_in_question(index, question, language)
    evidence = evidence_terms(index, chosen)
    # A name the question uses is evidence for its own terms only when the
    # evidence supports some other content term too: the entity match never
    # makes a confidence on its own (docs/answers.md).
    if names and any(t in evidence for t in terms if t not in inside):
        evidence = evidence_terms(index, chosen, names)
    count = index.passage_count
    idfs = {t: index.term_idf(t) for t in terms}
    # A CJK bigram in no passage whose two characters are both in the evidence
    # is a word junction (``队贡`` in ``为球队贡献``), not a missing word: left out.
    characters = evidence_characters(index, chosen)
    junctions = tuple(t for t in terms if idfs[t] is None and HAS_CJK.search(t) and all(c in characters for c in t))
    if junctions and len(junctions) < len(terms):
        terms = tuple(t for t in terms if t not in junctions)
        words = surface_words(index.analyzer, question, language, set(terms))
    # A CJK bigram joining two found words (``法中`` in ``宪法中``) is not missing either.
    question_tokens = index.analyzer.analyze(question, language)  # analysed once, read by the checks below
    bridged = bridged_bigrams(question_tokens, frozenset(terms), evidence, characters)
    if bridged and len(bridged) < len(terms):
        terms = tuple(t for t in terms if t not in bridged)
        words = surface_words(index.analyzer, question, language, set(terms))
    # A bound the evidence states as asked (上限 for 最多) supports the question's bound words.
    texts = [_passage_text(index, hit) for hit in chosen]  # the evidence passages' texts, read once, in search order
    side, bound_spans = asked_bound(question)
    bounded = bound_terms(question_tokens, bound_spans) if side else frozenset()
    framed = bounded if bounded and any(t not in bounded for t in terms) and any(
        states(text, side) for text in texts) else frozenset()
    typed = type_supported(index, reading.expected_type, chosen, sentence, asked_unit(question), asked_counter(question))
    typewords = type_word_terms(index, reading.expected_type, language) if typed else set()
    evidence = evidence | typewords
    # a number inside a range the evidence states ("8th month" in "within the first 12 months")
    ranged = frozenset(t for word in ranged_numbers(question, texts)
                       for t, _s, _e in index.analyzer.analyze(word, language) if t in terms)
    evidence = evidence | ranged
    # the amount a stated rate with bounds applies to ("on a USD 2,000 remittance" beside "0.10% of the amount")
    based = rate_bases(question, texts) if reading.expected_type in FEE_TYPES else ()
    base_terms = frozenset(t for word in based for t, _s, _e in index.analyzer.analyze(word, language) if t in terms)
    evidence = evidence | base_terms
    rules = options.search.synonyms
    synonyms = synonym_cover(index.analyzer, language, tuple(t for t in terms if t not in evidence), evidence, rules)
    covered = tuple(t for t in terms if t in evidence or t in synonyms)
    if base_terms and any(t not in covered for t in terms if t not in base_terms):
        # a fee is computed only for what the evidence fully covers: not 境内取现's rate for "境外取现人民币500元"
        evidence = evidence - base_terms  # (a base is a number, never in the question's other words)
        covered = tuple(t for t in covered if t in evidence or t in synonyms)
        based, base_terms = (), frozenset()

    known = [idfs[t] for t in terms if idfs[t] is not None]
    unseen_cjk_weight = math.fsum(known) / len(known) if known else bm25_idf(count, 0)

    def weight(term: str) -> float:
        idf = idfs[term]
        if idf is not None:
            return idf
        return unseen_cjk_weight if HAS_CJK.search(term) else bm25_idf(count, 0)

    # the bound words' terms the evidence lacks, though it states the limit asked, are left
    # out of the coverage as scaffolding is (``险最`` of ``车险最多`` beside ``上限``)
    left_out = frozenset(t for t in framed if t in terms and t not in covered)
    total = math.fsum(weight(t) for t in terms if t not in left_out)
    coverage = math.fsum(weight(t) for t in covered) / total
    sentence_coverage = None
    conflicts: tuple[str, ...] = ()
    opposed: tuple[str, ...] = ()
    bare = False
    attribute: tuple[str, ...] = ()
    head: tuple[str, ...] = ()
    substituted: tuple[str, ...] = ()
    other_bound: tuple[str, ...] = ()
    if sentence is not None:
        if side is not None and states_only_other(sentence.text, side):
            other_bound = stated_words(sentence.text, other_side(side))
        # a sentence stating the asked limit says what is asked, though the bound words are all the question adds
        asked_here = tuple(t for t in terms if t not in inside and t not in framed)
        bare = reading.expected_type in TYPED and not (framed and states(sentence.text, side)) and (
            is_bare(index, language, asked_here, sentence, rules) if asked_here or not framed else True)
        attribute = lacks_attribute(index, question, language, terms, sentence, names, rules)
        head = missing_head(index, question, language, terms, sentence, names, typewords, rules)
        local = sentence_evidence(index, sentence, names) | typewords
        local = local | frozenset(t for t in ranged if ranged_numbers(question, [sentence.text]))
        local = local | (base_terms if rate_bases(question, [sentence.text]) else frozenset())
        conflicts = (conflicting_numbers(question, sentence, local) or other_day(index, question, sentence, chosen, hits)
                     or other_units(question, reading.expected_type, sentence.text)
                     or other_counts(question, reading.expected_type, sentence.text))
        local_synonyms = synonym_cover(index.analyzer, language, tuple(t for t in terms if t not in local), local, rules)
        sentence_coverage = math.fsum(weight(t) for t in terms
                                      if (t in local or t in local_synonyms) and t not in left_out) / total
        question_terms = frozenset(t for t, _s, _e in question_tokens)
        opposed = opposed_terms(index.analyzer, language, tuple(t for t in terms if t not in local and t not in local_synonyms),
                                local, question_terms) + contained_opposites(index.analyzer, language, question_terms, local)
        if names:  # the right product, another thing of the kind asked ("免费代驾服务" / "免费道路救援服务")
            substituted = substituted_runs(question, question_tokens, frozenset(terms),
                                           frozenset(t for t in terms if t not in local and t not in local_synonyms),
                                           sentence.text)
    # A hybrid hit carries both retrievers' ranks (absent: not in that list);
    # after a single-retriever search, rank with both.
    if top.method == "hybrid":
        found = {result.retriever: result.rank for result in top.retrievers}
        ranks = {method: found.get(method) for method in ("bm25", "tfidf")}
    else:
        ranks = {}
        for method in ("bm25", "tfidf"):
            ranking = index.ranking(question, options=replace(options.search, k=3, method=method))
            ranks[method] = next((r for r, (_d, pid, _s) in enumerate(ranking, start=1) if pid == top.passage_id), None)
    agreement = agreement_of(ranks["bm25"], ranks["tfidf"])
    held = held_group_numbers(index, question, top)  # a date written otherwise (quý III/2026 for quý 3/2026)
    absent = tuple(t for t in missing_numbers(terms, evidence, scaled_numbers(question)) if number_key(t) not in held) + missing_identifiers(
        index, question, language, terms, evidence, chosen
    ) + unwritten_quarters(index, question, top)
    lacking_sides = missing_sides(index, question, language, reading, terms, evidence, hits)
    foreign = other_entities(index, question, sentence)
    unnamed = unnamed_entities(index, question, sentence)
    outside = sentence is not None and all(sentence.document_id != hit.document_id for hit in chosen)
    scope = missing_scope(index.analyzer, question, language, terms, covered)
    predicate = missing_predicate(index.analyzer, question, language, terms, covered)
    asked = tuple(t for t in terms if t not in inside)
    compared = () if sentence is None else reference_terms(index, language, asked, reading.expected_type, sentence.text)
    defined = () if sentence is None else defines_other(index, language, asked, reading.expected_type, sentence.text)
    value = confidence_value(coverage, agreement, bool(absent) or bool(conflicts), not typed, bool(lacking_sides), sentence_coverage,
                             bool(foreign) or bool(unnamed) or bool(opposed) or bare or bool(attribute) or outside
                             or bool(predicate) or bool(compared) or bool(head)
                             or bool(defined) or bool(substituted) or bool(other_bound) or bool(scope))
    missing = surface_words(index.analyzer, question, language, set(terms) - set(covered) - left_out)
    uncalibrated = None
    if calibration is not None:
        uncalibrated, value = value, calibration.apply(value)
    return Confidence(value, coverage, agreement, terms, covered, absent, top.passage_id, threshold, value < threshold,
                      missing, reading.expected_type, typed, reading.scaffolding, lacking_sides,
                      tuple(synonyms[t] for t in sorted(synonyms)), lexicon_label(rules), words,
                      surface_words(index.analyzer, question, language, set(covered)), sentence_coverage, foreign,
                      unnamed, conflicts, opposed, bare,
                      surface_words(index.analyzer, question, language, set(attribute)), top.rank,
                      () if sentence is None else abbreviation_steps(
                          sentence.text, spelled_out(index.analyzer, question, language, terms)), outside,
                      uncalibrated, "" if calibration is None else calibration.label(), predicate,
                      surface_words(index.analyzer, question, language, set(compared)),
                      surface_words(index.analyzer, question, language, set(head)), defined, substituted,
                      tuple(question[s:e] for s, e in bound_spans) if framed else (), other_bound, scope,
                      based if base_terms else ())
