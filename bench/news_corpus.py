"""Synthetic Vietnamese and Chinese stock-market news for bench/scale.py.

    python3 bench/news_corpus.py vi --articles 2000 --calibrate   # statistics against XQuAD vi

Everything is invented (``news_vi``, ``news_zh``: the syllables, characters
and a few hundred common words); companies, tickers, figures and events are
fictional, and every record says so (``metadata.source``). Deterministic:
every random number comes from a ``random.Random`` seeded with a string, so
the same language, seed and size give the same bytes on any machine and hash
seed; the first N articles of a larger corpus are the N articles of a smaller
one.

An article (one JSONL line: ``id``, ``title``, ``sections``, ``metadata``
with ``date``, ``category``, ``tickers``, ``language``, ``source``):

- its body length in units (syllables in vi, characters in zh) is drawn from
  a log-normal distribution, median ``MEDIAN_UNITS`` and sigma ``SIGMA``
  (news article lengths are close to log-normal), clipped to
  [``MIN_UNITS``, 8 x median]; the medians are calibrated so that 35,440
  articles make about 125 MB of UTF-8 text (titles, headings and bodies;
  the real corpus of issue 14: 35,440 articles, 125 MB, 3,527 bytes each);
- a title (vi 10-22 syllables, zh 12-28 characters), one to six sections
  (one more per ``UNITS_PER_SECTION``) with a short heading, paragraphs of
  two to five sentences; sentences of vi 18-50 syllables or zh 28-78
  characters with one or two commas, so about XQuAD's 146 and 47 characters
  a sentence;
- a sentence holds, with probability ``FACT_PROBABILITY``, a fact: a ticker
  and a price move, a profit or turnover in tỷ đồng / 亿元, an index level,
  or a date; the article's tickers (metadata) are those it mentions;
- a section body stays below ``MAX_SECTION_CHARS`` characters (whole
  sentences are dropped from its end), so each section is exactly one
  regrag passage at the default 4,000-character bound.

Words come from a Zipf-Mandelbrot distribution over ``WORD_COUNT`` word ranks
(weight 1 / (rank + ``WORD_SHIFT``) ** ``WORD_EXPONENT``), the generated
words' syllables or characters from a Zipf distribution over their ranks
(``PIECE_EXPONENT``); companies (and their tickers) from a Zipf distribution
over ``COMPANY_COUNT`` fictional companies. ``--calibrate`` prints the
statistics of the generated text beside those of XQuAD (vi or zh, read by
path): bytes per article, distinct syllables/characters at XQuAD's token
count, the share of the 10/100/1000 most frequent ones, characters per
sentence.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import itertools
import json
import math
import random
import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import news_vi
import news_zh

LANGUAGES = ("vi", "zh")
WORD_COUNT = 40_000
WORD_EXPONENT = 1.0
WORD_SHIFT = 40.0  # flattens the head, as in real word counts (Mandelbrot)
PIECE_EXPONENT = {"vi": 1.15, "zh": 1.25}  # syllables (vi) or characters (zh) within the generated words
COMPANY_COUNT = 800
SIGMA = 0.6
MEDIAN_UNITS = {"vi": 342, "zh": 745}
MIN_UNITS = 60
UNITS_PER_SECTION = {"vi": 260, "zh": 480}
MAX_SECTIONS = 6
MAX_SECTION_CHARS = 3_900
SENTENCE_UNITS = {"vi": (18, 50), "zh": (28, 78)}
TITLE_UNITS = {"vi": (10, 22), "zh": (12, 28)}
HEADING_UNITS = {"vi": (3, 7), "zh": (4, 10)}
FACT_PROBABILITY = 0.3
FIRST_DAY = datetime.date(2024, 1, 1).toordinal()
DAYS = 3 * 365
SOURCE = "regrag synthetic news (fictional)"
CATEGORIES = {"vi": ("xu-huong-thi-truong", "co-phieu-nganh", "dong-von-ngoai", "quy-dinh-doanh-nghiep",
                     "ket-qua-kinh-doanh"),
              "zh": ("市场动态", "个股行业", "资金流向", "政策监管", "业绩报告")}
REAL_TOTAL_BYTES, REAL_ARTICLES = 125e6, 35_440
# text_statistics of XQuAD's 240 contexts (vi, zh; /work/shared/data/xquad_*/corpus.jsonl, measured
# 2026-12-01 by --calibrate), so the tests check the calibration without the data set.
XQUAD_STATISTICS = {
    "vi": {"units": 40_584, "distinct": 3_278, "top10_share": 0.141, "top100_share": 0.430,
           "top1000_share": 0.906, "chars_per_sentence": 145.9},
    "zh": {"units": 47_375, "distinct": 2_031, "top10_share": 0.133, "top100_share": 0.422,
           "top1000_share": 0.946, "chars_per_sentence": 47.5},
}
REPO = Path(__file__).resolve().parents[1]
# XQuAD (vi, zh) for --calibrate: the shared data folder beside the checkout or beside its worktree folder.
XQUAD_DIRECTORIES = (REPO.parent / "shared" / "data", REPO.parent.parent / "shared" / "data")


@dataclass(frozen=True)
class Lexicon:
    """One language's words by rank, their sizes in units, and the fictional companies."""

    language: str
    words: list[str]
    units: list[int]
    cumulative: list[float]
    companies: list[tuple[str, str]]  # (name, ticker)
    company_cumulative: list[float]


