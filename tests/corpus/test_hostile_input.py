"""Issue 7: corpus loading under hostile input, with real files in tmp_path.

Every attack ends in one of two ways: an ``InputError`` whose message starts
with the file (and ``:LINE:`` when a line is to blame), or a documented,
recorded treatment (docs/corpus.md, "Hostile input and limits"). Nothing is
skipped silently, and with ``errors="collect"`` the rest of a batch loads.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

import pytest

from regrag.corpus.folder import NOT_A_DOCUMENT
from hypothesis import event, given, settings
from hypothesis import strategies as st

from regrag.cli import main
from regrag.corpus.load import Corpus, load_corpus
from regrag.corpus.model import Document, Section
from regrag.corpus.passages import split_passages
from regrag.errors import InputError
from regrag.io import system
from regrag.io.system import FileSystem
from regrag.limits import LimitError, Limits

REPO = Path(__file__).resolve().parents[2]
NOT_LOADED = "nothing was loaded"
TEXT_WHITESPACE_CONTROLS = "\t\n\x0b\x0c\r"  # the only C0 controls text may hold
BIDI_CONTROL_CLASSES = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}
RUNNING_AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def jsonl(*records: object) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def load_error(path: Path, where: str, line: int | None, **options) -> str:
    """load_corpus(path) raises InputError whose message starts with ``where`` (``:line:`` appended when given)."""
    with pytest.raises(InputError) as info:
        load_corpus(path, **options)
    message = str(info.value)
    prefix = f"{where}:{line}: " if line is not None else f"{where}: "
    assert message.startswith(prefix), message
    assert "\n" not in message
    return message


# ---------------------------------------------------------------- invalid UTF-8

@pytest.mark.parametrize("suffix", [".md", ".txt"])
@pytest.mark.parametrize(
    "data, line",
    [
        (b"\xff\n", 1),
        (b"ok\n\xc3(\n", 2),
        (b"a\nb\nc\xe2\x82\n", 3),  # truncated sequence at the end of a line
        (b"a\n\n\n\xed\xa0\x80\n", 4),  # an encoded surrogate is not UTF-8
        (b"x\xc0\xaf", 1),  # overlong encoding of "/"
    ],
)
def test_invalid_utf8_in_text_files_names_the_line(tmp_path, suffix, data, line):
    path = write(tmp_path / f"bad{suffix}", data)
    message = load_error(path, str(path), line)
    assert "invalid UTF-8" in message and NOT_LOADED in message


@pytest.mark.parametrize("beir", [False, True], ids=["jsonl", "beir"])
def test_invalid_utf8_in_a_json_line_names_the_line(tmp_path, beir):
    key = "_id" if beir else "id"
    data = jsonl({key: "a", "text": "x"}).encode() + b'{"' + key.encode() + b'": "b", "text": "\xff"}\n'
    path = write(tmp_path / ("corpus.jsonl" if beir else "docs.jsonl"), data)
    assert "invalid UTF-8" in load_error(tmp_path if beir else path, str(path), 2)


def _first_bad_line(data: bytes) -> int | None:
    """Oracle: the line the loader must name. A file is decoded whole before
    its characters are checked, so the first line that is not valid UTF-8
    (judged alone: a line break cannot sit inside a UTF-8 sequence) comes
    first; in a file that decodes, the first line with a refused control
    character."""
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return number
    for number, raw in enumerate(lines, start=1):
        if any(ord(c) < 0x20 and c not in TEXT_WHITESPACE_CONTROLS or c == "\x7f" for c in raw.decode("utf-8")):
            return number
    return None


@settings(max_examples=300, deadline=None)
@given(
    data=st.one_of(
        st.binary(max_size=300),
        st.text(max_size=200).map(lambda text: text.encode("utf-8")),
        st.lists(st.sampled_from(["# T\n", "k: v\n", "\n", "text\r\n", "\x00", "\x1b", "\t", "\x0c", "é", "\ufeff"]),
                 max_size=12).map(lambda parts: "".join(parts).encode("utf-8")),
    ),
    suffix=st.sampled_from([".md", ".txt"]),
)
def test_arbitrary_bytes_as_a_text_file(data, suffix):
    with tempfile.TemporaryDirectory() as directory:
        path = write(Path(directory) / f"doc{suffix}", data)
        try:
            corpus = load_corpus(path)
        except InputError as error:
            message = str(error)
            assert message.startswith(f"{path}:"), message
            line = int(message[len(str(path)) + 1 :].split(":", 1)[0])
            event("refused: " + ("UTF-16/32" if "looks like UTF-" in message else "invalid UTF-8" if "UTF-8" in message
                                 else "control character" if "control character" in message else "repeated metadata key"))
            if "looks like UTF-" in message:  # judged from the file's first bytes
                assert line == 1
            elif "given twice" in message:  # a repeated metadata key
                assert message.split("'")[1] + ":" in data.split(b"\n")[line - 1].decode()
            else:
                assert line == _first_bad_line(data), message
            return
        event("accepted")
        (document,) = corpus.documents
        assert document.text == data.decode("utf-8")  # exactly the file
        assert _first_bad_line(data) is None


# ---------------------------------------------------------------- UTF-16 and UTF-32

WIDE_ENCODINGS = [
    # (Python codec, bytes prefix, what the message says, the iconv name suggested)
    ("utf-16-le", b"\xff\xfe", "UTF-16 (little-endian, with a byte-order mark)", "UTF-16"),
    ("utf-16-be", b"\xfe\xff", "UTF-16 (big-endian, with a byte-order mark)", "UTF-16"),
    ("utf-16-le", b"", "UTF-16 (little-endian, no byte-order mark", "UTF-16LE"),
    ("utf-16-be", b"", "UTF-16 (big-endian, no byte-order mark", "UTF-16BE"),
    ("utf-32-le", b"\xff\xfe\x00\x00", "UTF-32 (little-endian, with a byte-order mark)", "UTF-32"),
    ("utf-32-be", b"\x00\x00\xfe\xff", "UTF-32 (big-endian, with a byte-order mark)", "UTF-32"),
]


@pytest.mark.parametrize("codec, prefix, described, iconv_name", WIDE_ENCODINGS)
@pytest.mark.parametrize("kind", ["md", "txt", "jsonl", "beir"])
def test_utf16_and_utf32_files_are_named_as_such(tmp_path, codec, prefix, described, iconv_name, kind):
    if kind in ("md", "txt"):
        content = "# Title\nSome body text in a file.\n"
        path = write(tmp_path / f"wide.{kind}", prefix + content.encode(codec))
        target = path
    else:
        key = "_id" if kind == "beir" else "id"
        content = jsonl({key: "a", "text": "some text"})
        path = write(tmp_path / ("corpus.jsonl" if kind == "beir" else "wide.jsonl"), prefix + content.encode(codec))
        target = tmp_path if kind == "beir" else path
    message = load_error(target, str(path), 1)
    assert f"looks like {described}" in message
    assert f"iconv -f {iconv_name} -t UTF-8" in message


def test_utf16_file_in_a_folder_is_named(tmp_path):
    write(tmp_path / "good.md", "# Good\n")
    path = write(tmp_path / "sub" / "notes.txt", "plain notes\n".encode("utf-16"))
    assert "looks like UTF-16" in load_error(tmp_path, str(path), 1)


def test_utf16_queries_file_is_named_by_the_evaluation_reader(tmp_path):
    from regrag.eval.beir import read_queries

    path = write(tmp_path / "queries.jsonl", jsonl({"_id": "q", "text": "x"}).encode("utf-16-le"))
    with pytest.raises(InputError, match="^" + re.escape(f"{path}:1: the file looks like UTF-16")):
        read_queries(path)


# ---------------------------------------------------------------- NUL and control characters

CONTROL_CODES = [*range(0x20), 0x7F]


@pytest.mark.parametrize("code", CONTROL_CODES, ids=lambda code: f"U+{code:04X}")
@pytest.mark.parametrize("suffix", [".md", ".txt"])
def test_control_character_in_a_text_file(tmp_path, code, suffix):
    character = chr(code)
    path = write(tmp_path / f"c{suffix}", f"# Title\nab{character}cd\nlast line\n")
    if character in TEXT_WHITESPACE_CONTROLS:
        (document,) = load_corpus(path).documents
        assert character in document.text
    else:
        message = load_error(path, str(path), 2)
        assert f"U+{code:04X} at column 3" in message


JSON_TEXT_FIELDS = {
    # where the character goes -> (record, the field name the message gives)
    "text": (lambda s: {"id": "a", "text": s}, "text"),
    "title": (lambda s: {"id": "a", "title": s, "text": "x"}, "title"),
    "section title": (lambda s: {"id": "a", "sections": [{"title": s, "text": "x"}]}, "sections[0].title"),
    "section text": (lambda s: {"id": "a", "sections": [{"title": "t", "text": "y"}, {"title": "u", "text": s}]}, "sections[1].text"),
    "metadata key": (lambda s: {"id": "a", "text": "x", "metadata": {s: "v"}}, "metadata key"),
    "metadata value": (lambda s: {"id": "a", "text": "x", "metadata": {"k": s}}, "metadata.k"),
}


@pytest.mark.parametrize("code", CONTROL_CODES, ids=lambda code: f"U+{code:04X}")
@pytest.mark.parametrize("field", sorted(JSON_TEXT_FIELDS))
def test_control_character_in_every_jsonl_string_field(tmp_path, code, field):
    make, name = JSON_TEXT_FIELDS[field]
    path = write(tmp_path / "c.jsonl", jsonl({"id": "first", "text": "ok"}, make(f"ab{chr(code)}")))
    if chr(code) in TEXT_WHITESPACE_CONTROLS:
        assert [d.id for d in load_corpus(path).documents] == ["a", "first"]
    else:
        message = load_error(path, str(path), 2)
        assert f"field {name!r} contains" in message and f"U+{code:04X} at character 3" in message


@pytest.mark.parametrize("code", [0x00, 0x1B, 0x7F])
@pytest.mark.parametrize("field", ["text", "title", "metadata"])
def test_control_character_in_beir_fields(tmp_path, code, field):
    record = {"_id": "a", "title": "t", "text": "x", "metadata": {}}
    if field == "metadata":
        record["metadata"] = {"k": chr(code)}
    else:
        record[field] = chr(code)
    path = write(tmp_path / "corpus.jsonl", jsonl({"_id": "first", "text": "ok"}, record))
    assert f"U+{code:04X}" in load_error(tmp_path, str(path), 2)


def test_control_characters_in_nested_beir_metadata_are_kept_escaped(tmp_path):
    """BEIR's lenient metadata keeps nested values as canonical JSON, which escapes them."""
    write(tmp_path / "corpus.jsonl", jsonl({"_id": "a", "text": "x", "metadata": {"k": ["\x00\x1b"]}}))
    (document,) = load_corpus(tmp_path).documents
    assert document.metadata == (("k", '["\\u0000\\u001b"]'),)


