"""Character classes the tokenizer needs: combining marks and CJK scripts.

The mark class is derived from ``unicodedata`` of the running Python, whose
Unicode version is part of the analyzer's identity (see ``analyzer.py``).
"""

from __future__ import annotations

import re
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

# Characters outside the BMP. A character class with ranges beyond it is tested range
# by range by ``re`` for every character the class's BMP bitmap misses (most of them),
# about 8 times slower than a class of BMP characters only; a text without such a
# character (nearly every text) is matched exactly as well by the BMP part of each class.
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def has_astral(text: str) -> bool:
    """Whether ``text`` has a character outside the BMP (patterns built with
    ``astral=False`` match a text without one exactly as the full ones do)."""
    return _ASTRAL.search(text) is not None


@lru_cache(maxsize=2)
def mark_class(astral: bool = True) -> str:
    """A regex character-class body matching every combining mark (category M;
    ``unicode_tables``: stored for known Unicode versions, else derived);
    with ``astral=False`` only those in the BMP."""
    from regrag.text.unicode_tables import ranges

    return "".join(
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
        for a, b in ranges("marks")
        if astral or b < 0x10000
    )
