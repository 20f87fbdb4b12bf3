"""Analysis speed on a JSONL corpus: the indexing fast path and the full analysis.

    PYTHONPATH=$PWD python3 bench/analysis_speed.py /work/shared/data/scifact/corpus.jsonl --rounds 3

Each round times, over every document's ``title + " " + text``:

- ``term_counts cold``: ``Analyzer.term_counts`` after ``clear_piece_cache()``, as an index build
  runs it (every distinct whitespace-separated piece goes through the ASCII fast path once);
- ``term_counts warm``: the same again, the piece cache full;
- ``analyze``: ``Analyzer.analyze``, the general path (offsets and all).

Prints one line per round and measure (seconds, ``time.perf_counter``) and the best of the
rounds. Compare two checkouts by running this script under each, alternately, on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import time

from regrag.text.analyzer import Analyzer, clear_piece_cache


def load_texts(path: str) -> list[str]:
    """``title + " " + text`` of every record of a BEIR-style corpus file."""
    texts = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            texts.append(f"{record.get('title', '')} {record.get('text', '')}")
    return texts


def timed(function, texts: list[str]) -> float:
    """Seconds to call ``function`` on every text, in order."""
    start = time.perf_counter()
    for text in texts:
        function(text)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--analyzer", default="en")
    arguments = parser.parse_args()
    texts = load_texts(arguments.corpus)
    analyzer = Analyzer(arguments.analyzer)
    best: dict[str, float] = {}
    for number in range(1, arguments.rounds + 1):
        clear_piece_cache()
        results = {
            "term_counts cold": timed(analyzer.term_counts, texts),
            "term_counts warm": timed(analyzer.term_counts, texts),
            "analyze": timed(analyzer.analyze, texts),
        }
        for measure, seconds in results.items():
            best[measure] = min(best.get(measure, seconds), seconds)
            print(f"round {number}  {measure:<17} {seconds:7.3f} s")
    for measure, seconds in best.items():
        print(f"best     {measure:<17} {seconds:7.3f} s")
    clear_piece_cache()


if __name__ == "__main__":
    main()
