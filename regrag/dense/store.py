"""Passage vectors of one index, quantised, checksummed and bound to the index.

``embed_index(index, embedder)`` embeds every passage (its title, a newline
and its text, cleaned as the embedder declares: ``identity()["preprocessing"]``)
through the embedder's passage side, quantises the vectors
(``regrag.dense.quantise``) and returns ``DenseVectors``. Given the vectors
of an earlier index made with the same embedder (``previous``), a passage
whose cleaned text has the same SHA-256 keeps its stored row, so an update
embeds only new and changed passages. ``progress(done, total)`` is told after
each batch.

On disk (``regrag.dense.generation``), inside the generation they belong
to, under ``dense/``: ``vectors.i8`` (passage rows of signed bytes, in
index position order), ``text_sha256.bin`` (32 bytes a passage: the SHA-256
of the text embedded) and ``manifest.json`` (canonical JSON: format, the
index id and corpus root they belong to, the embedder's identity, dimension,
passage count, the rounding rule, each file's size and SHA-256, and the
dense index id); the generation's manifest lists and checksums the three
files. ``from_files`` checks every byte against this manifest; damage is a
``CorruptDenseError`` naming the file.

The **dense index id** is the SHA-256 of the canonical JSON of the lexical
index id, the embedder's identity, the rounding rule and the SHA-256 of
``vectors.i8``: the index id of dense and fused hits. Lexical hits keep the
lexical index id, so their golden files do not change.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable

from regrag.audit.canonical import canonical_json, sha256_hex
from regrag.dense.quantise import RULE, quantise, to_bytes
from regrag.errors import InputError

FORMAT = "regrag-dense/1"
BATCH = 16
VECTORS, TEXT_HASHES, MANIFEST = "vectors.i8", "text_sha256.bin", "manifest.json"


class CorruptDenseError(InputError):
    """Stored vectors that do not match their manifest, or an index they do not belong to."""


@dataclass(frozen=True)
class DenseVectors:
    """The quantised passage vectors of one index, and what made them."""

    index_id: str
    corpus_root: str
    identity_json: str  # the embedder's identity, canonical JSON
    dimension: int
    data: bytes  # passage_count * dimension signed bytes
    text_hashes: bytes  # passage_count * 32 bytes

    @property
    def identity(self) -> dict[str, Any]:
        return json.loads(self.identity_json)

    @property
    def passage_count(self) -> int:
        return len(self.text_hashes) // 32

    @property
    def vectors_sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def dense_index_id(self) -> str:
        return sha256_hex({"embedder": self.identity, "index_id": self.index_id, "quantisation": RULE,
                           "vectors_sha256": self.vectors_sha256})

    def row(self, position: int) -> bytes:
        return self.data[position * self.dimension : (position + 1) * self.dimension]

    def manifest(self) -> dict[str, Any]:
        return {
            "corpus_root": self.corpus_root,
            "dense_index_id": self.dense_index_id,
            "dimension": self.dimension,
            "embedder": self.identity,
            "files": {name: {"bytes": len(blob), "sha256": hashlib.sha256(blob).hexdigest()}
                      for name, blob in ((TEXT_HASHES, self.text_hashes), (VECTORS, self.data))},
            "format": FORMAT,
            "index_id": self.index_id,
            "passages": self.passage_count,
            "quantisation": RULE,
        }


def embedder_identity(embedder: Any) -> dict[str, Any]:
    """The embedder's ``identity()``; one without it cannot make vectors an auditor can trust."""
    identify = getattr(embedder, "identity", None)
    if not callable(identify):
        raise InputError(f"the embedder {type(embedder).__name__} has no identity(): its vectors could not be "
                         "attributed (use regrag.adapters.e5.E5Embedder or SentenceTransformerEmbedder)")
    return dict(identify())


def cleaning_of(identity: dict[str, Any]):
    """The text cleaning the identity names (``none`` or ``paper``)."""
    from regrag.pipeline.preprocess import Preprocessing

    return Preprocessing.named(str(identity.get("preprocessing", "paper")))


