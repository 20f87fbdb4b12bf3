"""Read a corpus: a folder of Markdown/text files, a JSONL file, or a BEIR folder.

Files are read in sorted order of their POSIX path relative to the corpus
root, which is also the document id of a file. Every problem (invalid UTF-8,
a UTF-16 file, a control character, malformed JSON, a wrong type, a bad or
duplicate id, a symbolic link leading outside the root, an unreadable file,
a file or folder that changed while it was read, a resource limit) raises
``InputError`` naming the file and 1-based line; nothing is skipped
silently. Loading is all-or-nothing by default; with ``errors="collect"``
the good documents are loaded and every bad file or line is listed in
``Corpus.rejected`` (a source that changed while it was read is raised even
then). Files in a folder that are not ``.md``, ``.markdown`` or ``.txt``
(and hidden files) are not documents: they are listed in ``Corpus.skipped``
so the caller can report them. JSONL and BEIR files may be gzip-compressed
(``.jsonl.gz``). The rules and caps are documented in docs/corpus.md
("Hostile input and limits").

The readers live in ``folder`` (folders), ``markdown`` (one Markdown/text
file), ``jsonl_corpus`` (JSONL and BEIR) and ``checks`` (what they share);
this module picks one and keeps the public names importable from here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from regrag.corpus.checks import _Outcome, decode_utf8, id_problem
from regrag.corpus.extract.read import EXTRACTED_SUFFIXES, read_extracted
from regrag.corpus.folder import TEXT_SUFFIXES, _checked_link_target, load_folder
from regrag.corpus.jsonl_corpus import BEIR_CORPUS_NAMES, _records_corpus, load_beir_corpus, load_jsonl
from regrag.corpus.markdown import (  # noqa: F401 (kept importable from here)
    _HEADING,
    _METADATA_LINE,
    MARKDOWN_SUFFIXES,
    _heading_text,
    _metadata_value,
    read_text_document,
)
from regrag.corpus.model import Corpus, Document
from regrag.errors import InputError
from regrag.io import files
from regrag.jsonl import printable
from regrag.limits import DEFAULT_LIMITS, Limits
from regrag.io.identity import SourceChangedError

__all__ = [
    "Corpus", "ERROR_MODES", "ErrorMode", "MARKDOWN_SUFFIXES", "TEXT_SUFFIXES", "decode_utf8", "id_problem",
    "load_beir_corpus", "load_corpus", "load_folder", "load_jsonl", "read_text_document",
]

ERROR_MODES = ("raise", "collect")
ErrorMode = Literal["raise", "collect"]
_NOT_LOADED = "; nothing was loaded"
_COLLECT_HINT = " (errors='collect', or --errors collect, loads the rest)"


def load_corpus(
    path: str | Path,
    *,
    limits: Limits = DEFAULT_LIMITS,
    allow_symlinks_outside: bool = False,
    errors: ErrorMode = "raise",
    collect_hint: bool = True,
    csv_rows: bool = False,
) -> Corpus:
    """Load whatever ``path`` is: BEIR folder, folder of text files, or JSONL file.

    ``errors="raise"`` (the default): the first problem raises ``InputError``
    and nothing is returned. ``errors="collect"``: bad files and lines are set
    aside in ``Corpus.rejected`` and the rest is loaded. A symbolic link in a
    folder whose target is outside the folder is refused unless
    ``allow_symlinks_outside``. ``limits`` caps sizes and counts. A file or
    folder that changes while it is read raises ``SourceChangedError`` in
    either mode. When one file of a folder or one line of a file stops the
    load, the message says that ``errors='collect'`` would load the rest;
    ``collect_hint=False`` leaves that out, for callers that offer no such
    choice (``regrag eval``). ``csv_rows``: a CSV file gives one document per
    row instead of one per file."""
    if errors not in ERROR_MODES:
        raise InputError(f"errors must be one of {', '.join(ERROR_MODES)}, got {errors!r}")
    path = Path(path)
    if not files.exists(path):
        raise InputError(f"{printable(str(path))}: no such file or directory")
    outcome = _Outcome(collect=errors == "collect")
    try:
        return _load(path, limits, allow_symlinks_outside, outcome, csv_rows)
    except InputError as error:
        if outcome.collect:
            raise
        # The hint only where collecting helps: the error is about one part
        # (a file of a folder, a line of a file), not the whole input, and
        # not a source that changed while it was read (always refused).
        helps = collect_hint and outcome.part_failed() and not isinstance(error, SourceChangedError)
        hint = _COLLECT_HINT if helps else ""
        raise type(error)(f"{error}{_NOT_LOADED}{hint}") from None


def _load(path: Path, limits: Limits, allow_symlinks_outside: bool, outcome: _Outcome, csv_rows: bool) -> Corpus:
    if files.is_directory(path):
        for name in BEIR_CORPUS_NAMES:
            beir_file = path / name
            if files.is_symlink(beir_file) or files.is_file(beir_file):
                try:
                    target = _checked_link_target(beir_file, files.resolved(path), allow_symlinks_outside)
                except InputError as error:
                    outcome.whole = printable(str(beir_file))
                    outcome.reject(error, outcome.whole)
                    return Corpus((), (), tuple(outcome.rejected))
                if target is None or files.is_file(target):
                    outcome.whole = printable(str(beir_file))
                    return _records_corpus(beir_file, True, limits, outcome)
        outcome.whole = printable(str(path))
        return load_folder(path, limits=limits, allow_symlinks_outside=allow_symlinks_outside, csv_rows=csv_rows,
                           _outcome=outcome)
    if path.name in BEIR_CORPUS_NAMES or path.name.endswith((".jsonl", ".jsonl.gz")):
        outcome.whole = printable(str(path))
        return _records_corpus(path, path.name in BEIR_CORPUS_NAMES, limits, outcome)
    if path.suffix in TEXT_SUFFIXES or path.suffix.lower() in EXTRACTED_SUFFIXES:
        try:
            if path.suffix in TEXT_SUFFIXES:
                documents: tuple[Document, ...] = (read_text_document(path, path.name, limits=limits),)
            else:
                documents = tuple(read_extracted(path, path.name, limits=limits, csv_rows=csv_rows))
        except InputError as error:
            outcome.whole = printable(str(path))
            outcome.reject(error, outcome.whole)
            documents = ()
        return Corpus(documents, (), tuple(outcome.rejected))
    raise InputError(
        f"{printable(str(path))}: not a corpus (expected a folder, a .jsonl or .jsonl.gz file or a "
        ".md/.txt/.html/.htm/.docx/.pdf/.csv file)"
    )
