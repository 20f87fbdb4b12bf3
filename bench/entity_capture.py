"""Hostile entity metadata (issue 12): capture of queries, and matching time.

    python3 bench/entity_capture.py capture            # bundled corpus + one document aliasing common words
    python3 bench/entity_capture.py scifact [FOLDER]   # SciFact, one document aliasing (and containing) its 300 commonest words
    python3 bench/entity_capture.py slow [FOLDER]      # SciFact, 2,000 documents x 100 aliases: query times

FOLDER is the SciFact BEIR folder (default ../shared/data/scifact beside the
repository), read by path; the hostile corpora are built in memory, nothing
is written. Figures before and
after the fix are in docs/entities.md ("Which names are used").
"""

from __future__ import annotations

import collections
import json
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from regrag import Index  # noqa: E402
from regrag.corpus.load import load_corpus  # noqa: E402
from regrag.corpus.model import Document, Section  # noqa: E402

SCIFACT = Path(sys.argv[2]) if len(sys.argv) > 2 else REPO.parent / "shared" / "data" / "scifact"
COMMON = "the|of|is|what|fee|rate|account|interest|monthly"


def _with(document: Document, text: str | None = None, **metadata: str) -> Document:
    text = document.text if text is None else text
    sections = document.sections if text is document.text else (Section("", 0, len(text)),)
    return Document(document.id, document.title, text, sections, tuple(sorted(dict(document.metadata, **metadata).items())),
                    document.source)


def capture() -> None:
    documents = list(load_corpus(REPO / "regrag" / "data" / "default_corpus").documents)
    text = "This is what the weather was like."
    documents.append(Document("zz-hostile.md", "", text, (Section("", 0, len(text)),), (("product_aliases", COMMON),), "t"))
    answer = Index.from_documents(documents).ask("what is the interest rate")
    step = answer.hits[0].entities if answer.hits else None
    print(f"restricted: {bool(step and step.applied)}  top: {answer.hits[0].document_id}  "
          f"confidence {answer.confidence.value:.2f}  found {answer.found}")


def scifact() -> None:
    documents = list(load_corpus(SCIFACT).documents)
    counts = collections.Counter(w for d in documents for w in set(re.findall(r"[a-z]+", d.text.lower())))
    words = [w for w, _c in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:300]]
    documents[0] = _with(documents[0], documents[0].text + " " + " ".join(words), product_aliases="|".join(words))
    index = Index.from_documents(documents)
    queries = {json.loads(line)["_id"]: json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").open()}
    judged = sorted({line.split("\t")[0] for line in (SCIFACT / "qrels" / "test.tsv").read_text().splitlines()[1:]})
    only = 0
    for query_id in judged[:200]:
        hits = index.search(queries[query_id], k=10, method="bm25")
        only += bool(hits) and {h.document_id for h in hits} == {documents[0].id}
    print(f"200 test queries: {only} returned only the hostile document")


def slow() -> None:
    documents = list(load_corpus(SCIFACT).documents)
    plain = Index.from_documents(documents)
    hostile = Index.from_documents(
        [_with(d, product_aliases="|".join(f"alias{i}x{j}" for j in range(100))) if i < 2000 else d
         for i, d in enumerate(documents)])
    query = "0-dimensional biomaterials lack inductive properties."

    def best(function, repeat: int = 10) -> float:
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            function()
            times.append(time.perf_counter() - started)
        return min(times)

    print(f"first query (builds the catalog): {best(lambda: hostile.search(query), 1):.2f} s")
    plain.search(query)
    print(f"per query, best of 10: plain {best(lambda: plain.search(query)):.4f} s, "
          f"hostile {best(lambda: hostile.search(query)):.4f} s")
    long = ("fee rate alias7x7 " * 600)[:10_000]
    print(f"matching a 10,000-character query: {best(lambda: hostile.entity_catalog.match(long), 1):.3f} s")


if __name__ == "__main__":
    {"capture": capture, "scifact": scifact, "slow": slow}[sys.argv[1] if len(sys.argv) > 1 else "capture"]()
