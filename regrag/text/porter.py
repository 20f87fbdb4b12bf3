"""The original Porter (1980) suffix-stripping stemmer for English.

What: ``stem(word)`` reduces one lowercase ASCII word to its Porter stem, e.g.
``relational -> relat``, ``ponies -> poni``, ``motoring -> motor``.

Why: regrag must be deterministic and depend only on the standard library, so it carries
its own stemmer instead of importing NLTK/PyStemmer. This is the *original* algorithm of

    M.F. Porter, "An algorithm for suffix stripping", Program 14(3), 130-137, 1980,

written from the paper's rules. It reproduces Martin Porter's reference vocabulary
(``voc.txt`` -> ``output.txt``, 23,531 words) exactly. To do so it follows his own
reference (ANSI C) implementation at the points where that knowingly departs from the paper:

* words of length <= 2 are returned unchanged;
* step 2 uses ``bli -> ble`` in place of the paper's ``abli -> able``;
* step 2 has the extra rule ``logi -> log``.

It is *not* the later "Porter2"/Snowball English stemmer.

Terminology (from the paper): a consonant is a letter other than a, e, i, o, u, and other
than a ``y`` preceded by a consonant. Any word is ``[C](VC){m}[V]``, where C and V are
maximal runs of consonants and vowels; ``m`` is the word's *measure*. In the rules, the
conditions are tested on the *stem* left after removing the rule's suffix.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["measure", "stem"]

_VOWELS = frozenset("aeiou")

# Step 2: (suffix, replacement), applied when measure(stem) > 0. The first suffix that
# matches decides the step, even if its condition then fails (longest match: no suffix
# here is a proper suffix of an earlier one with the same ending).
_STEP2_RULES: tuple[tuple[str, str], ...] = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),  # paper: abli -> able (reference-implementation departure)
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("logi", "log"),  # not in the paper (reference-implementation departure)
)

# Step 3: (suffix, replacement), applied when measure(stem) > 0.
_STEP3_RULES: tuple[tuple[str, str], ...] = (
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
)

# Step 4: suffixes deleted when measure(stem) > 1 ("ion" also needs the stem to end in
# s or t). Order matters only within suffixes sharing an ending: ement before ment
# before ent, i.e. the longest one is tried first.
_STEP4_SUFFIXES: tuple[str, ...] = (
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
)


def _cv_pattern(word: str) -> str:
    """Return one ``c``/``v`` per letter of ``word``: consonant or vowel, per the paper.

    ``y`` is a consonant at the start of a word or after a vowel, and a vowel after a
    consonant. A letter's class depends only on the letters before it, so the pattern of
    a prefix is the prefix of the pattern.
    """
    out: list[str] = []
    prev_is_consonant = False
    for i, ch in enumerate(word):
        if ch in _VOWELS:
            is_consonant = False
        elif ch == "y":
            is_consonant = i == 0 or not prev_is_consonant
        else:
            is_consonant = True
        out.append("c" if is_consonant else "v")
        prev_is_consonant = is_consonant
    return "".join(out)


def measure(word: str) -> int:
    """Return the measure m of ``word``: the number of VC sequences in ``[C](VC){m}[V]``.

    >>> [measure(w) for w in ("tr", "tree", "trouble", "oats", "troubles", "private")]
    [0, 0, 1, 1, 2, 2]
    """
    # Each VC sequence has exactly one vowel-to-consonant boundary, and "vc" cannot overlap.
    return _cv_pattern(word).count("vc")


def _has_vowel(stem: str) -> bool:
    """Condition ``*v*``: the stem contains a vowel."""
    return "v" in _cv_pattern(stem)


def _ends_double_consonant(word: str) -> bool:
    """Condition ``*d``: the word ends with a double consonant (e.g. -tt, -ss)."""
    return len(word) >= 2 and word[-1] == word[-2] and _cv_pattern(word)[-1] == "c"


def _ends_cvc(word: str) -> bool:
    """Condition ``*o``: the word ends consonant-vowel-consonant, the last not w, x or y."""
    return len(word) >= 3 and word[-1] not in "wxy" and _cv_pattern(word).endswith("cvc")


def step1a(word: str) -> str:
    """Plurals: sses -> ss, ies -> i, ss -> ss, s -> (nothing)."""
    if word.endswith("sses") or word.endswith("ies"):
        return word[:-2]
    if word.endswith("ss"):
        return word
    if word.endswith("s"):
        return word[:-1]
    return word


def step1b(word: str) -> str:
    """Past tense and gerund: (m>0) eed -> ee; (*v*) ed -> ; (*v*) ing -> ; then tidy up."""
    if word.endswith("eed"):
        return word[:-1] if measure(word[:-3]) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return _step1b_tidy(stem) if _has_vowel(stem) else word
    return word


def _step1b_tidy(stem: str) -> str:
    """After removing -ed/-ing: at -> ate, bl -> ble, iz -> ize; undouble; or add an e."""
    if stem.endswith("at") or stem.endswith("bl") or stem.endswith("iz"):
        return stem + "e"
    if _ends_double_consonant(stem):
        return stem if stem[-1] in "lsz" else stem[:-1]
    if measure(stem) == 1 and _ends_cvc(stem):
        return stem + "e"
    return stem


def step1c(word: str) -> str:
    """(*v*) y -> i."""
    if word.endswith("y") and _has_vowel(word[:-1]):
        return word[:-1] + "i"
    return word


def _replace_suffix(word: str, rules: tuple[tuple[str, str], ...]) -> str:
    """Apply the first rule whose suffix matches, if measure(stem) > 0 (steps 2 and 3)."""
    for suffix, replacement in rules:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if measure(stem) > 0 else word
    return word


def step2(word: str) -> str:
    """Double suffixes to single ones, e.g. (m>0) ational -> ate, ization -> ize."""
    return _replace_suffix(word, _STEP2_RULES)


def step3(word: str) -> str:
    """(m>0) icate -> ic, ative -> , alize -> al, iciti -> ic, ical -> ic, ful -> , ness -> ."""
    return _replace_suffix(word, _STEP3_RULES)


def step4(word: str) -> str:
    """(m>1) remove -al, -ance, -ence, -er, -ic, ...; -ion only after s or t."""
    for suffix in _STEP4_SUFFIXES:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if suffix == "ion" and not stem.endswith(("s", "t")):
                return word
            return stem if measure(stem) > 1 else word
    return word


def step5a(word: str) -> str:
    """(m>1) e -> ; (m=1 and not *o) e -> ."""
    if word.endswith("e"):
        stem = word[:-1]
        m = measure(stem)
        if m > 1 or (m == 1 and not _ends_cvc(stem)):
            return stem
    return word


def step5b(word: str) -> str:
    """(m>1 and *d and *L) -> single letter, e.g. controll -> control."""
    if word.endswith("ll") and measure(word) > 1:
        return word[:-1]
    return word


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Return the Porter stem of one lowercase ASCII word.

    Words of length <= 2, and any input that is not made only of the letters a-z, are
    returned unchanged. Results are memoised in a bounded LRU cache; the uncached
    function is ``stem.__wrapped__``.
    """
    if len(word) <= 2 or not (word.isascii() and word.isalpha() and word.islower()):
        return word
    word = step1b(step1a(word))
    if len(word) <= 1:  # as the reference: nothing left for the later steps to act on
        return word
    word = step1c(word)
    word = step2(word)
    word = step3(word)
    word = step4(word)
    return step5b(step5a(word))
