"""A Merkle tree over a corpus's documents, and inclusion proofs into it.

The tree follows RFC 6962 / RFC 9162 (Certificate Transparency): leaves and
interior nodes are hashed with different one-byte prefixes (0x00 and 0x01), so
no leaf can be passed off as a node or the other way round, and a tree of n
leaves is split at the largest power of two smaller than n. Its root commits
to the exact set of (document id, content hash) pairs of a corpus; an
inclusion proof shows that one document, with one content hash, is in the
corpus with that root, using about log2(n) hashes and without the other
documents. ``docs/merkle.md`` gives the byte-level definitions.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from regrag.audit.canonical import JsonRecord, canonical_bytes
from regrag.errors import InputError
from regrag.io.digests import is_sha256_hex
from regrag.validation import is_int

LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"
EMPTY_ROOT = hashlib.sha256(b"").hexdigest()
MAX_TREE_SIZE = 2**64 - 1  # RFC 9162 sizes and indices are uint64

_PROOF_FIELDS = ("content_hash", "document_id", "leaf_index", "path", "root", "tree_size")


def leaf_hash(document_id: str, content_hash: str) -> bytes:
    """SHA-256 of 0x00 followed by the canonical JSON of ``[document_id, content_hash]``."""
    return hashlib.sha256(LEAF_PREFIX + canonical_bytes([document_id, content_hash])).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256 of 0x01 followed by the two child hashes, left first."""
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def merkle_root(leaves: Sequence[tuple[str, str]]) -> str:
    """The root (hex) of the tree over ``(document id, content hash)`` pairs.

    The pairs must be sorted by document id, strictly ascending (code points),
    so that one corpus has exactly one root. No pairs: SHA-256 of b"" (RFC 9162).
    """
    level = _leaf_hashes(leaves)
    if not level:
        return EMPTY_ROOT
    while len(level) > 1:
        level = _next_level(level)
    return level[0].hex()


@dataclass(frozen=True)
class InclusionProof(JsonRecord):
    """Evidence that one document (id and content hash) is leaf ``leaf_index`` of a tree.

    ``path`` is the RFC 9162 audit path: the sibling hashes (hex) met going from
    the leaf up to the root, nearest first; ``root`` is the tree's root (hex).
    """

    document_id: str
    content_hash: str
    leaf_index: int
    tree_size: int
    path: tuple[str, ...]
    root: str

    @classmethod
    def from_dict(cls, data: object) -> InclusionProof:
        """The proof described by ``data`` (as ``to_dict`` writes it), checked field by field.

        Raises ``InputError`` naming the first problem found; the check is on
        form only, so a well-formed but wrong proof loads and fails ``verify_inclusion``.
        """
        if not isinstance(data, Mapping):
            raise InputError(f"an inclusion proof must be a JSON object, not {type(data).__name__}")
        missing = [name for name in _PROOF_FIELDS if name not in data]
        if missing:
            raise InputError(f"inclusion proof is missing field(s): {', '.join(missing)}")
        unknown = sorted(repr(key) for key in data if key not in _PROOF_FIELDS)
        if unknown:
            raise InputError(f"inclusion proof has unknown field(s): {', '.join(unknown)}")
        path = data["path"]
        problem = _shape_problem(
            data["document_id"], data["content_hash"], data["leaf_index"], data["tree_size"], path, data["root"]
        )
        if problem is not None:
            raise InputError(f"malformed inclusion proof: {problem}")
        return cls(
            document_id=data["document_id"],
            content_hash=data["content_hash"],
            leaf_index=data["leaf_index"],
            tree_size=data["tree_size"],
            path=tuple(path),
            root=data["root"],
        )


def inclusion_proof(leaves: Sequence[tuple[str, str]], document_id: str) -> InclusionProof:
    """The proof that ``document_id`` (with its content hash) is in the tree over ``leaves``.

    ``leaves`` are as for ``merkle_root``; ``InputError`` if the id is not among them.
    """
    if not isinstance(document_id, str):
        raise InputError(f"a document id must be a string, not {type(document_id).__name__}")
    level = _leaf_hashes(leaves)
    index = bisect_left(leaves, document_id, key=lambda pair: pair[0])
    if index == len(leaves) or leaves[index][0] != document_id:
        raise InputError(f"document id {document_id!r} is not in the corpus")
    leaf_index = index
    path: list[str] = []
    while len(level) > 1:
        sibling = index ^ 1
        if sibling < len(level):  # otherwise this node is the odd last one, carried up as is
            path.append(level[sibling].hex())
        level = _next_level(level)
        index //= 2
    return InclusionProof(
        document_id=document_id,
        content_hash=leaves[leaf_index][1],
        leaf_index=leaf_index,
        tree_size=len(leaves),
        path=tuple(path),
        root=level[0].hex(),
    )


