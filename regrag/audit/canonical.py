"""Canonical serialisation: the one byte form of anything hashed or compared.

JSON with sorted keys, fixed separators, UTF-8, no NaN/Infinity, floats as
``repr`` (shortest round-trip form, which ``json`` uses).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value``."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def canonical_bytes(value: Any) -> bytes:
    """The canonical JSON of ``value`` encoded as UTF-8."""
    return canonical_json(value).encode("utf-8")


def sha256_hex(value: Any) -> str:
    """SHA-256 (hex) of the canonical bytes of ``value``."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()
