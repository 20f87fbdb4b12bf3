"""Regressions for defects found in the end-of-session review (each was reproduced first)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from regrag import Index, InputError
from regrag.cli import main
from regrag.corpus.load import load_corpus
from regrag.text.analyzer import detect_language

REPO = Path(__file__).resolve().parents[1]


ENGLISH_WITH_NAME = (
    "Contact: Nguyễn Thị Ánh, account manager. Monthly fees are charged on accounts whose balance "
    "falls below the minimum at the end of a calendar month, and they are waived for customers under 25."
)


def test_english_text_quoting_a_vietnamese_name_stays_english(tmp_path):
    assert detect_language(ENGLISH_WITH_NAME) == "en"
    assert detect_language("Ai đã giành Super Bowl XLIX?") == "vi"
    (tmp_path / "a.md").write_text(ENGLISH_WITH_NAME + "\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("Monthly fees are charged on accounts held here.\n", encoding="utf-8")
    hits = Index.from_path(tmp_path).search("monthly fees", method="bm25")
    assert {h.document_id for h in hits} == {"a.md", "b.md"}


def test_ask_honours_rrf_depth(default_index):
    question = "margin interest rate fee"
    from regrag.answer.lexicon import builtin_synonyms
    from regrag.retrieval.options import SearchOptions

    shallow = default_index.ask(question, rrf_depth=5, threshold=0.0)  # ask searches with the built-in synonyms
    searched = default_index.search(question, options=SearchOptions(k=5, rrf_depth=5, synonyms=builtin_synonyms()))
    assert [h.score for h in shallow.hits] == [h.score for h in searched]


def test_ask_validates_threshold_and_sentences(default_index):
    for bad in (float("nan"), -0.1, 1.5, True):
        with pytest.raises(InputError):
            default_index.ask("fee", threshold=bad)
    with pytest.raises(InputError):
        default_index.ask("fee", max_sentences=0)


def test_title_only_match_is_not_reported_as_below_threshold(tmp_path, capsys):
    (tmp_path / "a.md").write_text("# Overdraft\n\nWe bill 35 dollars per item.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# Savings\n\nInterest is paid monthly.\n", encoding="utf-8")
    assert main(["ask", "overdraft", "--corpus", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "only in their titles" in out and "below the threshold" not in out


@pytest.mark.parametrize("line", ["[" * 100_000, '{"id": ' + "1" * 5000 + ', "text": "x"}'])
def test_pathological_json_is_an_input_error(tmp_path, line):
    path = tmp_path / "docs.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"docs\.jsonl:1: malformed JSON"):
        load_corpus(path)


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses non-UTF-8 file names")
def test_non_utf8_file_name_is_an_input_error(tmp_path):
    os.close(os.open(os.path.join(os.fsencode(tmp_path), b"\xff.md"), os.O_CREAT | os.O_WRONLY))
    with pytest.raises(InputError, match="not valid UTF-8"):
        load_corpus(tmp_path)


@pytest.mark.parametrize("suffix", ["#²", "#03", "#٣", "#0"])
def test_passage_ids_are_canonical(default_index, suffix):
    with pytest.raises(InputError, match="no passage"):
        default_index.explain("fee", "golden-lotus-platinum-credit-card.md" + suffix)


def test_key_value_first_line_without_blank_line_is_text(tmp_path):
    (tmp_path / "w.txt").write_text("warning: the overdraft fee is 35 dollars.\nCall us for details.\n", encoding="utf-8")
    (tmp_path / "u.md").write_text("http://example.invalid/terms\n\nFees apply.\n", encoding="utf-8")
    documents = {d.id: d for d in load_corpus(tmp_path).documents}
    assert documents["w.txt"].metadata == () and documents["u.md"].metadata == ()
    hits = Index.from_path(tmp_path).search("overdraft fee")
    assert hits[0].document_id == "w.txt"


def test_entity_offsets_index_the_query_as_given(default_index):
    for query in ["Straße Harbourline fees", "ﬁle Northquill margin"]:
        (hit,) = default_index.search(query, k=1)
        for match in hit.entities.matches:
            assert query[match.start : match.end].casefold() == match.name


def test_output_is_utf8_whatever_the_locale():
    environment = dict(os.environ, PYTHONIOENCODING="latin-1", PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-m", "regrag", "search", "annual fee", "-k", "1"],
                            capture_output=True, env=environment, timeout=120)
    assert result.returncode == 0 and "›".encode("utf-8") in result.stdout


def test_query_with_undecodable_bytes_is_an_input_error(capsys):
    assert main(["search", "fee \udcff"]) == 2
    assert "argument 2 is not valid UTF-8" in capsys.readouterr().err


def test_beir_metadata_may_hold_lists_and_null(tmp_path):
    record = {"_id": "d", "title": "", "text": "x", "metadata": {"authors": ["a", "b"], "year": None, "n": 2}}
    (tmp_path / "corpus.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    (document,) = load_corpus(tmp_path).documents
    assert document.metadata == (("authors", '["a","b"]'), ("n", "2"), ("year", "null"))


def test_links_and_special_files_are_listed_as_skipped(tmp_path):
    (tmp_path / "a.md").write_text("text\n", encoding="utf-8")
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    outside.mkdir()
    (outside / "x.md").write_text("outside\n", encoding="utf-8")
    (tmp_path / "linked").symlink_to(outside, target_is_directory=True)
    (tmp_path / "dangling.md").symlink_to(tmp_path / "missing.md")
    # a link leaving the corpus root is refused unless allowed (issue 7); allowed, it is listed
    with pytest.raises(InputError, match="linked"):
        load_corpus(tmp_path)
    corpus = load_corpus(tmp_path, allow_symlinks_outside=True)
    assert [d.id for d in corpus.documents] == ["a.md"]
    assert dict(corpus.skipped) == {
        "dangling.md": "not a regular file (a broken link, a pipe or a device)",
        "linked": "symbolic link to a directory (not followed)",
    }


# --- review of 2026-11-30 (helper reproduction each) -------------------------------------------


def test_prompt_rendering_is_one_pass():
    from regrag.pipeline.stock_news import render_prompt

    rendered = render_prompt("Q: {question}\nP:\n{passages}", "What did HPG earn?",
                             [(1, "T", "Template syntax uses {question} literally.")])
    assert rendered == "Q: What did HPG earn?\nP:\n[1] T\nTemplate syntax uses {question} literally."


def test_a_not_found_answer_states_no_figures():
    from regrag import Index
    from regrag.pipeline.stock_news import PipelineConfig, StockNewsPipeline

    index = Index.from_path("corpora/vn-stock-news/documents")
    answer = StockNewsPipeline(index, None, config=PipelineConfig(mode="lexical")).ask("?")
    assert answer.verdict == "not-found" and answer.faithfulness.checks == () and answer.faithfulness.faithful


@pytest.mark.parametrize("moment", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
def test_as_of_at_the_ends_of_the_calendar_is_an_input_error(moment):
    from regrag.io.clock import parse_timestamp

    with pytest.raises(InputError, match="ISO 8601"):
        parse_timestamp(moment)


def test_replay_reports_malformed_records_instead_of_crashing(tmp_path):
    from regrag import Index
    from regrag.audit.ledger import append_record
    from regrag.audit.replay import replay_ledger

    index = Index.from_path("corpora/regulations/documents")
    index.save(tmp_path / "index")
    ledger = tmp_path / "ledger.jsonl"
    base = {"command": "search", "query": "liquidity", "index_id": index.index_id, "results": []}
    append_record(ledger, dict(base, options=["abc"], generation=1))
    append_record(ledger, dict(base, options={}, generation=True))
    outcome = replay_ledger(ledger, tmp_path / "index")
    assert not outcome.ok
    assert outcome.lines[0].startswith("record 1: NOT REPLAYED: malformed record: options")
    assert outcome.lines[1].startswith("record 2: NOT REPLAYED: malformed record: generation True")


def test_a_template_that_is_not_utf8_or_escapes_the_prompt_folder_is_an_input_error(tmp_path):
    from regrag.pipeline.stock_news import load_template

    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff{question}{passages}")
    with pytest.raises(InputError, match="not valid UTF-8"):
        load_template(str(bad))
    with pytest.raises(InputError, match="a packaged name"):
        load_template("../../etc/passwd")


def test_a_huge_bracketed_number_is_text_not_a_citation():
    from regrag.answer.faithfulness import check_answer

    report = check_answer("Revenue rose [" + "1" * 5000 + "].", ["Revenue rose."])
    assert report.citations == () and report.unknown_citations == ()
