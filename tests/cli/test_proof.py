"""``regrag prove`` and ``regrag verify-proof``."""

from __future__ import annotations

import json

from regrag import Index
from regrag.cli import main
from regrag.corpus.extract.pdf import available as pdf_available


def run(capsys, *arguments):
    status = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_prove_and_verify_proof(capsys, index_dir, tmp_path):
    status, out, _e = run(capsys, "prove", index_dir, "cbv-minimum-reserve-requirements.md")
    assert status == 0
    proof = json.loads(out)
    assert proof["root"] == Index.open(index_dir).corpus_root and proof["tree_size"] == (8 if pdf_available() else 7)  # its PDF needs pdfminer.six
    path = tmp_path / "proof.json"
    path.write_text(out, encoding="utf-8")
    status, out, _e = run(capsys, "verify-proof", path, "--root", proof["root"])
    assert status == 0 and out.startswith("valid:")
    status, out, _e = run(capsys, "verify-proof", path, "--root", "0" * 64)
    assert status == 1 and out.startswith("INVALID")
    proof["content_hash"] = "f" * 64
    path.write_text(json.dumps(proof), encoding="utf-8")
    assert run(capsys, "verify-proof", path)[0] == 1
    path.write_text("{not json", encoding="utf-8")
    assert run(capsys, "verify-proof", path)[0] == 2
    status, _o, err = run(capsys, "prove", index_dir, "no-such.md")
    assert status == 2 and "no document with id 'no-such.md'" in err
