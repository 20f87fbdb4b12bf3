"""Bearer tokens and principals for ``regrag serve --auth FILE``.

The token file is JSON (docs/serve.md, "Authentication")::

    {"principals": [{"name": "alice", "groups": ["research"], "ledger": false,
                     "token_sha256": "<64 hex digits>"}]}

Only the SHA-256 of each token is stored (tokens are 32 random bytes, so a
plain hash is as strong as a slow one: nothing to guess). A presented token
is hashed and compared with **every** stored hash by ``hmac.compare_digest``,
so the time taken does not depend on which entry (if any) matched or on how
many leading characters agree.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from regrag.errors import InputError

ALL_GROUPS = "*"  # a principal in this group reads every document
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_GROUP = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$|^\*$")
_NAME = re.compile(r"^[A-Za-z0-9_.@:-]{1,128}$")
MAX_TOKEN_FILE_BYTES = 16 * 1024 * 1024
MAX_TOKEN_CHARACTERS = 512


@dataclass(frozen=True)
class Principal:
    """Who made a request: a name, the access groups it reads, and whether
    it may browse the ledger."""

    name: str
    groups: tuple[str, ...]
    ledger: bool = False

    @property
    def reads_everything(self) -> bool:
        return ALL_GROUPS in self.groups

    def to_dict(self) -> dict[str, Any]:
        return {"groups": list(self.groups), "ledger": self.ledger, "name": self.name}


# Without --auth the server is on loopback only and every caller is this one.
ANONYMOUS = Principal("anonymous", (ALL_GROUPS,), ledger=True)


def hash_token(token: str) -> str:
    """The hex SHA-256 of a token's UTF-8 bytes (what the token file stores)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh random token (256 bits, URL-safe text)."""
    return secrets.token_urlsafe(32)


def token_entry(name: str, groups: list[str], ledger: bool, token: str) -> dict[str, Any]:
    """The token file entry for ``token`` (what ``regrag serve --new-token`` prints)."""
    entry = {"groups": sorted(set(groups)), "ledger": ledger, "name": name, "token_sha256": hash_token(token)}
    _check_entry(entry, "the new token")
    return entry


class TokenTable:
    """Stored token hashes mapped to principals."""

    def __init__(self, entries: list[tuple[bytes, Principal]]) -> None:
        self._entries = entries

    @classmethod
    def load(cls, path: str | Path) -> "TokenTable":
        """Read and check a token file (``InputError`` naming the file and entry)."""
        path = Path(path)
        try:
            with open(path, "rb") as handle:
                raw = handle.read(MAX_TOKEN_FILE_BYTES + 1)
        except OSError as error:
            raise InputError(f"{path}: cannot read the token file ({error.strerror or error})") from None
        if len(raw) > MAX_TOKEN_FILE_BYTES:
            raise InputError(f"{path}: the token file is larger than {MAX_TOKEN_FILE_BYTES:,} bytes")
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise InputError(f"{path}: not a JSON token file ({error})") from None
        if not isinstance(data, dict) or set(data) != {"principals"} or not isinstance(data["principals"], list):
            raise InputError(f"{path}: expected {{\"principals\": [...]}} (docs/serve.md)")
        entries: list[tuple[bytes, Principal]] = []
        seen_names: set[str] = set()
        seen_hashes: set[str] = set()
        for number, entry in enumerate(data["principals"], start=1):
            where = f"{path}: principal {number}"
            _check_entry(entry, where)
            if entry["name"] in seen_names:
                raise InputError(f"{where}: the name {entry['name']!r} is used twice")
            if entry["token_sha256"] in seen_hashes:
                raise InputError(f"{where}: the same token is given to two principals")
            seen_names.add(entry["name"])
            seen_hashes.add(entry["token_sha256"])
            principal = Principal(entry["name"], tuple(sorted(set(entry["groups"]))), bool(entry.get("ledger", False)))
            entries.append((bytes.fromhex(entry["token_sha256"]), principal))
        return cls(entries)

    def __len__(self) -> int:
        return len(self._entries)

    def principal_for(self, token: str) -> Principal | None:
        """The principal holding ``token``, or None. Every entry is compared."""
        if not token or len(token) > MAX_TOKEN_CHARACTERS:
            return None
        presented = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        found = None
        for stored, principal in self._entries:
            if hmac.compare_digest(stored, presented):
                found = principal
        return found


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, else None."""
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    token = token.strip()
    return token or None


def _check_entry(entry: Any, where: str) -> None:
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected an object with name, groups, token_sha256")
    extra = set(entry) - {"name", "groups", "ledger", "token_sha256"}
    if extra:
        raise InputError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
    name = entry.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise InputError(f"{where}: name must be 1-128 characters of A-Z a-z 0-9 _ . @ : -, got {name!r}")
    groups = entry.get("groups")
    if not isinstance(groups, list) or not all(isinstance(g, str) and _GROUP.match(g) for g in groups):
        raise InputError(f"{where}: groups must be a list of group names (1-64 characters of A-Z a-z 0-9 _ . : -, "
                         f"or \"*\" for every document), got {groups!r}")
    if not isinstance(entry.get("ledger", False), bool):
        raise InputError(f"{where}: ledger must be true or false")
    digest = entry.get("token_sha256")
    if not isinstance(digest, str) or not _HEX64.match(digest):
        raise InputError(f"{where}: token_sha256 must be 64 lowercase hex digits (the SHA-256 of the token; "
                         "never the token itself)")
