"""JSON-RPC 2.0 over newline-delimited standard input and output, as the
Model Context Protocol's stdio transport frames it: one UTF-8 JSON message
per line, no embedded newlines, nothing else on standard output.

This module knows messages, not MCP: it reads a bounded line, parses it
(``ParseError`` -32700 for bad JSON or bad UTF-8, ``InvalidRequest`` -32600
for a line over the size cap, a batch, or a message that is not a request
or notification), and writes canonical JSON responses (sorted keys, fixed
separators), so the same request always gets the same bytes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, BinaryIO

from regrag.audit.canonical import canonical_json
from regrag.jsonl import nested_deeper_than

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

MAX_MESSAGE_BYTES = 1024 * 1024  # a request line; a search of 10,000 characters is a few KiB
MAX_DEPTH = 64  # nesting of a request (a hit record is 4 levels deep)


@dataclass(frozen=True)
class RpcError(Exception):
    """A JSON-RPC error to send back (``id`` None when the request's id is unknown)."""

    code: int
    message: str
    id: Any = None
    data: Any = None

    def response(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return {"error": error, "id": self.id, "jsonrpc": "2.0"}


@dataclass(frozen=True)
class Message:
    """A request (``id`` given) or a notification (``is_notification``)."""

    method: str
    params: Any
    id: Any
    is_notification: bool


def read_line(stream: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> bytes | None:
    """The next line without its newline, None at end of input; ``RpcError``
    (the rest of the line read and dropped) for a line over ``limit`` bytes."""
    line = stream.readline(limit + 1)
    if not line:
        return None
    if len(line) > limit and not line.endswith(b"\n"):
        while True:  # drop the rest of the oversize line, in bounded pieces
            rest = stream.readline(64 * 1024)
            if not rest or rest.endswith(b"\n"):
                break
        raise RpcError(INVALID_REQUEST, f"Invalid Request: a message is longer than {limit:,} bytes "
                                        "(the limit of regrag's MCP server)")
    return line.rstrip(b"\r\n")


def parse_message(line: bytes) -> Message:
    """The message on ``line``; ``RpcError`` (parse error or invalid request) otherwise."""
    try:
        text = line.decode("utf-8")
        value = json.loads(text, parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise RpcError(PARSE_ERROR, "Parse error: the message is not valid UTF-8") from None
    except json.JSONDecodeError as error:
        raise RpcError(PARSE_ERROR, f"Parse error: {error.msg} at column {error.colno}") from None
    except RecursionError:
        raise RpcError(PARSE_ERROR, "Parse error: nested too deeply to parse") from None
    except ValueError as error:  # NaN, Infinity, an integer of too many digits
        raise RpcError(PARSE_ERROR, f"Parse error: {str(error)[:100]}") from None
    if isinstance(value, list):
        raise RpcError(INVALID_REQUEST, "Invalid Request: batches are not supported (MCP sends one message per line)")
    if not isinstance(value, dict):
        raise RpcError(INVALID_REQUEST, f"Invalid Request: expected a JSON object, got {type(value).__name__}")
    if nested_deeper_than(value, MAX_DEPTH):
        raise RpcError(INVALID_REQUEST, f"Invalid Request: nested more than {MAX_DEPTH} levels deep")
    identifier = value.get("id")
    has_id = "id" in value
    if has_id and (identifier is None or isinstance(identifier, bool) or not isinstance(identifier, (str, int))):
        raise RpcError(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    if value.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', identifier)
    method = value.get("method")
    if not isinstance(method, str):
        if "result" in value or "error" in value:  # a response to a request this server never sends
            raise RpcError(INVALID_REQUEST, "Invalid Request: this server sends no requests, so expects no responses",
                           identifier)
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "method" must be a string', identifier)
    params = value.get("params")
    if params is not None and not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "Invalid params: params must be an object", identifier)
    return Message(method, params if params is not None else {}, identifier, not has_id)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def result_response(identifier: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"id": identifier, "jsonrpc": "2.0", "result": result}


def write_message(stream: BinaryIO, message: dict[str, Any]) -> None:
    """One message as one line of canonical JSON, flushed at once. A newline
    inside a string is written ``\\n``; a lone surrogate (only a request can
    bring one, echoed in an error) as its JSON escape ``\\udXXX``."""
    stream.write(canonical_json(message).encode("utf-8", "backslashreplace") + b"\n")
    stream.flush()
