"""The published stock-news pipeline's text cleaning, configurable and recorded.

Steps, each switchable (``Preprocessing``): remove URLs; replace special
characters (anything but letters, digits, whitespace and the marks that
belong to numbers: ``.``, ``,``, ``%``, ``/``, ``-`` between digits) with
spaces; lower-case (``str.casefold``); segment; drop stopwords. The paper
segmented Vietnamese into words with a dedicated segmenter; the standard
library has none, so ``segmentation="syllables"`` splits on whitespace
(Vietnamese syllables) and ``"syllable-pairs"`` also joins adjacent
syllables with ``_`` (a dictionary-free stand-in for compound words). The
cleaned text is what the embedder sees; BM25 always uses regrag's analyzer
on the original text.

Cleaning is a per-embedder setting: each embedder adapter declares the one it
is measured best with (``preprocessing = "paper"`` or ``"none"``), the
pipeline uses it unless told otherwise, and the setting used is recorded with
every answer (``PipelineAnswer.provenance["config"]["preprocessing"]``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass

from regrag.errors import InputError

# Function words of Vietnamese news prose, written for this project.
VIETNAMESE_STOPWORDS = frozenset(
    """
    và của là các những được cho với trong này đó thì mà có không đã sẽ đang bị về theo khi từ tại
    lên ra vào nên cũng như một còn rằng để do nếu vì nhưng hay hoặc rất đến sau trước trên dưới
    giữa qua lại đều vẫn chỉ nhiều ít hơn nhất cùng bởi tới ở nào gì ai đây kia ấy thế vậy
    """.split()
)
SEGMENTATIONS = ("syllables", "syllable-pairs")
PREPROCESSINGS = ("paper", "none")  # the named settings; an embedder declares its own (``preprocessing``)
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)


@dataclass(frozen=True)
class Preprocessing:
    """Which cleaning steps run; recorded in every pipeline answer."""

    remove_urls: bool = True
    remove_special_characters: bool = True
    lowercase: bool = True
    segmentation: str = "syllables"
    drop_stopwords: bool = True

    def __post_init__(self) -> None:
        if self.segmentation not in SEGMENTATIONS:
            raise InputError(f"segmentation must be one of {', '.join(SEGMENTATIONS)}, got {self.segmentation!r}")

    @classmethod
    def none(cls) -> "Preprocessing":
        """No cleaning: the text as written (NFC, whitespace runs collapsed); E5's best setting."""
        return cls(remove_urls=False, remove_special_characters=False, lowercase=False, drop_stopwords=False)

    @classmethod
    def named(cls, name: str, segmentation: str = "syllables") -> "Preprocessing":
        """``"paper"`` (the published cleaning) or ``"none"``; an unknown name is an ``InputError``."""
        if name == "paper":
            return cls(segmentation=segmentation)
        if name == "none":
            return cls.none()
        raise InputError(f"preprocessing must be one of {', '.join(PREPROCESSINGS)}, got {name!r}")

    def to_dict(self) -> dict:
        return {**asdict(self), "stopwords": "regrag-vietnamese-%d" % len(VIETNAMESE_STOPWORDS)}

    def apply(self, text: str) -> str:
        """The cleaned text (one space between tokens)."""
        text = unicodedata.normalize("NFC", text)
        if self.remove_urls:
            text = _URL.sub(" ", text)
        if self.remove_special_characters:
            text = _keep_word_characters(text)
        if self.lowercase:
            text = text.casefold()
        tokens = text.split()
        if self.drop_stopwords:
            tokens = [t for t in tokens if t.casefold() not in VIETNAMESE_STOPWORDS]
        if self.segmentation == "syllable-pairs":
            tokens = tokens + [f"{a}_{b}" for a, b in zip(tokens, tokens[1:])]
        return " ".join(tokens)


def _keep_word_characters(text: str) -> str:
    """Letters, digits and marks stay; ``. , % / -`` stay between or after digits; the rest becomes a space."""
    kept = []
    for position, character in enumerate(text):
        category = unicodedata.category(character)
        if category[0] in "LNM":
            kept.append(character)
        elif character in ".,/-" and 0 < position < len(text) - 1 and text[position - 1].isdigit() and text[position + 1].isdigit():
            kept.append(character)
        elif character == "%" and position > 0 and text[position - 1].isdigit():
            kept.append(character)
        else:
            kept.append(" ")
    return "".join(kept)
