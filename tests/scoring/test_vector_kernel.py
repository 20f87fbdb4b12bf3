"""The numpy kernel returns the pure-Python path's bytes: the same passages,
order and score bits, on raw columns of arbitrary doubles and on whole
searches (every method, depth and filter), and the kernel is chosen as
documented (``REGRAG_KERNEL``, ``SearchOptions.kernel``)."""

from __future__ import annotations

import os
import subprocess
import sys
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regrag import Index
from regrag.corpus.model import Document, Section
from regrag.errors import InputError
from regrag.retrieval.options import SearchOptions
from regrag.retrieval import kernels
from regrag.scoring.tfidf import cosines
from regrag.scoring.topk import top_k

np = pytest.importorskip("numpy")
from regrag.scoring import vector_kernel  # noqa: E402  (needs numpy)

REPO = Path(__file__).resolve().parents[2]
METHODS = ("bm25", "tfidf", "hybrid")


# --- raw columns: any finite doubles, including -0.0, 0.0 and subnormals ------------------------

finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)
# the exact values where rounding and signed zeros show: halves, thirds, tiny and huge numbers
values = st.one_of(finite, st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1.0, 1 / 3, 0.1, 2.0**52, 1e-300]))


@st.composite
def columns(draw, passage_count: int):
    """One term's column: distinct ascending positions under ``passage_count`` and a value each."""
    positions = sorted(draw(st.sets(st.integers(0, passage_count - 1), min_size=0, max_size=passage_count)))
    return positions, [draw(values) for _ in positions]


@st.composite
def raw_queries(draw):
    passage_count = draw(st.integers(1, 60))
    terms = draw(st.lists(columns(passage_count), min_size=0, max_size=6))
    return passage_count, terms


def python_bm25(terms, k, allowed):
    """``regrag.retrieval.ranking``'s BM25 accumulation and cut, over raw columns."""
    scores = None
    for positions, impacts in terms:
        if scores is None:
            scores = dict(zip(positions, impacts))
            continue
        for position, impact in zip(positions, impacts):
            scores[position] = scores.get(position, 0.0) + impact
    scores = scores or {}
    if allowed is not None:
        scores = {p: s for p, s in scores.items() if p in allowed}
    return top_k(scores, k)


def bits(ranking):
    return [(p, float(s).hex()) for p, s in ranking]


def as_typed(terms, typecode="i"):
    """The columns as the index holds them: typed arrays (positions ``typecode``, values doubles)."""
    return [(array(typecode, p), array("d", v)) for p, v in terms]


@settings(max_examples=400, deadline=None)
@given(raw_queries(), st.integers(1, 70), st.one_of(st.none(), st.sets(st.integers(0, 59))), st.sampled_from("iqIl"))
def test_bm25_columns_give_the_python_bits(query, k, allowed, typecode):
    passage_count, terms = query
    allowed = None if allowed is None else frozenset(p for p in allowed if p < passage_count)
    expected = bits(python_bm25(terms, k, allowed))
    for sparse in (False, True):
        assert bits(vector_kernel.bm25_top(as_typed(terms, typecode), passage_count, k, allowed, sparse)) == expected
        assert bits(vector_kernel.bm25_top(terms, passage_count, k, allowed, sparse)) == expected  # plain lists
        as_arrays = [(np.asarray(a), np.asarray(b)) for a, b in as_typed(terms, typecode)]  # what ``columns`` keeps
        assert bits(vector_kernel.bm25_top(as_arrays, passage_count, k, allowed, sparse)) == expected


def test_columns_are_made_once_per_postings_and_remade_when_a_column_is_replaced():
    from regrag.index.build import Postings

    postings = Postings(array("i", [0, 2]), array("d", [1.0, 2.0]), array("d", [0.5, 0.25]), array("d", [0.1, 0.2]))
    positions, impacts = vector_kernel.columns(postings, "bm25_impacts")
    assert (positions.tolist(), impacts.tolist()) == ([0, 2], [0.5, 0.25])
    again = vector_kernel.columns(postings, "bm25_impacts")
    assert again[0] is positions and again[1] is impacts  # kept, not converted again
    assert vector_kernel.columns(postings, "tfidf_weights")[1].tolist() == [0.1, 0.2]
    postings.bm25_impacts[1] = 4.0  # a view: what the column holds, at once
    assert vector_kernel.columns(postings, "bm25_impacts")[1].tolist() == [0.5, 4.0]
    postings.bm25_impacts = array("d", [0.75, 1.5])  # a new column object: made again
    assert vector_kernel.columns(postings, "bm25_impacts")[1].tolist() == [0.75, 1.5]
    # what is kept is not part of the record: equal to one that never ranked
    assert postings == Postings(array("i", [0, 2]), array("d", [1.0, 2.0]), array("d", [0.75, 1.5]),
                                array("d", [0.1, 0.2]))


