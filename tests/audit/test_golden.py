"""Golden-file regression audits: the committed golden files still hold, changes are
reported passage by passage, tampering is caught, recording is deterministic and exact."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from regrag import Index, IndexParameters
from regrag.audit.canonical import canonical_json
from regrag.audit.golden import (
    FORMAT,
    GoldenDifference,
    dumps_golden,
    format_report,
    golden_fingerprint,
    load_golden_queries,
    loads_golden,
    read_golden,
    record_golden,
    verify_golden,
    write_golden,
)
from regrag.corpus.extract.pdf import available as pdf_available
from regrag.corpus.load import load_corpus
from regrag.errors import InputError

REPO = Path(__file__).resolve().parents[2]
CORPORA = ("product-manuals", "regulations", "vn-stock-news")
METHODS = ("bm25", "tfidf", "hybrid")
GOLDEN = REPO / "golden"


@pytest.fixture(scope="module")
def indexes() -> dict[str, Index]:
    """The three sample indexes, built once for the module (default parameters)."""
    return {name: Index.from_path(REPO / "corpora" / name / "documents") for name in CORPORA}


def golden_path(corpus: str, method: str) -> Path:
    return GOLDEN / f"{corpus}.{method}.golden"


class FakeIndex:
    """An index stand-in whose rankings are given: query text -> (document id, passage id, score) triples."""

    def __init__(self, rankings: dict[str, list[tuple[str, str, float]]], index_id: str = "fake-index",
                 corpus_root: str | None = None) -> None:
        self.rankings = rankings
        self._index_id = index_id
        if corpus_root is not None:
            self.corpus_root = corpus_root

    @property
    def index_id(self) -> str:
        return self._index_id

    def ranking(self, query: str, k: int = 10, method: str = "hybrid") -> list[tuple[str, str, float]]:
        return self.rankings.get(query, [])[:k]


def expected_differences(golden: dict, index: Index, method: str) -> dict[tuple[str, str], tuple]:
    """An independent diff: (query id, passage id) -> (old rank, old score repr, new rank, new score repr)."""
    expected = {}
    for record in golden["queries"]:
        old = {e["passage_id"]: (e["rank"], repr(e["score"])) for e in record["rankings"][method]}
        new = {p: (r, repr(s)) for r, (_d, p, s) in
               enumerate(index.ranking(record["text"], k=golden["k"], method=method), start=1)}
        for passage in old.keys() | new.keys():
            if old.get(passage) != new.get(passage):
                was, now = old.get(passage, (None, None)), new.get(passage, (None, None))
                expected[(record["id"], passage)] = (*was, *now)
    return expected


# the committed golden files ------------------------------------------------------


def test_golden_folder_holds_one_file_per_corpus_and_method():
    names = {path.name for path in GOLDEN.glob("*.golden")}
    assert names == {f"{corpus}.{method}.golden" for corpus in CORPORA for method in METHODS}


def test_golden_readme_states_each_corpus_query_count():
    """golden/README.md's table gives the number of queries each golden file records."""
    readme = (GOLDEN / "README.md").read_text(encoding="utf-8")
    for corpus in CORPORA:
        recorded = sum(1 for line in golden_path(corpus, "bm25").read_text(encoding="utf-8").splitlines()
                       if '"text":' in line and '"rank":' not in line)
        queries = len((REPO / "corpora" / corpus / "queries.jsonl").read_text(encoding="utf-8").splitlines())
        assert recorded == queries
        row = re.search(rf"`corpora/{re.escape(corpus)}` \| (\d+) \|", readme)
        assert row is not None and int(row.group(1)) == recorded, corpus


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("corpus", CORPORA)
def test_golden_file_verifies_against_a_fresh_index(indexes, corpus, method):
    """The regression audit: any change of ranking or score fails here (and shows as a changed golden file)."""
    if corpus == "regulations" and not pdf_available():
        pytest.skip("golden/regulations.* were recorded with the corpus's PDF document: needs pdfminer.six")
    path = golden_path(corpus, method)
    golden = read_golden(path)
    assert golden["format"] == FORMAT and golden["k"] == 10 and golden["methods"] == [method]
    # every query of the corpus is recorded, with its text
    assert [(q["id"], q["text"]) for q in golden["queries"]] == load_golden_queries(
        REPO / "corpora" / corpus / "queries.jsonl"
    )
    report = verify_golden(indexes[corpus], golden)
    assert report.ok, format_report(report)
    assert report.differences == () and report.query_count == len(golden["queries"])
    assert format_report(report).rstrip("\n").splitlines()[-1].startswith("OK: all ")
    # the file is in the one canonical layout
    assert dumps_golden(golden).encode("utf-8") == path.read_bytes()


