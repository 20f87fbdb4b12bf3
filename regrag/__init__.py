"""regrag: deterministic, audit-grade retrieval (BM25 + TF-IDF + RRF) with provenance."""

from regrag._version import __version__
from regrag.engine import DEFAULT_CORPUS, Index
from regrag.errors import InputError, RegragError
from regrag.index.parameters import IndexParameters
from regrag.retrieval.methods import METHODS
from regrag.retrieval.options import SearchOptions
from regrag.text.analyzer import Analyzer



def __getattr__(name: str):
    """``AskOptions`` imported on first use (PEP 562): the answer modules cost
    a ``regrag search`` tens of milliseconds it does not need."""
    if name == "AskOptions":
        from regrag.answer.options import AskOptions

        return AskOptions
    raise AttributeError(f"module 'regrag' has no attribute {name!r}")


__all__ = [
    "Analyzer", "AskOptions", "DEFAULT_CORPUS", "Index", "IndexParameters", "InputError", "METHODS", "RegragError",
    "SearchOptions", "__version__",
]
