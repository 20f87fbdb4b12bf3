"""regrag: deterministic, audit-grade retrieval (BM25 + TF-IDF + RRF) with provenance."""

from regrag._version import __version__
from regrag.answer.options import AskOptions
from regrag.engine import DEFAULT_CORPUS, Index
from regrag.errors import InputError, RegragError
from regrag.index.parameters import IndexParameters
from regrag.retrieval.methods import METHODS
from regrag.retrieval.options import SearchOptions
from regrag.text.analyzer import Analyzer

__all__ = [
    "Analyzer", "AskOptions", "DEFAULT_CORPUS", "Index", "IndexParameters", "InputError", "METHODS", "RegragError",
    "SearchOptions", "__version__",
]
