"""``regrag golden record`` and ``regrag golden verify``, and the recording progress line."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrag.cli import main
from regrag.corpus.extract.pdf import available as pdf_available

REPO = Path(__file__).resolve().parents[2]
REGULATIONS = REPO / "corpora" / "regulations"
CORPUS = "corpora/regulations/documents"


def run(capsys, *arguments):
    status = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.skipif(not pdf_available(), reason="golden/regulations.* were recorded with its PDF (needs pdfminer.six)")
def test_golden_record_and_verify_through_the_cli(capsys, index_dir, tmp_path):
    golden = tmp_path / "regulations.golden"
    status, out, _e = run(capsys, "golden", "record", "corpora/regulations/queries.jsonl", "--index", index_dir,
                          "--out", golden, "--method", "bm25")
    assert status == 0 and out.startswith("recorded 119 queries × 1 method(s), top 10")
    assert golden.read_bytes() == open("golden/regulations.bm25.golden", "rb").read()
    status, out, _e = run(capsys, "golden", "verify", golden, "--index", index_dir)
    assert status == 0 and "OK: all 119 rankings identical" in out
    status, out, _e = run(capsys, "golden", "verify", golden, "--corpus", CORPUS, "--b", "0.3")
    assert status == 1 and "reg-q0" in out and " -> " in out
    golden.write_text(golden.read_text(encoding="utf-8").replace('"k":10', '"k":11', 1), encoding="utf-8")
    status, _o, err = run(capsys, "golden", "verify", golden, "--index", index_dir)
    assert status == 2 and "fingerprint" in err


def test_golden_record_progress_and_identical_file(tmp_path, run_with_stderr_on_a_terminal, run_plain,
                                                  markdown_regulations):
    queries = str(REGULATIONS / "queries.jsonl")
    documents = str(markdown_regulations)  # no PDF: standard error is the same with or without pdfminer.six
    status, _out, err = run_with_stderr_on_a_terminal("golden", "record", queries, "--out", str(tmp_path / "a.golden"),
                                                      "--corpus", documents)
    plain = run_plain("golden", "record", queries, "--out", str(tmp_path / "b.golden"), "--corpus", documents)
    assert status == plain.returncode == 0 and plain.stderr == b""
    assert b"\rrecording: " in err and b" queries (100%)" in err
    assert (tmp_path / "a.golden").read_bytes() == (tmp_path / "b.golden").read_bytes()
