"""Responses: the status, body and headers a route returns, and the
Elasticsearch-shaped JSON error (``{"error": {"type", "reason"}, "status"}``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


class HttpError(Exception):
    """A response other than 200, with an Elasticsearch-shaped JSON body."""

    def __init__(self, status: int, kind: str, reason: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(reason)
        self.status, self.kind, self.reason, self.headers = status, kind, reason, headers or {}


@dataclass
class Response:
    status: int
    body: bytes
    content_type: str = "application/json; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


def json_bytes(value: Any) -> bytes:
    """Sorted keys, UTF-8, no NaN: one byte form for one value."""
    return (json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n").encode()


def error_body(status: int, kind: str, reason: str) -> bytes:
    return json_bytes({"error": {"reason": reason, "type": kind}, "status": status})
