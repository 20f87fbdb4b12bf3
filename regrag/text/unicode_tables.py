"""Character sets the analyzer derives from ``unicodedata``, precomputed.

Four sets, each a function of the running Python's Unicode database (whose
version is part of the analyzer's identity): ``marks`` (category M: the
tokenizer's and normaliser's mark class), ``combining`` (nonzero canonical
combining class), ``latin_letters`` (what language detection counts as a
letter: lower case between ``a`` and ``z``, or đ/Đ) and
``vietnamese_triggers`` (characters one of which a text needs for detection
to look further; see ``language._vietnamese_triggers``). Deriving them scans
every code point, about 0.5 s of CPU in all, which every process paid on its
first analysis (a one-shot ``regrag search``, a query's first analysis).

``ranges(name)`` returns the stored ranges when ``unicodedata.unidata_version``
is one stored here (``STORED``), else derives them (``compute``): results
never depend on which. ``tests/text/test_unicode_tables.py`` holds the stored
table equal to the derived one for the running version; to add a version, run
``python3 -m regrag.text.unicode_tables`` under it and paste the output into
``STORED``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# ``language._maybe_vietnamese``: a necessary condition, in NFD text, for a
# Vietnamese-only letter (``marks``: the body of a class of every mark).
VIETNAMESE_NFD_CHECK = "[đĐ\u0309\u0323\u031b]|[{marks}]{{2}}|[aA]\u0306|[eEiIuUyY]\u0303"

NAMES = ("marks", "combining", "latin_letters", "vietnamese_triggers")

# Planes that hold combining marks: the BMP, the SMP and plane 14 (variation selectors).
MARK_PLANES = ((0x0000, 0x20000), (0xE0000, 0xE1000))
_VIETNAMESE_LETTERS = "đĐ"

Ranges = tuple[tuple[int, int], ...]


def _ranges_of(codes: list[int]) -> Ranges:
    """Sorted code points as inclusive (first, last) runs."""
    runs: list[list[int]] = []
    for code in codes:
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return tuple((first, last) for first, last in runs)


def _all_code_points(low: int = 0, high: int = 0x110000) -> list[int]:
    return [code for code in range(low, high) if not 0xD800 <= code <= 0xDFFF]


def compute(name: str) -> Ranges:
    """Derive set ``name`` from the running ``unicodedata`` (the definition)."""
    category, combining = unicodedata.category, unicodedata.combining
    if name == "marks":
        codes = [code for low, high in MARK_PLANES for code in _all_code_points(low, high) if category(chr(code))[0] == "M"]
    elif name == "combining":
        codes = [code for code in _all_code_points() if combining(chr(code))]
    elif name == "latin_letters":
        codes = [code for code in _all_code_points()
                 if "a" <= chr(code).lower() <= "z" or chr(code) in _VIETNAMESE_LETTERS]
    elif name == "vietnamese_triggers":
        marks = "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in compute("marks"))
        nfd_check = re.compile(VIETNAMESE_NFD_CHECK.format(marks=marks))
        codes = []
        for low, high in ((0x80, 0x20000), (0xE0000, 0xE1000)):
            for code in _all_code_points(low, high):
                character = chr(code)
                if (character in _VIETNAMESE_LETTERS or category(character)[0] == "M" or combining(character)
                        or (code < 0x10000 and unicodedata.decomposition(character)
                            and nfd_check.search(unicodedata.normalize("NFD", character)))):
                    codes.append(code)
    else:
        raise ValueError(f"unknown character set {name!r}; choose one of {', '.join(NAMES)}")
    return _ranges_of(codes)


def _decode(text: str) -> Ranges:
    found = []
    for run in text.split():
        first, _dash, last = run.partition("-")
        found.append((int(first, 16), int(last or first, 16)))
    return tuple(found)


@lru_cache(maxsize=None)
def ranges(name: str) -> Ranges:
    """Set ``name`` as inclusive code point ranges: stored for this Unicode version, else derived."""
    stored = STORED.get(unicodedata.unidata_version, {}).get(name)
    return _decode(stored) if stored is not None else compute(name)


def characters(name: str) -> str:
    """Every character of set ``name``, in code point order."""
    return "".join(chr(code) for first, last in ranges(name) for code in range(first, last + 1))


def encode(found: Ranges) -> str:
    """``STORED``'s spelling of ranges: hexadecimal ``first-last`` (or ``code``) runs."""
    return " ".join(f"{first:x}" if first == last else f"{first:x}-{last:x}" for first, last in found)


