"""Record (or check) the golden ranking and answer files of the sample corpora.

    python3 bench/record_golden.py            # (re)write golden/NAME.METHOD.golden and golden/answers/NAME.golden
    python3 bench/record_golden.py --check    # verify them instead; exit 1 and print what moved if any differ
    python3 bench/record_golden.py --corpus regulations --method bm25   # just one ranking file
    python3 bench/record_golden.py --answers  # just the answer files

For each sample corpus in ``corpora/`` (``product-manuals``, ``regulations``,
``vn-stock-news``) the index is ``Index.from_path("corpora/NAME/documents")``
with default parameters, the queries are every line of
``corpora/NAME/queries.jsonl``, and one file per method (``bm25``, ``tfidf``,
``hybrid``) is written with k = 10, using ``regrag.audit.golden``. Recording
is deterministic: re-running it on an unchanged engine and corpus rewrites
the same bytes. See ``golden/README.md`` and ``docs/golden.md``.

The answer files hold ``ask`` with its default options on the same queries
(``regrag.audit.golden_answers``). A changed answer is written only under new
answer rules (``regrag/answer/rules_version.py``), a new built-in lexicon or a
new index; otherwise the script names the changed answers and exits 1 without
writing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from regrag import Index  # noqa: E402
from regrag.audit.golden_answers import (  # noqa: E402
    answer_changes,
    read_answers,
    record_answers,
    rerecord_problem,
    write_answers,
)
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


def answers_path(out_dir: Path, corpus: str) -> Path:
    """``OUT_DIR/answers/CORPUS.golden``."""
    return out_dir / "answers" / f"{corpus}.golden"


def answers_step(index, queries, path: Path, shown: Path, check: bool) -> bool:
    """Check or (re)write one answer file; False when it differs (check) or may not be rewritten."""
    fresh = record_answers(index, queries)
    recorded = read_answers(path) if path.exists() else None
    changes = answer_changes(recorded, fresh) if recorded is not None else []
    if check:
        same = recorded is not None and recorded == fresh
        print(f"{shown}: {'ok' if same else 'DIFFERS'}")
        if recorded is not None and recorded["index_id"] != fresh["index_id"]:
            print(f"  the index differs: recorded {recorded['index_id'][:16]}, now {fresh['index_id'][:16]} "
                  "(a document added, removed or changed, or one not indexed)")
        for line in changes if recorded is not None else ["no such file"]:
            print(f"  {line}")
        if recorded is not None and not changes and not same:
            print("  the header differs (answer rules, lexicon, index or corpus root)")
        return same
    problem = rerecord_problem(recorded, fresh) if recorded is not None else None
    if problem is not None:
        print(f"{shown}: NOT WRITTEN: {problem}")
        for line in changes:
            print(f"  {line}")
        return False
    before = path.read_bytes() if path.exists() else None
    path.parent.mkdir(parents=True, exist_ok=True)
    write_answers(path, fresh)
    state = "unchanged" if before == path.read_bytes() else ("written" if before is None else "CHANGED")
    print(f"{shown}: {len(queries)} answers, {state}")
    for line in changes:
        print(f"  {line}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", choices=CORPORA,
                        help="a sample corpus (repeatable; default: all three)")
    parser.add_argument("--method", action="append", choices=DEFAULT_METHODS,
                        help="a retrieval method (repeatable; default: all three)")
    parser.add_argument("--out-dir", type=Path, default=REPO / "golden", help="where the files go (default: golden/)")
    parser.add_argument("-k", type=int, default=DEFAULT_K, help=f"ranking depth (default {DEFAULT_K})")
    parser.add_argument("--check", action="store_true", help="verify the existing files instead of writing them")
    parser.add_argument("--answers", action="store_true", help="only the answer files (golden/answers/)")
    args = parser.parse_args(argv)

    failed = 0
    for corpus in args.corpus or CORPORA:
        folder = REPO / "corpora" / corpus
        index = Index.from_path(folder / "documents")
        for name, why in index.skipped:
            print(f"note: corpora/{corpus}/documents/{name} was not indexed ({why})", file=sys.stderr)
        queries = load_golden_queries(folder / "queries.jsonl")
        path = answers_path(args.out_dir, corpus)
        if not args.method and not answers_step(index, queries, path, path.relative_to(REPO) if path.is_relative_to(REPO)
                                                else path, args.check):
            failed += 1
        for method in () if args.answers else args.method or DEFAULT_METHODS:
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
