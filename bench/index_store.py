"""Index directory figures on a BEIR corpus: build, save, size, open, verify,
and an incremental update of N changed documents against a full rebuild.

    python3 bench/index_store.py ../shared/data/scifact --changed 50

The update replaces ``changed`` documents (evenly spread, each gets one
extra sentence) and publishes them as one new segment plus deletions
(docs/index-format.md, "Segments"); the script checks that the updated
generation equals a fresh index of the same final corpus: index id, Merkle
root, the single-index bytes of the whole view (``codec.serialise``, format
``codec.STORAGE_FORMAT``, regrag-index/3 today) and the
hits of 50 queries for every method. It then times open and queries of the
one-segment and the segmented generation side by side, and reports their
sizes (files of the new generation that are links to an earlier one are
counted apart). ``--updates N`` chains N such updates (new documents
changed each time) to measure many segments.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from regrag.corpus.load import load_corpus
from regrag.engine import Index
from regrag.index.codec import STORAGE_FORMAT
from regrag.index.verify import verify_store


def _size(directory: Path) -> int:
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())


def _new_bytes(directory: Path) -> int:
    """Bytes of the files only this generation holds (not hard links to an earlier one)."""
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file() and path.stat().st_nlink == 1)


def _query_seconds(index: Index, queries: list[str], method: str) -> float:
    started = time.process_time()
    for query in queries:
        index.search(query, k=10, method=method)
    return (time.process_time() - started) / len(queries)


def _changed(documents, picked: set[int], round_number: int):
    extra = " An added sentence about revision number %d.%d." 
    out = []
    for i, d in enumerate(documents):
        if i not in picked:
            out.append(d)
            continue
        sentence = extra % (i, round_number)
        out.append(dataclasses.replace(d, text=d.text + sentence, sections=tuple(
            dataclasses.replace(s, end=s.end + len(sentence)) if s.end == len(d.text) else s for s in d.sections)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", help="BEIR folder, JSONL file or folder of documents")
    parser.add_argument("--changed", type=int, default=50, help="documents changed by each update (default 50)")
    parser.add_argument("--updates", type=int, default=1, help="updates in a row (default 1)")
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
        final = documents
        update_seconds = []
        for round_number in range(arguments.updates):
            picked = set(sorted(range(round_number, len(documents), step))[: arguments.changed])
            final = _changed(final, picked, round_number)
            started = time.perf_counter()
            started_cpu = time.process_time()
            current = Index.open(root / "index")
            upserts, deletions = current.changes_to(final)
            updated = current.updated(upserts, deletions)
            updated_generation = updated.save(root / "index")
            update_seconds.append((time.perf_counter() - started, time.process_time() - started_cpu))
        started = time.perf_counter()
        started_cpu = time.process_time()
        rebuilt = Index.from_documents(final)
        rebuilt.save(root / "fresh")
        rebuild_seconds = (time.perf_counter() - started, time.process_time() - started_cpu)

        from regrag.index import codec

        segmented = Index.open(root / "index")
        fresh = Index.open(root / "fresh")
        queries = [d.title for d in documents[:: max(1, len(documents) // 50)]][:50]
        same_results = all(
            [h.to_json() for h in segmented.search(q, k=10, method=m)] == [h.to_json() for h in fresh.search(q, k=10, method=m)]
            for q in queries for m in ("bm25", "tfidf", "hybrid"))
        same_bytes = codec.serialise(segmented.inverted, "x") == codec.serialise(rebuilt.inverted, "x")
        same_ids = (segmented.index_id, segmented.corpus_root) == (rebuilt.index_id, rebuilt.corpus_root)
        segment_count = len(getattr(segmented.inverted, "segments", ())) or 1
        opens = {}
        for label, path in (("one segment", root / "fresh"), (f"{segment_count} segments", root / "index")):
            started = time.perf_counter()
            for _ in range(5):
                Index.open(path)
            opens[label] = (time.perf_counter() - started) / 5
        latency = {}
        for label, path in (("one segment", root / "fresh"), (f"{segment_count} segments", root / "index")):
            index_ = Index.open(path)  # a fresh process's state: no term gathered or scored yet
            index_.search("warm up the analyzer", k=10, method="bm25")
            for method in ("bm25", "hybrid"):
                first = _query_seconds(index_, queries, method)  # first use: terms gathered and scored
                latency[(label, method)] = (first, _query_seconds(index_, queries, method))
        generation_dir = root / "index" / "generations" / f"{updated_generation.number:06d}"
        updated_size, updated_new = _size(generation_dir), _new_bytes(generation_dir)
        fresh_size = _size(root / "fresh" / "generations" / "000001")

    print(f"corpus: {arguments.corpus}  ({len(documents)} documents, {index.passage_count} passages)")
    print(f"build in memory        {build:8.2f} s")
    print(f"save (write + fsync)   {save:8.2f} s")
    print(f"on-disk size           {size / 1e6:8.1f} MB")
    print(f"open (verify hashes)   {open_seconds:8.2f} s")
    print(f"verify --quick         {quick_seconds:8.2f} s")
    print(f"verify (full)          {full_seconds:8.2f} s")
    for number, (wall, cpu) in enumerate(update_seconds, start=1):
        print(f"update {number}: {len(upserts)} replaced + {len(deletions)} deleted, open + update + save: "
              f"{wall:.2f} s wall, {cpu:.2f} s CPU")
    wall, cpu = update_seconds[-1]
    print(f"full rebuild + save of the same final corpus: {rebuild_seconds[0]:.2f} s wall, {rebuild_seconds[1]:.2f} s CPU"
          f"  (update / rebuild: {wall / rebuild_seconds[0]:.3f} wall, {cpu / rebuild_seconds[1]:.3f} CPU)")
    print(f"updated generation: {segment_count} segments; index id and root as the rebuild: {same_ids}; "
          f"{STORAGE_FORMAT} bytes of the view as the rebuild: {same_bytes}; hits of {len(queries)} queries x 3 methods: {same_results}")
    for label, seconds in opens.items():
        print(f"open, {label:12}  {seconds * 1000:8.1f} ms")
    for (label, method), (first, repeated) in latency.items():
        print(f"{method:6} top-10, {label:12} {first * 1000:8.2f} ms CPU per query first, {repeated * 1000:6.2f} ms repeated")
    print(f"on disk: rebuilt {fresh_size / 1e6:.1f} MB; updated generation {updated_size / 1e6:.1f} MB, "
          f"of which {updated_new / 1e6:.2f} MB new (the rest hard links to earlier generations)")


if __name__ == "__main__":
    main()
