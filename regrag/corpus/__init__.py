"""Documents: records, loaders (folders, JSONL, BEIR) and passage splitting."""

from regrag.corpus.load import Corpus, load_corpus
from regrag.corpus.model import Document, Passage, Section

__all__ = ["Corpus", "Document", "Passage", "Section", "load_corpus"]
