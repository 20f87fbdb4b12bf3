"""Tests for regrag.corpus.load: folders of Markdown/text, JSONL, BEIR, and every input error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from regrag.corpus.load import Corpus, load_corpus
from regrag.corpus.model import Document
from regrag.errors import InputError

SEP = " › "


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode("utf-8"))
    return path


def jsonl(*records) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def bodies(document: Document) -> list[tuple[str, str]]:
    return [(s.title, document.text[s.start : s.end]) for s in document.sections]


def expect_error(path: Path, line: int | None, *fragments: str) -> str:
    """load_corpus(path) raises InputError naming the file (and ``file:line`` when ``line`` is given)."""
    pattern = re.escape(path.name) + (rf":{line}\b" if line is not None else "")
    with pytest.raises(InputError, match=pattern) as info:
        load_corpus(path)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


# ---------------------------------------------------------------- Markdown

GUIDE = (
    "author: Ann Lee\n"
    "topic: cards\n"
    "\n"
    "# Card Guide\n"
    "\n"
    "Intro paragraph.\n"
    "\n"
    "## Fees\n"
    "\n"
    "Annual fee is 50.\n"
    "\n"
    "```bash\n"
    "# not a heading\n"
    "echo hi\n"
    "```\n"
    "\n"
    "### Late fees\n"
    "\n"
    "Late fee is 10.\n"
    "\n"
    "## Rewards ##\n"
    "\n"
    "Points per dollar.\n"
)


def test_markdown_metadata_headings_and_fence(tmp_path):
    write(tmp_path / "guide.md", GUIDE)
    corpus = load_corpus(tmp_path)
    assert isinstance(corpus, Corpus)
    assert corpus.skipped == ()
    (doc,) = corpus.documents
    assert doc.id == "guide.md"
    assert doc.title == "Card Guide"
    assert doc.text == GUIDE
    assert doc.metadata == (("author", "Ann Lee"), ("topic", "cards"))
    assert doc.metadata_dict() == {"author": "Ann Lee", "topic": "cards"}
    assert bodies(doc) == [
        ("Card Guide", "\nIntro paragraph.\n\n"),
        (
            f"Card Guide{SEP}Fees",
            "\nAnnual fee is 50.\n\n```bash\n# not a heading\necho hi\n```\n\n",
        ),
        (f"Card Guide{SEP}Fees{SEP}Late fees", "\nLate fee is 10.\n\n"),
        (f"Card Guide{SEP}Rewards", "\nPoints per dollar.\n"),
    ]
    # Spans are in order and never overlap.
    ends = [(s.start, s.end) for s in doc.sections]
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(ends, ends[1:]))


def test_markdown_metadata_does_not_leak_into_body(tmp_path):
    write(tmp_path / "m.md", "lang: en\n\nJust a body line.\n")
    (doc,) = load_corpus(tmp_path).documents
    assert doc.metadata == (("lang", "en"),)
    assert doc.title == "m"
    assert bodies(doc) == [("m", "Just a body line.\n")]


def test_markdown_preamble_before_first_heading(tmp_path):
    text = "Preamble text.\n\n# Title\nBody.\n"
    write(tmp_path / "p.md", text)
    (doc,) = load_corpus(tmp_path).documents
    assert doc.title == "Title"
    assert bodies(doc) == [("Title", "Preamble text.\n\n"), ("Title", "Body.\n")]


def test_markdown_without_h1_uses_file_stem(tmp_path):
    write(tmp_path / "notes.md", "## Alpha\none\n### Beta\ntwo\n## Gamma\nthree\n")
    (doc,) = load_corpus(tmp_path).documents
    assert doc.title == "notes"
    assert bodies(doc) == [
        (f"notes{SEP}Alpha", "one\n"),
        (f"notes{SEP}Alpha{SEP}Beta", "two\n"),
        (f"notes{SEP}Gamma", "three\n"),
    ]


def test_markdown_second_h1_is_under_document_title(tmp_path):
    write(tmp_path / "two.md", "# First\na\n# Second\nb\n")
    (doc,) = load_corpus(tmp_path).documents
    assert doc.title == "First"
    assert bodies(doc) == [("First", "a\n"), (f"First{SEP}Second", "b\n")]


def test_markdown_crlf_line_endings(tmp_path):
    text = "# T\r\n## A\r\nbody\r\n"
    write(tmp_path / "crlf.md", text)
    (doc,) = load_corpus(tmp_path).documents
    assert doc.text == text
    assert doc.title == "T"
    assert bodies(doc) == [("T", ""), (f"T{SEP}A", "body\r\n")]


def test_markdown_tilde_line_inside_backtick_fence_is_not_a_fence(tmp_path):
    text = "# Real\nintro\n```\n~~~\n# not a heading\n```\n"
    write(tmp_path / "f.md", text)
    (doc,) = load_corpus(tmp_path).documents
    assert doc.title == "Real"
    assert bodies(doc) == [("Real", "intro\n```\n~~~\n# not a heading\n```\n")]


def test_markdown_heading_path_always_starts_with_document_title(tmp_path):
    write(tmp_path / "faq.md", "## faq\nanswers\n")
    (doc,) = load_corpus(tmp_path).documents
    assert doc.title == "faq"
    assert bodies(doc) == [(f"faq{SEP}faq", "answers\n")]


# ---------------------------------------------------------------- plain text, BOM

def test_txt_file_is_one_section_titled_by_stem(tmp_path):
    text = "Plain text line one.\nLine two.\n"
    write(tmp_path / "notes.txt", text)
    (doc,) = load_corpus(tmp_path).documents
    assert doc.id == "notes.txt"
    assert doc.title == "notes"
    assert doc.text == text
    assert doc.metadata == ()
    assert bodies(doc) == [("notes", text)]


def test_markdown_with_bom_keeps_text_exactly(tmp_path):
    data = b"\xef\xbb\xbf# Bom Title\nBody text.\n"
    write(tmp_path / "bom.md", data)
    (doc,) = load_corpus(tmp_path).documents
    assert doc.text == data.decode("utf-8")
    assert doc.text.startswith("\ufeff")
    assert doc.title == "Bom Title"
    assert bodies(doc) == [("Bom Title", "Body text.\n")]


def test_markdown_with_bom_and_metadata(tmp_path):
    data = "\ufeffkind: faq\n\n# Q\nA.\n".encode("utf-8")
    write(tmp_path / "bm.md", data)
    (doc,) = load_corpus(tmp_path).documents
    assert doc.text == data.decode("utf-8")
    assert doc.metadata == (("kind", "faq"),)
    assert doc.title == "Q"
    assert bodies(doc) == [("Q", "A.\n")]


def test_txt_with_bom_offsets_slice_file_content(tmp_path):
    data = b"\xef\xbb\xbfhello world\n"
    write(tmp_path / "b.txt", data)
    (doc,) = load_corpus(tmp_path).documents
    assert doc.text == "\ufeffhello world\n"
    (section,) = doc.sections
    assert data.decode("utf-8")[section.start : section.end] == "hello world\n"


def test_single_file_path(tmp_path):
    path = write(tmp_path / "one.md", "# One\nx\n")
    (doc,) = load_corpus(path).documents
    assert doc.id == "one.md"
    assert doc.title == "One"


# ---------------------------------------------------------------- folders

def test_nested_folders_ids_order_and_skipped(tmp_path):
    for relative in [
        "sub/dir/file.md",
        "b.md",
        "sub/a.md",
        "sub-x.md",
        "a.txt",
        "Z.md",
        "c.markdown",
    ]:
        write(tmp_path / relative, f"content of {relative}\n")
    write(tmp_path / "report.xlsx", b"PK\x03\x04 \x00\xff binary")  # a .pdf is a document since issue 18
    write(tmp_path / ".DS_Store", b"\x00\x01\x02")
    write(tmp_path / "sub" / ".hidden.md", "# hidden\n")
    write(tmp_path / ".git" / "config", "[core]\n")
    write(tmp_path / "sub" / "data.json", "{}\n")

    corpus = load_corpus(tmp_path)
    ids = [d.id for d in corpus.documents]
    assert ids == ["Z.md", "a.txt", "b.md", "c.markdown", "sub-x.md", "sub/a.md", "sub/dir/file.md"]
    for doc in corpus.documents:
        assert doc.text == f"content of {doc.id}\n"
    by_id = {d.id: d for d in corpus.documents}
    assert by_id["sub/dir/file.md"].title == "file"
    assert by_id["c.markdown"].title == "c"

    skipped_paths = [p for p, _ in corpus.skipped]
    assert skipped_paths == [".DS_Store", ".git/config", "report.xlsx", "sub/.hidden.md", "sub/data.json"]
    for _path, reason in corpus.skipped:
        assert isinstance(reason, str) and reason.strip()
    reasons = dict(corpus.skipped)
    assert "hidden" in reasons[".DS_Store"]
    assert "hidden" in reasons["sub/.hidden.md"]


def test_empty_folder(tmp_path):
    corpus = load_corpus(tmp_path)
    assert corpus.documents == ()
    assert corpus.skipped == ()


# ---------------------------------------------------------------- JSONL

def test_jsonl_text_and_sections(tmp_path):
    path = write(
        tmp_path / "docs.jsonl",
        jsonl(
            {"id": "j2", "title": "Second", "text": "Plain body.", "metadata": {"lang": "en", "year": 2024}},
            {
                "id": "j1",
                "title": "First",
                "sections": [{"title": "Intro", "text": "Hello."}, {"title": "More", "text": "World."}],
                "metadata": {"b": "2", "a": "1"},
            },
        ),
    )
    corpus = load_corpus(path)
    assert [d.id for d in corpus.documents] == ["j1", "j2"]
    j1, j2 = corpus.documents

    assert j1.title == "First"
    assert j1.metadata == (("a", "1"), ("b", "2"))
    assert bodies(j1) == [(f"First{SEP}Intro", "Hello."), (f"First{SEP}More", "World.")]
    first, second = j1.sections
    assert 0 <= first.start <= first.end <= second.start <= second.end <= len(j1.text)
    assert "Hello." in j1.text and "World." in j1.text

    assert j2.title == "Second"
    assert j2.text == "Plain body."
    assert j2.metadata == (("lang", "en"), ("year", "2024"))
    assert bodies(j2) == [("Second", "Plain body.")]


def test_jsonl_skips_blank_lines(tmp_path):
    path = write(tmp_path / "b.jsonl", '\n{"id": "a", "text": "x"}\n\n  \n{"id": "b", "text": "y"}\n')
    assert [d.id for d in load_corpus(path).documents] == ["a", "b"]


def test_jsonl_source_is_covered_by_the_content_hash_and_index_id(tmp_path):
    """Issue 12: a hit reports the file a record came from, so the index id covers it."""
    from regrag import Index

    line = jsonl({"id": "a", "title": "T", "text": "same text", "metadata": {"k": "v"}})
    one = load_corpus(write(tmp_path / "one.jsonl", line)).documents[0]
    two = load_corpus(write(tmp_path / "two.jsonl", line)).documents[0]
    assert (one.source, two.source) == ("one.jsonl", "two.jsonl")
    assert one.content_hash() != two.content_hash()
    first, second = Index.from_documents([one]), Index.from_documents([two])
    assert first.index_id != second.index_id
    assert [hit.source for hit in first.search("same text")] == ["one.jsonl"]


# ---------------------------------------------------------------- BEIR

def test_beir_folder(tmp_path):
    root = tmp_path / "scifact"
    write(
        root / "corpus.jsonl",
        jsonl(
            {"_id": "b2", "title": "T2", "text": "beta text", "metadata": {}},
            {"_id": "b1", "title": "T1", "text": "alpha text", "metadata": {"src": "x"}},
        ),
    )
    write(root / "queries.jsonl", jsonl({"_id": "q1", "text": "alpha"}))
    write(root / "qrels" / "test.tsv", "query-id\tcorpus-id\tscore\nq1\tb1\t1\n")
    corpus = load_corpus(root)
    assert [d.id for d in corpus.documents] == ["b1", "b2"]
    b1, b2 = corpus.documents
    assert (b1.title, b1.text, b1.metadata) == ("T1", "alpha text", (("src", "x"),))
    assert (b2.title, b2.text, b2.metadata) == ("T2", "beta text", ())
    assert bodies(b1) == [("T1", "alpha text")]
    assert bodies(b2) == [("T2", "beta text")]


# ---------------------------------------------------------------- errors

def test_nonexistent_path(tmp_path):
    missing = tmp_path / "no-such-corpus"
    expect_error(missing, None)


def test_invalid_utf8_markdown_names_line_of_bad_byte(tmp_path):
    write(tmp_path / "ok.md", "# fine\n")
    bad = write(tmp_path / "sub" / "bad.md", b"# Title\nfine line\nbad \xff byte\n")
    with pytest.raises(InputError, match=re.escape("sub/bad.md") + r":3\b"):
        load_corpus(tmp_path)
    expect_error(bad, 3)


def test_invalid_utf8_on_first_line(tmp_path):
    expect_error(write(tmp_path / "first.txt", b"\xc3(\n"), 1)


def test_invalid_utf8_jsonl(tmp_path):
    path = write(tmp_path / "bad.jsonl", b'{"id": "a", "text": "x"}\n{"id": "b", "text": "\xe2\x82"}\n')
    expect_error(path, 2)


def test_invalid_utf8_beir(tmp_path):
    write(tmp_path / "corpus.jsonl", b'{"_id": "a", "text": "x"}\n\n{"_id": "b", "text": "\xff"}\n')
    with pytest.raises(InputError, match=re.escape("corpus.jsonl") + r":3\b"):
        load_corpus(tmp_path)


def test_malformed_json_line(tmp_path):
    path = write(tmp_path / "m.jsonl", '{"id": "a", "text": "x"}\n{"id": "b", "text": \n')
    expect_error(path, 2)


def test_non_object_line(tmp_path):
    path = write(tmp_path / "n.jsonl", '{"id": "a", "text": "x"}\n\n[1, 2]\n')
    expect_error(path, 3)


@pytest.mark.parametrize("value", ['"just a string"', "42", "null", "true"])
def test_non_object_scalar_lines(tmp_path, value):
    path = write(tmp_path / "s.jsonl", value + "\n")
    expect_error(path, 1)


GOOD = {"id": "ok", "text": "fine"}


@pytest.mark.parametrize(
    "record",
    [
        pytest.param({"id": "a", "title": 5, "text": "x"}, id="title-number"),
        pytest.param({"id": "a", "title": ["t"], "text": "x"}, id="title-list"),
        pytest.param({"id": "a", "text": 5}, id="text-number"),
        pytest.param({"id": "a", "text": None}, id="text-null"),
        pytest.param({"id": "a", "text": "x", "metadata": "k=v"}, id="metadata-string"),
        pytest.param({"id": "a", "text": "x", "metadata": {"k": {"n": 1}}}, id="metadata-nested"),
        pytest.param({"id": "a", "text": "x", "metadata": {"k": [1]}}, id="metadata-value-list"),
        pytest.param({"id": "a", "text": "x", "metadata": {"k": None}}, id="metadata-value-null"),
        pytest.param({"id": "a", "text": "x", "metadata": {"k": True}}, id="metadata-value-bool"),
        pytest.param({"id": "a", "sections": "x"}, id="sections-string"),
        pytest.param({"id": "a", "sections": []}, id="sections-empty"),
        pytest.param({"id": "a", "sections": ["x"]}, id="sections-item-string"),
        pytest.param({"id": "a", "sections": [{"title": 1, "text": "x"}]}, id="section-title-number"),
        pytest.param({"id": "a", "sections": [{"title": "t", "text": 1}]}, id="section-text-number"),
        pytest.param({"id": "a", "sections": [{"title": "t"}]}, id="section-text-missing"),
        pytest.param({"id": 1.5, "text": "x"}, id="id-float"),
        pytest.param({"id": True, "text": "x"}, id="id-bool"),
        pytest.param({"id": ["a"], "text": "x"}, id="id-list"),
        pytest.param({"id": "", "text": "x"}, id="id-empty"),
        pytest.param({"id": "   ", "text": "x"}, id="id-blank"),
    ],
)
def test_wrong_field_types(tmp_path, record):
    path = write(tmp_path / "types.jsonl", jsonl(GOOD, record))
    expect_error(path, 2)


@pytest.mark.parametrize("metadata", [[], "", 0, False], ids=["list", "empty-string", "zero", "false"])
def test_falsy_non_object_metadata_is_rejected(tmp_path, metadata):
    path = write(tmp_path / "meta.jsonl", jsonl(GOOD, {"id": "a", "text": "x", "metadata": metadata}))
    expect_error(path, 2)


def test_missing_id(tmp_path):
    expect_error(write(tmp_path / "noid.jsonl", jsonl(GOOD, GOOD | {"id": "b"}, {"text": "x"})), 3)


def test_missing_text(tmp_path):
    expect_error(write(tmp_path / "notext.jsonl", jsonl({"id": "a", "title": "t"})), 1)


def test_both_text_and_sections(tmp_path):
    record = {"id": "a", "text": "x", "sections": [{"title": "s", "text": "y"}]}
    expect_error(write(tmp_path / "both.jsonl", jsonl(GOOD, record)), 2)


def test_beir_missing_underscore_id(tmp_path):
    write(tmp_path / "corpus.jsonl", jsonl({"_id": "a", "text": "x"}, {"id": "b", "text": "y"}))
    with pytest.raises(InputError, match=re.escape("corpus.jsonl") + r":2\b"):
        load_corpus(tmp_path)


def test_beir_missing_text(tmp_path):
    write(tmp_path / "corpus.jsonl", jsonl({"_id": "a", "title": "t"}))
    with pytest.raises(InputError, match=re.escape("corpus.jsonl") + r":1\b"):
        load_corpus(tmp_path)


@pytest.mark.parametrize(
    "line",
    [
        r'{"id": "a", "text": "x\ud800y"}',
        r'{"id": "a", "title": "\udfff", "text": "x"}',
        r'{"id": "a\ud800", "text": "x"}',
        r'{"id": "a", "text": "x", "metadata": {"k": "\ud800"}}',
        r'{"id": "a", "text": "x", "metadata": {"\ud800": "v"}}',
        r'{"id": "a", "sections": [{"title": "s", "text": "\ud800"}]}',
        r'{"id": "a", "sections": [{"title": "\ud800", "text": "y"}]}',
    ],
    ids=["text", "title", "id", "metadata-value", "metadata-key", "section-text", "section-title"],
)
def test_lone_surrogate_escapes(tmp_path, line):
    path = write(tmp_path / "sur.jsonl", jsonl(GOOD) + "\n" + line + "\n")
    expect_error(path, 3)


def test_valid_surrogate_pair_is_accepted(tmp_path):
    path = write(tmp_path / "pair.jsonl", r'{"id": "a", "text": "smile \ud83d\ude00"}' + "\n")
    (doc,) = load_corpus(path).documents
    assert doc.text == "smile \U0001F600"


def test_beir_lone_surrogate(tmp_path):
    write(tmp_path / "corpus.jsonl", jsonl({"_id": "a", "text": "x"}) + r'{"_id": "b", "text": "\udc00"}' + "\n")
    with pytest.raises(InputError, match=re.escape("corpus.jsonl") + r":2\b"):
        load_corpus(tmp_path)


def test_duplicate_markdown_metadata_key(tmp_path):
    path = write(tmp_path / "dupmeta.md", "alpha: 1\nbeta: 2\nalpha: 3\n\n# T\nbody\n")
    expect_error(path, 3, "alpha")
    with pytest.raises(InputError, match=re.escape("dupmeta.md") + r":3\b"):
        load_corpus(tmp_path)


def test_duplicate_markdown_metadata_key_after_bom(tmp_path):
    path = write(tmp_path / "dupbom.md", "\ufeffalpha: 1\nalpha: 2\n\nbody\n".encode("utf-8"))
    expect_error(path, 2, "alpha")


def test_duplicate_jsonl_id_names_file_and_id(tmp_path):
    path = write(tmp_path / "dup.jsonl", jsonl({"id": "same", "text": "a"}, {"id": "other", "text": "b"}, {"id": "same", "text": "c"}))
    expect_error(path, None, "same")


def test_duplicate_jsonl_id_names_line(tmp_path):
    path = write(tmp_path / "dup.jsonl", jsonl({"id": "same", "text": "a"}, {"id": "other", "text": "b"}, {"id": "same", "text": "c"}))
    expect_error(path, 3, "same")


def test_duplicate_jsonl_id_int_and_string(tmp_path):
    path = write(tmp_path / "dupint.jsonl", jsonl({"id": 7, "text": "a"}, {"id": "7", "text": "b"}))
    expect_error(path, None, "7")


def test_duplicate_beir_id_names_file_and_id(tmp_path):
    write(tmp_path / "corpus.jsonl", jsonl({"_id": "d", "text": "a"}, {"_id": "d", "text": "b"}))
    with pytest.raises(InputError, match=re.escape("corpus.jsonl")) as info:
        load_corpus(tmp_path)
    assert "'d'" in str(info.value) or '"d"' in str(info.value)


def test_duplicate_beir_id_names_line(tmp_path):
    write(tmp_path / "corpus.jsonl", jsonl({"_id": "d", "text": "a"}, {"_id": "d", "text": "b"}))
    with pytest.raises(InputError, match=re.escape("corpus.jsonl") + r":2\b"):
        load_corpus(tmp_path)