# changed indexes -------------------------------------------------------------------------


def test_other_k1_reports_exactly_the_passages_that_moved():
    golden = read_golden(golden_path("regulations", "bm25"))
    changed = Index.from_path(REPO / "corpora" / "regulations" / "documents", parameters=IndexParameters(k1=0.9))
    report = verify_golden(changed, golden)
    assert not report.ok and report.index_changed
    assert report.index_id_then == golden["index_id"] and report.index_id_now == changed.index_id
    got = {(d.query_id, d.passage_id): (d.old_rank, None if d.old_score is None else repr(d.old_score),
                                        d.new_rank, None if d.new_score is None else repr(d.new_score))
           for d in report.differences}
    assert len(got) == len(report.differences)
    assert got == expected_differences(golden, changed, "bm25") != {}
    assert {d.method for d in report.differences} == {"bm25"}
    text = format_report(report)
    assert text.rstrip("\n").splitlines()[-1].startswith(f"FAIL: {len(report.differences)} differences")


def test_removed_document_drops_its_passages(indexes):
    golden = read_golden(golden_path("product-manuals", "hybrid"))
    first = golden["queries"][0]
    removed = first["rankings"]["hybrid"][0]["document_id"]
    documents = [d for d in load_corpus(REPO / "corpora" / "product-manuals" / "documents").documents if d.id != removed]
    report = verify_golden(Index.from_documents(documents), golden)
    assert not report.ok
    assert first["id"] in report.changed_queries
    by_key = {(d.query_id, d.passage_id): d for d in report.differences}
    recorded = [(q["id"], e) for q in golden["queries"] for e in q["rankings"]["hybrid"] if e["document_id"] == removed]
    assert recorded
    for qid, entry in recorded:  # every recorded passage of the removed document is reported dropped
        difference = by_key[(qid, entry["passage_id"])]
        assert difference.kind == "dropped" and difference.new_rank is None and difference.new_score is None
        assert (difference.old_rank, difference.old_score) == (entry["rank"], entry["score"])
    assert all(d.new_rank is None for d in report.differences if d.document_id == removed)
    assert {(d.query_id, d.passage_id) for d in report.differences} == set(
        expected_differences(golden, Index.from_documents(documents), "hybrid")
    )
    text = format_report(report)
    assert f"\n{first['id']} " in text
    dropped = by_key[(first["id"], first["rankings"]["hybrid"][0]["passage_id"])]
    assert f"rank {dropped.old_rank} -> none" in text
    moved = next(d for d in report.differences if d.kind == "moved")
    assert re.search(rf"{re.escape(moved.passage_id)} +rank {moved.old_rank} -> {moved.new_rank}  score", text)


def test_a_small_change_reads_as_a_small_explicit_diff(make_doc):
    documents = [make_doc("d1", "apple apple banana"), make_doc("d2", "banana cherry"),
                 make_doc("d3", "apple cherry cherry cherry")]
    golden = record_golden(Index.from_documents(documents), [("q1", "apple"), ("q2", "banana")], ("bm25",))
    before = {e["passage_id"]: e for e in golden["queries"][0]["rankings"]["bm25"]}
    changed = Index.from_documents(documents[1:])  # d1 removed
    after = changed.ranking("apple", method="bm25")
    report = verify_golden(changed, golden)
    assert report.differences[:2] == (
        GoldenDifference("q1", "bm25", "d1#1", "d1", 1, before["d1#1"]["score"], None, None),
        GoldenDifference("q1", "bm25", "d3#1", "d3", 2, before["d3#1"]["score"], 1, after[0][2]),
    )
    assert [d.kind for d in report.differences[:2]] == ["dropped", "moved"]
    text = format_report(report)
    assert '\nq1 "apple"\n' in text
    assert "dropped  d1#1  rank 1 -> none" in text
    assert f"moved    d3#1  rank 2 -> 1  score {before['d3#1']['score']!r} -> {after[0][2]!r}" in text


