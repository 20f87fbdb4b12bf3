"""The version of the rules by which ``ask`` answers.

``ANSWER_RULES`` names the rules that read a question, choose the evidence
passage, the sentences and the short answer, and measure the confidence.
Every answer carries it (``answer_rules`` in ``Answer.to_dict()``), and so
does every ledger record of ``ask``: when a replay comes back different, it
can say whether the answer rules changed since the record was made, rather
than leave an auditor to guess whether the index or the engine moved.

It changes whenever a change to those rules changes an answer. The golden
answer files (``golden/answers/``) hold every sample-corpus question's answer
with the version it was made under; ``bench/record_golden.py --answers``
refuses to record a changed answer under an unchanged version, and the test
suite fails until a changed answer is recorded (``docs/golden.md``).
"""

from __future__ import annotations

#: The current answer rules. History: ``regrag-answer/1`` (2026-12-06), the
#: first versioned rules; records made before it carry no ``answer_rules``.
#: ``regrag-answer/2`` (2026-12-07): more English and Vietnamese function words
#: are no content terms (``someone``, ``still``, ``vào``, ``ở``, ...), and a
#: quarter asked with its year (``quý II/2026``) must be written so in the
#: evidence passage's document. ``regrag-answer/3`` (2026-12-07): a word in
#: capitals counts as the question's words it abbreviates (``LCR``), recorded in
#: ``confidence.abbreviations``; "what minimum net stable funding ratio" expects
#: a percentage (four words before the type word, not three). ``regrag-answer/4``
#: (2026-12-07): the numbers of a slash date the evidence passage holds as a date
#: are not missing (``3`` of "quý 3/2026" beside ``quý III/2026``).
#: ``regrag-answer/5`` (2026-12-07): a cited sentence from a document no evidence
#: passage is from halves the confidence (``confidence.outside_evidence``).
#: ``regrag-answer/6`` (2026-12-07): a capitalised word just after an entity name
#: ("RiverPost Business") must be in the evidence, as an identifier must.
#: ``regrag-answer/7`` (2026-12-07): a cited sentence giving durations only in
#: another unit than the one asked conflicts (``year~10 business days``).
#: ``regrag-answer/8`` (2026-12-07): ``几座`` asks a count of seats (``9座``).
#: ``regrag-answer/9`` (2026-12-07): the short answer of "bao nhiêu <noun>" first
#: looks for a number of that noun (``2,1 điểm``, not ``28.800 đồng/cổ phiếu``);
#: a number and a Vietnamese syllable are no English count (``25 thi`` of ``25 thi thể``);
#: an interrogative with a capital inside a sentence is part of a name (``Doctor Who``).
#: ``regrag-answer/10`` (2026-12-07): the confidence record gains ``uncalibrated`` and
#: ``calibration`` (``null`` and ``""`` without a calibration map, docs/calibration.md);
#: no value changes without a map. ``regrag-answer/11`` (2026-12-07): a cited sentence whose
#: figures are all periods of time conflicts with "bao nhiêu <noun>" (``loài~515 triệu``).
#: ``regrag-answer/12`` (2026-12-07): the verb an English question asks about
#: ("keep", "respond") must be covered by the evidence (``confidence.missing_predicate``).
#: ``regrag-answer/13`` (2026-12-07): in the short answer's pool, a sentence whose question
#: terms another sentence of its document holds all of, and more, goes after it; a figure
#: question takes a period of time (``540 ngày``) only when no sentence holds another figure;
#: in a document about several entities a sentence is about the question's entity when it or
#: its own section heading names it (no longer the document title, which names several);
#: ``HOSE``, ``HNX`` and ``UPCoM`` are opposites (``regrag-opposites/2``); lexicon
#: ``regrag-lexicon/4`` adds ``maximum, not exceed, at most``.
#: ``regrag-answer/14`` (2026-12-07): a CJK bigram overlapping a Chinese function word
#: (``CJK_FUNCTION_WORDS``: ``虽然``, ``他们``, ``通常`` …) is no content term.
#: ``regrag-answer/15`` (2026-12-07): a typed question's figure stated before a comparison
#: ("64.000 đồng/cổ phiếu, cao hơn 3,2% so với giá đóng cửa") does not answer for the
#: comparison's reference (``regrag.answer.comparisons``); a Vietnamese attribute of several
#: syllables is held by one of its syllable pairs; "biên … bao nhiêu" expects a percentage;
#: the head noun of an English what/which question must be held by the cited sentence
#: (``regrag.answer.head_noun``); a definition question's evidence is the passage defining the
#: asked term (``regrag.answer.definitions``); a Chinese question's verb after a modal
#: ("可以修改") must be covered; notes and coins, gold and platinum, 金卡 and 白金卡 are
#: opposites (``regrag-opposites/3``); lexicon ``regrag-lexicon/5`` adds ``define, defined,
#: means, meaning``.
#: ``regrag-answer/16`` (2026-12-07): rather than take the short answer from another document,
#: the evidence passage's sentences below the support cut holding a span of the expected type
#: are tried first (``regrag.answer.sentence_pool`` orders the pool); among spans equally near
#: the question's words, a count followed by more of the words the question counts wins
#: ("41 mã giảm sàn" for "bao nhiêu mã giảm sàn").
#: ``regrag-answer/17`` (2026-12-07): a question's whole number written before a scale word
#: (``5000万元``, ``50 triệu``, ``3 million``) is found where the evidence writes its value in
#: digits (``50,000,000``); lexicon ``regrag-lexicon/6`` adds ``check, checks, review, reviewed``
#: and ``results, report``.
#: ``regrag-answer/18`` (2026-12-07): a list answered "respectively" ("3期、6期、12期和24期的
#:每期手续费率分别为0.75%、0.70%、0.66%和0.64%") gives the value paired with the key the
#: question names (``regrag.answer.respectively``); among typed spans equally near the
#: question's words, the one whose clause holds more of them wins ("Level 2B assets may not
#: exceed 15%" beside "Level 2 assets together may not exceed 40%").
#: ``regrag-answer/19`` (2026-12-07): among a sentence's typed spans, the one bordered like the
#: question's word: the two CJK characters, or the content word, before and after the question
#: word ("提取多少业绩报酬": ``20%`` of "提取20%作为业绩报酬", not the ``3.35%`` before it).
#: ``regrag-answer/20`` (2026-12-07): a keyword query ending with a period's name (``有效期``,
#: ``冷静期``, "waiting period") expects a duration, one ending with a phone word (``电话``,
#: "hotline") a figure.
#: ``regrag-answer/21`` (2026-12-07): the confidence's evidence also holds the passage of the
#: sentence giving the short answer when that passage is another hit of the evidence passage's
#: document (``regrag.answer.evidence.evidence_hits``).
#: ``regrag-answer/22`` (2026-12-07): when the top hit lacks a content term (and holds the
#: question's numbers), the first lower hit holding every content term is the evidence passage
#: (``regrag.answer.evidence_choice``).
#: ``regrag-answer/23`` (2026-12-07): for a question naming an entity, a cited sentence writing
#: other CJK characters between the neighbours of the question's missing run ("免费道路救援服务"
#: for "免费代驾服务") halves the confidence (``regrag.answer.substitutes``; ``confidence.substituted``).
#: ``regrag-answer/24`` (2026-12-07): a question asking a limit one way (``最多``, ``minimum``,
#: ``tối thiểu``; ``regrag.answer.bounds``): when the evidence states that limit (``上限``,
#: ``以3次为限``, ``up to``), the bound words' terms it lacks are left out of the coverage
#: (``confidence.bound_words``); for a typed answer, the evidence passage is the first hit with a
#: sentence stating the limit beside a span of the type; a sentence stating only the other limit
#: halves the confidence (``confidence.other_bound``) and goes after the others in the short
#: answer's pool; a sentence stating the asked limit is not bare. Lexicon ``regrag-lexicon/7``
#: adds ``轻症, 轻度疾病``.
#: ``regrag-answer/25`` (2026-12-07): a fee charged as a share ("a currency conversion fee of
#: 1.50%", "手续费为0.60%", "phí là 0,15%") is a span of an amount (``regrag.answer.answer_types``).
#: ``regrag-answer/26`` (2026-12-07): a question with no directional bound word but a word of a
#: limit of either direction (``限制``, ``limit``, ``giới hạn``) asks a limit any limit states
#: (``regrag.answer.bounds.EITHER``).
#: ``regrag-answer/27`` (2026-12-07): a question's number of months, days, weeks or years inside a
#: range of the same unit the evidence states ("8th month", "within the first 12 months") is
#: covered (``regrag.answer.ranges``).
#: ``regrag-answer/28`` (2026-12-07): between hits tied with the top one, the one holding more
#: content terms is the evidence passage; "时限/期限/时长是多少" asks a duration; the evidence
#: passage's typed sentences below the support cut are tried when the short answer would come
#: from another passage (another document before).
#: ``regrag-answer/29`` (2026-12-07): an English question's closing scope ("in casinos") the
#: evidence covers none of halves the confidence (``regrag.answer.scope``; ``confidence.missing_scope``).
#: ``regrag-answer/30`` (2026-12-07): an amount question naming the amount a stated rate with a
#: minimum or a maximum applies to ("on a USD 2,000 remittance") covers that amount and is answered
#: by the bound the fee falls outside of, else the rate (``regrag.answer.applied_rates``;
#: ``short_answer.working``, ``confidence.rate_base``).
ANSWER_RULES = "regrag-answer/30"
