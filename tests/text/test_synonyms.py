"""Solr synonyms.txt parsing (regrag.text.synonyms): equivalences, one-way
rules, comments, escapes, and errors naming the file and the line."""

from __future__ import annotations

import hashlib

import pytest

from regrag.errors import InputError
from regrag.text.synonyms import SynonymRule, parse_synonyms, read_synonyms


def test_equivalence_and_one_way_rules_with_comments():
    text = "# a comment\n\npenalty, fine ,  sanction\n  # indented comment\ni-pod, i pod => ipod\n"
    rules = parse_synonyms(text, "s.txt").rules
    assert rules == (
        SynonymRule(3, ("penalty", "fine", "sanction"), ("penalty", "fine", "sanction"), False),
        SynonymRule(5, ("i-pod", "i pod"), ("ipod",), True),
    )
    assert rules[0].mappings()[1] == ("fine", ("penalty", "sanction"))
    assert rules[1].mappings() == (("i-pod", ("ipod",)), ("i pod", ("ipod",)))


def test_escapes_and_whitespace():
    rules = parse_synonyms("a\\,a => b\\=>b\nfoo   bar, baz\\\\qux\n", "s.txt").rules
    assert rules[0].inputs == ("a,a",) and rules[0].outputs == ("b=>b",)
    assert rules[1].inputs == ("foo bar", "baz\\qux")


def test_single_entry_line_is_no_rule():
    assert parse_synonyms("lonely\n", "s.txt").rules == ()


@pytest.mark.parametrize("line, message", [
    ("a => b => c", "more than one '=>'"),
    ("a,, b", "empty synonym entry"),
    ("a, b,", "empty synonym entry"),
    ("=> b", "empty synonym entry"),
])
def test_errors_name_file_and_line(line, message):
    with pytest.raises(InputError) as error:
        parse_synonyms(f"# ok\nx, y\n{line}\n", "mine.txt")
    assert "mine.txt, line 3" in str(error.value) and message in str(error.value)


def test_read_hashes_the_bytes_and_names_the_file(tmp_path):
    path = tmp_path / "finance.txt"
    data = "\ufeffpenalty, fine\r\nkept => retained\r\n".encode("utf-8")
    path.write_bytes(data)
    found = read_synonyms(path)
    assert found.name == "finance.txt" and found.sha256 == hashlib.sha256(data).hexdigest()
    assert [r.line for r in found.rules] == [1, 2] and found.rules[0].inputs == ("penalty", "fine")
    # the text kept for the ledger hashes to the same value when parsed again
    assert parse_synonyms(found.text, found.name).sha256 == found.sha256


def test_unreadable_and_invalid_files(tmp_path):
    with pytest.raises(InputError, match="cannot read synonyms file"):
        read_synonyms(tmp_path / "absent.txt")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"a, b\nc, \xff\n")
    with pytest.raises(InputError, match="bad.txt, line 2: synonyms file is not valid UTF-8"):
        read_synonyms(bad)
