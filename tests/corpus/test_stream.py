"""The streamed corpus path (``regrag.corpus.stream``): the loader's documents,
errors and rejections, without holding the corpus; and a build over it
writes the generation the loaded corpus writes, byte for byte (sample
corpora, SciFact, workers, small budgets)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrag import InputError
from regrag.corpus.load import load_corpus
from regrag.corpus.stream import StreamedDocuments, stream_corpus, streamed_file
from regrag.index.bounded_build import index_directory
from regrag.index.parameters import IndexParameters
from regrag.io.identity import SourceChangedError
from regrag.limits import LimitError, Limits

REPO = Path(__file__).resolve().parents[2]
SHARED = next((path for path in (Path(os.environ.get("REGRAG_SHARED", REPO.parent / "shared")),
                                 REPO.parent.parent / "shared") if path.is_dir()), REPO.parent / "shared")
SCIFACT = SHARED / "data" / "scifact"
SAMPLES = ("product-manuals", "regulations", "vn-stock-news")
MAX_CHARS = IndexParameters().max_passage_chars


def tree(directory: Path) -> dict[str, str]:
    return {str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(directory.rglob("*")) if path.is_file()}


def outcome(call):
    """What a load gives: ("ok", documents, rejected) or ("error", type, message)."""
    try:
        corpus = call()
    except InputError as error:
        return ("error", type(error).__name__, str(error))
    return ("ok", tuple(corpus.documents), corpus.rejected)


def both(path: Path, errors: str = "raise", limits: Limits | None = None):
    limits = limits or Limits()
    loaded = outcome(lambda: load_corpus(path, errors=errors, limits=limits))
    streamed = outcome(lambda: stream_corpus(path, max_chars=MAX_CHARS, errors=errors, limits=limits))
    return loaded, streamed


def as_jsonl(documents, path: Path, reverse: bool = False) -> Path:
    """Documents as JSONL lines (id, title, text, metadata), in reverse id order when asked."""
    rows = [json.dumps({"id": d.id, "title": d.title, "text": d.text, "metadata": dict(d.metadata)},
                       ensure_ascii=False) for d in documents]
    path.write_text("".join(row + "\n" for row in (rows[::-1] if reverse else rows)), encoding="utf-8")
    return path


GOOD = ['{"id": "b", "title": "Bee", "text": "bees make honey"}',
        '{"id": "a", "text": "apples are red", "metadata": {"k": "v", "n": 2}}',
        '{"id": "c", "sections": [{"title": "S", "text": "one"}, {"text": "two"}]}']
BAD = ['{"id": "", "text": "empty id"}', '{"id": "x", "text": 3}', "not json", '{"id": "y\\u0000", "text": "t"}',
       '[1, 2]', '{"id": "z", "text": "a\\u0001b"}', '{"id": "w", "text": "t", "text2": 1, "metadata": []}']
LINE = st.one_of(st.sampled_from(GOOD), st.sampled_from(BAD), st.just(""), st.just("   "),
                 st.builds(lambda n: json.dumps({"id": f"d{n}", "text": f"word{n} text"}), st.integers(0, 6)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(LINE, max_size=12), st.sampled_from(["raise", "collect"]), st.booleans(), st.booleans())
def test_the_loaders_documents_errors_and_rejections(tmp_path, lines, errors, crlf, bom):
    """Good, bad, blank and duplicate lines in any order: the same documents, the same first error
    (``raise``) or the same rejections in the same order (``collect``)."""
    path = tmp_path / "corpus.jsonl"
    end = "\r\n" if crlf else "\n"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + "".join(line + end for line in lines).encode())
    loaded, streamed = both(path, errors)
    assert streamed == loaded


def test_whole_file_problems_and_limits(tmp_path):
    utf16 = tmp_path / "utf16.jsonl"
    utf16.write_bytes('{"id": "a", "text": "t"}\n'.encode("utf-16"))
    long_line = tmp_path / "long.jsonl"
    long_line.write_text('{"id": "a", "text": "' + "x" * 300 + '"}\n{"id": "b", "text": "short"}\n')
    many = tmp_path / "many.jsonl"
    many.write_text('{"id": "a", "text": "' + "word. " * 400 + '"}\n{"id": "b", "text": "short"}\n')
    for errors in ("raise", "collect"):
        assert both(utf16, errors)[0] == both(utf16, errors)[1]
        loaded, streamed = both(long_line, errors, Limits(document_bytes=100))
        assert loaded == streamed
        loaded, streamed = both(long_line, errors, Limits(streamed_file_bytes=10))
        assert loaded[0] == "ok" and streamed[0] == ("error" if errors == "raise" else "ok")
        if errors == "raise":
            assert "regrag.limits.Limits.streamed_file_bytes" in streamed[2]
        else:
            size = long_line.stat().st_size
            assert streamed[2] == ((str(long_line), f"{long_line}: the file has {size:,} bytes; the limit for a "
                                    "streamed corpus file is 10 (regrag.limits.Limits.streamed_file_bytes; "
                                    "regrag index --max-streamed-file-bytes raises it)"),)
        loaded, streamed = both(long_line, errors, Limits(file_bytes=10))  # a streamed file is never held whole
        assert loaded[0] == ("error" if errors == "raise" else "ok") and streamed[0] == "ok"
        assert [d.id for d in streamed[1]] == ["a", "b"]
    corpus = stream_corpus(many, max_chars=100, limits=Limits(passages_per_document=3))
    with pytest.raises(LimitError, match="makes more than 3 passages"):
        index_directory(tmp_path / "index", corpus.documents, limits=Limits(passages_per_document=3),
                        parameters=IndexParameters(max_passage_chars=100))
    assert not (tmp_path / "index" / "generations").exists() or not list((tmp_path / "index" / "generations").iterdir())


def test_what_is_streamed(tmp_path):
    jsonl = as_jsonl([], tmp_path / "c.jsonl")
    beir = tmp_path / "beir"
    beir.mkdir()
    as_jsonl([], beir / "corpus.jsonl")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "corpus.jsonl").symlink_to(jsonl)
    (tmp_path / "c.jsonl.gz").write_bytes(b"")
    assert streamed_file(jsonl) == (jsonl, False)
    assert streamed_file(beir) == (beir / "corpus.jsonl", True)
    assert streamed_file(tmp_path / "c.jsonl.gz") == (tmp_path / "c.jsonl.gz", False)  # tests/corpus/test_stream_gzip.py
    for other in (linked, REPO / "corpora" / "product-manuals" / "documents",
                  tmp_path / "missing.jsonl"):
        assert streamed_file(other) is None
        assert stream_corpus(other, max_chars=MAX_CHARS) is None


def test_a_file_changed_between_passes_is_refused(tmp_path):
    path = as_jsonl(load_corpus(REPO / "corpora" / "product-manuals" / "documents").documents, tmp_path / "c.jsonl")
    corpus = stream_corpus(path, max_chars=MAX_CHARS)
    assert isinstance(corpus.documents, StreamedDocuments) and len(corpus.documents) > 3
    assert corpus.documents[1] == list(corpus.documents)[1]
    path.write_text(path.read_text(encoding="utf-8").replace('"id": "', '"id": "x'), encoding="utf-8")
    with pytest.raises(SourceChangedError, match="changed while it was read"):
        list(corpus.documents)
    with pytest.raises(SourceChangedError):
        index_directory(tmp_path / "index", corpus.documents)


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("workers, memory_mb", [(1, 1024), (2, 0.002)])
def test_sample_corpora_build_the_same_bytes(tmp_path, name, workers, memory_mb):
    """Each sample corpus as JSONL (reversed, so the scan sorts it): the streamed build's
    generation is the loaded one's, byte for byte, whatever the workers and budget."""
    documents = load_corpus(REPO / "corpora" / name / "documents").documents
    path = as_jsonl(documents, tmp_path / "sample.jsonl", reverse=True)
    streamed = stream_corpus(path, max_chars=MAX_CHARS)
    assert tuple(streamed.documents) == load_corpus(path).documents
    index_directory(tmp_path / "loaded", load_corpus(path).documents)
    _publication, written = index_directory(tmp_path / "streamed", streamed.documents, workers=workers,
                                            memory_mb=memory_mb)
    assert tree(tmp_path / "streamed" / "generations") == tree(tmp_path / "loaded" / "generations")
    assert written.runs > (1 if memory_mb < 1 else 0)


