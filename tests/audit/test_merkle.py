"""The corpus Merkle tree: exact roots, the RFC 6962 shape, inclusion proofs and their JSON."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from regrag.audit.canonical import canonical_json
from regrag.audit.merkle import (
    InclusionProof,
    inclusion_proof,
    leaf_hash,
    merkle_root,
    node_hash,
    verify_inclusion,
)
from regrag.errors import InputError


def content_hash_of(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def leaves_for(document_ids: list[str]) -> list[tuple[str, str]]:
    """(id, content hash) pairs, sorted by id, each content hash derived from its id."""
    return [(document_id, content_hash_of("content of " + document_id)) for document_id in sorted(document_ids)]


def numbered_leaves(count: int) -> list[tuple[str, str]]:
    return leaves_for([f"doc-{number:03d}.md" for number in range(count)])


# Hand composition with hashlib alone: the leaf's canonical JSON bytes are written out.
def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def hand_leaf(document_id: str, content_hash: str) -> bytes:
    return sha256(b"\x00" + f'["{document_id}","{content_hash}"]'.encode("utf-8"))


def hand_node(left: bytes, right: bytes) -> bytes:
    return sha256(b"\x01" + left + right)


# A straightforward recursive reading of RFC 9162 2.1.1 (MTH) and 2.1.3.1 (PATH).
def largest_power_of_two_below(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def reference_root(hashes: list[bytes]) -> bytes:
    if len(hashes) == 1:
        return hashes[0]
    k = largest_power_of_two_below(len(hashes))
    return node_hash(reference_root(hashes[:k]), reference_root(hashes[k:]))


def reference_path(m: int, hashes: list[bytes]) -> list[bytes]:
    if len(hashes) == 1:
        return []
    k = largest_power_of_two_below(len(hashes))
    if m < k:
        return reference_path(m, hashes[:k]) + [reference_root(hashes[k:])]
    return reference_path(m - k, hashes[k:]) + [reference_root(hashes[:k])]


def reference_sides(m: int, n: int) -> list[str]:
    """For leaf m of n, which side each audit-path sibling is on, from the leaf up."""
    if n == 1:
        return []
    k = largest_power_of_two_below(n)
    if m < k:
        return reference_sides(m, k) + ["right"]
    return reference_sides(m - k, n - k) + ["left"]


A = ("a.md", content_hash_of("alpha"))
B = ("b.md", content_hash_of("beta"))
C = ("c.md", content_hash_of("gamma"))
D = ("d.md", content_hash_of("delta"))
E = ("e.md", content_hash_of("epsilon"))


# ---------------------------------------------------------------------------
# hashes and exact roots


def test_leaf_hash_is_prefixed_canonical_json_bytes():
    assert leaf_hash(*A) == hand_leaf(*A)
    # canonical JSON keeps non-ASCII as raw UTF-8, never \u escapes
    assert leaf_hash("报告/Báo cáo.md", A[1]) == sha256(b"\x00" + '["报告/Báo cáo.md","{}"]'.format(A[1]).encode("utf-8"))
    assert leaf_hash('quote"and\\slash', A[1]) == sha256(b"\x00" + b'["quote\\"and\\\\slash","' + A[1].encode() + b'"]')


def test_node_hash_is_prefixed_concatenation():
    left, right = hand_leaf(*A), hand_leaf(*B)
    assert node_hash(left, right) == sha256(b"\x01" + left + right)
    assert node_hash(left, right) != node_hash(right, left)


def test_empty_root_is_sha256_of_nothing():
    assert merkle_root([]) == hashlib.sha256(b"").hexdigest()
    assert merkle_root([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_roots_of_small_trees_by_hand():
    a, b, c, d, e = (hand_leaf(*pair) for pair in (A, B, C, D, E))
    assert merkle_root([A]) == a.hex()
    assert merkle_root([A, B]) == hand_node(a, b).hex()
    assert merkle_root([A, B, C]) == hand_node(hand_node(a, b), c).hex()
    assert merkle_root([A, B, C, D, E]) == hand_node(hand_node(hand_node(a, b), hand_node(c, d)), e).hex()


def test_regression_anchors():
    # computed once and checked against the hand composition above; must never change
    assert merkle_root([A]) == "40867f0db34331afa44e64a3bb9539db637a3cfbe9c5313417e62b716e89e653"
    assert merkle_root([A, B, C]) == "7df4b6005d1e7795b88824f87a9a83d52f47828613e8d2cbcc9224d8d83a8358"


def test_level_fold_equals_recursive_rfc_shape():
    for size in range(1, 71):
        leaves = numbered_leaves(size)
        hashes = [leaf_hash(*pair) for pair in leaves]
        root = reference_root(hashes)
        assert merkle_root(leaves) == root.hex(), size
        # every leaf of the smaller trees; a spread of leaves (both edges included) of the larger
        indices = range(size) if size <= 40 else [*range(0, size, 7), *range(size - 3, size)]
        for index in indices:
            proof = inclusion_proof(leaves, leaves[index][0])
            assert proof.leaf_index == index and proof.tree_size == size and proof.root == root.hex()
            assert proof.path == tuple(h.hex() for h in reference_path(index, hashes)), (size, index)
            assert verify_inclusion(proof, root.hex())


# ---------------------------------------------------------------------------
# input checks


@pytest.mark.parametrize(
    "leaves, message",
    [
        ([B, A], "out of order"),
        ([A, C, B], "out of order"),
        ([A, A], "duplicate document id"),
        ([A, B, ("b.md", C[1])], "duplicate document id"),
        ([("a.md", "ABC")], "64 lowercase hex"),
        ([("a.md", A[1].upper())], "64 lowercase hex"),
        ([("a.md",)], "pair of strings"),
        ([("a.md", 3)], "pair of strings"),
        (["a.md"], "pair of strings"),
        ([("\ud800", A[1])], "UTF-8"),
    ],
)
def test_bad_leaves_raise_input_error(leaves, message):
    with pytest.raises(InputError, match=message):
        merkle_root(leaves)
    with pytest.raises(InputError, match=message):
        inclusion_proof(leaves, "a.md")


def test_order_is_by_code_point():
    merkle_root([("B", A[1]), ("a", B[1]), ("é", C[1]), ("报", D[1])])
    with pytest.raises(InputError):
        merkle_root([("a", A[1]), ("B", B[1])])


def test_proof_of_absent_id_raises_input_error():
    with pytest.raises(InputError, match="not in the corpus"):
        inclusion_proof([A, B, C], "bb.md")
    with pytest.raises(InputError, match="not in the corpus"):
        inclusion_proof([], "a.md")


# ---------------------------------------------------------------------------
# proofs: every leaf verifies, and the JSON round trip is exact

document_ids = st.lists(
    st.text(alphabet=st.sampled_from("ab.-/ éệ报告金🙂") | st.characters(codec="utf-8"), max_size=6),
    min_size=1,
    max_size=24,
    unique=True,
)


@settings(max_examples=100)
@given(document_ids)
@example(["báo-cáo.md", "报告.md", "🙂", ""])
def test_every_proof_verifies_and_round_trips(ids):
    leaves = leaves_for(ids)
    root = merkle_root(leaves)
    for index, (document_id, content_hash) in enumerate(leaves):
        proof = inclusion_proof(leaves, document_id)
        assert (proof.document_id, proof.content_hash, proof.leaf_index, proof.tree_size, proof.root) == (
            document_id,
            content_hash,
            index,
            len(leaves),
            root,
        )
        assert len(proof.path) <= (len(leaves) - 1).bit_length()
        assert verify_inclusion(proof) and verify_inclusion(proof, root)
        text = canonical_json(proof.to_dict())
        loaded = InclusionProof.from_dict(json.loads(text))
        assert loaded == proof
        assert canonical_json(loaded.to_dict()) == text


def test_proof_json_is_canonical():
    proof = inclusion_proof([A, B, C], "c.md")
    assert canonical_json(proof.to_dict()) == (
        '{"content_hash":"' + C[1] + '","document_id":"c.md","leaf_index":2,'
        '"path":["' + hand_node(hand_leaf(*A), hand_leaf(*B)).hex() + '"],'
        '"root":"7df4b6005d1e7795b88824f87a9a83d52f47828613e8d2cbcc9224d8d83a8358","tree_size":3}'
    )


# ---------------------------------------------------------------------------
# tampering: any change to what the proof claims makes it fail


def flip_first_digit(hex_text: str) -> str:
    return ("1" if hex_text[0] == "0" else "0") + hex_text[1:]


TAMPER_SIZES = [1, 2, 3, 5, 8, 11]


@pytest.mark.parametrize("size", TAMPER_SIZES)
def test_tampered_proofs_fail(size):
    leaves = numbered_leaves(size)
    other_root = merkle_root(numbered_leaves(size + 1))
    for document_id, _content_hash in leaves:
        proof = inclusion_proof(leaves, document_id)
        replace = dataclasses.replace
        tampered = [
            replace(proof, content_hash=content_hash_of("something else")),
            replace(proof, content_hash=flip_first_digit(proof.content_hash)),
            replace(proof, document_id=document_id + "x"),
            replace(proof, document_id="zzz.md"),
            replace(proof, root=other_root),
            replace(proof, root=flip_first_digit(proof.root)),
            replace(proof, path=proof.path + (proof.root,)),
            replace(proof, path=proof.path + (content_hash_of("extra"),)),
        ]
        for position in range(len(proof.path)):
            flipped = list(proof.path)
            flipped[position] = flip_first_digit(flipped[position])
            tampered.append(replace(proof, path=tuple(flipped)))
        if proof.path:
            tampered += [replace(proof, path=proof.path[:-1]), replace(proof, path=proof.path[1:])]
        if len(proof.path) > 1:
            tampered.append(replace(proof, path=proof.path[::-1]))
        tampered += [replace(proof, leaf_index=other) for other in range(size) if other != proof.leaf_index]
        for bad in tampered:
            assert not verify_inclusion(bad), bad
        assert not verify_inclusion(proof, other_root)
        assert not verify_inclusion(proof, proof.root.upper())


@pytest.mark.parametrize("size", TAMPER_SIZES)
def test_wrong_tree_size_fails_whenever_it_changes_the_path_shape(size):
    """The root does not commit to the tree size (RFC 9162 binds it in the signed tree head):
    another size verifies exactly when it gives the leaf the same audit-path shape."""
    leaves = numbered_leaves(size)
    failures = 0
    for document_id, _content_hash in leaves:
        proof = inclusion_proof(leaves, document_id)
        for other_size in range(proof.leaf_index + 1, 2 * size + 3):
            if other_size == size:
                continue
            same_shape = reference_sides(proof.leaf_index, other_size) == reference_sides(proof.leaf_index, size)
            assert verify_inclusion(dataclasses.replace(proof, tree_size=other_size)) == same_shape
            failures += not same_shape
    assert failures > 0


def test_known_limit_tree_size_is_not_in_the_root():
    proof = inclusion_proof(numbered_leaves(5), "doc-000.md")
    assert verify_inclusion(dataclasses.replace(proof, tree_size=6))  # same shape for leaf 0
    assert not verify_inclusion(dataclasses.replace(proof, tree_size=9))  # one level more


@pytest.mark.parametrize(
    "change",
    [
        {"leaf_index": -1},
        {"leaf_index": 3},
        {"leaf_index": True},
        {"tree_size": 0},
        {"tree_size": 2**64},
        {"tree_size": "3"},
        {"root": "not hex"},
        {"root": None},
        {"path": ("ab",)},
        {"path": "abc"},
        {"document_id": 7},
        {"document_id": "\udc80"},
        {"content_hash": ""},
    ],
)
def test_malformed_proof_objects_fail_without_raising(change):
    proof = dataclasses.replace(inclusion_proof([A, B, C], "b.md"), **change)
    assert verify_inclusion(proof) is False


def test_verify_rejects_non_proofs():
    assert verify_inclusion(inclusion_proof([A, B, C], "b.md").to_dict()) is False  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# from_dict: malformed data is an InputError naming the problem

GOOD = inclusion_proof([A, B, C, D, E], "c.md").to_dict()


def with_field(name: str, value: object) -> dict:
    data = dict(GOOD)
    data[name] = value
    return data


def without_field(name: str) -> dict:
    data = dict(GOOD)
    del data[name]
    return data


@pytest.mark.parametrize(
    "data, message",
    [
        ([GOOD], "JSON object"),
        ("{}", "JSON object"),
        (None, "JSON object"),
        (without_field("root"), "missing field.*root"),
        (without_field("path"), "missing field.*path"),
        ({}, "missing field"),
        (with_field("extra", 1), "unknown field.*'extra'"),
        ({**GOOD, 1: 2}, "unknown field"),
        (with_field("document_id", None), "document_id must be a string"),
        (with_field("document_id", ["c.md"]), "document_id must be a string"),
        (with_field("document_id", "\ud800"), "UTF-8"),
        (with_field("content_hash", GOOD["content_hash"].upper()), "content_hash must be 64 lowercase hex"),
        (with_field("content_hash", GOOD["content_hash"][:-1]), "content_hash must be 64 lowercase hex"),
        (with_field("content_hash", "g" * 64), "content_hash must be 64 lowercase hex"),
        (with_field("content_hash", 12), "content_hash must be 64 lowercase hex"),
        (with_field("root", GOOD["root"] + "0"), "root must be 64 lowercase hex"),
        (with_field("root", " " + GOOD["root"][1:]), "root must be 64 lowercase hex"),
        (with_field("root", GOOD["root"][:-1] + "\n"), "root must be 64 lowercase hex"),
        (with_field("leaf_index", -1), "leaf_index must be an integer from 0"),
        (with_field("leaf_index", 2.0), "leaf_index must be an integer"),
        (with_field("leaf_index", "2"), "leaf_index must be an integer"),
        (with_field("leaf_index", True), "leaf_index must be an integer"),
        (with_field("leaf_index", 5), r"leaf_index \(5\) must be less than tree_size \(5\)"),
        (with_field("tree_size", 0), "must be less than tree_size"),
        (with_field("tree_size", 2**64), "tree_size must be an integer from 0 to 2\\*\\*64 - 1"),
        (with_field("tree_size", None), "tree_size must be an integer"),
        (with_field("path", None), "path must be a list"),
        (with_field("path", GOOD["path"][0]), "path must be a list"),
        (with_field("path", {"0": GOOD["path"][0]}), "path must be a list"),
        (with_field("path", [GOOD["path"][0], 5]), r"path\[1\] must be 64 lowercase hex"),
        (with_field("path", [GOOD["path"][0], "ab" * 40]), r"path\[1\] must be 64 lowercase hex"),
    ],
)
def test_from_dict_rejects_malformed_data(data, message):
    with pytest.raises(InputError, match=message):
        InclusionProof.from_dict(data)


def test_from_dict_accepts_well_formed_but_wrong_proofs():
    """Form is checked on loading; truth is checked by verify_inclusion."""
    proof = InclusionProof.from_dict(with_field("path", []))
    assert proof.path == () and not verify_inclusion(proof)
    assert verify_inclusion(InclusionProof.from_dict(GOOD))


def test_error_messages_stay_short():
    with pytest.raises(InputError) as caught:
        InclusionProof.from_dict(with_field("root", "x" * 10_000))
    assert len(str(caught.value)) < 200
