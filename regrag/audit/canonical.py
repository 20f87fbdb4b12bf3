"""Canonical serialisation: the one byte form of anything hashed or compared.

JSON with sorted keys, fixed separators, UTF-8, no NaN/Infinity, floats as
``repr`` (shortest round-trip form, which ``json`` uses). ``record_dict`` is
the JSON-ready form of a frozen record; ``JsonRecord`` gives a record that
form as its ``to_dict()``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from typing import Any


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value`` (what ``json.dumps`` gives with
    these settings; one encoder made once, as it keeps no state between calls)."""
    return _CANONICAL.encode(value)


def canonical_bytes(value: Any) -> bytes:
    """The canonical JSON of ``value`` encoded as UTF-8."""
    return canonical_json(value).encode("utf-8")


def sha256_hex(value: Any) -> str:
    """SHA-256 (hex) of the canonical bytes of ``value``."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()


def record_dict(record: Any, **extra: Any) -> dict[str, Any]:
    """A dataclass record as JSON-ready data, keys in sorted order.

    Every field appears under its own name: a tuple or list as a list (of
    the same conversions), a value with a ``to_dict()`` method as what that
    returns, anything else as it is (a mapping is not copied). ``extra``
    adds values under their own names (a property) or replaces a field's
    form (``analyzer=dict(self.analyzer)``).
    """
    names = _sorted_field_names(type(record))
    if extra:
        names = tuple(sorted({*names, *extra}))
    return {name: extra[name] if name in extra else _json_ready(getattr(record, name)) for name in names}


class JsonRecord:
    """Base of a dataclass record whose ``to_dict()`` is ``record_dict`` of it:
    every field by name, in name order (what ``canonical_json`` hashes)."""

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self)


@functools.lru_cache(maxsize=None)
def _sorted_field_names(record_type: type) -> tuple[str, ...]:
    return tuple(sorted(field.name for field in dataclasses.fields(record_type)))


# Values that are JSON-ready as they are, checked by exact type (most fields: no call, no lookup).
_SCALARS = frozenset((str, int, float, bool, type(None)))


def _json_ready(value: Any) -> Any:
    if type(value) in _SCALARS:
        return value
    if isinstance(value, (tuple, list)):
        return [item if type(item) in _SCALARS else _json_ready(item) for item in value]
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if to_dict is not None else value
