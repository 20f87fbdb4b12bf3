"""Streaming a gzipped JSONL or BEIR corpus (``regrag.corpus.stream``), and
``Limits.streamed_file_bytes``: the loader's documents, errors and rejections,
the same generation bytes as the loaded build, and a clear error naming the
file and the limit (``regrag index --max-streamed-file-bytes``)."""

from __future__ import annotations

import gzip
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

import regrag.corpus.stream as stream_module
from regrag.corpus.load import load_corpus
from regrag.corpus.stream import StreamedDocuments, stream_corpus, streamed_file
from regrag.index.bounded_build import index_directory
from regrag.io.identity import SourceChangedError
from regrag.limits import Limits

from tests.corpus.test_stream import REPO, SAMPLES, both, tree


def gzipped(path: Path, lines: list[str]) -> Path:
    path.write_bytes(gzip.compress("".join(line + "\n" for line in lines).encode("utf-8"), mtime=0))
    return path


def numbered(count: int, seed: int = 1) -> list[str]:
    lines = [json.dumps({"id": f"d{n:04d}", "title": f"t{n}", "text": f"word{n} text {n % 7}"}) for n in range(count)]
    random.Random(seed).shuffle(lines)
    return lines


@pytest.mark.parametrize("block", [10**9, 200])
def test_gzip_documents_are_the_loaders_in_any_line_order(tmp_path, monkeypatch, block):
    """A shuffled file, read in blocks small enough that nearly every one rewinds the stream."""
    monkeypatch.setattr(stream_module, "GZIP_BLOCK_CHARACTERS", block)
    path = gzipped(tmp_path / "c.jsonl.gz", numbered(300))
    corpus = stream_corpus(path, max_chars=4000)
    assert isinstance(corpus.documents, StreamedDocuments)
    loaded = load_corpus(path).documents
    assert tuple(corpus.documents) == loaded
    assert list(corpus.documents.range(120, 170)) == list(loaded[120:170])
    assert corpus.documents[-1] == loaded[-1]


def test_gzip_errors_and_rejections_are_the_loaders(tmp_path):
    lines = numbered(5) + ["not json", '{"id": "d0001", "text": "again"}', '{"id": "", "text": "x"}']
    path = gzipped(tmp_path / "c.jsonl.gz", lines)
    for errors in ("raise", "collect"):
        loaded, streamed = both(path, errors)
        assert streamed == loaded and loaded[0] == ("error" if errors == "raise" else "ok")
    truncated = tmp_path / "t.jsonl.gz"
    truncated.write_bytes(path.read_bytes()[:-30])
    not_gzip = tmp_path / "n.jsonl.gz"
    not_gzip.write_text('{"id": "a", "text": "plain"}\n')
    for broken in (truncated, not_gzip):
        for errors in ("raise", "collect"):
            loaded, streamed = both(broken, errors)
            assert streamed == loaded, broken
            assert "not a readable gzip file" in str(loaded)


def test_a_beir_folder_with_a_gzipped_corpus_is_streamed(tmp_path):
    beir = tmp_path / "beir"
    beir.mkdir()
    lines = [json.dumps({"_id": f"{n}", "title": "", "text": f"passage {n}"}) for n in (3, 1, 2)]
    gzipped(beir / "corpus.jsonl.gz", lines)
    assert streamed_file(beir) == (beir / "corpus.jsonl.gz", True)
    assert both(beir)[0] == both(beir)[1] and both(beir)[0][0] == "ok"


def test_streamed_file_bytes_bounds_the_compressed_and_the_decompressed_bytes(tmp_path):
    """A gzip bomb stops at ``streamed_file_bytes`` (not ``file_bytes``), naming the file and the field."""
    bomb = tmp_path / "bomb.jsonl.gz"
    bomb.write_bytes(gzip.compress(b'{"id": "a", "text": "t"}\n' + b"\n" * 2_000_000, mtime=0))
    assert bomb.stat().st_size < 10_000
    message = both(bomb, limits=Limits(streamed_file_bytes=1_000_000))[1][2]
    assert re.fullmatch(re.escape(str(bomb)) + r":\d+: more than 1,000,000 bytes once decompressed; the limit is "
                        r"1,000,000 \(regrag.limits.Limits.streamed_file_bytes\); nothing was loaded", message)
    assert both(bomb, limits=Limits(file_bytes=1_000_000))[1][0] == "ok"  # file_bytes is the loader's cap
    message = both(bomb, limits=Limits(streamed_file_bytes=1_000))[1][2]
    assert message.startswith(f"{bomb}: the file has {bomb.stat().st_size:,} bytes; the limit for a streamed corpus "
                              "file is 1,000 (regrag.limits.Limits.streamed_file_bytes")