# tampering and malformed files -------------------------------------------------------------


def test_tampered_score_is_rejected_by_the_fingerprint(tmp_path):
    lines = golden_path("regulations", "tfidf").read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[2])
    entry["score"] = math.nextafter(entry["score"], 0.0)  # the smallest possible edit, still canonical
    lines[2] = canonical_json(entry)
    path = tmp_path / "tampered.golden"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(str(path)) + ": fingerprint does not match"):
        read_golden(path)


def test_a_tampered_record_in_memory_is_rejected():
    golden = record_golden(FakeIndex({"t": [("d", "d#1", 1.5)]}), [("q", "t")], ("bm25",))
    golden["queries"][0]["rankings"]["bm25"][0]["score"] = 2.5
    with pytest.raises(InputError, match="fingerprint does not match"):
        verify_golden(FakeIndex({}), golden)
    with pytest.raises(InputError, match="fingerprint does not match"):
        dumps_golden(golden)


def _good_lines() -> list[str]:
    golden = record_golden(FakeIndex({"t": [("d", "d#1", 1.5), ("e", "e#2", 0.5)]}), [("q", "t"), ("r", "u")], ("bm25",))
    return dumps_golden(golden).splitlines()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda lines: [], ": empty file"),
        (lambda lines: lines[:1] + ["{not json"] + lines[2:], ":2: malformed JSON"),
        (lambda lines: lines[:1] + [lines[1].replace(":", ": ", 1)] + lines[2:], ":2: line is not in canonical JSON form"),
        (lambda lines: lines[:1] + [""] + lines[1:], ":2: blank line"),
        (lambda lines: [lines[0].replace(FORMAT, "regrag-golden/0")] + lines[1:], ":1: not a golden file"),
        (lambda lines: [lines[0], lines[2], lines[1]] + lines[3:], ":2: ranking line before the first query line"),
        (lambda lines: [lines[0], lines[1], lines[3], lines[2]] + lines[4:], ":3: rank must be 1"),
        (lambda lines: [lines[0], lines[4], lines[1]] + lines[2:4], ":3: query ids must be unique and ascending"),
        (lambda lines: lines[:2] + [lines[2].replace('"bm25"', '"tfidf"')] + lines[3:], ":3: method 'tfidf' is not in"),
        (lambda lines: lines[:2] + [lines[2].replace('"score":1.5', '"score":1')] + lines[3:], ":3: score must be a finite"),
        (lambda lines: lines[:2] + [lines[2].replace('"d#1"', '"x#1"')] + lines[3:], ":3: passage_id 'x#1' must be"),
        (lambda lines: lines[:4], ": fingerprint does not match"),
        (lambda lines: lines[:2] + ['{"query":"q","what":1}'] + lines[2:], ":3: expected a query line"),
    ],
)
def test_malformed_files_are_rejected_naming_file_and_line(tmp_path, edit, message):
    path = tmp_path / "bad.golden"
    lines = edit(_good_lines())
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(str(path) + message)):
        read_golden(path)


def test_bad_arguments_to_record_are_input_errors():
    index = FakeIndex({})
    with pytest.raises(InputError, match="duplicate query id 'q'"):
        record_golden(index, [("q", "a"), ("q", "b")])
    with pytest.raises(InputError, match="unknown method 'bm26'"):
        record_golden(index, [("q", "a")], ("bm26",))
    with pytest.raises(InputError, match="k must be a positive integer"):
        record_golden(index, [("q", "a")], k=0)
    with pytest.raises(InputError, match="no queries"):
        record_golden(index, [])


# determinism and exactness ------------------------------------------------------------------------


