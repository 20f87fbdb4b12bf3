"""The analyzer identity, pinned: it is hashed into every index id and provenance record.

The strings below were copied from a run of the analyzer before its rules moved into
``regrag/text/rules.py`` (issue 13); they must never change without a new analyzer version.
Only the Unicode version is the running Python's.
"""

from __future__ import annotations

import unicodedata

import pytest

from regrag.audit.canonical import canonical_json
from regrag.text.analyzer import ANALYZER_NAMES, Analyzer

PINNED = {
    name: (
        '{"cjk":"bigrams","name":"%s","normalization":"NFKC+casefold","stemmer":"porter-1980",'
        '"stopwords":"lucene-english-33","unicode":"%s","version":"2"}' % (name, unicodedata.unidata_version)
    )
    for name in ("auto", "en", "vi", "zh")
}
FIELD_ORDER = ["name", "version", "normalization", "stemmer", "stopwords", "cjk", "unicode"]


def test_analyzer_names_are_the_pinned_ones() -> None:
    assert ANALYZER_NAMES == ("auto", "en", "vi", "zh")


@pytest.mark.parametrize("name", sorted(PINNED))
def test_identity_is_byte_identical(name: str) -> None:
    identity = Analyzer(name).identity()
    assert canonical_json(identity) == PINNED[name]
    assert list(identity) == FIELD_ORDER
    assert all(type(value) is str for value in identity.values())
