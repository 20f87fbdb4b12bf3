"""Tests for the BEIR readers and the TREC run writer."""

from __future__ import annotations

import io
import json

import pytest

from regrag.errors import InputError
from regrag.eval.beir import queries_for_split, read_qrels, read_queries, write_run_trec

HEADER = "query-id\tcorpus-id\tscore"


def write_bytes(path, data: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def jsonl(*objs) -> bytes:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs).encode("utf-8")


def expect_error(fn, path, line: int | None):
    with pytest.raises(InputError) as info:
        fn(path)
    message = str(info.value)
    assert str(path) in message
    if line is not None:
        assert f"{path}:{line}:" in message
    return message


# ------------------------------------------------------------------ queries


def test_read_queries(tmp_path):
    path = write_bytes(
        tmp_path / "queries.jsonl",
        jsonl(
            {"_id": "2", "text": "second", "metadata": {}},
            {"_id": "1", "text": "黑豹队的防守"},
        ),
    )
    assert read_queries(path) == {"2": "second", "1": "黑豹队的防守"}
    assert list(read_queries(path)) == ["2", "1"]  # file order


def test_read_queries_crlf_bom_and_blank_lines(tmp_path):
    data = b"\xef\xbb\xbf" + b'{"_id": "a", "text": "x"}\r\n\r\n{"_id": "b", "text": "y"}'
    path = write_bytes(tmp_path / "q.jsonl", data)
    assert read_queries(path) == {"a": "x", "b": "y"}


def test_read_queries_missing_file(tmp_path):
    expect_error(read_queries, tmp_path / "nope.jsonl", None)


def test_read_queries_malformed_json(tmp_path):
    path = write_bytes(tmp_path / "q.jsonl", b'{"_id": "a", "text": "x"}\n{"_id": "b", "text": \n')
    assert "malformed JSON" in expect_error(read_queries, path, 2)


def test_read_queries_not_object_or_bad_fields(tmp_path):
    path = write_bytes(tmp_path / "q1.jsonl", b'["a"]\n')
    expect_error(read_queries, path, 1)
    path = write_bytes(tmp_path / "q2.jsonl", jsonl({"_id": "a", "text": "x"}, {"_id": 3, "text": "y"}))
    assert "_id" in expect_error(read_queries, path, 2)
    path = write_bytes(tmp_path / "q3.jsonl", jsonl({"_id": "a"}))
    assert "text" in expect_error(read_queries, path, 1)


def test_read_queries_invalid_utf8(tmp_path):
    path = write_bytes(tmp_path / "q.jsonl", b'{"_id": "a", "text": "x"}\n{"_id": "b", "text": "\xff"}\n')
    assert "UTF-8" in expect_error(read_queries, path, 2)


def test_read_queries_duplicate_id(tmp_path):
    path = write_bytes(
        tmp_path / "q.jsonl",
        jsonl({"_id": "a", "text": "x"}, {"_id": "b", "text": "y"}, {"_id": "a", "text": "z"}),
    )
    message = expect_error(read_queries, path, 3)
    assert "duplicate" in message and "line 1" in message


# -------------------------------------------------------------------- qrels

EXPECTED = {"q1": {"d1": 1, "d2": 2}, "q2": {"d1": 0}}


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_read_qrels_lf_and_crlf(tmp_path, eol):
    text = eol.join([HEADER, "q1\td1\t1", "q1\td2\t2", "q2\td1\t0"]) + eol
    path = write_bytes(tmp_path / "test.tsv", text.encode())
    assert read_qrels(path) == EXPECTED


def test_read_qrels_mixed_line_ends_and_no_final_newline(tmp_path):
    path = write_bytes(tmp_path / "test.tsv", f"{HEADER}\r\nq1\td1\t1\nq1\td2\t2\r\nq2\td1\t0".encode())
    assert read_qrels(path) == EXPECTED


def test_read_qrels_without_header(tmp_path):
    # First line is data, not a header: it must be kept.
    path = write_bytes(tmp_path / "test.tsv", b"q1\td1\t1\nq1\td2\t2\nq2\td1\t0\n")
    assert read_qrels(path) == EXPECTED


def test_read_qrels_negative_score(tmp_path):
    path = write_bytes(tmp_path / "test.tsv", f"{HEADER}\nq1\td1\t-1\n".encode())
    assert read_qrels(path) == {"q1": {"d1": -1}}


def test_read_qrels_header_not_on_first_line_is_an_error(tmp_path):
    path = write_bytes(tmp_path / "test.tsv", f"q1\td1\t1\n{HEADER}\n".encode())
    assert "not an integer" in expect_error(read_qrels, path, 2)


def test_read_qrels_other_header_is_an_error(tmp_path):
    path = write_bytes(tmp_path / "test.tsv", b"qid\tdocid\tscore\nq1\td1\t1\n")
    expect_error(read_qrels, path, 1)


