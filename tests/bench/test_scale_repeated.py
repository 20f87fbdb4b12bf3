"""bench/scale_news.py's ``--distinct`` corpus: N documents repeated under the next ids."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import scale_news  # noqa: E402  (bench/ is not a package)


def test_copies_keep_text_and_take_the_next_ids(tmp_path):
    source = tmp_path / "s.jsonl"
    records = [{"id": f"d{n:07d}", "metadata": {"language": "en"}, "text": f"text {n}", "title": f"T{n}"} for n in range(3)]
    source.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    stats = {"articles": 3, "passages": 3, "text_bytes": 30, "file_bytes": 0, "capped_sections": 1, "sha256": ""}
    out = tmp_path / "o.jsonl"
    got = scale_news.write_repeated(source, 3, out, stats)
    lines = out.read_bytes().splitlines(keepends=True)
    assert [json.loads(line)["id"] for line in lines] == [f"d{n:07d}" for n in range(9)]
    assert [json.loads(line)["text"] for line in lines] == [f"text {n % 3}" for n in range(9)]
    assert got == {"articles": 9, "passages": 9, "text_bytes": 90, "file_bytes": out.stat().st_size, "capped_sections": 3,
                   "sha256": hashlib.sha256(out.read_bytes()).hexdigest(), "distinct_passages": 3}
    source.write_text('{"id": "x1", "text": "t"}\n')
    with pytest.raises(ValueError, match="not a bench/scale.py English record"):
        scale_news.write_repeated(source, 2, out, stats)
