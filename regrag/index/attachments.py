"""Files a generation carries beside its lexical index: listed and
checksummed in its ``manifest.json``, checked by ``regrag verify``, pruned
with the generation (docs/index-format.md, "Attached files").

An attachment is any file of a generation below a folder of its own (today
``dense/``: the quantised passage vectors of ``regrag.dense``). The manifest
lists it under ``attachments``: its name within the generation, its size in
``bytes`` and its ``sha256``. The key is absent when nothing is attached, so
a generation without attachments is byte for byte what it was before; the
index id never covers attachments (what they mean is the attaching layer's
business: the dense index id covers the vectors), and a rebuild of the
stored documents gives the lexical files and the manifest without the key.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from regrag.errors import CorruptIndexError

KEY = "attachments"
# One folder of lowercase letters, then a file name: nothing that could climb out of the generation.
_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}/[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_RESERVED_FOLDERS = frozenset({"segments"})
_COMPUTED_FOLDERS = frozenset({"entities"})  # written by every publish itself (entity_files), never given by a caller


def entries(attached: dict[str, bytes]) -> dict[str, dict[str, Any]]:
    """The manifest entry of ``attached`` (name -> bytes)."""
    return {name: {"bytes": len(blob), "sha256": hashlib.sha256(blob).hexdigest()} for name, blob in sorted(attached.items())}


def amended_manifest(manifest: bytes, listed: dict[str, dict[str, Any]]) -> bytes:
    """``manifest`` (bytes as ``codec`` writes them) with ``listed`` under ``attachments``, in the same JSON
    form (sorted keys, one-space indent, floats as ``repr``: a parse and a dump give the same bytes)."""
    if not listed:
        return manifest
    parsed = json.loads(manifest.decode("utf-8"))
    parsed[KEY] = listed
    return (json.dumps(parsed, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def attach(files: dict[str, bytes], attached: dict[str, bytes], manifest_name: str = "manifest.json") -> dict[str, bytes]:
    """A new generation's ``files`` with ``attached`` added and listed in its manifest."""
    if not attached:
        return files
    for name in attached:
        if not _NAME.match(name) or name.split("/", 1)[0] in _RESERVED_FOLDERS | _COMPUTED_FOLDERS or name in files:
            raise ValueError(f"not a name an attachment may have: {name!r}")
    combined = dict(files)
    combined.update(attached)
    combined[manifest_name] = amended_manifest(files[manifest_name], entries(attached))
    return combined


def without(manifest: dict[str, Any]) -> dict[str, Any]:
    """The manifest without its ``attachments`` (what the lexical checks see)."""
    return {key: value for key, value in manifest.items() if key != KEY}


def checked(manifest: dict[str, Any], check) -> str | None:
    """Why the manifest is malformed: its ``attachments``, or what ``check`` finds in the rest."""
    return problem(manifest) or check(without(manifest))


def problem(manifest: dict[str, Any]) -> str | None:
    """Why the manifest's ``attachments`` are malformed, or None (also when there are none)."""
    if KEY not in manifest:
        return None
    listed = manifest[KEY]
    if not isinstance(listed, dict) or not listed:
        return "malformed attachments (not a non-empty object)"
    for name, entry in listed.items():
        if not isinstance(name, str) or not _NAME.match(name) or name.split("/", 1)[0] in _RESERVED_FOLDERS:
            return f"malformed attachments (the name {name!r})"
        if not isinstance(entry, dict) or set(entry) != {"bytes", "sha256"} \
                or isinstance(entry["bytes"], bool) or not isinstance(entry["bytes"], int) or entry["bytes"] < 0 \
                or not isinstance(entry["sha256"], str) or not re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]):
            return f"malformed attachments (the entry for {name})"
    return None


def listed(manifest: dict[str, Any], folder: str) -> dict[str, dict[str, Any]]:
    """The attachments under ``folder/``, by file name within it."""
    prefix = folder + "/"
    return {name[len(prefix):]: entry for name, entry in (manifest.get(KEY) or {}).items() if name.startswith(prefix)}


def read_checked(directory: Path, name: str, entry: dict[str, Any]) -> bytes:
    """The attached file ``name`` of generation ``directory``, whole, checked
    against its manifest ``entry``: ``CorruptIndexError`` naming the file."""
    from regrag.index import codec

    path = directory / name
    with codec._open_index_file(path) as handle:
        try:
            data = handle.read()
        except OSError as error:
            raise CorruptIndexError(f"{path}: cannot read ({error.strerror or error})") from None
    if len(data) != entry["bytes"]:
        raise CorruptIndexError(f"{path}: size {len(data)} bytes, the manifest says {entry['bytes']} (truncated or altered)")
    if hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise CorruptIndexError(f"{path}: SHA-256 does not match the manifest (damaged or altered)")
    return data


def check_files(directory: Path, manifest: dict[str, Any]) -> None:
    """Every attached file of a generation against its manifest (``regrag verify``)."""
    for name, entry in sorted((manifest.get(KEY) or {}).items()):
        read_checked(directory, name, entry)
