"""Vietnamese word segmentation by underthesea, as an optional analyzer (``pip install 'regrag[vi]'``).

The published stock-news system segments Vietnamese into words with
underthesea (a CRF trained on VLSP 2013, bundled in its wheel, no download)
before BM25. regrag's own Vietnamese rules index every syllable and every
pair of neighbouring syllables instead, which needs no model. This analyzer
makes the comparison possible (docs/stock-news.md, "Word segmentation").

``WordSegmentedAnalyzer("vi-words")`` gives, for Vietnamese text, one term
per word: a multi-syllable word is the space-joined terms of its syllables
(``ngân hàng``), a one-syllable word its syllable's term.
``"vi-words-syllables"`` gives every syllable's term as well, and the words
of two or more syllables. Syllable terms are exactly those of the built-in
``vi`` rules (normalisation, case folding, numbers and tickers whole), with
the same offsets into the original text; underthesea only decides which
neighbouring syllables form a word. A word span is found by looking its
syllables up in order in the text (underthesea normalises characters; a
word it cannot be aligned with is left as separate syllables). Text of other
languages is analysed by the built-in ``auto`` rules unchanged.

The identity is the built-in analyzer's, with its own ``name`` and the
segmenter's package and version, model name and SHA-256 of the model files:
an index built with it has its own index id, and every hit records it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

from regrag.errors import InputError
from regrag.text.analyzer import Analyzer, Term

WORD_ANALYZERS = ("vi-words", "vi-words-syllables")
MODEL = "ws_crf_vlsp2013_20230727"


class MissingUnderthesea(InputError):
    """underthesea is not installed (``pip install 'regrag[vi]'``)."""


def _segmenter():
    try:
        from underthesea.pipeline.word_tokenize import word_tokenize
    except ImportError:
        raise MissingUnderthesea("the vi-words analyzers need underthesea: pip install 'regrag[vi]'") from None
    return word_tokenize


def _segmenter_identity() -> dict[str, str]:
    from importlib import metadata

    import underthesea.pipeline.word_tokenize as package

    folder = Path(package.__file__).parent / "models" / MODEL
    digest = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        digest.update(path.name.encode("utf-8") + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return {"segmenter": f"underthesea {metadata.version('underthesea')} "
                         f"(underthesea-core {metadata.version('underthesea-core')})",
            "segmenter_model": MODEL, "segmenter_model_sha256": digest.hexdigest()}


class WordSegmentedAnalyzer:
    """An analyzer (``analyze``, ``term_counts``, ``identity``, ``language_of``) with underthesea's words."""

    def __init__(self, name: str = "vi-words") -> None:
        if name not in WORD_ANALYZERS:
            raise InputError(f"unknown word analyzer {name!r}; choose one of {', '.join(WORD_ANALYZERS)}")
        self.name = name
        self.keep_syllables = name == "vi-words-syllables"
        self._segment = _segmenter()
        self._base = Analyzer("auto")
        self._identity = {**self._base.identity(), "name": name, **_segmenter_identity()}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WordSegmentedAnalyzer) and other.identity() == self.identity()

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._identity.items())))

    def identity(self) -> dict[str, str]:
        return dict(self._identity)

    def language_of(self, text: str) -> str:
        return self._base.language_of(text)

    def word_spans(self, text: str) -> list[tuple[int, int]]:
        """[start, end) in ``text`` of each word of two or more syllables underthesea finds."""
        spans: list[tuple[int, int]] = []
        cursor = 0
        for word in self._segment(text, use_token_normalize=False):
            syllables = word.split()
            start = end = None
            position = cursor
            for syllable in syllables:
                found = text.find(syllable, position)
                if found < 0 or (end is not None and text[end:found].strip()):
                    start = None  # not aligned (a normalised character, a gap with text): left as syllables
                    break
                start = found if start is None else start
                end = position = found + len(syllable)
            if start is None or end is None:
                continue
            cursor = end
            if len(syllables) > 1:
                spans.append((start, end))
        return spans

    def analyze(self, text: str, language: str | None = None) -> list[Term]:
        language = language or self.language_of(text)
        if language != "vi":
            return self._base.analyze(text, language)
        syllables = [(term, s, e) for term, s, e in self._base.analyze(text, "vi") if " " not in term]
        spans = self.word_spans(text)
        words: list[int | None] = []  # each syllable's word (its place in spans), None outside every word
        number = 0
        for _term, start, end in syllables:
            while number < len(spans) and spans[number][1] <= start:
                number += 1
            words.append(number if number < len(spans) and spans[number][0] <= start and end <= spans[number][1]
                         else None)
        terms: list[Term] = []
        place = 0
        while place < len(syllables):
            word, last = words[place], place
            while word is not None and last + 1 < len(syllables) and words[last + 1] == word:
                last += 1
            members = syllables[place : last + 1]
            if len(members) == 1 or self.keep_syllables:
                terms.extend(members)
            if len(members) > 1:
                terms.append((" ".join(t for t, _s, _e in members), members[0][1], members[-1][2]))
            place = last + 1
        return terms

    def matches(self, text: str, wanted: frozenset[str], language: str | None = None) -> list[Term]:
        """The terms of ``analyze`` that are in ``wanted``, in its order and with its offsets (provenance)."""
        return [term for term in self.analyze(text, language) if term[0] in wanted]

    def term_counts(self, text: str, language: str | None = None) -> Counter[str]:
        return Counter(term for term, _s, _e in self.analyze(text, language))


def word_analyzer(name: str) -> Any:
    """The analyzer ``name`` names: a built-in one, or a word analyzer (``vi-words``, ``vi-words-syllables``)."""
    return WordSegmentedAnalyzer(name) if name in WORD_ANALYZERS else Analyzer(name)