def test_a_gzip_file_changed_between_passes_is_refused(tmp_path):
    path = gzipped(tmp_path / "c.jsonl.gz", numbered(20))
    corpus = stream_corpus(path, max_chars=4000)
    gzipped(path, numbered(20, seed=2))
    with pytest.raises(SourceChangedError, match="changed while it was read"):
        list(corpus.documents)


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("workers, memory_mb", [(1, 1024), (2, 0.002)])
def test_gzipped_sample_corpora_build_the_same_bytes(tmp_path, monkeypatch, name, workers, memory_mb):
    """Each sample corpus as a reversed ``.jsonl.gz`` (blocks of 2,000 characters, so
    the stream rewinds): the streamed build's generation is the loaded one's, byte for byte."""
    monkeypatch.setattr(stream_module, "GZIP_BLOCK_CHARACTERS", 2_000)
    documents = load_corpus(REPO / "corpora" / name / "documents").documents
    rows = [json.dumps({"id": d.id, "title": d.title, "text": d.text, "metadata": dict(d.metadata)},
                       ensure_ascii=False) for d in documents]
    path = gzipped(tmp_path / "sample.jsonl.gz", rows[::-1])
    index_directory(tmp_path / "loaded", load_corpus(path).documents)
    streamed = stream_corpus(path, max_chars=4000)
    index_directory(tmp_path / "streamed", streamed.documents, workers=workers, memory_mb=memory_mb)
    assert tree(tmp_path / "streamed" / "generations") == tree(tmp_path / "loaded" / "generations")


def run_index(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "regrag", "index", *arguments], capture_output=True, text=True,
                          check=False)


def test_cli_streams_a_gzip_file_and_takes_a_streamed_file_limit(tmp_path):
    path = gzipped(tmp_path / "c.jsonl.gz", numbered(50))
    plain = tmp_path / "c.jsonl"
    plain.write_bytes(gzip.decompress(path.read_bytes()))
    index_directory(tmp_path / "loaded", load_corpus(path).documents)
    done = run_index(str(path), "--out", str(tmp_path / "gz"), "--workers", "2")
    assert done.returncode == 0, done.stderr
    assert "50 documents" in done.stdout
    assert tree(tmp_path / "gz" / "generations") == tree(tmp_path / "loaded" / "generations")
    assert run_index(str(plain), "--out", str(tmp_path / "plain")).returncode == 0
    refused = run_index(str(plain), "--out", str(tmp_path / "small"), "--max-streamed-file-bytes", "1KiB")
    assert refused.returncode == 2
    assert (f"{plain}: the file has {plain.stat().st_size:,} bytes; the limit for a streamed corpus file is 1,024 "
            "(regrag.limits.Limits.streamed_file_bytes; regrag index --max-streamed-file-bytes raises it)"
            in refused.stderr) and "Traceback" not in refused.stderr
    assert not (tmp_path / "small" / "generations").exists() or not any((tmp_path / "small" / "generations").iterdir())
    assert run_index(str(plain), "--out", str(tmp_path / "big"), "--max-streamed-file-bytes", "1GiB").returncode == 0
    for bad in ("0", "12GB", "-5", "lots"):
        wrong = run_index(str(plain), "--out", str(tmp_path / "x"), "--max-streamed-file-bytes", bad)
        assert wrong.returncode == 2 and "expected a positive number of bytes" in wrong.stderr, bad
    update = run_index(str(plain), "--out", str(tmp_path / "plain"), "--update", "--max-streamed-file-bytes", "1GiB")
    assert update.returncode == 2 and "--max-streamed-file-bytes applies to a full build" in update.stderr