@pytest.mark.parametrize("character", ["\x85", "\x9b", "\u200b", "\u202e", "\ufeff"])
def test_c1_and_format_characters_are_accepted_in_text(tmp_path, character):
    """Published data sets hold them (SciFact has C1 controls from Windows-1252): text keeps them as they are."""
    path = write(tmp_path / "t.jsonl", jsonl({"id": "a", "text": f"x{character}y"}))
    assert load_corpus(path).documents[0].text == f"x{character}y"


# ---------------------------------------------------------------- lone surrogates

@pytest.mark.parametrize(
    "line",
    [
        r'{"_id": "a\ud800", "text": "x"}',
        r'{"_id": "a", "title": "\udbff", "text": "x"}',
        r'{"_id": "a", "text": "\udc00"}',
        r'{"_id": "a", "text": "x", "metadata": {"\ud800": "v"}}',
        r'{"_id": "a", "text": "x", "metadata": {"k": "\ud800"}}',
        r'{"_id": "a", "text": "x", "metadata": {"k": ["\ud800"]}}',
        r'{"_id": "a", "text": "x", "metadata": {"k": {"\ud800": 1}}}',
        r'{"_id": "a", "text": "\ude00\ud83d"}',  # a pair in the wrong order
    ],
    ids=["id", "title", "text", "metadata-key", "metadata-value", "nested-value", "nested-key", "reversed-pair"],
)
def test_lone_surrogates_in_every_beir_field(tmp_path, line):
    path = write(tmp_path / "corpus.jsonl", jsonl({"_id": "ok", "text": "fine"}) + line + "\n")
    assert "lone surrogate" in load_error(tmp_path, str(path), 2)


