"""A folder of Markdown and text files: walked in sorted order, every entry accounted for.

Each ``.md``/``.markdown``/``.txt`` file is a document whose id is its POSIX
path relative to the folder, as is each ``.html``/``.htm``/``.docx``/``.pdf``/
``.csv`` file (its text extracted, ``regrag.corpus.extract``; a CSV file
may instead give one document per row); every other entry, and a ``.pdf``
file when pdfminer.six (``regrag[pdf]``) is not installed, is listed in
``Corpus.skipped`` with the reason. Symbolic links out of the folder are
refused unless allowed. A folder whose entries change while it is read (a
file added, removed or renamed: its modification time moves) is refused
with ``SourceChangedError``, like a file that changes while it is read.
"""

from __future__ import annotations

from pathlib import Path

from regrag.corpus.checks import _Outcome, _unique_sorted
from regrag.corpus.extract.pdf import available as pdf_available
from regrag.corpus.extract.read import EXTRACTED_SUFFIXES, read_extracted
from regrag.corpus.markdown import read_text_document
from regrag.corpus.model import Corpus, Document
from regrag.errors import InputError
from regrag.jsonl import printable
from regrag.limits import DEFAULT_LIMITS, Limits
from regrag.io import files
from regrag.io.identity import RETRY, FileState, SourceChangedError, directory_state

TEXT_SUFFIXES = (".md", ".markdown", ".txt")
NOT_A_DOCUMENT = "not .md, .markdown, .txt, .html, .htm, .docx, .pdf or .csv"
NEEDS_PDFMINER = "a PDF file: reading it needs pdfminer.six (python3 -m pip install 'regrag[pdf]')"


def load_folder(
    root: Path,
    *,
    limits: Limits = DEFAULT_LIMITS,
    allow_symlinks_outside: bool = False,
    csv_rows: bool = False,
    _outcome: _Outcome | None = None,
) -> Corpus:
    """Every Markdown/text file below ``root`` as a document whose id is its
    relative path; every PDF, DOCX, HTML and CSV file as the document(s)
    extracted from it (``csv_rows``: one per CSV row)."""
    outcome = _outcome or _Outcome(collect=False)
    real_root = files.resolved(root)
    documents: list[Document] = []
    skipped: list[tuple[str, str]] = []
    listed: list[tuple[Path, FileState | None]] = []
    for relative, entry, listing_error in _walk(root, listed):
        if listing_error is not None:
            if _hidden(relative):  # never a document: what it holds would be skipped anyway
                skipped.append((printable(relative), "hidden folder that cannot be listed"))
            else:
                outcome.reject(listing_error, printable(str(entry)))
            continue
        try:
            result = _folder_entry(relative, entry, real_root, limits, allow_symlinks_outside, csv_rows)
        except InputError as error:
            outcome.reject(error, printable(str(entry)))
            continue
        if isinstance(result, list):
            documents.extend(result)
        else:
            skipped.append((printable(relative), result))
    for directory, before in listed:
        if before is None or directory_state(directory) != before:
            raise SourceChangedError(
                f"{printable(str(directory))}: the folder {RETRY} (an entry was added, removed or renamed)"
            )
    return Corpus(_unique_sorted(documents), tuple(skipped), tuple(outcome.rejected))


def _hidden(relative: str) -> bool:
    """Whether a path relative to the corpus folder has a part starting with ``.``."""
    return any(part.startswith(".") for part in Path(relative).parts)


def _walk(root: Path, listed: list[tuple[Path, FileState | None]]) -> list[tuple[str, Path, InputError | None]]:
    """Every entry below ``root`` except real directories (which are entered,
    never symbolic links to directories), sorted by relative POSIX path; a
    folder that cannot be listed is an entry with its error (never skipped).
    Each folder listed is added to ``listed`` with its state before listing."""
    entries: list[tuple[str, Path, InputError | None]] = []
    pending = [root]
    while pending:
        directory = pending.pop()
        listed.append((directory, directory_state(directory)))
        try:
            with files.listing(directory) as listing:
                children = sorted(listing, key=lambda child: child.name)
        except OSError as error:
            relative = "" if directory == root else directory.relative_to(root).as_posix()
            message = f"{printable(str(directory))}: cannot list the folder ({error.strerror or error})"
            entries.append((relative, directory, InputError(message)))
            continue
        for child in children:
            path = Path(child.path)
            try:
                is_directory = child.is_dir(follow_symlinks=False)
            except OSError:
                is_directory = False
            if is_directory:
                pending.append(path)
            else:
                entries.append((path.relative_to(root).as_posix(), path, None))
    entries.sort(key=lambda item: item[0])
    return entries


def _checked_link_target(path: Path, real_root: Path, allow_outside: bool) -> Path | None:
    """None when ``path`` is not a symbolic link; else its resolved target,
    after refusing (``InputError``) a target outside ``real_root`` unless
    ``allow_outside``. A link in a loop resolves to itself."""
    if not files.is_symlink(path):
        return None
    try:
        target = files.resolved(path)
    except (RuntimeError, OSError):  # a loop of links
        return path
    if not allow_outside and not target.is_relative_to(real_root):
        raise InputError(
            f"{printable(str(path))}: symbolic link to {printable(str(target))}, outside the corpus folder "
            f"{printable(str(real_root))}; refused (allow_symlinks_outside=True, on the command line "
            "--allow-symlinks-outside, accepts it)"
        )
    return target


def _folder_entry(
    relative: str, entry: Path, real_root: Path, limits: Limits, allow_symlinks_outside: bool, csv_rows: bool = False
) -> list[Document] | str:
    """The document(s) ``entry`` holds, or why it is not one; ``InputError`` for a bad one."""
    try:
        relative.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{printable(str(entry))}: the file name is not valid UTF-8; rename it") from None
    if _hidden(relative):
        return "hidden file"
    target = _checked_link_target(entry, real_root, allow_symlinks_outside)
    if target == entry:
        return "symbolic link in a loop (not followed)"
    if target is not None and files.is_directory(target):
        return "symbolic link to a directory (not followed)"
    if not files.is_file(target or entry):
        return "not a regular file (a broken link, a pipe or a device)"
    suffix = entry.suffix.lower()
    if suffix == ".pdf" and not pdf_available():  # listed as not indexed, as an unknown type is (docs/corpus.md)
        return NEEDS_PDFMINER
    if suffix in EXTRACTED_SUFFIXES:
        return read_extracted(entry, relative, limits=limits, read_from=target, follow_symlinks=False,
                              csv_rows=csv_rows)
    if suffix not in TEXT_SUFFIXES:
        return NOT_A_DOCUMENT
    return [read_text_document(entry, relative, limits=limits, read_from=target, follow_symlinks=False)]


