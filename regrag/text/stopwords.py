"""Lucene's English stopword set (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``).

The 33 words Lucene removes by default, which Pyserini's BM25 baselines use.
"""

LUCENE_ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    (
        "a an and are as at be but by for if in into is it no not of on or "
        "such that the their then there these they this to was will with"
    ).split()
)

STOPWORD_SET_NAME = "lucene-english-33"
