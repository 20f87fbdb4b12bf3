"""Query files for golden recording (issue 12): plain text, one query per line,
with ids derived from the text; every error about a query file's content
names the formats that are accepted."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pytest

from regrag import cli
from regrag.audit.golden import QUERY_FORMATS, load_golden_queries, plain_text_query_id, read_golden
from regrag.errors import InputError

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = REPO / "corpora" / "regulations" / "documents"


def test_plain_text_ids_are_the_texts_hash():
    assert plain_text_query_id("annual fee") == "q-" + hashlib.sha256(b"annual fee").hexdigest()[:12]
    assert plain_text_query_id("annual fee") == "q-58e9365d2216"


def test_a_txt_file_gives_one_query_per_non_blank_line(tmp_path):
    path = tmp_path / "queries.txt"
    path.write_bytes(b"\xef\xbb\xbf  liquidity coverage ratio \r\n\n   \nannual fee\nTh\xe1\xbb\x9di h\xe1\xba\xa1n\n")
    queries = load_golden_queries(path)
    texts = ["liquidity coverage ratio", "annual fee", "Thời hạn"]
    assert queries == sorted((plain_text_query_id(text), text) for text in texts)


def test_ids_do_not_depend_on_order_or_other_lines(tmp_path):
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text("a\nb\nc\n", encoding="utf-8")
    two.write_text("c\nnew\na\n", encoding="utf-8")
    ids_one, ids_two = dict(load_golden_queries(one)), dict(load_golden_queries(two))
    assert {k: v for k, v in ids_one.items() if v in "ac"} == {k: v for k, v in ids_two.items() if v in "ac"}


def test_a_file_without_suffix_is_sniffed(tmp_path):
    text, jsonl = tmp_path / "queries", tmp_path / "beir"
    text.write_text("annual fee\n", encoding="utf-8")
    jsonl.write_text('\n{"_id": "q1", "text": "annual fee"}\n', encoding="utf-8")
    assert load_golden_queries(text) == [(plain_text_query_id("annual fee"), "annual fee")]
    assert load_golden_queries(jsonl) == [("q1", "annual fee")]


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("queries.jsonl", b"annual fee\n", r"queries.jsonl:1: malformed JSON \(Expecting value at column 1\); "),
        ("queries.jsonl", b'{"_id": "q1"}\n', r"queries.jsonl:1: 'text' must be a string; "),
        ("queries.txt", b"", r"queries.txt: no queries \(the file is empty or blank\); "),
        ("queries.txt", b"\n \n", r"queries.txt: no queries \(the file is empty or blank\); "),
        ("queries.txt", b"fine\n\xff\xfe bad\n", r"queries.txt:2: invalid UTF-8 \(invalid start byte\); "),
    ],
)
def test_errors_name_file_line_and_the_accepted_formats(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        load_golden_queries(path)
    text = str(caught.value)
    assert text.startswith(str(tmp_path) + "/")
    assert text.endswith(QUERY_FORMATS)
    assert re.search(message, text), text
    assert "plain-text file (.txt: one query per line)" in QUERY_FORMATS and "BEIR queries.jsonl" in QUERY_FORMATS


def test_a_folder_without_queries_jsonl_names_the_formats(tmp_path):
    with pytest.raises(InputError, match=f"^{tmp_path}: a folder without queries.jsonl; expected a BEIR"):
        load_golden_queries(tmp_path)


def test_a_repeated_query_names_both_lines(tmp_path):
    path = tmp_path / "queries.txt"
    path.write_text("annual fee\nmargin\n  annual fee\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"queries.txt:3: the same query as line 1; give each query once$"):
        load_golden_queries(path)


def test_a_query_over_the_length_limit_names_its_line(tmp_path):
    path = tmp_path / "queries.txt"
    path.write_text("short\n" + "x" * 10_001 + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"queries.txt:2: the query has 10,001 characters"):
        load_golden_queries(path)


def test_a_utf16_text_file_is_refused_with_a_conversion_hint(tmp_path):
    path = tmp_path / "queries.txt"
    path.write_bytes("annual fee\n".encode("utf-16"))
    with pytest.raises(InputError, match=r"queries.txt:1: the file looks like UTF-16 .* iconv"):
        load_golden_queries(path)


def test_the_cli_records_and_verifies_a_plain_text_query_file(tmp_path, capsys):
    queries = tmp_path / "queries.txt"
    queries.write_text("liquidity coverage ratio\nannual fee\n", encoding="utf-8")
    out = tmp_path / "q.golden"
    args = ["--corpus", str(DOCUMENTS)]
    assert cli.main(["golden", "record", str(queries), *args, "--out", str(out), "--method", "bm25"]) == 0
    assert capsys.readouterr().out.startswith("recorded 2 queries × 1 method(s), top 10")
    golden = read_golden(out)
    assert [q["id"] for q in golden["queries"]] == sorted(
        plain_text_query_id(t) for t in ("liquidity coverage ratio", "annual fee"))
    first = out.read_bytes()
    assert cli.main(["golden", "record", str(queries), *args, "--out", str(out), "--method", "bm25"]) == 0
    assert out.read_bytes() == first  # deterministic
    assert cli.main(["golden", "verify", str(out), *args]) == 0
    assert capsys.readouterr().out.endswith("OK: all 2 rankings identical, scores bit for bit\n")


def test_the_cli_error_for_a_bad_query_file_is_one_line(tmp_path, capsys):
    queries = tmp_path / "queries.jsonl"
    queries.write_text("annual fee\n", encoding="utf-8")
    status = cli.main(["golden", "record", str(queries), "--corpus", str(DOCUMENTS), "--out", str(tmp_path / "g")])
    # without pdfminer.six a note first says the folder's PDF was not indexed
    err = "".join(line for line in capsys.readouterr().err.splitlines(True) if not line.startswith("regrag: note: "))
    assert status == 2 and err.count("\n") == 1
    assert err == f"regrag: error: {queries}:1: malformed JSON (Expecting value at column 1); {QUERY_FORMATS}\n"
    assert not (tmp_path / "g").exists()


def test_a_pipe_is_read_once_as_json_lines():
    # A pipe (bash's <(...)) cannot be read twice, so it is not sniffed; before plain
    # text was accepted it was read as JSON Lines, and it still is.
    read_end, write_end = os.pipe()
    os.write(write_end, b'{"_id": "q1", "text": "annual fee"}\n')
    os.close(write_end)
    try:
        assert load_golden_queries(f"/dev/fd/{read_end}") == [("q1", "annual fee")]
    finally:
        os.close(read_end)
