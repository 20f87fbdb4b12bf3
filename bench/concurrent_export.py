"""A real exporter rewriting a corpus file while regrag loads it (issue 12, item 1.2).

Another process rewrites a JSONL file over and over (truncate, then write it
in chunks, then a short pause, as an export job does); this process loads it
meanwhile and counts what each load gave: ``complete``, ``refused`` (the
change was seen: "changed while it was read"), ``empty`` (caught just after
the truncation: ``regrag index`` refuses an empty corpus) or ``partial N``
(a shorter, well-formed file that did not change while it was read: the
writer was descheduled mid-export, which no check on the reader's side can
see; ``index --update`` then refuses to delete more than half the documents,
and writers should rename a finished file into place instead).

It is a measurement, not a test: the outcome depends on how the two
processes are scheduled. Before issue 12, 13 of 20 loads returned a partial
corpus; see docs/corpus.md.

    python3 bench/concurrent_export.py --loads 20 --records 1500
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from regrag.corpus.load import load_corpus  # noqa: E402
from regrag.errors import InputError  # noqa: E402

WRITER = (
    "import sys, time\n"
    "lines = open(sys.argv[1]).read().splitlines(keepends=True)\n"
    "chunk, deadline = int(sys.argv[3]), time.monotonic() + float(sys.argv[4])\n"
    "while time.monotonic() < deadline:\n"
    "    with open(sys.argv[2], 'w') as f:\n"
    "        for i in range(0, len(lines), chunk):\n"
    "            f.writelines(lines[i:i + chunk]); f.flush()\n"
    "    time.sleep(0.01)\n"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=20)
    parser.add_argument("--records", type=int, default=1500)
    parser.add_argument("--chunk", type=int, default=25, help="lines the writer writes at a time")
    parser.add_argument("--seconds", type=float, default=30.0, help="the writer stops after this long")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path, source = Path(folder) / "export.jsonl", Path(folder) / "source.txt"
        content = "".join(json.dumps({"id": f"d{i:05d}", "text": f"version {i}"}) + "\n" for i in range(arguments.records))
        path.write_text(content)
        source.write_text(content)
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(source), str(path), str(arguments.chunk),
                                   str(arguments.seconds)])
        outcomes: collections.Counter[str] = collections.Counter()
        try:
            time.sleep(0.2)
            for _ in range(arguments.loads):
                try:
                    documents = load_corpus(path).documents
                except InputError as error:
                    outcomes["refused" if "changed while it was read" in str(error) else f"error: {error}"] += 1
                else:
                    count = len(documents)
                    outcomes["complete" if count == arguments.records else "empty" if not count else "partial"] += 1
                time.sleep(0.013)
        finally:
            writer.kill()
            writer.wait()
    print(f"{arguments.loads} loads of a {arguments.records}-record file rewritten in chunks of {arguments.chunk}:")
    for outcome, count in sorted(outcomes.items()):
        print(f"  {outcome:<10} {count}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