@pytest.mark.parametrize(
    "bad_line",
    [
        "q1\td1",  # two fields
        "q1\td1\t1\textra",  # four fields
        "q1 d1 1",  # spaces, not tabs
        "q1\td1\t1.0",  # not an integer
        "q1\td1\tx",
        "q1\td1\t",  # empty score
        "q1\td1\t 1",  # padded
        "\td1\t1",  # empty query id
        "q1\t\t1",  # empty doc id
    ],
)
def test_read_qrels_malformed_line(tmp_path, bad_line):
    text = f"{HEADER}\r\nq1\td0\t1\r\n{bad_line}\r\nq2\td1\t1\r\n"
    path = write_bytes(tmp_path / "test.tsv", text.encode())
    expect_error(read_qrels, path, 3)


def test_read_qrels_duplicate_pair(tmp_path):
    path = write_bytes(tmp_path / "test.tsv", f"{HEADER}\nq1\td1\t1\nq1\td2\t1\nq1\td1\t0\n".encode())
    assert "duplicate" in expect_error(read_qrels, path, 4)


def test_read_qrels_invalid_utf8(tmp_path):
    path = write_bytes(tmp_path / "test.tsv", f"{HEADER}\nq1\td1\t1\n".encode() + b"q\xc3\td1\t1\n")
    assert "UTF-8" in expect_error(read_qrels, path, 3)


def test_read_qrels_missing_file(tmp_path):
    expect_error(read_qrels, tmp_path / "qrels" / "test.tsv", None)


# ---------------------------------------------------------- queries_for_split


def make_beir(tmp_path):
    root = tmp_path / "beir"
    write_bytes(
        root / "queries.jsonl",
        jsonl(
            {"_id": "3", "text": "three"},
            {"_id": "10", "text": "ten"},
            {"_id": "1", "text": "one"},
            {"_id": "7", "text": "train only"},
        ),
    )
    write_bytes(root / "qrels" / "test.tsv", f"{HEADER}\r\n3\td1\t1\r\n10\td2\t1\r\n1\td3\t1\r\n3\td4\t1\r\n".encode())
    write_bytes(root / "qrels" / "train.tsv", f"{HEADER}\n7\td1\t1\n".encode())
    return root


def test_queries_for_split(tmp_path):
    root = make_beir(tmp_path)
    got = queries_for_split(root)
    # sorted by query id as strings: "1" < "10" < "3"
    assert list(got.items()) == [("1", "one"), ("10", "ten"), ("3", "three")]
    assert queries_for_split(str(root), "train") == {"7": "train only"}


def test_queries_for_split_missing_split(tmp_path):
    root = make_beir(tmp_path)
    with pytest.raises(InputError) as info:
        queries_for_split(root, "dev")
    assert "dev.tsv" in str(info.value)


def test_queries_for_split_unknown_query(tmp_path):
    root = make_beir(tmp_path)
    write_bytes(root / "qrels" / "test.tsv", f"{HEADER}\n1\td1\t1\n99\td1\t1\n".encode())
    with pytest.raises(InputError) as info:
        queries_for_split(root)
    message = str(info.value)
    assert "test.tsv:3:" in message and "'99'" in message


# ----------------------------------------------------------------- run writer


def test_write_run_trec_to_file_object():
    run = {
        "q2": [("d9", 3.5), ("d1", 0.1)],
        "q10": [("dA", 1.0 / 3.0)],
    }
    out = io.StringIO()
    write_run_trec(out, run, "regrag")
    # queries sorted by id ("q10" < "q2"); ranks from 1; scores as repr
    assert out.getvalue() == (
        "q10 Q0 dA 1 0.3333333333333333 regrag\n"
        "q2 Q0 d9 1 3.5 regrag\n"
        "q2 Q0 d1 2 0.1 regrag\n"
    )


def test_write_run_trec_to_path_round_trips_scores(tmp_path):
    scores = [("a", 1e-300), ("b", 12345678.901234567), ("c", 2)]
    path = tmp_path / "run.txt"
    write_run_trec(path, {"q": scores}, "t")
    data = path.read_bytes()
    assert b"\r" not in data
    lines = data.decode().splitlines()
    assert [line.split()[:4] for line in lines] == [["q", "Q0", d, str(i)] for i, (d, _) in enumerate(scores, 1)]
    assert [float(line.split()[4]) for line in lines] == [float(s) for _, s in scores]
    assert lines[2].split()[4] == "2.0"


@pytest.mark.parametrize(
    "run, tag",
    [
        ({"q": [("a b", 1.0)]}, "t"),
        ({"q 1": [("a", 1.0)]}, "t"),
        ({"q": [("a", 1.0)]}, "my tag"),
        ({"q": [("a", 1.0)]}, ""),
        ({"q": [("a", float("nan"))]}, "t"),
        ({"q": [("a", float("inf"))]}, "t"),
        ({"q": [("a", 2.0), ("a", 1.0)]}, "t"),
    ],
)
def test_write_run_trec_rejects_bad_input(tmp_path, run, tag):
    path = tmp_path / "run.txt"
    with pytest.raises(InputError):
        write_run_trec(path, run, tag)
    assert not path.exists()  # nothing written