# ---------------------------------------------------------------- deep and wrong-typed JSON

@pytest.mark.parametrize("depth, accepted", [(63, True), (64, False), (1000, False), (100_000, False)])
def test_json_nesting_has_a_fixed_limit(tmp_path, depth, accepted):
    """The record is one level; 63 more are accepted, 64 are not, whatever the stack depth."""
    nested = "[" * depth + "]" * depth
    path = write(tmp_path / "deep.jsonl", '{"id": "a", "text": "x", "extra": ' + nested + "}\n")
    if accepted:
        assert [d.id for d in load_corpus(path).documents] == ["a"]
    else:
        assert "malformed JSON (nested more than 64 levels deep)" in load_error(path, str(path), 1)


def test_deep_lenient_beir_metadata_at_the_limit_is_kept(tmp_path):
    value: object = 1
    for _ in range(62):  # record, metadata object, 62 lists: 64 levels
        value = [value]
    write(tmp_path / "corpus.jsonl", json.dumps({"_id": "a", "text": "x", "metadata": {"k": value}}) + "\n")
    (document,) = load_corpus(tmp_path).documents
    assert document.metadata == (("k", "[" * 62 + "1" + "]" * 62),)


@pytest.mark.parametrize(
    "line",
    ["[" * 100_000, "{" * 100_000, '{"a":' * 100_000, '{"id": "a", "text": "x", "n": ' + "9" * 5000 + "}"],
    ids=["lists", "braces", "objects", "long-integer"],
)
def test_pathological_json_is_an_error_not_a_crash(tmp_path, line):
    path = write(tmp_path / "p.jsonl", line + "\n")
    assert "malformed JSON" in load_error(path, str(path), 1)


json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=8,
)


printable_text = st.text(st.characters(exclude_categories=("Cc", "Cs")), max_size=8)
PLAUSIBLE_VALUES = {  # well-formed values, so the accepting side is exercised as much as the refusing one
    "id": printable_text | st.integers(),
    "title": printable_text,
    "text": printable_text,
    "metadata": st.dictionaries(printable_text, printable_text | st.integers() | st.floats(), max_size=3),
    "sections": st.lists(st.fixed_dictionaries({"title": printable_text, "text": printable_text}), min_size=1, max_size=3),
}


@settings(max_examples=250, deadline=None)
@given(data=st.data(), field=st.sampled_from(sorted(PLAUSIBLE_VALUES)), beir=st.booleans())
def test_arbitrary_json_value_in_each_field(data, field, beir):
    """Any JSON value in any field: the document loads with that value, or the error names line 2."""
    value = data.draw(json_values | PLAUSIBLE_VALUES[field], label="value")
    key = "_id" if beir and field == "id" else field
    record: dict = {("_id" if beir else "id"): "doc", "text": "body"}
    if field == "sections":
        del record["text"]
    record[key] = value
    with tempfile.TemporaryDirectory() as directory:
        path = write(Path(directory) / ("corpus.jsonl" if beir else "docs.jsonl"),
                     jsonl({("_id" if beir else "id"): "first", "text": "ok"}, record))
        try:
            corpus = load_corpus(path)
        except InputError as error:
            assert str(error).startswith(f"{path}:2: "), str(error)
            event(f"{field}: refused")
            return
    event(f"{field}: accepted")
    document = {d.id: d for d in corpus.documents}[str(value) if field == "id" else "doc"]
    if field == "id":
        assert isinstance(value, (str, int)) and not isinstance(value, bool)
    elif field == "title":
        assert document.title == ("" if value is None else value)
    elif field == "text":
        assert document.text == value
    elif field == "metadata":
        assert value is None or isinstance(value, dict)
        assert [key for key, _ in document.metadata] == sorted(value or {})
    else:
        assert not beir  # BEIR ignores "sections" and then misses "text"
        assert isinstance(value, list) and value and all(isinstance(item, dict) for item in value)
        assert [document.text[s.start : s.end] for s in document.sections] == [item["text"] for item in value]


# ---------------------------------------------------------------- 100 MB single lines

HUNDRED_MB = 100 * 1024 * 1024


def test_a_100_mb_single_line_text_file_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.md"
    with open(path, "wb") as handle:
        handle.write(b"# Huge\n")
        handle.truncate(HUNDRED_MB)  # a sparse file: 100 MB, most of it NUL, never read
    with pytest.raises(LimitError) as info:
        load_corpus(path)
    assert str(info.value).startswith(f"{path}:1: the document has {HUNDRED_MB:,} bytes; the limit is 67,108,864")
    assert "Limits.document_bytes" in str(info.value)