def python_tfidf(terms, query_norm, norms, k, allowed):
    """``regrag.retrieval.ranking``'s TF-IDF dot products, cosines and cut, over raw columns."""
    dots = None
    for positions, weights, query_weight in terms:
        products = [query_weight * w for w in weights]
        if dots is None:
            dots = dict(zip(positions, products))
            continue
        for position, product in zip(positions, products):
            dots[position] = dots.get(position, 0.0) + product
    dots = dots or {}
    scores = dict(zip(dots, cosines(dots.values(), query_norm, [norms[p] for p in dots])))
    if allowed is not None:
        scores = {p: s for p, s in scores.items() if p in allowed}
    return top_k(scores, k)


weights = st.floats(min_value=1e-3, max_value=1e3) | st.sampled_from([1.0, 1 / 3, 0.1, 0.0])
norms_of = st.floats(min_value=1e-2, max_value=1e2)


@settings(max_examples=400, deadline=None)
@given(raw_queries(), st.data(), st.integers(1, 70), st.one_of(st.none(), st.sets(st.integers(0, 59))))
def test_tfidf_columns_give_the_python_bits(query, data, k, allowed):
    passage_count, raw = query
    terms = [(p, [abs(v) % 1e3 for v in values_], data.draw(weights)) for p, values_ in raw]
    norms = data.draw(st.lists(norms_of, min_size=passage_count, max_size=passage_count))
    query_norm = data.draw(norms_of)
    allowed = None if allowed is None else frozenset(p for p in allowed if p < passage_count)
    expected = bits(python_tfidf(terms, query_norm, norms, k, allowed))
    typed = [(array("i", p), array("d", w), q) for p, w, q in terms]
    for sparse in (False, True):
        got = vector_kernel.tfidf_top(typed, query_norm, array("d", norms), passage_count, k, allowed, sparse)
        assert bits(got) == expected


def test_a_zero_score_and_a_negative_zero_are_kept_as_the_python_path_keeps_them():
    terms = [([0, 1, 2], [-0.0, 0.0, 1.0]), ([2, 3], [-1.0, -0.0])]
    expected = bits(python_bm25(terms, 10, None))
    assert expected == [(0, "-0x0.0p+0"), (1, "0x0.0p+0"), (2, "0x0.0p+0"), (3, "0x0.0p+0")]
    for sparse in (False, True):
        assert bits(vector_kernel.bm25_top(terms, 4, 10, None, sparse)) == expected


# --- whole searches: both kernels give the same JSON, byte for byte ------------------------------

