"""``regrag eval``: from a corpus or an index directory, and its progress lines."""

from __future__ import annotations

from pathlib import Path

from regrag.cli import main
from regrag.corpus.extract.pdf import available as pdf_available

REPO = Path(__file__).resolve().parents[2]
REGULATIONS = REPO / "corpora" / "regulations"


def run(capsys, *arguments):
    status = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_eval_accepts_an_index_directory(capsys, index_dir):
    _s, from_corpus, _e = run(capsys, "eval", "--beir", "corpora/regulations", "--method", "bm25", "--no-answers", "--per-query")
    status, from_index, _e = run(capsys, "eval", "--beir", "corpora/regulations", "--method", "bm25", "--no-answers",
                                 "--per-query", "--index", index_dir)
    assert status == 0

    def without_timings(text):
        return [line for line in text.splitlines() if " ms " not in line and "indexing" not in line]

    assert without_timings(from_index) == without_timings(from_corpus)
    if pdf_available():  # without pdfminer.six the PDF regulation, and the answers of 5 questions, are not indexed
        assert "0.8182" in from_index  # regulations bm25 Hit@1 with the issue 18 documents and questions


def test_eval_progress_has_a_line_per_stage(run_with_stderr_on_a_terminal, run_plain):
    status, out, err = run_with_stderr_on_a_terminal("eval", "--beir", str(REGULATIONS), "--method", "bm25", "--json")
    plain = run_plain("eval", "--beir", str(REGULATIONS), "--method", "bm25", "--json")
    assert status == plain.returncode == 0
    # without a terminal, standard error holds only the timings line (kept out of the canonical report)
    assert plain.stderr.startswith(b"regrag: timings: ") and plain.stderr.count(b"\n") == 1
    assert b"\rindexing: " in err and b"\rbm25 queries: " in err
    # the canonical report is byte-identical with and without the progress line
    assert out == plain.stdout