def _zipf(count: int, exponent: float, shift: float = 0.0) -> list[float]:
    """Cumulative Zipf(-Mandelbrot) weights 1 / (rank + shift) ** exponent, ranks 1..count."""
    return list(itertools.accumulate(1.0 / (rank + shift)**exponent for rank in range(1, count + 1)))


def make_lexicon(language: str, seed: int = 1) -> Lexicon:
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {language!r}")
    rng = random.Random(f"regrag-news/{language}/{seed}/lexicon")
    module = news_vi if language == "vi" else news_zh
    pieces = news_vi.syllables(rng) if language == "vi" else news_zh.characters(rng)
    piece_cumulative = _zipf(len(pieces), PIECE_EXPONENT[language])
    lengths, weights = zip(*(news_vi.WORD_SYLLABLE_WEIGHTS if language == "vi" else news_zh.WORD_CHARACTER_WEIGHTS))
    joiner = " " if language == "vi" else ""
    seen = dict.fromkeys(module.common_words())
    generated: list[str] = []
    while len(seen) + len(generated) < WORD_COUNT:
        size = rng.choices(lengths, weights)[0]
        word = joiner.join(rng.choices(pieces, cum_weights=piece_cumulative, k=size))
        if word not in seen:
            seen[word] = None
            generated.append(word)
    generated.sort(key=lambda word: word.count(" ") if language == "vi" else len(word))  # stable
    words = [*module.common_words(), *generated]
    units = [word.count(" ") + 1 if language == "vi" else len(word) for word in words]
    return Lexicon(language, words, units, _zipf(len(words), WORD_EXPONENT, WORD_SHIFT),
                   _companies(language, rng, pieces), _zipf(COMPANY_COUNT, 1.0))


def _companies(language: str, rng: random.Random, pieces: list[str]) -> list[tuple[str, str]]:
    kinds = (("Công ty Cổ phần", "Ngân hàng TMCP", "Tập đoàn", "Tổng Công ty") if language == "vi"
             else ("股份有限公司", "集团", "控股"))
    sectors = (("Thép", "Dược", "Địa ốc", "Thủy sản", "Điện lực", "Xây dựng", "Vận tải", "Dệt may", "Nhựa",
                "Phân bón", "Cao su", "Chứng khoán", "Bảo hiểm", "Năng lượng") if language == "vi"
               else ("钢铁", "银行", "地产", "医药", "电子", "能源", "汽车", "化工", "食品", "物流", "证券", "建设"))
    tickers: dict[str, None] = {}
    companies = []
    while len(companies) < COMPANY_COUNT:
        first, second = rng.choice(pieces[100:3000]), rng.choice(pieces[100:3000])
        sector, kind = rng.choice(sectors), rng.choice(kinds)
        if language == "vi":
            name = f"{kind} {sector} {first.capitalize()} {second.capitalize()}"
            ticker = "".join(_ascii_initial(s) for s in (sector, first, second)).upper()
        else:
            name = f"{first}{second}{sector}{kind}"
            ticker = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3))
        if ticker in tickers or not (ticker.isascii() and ticker.isalpha() and len(ticker) == 3):
            ticker = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3))
        if ticker not in tickers:
            tickers[ticker] = None
            companies.append((name, ticker))
    return companies


