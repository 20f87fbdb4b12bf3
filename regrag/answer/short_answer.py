"""The short answer: the shortest span of an answer's sentences that answers
the question, cited to its characters.

For a question expecting a typed answer (``regrag.answer.question``: amount,
percentage, duration, date, count, figure, party), the candidates are the
spans of that type in the answer's sentences (``regrag.answer.answer_types``),
less those the question itself already says (``6/1/2026`` in "… phiên
6/1/2026?"; a party sharing a capitalised word with the question), and for a
figure question, periods of time (``540 ngày``) unless no sentence holds
another figure; in the
first sentence that has any (for a Chinese "who" question, only the first
sentence), the one nearest to a word of the question wins (distance in
characters; ties: the earlier). A count in number words drops the counted
noun the question names ("bốn" of "bốn quốc gia"), a year question takes the
year of a date. An amount question naming an amount a sentence's rate with
bounds applies to ("… on a USD 2,000 remittance?") takes the bound the
computed fee falls outside of, else the rate (``regrag.answer.applied_rates``;
``working`` records the arithmetic). Otherwise, a Vietnamese or Chinese question asking what
something is called takes a name of the first sentence
(``regrag.answer.names``); else (yes-no, definition, other, or no typed span)
it is the phrase of the first
sentence next to the question's words around its question word
(``regrag.answer.anchored_span``), else the clause of the first
sentence (split at ``, ; :`` and their CJK forms) holding most of the
question's content terms, ties to the shorter, then the earlier, less its
leading and trailing words that the question has too. In a sentence with CJK
text, where bigrams do not mark word edges, that clause is chosen among those
with an unasked run of two characters or more, and the answer is its longest
run (``regrag.answer.cjk_clause``: "林晓舟" of "林晓舟 ，星河科学奖首位北方得主；"
for "星河科学奖首位北方得主是？"); when the question has a question word, the
run is the one bordered by the question's characters around it (within
``NEAR_WIDTH``), among all clauses. A question asking why or how keeps the
clause less its asked edge characters. A span never
cuts a number, a date or a ticker (the type patterns start and end at their
edges; clauses split only at punctuation followed by a space or at CJK
punctuation, never inside ``1,285.6``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from regrag.answer.anchored_span import REASON, anchored_span
from regrag.answer.applied_rates import FEE_TYPES, applied_fee
from regrag.answer.cjk_clause import longest_run, nearest_run, trim_asked, unasked_runs
from regrag.answer.names import asks_name, name_spans
from regrag.answer.answer_types import TYPED, typed_spans
from regrag.answer.question import read_question
from regrag.answer.respectively import respective_span
from regrag.answer.units import (asked_counter, asked_unit, asks_year, counted_words, span_counts, span_has_unit,
                                 year_of)
from regrag.answer.vi_numerals import NUMERAL, word_counts
from regrag.audit.canonical import JsonRecord
from regrag.text.normalize import normalize_term
from regrag.text.question_words import QUESTION_WORDS
from regrag.text.scripts import HAS_CJK

_CLAUSE_END = re.compile(r"[,;:](?=\s)|[，；：、]")
# how far around its question word a question's characters anchor a CJK run: two words of two characters
NEAR_WIDTH = 4
_FIGURE_PART = re.compile(r"[\d.,/:%-]")
_WORDS = re.compile(r"[^\W_]+(?:[.,][^\W_]+)*")
_FUNCTION_WORDS = frozenset(" ".join(QUESTION_WORDS.values()).split())


@dataclass(frozen=True)
class ShortAnswer(JsonRecord):
    """The short answer and exactly where it came from: ``text`` is
    ``document.text[span[0]:span[1]]`` of ``document_id``."""

    text: str
    answer_type: str  # the expected type it was found as, "phrase" (regrag.answer.anchored_span) or "clause"
    document_id: str
    passage_id: str
    span: tuple[int, int]
    sentence: int  # which answer sentence (0 = the first) it is in
    # a fee computed from a stated rate with bounds (regrag.answer.applied_rates): the arithmetic, else ""
    working: str = ""


def short_answer(searcher, question: str, expected_type: str, sentences, terms: frozenset[str]) -> ShortAnswer | None:
    """The short answer from ``sentences`` (the answer's, in order); None without sentences."""
    if not sentences:
        return None
    asked = normalize_term(question)
    unit = asked_unit(question)
    counter = asked_counter(question) if expected_type in ("count", "figure") else None
    # "how many years": first a duration in years in any sentence, then any duration;
    # "bao nhiêu mã": first a count of mã (``41 mã``), then any count
    if expected_type == "duration" and unit is not None:
        passes: tuple = ((unit, None), (None, None))
    elif counter is not None:
        passes = ((None, counter), (None, None))
    else:
        passes = ((None, None),)
    # "tăng bao nhiêu": a figure question asks a quantity, so a period of time (``540 ngày``)
    # answers it only when no sentence holds another figure
    timeless = (True, False) if expected_type == "figure" else (False,)
    counted_after = counted_words(question) if counter is not None else ()
    scaffolding = read_question(question).scaffolding_spans
    # most Chinese names cannot be told from other words (only a transliterated one,
    # "玛丽·麦特琳", can): a later sentence's name is no better than the first sentence's phrase
    searched = sentences[:1] if expected_type == "party" and HAS_CJK.search(question) else sentences
    for no_period, (wanted, counted) in ((t, p) for t in timeless for p in passes) if expected_type in TYPED else ():
        for number, sentence in enumerate(searched):
            fee = applied_fee(question, sentence.text) if expected_type in FEE_TYPES else None
            if fee is not None:  # "… on a USD 2,000 remittance?": the bound that applies, else the rate
                return _cite(sentence, number, *fee.span, expected_type, fee.working)
            positions = _term_positions(searcher, question, sentence.text, terms)
            periods = typed_spans(sentence.text, "duration") if no_period else ()
            spans = [(s, e) for s, e in typed_spans(sentence.text, expected_type)
                     if (s, e) not in periods
                     and normalize_term(sentence.text[s:e]) not in asked
                     and not (expected_type == "party" and _names_asked(sentence.text[s:e], asked))
                     and span_has_unit(sentence.text[s:e], wanted) and span_counts(sentence.text, s, e, counted)]
            if spans:
                respective = respective_span(question, sentence.text, sorted(spans))
                if respective is not None:  # "3期、6期、12期…分别为0.75%、0.70%、0.66%…"
                    return _cite(sentence, number, *respective, expected_type)
                # ties of distance: the count followed by more of the words the question counts
                # ("41 mã giảm sàn", not "312 mã giảm giá", for "bao nhiêu mã giảm sàn")
                # then the one whose clause holds more of the question's words ("Level 2B assets may
                # not exceed 15%" beside "Level 2 assets together may not exceed 40%", for "Level 2B")
                clauses = _clauses(sentence.text)
                start, end = min(spans, key=lambda span: (-_anchored(question, scaffolding, sentence.text, span),
                                                          _distance(span, positions),
                                                          -_followed_by(sentence.text, span[1], counted_after),
                                                          -_clause_hits(span, clauses, positions),
                                                          span[0]))
                if expected_type in ("count", "figure"):
                    end = _drop_counted_noun(question, sentence.text, start, end)
                if expected_type == "party" and HAS_CJK.search(sentence.text[start:end]):
                    start, end = _outside_asked_words(question, sentence.text, start, end)
                if expected_type == "date" and asks_year(question):
                    year = year_of(sentence.text[start:end])
                    start, end = (start + year[0], start + year[1]) if year else (start, end)
                return _cite(sentence, number, start, end, expected_type)
    first = sentences[0]
    if asks_name(question):
        names = [(s, e) for s, e in name_spans(first.text)
                 if normalize_term(first.text[s:e]) not in asked and not _names_asked(first.text[s:e], asked)]
        if names:
            positions = _term_positions(searcher, question, first.text, terms)
            start, end = min(names, key=lambda span: (_distance(span, positions), span[0]))
            return _cite(first, 0, start, end, "name")
    anchored = anchored_span(question, read_question(question), first.text, searcher.analyze_query(question).language)
    if anchored is not None:
        return _cite(first, 0, *anchored, "phrase")
    positions = _term_positions(searcher, question, first.text, terms)
    clauses = _clauses(first.text)

    def best(pool):
        return min(pool, key=lambda c: (-sum(1 for p in positions if c[0] <= p[0] < c[1]), c[1] - c[0], c[0]))

    if HAS_CJK.search(first.text) and not REASON.search(question):  # why and how are answered by a clause
        run = _cjk_run(searcher, question, first.text, clauses, best)
        if run is not None:
            return _cite(first, 0, *run, "clause")
    start, end = _trim(searcher, question, first.text, *best(clauses))
    return _cite(first, 0, start, end, "clause")


def _cjk_run(searcher, question: str, text: str, clauses, best) -> tuple[int, int] | None:
    """In a sentence with CJK text, the unasked run (``regrag.answer.cjk_clause``)
    bordered by the question's characters within ``NEAR_WIDTH`` of its
    question word (``nearest_run``); for a query with no question word, the
    longest run of the clause holding most of the question's terms among the
    clauses with a run of two characters or more. None when no run has two."""
    language, asked = _asked_terms(searcher, question)
    scaffolding = read_question(question).scaffolding_spans
    if scaffolding:
        near = {character for start, end in scaffolding
                for character in question[max(0, start - NEAR_WIDTH):start] + question[end:end + NEAR_WIDTH]
                if HAS_CJK.match(character)}
        return nearest_run(searcher, asked, language, text, clauses, near)
    runs = {clause: unasked_runs(searcher, asked, language, text, *clause) for clause in clauses}
    pool = [clause for clause in clauses if any(e - s >= 2 for s, e in runs[clause])]
    if not pool:
        return None
    return longest_run(runs[best(pool)])


def _asked_terms(searcher, question: str) -> tuple[str, set[str]]:
    """The question's language and its analyzed terms (membership only: never iterated for output)."""
    language = searcher.analyze_query(question).language
    return language, {term for term, _s, _e in searcher.analyzer.analyze(question, language)}


def _outside_asked_words(question: str, text: str, start: int, end: int) -> tuple[int, int]:
    """A CJK name less an edge character that makes a character pair of the
    question with its neighbour outside ("约翰·埃尔维" of "约翰·埃尔维保持" for
    "… 记录保持者"): a name does not run into a word the question uses."""
    while end - start > 1 and end < len(text) and text[end - 1:end + 1] in question:
        end -= 1
    while end - start > 1 and start > 0 and text[start - 1:start + 1] in question:
        start += 1
    return start, end


def _names_asked(name: str, asked: str) -> bool:
    """Whether a named party shares a capitalised word with the question
    ("Super Bowl XXXIII" for "… chơi trong Super Bowl?", "Peyton Manning"
    for "Trước Manning, ai …"): who is asked about is not who answers."""
    words = set(_WORDS.findall(asked))
    return any(word[:1].isupper() and normalize_term(word) in words for word in _WORDS.findall(name))


def _drop_counted_noun(question: str, text: str, start: int, end: int) -> int:
    """The end of a count in number words (``regrag.answer.vi_numerals``)
    less its trailing words that the question already says: "hai" of "hai
    đội" for "bao nhiêu đội", "bốn" of "bốn quốc gia" for "bao nhiêu quốc
    gia". Without a lexicon the noun's extent is a guess, the numeral is not.
    A figure in digits keeps its unit ("48 ha", "1.452,36 điểm")."""
    if (start, end) not in word_counts(text):
        return end
    asked = set(_WORDS.findall(normalize_term(question)))
    words = [(m.start(), m.end()) for m in _WORDS.finditer(text, start, end)]
    numeral = len(NUMERAL.match(text, start).group().split())
    dropped = False
    while len(words) > numeral and normalize_term(text[words[-1][0]:words[-1][1]]) in asked:
        words.pop()
        dropped = True
    return words[-1][1] if dropped else end


def _trim(searcher, question: str, text: str, start: int, end: int) -> tuple[int, int]:
    """The clause less its leading and trailing words that the question also
    has (what the question already says is not the answer); at least one word stays."""
    language, asked = _asked_terms(searcher, question)
    if HAS_CJK.search(text[start:end]):
        return trim_asked(searcher, asked, language, text, start, end)
    words = [(term, s, e) for term, s, e in searcher.analyzer.analyze(text[start:end], language) if " " not in term]
    while len(words) > 1 and words[0][0] in asked:
        words.pop(0)
    while len(words) > 1 and words[-1][0] in asked:
        words.pop()
    if not words:
        return start, end
    new_start, new_end = start + words[0][1], start + words[-1][2]
    # never cut a figure: "4/9/2026" stays whole even if "2026" is a question word
    while new_end < end and _FIGURE_PART.match(text, new_end - 1) and _FIGURE_PART.match(text, new_end):
        new_end += 1
    while new_start > start and _FIGURE_PART.match(text, new_start) and _FIGURE_PART.match(text, new_start - 1):
        new_start -= 1
    return new_start, new_end


def _anchored(question: str, scaffolding, text: str, span: tuple[int, int]) -> int:
    """How many of the question's neighbours of its question word border ``span``
    in ``text`` the same way: in CJK the two characters before and after it
    ("提取多少业绩报酬" and "提取20%作为业绩报酬"), else the word before and after it
    ("tăng bao nhiêu" and "tăng 11,4%")."""
    score = 0
    for start, end in scaffolding:
        if HAS_CJK.search(question[max(0, start - 2):end + 2]):
            left, right = question[max(0, start - 2):start], question[end:end + 2]
            score += (len(left) == 2 and bool(HAS_CJK.search(left)) and text[max(0, span[0] - 2):span[0]] == left)
            score += (len(right) == 2 and bool(HAS_CJK.search(right)) and text[span[1]:span[1] + 2] == right)
        else:
            before_words = _WORDS.findall(question[:start])
            after_words = _WORDS.findall(question[end:])
            text_before = _WORDS.findall(text[:span[0]])
            text_after = _WORDS.findall(text[span[1]:])
            # a question or function word ("có", "the") anchors nothing
            score += bool(before_words and text_before and before_words[-1].casefold() == text_before[-1].casefold()
                          and before_words[-1].casefold() not in _FUNCTION_WORDS)
            score += bool(after_words and text_after and after_words[0].casefold() == text_after[0].casefold()
                          and after_words[0].casefold() not in _FUNCTION_WORDS)
    return score


def _clause_hits(span: tuple[int, int], clauses: list[tuple[int, int]], positions: list[tuple[int, int]]) -> int:
    """How many of the question's word ``positions`` lie in the clause holding ``span``."""
    clause = next(((s, e) for s, e in clauses if s <= span[0] < e), None)
    if clause is None:
        return 0
    return sum(1 for s, _e in positions if clause[0] <= s < clause[1])


def _followed_by(text: str, end: int, words: tuple[str, ...]) -> int:
    """How many of the first ``len(words)`` words after ``end`` in ``text`` are in ``words``."""
    if not words:
        return 0
    after = [w.casefold() for w in _WORDS.findall(text, end)[:len(words)]]
    return sum(1 for word in after if word in words)


def _cite(sentence, number: int, start: int, end: int, kind: str, working: str = "") -> ShortAnswer:
    offset = sentence.span[0]
    return ShortAnswer(sentence.text[start:end], kind, sentence.document_id, sentence.passage_id,
                       (offset + start, offset + end), number, working)


def _term_positions(searcher, question: str, text: str, terms: frozenset[str]) -> list[tuple[int, int]]:
    language = searcher.analyze_query(question).language
    return sorted((s, e) for term, s, e in searcher.analyzer.analyze(text, language) if term in terms)


def _distance(span: tuple[int, int], positions: list[tuple[int, int]]) -> int:
    if not positions:
        return 0
    return min(max(0, s - span[1], span[0] - e) for s, e in positions)


def _clauses(text: str) -> list[tuple[int, int]]:
    """The clauses of a sentence, stripped of surrounding spaces and end punctuation."""
    pieces, start = [], 0
    for match in _CLAUSE_END.finditer(text):
        pieces.append((start, match.start()))
        start = match.end()
    pieces.append((start, len(text)))
    clauses = []
    for s, e in pieces:
        while s < e and text[s].isspace():
            s += 1
        while e > s and (text[e - 1].isspace() or text[e - 1] in ".。!?！？"):
            e -= 1
        if e > s:
            clauses.append((s, e))
    return clauses or [(0, len(text))]
