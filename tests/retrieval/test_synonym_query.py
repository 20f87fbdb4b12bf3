"""Query-time synonyms (regrag.retrieval.synonym_query, docs/synonyms.md):
the expansion is exact (each added term scored as if typed once), recorded
in every hit and the ledger, and absent unless asked for in ``search``."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from regrag import Index
from regrag.answer.lexicon import BUILTIN_TEXT, LEXICON_SHA256, builtin_synonyms, resolve_synonyms
from regrag.cli import main
from regrag.errors import InputError
from regrag.retrieval.options import SearchOptions
from regrag.retrieval.synonym_query import expand_query
from regrag.text.synonyms import parse_synonyms

REGULATIONS = "corpora/regulations/documents"


def make(text: str):
    return parse_synonyms(text, "test.txt")


@pytest.fixture(scope="module")
def regulations():
    return Index.from_path(REGULATIONS)


def test_equivalence_adds_the_other_entries_terms(regulations):
    analyzed = regulations.analyze_query("penalties for insider dealing")
    expanded = expand_query(regulations.analyzer, analyzed, make("penalty, fine, sanction\n"))
    assert set(expanded.terms) == set(analyzed.terms) | {"fine", "sanction"}
    assert dict(zip(expanded.terms, expanded.counts))["fine"] == 1
    step, = expanded.synonyms.steps
    assert (step.line, step.matched, step.added, step.removed) == (1, "penalty", ("fine", "sanction"), ())
    assert expanded.synonyms.original_terms == analyzed.terms


def test_one_way_rule_replaces_the_matched_terms(regulations):
    analyzed = regulations.analyze_query("insider dealing penalty")
    expanded = expand_query(regulations.analyzer, analyzed, make("insider dealing => market abuse\n"))
    assert "insid" not in expanded.terms and "deal" not in expanded.terms
    assert {"market", "abus"} <= set(expanded.terms) and "penalti" in expanded.terms
    assert expanded.synonyms.steps[0].removed == ("deal", "insid")
    kept = expand_query(regulations.analyzer, analyzed, make("insider dealing => insider dealing, market abuse\n"))
    assert {"insid", "deal", "market", "abus"} <= set(kept.terms) and kept.synonyms.steps[0].removed == ()


def test_phrases_match_only_as_a_contiguous_run(regulations):
    rules = make("beneficial owner, controller\n")
    near = expand_query(regulations.analyzer, regulations.analyze_query("who is the beneficial owner"), rules)
    apart = expand_query(regulations.analyzer, regulations.analyze_query("owner of a beneficial interest"), rules)
    assert "control" in near.terms and "control" not in apart.terms and apart.synonyms.steps == ()


def test_no_synonyms_is_the_plain_query(regulations):
    analyzed = regulations.analyze_query("penalty")
    assert expand_query(regulations.analyzer, analyzed, None) is analyzed


def test_expanded_search_scores_as_the_typed_terms(regulations):
    # BM25 scores distinct terms, so the expansion of "penalty" by "fine,
    # sanction" ranks exactly as the query "penalty fine sanction" does.
    rules = make("penalty, fine, sanction\n")
    for method in ("bm25", "tfidf", "hybrid"):
        expanded = regulations.search("penalty", options=SearchOptions(k=10, method=method, synonyms=rules))
        typed = regulations.search("penalty fine sanction", options=SearchOptions(k=10, method=method))
        assert [(h.passage_id, h.score) for h in expanded] == [(h.passage_id, h.score) for h in typed]
        assert expanded[0].query_terms == typed[0].query_terms and expanded[0].query == "penalty"


def test_every_hit_records_the_set_and_steps(regulations):
    hits = regulations.search("penalty for insider dealing", options=SearchOptions(synonyms=builtin_synonyms()))
    record = json.loads(hits[0].to_json())["synonyms"]
    assert record["name"] == "builtin" and record["sha256"] == LEXICON_SHA256 and record["version"]
    assert record["steps"][0]["matched"] == "penalty" and "sanction" in record["steps"][0]["added"]
    assert hits[0].passage_id.endswith("insider-dealing.md#12")
    plain = regulations.search("penalty for insider dealing")
    assert "synonyms" not in json.loads(plain[0].to_json())


def test_expansion_is_deterministic(regulations):
    rules = builtin_synonyms()
    first = regulations.search("penalty fee kept deadline", options=SearchOptions(synonyms=rules))
    again = regulations.search("penalty fee kept deadline", options=SearchOptions(synonyms=make(BUILTIN_TEXT)))
    assert [h.to_dict()["synonyms"]["steps"] for h in first] == [h.to_dict()["synonyms"]["steps"] for h in again]
    assert [h.passage_id for h in first] == [h.passage_id for h in again]


def test_resolve_and_bad_options(tmp_path):
    assert resolve_synonyms("none") is None and resolve_synonyms("builtin") is builtin_synonyms()
    with pytest.raises(InputError, match="SynonymSet"):
        SearchOptions(synonyms="builtin")
    bad = tmp_path / "bad.txt"
    bad.write_text("a, b\nc => d => e\n", encoding="utf-8")
    with pytest.raises(InputError, match="bad.txt, line 2"):
        resolve_synonyms(str(bad))


def run(capsys, *arguments):
    status = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_search_cli_default_has_no_synonyms_and_builtin_is_shown(capsys):
    _s, plain, _e = run(capsys, "search", "penalty for insider dealing", "--corpus", REGULATIONS)
    _s, none, _e = run(capsys, "search", "penalty for insider dealing", "--corpus", REGULATIONS, "--synonyms", "none")
    assert plain == none and "synonyms:" not in plain
    _s, expanded, _e = run(capsys, "search", "penalty for insider dealing", "--corpus", REGULATIONS,
                           "--synonyms", "builtin")
    assert "synonyms: builtin sha256 " + LEXICON_SHA256[:16] in expanded and "penalty (line" in expanded


def test_cli_names_a_bad_file_and_line(capsys, tmp_path):
    bad = tmp_path / "mine.txt"
    bad.write_text("# x\nfine,, penalty\n", encoding="utf-8")
    status, _out, err = run(capsys, "search", "penalty", "--corpus", REGULATIONS, "--synonyms", bad)
    assert status == 2 and "mine.txt, line 2" in err and "Traceback" not in err


def test_ask_cli_synonyms_none_turns_them_off(capsys):
    status, out, _e = run(capsys, "ask", "What is the penalty for insider dealing?", "--corpus", REGULATIONS)
    assert status == 0 and "VLR 15,000,000" in out and "synonyms: builtin" in out
    status, out, _e = run(capsys, "ask", "What is the penalty for insider dealing?", "--corpus", REGULATIONS,
                          "--synonyms", "none")
    assert status == 1 and "synonyms:" not in out


def test_ledger_records_and_replays_a_file_set(capsys, tmp_path):
    index_dir = tmp_path / "index"
    assert main(["index", REGULATIONS, "--out", str(index_dir)]) == 0
    rules = tmp_path / "rules.txt"
    rules.write_text("insider dealing => insider dealing, market abuse\npenalty, fine\n", encoding="utf-8")
    ledger = tmp_path / "ledger.jsonl"
    run(capsys, "search", "penalty for insider dealing", "--index", index_dir, "--synonyms", rules, "--ledger", ledger)
    run(capsys, "ask", "What is the penalty for insider dealing?", "--index", index_dir, "--ledger", ledger)
    run(capsys, "ask", "What is the penalty for insider dealing?", "--index", index_dir, "--synonyms", "none",
        "--ledger", ledger)
    lines = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    options = [line.get("record", line)["options"] for line in lines]
    assert options[0]["synonyms"]["name"] == "rules.txt" and options[0]["synonyms"]["text"] == rules.read_text()
    assert options[1]["synonyms"] == {"name": "builtin", "sha256": LEXICON_SHA256,
                                      "version": builtin_synonyms().version}
    assert "synonyms" not in options[2]
    rules.unlink()  # the replay needs no file: the record carries its text
    status, out, _e = run(capsys, "ledger", "replay", ledger, "--index", index_dir)
    assert status == 0 and "3 of 3 records replayed identically" in out, out


def test_ask_options_default_to_builtin(regulations):
    from regrag.answer.options import AskOptions

    assert AskOptions().search.synonyms is builtin_synonyms()
    answer = regulations.ask("How long are records kept?")
    assert answer.confidence.lexicon == builtin_synonyms().version
    off = regulations.ask("How long are records kept?", options=AskOptions(replace(AskOptions().search, synonyms=None)))
    assert off.confidence.lexicon == "" and off.hits[0].synonyms is None


def test_explain_cli_synonyms_explain_the_expanded_score(capsys):
    query = "penalty for insider dealing"
    _s, hits, _e = run(capsys, "search", query, "--corpus", REGULATIONS, "--synonyms", "builtin", "--json")
    top = json.loads(hits.splitlines()[0])  # one hit a line, the first is the top
    status, plain, _e = run(capsys, "explain", query, top["passage_id"], "--corpus", REGULATIONS, "--json")
    assert status == 0
    status, expanded, _e = run(capsys, "explain", query, top["passage_id"], "--corpus", REGULATIONS,
                               "--synonyms", "builtin", "--json")
    plain, expanded = json.loads(plain), json.loads(expanded)
    assert set(plain["query_terms"]) < set(expanded["query_terms"])
    assert expanded["bm25"]["score"] != plain["bm25"]["score"] or expanded["tfidf"]["score"] != plain["tfidf"]["score"]
    _s, none, _e = run(capsys, "explain", query, top["passage_id"], "--corpus", REGULATIONS, "--synonyms", "none", "--json")
    assert json.loads(none) == plain
    bad_status, _out, err = run(capsys, "explain", query, top["passage_id"], "--corpus", REGULATIONS, "--synonyms", "nope.txt")
    assert bad_status == 2 and "nope.txt" in err and "Traceback" not in err


def test_the_docs_count_the_builtin_equivalences():
    # docs/synonyms.md states how many lines the built-in lexicon has; a new entry must update it
    from pathlib import Path
    lines = [line for line in BUILTIN_TEXT.splitlines() if line.strip() and not line.startswith("#")]
    docs = (Path(__file__).resolve().parents[2] / "docs" / "synonyms.md").read_text(encoding="utf-8")
    assert f"{len(lines)} equivalences (lines of `BUILTIN_TEXT`)" in docs


def test_ask_reads_khuyen_as_khuyen_nghi():
    # regrag-lexicon/3: the report says "khuyến nghị giữ tỷ trọng cổ phiếu ở mức 60%"
    from pathlib import Path

    from regrag.answer.options import AskOptions
    index = Index.from_path(Path(__file__).resolve().parents[2] / "corpora" / "vn-stock-news" / "documents")
    answer = index.ask("Chuyên gia Kim Việt khuyên nắm giữ bao nhiêu phần trăm cổ phiếu đầu tháng 1/2026?")
    assert answer.found and answer.short_answer.text == "60%"
    assert answer.confidence.synonyms == ("khuyên~khuyến nghị",)
    plain = index.ask("Chuyên gia Kim Việt khuyên nắm giữ bao nhiêu phần trăm cổ phiếu đầu tháng 1/2026?",
                      options=AskOptions(replace(AskOptions().search, synonyms=None)))
    assert not plain.found  # without the lexicon "khuyên" is missing evidence
