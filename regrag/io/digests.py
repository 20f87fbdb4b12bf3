"""The shape of a SHA-256 digest as regrag writes it in files (manifests,
``CURRENT``, ledgers, golden files, Merkle proofs): 64 lowercase hex digits."""

from __future__ import annotations

import re

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def is_sha256_hex(value: object) -> bool:
    """Whether ``value`` is a str of exactly 64 lowercase hex digits."""
    return isinstance(value, str) and _SHA256_HEX.fullmatch(value) is not None
