"""``regrag search``: output, JSON, corpus loading, --index and its
conflicting options, the progress line."""

from __future__ import annotations

import json
from pathlib import Path

from regrag import Index
from regrag.cli import main

REPO = Path(__file__).resolve().parents[2]
REGULATIONS = REPO / "corpora" / "regulations"
CORPUS = "corpora/regulations/documents"


def run(capsys, *arguments):
    status = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_search_human_output_marks_terms(capsys):
    status, out, _err = run(capsys, "search", "margin interest rate", "-k", "2")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("index ") and "method hybrid" in lines[0]
    assert lines[1].split()[0] == "1" and "northquill-go-mobile-brokerage.md#" in lines[1]
    assert "[margin]" in out or "[Margin]" in out


def test_search_json_is_one_canonical_record_per_hit(capsys):
    status, out, _err = run(capsys, "search", "annual fee", "--method", "bm25", "-k", "3", "--json")
    assert status == 0
    lines = out.splitlines()
    assert len(lines) == 3
    for rank, line in enumerate(lines, start=1):
        record = json.loads(line)
        assert record["rank"] == rank and record["method"] == "bm25"
        assert line == json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def test_bad_corpus_file_names_file_and_line(capsys, tmp_path):
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text('{"id": "a", "text": "ok"}\n{"id": "b", "text": \n', encoding="utf-8")
    status, _out, err = run(capsys, "search", "ok", "--corpus", str(corpus))
    assert status == 2 and f"{corpus}:2:" in err


def test_skipped_files_are_reported(capsys, tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nfees apply\n", encoding="utf-8")
    (tmp_path / "scan.tiff").write_bytes(b"II*\x00")  # (a .pdf is a document since issue 18)
    status, out, err = run(capsys, "search", "fees", "--corpus", str(tmp_path))
    assert status == 0 and "a.md#1" in out
    assert "1 file(s) not indexed: scan.tiff" in err


def test_search_from_an_index_directory_equals_search_from_the_corpus(capsys, index_dir):
    query = "liquidity coverage ratio reporting"
    _s, from_corpus, _e = run(capsys, "search", query, "--corpus", CORPUS, "--json")
    status, from_index, _e = run(capsys, "search", query, "--index", index_dir, "--json")
    assert status == 0 and from_index == from_corpus and from_index.count("\n") == 10
    record = json.loads(from_index.splitlines()[0])
    assert record["corpus_root"] == Index.open(index_dir).corpus_root and len(record["corpus_root"]) == 64


def test_index_options_conflict_with_a_stored_index(capsys, index_dir):
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir, "--k1", "1.2")
    assert status == 2 and "--k1 cannot be combined with --index" in err
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir, "--corpus", CORPUS)
    assert status == 2 and "not both" in err
    status, _o, err = run(capsys, "search", "fee", "--generation", "1")
    assert status == 2 and "need --index" in err
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir, "--generation", "7")
    assert status == 2 and "generation 7 is not retained" in err
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir, "--as-of", "yesterday")
    assert status == 2 and "ISO 8601" in err
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir.parent / "missing")
    assert status == 2 and "no such index directory" in err


def test_search_corpus_progress_on_a_terminal_only_and_stdout_unchanged(run_with_stderr_on_a_terminal, run_plain,
                                                                        markdown_regulations):
    # the Markdown files alone: no PDF, so standard error is the same with or without pdfminer.six
    arguments = ("search", "liquidity coverage ratio", "--corpus", str(markdown_regulations), "--json")
    status, out, err = run_with_stderr_on_a_terminal(*arguments)
    plain = run_plain(*arguments)
    assert status == plain.returncode == 0
    assert out == plain.stdout != b""  # the same bytes, terminal or not
    assert plain.stderr == b""  # not a terminal: no progress
    assert err.startswith(b"\rindexing: ") and b" documents (" in err and b"building the postings" in err
    assert err.endswith(b"\r")  # the line is erased at the end, nothing is left behind
    assert b"\n" not in err.replace(b"\r\n", b"")  # never a new line of its own
    quiet_status, quiet_out, quiet_err = run_with_stderr_on_a_terminal(*arguments, "--quiet")
    assert quiet_status == 0 and quiet_out == out and quiet_err == b""