def test_a_100_mb_json_line_is_a_limit_error_and_collect_keeps_the_others(tmp_path):
    path = tmp_path / "huge.jsonl"
    huge_line = b'{"id": "huge", "text": "' + b"word " * (HUNDRED_MB // 5) + b'"}'
    with open(path, "wb") as handle:
        handle.write(jsonl({"id": "before", "text": "x"}).encode())
        handle.write(huge_line + b"\r\n")  # CRLF: neither byte counts
        handle.write(jsonl({"id": "after", "text": "y"}).encode())
    message = load_error(path, str(path), 2)
    assert f"the line has {len(huge_line):,} bytes; the limit for one document is 67,108,864 bytes" in message
    corpus = load_corpus(path, errors="collect")
    assert [d.id for d in corpus.documents] == ["after", "before"]
    assert [where for where, _ in corpus.rejected] == [f"{path}:2"]


def test_a_100_mb_json_line_loads_under_a_raised_limit(tmp_path):
    path = write(tmp_path / "huge.jsonl", b'{"id": "huge", "text": "' + b"word " * (HUNDRED_MB // 5) + b'"}')
    (document,) = load_corpus(path, limits=Limits(document_bytes=2 * HUNDRED_MB)).documents
    assert len(document.text) == HUNDRED_MB


# ---------------------------------------------------------------- empty files

@pytest.mark.parametrize("name", ["empty.md", "empty.txt"])
def test_an_empty_text_file_is_a_document_found_by_its_title(tmp_path, name):
    write(tmp_path / name, b"")
    (document,) = load_corpus(tmp_path).documents
    assert (document.id, document.title, document.text) == (name, "empty", "")
    assert [(p.id, p.start, p.end) for p in split_passages(document, 100)] == [(f"{name}#1", 0, 0)]


@pytest.mark.parametrize("content", [b"", b"\n\n", b"\xef\xbb\xbf", b"  \r\n\t\n"], ids=["empty", "blank-lines", "bom", "whitespace"])
@pytest.mark.parametrize("beir", [False, True], ids=["jsonl", "beir"])
def test_a_jsonl_file_without_records_is_an_empty_corpus(tmp_path, content, beir):
    path = write(tmp_path / ("corpus.jsonl" if beir else "e.jsonl"), content)
    assert load_corpus(tmp_path if beir else path) == Corpus(())


# ---------------------------------------------------------------- duplicate ids

def test_duplicate_ids_name_both_lines_and_collect_keeps_the_first(tmp_path):
    path = write(tmp_path / "d.jsonl", jsonl({"id": "x", "text": "one"}, {"id": 7, "text": "seven"},
                                             {"id": "x", "text": "two"}, {"id": "7", "text": "again"}))
    assert "duplicate document id 'x' (first on line 1)" in load_error(path, str(path), 3)
    corpus = load_corpus(path, errors="collect")
    assert [(d.id, d.text) for d in corpus.documents] == [("7", "seven"), ("x", "one")]
    assert corpus.rejected == (
        (f"{path}:3", f"{path}:3: duplicate document id 'x' (first on line 1)"),
        (f"{path}:4", f"{path}:4: duplicate document id '7' (first on line 2)"),
    )


def test_a_rejected_line_does_not_claim_its_id(tmp_path):
    path = write(tmp_path / "d.jsonl", jsonl({"id": "x", "text": 5}, {"id": "x", "text": "good"}))
    corpus = load_corpus(path, errors="collect")
    assert [(d.id, d.text) for d in corpus.documents] == [("x", "good")]
    assert [where for where, _ in corpus.rejected] == [f"{path}:1"]


def test_file_names_differing_in_case_are_two_documents(tmp_path):
    write(tmp_path / "A.md", "upper\n")
    write(tmp_path / "a.md", "lower\n")
    if len(os.listdir(tmp_path)) == 1:
        pytest.skip("case-insensitive file system")
    assert [d.id for d in load_corpus(tmp_path).documents] == ["A.md", "a.md"]


# ---------------------------------------------------------------- document ids

@pytest.mark.parametrize(
    "document_id, problem",
    [
        ("a\x00b", "contains U+0000"),
        ("a\nb", "contains U+000A"),
        ("a\tb", "contains U+0009"),
        ("\x1b[31mred", "contains U+001B"),
        ("a\x85b", "contains U+0085"),
        ("a\u202eb", "contains U+202E"),
        ("a\u2066b", "contains U+2066"),
        ("a\u200bb", "contains U+200B"),
        ("a\u2028b", "contains U+2028"),
        ("a\ufeffb", "contains U+FEFF"),
        ("a\U000e0041b", "contains U+E0041"),
        (" a", "starts or ends with whitespace"),
        ("a ", "starts or ends with whitespace"),
        ("a\u00a0", "starts or ends with whitespace"),
        ("\u3000a", "starts or ends with whitespace"),
        ("e\u0301", "is not in Unicode normalization form NFC"),
        ("\u212b", "is not in Unicode normalization form NFC"),  # ANGSTROM SIGN: NFC is U+00C5
    ],
)
@pytest.mark.parametrize("beir", [False, True], ids=["jsonl", "beir"])
def test_unsafe_jsonl_ids_are_refused(tmp_path, document_id, problem, beir):
    key = "_id" if beir else "id"
    path = write(tmp_path / ("corpus.jsonl" if beir else "ids.jsonl"), jsonl({key: "ok", "text": "x"}, {key: document_id, "text": "y"}))
    message = load_error(tmp_path if beir else path, str(path), 2)
    assert problem in message
    assert not any(c in message for c in "\x00\n\t\x1b\x85\u202e\u2066\u200b\u2028\ufeff")  # shown escaped


@pytest.mark.parametrize(
    "document_id",
    ["../../etc/passwd", "/abs/path", "a\\b", "..", "doc#1", "a b", "ça", "文件", "اسم\u200cملف", "👍🏽", "7"],
)
def test_path_like_and_unicode_ids_are_kept_exactly(tmp_path, document_id):
    """A JSONL id is a name, never a path: regrag does not open, create or resolve anything by it."""
    path = write(tmp_path / "ids.jsonl", jsonl({"id": document_id, "text": "some text"}))
    (document,) = load_corpus(path).documents
    assert document.id == document_id


def test_an_id_like_a_path_creates_nothing_outside_the_index(tmp_path, capsys):
    corpus = write(tmp_path / "corpus" / "ids.jsonl", jsonl({"id": "../../escaped", "text": "alpha"}, {"id": "/tmp/x", "text": "beta"}))
    out = tmp_path / "index"
    assert main(["index", str(corpus), "--out", str(out)]) == 0
    everything = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    assert all(p.startswith(("corpus", "index")) for p in everything), everything
    assert main(["prove", str(out), "../../escaped"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["document_id"] == "../../escaped"


hostile_characters = st.sampled_from(
    list("\x00\t\n\r\x1b\x7f\x85\x9b\u00a0\u00ad\u061c\u200b\u200c\u200d\u200e\u202a\u202e\u2028\u2029\u2066\u2069"
         "\u3000\ufeff\ufffd\U000e0001e\u0301\u212b/.#\\ ")
)


@settings(max_examples=400, deadline=None)
@given(document_id=st.text(st.characters(exclude_categories=()) | hostile_characters, min_size=1, max_size=8))
def test_arbitrary_unicode_ids(document_id):
    """Properties an accepted id has wherever it is printed, checked by other means than the loader's."""
    with tempfile.TemporaryDirectory() as directory:
        path = write(Path(directory) / "ids.jsonl", jsonl({"id": "first-document", "text": "x"}, {"id": document_id, "text": "y"}))
        try:
            corpus = load_corpus(path)
        except InputError as error:
            assert str(error).startswith(f"{path}:2: field 'id'"), str(error)
            event("refused")
            return
    event("accepted")
    assert document_id in {d.id for d in corpus.documents}  # kept exactly
    assert document_id == document_id.strip()
    assert len(document_id.splitlines()) == 1  # one line in any output
    assert unicodedata.normalize("NFC", document_id) == document_id
    assert not any(unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") for c in document_id)
    assert not any(unicodedata.bidirectional(c) in BIDI_CONTROL_CLASSES for c in document_id)
    assert json.loads(json.dumps(document_id, ensure_ascii=False)) == document_id


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS normalises file names")
@pytest.mark.parametrize(
    "name, problem",
    [
        ("e\u0301.md", "is not in Unicode normalization form NFC"),
        ("evil\x1b[2J.md", "contains U+001B"),
        ("line\nbreak.md", "contains U+000A"),
        ("rtl\u202egpj.md", "contains U+202E"),
        (" lead.md", "starts or ends with whitespace"),
    ],
)
def test_unsafe_file_names_are_refused_with_the_name_escaped(tmp_path, name, problem):
    write(tmp_path / "good.md", "# Good\n")
    write(tmp_path / name, "# Bad name\n")
    with pytest.raises(InputError) as info:
        load_corpus(tmp_path)
    message = str(info.value)
    assert problem in message and "rename the file" in message
    assert message.startswith(str(tmp_path) + "/") and "\n" not in message and "\x1b" not in message and "\u202e" not in message
    corpus = load_corpus(tmp_path, errors="collect")
    assert [d.id for d in corpus.documents] == ["good.md"] and len(corpus.rejected) == 1


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS normalises file names")
def test_skipped_names_with_control_characters_are_recorded_escaped(tmp_path):
    write(tmp_path / "\x1b[31mscan.xlsx", b"PK")
    corpus = load_corpus(tmp_path)
    assert corpus.skipped == (("\\x1b[31mscan.xlsx", NOT_A_DOCUMENT),)


# ---------------------------------------------------------------- symbolic links

@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the corpus root, with a Markdown file in it."""
    folder = tmp_path / "outside"
    write(folder / "secret.md", "# Secret\nnot part of the corpus\n")
    return folder


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    write(folder / "a.md", "# A\nalpha\n")
    return folder


@pytest.mark.parametrize("link", ["leak.md", "deep/er/leak.md"])
def test_a_link_to_a_file_outside_the_root_is_refused(root, outside, link):
    path = root / link
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(outside / "secret.md")
    message = load_error(root, str(path), None)
    assert f"symbolic link to {outside / 'secret.md'}, outside the corpus folder {root}; refused" in message
    assert "--allow-symlinks-outside" in message


def test_a_link_to_a_folder_outside_the_root_is_refused(root, outside):
    (root / "sub").mkdir()
    (root / "sub" / "elsewhere").symlink_to(outside, target_is_directory=True)
    assert "outside the corpus folder" in load_error(root, str(root / "sub" / "elsewhere"), None)


def test_a_relative_link_climbing_out_is_refused(root, outside):
    (root / "up.md").symlink_to(Path("..") / "outside" / "secret.md")
    assert "outside the corpus folder" in load_error(root, str(root / "up.md"), None)


def test_a_chain_of_links_ending_outside_is_refused(root, outside):
    (root / "hop.md").symlink_to(outside / "secret.md")
    (root / "start.md").symlink_to(root / "hop.md")
    with pytest.raises(InputError, match="outside the corpus folder"):
        load_corpus(root)
    corpus = load_corpus(root, errors="collect")
    assert [where for where, _ in corpus.rejected] == [str(root / "hop.md"), str(root / "start.md")]


def test_a_broken_link_pointing_outside_is_refused(root, tmp_path):
    (root / "gone.md").symlink_to(tmp_path / "nowhere.md")
    assert "outside the corpus folder" in load_error(root, str(root / "gone.md"), None)


def test_links_inside_the_root_keep_their_treatment(root):
    (root / "alias.md").symlink_to(root / "a.md")
    (root / "sub").mkdir()
    (root / "again").symlink_to(root / "sub", target_is_directory=True)
    (root / "dangling.md").symlink_to(root / "missing.md")
    (root / "loop1.md").symlink_to(root / "loop2.md")
    (root / "loop2.md").symlink_to(root / "loop1.md")
    corpus = load_corpus(root)
    assert [(d.id, d.text) for d in corpus.documents] == [("a.md", "# A\nalpha\n"), ("alias.md", "# A\nalpha\n")]
    assert corpus.skipped == (
        ("again", "symbolic link to a directory (not followed)"),
        ("dangling.md", "not a regular file (a broken link, a pipe or a device)"),
        ("loop1.md", "symbolic link in a loop (not followed)"),
        ("loop2.md", "symbolic link in a loop (not followed)"),
    )


def test_allow_symlinks_outside_follows_files_and_records_folders(root, outside):
    (root / "leak.md").symlink_to(outside / "secret.md")
    (root / "elsewhere").symlink_to(outside, target_is_directory=True)
    corpus = load_corpus(root, allow_symlinks_outside=True)
    assert [d.id for d in corpus.documents] == ["a.md", "leak.md"]
    assert corpus.documents[1].text == "# Secret\nnot part of the corpus\n"
    assert corpus.skipped == (("elsewhere", "symbolic link to a directory (not followed)"),)


def test_a_hidden_link_outside_is_skipped_unread(root, outside):
    (root / ".cache").symlink_to(outside, target_is_directory=True)
    assert load_corpus(root).skipped == ((".cache", "hidden file"),)


def test_a_corpus_root_that_is_itself_a_link_is_fine(root, tmp_path):
    (tmp_path / "via").symlink_to(root, target_is_directory=True)
    (root / "alias.md").symlink_to(root / "a.md")
    assert [d.id for d in load_corpus(tmp_path / "via").documents] == ["a.md", "alias.md"]


def test_a_beir_corpus_file_linked_from_outside_is_refused(tmp_path):
    write(tmp_path / "shared" / "corpus.jsonl", jsonl({"_id": "a", "text": "x"}))
    (tmp_path / "beir").mkdir()
    (tmp_path / "beir" / "corpus.jsonl").symlink_to(tmp_path / "shared" / "corpus.jsonl")
    assert "outside the corpus folder" in load_error(tmp_path / "beir", str(tmp_path / "beir" / "corpus.jsonl"), None)
    assert [d.id for d in load_corpus(tmp_path / "beir", allow_symlinks_outside=True).documents] == ["a"]


def test_cli_refuses_then_allows_a_link_outside(root, outside, capsys):
    (root / "leak.md").symlink_to(outside / "secret.md")
    for command, printed in (
        (["search", "secret", "--corpus", str(root)], "leak.md#1"),
        (["index", str(root), "--out", str(root.parent / "ix")], "2 documents"),
    ):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"regrag: error: {root / 'leak.md'}: symbolic link to") and len(err.splitlines()) == 1
        assert main([*command, "--allow-symlinks-outside"]) == 0
        assert printed in capsys.readouterr().out


# ---------------------------------------------------------------- unreadable files, pipes

@pytest.mark.skipif(RUNNING_AS_ROOT, reason="root reads files whatever their mode")
def test_an_unreadable_file_is_named(root):
    path = write(root / "locked.md", "# Locked\n")
    path.chmod(0)
    try:
        assert "cannot read (Permission denied)" in load_error(root, str(path), None)
    finally:
        path.chmod(0o644)


@pytest.mark.skipif(RUNNING_AS_ROOT, reason="root lists folders whatever their mode")
def test_an_unreadable_folder_is_named_not_skipped(root):
    folder = root / "locked"
    write(folder / "inside.md", "# Inside\n")
    folder.chmod(0)
    try:
        assert "cannot list the folder (Permission denied)" in load_error(root, str(folder), None)
    finally:
        folder.chmod(0o755)


def test_a_read_failure_is_named_and_collect_keeps_the_rest(root, monkeypatch):
    """The same path as an unreadable file, made to fail with os.open (which root cannot be refused)."""
    locked = write(root / "locked.md", "# Locked\n")
    class RefusingOpen(FileSystem):
        def open(self, path, flags, mode=0o777):
            if Path(path) == locked:
                raise PermissionError(13, "Permission denied")
            return super().open(path, flags, mode)

    monkeypatch.setattr(system, "active", RefusingOpen())
    assert load_error(root, str(locked), None).startswith(f"{locked}: cannot read (Permission denied)")
    corpus = load_corpus(root, errors="collect")
    assert [d.id for d in corpus.documents] == ["a.md"]
    assert corpus.rejected == ((str(locked), f"{locked}: cannot read (Permission denied)"),)


def test_a_listing_failure_is_named_not_skipped(root, monkeypatch):
    folder = root / "locked"
    write(folder / "inside.md", "# Inside\n")
    class RefusingListing(FileSystem):
        def scandir(self, path):
            if Path(path) == folder:
                raise PermissionError(13, "Permission denied")
            return super().scandir(path)

    monkeypatch.setattr(system, "active", RefusingListing())
    assert "cannot list the folder (Permission denied)" in load_error(root, str(folder), None)
    assert load_corpus(root, errors="collect").rejected == ((str(folder), f"{folder}: cannot list the folder (Permission denied)"),)


def test_a_hidden_folder_that_cannot_be_listed_is_skipped(root, monkeypatch):
    """Hidden entries are never documents, so an unlistable .git does not stop a load; it is recorded."""
    write(root / ".git" / "config", "[core]\n")
    class RefusingListing(FileSystem):
        def scandir(self, path):
            if Path(path) == root / ".git":
                raise PermissionError(13, "Permission denied")
            return super().scandir(path)

    monkeypatch.setattr(system, "active", RefusingListing())
    corpus = load_corpus(root)
    assert [d.id for d in corpus.documents] == ["a.md"]
    assert corpus.skipped == ((".git", "hidden folder that cannot be listed"),)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_named_pipe_is_skipped_without_opening_it(root):
    os.mkfifo(root / "pipe.md")
    assert load_corpus(root).skipped == (("pipe.md", "not a regular file (a broken link, a pipe or a device)"),)


# ---------------------------------------------------------------- limits

@pytest.mark.parametrize("kind", ["md", "jsonl", "beir"])
def test_file_bytes_is_checked_before_reading(tmp_path, kind):
    content = jsonl({"_id" if kind == "beir" else "id": "a", "text": "x" * 40}) if kind != "md" else "# T\n" + "x" * 40
    path = write(tmp_path / ("corpus.jsonl" if kind == "beir" else f"f.{kind}"), content)
    with pytest.raises(LimitError) as info:
        load_corpus(tmp_path if kind == "beir" else path, limits=Limits(file_bytes=20))
    size = len(content.encode())
    assert str(info.value).startswith(f"{path}: the file has {size:,} bytes; the limit is 20 (regrag.limits.Limits.file_bytes)")


def test_document_bytes_counts_the_line_of_a_json_record(tmp_path):
    long_line = json.dumps({"id": "b", "text": "y" * 100})
    path = write(tmp_path / "d.jsonl", jsonl({"id": "a", "text": "x"}) + long_line + "\r\n" + jsonl({"id": "c", "text": "z"}))
    with pytest.raises(LimitError) as info:
        load_corpus(path, limits=Limits(document_bytes=len(long_line) - 1))
    assert str(info.value).startswith(
        f"{path}:2: the line has {len(long_line)} bytes; the limit for one document is {len(long_line) - 1} bytes"
    )
    assert [d.id for d in load_corpus(path, limits=Limits(document_bytes=len(long_line))).documents] == ["a", "b", "c"]


def test_document_bytes_of_a_text_file(tmp_path):
    path = write(tmp_path / "d.txt", "x" * 51)
    with pytest.raises(LimitError, match="^" + re.escape(f"{path}:1: the document has 51 bytes; the limit is 50 ")):
        load_corpus(tmp_path, limits=Limits(document_bytes=50))
    assert load_corpus(tmp_path, limits=Limits(document_bytes=51)).documents[0].text == "x" * 51


def test_sections_per_document_in_markdown_names_the_heading_line(tmp_path):
    path = write(tmp_path / "h.md", "intro\n# One\n\n## Two\n## Three\n## Four\n")
    with pytest.raises(LimitError) as info:
        load_corpus(path, limits=Limits(sections_per_document=2))
    assert str(info.value).startswith(f"{path}:5: more than 2 sections (headings); the limit is 2")
    with pytest.raises(LimitError, match="^" + re.escape(f"{path}:1: more than 4 sections (headings and the text before them)")):
        load_corpus(path, limits=Limits(sections_per_document=4))  # four headings, and the preamble is a fifth section
    assert len(load_corpus(path, limits=Limits(sections_per_document=5)).documents[0].sections) == 5


def test_sections_per_document_in_jsonl(tmp_path):
    path = write(tmp_path / "s.jsonl", jsonl({"id": "a", "sections": [{"text": str(n)} for n in range(3)]}))
    with pytest.raises(LimitError, match="^" + re.escape(f"{path}:1: 3 sections; the limit is 2 ")):
        load_corpus(path, limits=Limits(sections_per_document=2))


def test_many_headings_stop_at_the_cap_instead_of_filling_memory(tmp_path):
    path = write(tmp_path / "many.md", "# a\nb\n" * 200_000)
    with pytest.raises(LimitError, match="^" + re.escape(f"{path}:200001: more than 100,000 sections")):
        load_corpus(path)


def test_passages_per_document_names_the_document(tmp_path):
    text = "First sentence here. " * 50
    document = Document("manual.md", "Manual", text, (Section("Manual", 0, len(text)),), (), "docs/manual.md")
    assert len(split_passages(document, 60)) == 25
    with pytest.raises(LimitError) as info:
        split_passages(document, 60, Limits(passages_per_document=24))
    assert str(info.value) == (
        "docs/manual.md: document 'manual.md' makes more than 24 passages of at most 60 characters; "
        "the limit is 24 (regrag.limits.Limits.passages_per_document)"
    )
    assert len(split_passages(document, 60, Limits(passages_per_document=25))) == 25


def test_passages_per_document_on_a_huge_section():
    text = "Tiny. " * 200_000  # 1.2 MB, 200,000 sentences
    document = Document("big", "", text, (Section("", 0, len(text)),), (), "big.jsonl")
    with pytest.raises(LimitError, match="makes more than 10 passages"):
        split_passages(document, 50, Limits(passages_per_document=10))


def test_a_bad_limit_is_an_input_error():
    with pytest.raises(InputError, match="sections_per_document must be a positive integer"):
        Limits(sections_per_document=0)


# ---------------------------------------------------------------- all or nothing, or collect

def test_errors_must_be_raise_or_collect(tmp_path):
    with pytest.raises(InputError, match="errors must be one of raise, collect, got 'ignore'"):
        load_corpus(tmp_path, errors="ignore")  # type: ignore[arg-type]


def test_collect_loads_the_good_files_and_lists_every_bad_one_in_order(root, outside):
    write(root / "b-nul.md", "# B\nx\x00y\n")
    write(root / "c-utf16.txt", "text".encode("utf-16"))
    write(root / "d-bad.md", b"# D\n\xff\n")
    write(root / "e.md", "# E\nfine\n")
    write(root / "notes.xlsx", b"PK")
    (root / "f-link.md").symlink_to(outside / "secret.md")
    write(root / "z.jsonl", "{}\n")  # a .jsonl inside a folder is not a document
    corpus = load_corpus(root, errors="collect")
    assert [d.id for d in corpus.documents] == ["a.md", "e.md"]
    assert [where for where, _ in corpus.rejected] == [
        str(root / "b-nul.md"), str(root / "c-utf16.txt"), str(root / "d-bad.md"), str(root / "f-link.md"),
    ]
    assert [message.split(": ", 1)[0] for _, message in corpus.rejected] == [
        f"{root / 'b-nul.md'}:2", f"{root / 'c-utf16.txt'}:1", f"{root / 'd-bad.md'}:2", str(root / "f-link.md"),
    ]
    assert corpus.skipped == (("notes.xlsx", NOT_A_DOCUMENT), ("z.jsonl", NOT_A_DOCUMENT))
    with pytest.raises(InputError, match="^" + re.escape(f"{root / 'b-nul.md'}:2: ") + ".*" + NOT_LOADED):
        load_corpus(root)


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.one_of(
    st.binary(max_size=20),
    st.builds(lambda i: jsonl({"id": f"d{i}", "text": "t"}).rstrip("\n").encode(), st.integers(0, 5)),
), max_size=8))
def test_collect_accounts_for_every_line_exactly_once(lines):
    """Each non-blank line of a JSONL file becomes a document or a rejection, never both, never neither
    (unless the whole file is refused, as UTF-16 or UTF-32, which is one rejection)."""
    data = b"\n".join(line.replace(b"\n", b" ") for line in lines)
    with tempfile.TemporaryDirectory() as directory:
        path = write(Path(directory) / "batch.jsonl", data)
        corpus = load_corpus(path, errors="collect")  # never raises for what a file holds
    if corpus.rejected and corpus.rejected[0][0] == str(path):  # the whole file: it looked like UTF-16/32
        assert corpus.documents == () and len(corpus.rejected) == 1
        assert corpus.rejected[0][1].startswith(f"{path}:1: the file looks like UTF-")
        event("whole file refused (UTF-16/32)")
        return
    non_blank = [number for number, raw in enumerate(data.split(b"\n"), start=1) if not _blank_line(raw, number)]
    rejected_lines = [int(where.rsplit(":", 1)[1]) for where, _ in corpus.rejected]
    assert rejected_lines == sorted(set(rejected_lines))  # in file order, each line once
    assert set(rejected_lines) <= set(non_blank)
    assert len(corpus.documents) + len(rejected_lines) == len(non_blank)
    event(f"{len(corpus.documents)} loaded and {len(rejected_lines)} rejected" if corpus.documents and rejected_lines
          else "only loaded" if corpus.documents else "only rejected" if rejected_lines else "no record")


def _blank_line(raw: bytes, number: int) -> bool:
    """A line the JSONL reader passes over: valid UTF-8 and only whitespace (after a first line's BOM)."""
    if number == 1:
        raw = raw.removeprefix(b"\xef\xbb\xbf")
    try:
        return not raw.removesuffix(b"\r").decode("utf-8").strip()
    except UnicodeDecodeError:
        return False


def _tree_digest(directory: Path) -> dict[str, str]:
    return {
        p.relative_to(directory).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(directory.rglob("*"))
    }


def test_a_failed_index_run_leaves_the_published_index_untouched(tmp_path):
    corpus = tmp_path / "corpus"
    write(corpus / "a.md", "# A\nalpha fees\n")
    write(corpus / "b.md", "# B\nbeta fees\n")
    out = tmp_path / "index"
    command = [sys.executable, "-m", "regrag", "index", str(corpus), "--out", str(out)]
    first = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    assert first.returncode == 0, first.stderr
    before = _tree_digest(out)
    bad = write(corpus / "c.md", b"# C\nbad \xff byte\n")
    second = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    assert second.returncode == 2 and second.stdout == ""
    assert second.stderr.startswith(f"regrag: error: {bad}:2: invalid UTF-8")
    assert NOT_LOADED in second.stderr and len(second.stderr.splitlines()) == 1
    assert _tree_digest(out) == before
    third = subprocess.run([*command, "--errors", "collect"], capture_output=True, text=True, cwd=REPO)
    assert third.returncode == 0 and "generation 2  ·  2 documents" in third.stdout
    assert third.stderr.splitlines() == [
        f"regrag: warning: rejected: {bad}:2: invalid UTF-8 (invalid start byte at byte 8)",
        "regrag: warning: 1 input(s) rejected (--errors collect); they are not indexed",
    ]


def test_cli_collect_warns_for_search_and_refuses_with_a_stored_index(root, tmp_path, capsys):
    assert main(["index", str(root), "--out", str(tmp_path / "ix")]) == 0
    write(root / "bad.md", "# Bad\n\x07\n")
    capsys.readouterr()
    assert main(["search", "alpha", "--corpus", str(root), "--errors", "collect"]) == 0
    captured = capsys.readouterr()
    assert "a.md#1" in captured.out
    assert f"regrag: warning: rejected: {root / 'bad.md'}:2: the control character U+0007 at column 1" in captured.err
    for option in (["--errors", "collect"], ["--allow-symlinks-outside"]):
        assert main(["search", "alpha", "--index", str(tmp_path / "ix"), *option]) == 2
        assert capsys.readouterr().err == (
            "regrag: error: --allow-symlinks-outside and --errors apply to --corpus, not to --index\n"
        )


@pytest.mark.parametrize("ending", ["", "\n", "\r\n"], ids=["eof", "lf", "crlf"])
@pytest.mark.parametrize("excess", [-1, 0, 1, 2, 5])
def test_line_length_is_counted_without_its_line_end(tmp_path, ending, excess):
    limit = 60
    record = '{"id": "a", "text": "' + "x" * (limit + excess - 23) + '"}'
    assert len(record) == limit + excess
    path = write(tmp_path / "l.jsonl", jsonl({"id": "first", "text": "ok"}) + record + ending)
    if excess <= 0:
        assert [d.id for d in load_corpus(path, limits=Limits(document_bytes=limit)).documents] == ["a", "first"]
    else:
        with pytest.raises(LimitError) as info:
            load_corpus(path, limits=Limits(document_bytes=limit))
        assert str(info.value).startswith(f"{path}:2: the line has {limit + excess} bytes; the limit for one document is {limit} bytes")


@pytest.mark.skipif(not (RUNNING_AS_ROOT and shutil.which("setpriv")), reason="needs root and setpriv (else the chmod tests above run)")
def test_unreadable_file_and_folder_without_root_privileges(root):
    """As root, drop the capabilities that bypass file modes, so chmod 000 really refuses."""
    write(root / "locked.md", "# Locked\n").chmod(0)
    write(root / "closed" / "inside.md", "# Inside\n")
    (root / "closed").chmod(0)
    script = (
        "import sys; from regrag.corpus.load import load_corpus\n"
        "corpus = load_corpus(sys.argv[1], errors='collect')\n"
        "print([d.id for d in corpus.documents]); print(*(message for _, message in corpus.rejected), sep='\\n')\n"
    )
    try:
        result = subprocess.run(
            ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", sys.executable, "-c", script, str(root)],
            capture_output=True, text=True, cwd=REPO,
        )
    finally:
        (root / "closed").chmod(0o755)
        (root / "locked.md").chmod(0o644)
    if result.returncode != 0 and "setpriv" in result.stderr:
        pytest.skip(f"setpriv cannot drop capabilities here: {result.stderr.strip()}")
    assert result.stdout.splitlines() == [
        "['a.md']",
        f"{root / 'closed'}: cannot list the folder (Permission denied)",
        f"{root / 'locked.md'}: cannot read (Permission denied)",
    ]


# --- linear-time heading and metadata parsing (found by bench/worst_case_analysis.py) ---

_OLD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_OLD_METADATA_LINE = re.compile(r"^([a-z][a-z0-9_]*):(?!//)[ \t]*(.*?)[ \t]*$")


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="#: \tab/_x\u00a0", max_size=24))
def test_heading_and_metadata_parsing_equal_the_old_backtracking_patterns(line):
    """The old patterns (quadratic on long space runs) are the reference on short lines."""
    from regrag.corpus import load

    old, new = _OLD_HEADING.match(line), load._HEADING.match(line)
    assert (old is None) == (new is None)
    if old is not None:
        assert (old.group(1), old.group(2).strip()) == (new.group(1), load._heading_text(new.group(2)).strip())
    old, new = _OLD_METADATA_LINE.match("ab" + line), load._METADATA_LINE.match("ab" + line)
    assert (old is None) == (new is None)
    if old is not None:
        assert (old.group(1), old.group(2)) == (new.group(1), load._metadata_value(new.group(2)))


def test_a_heading_with_a_long_run_of_spaces_is_parsed(tmp_path):
    path = tmp_path / "long.md"
    path.write_text("# Title" + " " * 200_000 + "end ##  \n\nbody\n", encoding="utf-8")
    (document,) = load_corpus(path).documents
    assert document.title == "Title" + " " * 200_000 + "end"
