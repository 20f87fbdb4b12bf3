"""SHA-256 digests of files, and the shape regrag writes them in (manifests,
``CURRENT``, ledgers, golden files, Merkle proofs): 64 lowercase hex digits."""

from __future__ import annotations

import hashlib
import re
from typing import BinaryIO

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_BLOCK = 1 << 20


def is_sha256_hex(value: object) -> bool:
    """Whether ``value`` is a str of exactly 64 lowercase hex digits."""
    return isinstance(value, str) and _SHA256_HEX.fullmatch(value) is not None


def sha256_of_file(handle: BinaryIO) -> str:
    """SHA-256 (hex) of an open file from where it stands to its end, read in
    1 MiB blocks, no copy held (``hashlib.file_digest`` does the same but
    needs Python 3.11; regrag supports 3.10)."""
    digest = hashlib.sha256()
    while True:
        block = handle.read(_BLOCK)
        if not block:
            return digest.hexdigest()
        digest.update(block)
