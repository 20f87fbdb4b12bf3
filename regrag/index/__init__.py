"""The inverted index: parameters, build, statistics."""

from regrag.index.build import InvertedIndex, build_index
from regrag.index.parameters import IndexParameters

__all__ = ["IndexParameters", "InvertedIndex", "build_index"]
