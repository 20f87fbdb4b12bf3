"""Hypothesis strategies for hostile input, shared by the test suite.

Import as ``from tests.strategies import hostile_texts, documents, ...``:
``python3 -m pytest`` from the repository root (the README's and CI's command)
puts the root on ``sys.path``, and ``tests`` resolves as a namespace package.

What "hostile" covers (issue 7):

* every code point except surrogates (a ``str`` regrag receives from a file or
  a JSON parser is encodable, so surrogates are excluded; the engine's own
  check of lone surrogates is tested separately);
* combining-mark floods on one base, with marks of several combining classes
  in non-canonical order (the worst case of Unicode normalisation);
* zero-width joiners and non-joiners, bidirectional controls (U+202A–U+202E,
  U+2066–U+2069, LRM/RLM/ALM), BOMs, variation selectors, tag characters;
* characters that NFKC expands many-fold (U+FDFA → 18 characters, the
  U+3300 squared katakana, ligatures, parenthesised and circled numbers,
  fractions, full-width and mathematical letters);
* mixed scripts: Han, Hiragana, Katakana (and half-width), Hangul syllables
  and jamo, Vietnamese letters precomposed and decomposed, Latin, digits,
  tickers, number joiners, apostrophes, every kind of line break and space.

Every strategy is deterministic given hypothesis' seed; nothing here reads
the clock or a global random generator.
"""

from __future__ import annotations

from hypothesis import strategies as st

from regrag.corpus.model import Document, Section

# --- characters ---------------------------------------------------------------------------

#: Any code point except the surrogates, drawn uniformly (unassigned, private use and
#: noncharacters included).
ANY_CODE_POINT = (
    st.integers(min_value=0, max_value=0x10FFFF).filter(lambda code: not 0xD800 <= code <= 0xDFFF).map(chr)
)

#: Combining marks of different combining classes: 230 (above), 220 (below), 1 (overlay),
#: 202 (attached below), 240 (iota subscript), 8 (kana voicing), 0 (CGJ, a mark that is a
#: starter) and an enclosing mark.
COMBINING_MARKS = (
    "\u0301", "\u0300", "\u0308", "\u0316", "\u0323", "\u0334", "\u0327", "\u0345",
    "\u3099", "\u034f", "\u20dd", "\u0309", "\u031b", "\u0302", "\u0306", "\u0303",
)
ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff")
BIDI_CONTROLS = tuple(chr(c) for c in range(0x202A, 0x202F)) + tuple(chr(c) for c in range(0x2066, 0x206A)) + (
    "\u200e", "\u200f", "\u061c",
)
#: Variation selectors, tag characters, noncharacters, private use, NUL and other controls.
ODD_FORMATS = (
    "\ufe0f", "\ufe00", "\U000e0100", "\U000e0001", "\U000e0041", "\U000e007f",
    "\ufffe", "\uffff", "\U0010ffff", "\ue000", "\U000f0000", "\x00", "\x07", "\x1b", "\x7f", "\u00ad",
)
#: Characters whose NFKC form is much longer than they are.
NFKC_EXPANDING = (
    "\ufdfa", "\ufdfb", "\u3300", "\u3301", "\u3302", "\u3303", "\u3304", "\u331e", "\u3357",
    "\u333d", "\u3371", "\u32ff", "\u2474", "\u2488", "\u249c", "\u2460", "\u3250", "\u33ff",
    "\ufb01", "\ufb03", "\ufb06", "\u00bd", "\u2155", "\u2161", "\u217f", "\u01c4", "\u0149",
    "\u1e9e", "\u0130", "\u00df", "\u0390", "\u01f0", "\U0001d400", "\U0001d7ce", "\uff21",
    "\uff11", "\uff0e", "\u00a8", "\u00af", "\u00b4", "\u00b8", "\u02dd", "\u037a", "\u1fbf",
)
CJK = (
    "\u4e2d", "\u56fd", "\u5e74", "\u8d39", "\u3005", "\u3007", "\u306e", "\u304b", "\u30ab",
    "\u30fc", "\uff76", "\uff9e", "\uff9f", "\ud55c", "\uae00", "\u1100", "\u1161", "\u11a8",
    "\u3131", "\u314f", "\U00020000", "\uf900",
)
VIETNAMESE = (
    "đ", "Đ", "ư", "ơ", "ă", "ệ", "ấ", "ở", "ỹ", "ạ", "e\u0302\u0323", "o\u031b\u0309", "Nguyễn", "chứng khoán",
)
LATIN_AND_NUMBERS = (
    "a", "Z", "e", "s", "'", "\u2019", "'s", "IT", "ON", "HPG", "VN30", "T+1", "5G", "3.45%", "1,250.5",
    "12.000", ".", ",", "+", "%", "-", "_", "#", "/", "the", "and", "fees", "running",
)
SPACES_AND_BREAKS = (
    " ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x85", "\u2028", "\u2029", "\u00a0", "\u1680",
    "\u2000", "\u200a", "\u202f", "\u205f", "\u3000", "\u180e",
)
PUNCTUATION = tuple(".,;:!?\"'()[]{}<>«»“”‘’—–…·•§¶†‡※。！？；、「」『』（）")

#: Every fixed hostile piece above.
HOSTILE_PIECES = (
    COMBINING_MARKS + ZERO_WIDTH + BIDI_CONTROLS + ODD_FORMATS + NFKC_EXPANDING + CJK + VIETNAMESE
    + LATIN_AND_NUMBERS + SPACES_AND_BREAKS + PUNCTUATION
)


