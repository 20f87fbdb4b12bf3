"""The order in which the short answer searches the candidate sentences
(docs/answers.md, "The short answer"): the evidence passage's sentences first,
then the answer's, each group kept in support order, except that a sentence
with a reason to doubt it goes after those without.

The keys, in order (``order_pool``; a stable sort, so ties keep their place):

1. in a document about several entities, a sentence naming none of the
   question's entities (``unnamed_entities``), when the question names one;
2. a sentence giving another number of what the question fixes (12期 for
   24期, ``conflicting_numbers``), a figure compared with what is asked
   (``regrag.answer.comparisons``), or, for a question asking a limit, a
   sentence stating only the other limit (``regrag.answer.bounds``);
3. a sentence saying nothing of what is asked beyond the entity's name
   (``is_bare``), lacking the attribute asked (``lacks_attribute``) or the
   head noun of an English what/which question (``regrag.answer.head_noun``),
   or defining another term than the one asked (``regrag.answer.definitions``);
4. a sentence whose question terms another sentence of its document holds
   all of, and more (``holds_less``).
"""

from __future__ import annotations

from regrag.answer.answer_types import has_type
from regrag.answer.bounds import asked_bound, states_only_other
from regrag.answer.comparisons import reference_terms
from regrag.answer.definitions import defines_other
from regrag.answer.evidence import named_in_question
from regrag.answer.head_noun import missing_head
from regrag.answer.requirements import (conflicting_numbers, is_bare, lacks_attribute, sentence_evidence,
                                        type_word_terms, unnamed_entities)


def order_pool(searcher, question: str, reading, pool: list, rules) -> list:
    """``pool`` (answer sentences, in search order) ordered by the keys of the
    module docstring; ``reading`` is the question's first confidence
    (its content terms and expected type), ``rules`` the synonym set in use."""
    language = searcher.analyze_query(question).language
    kind = reading.expected_type
    terms = reading.content_terms
    named = bool(searcher.entity_catalog.match(question))
    names, inside = named_in_question(searcher, question, language)
    asked = tuple(t for t in terms if t not in inside)
    typewords = type_word_terms(searcher, kind, language)
    outheld = {id(s) for s in pool if holds_less(s, pool)}  # looked up only, never iterated
    side, _spans = asked_bound(question)

    def key(sentence) -> tuple[bool, bool, bool, bool]:
        return (named and bool(unnamed_entities(searcher, question, sentence)),
                bool(conflicting_numbers(question, sentence, sentence_evidence(searcher, sentence, {})))
                or bool(reference_terms(searcher, language, asked, kind, sentence.text))
                or (side is not None and states_only_other(sentence.text, side)),
                is_bare(searcher, language, asked, sentence, rules)
                or bool(lacks_attribute(searcher, question, language, terms, sentence, names, rules))
                or bool(missing_head(searcher, question, language, terms, sentence, names,
                                     typewords if has_type(sentence.text, kind) else set(), rules))
                or bool(defines_other(searcher, language, asked, kind, sentence.text)),
                id(sentence) in outheld)

    return sorted(pool, key=key)


def holds_less(sentence, pool: list) -> bool:
    """Whether another sentence of ``sentence``'s document in ``pool`` holds
    every question term it holds, and more ("sản lượng container 7 tháng đầu
    năm 2026 của VPQ đạt 1,18 triệu TEU" beside "… 1/7/2026, VPQ áp dụng giá
    xếp dỡ container …"): it is the less supported reading of that document."""
    mine = set(sentence.matched_terms)
    return any(other.document_id == sentence.document_id and set(other.matched_terms) > mine for other in pool)
