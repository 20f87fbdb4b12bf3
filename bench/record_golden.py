"""Record (or check) the golden ranking files of the sample corpora.

    python3 bench/record_golden.py            # (re)write golden/NAME.METHOD.golden for every corpus and method
    python3 bench/record_golden.py --check    # verify them instead; exit 1 and print what moved if any differ
    python3 bench/record_golden.py --corpus regulations --method bm25   # just one file

For each sample corpus in ``corpora/`` (``product-manuals``, ``regulations``,
``vn-stock-news``) the index is ``Index.from_path("corpora/NAME/documents")``
with default parameters, the queries are every line of
``corpora/NAME/queries.jsonl``, and one file per method (``bm25``, ``tfidf``,
``hybrid``) is written with k = 10, using ``regrag.audit.golden``. Recording
is deterministic: re-running it on an unchanged engine and corpus rewrites
the same bytes. See ``golden/README.md`` and ``docs/golden.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from regrag import Index  # noqa: E402
from regrag.audit.golden import (  # noqa: E402
    DEFAULT_K,
    DEFAULT_METHODS,
    format_report,
    load_golden_queries,
    read_golden,
    record_golden,
    verify_golden,
    write_golden,
)

CORPORA = ("product-manuals", "regulations", "vn-stock-news")


def golden_path(out_dir: Path, corpus: str, method: str) -> Path:
    """``OUT_DIR/CORPUS.METHOD.golden``."""
    return out_dir / f"{corpus}.{method}.golden"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", choices=CORPORA,
                        help="a sample corpus (repeatable; default: all three)")
    parser.add_argument("--method", action="append", choices=DEFAULT_METHODS,
                        help="a retrieval method (repeatable; default: all three)")
    parser.add_argument("--out-dir", type=Path, default=REPO / "golden", help="where the files go (default: golden/)")
    parser.add_argument("-k", type=int, default=DEFAULT_K, help=f"ranking depth (default {DEFAULT_K})")
    parser.add_argument("--check", action="store_true", help="verify the existing files instead of writing them")
    args = parser.parse_args(argv)

    failed = 0
    for corpus in args.corpus or CORPORA:
        folder = REPO / "corpora" / corpus
        index = Index.from_path(folder / "documents")
        queries = load_golden_queries(folder / "queries.jsonl")
        for method in args.method or DEFAULT_METHODS:
            path = golden_path(args.out_dir, corpus, method)
            shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
            if args.check:
                report = verify_golden(index, read_golden(path))
                print(f"{shown}: {'ok' if report.ok else 'DIFFERS'}")
                if not report.ok:
                    failed += 1
                    print(format_report(report))
                continue
            before = path.read_bytes() if path.exists() else None
            write_golden(path, record_golden(index, queries, (method,), args.k))
            state = "unchanged" if before == path.read_bytes() else ("written" if before is None else "CHANGED")
            print(f"{shown}: {len(queries)} queries, {state}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
