"""Index directory figures on a BEIR corpus: build, save, size, open, verify,
and an incremental update of N changed documents against a full rebuild.

    python3 bench/index_store.py ../shared/data/scifact --changed 50

The update replaces ``changed`` documents (every 100th document gets one
extra sentence) and checks that the updated generation's files are byte for
byte those of a fresh index of the same final corpus.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from regrag.corpus.load import load_corpus
from regrag.engine import Index
from regrag.index.verify import verify_store


def _size(directory: Path) -> int:
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", help="BEIR folder, JSONL file or folder of documents")
    parser.add_argument("--changed", type=int, default=50, help="documents changed by the update (default 50)")
    arguments = parser.parse_args()

    documents = list(load_corpus(arguments.corpus).documents)
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        started = time.perf_counter()
        index = Index.from_documents(documents)
        build = time.perf_counter() - started
        started = time.perf_counter()
        generation = index.save(root / "index")
        save = time.perf_counter() - started
        size = _size(root / "index" / "generations" / f"{generation.number:06d}")
        started = time.perf_counter()
        Index.open(root / "index")
        open_seconds = time.perf_counter() - started
        started = time.perf_counter()
        quick = verify_store(root / "index", full=False)
        quick_seconds = time.perf_counter() - started
        started = time.perf_counter()
        full = verify_store(root / "index", full=True)
        full_seconds = time.perf_counter() - started
        assert quick.ok and full.ok

        step = max(1, len(documents) // arguments.changed)
        changed = {i for i in range(0, len(documents), step)}
        changed = set(sorted(changed)[: arguments.changed])
        final = [
            dataclasses.replace(d, text=d.text + " An added sentence about revision number %d." % i,
                                sections=tuple(dataclasses.replace(s, end=s.end + len(" An added sentence about revision number %d." % i)) if s.end == len(d.text) else s for s in d.sections))
            if i in changed else d
            for i, d in enumerate(documents)
        ]
        started = time.perf_counter()
        current = Index.open(root / "index")
        upserts, deletions = current.changes_to(final)
        updated = current.updated(upserts, deletions)
        updated_generation = updated.save(root / "index")
        update_seconds = time.perf_counter() - started
        started = time.perf_counter()
        rebuilt = Index.from_documents(final)
        rebuilt.save(root / "fresh")
        rebuild_seconds = time.perf_counter() - started
        same = all(
            (root / "index" / "generations" / f"{updated_generation.number:06d}" / name.name).read_bytes() == name.read_bytes()
            for name in (root / "fresh" / "generations" / "000001").iterdir()
        )

    print(f"corpus: {arguments.corpus}  ({len(documents)} documents, {index.passage_count} passages)")
    print(f"build in memory        {build:8.2f} s")
    print(f"save (write + fsync)   {save:8.2f} s")
    print(f"on-disk size           {size / 1e6:8.1f} MB")
    print(f"open (verify hashes)   {open_seconds:8.2f} s")
    print(f"verify --quick         {quick_seconds:8.2f} s")
    print(f"verify (full)          {full_seconds:8.2f} s")
    print(f"update {len(upserts)} replaced + {len(deletions)} deleted, open + update + save: {update_seconds:.2f} s")
    print(f"full rebuild + save of the same final corpus: {rebuild_seconds:.2f} s  (ratio {rebuild_seconds / update_seconds:.1f}x)")
    print(f"updated generation byte-identical to the rebuild: {same}")


if __name__ == "__main__":
    main()
