"""bench/news_corpus.py: the synthetic Vietnamese and Chinese news of bench/scale.py.

The generators must give the same bytes on every run and hash seed (the
scale figures in docs/performance.md are only comparable if the corpus is),
and stay within the calibration bounds that docs/performance.md states.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import news_corpus  # noqa: E402  (bench/ is not a package)

# SHA-256 of the first 20 articles (seed 1) as JSONL: a change to the generator changes these on purpose,
# and then the scale figures in docs/performance.md must be measured again.
PINNED = {"vi": "682a2b4dbefcf2e5d760ce66960c7bbbd8d49716e00a679609a43c572ebd4956",
          "zh": "8f052804ab4acc323f41f990f6da2ffacff173ee74b292ca845dda2d5186d84f"}

HASH_IN_CHILD = (
    "import sys; sys.path.insert(0, sys.argv[1]); import news_corpus; from pathlib import Path; "
    "print(news_corpus.write_jsonl(Path(sys.argv[2]), news_corpus.articles(sys.argv[3], 1, 20))['sha256'])"
)


@pytest.mark.parametrize("language", news_corpus.LANGUAGES)
def test_same_bytes_across_runs_and_hash_seeds(language, tmp_path):
    digests = set()
    for hash_seed in ("0", "1", "4242"):
        done = subprocess.run([sys.executable, "-c", HASH_IN_CHILD, str(BENCH), str(tmp_path / "c.jsonl"), language],
                              capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": hash_seed})
        digests.add(done.stdout.strip())
    in_process = news_corpus.write_jsonl(tmp_path / "p.jsonl", news_corpus.articles(language, 1, 20))["sha256"]
    assert digests == {in_process} == {PINNED[language]}


@pytest.mark.parametrize("language", news_corpus.LANGUAGES)
def test_prefix_and_passage_counts(language):
    ten = [a.record() for a in news_corpus.articles(language, 1, 10)]
    twenty = [a.record() for a in news_corpus.articles(language, 1, 20)]
    assert twenty[:10] == ten
    for wanted in (1, 7, 50):
        made = list(news_corpus.articles(language, 1, passages=wanted))
        assert sum(len(a.sections) for a in made) == wanted
    other_seed = [a.record() for a in news_corpus.articles(language, 2, 10)]
    assert other_seed != ten


@pytest.fixture(scope="module", params=news_corpus.LANGUAGES)
def sample(request):
    language = request.param
    return language, list(news_corpus.articles(language, 1, 400))


def test_records_are_well_formed(sample):
    language, made = sample
    for article in made:
        record = article.record()
        assert record["metadata"]["source"] == news_corpus.SOURCE and "fictional" in news_corpus.SOURCE
        assert record["metadata"]["language"] == language
        assert len(record["metadata"]["date"]) == 10 and record["metadata"]["date"][:2] == "20"
        for ticker in article.tickers:
            assert len(ticker) == 3 and ticker.isascii() and ticker.isupper()
            assert ticker in record["title"] + "".join(heading + body for heading, body in article.sections)
        for _heading, body in article.sections:
            assert 0 < len(body) <= news_corpus.MAX_SECTION_CHARS
            assert unicodedata.is_normalized("NFC", body)
        text = "".join(body for _, body in article.sections)
        if language == "zh":
            assert " " not in text and text.endswith("。") and "，" in text
        else:
            assert text.endswith(".") and ", " in text
    unit = "亿元" if language == "zh" else "tỷ đồng"
    assert sum(unit in body for a in made for _, body in a.sections) > len(made) // 4


def test_calibration_within_stated_bounds(sample):
    """The bounds docs/performance.md states: bytes per article within 10 % of the real corpus's 3,527;
    at XQuAD's token count, distinct syllables/characters within 35 % of XQuAD's and the share of the
    1,000 most frequent within 0.06 of it; characters per sentence within 15 %."""
    language, made = sample
    texts = ["\n".join([a.title, *(f"{h}\n{b}" for h, b in a.sections)]) for a in made]
    mean_bytes = sum(a.text_bytes() for a in made) / len(made)
    assert abs(mean_bytes / (news_corpus.REAL_TOTAL_BYTES / news_corpus.REAL_ARTICLES) - 1) < 0.10
    reference = news_corpus.XQUAD_STATISTICS[language]
    measured = news_corpus.text_statistics(texts, language, reference["units"])
    assert measured["units"] == reference["units"]
    assert abs(measured["distinct"] / reference["distinct"] - 1) < 0.35
    assert abs(measured["top1000_share"] - reference["top1000_share"]) < 0.06
    assert abs(measured["chars_per_sentence"] / reference["chars_per_sentence"] - 1) < 0.15


def test_queries_are_deterministic_and_from_the_vocabulary():
    for language in news_corpus.LANGUAGES:
        lexicon = news_corpus.make_lexicon(language)
        words = news_corpus.query_words(language, 1, 50, lexicon)
        assert words == news_corpus.query_words(language, 1, 50)
        known = set(lexicon.words[:8_000]) | {ticker for _, ticker in lexicon.companies}
        assert all(2 <= len(query) <= 6 and set(query) <= known for query in words)
        assert any(query[0].isascii() and query[0].isupper() for query in words)  # some name a ticker
        joined = news_corpus.make_queries(language, 1, 50, lexicon)
        assert joined == [(" " if language == "vi" else "").join(query) for query in words]


def test_scale_cli_measures_a_small_corpus(tmp_path):
    """bench/scale.py --corpus end to end on 30 passages: every step ran, each section is one passage."""
    report_file = tmp_path / "report.json"
    done = subprocess.run([sys.executable, str(BENCH / "scale.py"), "--corpus", "zh", "--passages", "30",
                           "--work-dir", str(tmp_path / "work"), "--queries", "4", "--latency-queries", "2",
                           "--cli-runs", "1", "--json", str(report_file)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "| zh |" in done.stdout
    (result,) = json.loads(report_file.read_text(encoding="utf-8"))["results"]
    assert "error" not in result
    assert result["corpus_file"]["passages"] == result["manifest"]["passage_count"] == 30
    assert result["index"]["peak_rss_mb"] > 10 and result["disk_mb"] > 0 and result["cli_search"]["runs"] == 1
    assert result["open"]["open_s"] > 0 and result["open"]["bm25"]["p50_ms"] > 0
    assert not (tmp_path / "work" / "zh-passages-30.index").exists()  # removed without --keep
