"""The built-in, versioned synonym set (``--synonyms builtin``), written in
Solr's ``synonyms.txt`` format, and how a synonym set is chosen and recorded.

The built-in set is a small finance and regulation lexicon for English,
Chinese and Vietnamese (``penalty`` ~ ``fine`` ~ ``sanction``, ``kept`` ~
``keep`` ~ ``retain``, ``罚款`` ~ ``罚金``, ``lãi`` ~ ``lợi nhuận``). ``ask``
uses it by default, for its search (``regrag.retrieval.synonym_query``) and
for its coverage (``synonym_cover``); ``search`` only with ``--synonyms
builtin``. ``LEXICON_VERSION`` changes whenever a rule does; the SHA-256 of
the text is recorded with every use (docs/synonyms.md).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

from regrag.errors import InputError
from regrag.text.synonyms import SynonymSet, parse_synonyms, read_synonyms

LEXICON_VERSION = "regrag-lexicon/7"
BUILTIN_NAME = "builtin"
BUILTIN_TEXT = """\
# regrag built-in synonyms (regrag-lexicon/7), Solr synonyms.txt format
# English: penalties, keeping, deadlines, parties, money
penalty, fine, sanction, punished, penalise
kept, keep, retain, retention, stored
deadline, due, no later than
fee, charge, cost
notify, notification, inform, tell, told
supervisor, authority, regulator, commission
company, firm, issuer
customer, client
director, manager, PDMR
stock, share
annual, yearly, each year
monthly, each month
threshold, limit
maximum, not exceed, at most
paid, pay
held, hold
sent, send
given, give
made, make
owner, beneficial owner
define, defined, means, meaning
check, checks, review, reviewed
results, report
reply, response, respond, answer
# Chinese
罚款, 罚金, 处罚
电话, 热线
期限, 时限
撤销, 取消
保费, 保险费
投诉, 申诉
退保, 解除合同
轻症, 轻度疾病
# Vietnamese
lãi, lợi nhuận
phạt, xử phạt
kế hoạch, mục tiêu
nước ngoài, khối ngoại
khuyến nghị, khuyên, khuyến cáo
nắm giữ, giữ
"""
LEXICON_SHA256 = hashlib.sha256(BUILTIN_TEXT.encode("utf-8")).hexdigest()


@lru_cache(maxsize=1)
def builtin_synonyms() -> SynonymSet:
    """The built-in set, named ``builtin``, hashed and versioned."""
    return parse_synonyms(BUILTIN_TEXT, BUILTIN_NAME, LEXICON_SHA256, LEXICON_VERSION)


def resolve_synonyms(spec: str | None) -> SynonymSet | None:
    """``builtin``, ``none`` (None) or the path of a Solr synonyms file."""
    if spec is None or spec == "none":
        return None
    if spec == BUILTIN_NAME:
        return builtin_synonyms()
    return read_synonyms(spec)


def synonyms_record(synonyms: SynonymSet | None) -> dict[str, Any] | None:
    """How a ledger record names the set: its identity, and a file's text so
    a replay needs no file (the built-in set is named by version and hash)."""
    if synonyms is None:
        return None
    record: dict[str, Any] = dict(synonyms.identity())
    if synonyms.name != BUILTIN_NAME or synonyms.version != LEXICON_VERSION:
        record["text"] = synonyms.text
    return record


def synonyms_from_record(record: Any) -> SynonymSet | None:
    """The set a ledger record names (absent or null: none), its hash checked."""
    if record is None:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("sha256"), str):
        raise InputError("malformed record: synonyms is not an object with a sha256")
    if record.get("name") == BUILTIN_NAME and record.get("version") == LEXICON_VERSION and "text" not in record:
        found = builtin_synonyms()
    elif isinstance(record.get("text"), str):
        found = parse_synonyms(record["text"], str(record.get("name", "")))
    else:
        raise InputError(f"malformed record: synonyms {record.get('name')!r} ({record.get('version', '')}) "
                         "has no text and is not this version's built-in set")
    if found.sha256 != record["sha256"]:
        raise InputError(f"the synonyms recorded as {record['sha256'][:16]}… hash to {found.sha256[:16]}…")
    return found


def _single_terms(analyzer, text: str, language: str) -> tuple[str, ...]:
    return tuple(sorted({term for term, _s, _e in analyzer.analyze(text, language) if " " not in term}))


def synonym_cover(analyzer, language: str, missing: tuple[str, ...], evidence: set[str],
                  synonyms: SynonymSet | None) -> dict[str, str]:
    """For each term of ``missing`` that a rule of ``synonyms`` covers:
    ``question word~evidence word`` (an entry and one it stands for, all of
    whose terms are in ``evidence``). Rules are tried in the file's order,
    entries in theirs: the first found wins."""
    found: dict[str, str] = {}
    if synonyms is None:
        return found
    for rule in synonyms.rules:
        for entry, others in rule.mappings():
            terms = _single_terms(analyzer, entry, language)
            if len(terms) != 1 or terms[0] not in missing or terms[0] in found:
                continue
            for other in others:
                other_terms = _single_terms(analyzer, other, language)
                if other_terms and all(t in evidence for t in other_terms):
                    found[terms[0]] = f"{entry}~{other}"
                    break
    return found