@st.composite
def combining_floods(draw, min_marks: int = 1, max_marks: int = 80) -> str:
    """One base (letter, digit, CJK, space, punctuation or none) and a run of marks, in an
    order that is not canonical (classes interleaved), sometimes with BOMs inside."""
    base = draw(st.sampled_from(("a", "Z", "7", "中", "ｶ", "\u1100", " ", ".", "=", "\u00b4", "")))
    marks = draw(st.lists(st.sampled_from(COMBINING_MARKS + ("\ufeff", "\uff9e", "\u1161")),
                          min_size=min_marks, max_size=max_marks))
    return base + "".join(marks)


@st.composite
def repeated_pieces(draw, max_repeats: int = 60) -> str:
    """A hostile piece repeated: runs of periods, digits and commas, apostrophes, joiners."""
    piece = draw(st.sampled_from(HOSTILE_PIECES + ("1.", "1,", "a'", "a+", "ABC ", "!?", ".\"", "..")))
    return piece * draw(st.integers(min_value=1, max_value=max_repeats))


#: One element of a hostile text: any code point, a fixed hostile piece, a flood or a run.
HOSTILE_ELEMENT = st.one_of(
    ANY_CODE_POINT,
    st.sampled_from(HOSTILE_PIECES),
    combining_floods(),
    repeated_pieces(),
)


def hostile_texts(max_elements: int = 30) -> st.SearchStrategy[str]:
    """Texts made of hostile elements (each a code point, a piece, a flood or a run)."""
    return st.lists(HOSTILE_ELEMENT, max_size=max_elements).map("".join)


def any_texts(max_size: int = 200) -> st.SearchStrategy[str]:
    """Texts of uniformly drawn code points (every plane, no surrogates)."""
    return st.text(alphabet=ANY_CODE_POINT, max_size=max_size)


# --- documents and corpora ----------------------------------------------------------------

METADATA_FIELDS = ("issuer", "ticker", "tickers", "product", "language", "effective_date", "category")

#: Metadata values: ordinary names, dates (some malformed), and hostile text.
METADATA_VALUES = st.one_of(
    st.sampled_from(("Acme Bank", "ACME", "HPG", "VN30,HPG", "金莲银行", "Hòa Phát", "zh", "en", "2025-01-01",
                     "2024-12-31", "2025-02-30", "25-1-1", "")),
    hostile_texts(max_elements=6),
)

#: Document ids: short ids, ids with '#', spaces, slashes and non-ASCII, never empty.
DOCUMENT_IDS = st.one_of(
    st.from_regex(r"[a-z0-9][a-z0-9._/-]{0,20}", fullmatch=True),
    st.text(alphabet=st.sampled_from(("a", "#", "1", " ", "/", "中", "ệ", "\u200d", "\u202e")), min_size=1,
            max_size=8),
)


def make_document(document_id: str, text: str, title: str = "", metadata: dict[str, str] | None = None) -> Document:
    """A one-section document, as ``tests/conftest.py::make_document`` builds them."""
    return Document(
        document_id, title, text, (Section(title, 0, len(text)),), tuple(sorted((metadata or {}).items())), "test",
    )


@st.composite
def documents(draw, document_id: str | None = None, text: st.SearchStrategy[str] | None = None) -> Document:
    """One document: hostile title and text, a few metadata fields."""
    identifier = document_id if document_id is not None else draw(DOCUMENT_IDS)
    body = draw(text if text is not None else hostile_texts())
    title = draw(st.one_of(st.just(""), hostile_texts(max_elements=5)))
    metadata = draw(st.dictionaries(st.sampled_from(METADATA_FIELDS), METADATA_VALUES, max_size=3))
    return make_document(identifier, body, title, metadata)


@st.composite
def corpora(draw, min_size: int = 1, max_size: int = 6) -> list[Document]:
    """Documents with unique ids, in the order drawn (regrag sorts them itself)."""
    identifiers = draw(st.lists(DOCUMENT_IDS, min_size=min_size, max_size=max_size, unique=True))
    return [draw(documents(document_id=identifier)) for identifier in identifiers]


# --- queries and filters ------------------------------------------------------------------

STOPWORD_QUERIES = ("the", "the of and", "a an the", "to be or not to be", "it is", "The", "The Of")
PUNCTUATION_QUERIES = ("", " ", "\t\n", "...", "!!! ???", "?", "-- // ##", "。！？", "\u200d\u202e\u2066", "\ufeff")


def queries(max_elements: int = 12) -> st.SearchStrategy[str]:
    """Queries: ordinary words, stopwords only, punctuation only, empty, hostile text."""
    return st.one_of(
        st.sampled_from(STOPWORD_QUERIES + PUNCTUATION_QUERIES),
        st.sampled_from(("annual fee", "margin interest rate", "HPG", "IT", "年费", "lãi suất", "3.45%")),
        hostile_texts(max_elements=max_elements),
        any_texts(max_size=40),
    )


#: Filter strings: well-formed, unknown fields, malformed dates and operators, hostile values.
FILTER_STRINGS = st.one_of(
    st.sampled_from((
        "language=zh", "issuer=Acme Bank", "effective_date>=2025-01-01", "effective_date<2025-01-01",
        "unknown_field=x", "effective_date>=yesterday", "effective_date>=2025-02-30", "effective_date>=2025-1-1",
        "effective_date=>2025-01-01", "=x", "x", "", " ", "language==zh", "1abc=x", "language = zh ",
        "effective_date>=\u0662\u0660\u0662\u0665-\u0660\u0661-\u0660\u0661",
    )),
    st.builds(lambda field, operator, value: f"{field}{operator}{value}",
              st.sampled_from(METADATA_FIELDS + ("x", "a.b-c", "_")),
              st.sampled_from(("=", ">=", "<=", ">", "<", "==", "=>", "!=", "")),
              st.one_of(hostile_texts(max_elements=5), st.sampled_from(("2025-01-01", "9999-12-31", "0000-01-01")))),
    hostile_texts(max_elements=8),
)
