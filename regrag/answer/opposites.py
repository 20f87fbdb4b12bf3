"""Opposites: a cited sentence that says the opposite of a question's word
(``sell`` for "buy", ``bán`` for "mua", ``unsecured`` for "secured") is
about the other side of what the question asks.

A small, fixed, versioned list of pairs for English, Vietnamese and Chinese
(``OPPOSITES_VERSION``), plus the English negating prefixes ``un`` and
``non`` (``unsecured``, ``non-resident``). ``opposed_terms`` reports, for
each content term of the question missing from the cited sentence's
evidence, the opposite word the sentence holds instead, as
``question word~sentence word``, so the confidence can fall
(``regrag.answer.confidence``). A pure function of the analysed terms.
"""

from __future__ import annotations

from functools import lru_cache

OPPOSITES_VERSION = "regrag-opposites/3"
# each pair, both ways; words as typed, analysed with the question's rules
PAIRS: tuple[tuple[str, str], ...] = (
    ("buy", "sell"), ("bought", "sold"), ("purchase", "sale"), ("inward", "outward"),
    ("increase", "decrease"), ("rise", "fall"), ("secured", "unsecured"),
    ("mua", "bán"), ("tăng", "giảm"), ("lãi", "lỗ"),
    # Vietnam's three stock exchanges: a figure of one is not a figure of another
    ("HOSE", "HNX"), ("HOSE", "UPCoM"), ("HNX", "UPCoM"),
    # cash comes as notes or coins: a fee for one is not a fee for the other
    ("banknotes", "coins"), ("notes", "coins"), ("纸币", "硬币"),
    # card tiers: a gold card's fee is not a platinum card's
    ("gold", "platinum"),
    ("买入", "卖出"), ("增加", "减少"), ("上涨", "下跌"), ("税前", "税后"), ("最高", "最低"),
)
_PREFIXES = ("un", "non")
# a CJK word and a longer word holding it that names something else: the question's
# 金卡 (gold card) is held by 白金卡 (platinum card), bigram for bigram
CONTAINED: tuple[tuple[str, str], ...] = (("金卡", "白金卡"),)


@lru_cache(maxsize=8)
def _pair_terms(analyzer, language: str) -> tuple[tuple[str, str, str], ...]:
    """(question term, opposite term, opposite word) for each pair both ways,
    single-term words only, in the table's order."""
    found = []
    for left, right in PAIRS:
        for word, other in ((left, right), (right, left)):
            terms = [t for t, _s, _e in analyzer.analyze(word, language) if " " not in t]
            others = [t for t, _s, _e in analyzer.analyze(other, language) if " " not in t]
            if len(terms) == 1 and len(others) == 1:
                found.append((terms[0], others[0], other))
    return tuple(found)


def opposed_terms(analyzer, language: str, missing: tuple[str, ...], sentence_terms: set[str],
                  question_terms: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """For each term of ``missing`` (content terms the cited sentence lacks,
    in order) whose opposite the sentence holds and the question itself does
    not (``quyền mua trong đợt chào bán`` has both sides): ``term~opposite``."""
    pairs = _pair_terms(analyzer, language)
    steps = []
    for term in missing:
        opposite = next((word for mine, other, word in pairs
                         if mine == term and other in sentence_terms and other not in question_terms), None)
        if opposite is None and term.isascii() and term.isalpha():
            opposite = next((prefix + term for prefix in _PREFIXES
                             if prefix + term in sentence_terms and prefix + term not in question_terms), None)
        if opposite is not None:
            steps.append(f"{term}~{opposite}")
    return tuple(steps)


def contained_opposites(analyzer, language: str, question_terms: frozenset[str],
                        sentence_terms: set[str]) -> tuple[str, ...]:
    """For each pair of ``CONTAINED`` whose shorter word the question holds
    and whose longer word the cited sentence holds while the question does
    not: ``shorter~longer`` (金卡~白金卡), in the table's order."""
    steps = []
    for shorter, longer in CONTAINED:
        short_terms = [t for t, _s, _e in analyzer.analyze(shorter, language)]
        long_terms = [t for t, _s, _e in analyzer.analyze(longer, language)]
        if (short_terms and all(t in question_terms for t in short_terms)
                and not all(t in question_terms for t in long_terms)
                and all(t in sentence_terms for t in long_terms)):
            steps.append(f"{shorter}~{longer}")
    return tuple(steps)
