"""Fuzz targets: one function per input surface, ``target(data: bytes) -> None``.

Shared by the fuzzing harness (``bench/fuzz.py``, with atheris or a built-in
mutation loop) and the seed replay test (``tests/fuzz/test_seeds.py``). A
target swallows ``regrag.errors.InputError`` (and its subclasses
``LimitError``, ``CorruptIndexError``, ``LockedError``): that is regrag
refusing bad input clearly, as documented. Anything else escaping a target
is a finding: an unexpected exception, or an ``AssertionError`` from an
invariant the target checks on what regrag returned.

| target | what it feeds the bytes to |
|---|---|
| ``analyzer`` | every analyzer's ``analyze`` and ``term_counts`` (offsets in range, terms normal, same multiset), ``sentence_spans``, ``detect_language`` |
| ``jsonl`` | a ``.jsonl`` file: ``regrag.jsonl.json_objects`` and ``load_corpus`` (both error modes), then an index |
| ``markdown`` | a ``.md`` file: ``load_corpus``, section spans checked, then an index |
| ``query`` | line 1 a query, the next lines filters: ``search``/``ranking``/``ask``/``explain`` on the bundled corpus |
| ``filters`` | each line a filter: ``coerce_filters``, ``Filter``, then a filtered search |
| ``ledger`` | a ledger file: ``read_ledger``, ``verify_ledger``, ``LedgerEntry.from_dict`` per JSON line |
| ``manifest`` | an index directory's manifest: ``read_manifest``, then ``load_generation`` |
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Callable

from regrag.errors import InputError

__all__ = ["TARGETS", "EXPECTED_ERRORS", "KNOWN_FINDINGS", "REFUSALS", "run_target"]

#: Findings in modules outside this suite's care, reported with a seed as the reproducer:
#: (target, seed file name) -> what goes wrong. tests/fuzz/test_seeds.py marks them as strict
#: xfails (remove the entry once the module is fixed); bench/fuzz.py leaves these seeds out
#: of an atheris run, which would otherwise stop at the first input.
KNOWN_FINDINGS: dict[tuple[str, str], str] = {
    # ("ledger", "nan-record") was one: fixed in regrag/audit/ledger.py (_shape_problem)
}

#: What a target may raise without it being a finding (caught inside each target).
EXPECTED_ERRORS: tuple[type[BaseException], ...] = (InputError,)

#: The refusals (``InputError``s) of the last ``run_target`` call, in order: the harness uses
#: new kinds of message as a cheap sign that an input reached a new code path.
REFUSALS: list[InputError] = []


def _refused(error: InputError) -> None:
    REFUSALS.append(error)


FORMAT_CHARACTERS = frozenset(
    "\u200b\u200c\u200d\u2060\u00ad\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)


@lru_cache(maxsize=1)
def _scratch() -> Path:
    """A private temporary directory for the file-based targets (one per process, removed at exit)."""
    path = Path(tempfile.mkdtemp(prefix="regrag-fuzz-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def _text(data: bytes) -> str:
    """The bytes as text: UTF-8, invalid sequences replaced (text reaches regrag decoded)."""
    return data.decode("utf-8", "replace")


def _write(name: str, data: bytes) -> Path:
    path = _scratch() / name
    path.write_bytes(data)
    return path


# --- analyzer -----------------------------------------------------------------------------------


def analyzer_target(data: bytes) -> None:
    from regrag.text.analyzer import ANALYZER_NAMES, Analyzer, detect_language
    from regrag.text.normalize import normalize_term
    from regrag.text.sentences import sentence_spans

    text = _text(data)
    for name in ANALYZER_NAMES:
        analyzer = Analyzer(name)
        terms = analyzer.analyze(text)
        for term, start, end in terms:
            assert isinstance(term, str) and term, (name, term)
            assert 0 <= start < end <= len(text), (name, term, start, end)
            assert normalize_term(term) == term, (name, term)
            assert "\ufeff" not in term and FORMAT_CHARACTERS.isdisjoint(term), (name, term)
        counts = analyzer.term_counts(text)
        assert counts == Counter(term for term, _s, _e in terms), name
    spans = sentence_spans(text)
    assert spans == sorted(spans) and all(0 <= start < end <= len(text) for start, end in spans)
    for start, end in spans:
        assert not text[start].isspace() and not text[end - 1].isspace()
    assert detect_language(text) in ("en", "vi")


# --- corpus files -------------------------------------------------------------------------------


def _check_corpus(corpus) -> None:
    from regrag import Index

    for document in corpus.documents:
        for section in document.sections:
            assert 0 <= section.start <= section.end <= len(document.text), (document.id, section)
    if corpus.documents:
        index = Index.from_documents(corpus.documents)
        assert index.document_count == len(corpus.documents)
        for passage in index.inverted.passages:
            text = index.document(passage.document_id).text
            assert 0 <= passage.start <= passage.end <= len(text)


def jsonl_target(data: bytes) -> None:
    from regrag.corpus.load import load_corpus
    from regrag.jsonl import json_objects

    path = _write("documents.jsonl", data)
    try:
        for number, record in json_objects(path):
            assert isinstance(number, int) and number >= 1 and isinstance(record, dict)
    except InputError as error:
        _refused(error)
    try:
        _check_corpus(load_corpus(path))
    except InputError as error:
        _refused(error)
    try:
        corpus = load_corpus(path, errors="collect")
    except InputError as error:
        _refused(error)
        return
    _check_corpus(corpus)


def markdown_target(data: bytes) -> None:
    from regrag.corpus.load import load_corpus

    try:
        _check_corpus(load_corpus(_write("document.md", data)))
    except InputError as error:
        _refused(error)


# --- queries and filters ------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _default_index():
    from regrag import Index

    return Index.from_path()


_METHODS = ("bm25", "tfidf", "hybrid")


def query_target(data: bytes) -> None:
    index = _default_index()
    control = data[0] if data else 0
    text = data[1:].decode("utf-8", "surrogateescape" if control & 0x80 else "replace")
    query, _, rest = text.partition("\n")
    filters = rest.split("\n")[:3] if rest else None
    method = _METHODS[control % 3]
    k = 1 + (control >> 2) % 7
    try:
        hits = index.search(query, k=k, method=method, filters=filters, entities=bool(control & 0x40))
    except InputError as error:
        _refused(error)
        return
    ranking = index.ranking(query, k=k, method=method, filters=filters, entities=bool(control & 0x40))
    assert [(h.document_id, h.passage_id, h.score) for h in hits] == ranking
    for hit in hits:
        hit.to_json()
    passage = hits[0].passage_id if hits else "golden-lotus-platinum-credit-card.md#1"
    explanation = index.explain(query, passage)
    if hits and method == "bm25":
        assert explanation.bm25.score == hits[0].score
    explanation.to_json()
    if control & 0x20:
        index.ask(query, k=k, method=method, filters=filters).to_json()


def filters_target(data: bytes) -> None:
    from regrag.retrieval.filters import OPERATORS, Filter, coerce_filters

    text = _text(data)
    lines = text.split("\n")
    try:
        parsed = coerce_filters(lines)
    except InputError as error:
        _refused(error)
        parsed = None
    if parsed is not None:
        for condition in parsed:
            assert condition.operator in OPERATORS
        try:
            _default_index().search("fee", k=3, filters=list(parsed))
        except InputError as error:
            _refused(error)
    if len(lines) >= 3:
        try:
            Filter(lines[0], lines[1], lines[2])
        except InputError as error:
            _refused(error)
    try:
        coerce_filters(dict(zip(lines[::2], lines[1::2])))
    except InputError as error:
        _refused(error)


# --- audit files --------------------------------------------------------------------------------


def ledger_target(data: bytes) -> None:
    from regrag.audit.ledger import LedgerEntry, read_ledger, verify_ledger

    path = _write("ledger.jsonl", data)
    try:
        entries = read_ledger(path)
    except InputError as error:
        _refused(error)
        entries = None
    try:
        report = verify_ledger(path)
    except InputError as error:
        _refused(error)
        report = None
    if report is not None and report.ok:
        assert entries is not None, "verify_ledger accepted a ledger read_ledger refuses"
    for line in data.split(b"\n"):
        try:
            value = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            continue  # not JSON at all: the ledger's own parser is exercised above
        if not isinstance(value, dict):
            continue
        try:
            entry = LedgerEntry.from_dict(value)
        except InputError as error:
            _refused(error)
            continue
        entry.line()
        entry.computed_hash()


def manifest_target(data: bytes) -> None:
    from regrag.index.codec import MANIFEST, read_manifest
    from regrag.index.loading import load_generation

    directory = _scratch() / "generation"
    directory.mkdir(exist_ok=True)
    (directory / MANIFEST).write_bytes(data)
    try:
        manifest, raw = read_manifest(directory)
    except InputError as error:
        _refused(error)
        return
    assert raw == data
    try:
        load_generation(directory, manifest)
    except InputError as error:
        _refused(error)


TARGETS: dict[str, Callable[[bytes], None]] = {
    "analyzer": analyzer_target,
    "jsonl": jsonl_target,
    "markdown": markdown_target,
    "query": query_target,
    "filters": filters_target,
    "ledger": ledger_target,
    "manifest": manifest_target,
}


def run_target(name: str, data: bytes) -> None:
    """Run one target on one input; any exception that escapes is a finding.
    The refusals it met are left in ``REFUSALS``."""
    REFUSALS.clear()
    TARGETS[name](data)


def seed_directory() -> Path:
    """``tests/fuzz/seeds``: one folder of seed files per target."""
    return Path(os.path.dirname(os.path.abspath(__file__))) / "seeds"