def test_scifact_through_the_command_line_builds_the_same_bytes(tmp_path):
    """``regrag index`` streams a BEIR folder; the generation is the loaded corpus's."""
    if not (SCIFACT / "corpus.jsonl").is_file():
        pytest.skip(f"{SCIFACT} is absent (set REGRAG_SHARED to the folder holding data/scifact)")
    index_directory(tmp_path / "loaded", load_corpus(SCIFACT).documents)
    done = subprocess.run([sys.executable, "-m", "regrag", "index", str(SCIFACT), "--out", str(tmp_path / "cli"),
                           "--workers", "2", "--memory", "16"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert tree(tmp_path / "cli" / "generations") == tree(tmp_path / "loaded" / "generations")


def test_cli_collect_warns_and_indexes_the_rest(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "a", "text": "apples"}\nnot json\n{"id": "a", "text": "again"}\n{"id": "b", "text": "b"}\n')
    done = subprocess.run([sys.executable, "-m", "regrag", "index", str(path), "--out", str(tmp_path / "i"),
                           "--errors", "collect"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "2 documents" in done.stdout
    assert f"rejected: {path}:2:" in done.stderr and f"rejected: {path}:3: duplicate document id 'a' (first on line 1)" \
        in done.stderr and "2 input(s) rejected" in done.stderr
    refused = subprocess.run([sys.executable, "-m", "regrag", "index", str(path), "--out", str(tmp_path / "j")],
                             capture_output=True, text=True, check=False)
    assert refused.returncode == 2
    assert f"{path}:2:" in refused.stderr and "nothing was loaded" in refused.stderr and "--errors collect" in refused.stderr