def passage_text(index: Any, position: int) -> str:
    """What a passage is embedded from: its title, a newline, its text (as the pipeline embeds it)."""
    passage = index.passage(position)
    document = index.document(passage.document_id)
    return passage.title + "\n" + document.text[passage.start : passage.end]


def embed_passages(embedder: Any, texts: list[str]) -> list[list[float]]:
    method = getattr(embedder, "embed_passages", None)
    return method(texts) if callable(method) else embedder.embed(texts)


def embed_index(index: Any, embedder: Any, previous: DenseVectors | None = None,
                progress: Callable[[int, int], None] | None = None) -> DenseVectors:
    """Every passage of ``index`` embedded and quantised (module docstring)."""
    identity = embedder_identity(embedder)
    identity_json = canonical_json(identity)
    dimension = int(identity.get("dimension") or embedder.dimension)
    cleaning = cleaning_of(identity)
    texts = [cleaning.apply(passage_text(index, p)) for p in range(index.passage_count)]
    hashes = [hashlib.sha256(text.encode("utf-8")).digest() for text in texts]
    known: dict[bytes, bytes] = {}
    if previous is not None and previous.identity_json == identity_json:
        known = {previous.text_hashes[p * 32 : p * 32 + 32]: previous.row(p) for p in range(previous.passage_count)}
    rows: dict[bytes, bytes] = {}
    missing = sorted({h: t for h, t in zip(hashes, texts) if h not in known}.items())
    total = len(missing)
    for start in range(0, total, BATCH):
        batch = missing[start : start + BATCH]
        vectors = embed_passages(embedder, [text for _h, text in batch])
        for (digest, _text), vector in zip(batch, vectors):
            if len(vector) != dimension:
                raise InputError(f"the embedder returned a vector of {len(vector)} components, not {dimension}")
            rows[digest] = to_bytes(quantise(vector))
        if progress is not None:
            progress(min(start + BATCH, total), total)
    data = b"".join(known[h] if h in known else rows[h] for h in hashes)
    return DenseVectors(index.index_id, index.corpus_root, identity_json, dimension, data, b"".join(hashes))


def from_files(blobs: dict[str, bytes], where: str) -> DenseVectors:
    """The vectors of the three files (``VECTORS``, ``TEXT_HASHES``, ``MANIFEST``: name -> bytes), checked
    against their manifest; ``where`` names the folder in errors (``CorruptDenseError`` naming the file)."""
    try:
        manifest = json.loads(blobs[MANIFEST].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise CorruptDenseError(f"{where}/{MANIFEST}: unreadable ({type(error).__name__}: {error})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CorruptDenseError(f"{where}/{MANIFEST}: not a {FORMAT} manifest")
    for name in (VECTORS, TEXT_HASHES):
        expected = (manifest.get("files") or {}).get(name) or {}
        blob = blobs[name]
        if expected.get("sha256") != hashlib.sha256(blob).hexdigest() or expected.get("bytes") != len(blob):
            raise CorruptDenseError(f"{where}/{name}: its SHA-256 or size differs from {MANIFEST} (damaged)")
    try:
        vectors = DenseVectors(str(manifest["index_id"]), str(manifest["corpus_root"]),
                               canonical_json(manifest["embedder"]), int(manifest["dimension"]),
                               blobs[VECTORS], blobs[TEXT_HASHES])
    except (KeyError, TypeError, ValueError) as error:
        raise CorruptDenseError(f"{where}/{MANIFEST}: malformed ({type(error).__name__}: {error})") from None
    if (vectors.dimension < 1 or len(vectors.data) != vectors.passage_count * vectors.dimension
            or manifest.get("passages") != vectors.passage_count
            or vectors.dense_index_id != manifest.get("dense_index_id")):
        raise CorruptDenseError(f"{where}/{MANIFEST}: its passage count, dimension or dense index id does not "
                                "match the files")
    return vectors


def file_blobs(vectors: DenseVectors) -> dict[str, bytes]:
    """The three files of ``vectors``, by name."""
    return {VECTORS: vectors.data, TEXT_HASHES: vectors.text_hashes,
            MANIFEST: (canonical_json(vectors.manifest()) + "\n").encode("utf-8")}
