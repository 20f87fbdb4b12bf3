"""Character classes the tokenizer needs: combining marks and CJK scripts.

The mark class is derived from ``unicodedata`` of the running Python, whose
Unicode version is part of the analyzer's identity (see ``analyzer.py``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Blocks of the four CJK scripts whose runs become character bigrams. A bigram
# never crosses a change between them.
HAN = "\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
HIRAGANA = "\u3041-\u309f"
KATAKANA = "\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
HANGUL = "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"
CJK = HAN + HIRAGANA + KATAKANA + HANGUL

SCRIPT_RUN = re.compile(
    f"(?P<han>[{HAN}]+)|(?P<hiragana>[{HIRAGANA}]+)|(?P<katakana>[{KATAKANA}]+)"
    f"|(?P<hangul>[{HANGUL}]+)|(?P<other>[^{CJK}]+)"
)
HAS_CJK = re.compile(f"[{CJK}]")

# Planes that hold combining marks: the BMP, the SMP and plane 14 (variation
# selectors). Scanning only these keeps start-up cheap.
_MARK_PLANES = ((0x0000, 0x20000), (0xE0000, 0xE1000))


@lru_cache(maxsize=1)
def mark_class() -> str:
    """A regex character-class body matching every combining mark (category M)."""
    ranges: list[tuple[int, int]] = []
    category = unicodedata.category
    for low, high in _MARK_PLANES:
        start = None
        for code in range(low, high):
            if category(chr(code))[0] == "M":
                if start is None:
                    start = code
            elif start is not None:
                ranges.append((start, code - 1))
                start = None
        if start is not None:
            ranges.append((start, high - 1))
    return "".join(
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
        for a, b in ranges
    )
