"""The three adapter protocols, and the error for a missing optional library.

- ``Embedder``: texts → vectors (lists of floats, one per text).
- ``VectorIndex``: add vectors under string ids, search the top k by L2
  distance, save and load.
- ``Generator``: a prompt → text, with a description for provenance.

Vectors cross the boundary as plain ``list[float]`` so the core and the
standard-library index need no numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Sequence, runtime_checkable

from regrag.errors import RegragError

Vector = list[float]


class MissingExtraError(RegragError):
    """An optional library is not installed; the message names the extra."""

    def __init__(self, library: str, extra: str) -> None:
        super().__init__(f"{library} is not installed; install it with: pip install 'regrag[{extra}]'")
        self.library = library
        self.extra = extra


class AdapterError(RegragError):
    """An adapter failed: a model that cannot be loaded, a server error, a bad response."""


@dataclass(frozen=True)
class VectorHit:
    """One vector-search result: the id, its 1-based rank and its squared L2 distance."""

    id: str
    rank: int
    distance: float


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors of a fixed dimension."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[Vector]: ...


@runtime_checkable
class VectorIndex(Protocol):
    """Exact or approximate nearest neighbours by squared L2 distance."""

    def add(self, ids: Sequence[str], vectors: Sequence[Vector]) -> None: ...

    def search(self, vector: Vector, k: int) -> list[VectorHit]: ...

    def save(self, path: str | Path) -> None: ...

    def __len__(self) -> int: ...


@dataclass(frozen=True)
class Generation:
    """A generator's output and what produced it (recorded in provenance)."""

    text: str
    model: str
    parameters: dict[str, Any]


@runtime_checkable
class Generator(Protocol):
    """Writes text from a prompt."""

    @property
    def model(self) -> str: ...

    def generate(self, prompt: str) -> Generation: ...


def text_batch(texts: Sequence[str]) -> list[str]:
    """The texts an embedder is given, as a list, each checked to be a string
    (a single string is refused: it would be embedded character by character)."""
    from regrag.errors import InputError

    if isinstance(texts, str):
        raise InputError("embed takes a sequence of texts, not a single string")
    batch = list(texts)
    for position, text in enumerate(batch):
        if not isinstance(text, str):
            raise InputError(f"text {position} must be a string, got {type(text).__name__}")
    return batch