def verify_inclusion(proof: InclusionProof, expected_root: str | None = None) -> bool:
    """Whether ``proof`` holds: its leaf and path give ``proof.root`` (and ``expected_root``, if given).

    The root is recomputed with RFC 9162 section 2.1.3.2. Anything wrong,
    including a malformed proof or a path of the wrong length, gives False.
    """
    if not isinstance(proof, InclusionProof):
        return False
    if _shape_problem(proof.document_id, proof.content_hash, proof.leaf_index, proof.tree_size, proof.path, proof.root):
        return False
    if expected_root is not None and expected_root != proof.root:
        return False
    computed = _root_from_audit_path(
        leaf_hash(proof.document_id, proof.content_hash),
        proof.leaf_index,
        proof.tree_size,
        [bytes.fromhex(sibling) for sibling in proof.path],
    )
    return computed is not None and computed.hex() == proof.root


def _leaf_hashes(leaves: Sequence[tuple[str, str]]) -> list[bytes]:
    """The leaf hashes, in order, after checking every pair and the strict id order."""
    hashes: list[bytes] = []
    previous_id: str | None = None
    for position, pair in enumerate(leaves):
        if not (
            isinstance(pair, (tuple, list))
            and len(pair) == 2
            and isinstance(pair[0], str)
            and isinstance(pair[1], str)
        ):
            raise InputError(f"merkle leaf {position} must be a (document id, content hash) pair of strings, not {_brief(pair)}")
        document_id, content_hash = pair
        if not is_sha256_hex(content_hash):
            raise InputError(
                f"merkle leaf {position} ({document_id!r}): content hash must be 64 lowercase hex digits, not {_brief(content_hash)}"
            )
        if previous_id is not None and document_id <= previous_id:
            what = "duplicate document id" if document_id == previous_id else "document ids out of order:"
            raise InputError(
                f"merkle leaves must be sorted by document id, strictly ascending; {what} "
                f"{document_id!r} at position {position} after {previous_id!r}"
            )
        try:
            hashes.append(leaf_hash(document_id, content_hash))
        except UnicodeEncodeError:  # a lone surrogate: no UTF-8, so no canonical bytes
            raise InputError(f"merkle leaf {position}: document id {document_id!r} is not encodable as UTF-8") from None
        previous_id = document_id
    return hashes


def _next_level(level: list[bytes]) -> list[bytes]:
    """One level up: pair nodes left to right; an odd last node is carried up unchanged.

    Folding level by level this way builds exactly RFC 6962's tree (split at
    the largest power of two below n), without recursion.
    """
    parents = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
    if len(level) % 2:
        parents.append(level[-1])
    return parents


def _root_from_audit_path(leaf: bytes, leaf_index: int, tree_size: int, path: Sequence[bytes]) -> bytes | None:
    """The root that ``path`` leads to from ``leaf`` (RFC 9162 2.1.3.2), or None if the path cannot fit."""
    if not 0 <= leaf_index < tree_size:
        return None
    index, last_index = leaf_index, tree_size - 1  # the RFC's fn and sn
    node = leaf
    for sibling in path:
        if last_index == 0:  # already at the root: the path is too long
            return None
        if index & 1 or index == last_index:
            node = node_hash(sibling, node)
            # A right-edge node with no sibling is carried up: skip those levels.
            while index and not index & 1:
                index >>= 1
                last_index >>= 1
        else:
            node = node_hash(node, sibling)
        index >>= 1
        last_index >>= 1
    if last_index != 0:  # not yet at the root: the path is too short
        return None
    return node


def _shape_problem(
    document_id: object, content_hash: object, leaf_index: object, tree_size: object, path: object, root: object
) -> str | None:
    """What is malformed in these proof fields (types, hex shape, ranges), or None if nothing is."""
    if not isinstance(document_id, str):
        return f"document_id must be a string, not {type(document_id).__name__}"
    if not _is_utf8_encodable(document_id):
        return f"document_id {document_id!r} is not encodable as UTF-8"
    for name, value in (("content_hash", content_hash), ("root", root)):
        if not is_sha256_hex(value):
            return f"{name} must be 64 lowercase hex digits, not {_brief(value)}"
    for name, value in (("leaf_index", leaf_index), ("tree_size", tree_size)):
        if not _is_uint64(value):
            return f"{name} must be an integer from 0 to 2**64 - 1, not {_brief(value)}"
    if not (isinstance(leaf_index, int) and isinstance(tree_size, int) and leaf_index < tree_size):
        return f"leaf_index ({leaf_index}) must be less than tree_size ({tree_size})"
    if not isinstance(path, (list, tuple)):
        return f"path must be a list of hashes, not {type(path).__name__}"
    for position, sibling in enumerate(path):
        if not is_sha256_hex(sibling):
            return f"path[{position}] must be 64 lowercase hex digits, not {_brief(sibling)}"
    return None


def _is_uint64(value: object) -> bool:
    """Whether ``value`` is an int (not a bool) in RFC 9162's uint64 range."""
    return is_int(value) and 0 <= value <= MAX_TREE_SIZE


def _brief(value: object) -> str:
    """``repr(value)``, cut short so that an error message stays one readable line."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_utf8_encodable(text: str) -> bool:
    """False for strings holding lone surrogates, which have no UTF-8 (and so no canonical) bytes."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