STORED: dict[str, dict[str, str]] = {
    '14.0.0': {
        'marks': (
            '300-36f 483-489 591-5bd 5bf 5c1-5c2 5c4-5c5 5c7 610-61a 64b-65f 670 6d6-6dc 6df-6e4 6e7-6e8 6ea-6ed '
            '711 730-74a 7a6-7b0 7eb-7f3 7fd 816-819 81b-823 825-827 829-82d 859-85b 898-89f 8ca-8e1 8e3-903 '
            '93a-93c 93e-94f 951-957 962-963 981-983 9bc 9be-9c4 9c7-9c8 9cb-9cd 9d7 9e2-9e3 9fe a01-a03 a3c '
            'a3e-a42 a47-a48 a4b-a4d a51 a70-a71 a75 a81-a83 abc abe-ac5 ac7-ac9 acb-acd ae2-ae3 afa-aff b01-b03 '
            'b3c b3e-b44 b47-b48 b4b-b4d b55-b57 b62-b63 b82 bbe-bc2 bc6-bc8 bca-bcd bd7 c00-c04 c3c c3e-c44 '
            'c46-c48 c4a-c4d c55-c56 c62-c63 c81-c83 cbc cbe-cc4 cc6-cc8 cca-ccd cd5-cd6 ce2-ce3 d00-d03 d3b-d3c '
            'd3e-d44 d46-d48 d4a-d4d d57 d62-d63 d81-d83 dca dcf-dd4 dd6 dd8-ddf df2-df3 e31 e34-e3a e47-e4e eb1 '
            'eb4-ebc ec8-ecd f18-f19 f35 f37 f39 f3e-f3f f71-f84 f86-f87 f8d-f97 f99-fbc fc6 102b-103e 1056-1059 '
            '105e-1060 1062-1064 1067-106d 1071-1074 1082-108d 108f 109a-109d 135d-135f 1712-1715 1732-1734 '
            '1752-1753 1772-1773 17b4-17d3 17dd 180b-180d 180f 1885-1886 18a9 1920-192b 1930-193b 1a17-1a1b '
            '1a55-1a5e 1a60-1a7c 1a7f 1ab0-1ace 1b00-1b04 1b34-1b44 1b6b-1b73 1b80-1b82 1ba1-1bad 1be6-1bf3 '
            '1c24-1c37 1cd0-1cd2 1cd4-1ce8 1ced 1cf4 1cf7-1cf9 1dc0-1dff 20d0-20f0 2cef-2cf1 2d7f 2de0-2dff '
            '302a-302f 3099-309a a66f-a672 a674-a67d a69e-a69f a6f0-a6f1 a802 a806 a80b a823-a827 a82c a880-a881 '
            'a8b4-a8c5 a8e0-a8f1 a8ff a926-a92d a947-a953 a980-a983 a9b3-a9c0 a9e5 aa29-aa36 aa43 aa4c-aa4d '
            'aa7b-aa7d aab0 aab2-aab4 aab7-aab8 aabe-aabf aac1 aaeb-aaef aaf5-aaf6 abe3-abea abec-abed fb1e '
            'fe00-fe0f fe20-fe2f 101fd 102e0 10376-1037a 10a01-10a03 10a05-10a06 10a0c-10a0f 10a38-10a3a 10a3f '
            '10ae5-10ae6 10d24-10d27 10eab-10eac 10f46-10f50 10f82-10f85 11000-11002 11038-11046 11070 '
            '11073-11074 1107f-11082 110b0-110ba 110c2 11100-11102 11127-11134 11145-11146 11173 11180-11182 '
            '111b3-111c0 111c9-111cc 111ce-111cf 1122c-11237 1123e 112df-112ea 11300-11303 1133b-1133c '
            '1133e-11344 11347-11348 1134b-1134d 11357 11362-11363 11366-1136c 11370-11374 11435-11446 1145e '
            '114b0-114c3 115af-115b5 115b8-115c0 115dc-115dd 11630-11640 116ab-116b7 1171d-1172b 1182c-1183a '
            '11930-11935 11937-11938 1193b-1193e 11940 11942-11943 119d1-119d7 119da-119e0 119e4 11a01-11a0a '
            '11a33-11a39 11a3b-11a3e 11a47 11a51-11a5b 11a8a-11a99 11c2f-11c36 11c38-11c3f 11c92-11ca7 '
            '11ca9-11cb6 11d31-11d36 11d3a 11d3c-11d3d 11d3f-11d45 11d47 11d8a-11d8e 11d90-11d91 11d93-11d97 '
            '11ef3-11ef6 16af0-16af4 16b30-16b36 16f4f 16f51-16f87 16f8f-16f92 16fe4 16ff0-16ff1 1bc9d-1bc9e '
            '1cf00-1cf2d 1cf30-1cf46 1d165-1d169 1d16d-1d172 1d17b-1d182 1d185-1d18b 1d1aa-1d1ad 1d242-1d244 '
            '1da00-1da36 1da3b-1da6c 1da75 1da84 1da9b-1da9f 1daa1-1daaf 1e000-1e006 1e008-1e018 1e01b-1e021 '
            '1e023-1e024 1e026-1e02a 1e130-1e136 1e2ae 1e2ec-1e2ef 1e8d0-1e8d6 1e944-1e94a e0100-e01ef '
        ),
        'combining': (
            '300-34e 350-36f 483-487 591-5bd 5bf 5c1-5c2 5c4-5c5 5c7 610-61a 64b-65f 670 6d6-6dc 6df-6e4 6e7-6e8 '
            '6ea-6ed 711 730-74a 7eb-7f3 7fd 816-819 81b-823 825-827 829-82d 859-85b 898-89f 8ca-8e1 8e3-8ff 93c '
            '94d 951-954 9bc 9cd 9fe a3c a4d abc acd b3c b4d bcd c3c c4d c55-c56 cbc ccd d3b-d3c d4d dca e38-e3a '
            'e48-e4b eb8-eba ec8-ecb f18-f19 f35 f37 f39 f71-f72 f74 f7a-f7d f80 f82-f84 f86-f87 fc6 1037 '
            '1039-103a 108d 135d-135f 1714-1715 1734 17d2 17dd 18a9 1939-193b 1a17-1a18 1a60 1a75-1a7c 1a7f '
            '1ab0-1abd 1abf-1ace 1b34 1b44 1b6b-1b73 1baa-1bab 1be6 1bf2-1bf3 1c37 1cd0-1cd2 1cd4-1ce0 1ce2-1ce8 '
            '1ced 1cf4 1cf8-1cf9 1dc0-1dff 20d0-20dc 20e1 20e5-20f0 2cef-2cf1 2d7f 2de0-2dff 302a-302f 3099-309a '
            'a66f a674-a67d a69e-a69f a6f0-a6f1 a806 a82c a8c4 a8e0-a8f1 a92b-a92d a953 a9b3 a9c0 aab0 aab2-aab4 '
            'aab7-aab8 aabe-aabf aac1 aaf6 abed fb1e fe20-fe2f 101fd 102e0 10376-1037a 10a0d 10a0f 10a38-10a3a '
            '10a3f 10ae5-10ae6 10d24-10d27 10eab-10eac 10f46-10f50 10f82-10f85 11046 11070 1107f 110b9-110ba '
            '11100-11102 11133-11134 11173 111c0 111ca 11235-11236 112e9-112ea 1133b-1133c 1134d 11366-1136c '
            '11370-11374 11442 11446 1145e 114c2-114c3 115bf-115c0 1163f 116b6-116b7 1172b 11839-1183a '
            '1193d-1193e 11943 119e0 11a34 11a47 11a99 11c3f 11d42 11d44-11d45 11d97 16af0-16af4 16b30-16b36 '
            '16ff0-16ff1 1bc9e 1d165-1d169 1d16d-1d172 1d17b-1d182 1d185-1d18b 1d1aa-1d1ad 1d242-1d244 '
            '1e000-1e006 1e008-1e018 1e01b-1e021 1e023-1e024 1e026-1e02a 1e130-1e136 1e2ae 1e2ec-1e2ef '
            '1e8d0-1e8d6 1e944-1e94a '
        ),
        'latin_letters': (
            '41-5a 61-7a 110-111 130 212a '
        ),
        'vietnamese_triggers': (
            '102-103 110-111 128-129 168-169 1a0-1a1 1af-1b0 1d5-1dc 1de-1e1 1ec-1ed 1fa-1fb 22a-22d 230-231 '
            '300-36f 390 3b0 483-489 591-5bd 5bf 5c1-5c2 5c4-5c5 5c7 610-61a 64b-65f 670 6d6-6dc 6df-6e4 6e7-6e8 '
            '6ea-6ed 711 730-74a 7a6-7b0 7eb-7f3 7fd 816-819 81b-823 825-827 829-82d 859-85b 898-89f 8ca-8e1 '
            '8e3-903 93a-93c 93e-94f 951-957 962-963 981-983 9bc 9be-9c4 9c7-9c8 9cb-9cd 9d7 9e2-9e3 9fe a01-a03 '
            'a3c a3e-a42 a47-a48 a4b-a4d a51 a70-a71 a75 a81-a83 abc abe-ac5 ac7-ac9 acb-acd ae2-ae3 afa-aff '
            'b01-b03 b3c b3e-b44 b47-b48 b4b-b4d b55-b57 b62-b63 b82 bbe-bc2 bc6-bc8 bca-bcd bd7 c00-c04 c3c '
            'c3e-c44 c46-c48 c4a-c4d c55-c56 c62-c63 c81-c83 cbc cbe-cc4 cc6-cc8 cca-ccd cd5-cd6 ce2-ce3 d00-d03 '
            'd3b-d3c d3e-d44 d46-d48 d4a-d4d d57 d62-d63 d81-d83 dca dcf-dd4 dd6 dd8-ddf df2-df3 e31 e34-e3a '
            'e47-e4e eb1 eb4-ebc ec8-ecd f18-f19 f35 f37 f39 f3e-f3f f71-f84 f86-f87 f8d-f97 f99-fbc fc6 '
            '102b-103e 1056-1059 105e-1060 1062-1064 1067-106d 1071-1074 1082-108d 108f 109a-109d 135d-135f '
            '1712-1715 1732-1734 1752-1753 1772-1773 17b4-17d3 17dd 180b-180d 180f 1885-1886 18a9 1920-192b '
            '1930-193b 1a17-1a1b 1a55-1a5e 1a60-1a7c 1a7f 1ab0-1ace 1b00-1b04 1b34-1b44 1b6b-1b73 1b80-1b82 '
            '1ba1-1bad 1be6-1bf3 1c24-1c37 1cd0-1cd2 1cd4-1ce8 1ced 1cf4 1cf7-1cf9 1dc0-1dff 1e04-1e05 1e08-1e09 '
            '1e0c-1e0d 1e14-1e17 1e1c-1e1d 1e24-1e25 1e2e-1e2f 1e32-1e33 1e36-1e39 1e42-1e43 1e46-1e47 1e4c-1e53 '
            '1e5a-1e5d 1e62-1e69 1e6c-1e6d 1e78-1e7b 1e7e-1e7f 1e88-1e89 1e92-1e93 1ea0-1ef1 1ef4-1ef9 1f02-1f07 '
            '1f0a-1f0f 1f12-1f15 1f1a-1f1d 1f22-1f27 1f2a-1f2f 1f32-1f37 1f3a-1f3f 1f42-1f45 1f4a-1f4d 1f52-1f57 '
            '1f5b 1f5d 1f5f 1f62-1f67 1f6a-1f6f 1f80-1faf 1fb2 1fb4 1fb7 1fc2 1fc4 1fc7 1fd2-1fd3 1fd7 1fe2-1fe3 '
            '1fe7 1ff2 1ff4 1ff7 20d0-20f0 2cef-2cf1 2d7f 2de0-2dff 302a-302f 3099-309a a66f-a672 a674-a67d '
            'a69e-a69f a6f0-a6f1 a802 a806 a80b a823-a827 a82c a880-a881 a8b4-a8c5 a8e0-a8f1 a8ff a926-a92d '
            'a947-a953 a980-a983 a9b3-a9c0 a9e5 aa29-aa36 aa43 aa4c-aa4d aa7b-aa7d aab0 aab2-aab4 aab7-aab8 '
            'aabe-aabf aac1 aaeb-aaef aaf5-aaf6 abe3-abea abec-abed fb1e fb2c-fb2d fe00-fe0f fe20-fe2f 101fd '
            '102e0 10376-1037a 10a01-10a03 10a05-10a06 10a0c-10a0f 10a38-10a3a 10a3f 10ae5-10ae6 10d24-10d27 '
            '10eab-10eac 10f46-10f50 10f82-10f85 11000-11002 11038-11046 11070 11073-11074 1107f-11082 '
            '110b0-110ba 110c2 11100-11102 11127-11134 11145-11146 11173 11180-11182 111b3-111c0 111c9-111cc '
            '111ce-111cf 1122c-11237 1123e 112df-112ea 11300-11303 1133b-1133c 1133e-11344 11347-11348 '
            '1134b-1134d 11357 11362-11363 11366-1136c 11370-11374 11435-11446 1145e 114b0-114c3 115af-115b5 '
            '115b8-115c0 115dc-115dd 11630-11640 116ab-116b7 1171d-1172b 1182c-1183a 11930-11935 11937-11938 '
            '1193b-1193e 11940 11942-11943 119d1-119d7 119da-119e0 119e4 11a01-11a0a 11a33-11a39 11a3b-11a3e '
            '11a47 11a51-11a5b 11a8a-11a99 11c2f-11c36 11c38-11c3f 11c92-11ca7 11ca9-11cb6 11d31-11d36 11d3a '
            '11d3c-11d3d 11d3f-11d45 11d47 11d8a-11d8e 11d90-11d91 11d93-11d97 11ef3-11ef6 16af0-16af4 '
            '16b30-16b36 16f4f 16f51-16f87 16f8f-16f92 16fe4 16ff0-16ff1 1bc9d-1bc9e 1cf00-1cf2d 1cf30-1cf46 '
            '1d165-1d169 1d16d-1d172 1d17b-1d182 1d185-1d18b 1d1aa-1d1ad 1d242-1d244 1da00-1da36 1da3b-1da6c '
            '1da75 1da84 1da9b-1da9f 1daa1-1daaf 1e000-1e006 1e008-1e018 1e01b-1e021 1e023-1e024 1e026-1e02a '
            '1e130-1e136 1e2ae 1e2ec-1e2ef 1e8d0-1e8d6 1e944-1e94a e0100-e01ef '
        ),
    },
}


if __name__ == "__main__":  # print the STORED entry of the running Unicode version
    import textwrap

    print(f"    {unicodedata.unidata_version!r}: {{")
    for table in NAMES:
        body = textwrap.wrap(encode(compute(table)), 100, break_on_hyphens=False)
        print(f"        {table!r}: (")
        for line in body:
            print(f"            {line + ' '!r}")
        print("        ),")
    print("    },")
