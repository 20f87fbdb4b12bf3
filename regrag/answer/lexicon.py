"""A small built-in, versioned lexicon of finance and regulation synonyms,
used by ``ask``'s coverage only (never by ``search``: rankings do not move).

Each group lists words or phrases that a question and a regulation or
manual use for the same thing (``penalty`` ~ ``fine`` ~ ``sanction``,
``kept`` ~ ``keep`` ~ ``retain``, ``罚款`` ~ ``罚金``, ``lãi`` ~ ``lợi nhuận``).
A content term of the question counts as covered when it is not in the
evidence but every term of another member of one of its groups is; the
confidence record lists each such step as ``question word~evidence word``,
so the step is visible and recorded. The groups are analysed with the
question's own rules at use time (stems match stems). ``LEXICON_VERSION``
changes whenever a group does.
"""

from __future__ import annotations

from regrag.audit.canonical import sha256_hex

LEXICON_VERSION = "regrag-lexicon/1"
GROUPS: tuple[tuple[str, ...], ...] = (
    # English: penalties, keeping, deadlines, parties, money
    ("penalty", "fine", "sanction", "punished", "penalise"),
    ("kept", "keep", "retain", "retention", "stored"),
    ("deadline", "due", "no later than"),
    ("fee", "charge", "cost"),
    ("notify", "notification", "inform", "tell", "told"),
    ("supervisor", "authority", "regulator", "commission"),
    ("company", "firm", "issuer"),
    ("customer", "client"),
    ("director", "manager", "PDMR"),
    ("stock", "share"),
    ("annual", "yearly", "each year"),
    ("monthly", "each month"),
    ("threshold", "limit"),
    ("paid", "pay"), ("held", "hold"), ("sent", "send"), ("given", "give"), ("made", "make"),
    ("owner", "beneficial owner"),
    ("reply", "response", "respond", "answer"),
    # Chinese
    ("罚款", "罚金", "处罚"),
    ("电话", "热线"),
    ("期限", "时限"),
    ("撤销", "取消"),
    ("保费", "保险费"),
    ("投诉", "申诉"),
    ("退保", "解除合同"),
    # Vietnamese
    ("lãi", "lợi nhuận"),
    ("phạt", "xử phạt"),
    ("kế hoạch", "mục tiêu"),
    ("nước ngoài", "khối ngoại"),
)
LEXICON_SHA256 = sha256_hex({"groups": [list(group) for group in GROUPS], "version": LEXICON_VERSION})


def _single_terms(analyzer, text: str, language: str) -> tuple[str, ...]:
    return tuple(sorted({term for term, _s, _e in analyzer.analyze(text, language) if " " not in term}))


def synonym_cover(analyzer, language: str, missing: tuple[str, ...], evidence: set[str]) -> dict[str, str]:
    """For each term of ``missing`` that a lexicon group covers: ``question
    word~evidence word`` (the two group members). Groups are tried in their
    order, members in theirs: the first member found wins."""
    found: dict[str, str] = {}
    for group in GROUPS:
        analysed = [(member, _single_terms(analyzer, member, language)) for member in group]
        for member, terms in analysed:
            if len(terms) != 1 or terms[0] not in missing or terms[0] in found:
                continue
            for other, other_terms in analysed:
                if other != member and other_terms and all(t in evidence for t in other_terms):
                    found[terms[0]] = f"{member}~{other}"
                    break
    return found
