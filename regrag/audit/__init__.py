"""Audit support: canonical forms and hashes, golden files, the ledger and its replay, Merkle proofs."""

from regrag.audit.canonical import canonical_bytes, canonical_json, sha256_hex

__all__ = ["canonical_bytes", "canonical_json", "sha256_hex"]
