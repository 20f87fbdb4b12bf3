"""Text analysis: normalisation with offsets, tokens, stemming, stopwords, sentences."""

from regrag.text.analyzer import ANALYZER_NAMES, Analyzer
from regrag.text.language import detect_language

__all__ = ["ANALYZER_NAMES", "Analyzer", "detect_language"]