WORDS = [f"w{i}" for i in range(30)]
word = st.integers(min_value=0, max_value=29).map(lambda i: WORDS[i * i // 30])  # skewed: long and short lists
texts = st.lists(word, min_size=1, max_size=25).map(" ".join)
metadata = st.fixed_dictionaries({"topic": st.sampled_from(["a", "b", "c"]),
                                  "date": st.sampled_from(["2020-01-01", "2021-06-30", "2022-12-31"])})


@st.composite
def corpora(draw):
    count = draw(st.integers(1, 40))
    found = []
    for i in range(count):
        text = draw(texts)
        if found and draw(st.booleans()):
            text = found[-1].text  # duplicates: ties broken by position
        meta = draw(metadata)
        found.append(Document(f"d{i:03d}", draw(st.sampled_from(["", "w0 w7", "w20"])), text,
                              (Section("", 0, len(text)),), tuple(sorted(meta.items())), "t"))
    return found


filters = st.sampled_from([(), ("topic=a",), ("topic=b", "date>=2021-06-30"), ("date<2021-01-01",), ("topic=z",)])
queries = st.lists(st.one_of(word, st.sampled_from(WORDS + ["absent"])), min_size=1, max_size=8).map(" ".join)


def search_bytes(index, query, options):
    """What ``regrag search --json`` prints for these options: one ``Hit.to_json()`` line per hit."""
    return "".join(hit.to_json() + "\n" for hit in index.search(query, options=options)).encode("utf-8")


@settings(max_examples=150, deadline=None)
@given(corpora(), queries, st.sampled_from(METHODS), st.sampled_from([1, 2, 3, 5, 10, 50, 200]), filters,
       st.booleans(), st.sampled_from([1, 5, 60]))
def test_both_kernels_give_the_same_search_bytes(documents, query, method, k, chosen, exhaustive, rrf_depth):
    index = Index.from_documents(documents)
    python = search_bytes(index, query, SearchOptions(k, method, chosen, rrf_depth, exhaustive=exhaustive,
                                                      kernel="python"))
    numpy_ = search_bytes(index, query, SearchOptions(k, method, chosen, rrf_depth, exhaustive=exhaustive,
                                                      kernel="numpy"))
    assert numpy_ == python
    options = SearchOptions(k, method, chosen, rrf_depth, kernel="numpy")
    assert index.ranking(query, options=options) == index.ranking(query, options=SearchOptions(
        k, method, chosen, rrf_depth, kernel="python"))
    for kernel in kernels.KERNELS:  # ranking() (two result lists for bm25 and tfidf) is search() without provenance
        chosen_options = SearchOptions(k, method, chosen, rrf_depth, exhaustive=exhaustive, kernel=kernel)
        triples = [(hit.document_id, hit.passage_id, hit.score) for hit in index.search(query, options=chosen_options)]
        assert [(d, p, s.hex()) for d, p, s in index.ranking(query, options=chosen_options)] == \
            [(d, p, s.hex()) for d, p, s in triples]


def test_a_memory_mapped_index_gives_the_same_bytes_under_both_kernels(tmp_path):
    """Columns read from the mapped files (memoryview slices) score as the in-memory arrays do."""
    built = Index.from_path(REPO / "corpora" / "regulations" / "documents")
    built.save(tmp_path / "index")
    opened = Index.open(tmp_path / "index")
    queries_ = [line for line in (REPO / "corpora" / "regulations" / "queries.jsonl").read_text("utf-8").splitlines()
                if line.strip()]
    assert queries_
    for line in queries_:
        import json

        text = json.loads(line)["text"]
        for method in METHODS:
            for k in (1, 10, 1000):
                python = search_bytes(built, text, SearchOptions(k, method, kernel="python"))
                assert search_bytes(opened, text, SearchOptions(k, method, kernel="numpy")) == python
                assert search_bytes(opened, text, SearchOptions(k, method, kernel="python")) == python


# --- choosing the kernel --------------------------------------------------------------------------

def test_the_default_is_numpy_when_it_is_installed(monkeypatch):
    monkeypatch.delenv("REGRAG_KERNEL", raising=False)
    assert kernels.resolve_kernel() == "numpy"
    for name in ("python", "numpy"):
        monkeypatch.setenv("REGRAG_KERNEL", name)
        assert kernels.resolve_kernel() == name
    monkeypatch.setenv("REGRAG_KERNEL", "auto")
    assert kernels.resolve_kernel() == "numpy"
    assert kernels.resolve_kernel("python") == "python"  # an explicit choice wins over the variable


def test_an_unknown_kernel_is_a_clear_error(monkeypatch, default_index):
    monkeypatch.setenv("REGRAG_KERNEL", "fortran")
    with pytest.raises(InputError, match="REGRAG_KERNEL: unknown kernel 'fortran'"):
        default_index.search("liquidity")
    with pytest.raises(InputError, match="unknown kernel 'cuda'"):
        SearchOptions(kernel="cuda")


def test_asking_for_numpy_without_numpy_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(kernels._loaded, "numpy", None)  # as if numpy could not be imported
    monkeypatch.delenv("REGRAG_KERNEL", raising=False)
    assert kernels.resolve_kernel() == "python"
    monkeypatch.setenv("REGRAG_KERNEL", "numpy")
    with pytest.raises(InputError, match=r"needs numpy.*regrag\[fast\]"):
        kernels.resolve_kernel()


def test_regrag_imports_and_searches_without_numpy(tmp_path):
    """With numpy unimportable, regrag imports, searches with the Python kernel, and refuses numpy clearly."""
    script = (
        "import sys; sys.modules['numpy'] = None\n"  # `import numpy` now raises ImportError
        "from regrag import Index\n"
        "from regrag.retrieval.kernels import resolve_kernel\n"
        "hits = Index.from_path().search('capital requirements', k=3)\n"
        "assert hits and resolve_kernel() == 'python', hits\n"
        "print(hits[0].to_json())\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    environment.pop("REGRAG_KERNEL", None)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment, cwd=REPO)
    assert done.returncode == 0, done.stderr
    expected = Index.from_path().search("capital requirements", k=3, options=None)[0].to_json()
    assert done.stdout.strip() == expected
    environment["REGRAG_KERNEL"] = "numpy"
    cli = subprocess.run([sys.executable, "-c", "import sys; sys.modules['numpy'] = None\n"
                          "from regrag.cli import main; sys.exit(main(['search', 'capital']))"],
                         capture_output=True, text=True, env=environment, cwd=REPO)
    assert cli.returncode == 2 and "Traceback" not in cli.stderr, cli.stderr
    assert "the numpy kernel needs numpy" in cli.stderr


def test_equal_scores_come_in_position_order_and_distinct_ones_by_score():
    # one term per position, so each passage's score is its own value
    terms = [([7], [2.0]), ([3], [1.0]), ([5], [2.0]), ([1], [1.0]), ([4], [3.0])]
    typed = as_typed(terms)
    assert vector_kernel.bm25_top(typed, 8, 5) == [(4, 3.0), (5, 2.0), (7, 2.0), (1, 1.0), (3, 1.0)]
    assert vector_kernel.bm25_top(typed, 8, 2) == [(4, 3.0), (5, 2.0)]
    distinct = as_typed([([6, 2, 0], [0.5, 4.0, 1.5])])
    assert vector_kernel.bm25_top(distinct, 8, 3) == [(2, 4.0), (0, 1.5), (6, 0.5)]