@pytest.mark.parametrize("corpus", CORPORA)
def test_recording_is_deterministic(indexes, corpus):
    queries = load_golden_queries(REPO / "corpora" / corpus)  # a BEIR folder works too
    first = dumps_golden(record_golden(indexes[corpus], queries))
    assert dumps_golden(record_golden(indexes[corpus], list(reversed(queries)))) == first
    documents = load_corpus(REPO / "corpora" / corpus / "documents").documents
    reversed_index = Index.from_documents(list(reversed(documents)))
    assert dumps_golden(record_golden(reversed_index, queries)) == first


def test_exact_scores_survive_write_and_read(tmp_path):
    scores = [1.7976931348623157e308, 0.1 + 0.2, 1 / 3, 5e-324, 2.2250738585072014e-308, 123456789.00000001, 0.0, -0.0]
    ranking = [(f"doc{i}", f"doc{i}#1", score) for i, score in enumerate(scores)]
    index = FakeIndex({"text": ranking})
    golden = record_golden(index, [("q", "text")], ("tfidf",), k=len(scores))
    path = tmp_path / "exact.golden"
    write_golden(path, golden)
    back = read_golden(path)
    assert back == golden
    read_scores = [e["score"] for e in back["queries"][0]["rankings"]["tfidf"]]
    assert [repr(s) for s in read_scores] == [repr(s) for s in scores]
    assert [math.copysign(1.0, s) for s in read_scores] == [math.copysign(1.0, s) for s in scores]
    assert verify_golden(index, back).ok


def test_scores_are_compared_bit_for_bit():
    golden = record_golden(FakeIndex({"t": [("d", "d#1", 0.7), ("e", "e#1", 0.0)]}), [("q", "t")], ("bm25",))
    nudged = FakeIndex({"t": [("d", "d#1", math.nextafter(0.7, 1.0)), ("e", "e#1", -0.0)]})
    report = verify_golden(nudged, golden)
    assert not report.ok
    assert [(d.passage_id, d.kind, d.old_rank, d.new_rank) for d in report.differences] == [
        ("d#1", "rescored", 1, 1), ("e#1", "rescored", 2, 2)
    ]
    assert "score 0.0 -> -0.0" in format_report(report)


def test_corpus_root_is_recorded_when_the_index_has_one():
    plain = record_golden(FakeIndex({}), [("q", "t")], ("bm25",))
    rooted = record_golden(FakeIndex({}, corpus_root="ab" * 32), [("q", "t")], ("bm25",))
    assert "corpus_root" not in plain and rooted["corpus_root"] == "ab" * 32
    assert rooted["fingerprint"] == golden_fingerprint(rooted) != plain["fingerprint"]
    assert loads_golden(dumps_golden(rooted)) == rooted
    report = verify_golden(FakeIndex({}), rooted)
    assert report.ok and (report.corpus_root_then, report.corpus_root_now) == ("ab" * 32, None)


def test_methods_are_stored_in_engine_order():
    golden = record_golden(FakeIndex({}), {"q": "t"}, ("hybrid", "bm25"))
    assert golden["methods"] == ["bm25", "hybrid"]


def test_query_texts_can_come_from_elsewhere():
    index = FakeIndex({"old text": [("d", "d#1", 1.0)], "new text": [("e", "e#1", 2.0)]})
    golden = record_golden(index, [("q", "old text")], ("bm25",))
    assert verify_golden(index, golden, queries_text_from_golden=False, queries=[("q", "old text"), ("x", "")]).ok
    report = verify_golden(index, golden, queries_text_from_golden=False, queries=[("q", "new text")])
    assert not report.ok and report.changed_texts == (("q", "old text", "new text"),)
    assert {d.passage_id: d.kind for d in report.differences} == {"d#1": "dropped", "e#1": "added"}
    assert 'text changed: "old text" -> "new text"' in format_report(report)
    with pytest.raises(InputError, match="recorded query 'q' is not among"):
        verify_golden(index, golden, queries_text_from_golden=False, queries=[("x", "old text")])


def test_crlf_line_ends_read_the_same(tmp_path):
    text = golden_path("regulations", "bm25").read_text(encoding="utf-8")
    path = tmp_path / "crlf.golden"
    path.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    assert read_golden(path) == read_golden(golden_path("regulations", "bm25"))
