"""Audit support: canonical forms and hashes (golden files and ledger come later)."""

from regrag.audit.canonical import canonical_bytes, canonical_json, sha256_hex

__all__ = ["canonical_bytes", "canonical_json", "sha256_hex"]
