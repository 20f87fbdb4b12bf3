"""ExactVectorIndex (standard library) and FaissVectorIndex: one contract, checked
by hand-computed examples and, for FAISS flat, against the exact index."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.adapters.base import MissingExtraError, VectorHit, VectorIndex
from regrag.adapters.vector_index import ExactVectorIndex, FaissVectorIndex, squared_l2
from regrag.errors import InputError

requires_faiss = pytest.mark.skipif(importlib.util.find_spec("faiss") is None, reason="faiss-cpu is not installed")


def hits(results: list[VectorHit]) -> list[tuple[str, int, float]]:
    return [(hit.id, hit.rank, hit.distance) for hit in results]


# --- ExactVectorIndex: hand-computed examples ---------------------------------------------------------


@pytest.fixture
def small() -> ExactVectorIndex:
    index = ExactVectorIndex()
    index.add(["origin", "far", "near", "mid"], [[0.0, 0.0], [3.0, 4.0], [1.0, 1.0], [-1.0, 2.0]])
    return index


def test_exact_distances_and_order(small: ExactVectorIndex) -> None:
    assert isinstance(small, VectorIndex)
    assert len(small) == 4 and small.dimension == 2
    # from (0, 0): 0, 1 + 1, 1 + 4, 9 + 16
    assert hits(small.search([0.0, 0.0], 4)) == [("origin", 1, 0.0), ("near", 2, 2.0), ("mid", 3, 5.0), ("far", 4, 25.0)]
    # from (0.5, 0.25): 0.3125, (−0.5)² + (−0.75)² = 0.8125, (−1.5)² + 1.75² = 5.3125, 2.5² + 3.75² = 20.3125
    assert hits(small.search([0.5, 0.25], 2)) == [("origin", 1, 0.3125), ("near", 2, 0.8125)]
    assert small.search([3, 4], 1) == [VectorHit("far", 1, 0.0)]  # integers are accepted


def test_distance_sum_is_exactly_rounded() -> None:
    # A left-to-right float sum gives 1e16 + 1 → 1e16, + 1 → 1e16; the exact sum 1e16 + 2 is a float.
    index = ExactVectorIndex()
    index.add(["big-first", "big-last"], [[1e8, 1.0, 1.0], [1.0, 1.0, 1e8]])
    assert hits(index.search([0.0, 0.0, 0.0], 2)) == [("big-first", 1, 1e16 + 2), ("big-last", 2, 1e16 + 2)]
    assert squared_l2([0.0, 0.0, 0.0], [1e8, 1.0, 1.0]) == 10000000000000002.0


def test_ties_are_ordered_by_id_not_insertion() -> None:
    index = ExactVectorIndex()
    index.add(["c", "b", "é", "a", "B"], [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [2.0, 0.0]])
    assert [hit.id for hit in index.search([0.0, 0.0], 5)] == ["a", "b", "c", "é", "B"]
    assert [hit.id for hit in index.search([0.0, 0.0], 2)] == ["a", "b"]


def test_k_larger_than_size_returns_all(small: ExactVectorIndex) -> None:
    assert [hit.rank for hit in small.search([0.0, 0.0], 100)] == [1, 2, 3, 4]


def test_empty_index_returns_nothing() -> None:
    index = ExactVectorIndex()
    assert len(index) == 0 and index.dimension is None
    assert index.search([1.0, 2.0, 3.0], 5) == []


@pytest.mark.parametrize("k", [0, -1, 1.5, True, "3"])
def test_k_must_be_a_positive_integer(small: ExactVectorIndex, k: object) -> None:
    with pytest.raises(InputError, match="k must be a positive integer"):
        small.search([0.0, 0.0], k)  # type: ignore[arg-type]


def test_duplicate_ids_are_refused_and_change_nothing(small: ExactVectorIndex) -> None:
    with pytest.raises(InputError, match="duplicate id 'near'"):
        small.add(["new", "near"], [[5.0, 5.0], [6.0, 6.0]])
    with pytest.raises(InputError, match="duplicate id 'twice'"):
        small.add(["twice", "twice"], [[5.0, 5.0], [6.0, 6.0]])
    assert len(small) == 4
    assert [hit.id for hit in small.search([5.0, 5.0], 1)] == ["far"]


def test_dimension_is_fixed_by_the_first_add(small: ExactVectorIndex) -> None:
    with pytest.raises(InputError, match="dimension 3; the index has dimension 2"):
        small.add(["three"], [[1.0, 2.0, 3.0]])
    with pytest.raises(InputError, match="query vector has dimension 1"):
        small.search([1.0], 1)
    mixed = ExactVectorIndex()
    with pytest.raises(InputError, match="dimension"):
        mixed.add(["a", "b"], [[1.0, 2.0], [1.0]])
    assert mixed.dimension is None and len(mixed) == 0


@pytest.mark.parametrize(
    "ids, vectors, message",
    [
        (["a"], [[float("nan"), 1.0]], "not finite"),
        (["a"], [[float("inf"), 1.0]], "not finite"),
        (["a"], [["1", 1.0]], "must be a number"),
        (["a"], [[True, 1.0]], "must be a number"),
        (["a"], [[]], "empty"),
        ([""], [[1.0]], "non-empty strings"),
        ([7], [[1.0]], "non-empty strings"),
        (["a", "b"], [[1.0]], "2 ids but 1 vectors"),
        ("ab", [[1.0], [2.0]], "not a single string"),
    ],
)
def test_bad_batches_are_input_errors(ids: object, vectors: object, message: str) -> None:
    index = ExactVectorIndex()
    with pytest.raises(InputError, match=message):
        index.add(ids, vectors)  # type: ignore[arg-type]
    assert len(index) == 0


def test_save_load_round_trip_is_byte_identical(small: ExactVectorIndex, tmp_path: Path) -> None:
    path = tmp_path / "vectors.json"
    small.save(path)
    data = path.read_bytes()
    record = json.loads(data)
    assert [entry["id"] for entry in record["entries"]] == ["far", "mid", "near", "origin"]
    assert data.endswith(b"}\n") and b" " not in data
    loaded = ExactVectorIndex.load(path)
    assert loaded.to_bytes() == data
    loaded.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == data
    for query in ([0.0, 0.0], [0.5, 0.25], [2.0, 3.0]):
        assert loaded.search(query, 4) == small.search(query, 4)


def test_save_load_keeps_floats_exactly(tmp_path: Path) -> None:
    index = ExactVectorIndex()
    values = [0.1, 1 / 3, -2.5e-300, 1.7976931348623157e308, -0.0]
    index.add(["v"], [values])
    index.save(tmp_path / "v.json")
    loaded = ExactVectorIndex.load(tmp_path / "v.json")
    assert loaded.to_bytes() == index.to_bytes()
    assert loaded.search([0.0] * 5, 1) == index.search([0.0] * 5, 1)


def test_empty_index_round_trip(tmp_path: Path) -> None:
    ExactVectorIndex().save(tmp_path / "empty.json")
    loaded = ExactVectorIndex.load(tmp_path / "empty.json")
    assert len(loaded) == 0 and loaded.dimension is None


def _exact_file(entries: object, dimension: object = 2, **overrides: object) -> str:
    record = {"format": "regrag-exact-vector-index", "version": 1, "dimension": dimension, "entries": entries}
    record.update(overrides)
    return json.dumps(record)


@pytest.mark.parametrize(
    "text, message",
    [
        ("{not json", "malformed JSON"),
        ("[1, 2]", "expected a JSON object"),
        (_exact_file([], format="something-else"), "not a regrag-exact-vector-index file"),
        (_exact_file([], version=2), "unsupported version"),
        (_exact_file([], extra=1), "unexpected fields"),
        (_exact_file({"a": [1.0, 2.0]}), "entries must be a list"),
        (_exact_file([{"id": "a", "vector": [1.0, 2.0]}], dimension=0), "dimension must be a positive integer"),
        (_exact_file([{"id": "a", "vector": [1.0, 2.0]}], dimension=None), "dimension must be a positive integer"),
        (_exact_file([{"id": "a"}]), "exactly 'id' and 'vector'"),
        (_exact_file([{"id": "a", "vector": "1,2"}]), "vector must be a list"),
        (_exact_file([{"id": "a", "vector": [1.0, 2.0, 3.0]}]), "dimension 3; the index has dimension 2"),
        (_exact_file([{"id": "a", "vector": [1.0, 2.0]}, {"id": "a", "vector": [1.0, 2.0]}]), "duplicate id"),
        (_exact_file([{"id": 5, "vector": [1.0, 2.0]}]), "non-empty strings"),
        (_exact_file([{"id": "a", "vector": [1.0, "x"]}]), "must be a number"),
        ('{"format":"regrag-exact-vector-index","version":1,"dimension":1,"entries":[{"id":"a","vector":[NaN]}]}', "malformed JSON"),
    ],
)
def test_malformed_files_name_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message) as caught:
        ExactVectorIndex.load(path)
    assert str(path) in str(caught.value)


def test_missing_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        ExactVectorIndex.load(tmp_path / "absent.json")
    (tmp_path / "latin1.json").write_bytes(b'{"format": "\xe9"}')
    with pytest.raises(InputError, match="invalid UTF-8"):
        ExactVectorIndex.load(tmp_path / "latin1.json")


# --- FAISS against the exact index --------------------------------------------------------------------


@st.composite
def small_integer_collections(draw: st.DrawFn) -> tuple[list[str], list[list[float]], list[float], int]:
    """Ids, vectors and a query of small integers or quarters: float32 represents them and
    computes their squared distances exactly, and the narrow range makes ties frequent."""
    dimension = draw(st.integers(1, 6))
    scale = draw(st.sampled_from([1.0, 0.25]))
    component = st.integers(-6, 6).map(lambda value: value * scale)
    ids = draw(st.lists(st.text(min_size=1, max_size=3), min_size=1, max_size=30, unique=True))
    vectors = [draw(st.lists(component, min_size=dimension, max_size=dimension)) for _ in ids]
    query = draw(st.lists(component, min_size=dimension, max_size=dimension))
    k = draw(st.integers(1, len(ids) + 3))
    return ids, vectors, query, k


@requires_faiss
@settings(max_examples=200, deadline=None)
@given(small_integer_collections())
def test_faiss_flat_equals_exact(case: tuple[list[str], list[list[float]], list[float], int]) -> None:
    ids, vectors, query, k = case
    exact, flat = ExactVectorIndex(), FaissVectorIndex("flat")
    exact.add(ids, vectors)
    flat.add(ids, vectors)
    assert hits(flat.search(query, k)) == hits(exact.search(query, k))


@requires_faiss
def test_faiss_flat_equals_exact_on_a_larger_index() -> None:
    # Large enough for FAISS to use its |q|² + |v|² − 2<q, v> (BLAS) path; small integers keep it exact.
    generator = random.Random(13)
    ids = [f"row{number:05d}" for number in range(4000)]
    vectors = [[float(generator.randint(-8, 8)) for _ in range(32)] for _ in ids]
    exact, flat = ExactVectorIndex(), FaissVectorIndex()
    exact.add(ids, vectors)
    flat.add(ids, vectors)
    for query in vectors[:3] + [[float(generator.randint(-8, 8)) for _ in range(32)] for _ in range(3)]:
        assert hits(flat.search(query, 25)) == hits(exact.search(query, 25))


@requires_faiss
def test_faiss_resolves_ties_beyond_the_first_fetch() -> None:
    # 50 vectors at the same distance, inserted in descending id order: FAISS alone returns
    # the first inserted; the adapter must widen its fetch and return the smallest ids.
    ids = [f"id{number:02d}" for number in range(50)][::-1]
    vectors = [[1.0, 0.0] if number % 2 else [0.0, 1.0] for number in range(50)]
    flat = FaissVectorIndex()
    flat.add(ids, vectors)
    exact = ExactVectorIndex()
    exact.add(ids, vectors)
    assert [hit.id for hit in flat.search([0.0, 0.0], 3)] == ["id00", "id01", "id02"]
    assert hits(flat.search([0.0, 0.0], 3)) == hits(exact.search([0.0, 0.0], 3))


@requires_faiss
def test_faiss_flat_general_floats_agree_within_float32() -> None:
    generator = random.Random(7)
    ids = [f"p{number}" for number in range(200)]
    vectors = [[generator.uniform(-1, 1) for _ in range(16)] for _ in ids]
    exact, flat = ExactVectorIndex(), FaissVectorIndex()
    exact.add(ids, vectors)
    flat.add(ids, vectors)
    query = [generator.uniform(-1, 1) for _ in range(16)]
    exact_hits, flat_hits = exact.search(query, 10), flat.search(query, 10)
    assert [hit.id for hit in flat_hits] == [hit.id for hit in exact_hits]
    for a, b in zip(flat_hits, exact_hits):
        assert abs(a.distance - b.distance) <= 1e-5 * max(1.0, b.distance)


@requires_faiss
def test_faiss_contract_checks() -> None:
    flat = FaissVectorIndex()
    assert isinstance(flat, VectorIndex)
    assert flat.search([1.0, 2.0], 3) == []
    flat.add(["a", "b"], [[0.0, 0.0], [1.0, 0.0]])
    with pytest.raises(InputError, match="duplicate id 'a'"):
        flat.add(["a"], [[2.0, 2.0]])
    with pytest.raises(InputError, match="dimension 3"):
        flat.add(["c"], [[1.0, 2.0, 3.0]])
    with pytest.raises(InputError, match="too large for float32"):
        flat.add(["huge"], [[1e300, 0.0]])
    with pytest.raises(InputError, match="query vector has dimension 1"):
        flat.search([1.0], 1)
    with pytest.raises(InputError, match="k must be"):
        flat.search([1.0, 1.0], 0)
    assert len(flat) == 2
    assert hits(flat.search([0.0, 0.0], 10)) == [("a", 1, 0.0), ("b", 2, 1.0)]
    with pytest.raises(InputError, match="unknown FAISS index kind"):
        FaissVectorIndex("ivf")
    with pytest.raises(InputError, match="hnsw_neighbors"):
        FaissVectorIndex("hnsw", hnsw_neighbors=1)


@requires_faiss
@pytest.mark.parametrize("kind", ["flat", "hnsw"])
def test_faiss_save_load_round_trip(tmp_path: Path, kind: str) -> None:
    generator = random.Random(11)
    ids = [f"doc-{number}" for number in range(60)]
    vectors = [[float(generator.randint(-20, 20)) for _ in range(8)] for _ in ids]
    index = FaissVectorIndex(kind, hnsw_neighbors=8)
    index.add(ids, vectors)
    path = tmp_path / f"{kind}.faiss"
    index.save(path)
    sidecar = json.loads((tmp_path / f"{kind}.faiss.ids.json").read_bytes())
    assert sidecar["kind"] == kind and sidecar["ids"] == ids and sidecar["dimension"] == 8
    loaded = FaissVectorIndex.load(path)
    assert loaded.kind == kind and len(loaded) == 60
    for query in vectors[:5]:
        assert loaded.search(query, 7) == index.search(query, 7)
    loaded.save(tmp_path / "again.faiss")
    assert (tmp_path / "again.faiss").read_bytes() == path.read_bytes()
    assert (tmp_path / "again.faiss.ids.json").read_bytes() == (tmp_path / f"{kind}.faiss.ids.json").read_bytes()


@requires_faiss
def test_faiss_load_checks_consistency(tmp_path: Path) -> None:
    index = FaissVectorIndex()
    index.add(["a", "b", "c"], [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    path = tmp_path / "v.faiss"
    sidecar_path = tmp_path / "v.faiss.ids.json"
    index.save(path)
    original = json.loads(sidecar_path.read_bytes())

    def rewrite(**changes: object) -> None:
        sidecar_path.write_text(json.dumps({**original, **changes}), encoding="utf-8")

    rewrite(ids=["a", "b"])
    with pytest.raises(InputError, match="holds 3 vectors, but .* lists 2 ids") as caught:
        FaissVectorIndex.load(path)
    assert str(path) in str(caught.value)
    rewrite(kind="hnsw")
    with pytest.raises(InputError, match="IndexFlatL2, but .* says kind 'hnsw'"):
        FaissVectorIndex.load(path)
    rewrite(dimension=3)
    with pytest.raises(InputError, match="dimension 2, but"):
        FaissVectorIndex.load(path)
    rewrite(ids=["a", "a", "b"])
    with pytest.raises(InputError, match="duplicate ids"):
        FaissVectorIndex.load(path)
    rewrite(index_sha256="0" * 64)
    with pytest.raises(InputError, match="does not match the SHA-256"):
        FaissVectorIndex.load(path)
    path.write_bytes(b"garbage, not an index")
    import hashlib

    rewrite(index_sha256=hashlib.sha256(b"garbage, not an index").hexdigest())
    with pytest.raises(InputError, match="not a readable FAISS index"):
        FaissVectorIndex.load(path)
    sidecar_path.unlink()
    with pytest.raises(InputError, match="file not found") as caught:
        FaissVectorIndex.load(path)
    assert str(sidecar_path) in str(caught.value)


@requires_faiss
def test_empty_faiss_index_cannot_be_saved(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="empty"):
        FaissVectorIndex().save(tmp_path / "empty.faiss")


@requires_faiss
def test_hnsw_returns_k_hits_and_finds_well_separated_neighbours() -> None:
    generator = random.Random(3)
    dimension = 8
    ids, vectors = [], []
    for cluster in range(20):  # 20 clusters of 5 points, centres 100 apart, spread ±1
        centre = [100.0 * cluster if axis == cluster % dimension else 0.0 for axis in range(dimension)]
        centre[(cluster + 1) % dimension] += 100.0 * (cluster // dimension)
        for member in range(5):
            ids.append(f"c{cluster:02d}-{member}")
            vectors.append([value + generator.uniform(-1, 1) for value in centre])
    hnsw, exact = FaissVectorIndex("hnsw", hnsw_neighbors=8), ExactVectorIndex()
    hnsw.add(ids, vectors)
    exact.add(ids, vectors)
    for position in range(0, len(ids), 7):
        query = [value + 0.01 for value in vectors[position]]
        found = hnsw.search(query, 10)
        assert len(found) == 10
        assert [hit.rank for hit in found] == list(range(1, 11))
        assert [(hit.distance, hit.id) for hit in found] == sorted((hit.distance, hit.id) for hit in found)
        assert found[0].id == exact.search(query, 1)[0].id == ids[position]


@requires_faiss
def test_hnsw_build_is_reproducible(tmp_path: Path) -> None:
    generator = random.Random(5)
    ids = [f"v{number}" for number in range(300)]
    vectors = [[generator.uniform(-1, 1) for _ in range(12)] for _ in ids]
    for name in ("one.faiss", "two.faiss"):
        index = FaissVectorIndex("hnsw", hnsw_neighbors=8)
        index.add(ids, vectors)
        index.save(tmp_path / name)
    assert (tmp_path / "one.faiss").read_bytes() == (tmp_path / "two.faiss").read_bytes()


def test_missing_faiss_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "faiss", None)
    with pytest.raises(MissingExtraError) as caught:
        FaissVectorIndex()
    assert caught.value.library == "faiss-cpu"
    assert "pip install 'regrag[faiss]'" in str(caught.value)
