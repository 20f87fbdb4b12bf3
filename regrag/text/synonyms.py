"""Synonym rules in Solr's ``synonyms.txt`` format, parsed into a frozen,
hashed ``SynonymSet`` (docs/synonyms.md).

The format, as Solr's ``SolrSynonymParser`` reads it:

- a line that is empty (after trimming) or starts with ``#`` is ignored;
- ``a, b, c`` is an equivalence: each of the words or phrases stands for
  all of them (Solr's ``expand=true``);
- ``a, b => c, d`` is a one-way mapping: ``a`` and ``b`` are replaced by
  ``c`` and ``d`` (the left side is kept only if it is also on the right);
- ``\\`` escapes the next character, so ``\\,`` and ``\\=>`` are literal
  text and ``\\\\`` is a backslash; entries are trimmed and inner runs of
  whitespace count as one space;
- more than one ``=>`` on a line, an empty entry or a side with no entry is
  an error naming the file and the line.

A ``SynonymSet`` keeps every rule with its line number and the SHA-256 of
the file's bytes, so an expanded query records exactly which rules of which
file were used. Rules are applied by ``regrag.retrieval.synonym_query``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from regrag.errors import InputError


@dataclass(frozen=True)
class SynonymRule:
    """One line's rule: ``inputs`` map to ``outputs``; an equivalence has
    ``one_way`` False and the same entries on both sides."""

    line: int
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    one_way: bool

    def mappings(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """(input, the entries it stands for besides itself), in the file's order."""
        return tuple((entry, tuple(o for o in self.outputs if o != entry)) for entry in self.inputs)


@dataclass(frozen=True)
class SynonymSet:
    """The rules of one file: its ``name`` (``builtin`` or the file's name),
    the SHA-256 of its bytes and its version label (the built-in set's)."""

    name: str
    sha256: str
    rules: tuple[SynonymRule, ...]
    version: str = ""
    text: str = field(default="", repr=False)  # the file's text, so a ledger record can carry it

    def identity(self) -> dict[str, str]:
        """What a hit or ledger record names the set by."""
        found = {"name": self.name, "sha256": self.sha256}
        if self.version:
            found["version"] = self.version
        return found


def _split(line: str, separator: str) -> list[str]:
    """``line`` cut at unescaped ``separator``; escapes kept (Solr's ``split``)."""
    pieces, current, i = [], [], 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line):
            current.append(line[i:i + 2])
            i += 2
        elif line.startswith(separator, i):
            pieces.append("".join(current))
            current = []
            i += len(separator)
        else:
            current.append(line[i])
            i += 1
    pieces.append("".join(current))
    return pieces


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _entries(side: str, where: str) -> tuple[str, ...]:
    entries = []
    for piece in _split(side, ","):
        entry = " ".join(_unescape(piece).split())
        if not entry:
            raise InputError(f"{where}: empty synonym entry (two commas, or a comma at an end?)")
        entries.append(entry)
    return tuple(entries)


def parse_synonyms(text: str, name: str, sha256: str = "", version: str = "") -> SynonymSet:
    """The rules of ``text`` (the contents of the file ``name``); ``InputError``
    naming ``name`` and the line for a malformed rule."""
    if not isinstance(text, str):
        raise InputError(f"{name}: synonyms must be text")
    sha256 = sha256 or hashlib.sha256(text.encode("utf-8")).hexdigest()
    rules = []
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{name}, line {number}"
        sides = _split(line, "=>")
        if len(sides) > 2:
            raise InputError(f"{where}: more than one '=>' on the line")
        if len(sides) == 2:
            inputs, outputs = _entries(sides[0], where), _entries(sides[1], where)
            rules.append(SynonymRule(number, inputs, outputs, True))
        else:
            entries = _entries(line, where)
            if len(entries) > 1:
                rules.append(SynonymRule(number, entries, entries, False))
    return SynonymSet(name, sha256, tuple(rules), version, text)


def read_synonyms(path: str | Path) -> SynonymSet:
    """The rules of the UTF-8 file at ``path`` (a leading BOM ignored), named
    by its file name and hashed (SHA-256 of its bytes)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot read synonyms file {path}: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"{path}, line {line}: synonyms file is not valid UTF-8") from None
    return parse_synonyms(text, path.name, hashlib.sha256(data).hexdigest())
