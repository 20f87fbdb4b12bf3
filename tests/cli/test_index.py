"""``regrag index`` (build, --update, --keep, the progress line) and ``regrag verify``."""

from __future__ import annotations

import shutil
from pathlib import Path

from regrag.cli import main
from regrag.corpus.extract.pdf import available as pdf_available

REPO = Path(__file__).resolve().parents[2]
REGULATIONS = REPO / "corpora" / "regulations"
CORPUS = "corpora/regulations/documents"
REGULATION_DOCUMENTS = 8 if pdf_available() else 7  # its PDF needs pdfminer.six


def run(capsys, *arguments):
    status = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_update_publishes_a_generation_identical_to_a_fresh_index(capsys, index_dir, tmp_path):
    corpus = tmp_path / "corpus"
    # the five Markdown regulations: with all eight, three changes are a small enough share that the update
    # adds a segment (docs/index-format.md) instead of rewriting the generation a fresh index writes
    shutil.copytree(CORPUS, corpus, ignore=lambda _d, names: [n for n in names if not n.endswith(".md")])
    names = sorted(p.name for p in corpus.iterdir())
    (corpus / names[0]).write_text((corpus / names[0]).read_text(encoding="utf-8") + "\nA sentence added later.\n", encoding="utf-8")
    (corpus / names[-1]).unlink()
    (corpus / "new.md").write_text("# New circular\n\nBanks report liquidity weekly.\n", encoding="utf-8")
    status, out, _e = run(capsys, "index", corpus, "--out", index_dir, "--update")
    assert status == 0 and "generation 2" in out and f"1 added, 1 replaced, {REGULATION_DOCUMENTS - 4} deleted" in out
    status, _o, _e = run(capsys, "index", corpus, "--out", tmp_path / "fresh")
    fresh = tmp_path / "fresh" / "generations" / "000001"
    for path in sorted(p for p in fresh.rglob("*") if p.is_file()):  # entities/ too: its table
        name = path.relative_to(fresh)
        assert (index_dir / "generations" / "000002" / name).read_bytes() == path.read_bytes(), name
    status, _o, err = run(capsys, "index", corpus, "--out", index_dir, "--update", "--b", "0.5")
    assert status == 2 and "cannot be combined with --update" in err
    # Both generations answer; the old one as it did before.
    _s, old, _e = run(capsys, "search", "liquidity", "--index", index_dir, "--generation", "1", "--json")
    _s, before, _e = run(capsys, "search", "liquidity", "--corpus", CORPUS, "--json")
    assert old == before


def test_keep_prunes_old_generations(capsys, index_dir):
    for _ in range(3):
        assert run(capsys, "index", CORPUS, "--out", index_dir, "--keep", "2")[0] == 0
    assert sorted(p.name for p in (index_dir / "generations").iterdir()) == ["000003", "000004"]
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir, "--generation", "1")
    assert status == 2 and "kept: 3, 4" in err


def test_verify_reports_intact_and_damaged(capsys, index_dir):
    status, out, _e = run(capsys, "verify", index_dir)
    assert status == 0 and out == "generation 1: ok (sizes, hashes and a full re-index of the stored documents)\n"
    target = index_dir / "generations" / "000001" / "positions.bin"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))
    status, out, _e = run(capsys, "verify", index_dir, "--quick")
    assert status == 1 and "DAMAGED" in out and "positions.bin" in out
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir)
    assert status == 2 and "positions.bin: bytes " in err and "do not match their SHA-256 in chunks.sha256" in err


def test_index_progress_and_the_index_written_is_the_same(tmp_path, run_with_stderr_on_a_terminal, run_plain,
                                                         markdown_regulations):
    documents = str(markdown_regulations)  # no PDF: standard error is the same with or without pdfminer.six
    status, out, err = run_with_stderr_on_a_terminal("index", documents, "--out", str(tmp_path / "terminal"))
    plain = run_plain("index", documents, "--out", str(tmp_path / "plain"))
    assert status == plain.returncode == 0 and plain.stderr == b""
    assert b"\rindexing: " in err and b"\rmerging runs: " in err and b"\rTF-IDF norms: " in err  # a line per stage
    # the summary is the same but for the publishing time
    assert out.splitlines()[:3] == plain.stdout.splitlines()[:3]
    assert run_plain("verify", "--quick", str(tmp_path / "terminal")).returncode == 0
