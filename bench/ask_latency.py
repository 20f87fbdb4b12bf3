"""Time `Index.ask` on the sample corpora, after the index is loaded.

    python3 bench/ask_latency.py

For each corpus: build the index, ask every labelled question once (cold:
nothing cached), then once more (warm), and print the mean milliseconds per
question of each pass. Single thread; absolute figures vary between runs.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from regrag import Index  # noqa: E402
from regrag.eval.run import load_labelled_set  # noqa: E402


def main() -> int:
    for name in ("product-manuals", "regulations", "vn-stock-news"):
        labelled = load_labelled_set(REPO / "corpora" / name)
        index = Index.from_path(labelled.corpus_path)
        questions = list(labelled.queries.values())
        timings = []
        for _pass in ("cold", "warm"):
            started = time.perf_counter()
            for question in questions:
                index.ask(question)
            timings.append(1000 * (time.perf_counter() - started) / len(questions))
        print(f"{name:<16} {len(questions):>4} questions  cold {timings[0]:.2f} ms  warm {timings[1]:.2f} ms per ask")
    return 0


if __name__ == "__main__":
    sys.exit(main())