def _ascii_initial(syllable: str) -> str:
    letter = syllable[0].lower()
    return "d" if letter == "đ" else unicodedata.normalize("NFD", letter)[0]


@dataclass(frozen=True)
class Article:
    id: str
    title: str
    date: str
    category: str
    tickers: tuple[str, ...]
    sections: tuple[tuple[str, str], ...]  # (heading, body)
    capped: int  # sections shortened to MAX_SECTION_CHARS

    def record(self) -> dict:
        """The JSONL line (a regrag JSONL corpus record)."""
        return {"id": self.id, "title": self.title,
                "sections": [{"title": heading, "text": body} for heading, body in self.sections],
                "metadata": {"date": self.date, "category": self.category, "tickers": ", ".join(self.tickers),
                             "language": self.id[:2], "source": SOURCE}}

    def text_bytes(self) -> int:
        return len(self.title.encode()) + sum(len(h.encode()) + len(b.encode()) for h, b in self.sections)


class _Writer:
    """Sentences, facts and titles of one language, drawing from one ``random.Random``."""

    def __init__(self, lexicon: Lexicon, rng: random.Random) -> None:
        self.lexicon, self.rng, self.vi = lexicon, rng, lexicon.language == "vi"
        self.mentioned: dict[str, None] = {}

    def words(self, units: int) -> list[str]:
        lexicon, out, total = self.lexicon, [], 0
        while total < units:
            for index in self.rng.choices(range(len(lexicon.words)), cum_weights=lexicon.cumulative, k=max(4, units // 2)):
                out.append(lexicon.words[index])
                total += lexicon.units[index]
                if total >= units:
                    break
        return out

    def company(self) -> tuple[str, str]:
        name, ticker = self.rng.choices(self.lexicon.companies, cum_weights=self.lexicon.company_cumulative)[0]
        self.mentioned.setdefault(ticker, None)
        return name, ticker

    def number(self, low: float, high: float, decimals: int) -> str:
        text = f"{self.rng.uniform(low, high):,.{decimals}f}"
        return text.replace(",", "_").replace(".", ",").replace("_", ".") if self.vi else text.replace(",", "")

    def fact(self) -> str:
        r, n = self.rng, self.number
        kind = r.randrange(5)
        up = r.random() < 0.5
        if self.vi:
            if kind == 0:
                return f"cổ phiếu {self.company()[1]} {'tăng' if up else 'giảm'} {n(0.1, 7, 2)}% {'lên' if up else 'xuống'} {n(5e3, 150e3, 0)} đồng"
            if kind == 1:
                name, ticker = self.company()
                return f"{name} ({ticker}) báo lãi sau thuế {n(5, 9000, 1)} tỷ đồng trong quý {r.randint(1, 4)}/{r.choice((2024, 2025, 2026))}"
            if kind == 2:
                return f"giá trị khớp lệnh đạt {n(3000, 40000, 0)} tỷ đồng"
            if kind == 3:
                return f"VN-Index {'tăng' if up else 'giảm'} {n(0.5, 40, 2)} điểm {'lên' if up else 'xuống'} {n(900, 1600, 2)} điểm"
            return f"ngày {r.randint(1, 28)}/{r.randint(1, 12)}/{r.choice((2024, 2025, 2026))}"
        if kind == 0:
            name, ticker = self.company()
            return f"{name}（{ticker}）股价{'上涨' if up else '下跌'}{n(0.1, 10, 2)}%，收于{n(2, 300, 2)}元"
        if kind == 1:
            name, ticker = self.company()
            return f"{name}（{ticker}）第{r.randint(1, 4)}季度实现净利润{n(0.1, 120, 2)}亿元，同比增长{n(0.5, 80, 1)}%"
        if kind == 2:
            return f"两市成交额达{n(4000, 15000, 0)}亿元"
        if kind == 3:
            return f"综合指数{'上涨' if up else '下跌'}{n(0.1, 3, 2)}%，报{n(2800, 3600, 2)}点"
        return f"{r.choice((2024, 2025, 2026))}年{r.randint(1, 12)}月{r.randint(1, 28)}日"

    def clause_text(self, words: list[str]) -> str:
        return (" " if self.vi else "").join(words)

    def sentence(self) -> str:
        text = self.clause_text(self.words(self.rng.randint(*SENTENCE_UNITS[self.lexicon.language])))
        for _ in range(self.rng.choice((1, 1, 2))):  # commas between words, never inside a fact
            cut = self._boundary(text)
            if cut:
                text = text[:cut] + ("," if self.vi else "，") + text[cut:]
        parts = [text]
        if self.rng.random() < FACT_PROBABILITY:
            parts.insert(self.rng.randrange(2), self.fact())
        text = (", " if self.vi else "，").join(parts)
        return (text[:1].upper() + text[1:] + ".") if self.vi else text + "。"

    def _boundary(self, text: str) -> int:
        if self.vi:
            spaces = [m.start() for m in re.finditer(" ", text)]
            return self.rng.choice(spaces[2:-2]) if len(spaces) > 5 else 0
        return self.rng.randrange(6, len(text) - 6) if len(text) > 20 else 0

    def title(self, units: tuple[int, int], ticker_probability: float = 0.6) -> str:
        words = self.clause_text(self.words(self.rng.randint(*units)))
        if self.rng.random() < ticker_probability:
            words = f"{self.company()[1]}: {words}" if self.vi else f"{self.company()[1]}{words}"
        return words[:1].upper() + words[1:]


def _length(rng: random.Random, language: str) -> int:
    median = MEDIAN_UNITS[language]
    return max(MIN_UNITS, min(8 * median, round(median * math.exp(rng.gauss(0.0, SIGMA)))))


def generate_articles(language: str, seed: int = 1, lexicon: Lexicon | None = None) -> Iterator[Article]:
    """The endless article stream of a language and seed (take what you need)."""
    lexicon = lexicon or make_lexicon(language, seed)
    rng = random.Random(f"regrag-news/{language}/{seed}/articles")
    unit_of = (lambda s: s.count(" ") + 1) if language == "vi" else len
    for number in itertools.count():
        writer = _Writer(lexicon, rng)
        units = _length(rng, language)
        title = writer.title(TITLE_UNITS[language])
        section_count = min(MAX_SECTIONS, 1 + units // UNITS_PER_SECTION[language])
        sections, capped = [], 0
        for _ in range(section_count):
            heading = writer.title(HEADING_UNITS[language], 0.0) if rng.random() < 0.9 else ""
            paragraphs, total, share = [], 0, units // section_count
            while total < share:
                sentences = [writer.sentence() for _ in range(rng.randint(2, 5))]
                total += sum(unit_of(s) for s in sentences)
                paragraphs.append((" " if language == "vi" else "").join(sentences))
            body = "\n\n".join(paragraphs)
            if len(body) > MAX_SECTION_CHARS:
                capped += 1
                cut = max(body.rfind(". " if language == "vi" else "。", 0, MAX_SECTION_CHARS - 1),
                          body.rfind("\n\n", 0, MAX_SECTION_CHARS - 1))
                body = body[:cut + 1].rstrip() if cut > 0 else body[:MAX_SECTION_CHARS]
            sections.append((heading, body))
        day = datetime.date.fromordinal(FIRST_DAY + rng.randrange(DAYS)).isoformat()
        yield Article(f"{language}{number:07d}", title, day, rng.choice(CATEGORIES[language]),
                      tuple(writer.mentioned), tuple(sections), capped)


def articles(language: str, seed: int, count: int | None = None, passages: int | None = None) -> Iterator[Article]:
    """``count`` articles, or articles until ``passages`` sections (the last article cut short)."""
    made = 0
    for number, article in enumerate(generate_articles(language, seed)):
        if count is not None and number >= count:
            return
        if passages is not None:
            if made >= passages:
                return
            if made + len(article.sections) > passages:
                article = Article(article.id, article.title, article.date, article.category, article.tickers,
                                  article.sections[:passages - made], article.capped)
            made += len(article.sections)
        yield article


def write_jsonl(path: Path, stream: Iterator[Article]) -> dict:
    """Write the articles (or any records with ``record()``, ``sections``, ``text_bytes()`` and
    ``capped``) as a JSONL corpus; their counts, text bytes and the file's SHA-256."""
    digest, articles_written, sections, text_bytes, capped = hashlib.sha256(), 0, 0, 0, 0
    with path.open("wb") as out:
        for article in stream:
            line = (json.dumps(article.record(), ensure_ascii=False, sort_keys=True) + "\n").encode()
            out.write(line)
            digest.update(line)
            articles_written += 1
            sections += len(article.sections)
            text_bytes += article.text_bytes()
            capped += article.capped
    return {"articles": articles_written, "passages": sections, "text_bytes": text_bytes, "file_bytes": path.stat().st_size,
            "capped_sections": capped, "sha256": digest.hexdigest()}


def make_queries(language: str, seed: int, count: int, lexicon: Lexicon | None = None) -> list[str]:
    """Queries of 2-5 (vi) or 2-4 (zh) words of word ranks 30-8,000, a quarter led by a ticker."""
    joiner = " " if language == "vi" else ""
    return [joiner.join(words) for words in query_words(language, seed, count, lexicon)]


def query_words(language: str, seed: int, count: int, lexicon: Lexicon | None = None) -> list[list[str]]:
    """The words (and tickers) of ``make_queries``'s queries."""
    lexicon = lexicon or make_lexicon(language, seed)
    rng = random.Random(f"regrag-news/{language}/{seed}/queries")
    low, high = 29, 8_000  # 0-based ranks
    base, width = lexicon.cumulative[low - 1], lexicon.cumulative[high - 1] - lexicon.cumulative[low - 1]
    queries = []
    for _ in range(count):
        picked = [lexicon.words[min(high - 1, bisect_right(lexicon.cumulative, base + rng.random() * width, low))]
                  for _ in range(rng.randint(2, 5 if language == "vi" else 4))]
        if rng.random() < 0.25:
            picked.insert(0, rng.choices(lexicon.companies, cum_weights=lexicon.company_cumulative)[0][1])
        queries.append(picked)
    return queries


def text_statistics(texts: list[str], language: str, tokens_wanted: int | None = None) -> dict:
    """Units (vi: lower-cased alphabetic syllables; zh: CJK characters), on the first ``tokens_wanted`` of them."""
    joined = "\n".join(texts)
    if language == "vi":
        units = [w for w in (t.strip(".,;:()\"'").lower() for t in joined.split()) if w and w.isalpha()]
    else:
        units = [c for c in joined if unicodedata.category(c) == "Lo"]
    counts = Counter(units[:tokens_wanted] if tokens_wanted else units)
    total = sum(counts.values())
    ranked = sorted(counts.values(), reverse=True)
    sentences = [s for s in re.split(r"[.。!?！？]", joined) if s.strip()]
    return {"documents": len(texts), "bytes_per_document": len(joined.encode()) / max(1, len(texts)),
            "units": total, "distinct": len(counts),
            **{f"top{n}_share": sum(ranked[:n]) / max(1, total) for n in (10, 100, 1000)},
            "chars_per_sentence": sum(map(len, sentences)) / max(1, len(sentences))}


def calibration(language: str, count: int, seed: int = 1) -> dict:
    texts = ["\n".join([a.title, *(f"{h}\n{b}" for h, b in a.sections)]) for a in articles(language, seed, count)]
    report = {"synthetic": text_statistics(texts, language)}
    xquad = next((d / f"xquad_{language}" / "corpus.jsonl" for d in XQUAD_DIRECTORIES
                  if (d / f"xquad_{language}" / "corpus.jsonl").is_file()), None)
    if xquad is not None:
        real = [json.loads(line)["text"] for line in xquad.open(encoding="utf-8") if line.strip()]
        report["xquad"] = text_statistics(real, language)
        report["synthetic_at_xquad_size"] = text_statistics(texts, language, report["xquad"]["units"])
    report["target_bytes_per_article"] = REAL_TOTAL_BYTES / REAL_ARTICLES
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("language", choices=LANGUAGES)
    parser.add_argument("--articles", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--calibrate", action="store_true", help="print statistics beside XQuAD's")
    parser.add_argument("--out", help="write the articles as JSONL here")
    arguments = parser.parse_args()
    if arguments.out:
        print(json.dumps(write_jsonl(Path(arguments.out), articles(arguments.language, arguments.seed,
                                                                   arguments.articles))))
    if arguments.calibrate:
        print(json.dumps(calibration(arguments.language, arguments.articles, arguments.seed), indent=1))


if __name__ == "__main__":
    main()
