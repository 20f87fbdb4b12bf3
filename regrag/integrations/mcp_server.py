"""A Model Context Protocol server over an opened index: the handshake
(``initialize``, ``ping``), ``tools/list`` and ``tools/call`` of the four
tools of ``regrag.integrations.tools``, on the stdio transport of
``regrag.integrations.jsonrpc`` (``python -m regrag mcp``).

Errors, as the MCP specification sorts them (docs/integrations.md):
malformed JSON, a message that is not a request, an unknown method, an
unknown tool or malformed ``tools/call`` parameters are JSON-RPC errors;
what regrag refuses while running a tool (an unknown passage id, a filter
field no document has, a query over the limits) is a tool result with
``isError: true``, which the model can read and correct. Arguments that
break a tool's input schema are a JSON-RPC error (-32602) under protocol
versions up to 2025-06-18 and a tool result with ``isError`` from
2025-11-25 on (SEP-1303). A bug is -32603 with its traceback on standard
error, never on standard output. Requests are answered one at a time, in
order, from one immutable index: the same call gets the same bytes."""

from __future__ import annotations

import sys
import time
import traceback
from typing import Any, BinaryIO, Callable

from regrag._version import __version__
from regrag.audit.canonical import canonical_json
from regrag.engine import Index
from regrag.errors import InputError
from regrag.integrations import jsonrpc
from regrag.integrations.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, Message, RpcError
from regrag.integrations.schema import SchemaError
from regrag.integrations.tools import call_tool, find_tool, tools

# The handshake revisions this server speaks, oldest first; a client asking
# for another one is answered with the newest (the client then decides).
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
ANNOTATIONS_FROM = "2025-03-26"  # tool annotations (readOnlyHint, ...) exist from this revision
STRUCTURED_FROM = "2025-06-18"  # structuredContent, outputSchema and title exist from this revision
SCHEMA_ERRORS_AS_RESULTS_FROM = "2025-11-25"  # SEP-1303: input validation errors are tool results
INSTRUCTIONS = ("regrag searches a fixed, versioned index of documents deterministically. Use 'search' for "
                "passages, 'ask' for a cited extractive answer, 'explain' for why a passage scored what it "
                "did, 'verify' to check a hit or a quotation before relying on it. Quote passage text "
                "verbatim and cite its passage_id.")

Log = Callable[[str], None]


def _stderr(line: str) -> None:
    print(f"regrag mcp: {line}", file=sys.stderr, flush=True)


class McpServer:
    """The MCP methods over ``index``; ``serve`` runs the stdio loop."""

    def __init__(self, index: Index, log: Log = _stderr, max_message_bytes: int = jsonrpc.MAX_MESSAGE_BYTES,
                 dense: Any = None, calibrations: tuple = ()) -> None:
        self.index = index
        self.dense = dense  # a DenseSearcher over the index's stored vectors, or None (regrag.integrations.tools)
        self.calibrations = calibrations  # ask's calibration maps, one per method (regrag.integrations.tools)
        self.log = log
        self.max_message_bytes = max_message_bytes
        self.protocol_version = PROTOCOL_VERSIONS[-1]  # until initialize says otherwise

    def serve(self, requests: BinaryIO, responses: BinaryIO) -> None:
        """Answer each line of ``requests`` on ``responses`` until end of input."""
        while True:
            try:
                line = jsonrpc.read_line(requests, self.max_message_bytes)
                if line is None:
                    return
                if not line.strip():
                    continue
                response = self.handle(jsonrpc.parse_message(line))
            except RpcError as error:
                self.log(f"error {error.code}: {error.message}")
                response = error.response()
            if response is not None:
                jsonrpc.write_message(responses, response)

    def handle(self, message: Message) -> dict[str, Any] | None:
        """The response to ``message`` (None for a notification)."""
        started = time.perf_counter()
        try:
            result = self._dispatch(message)
        except RpcError as error:
            self.log(f"{message.method}: error {error.code}: {error.message}")
            return None if message.is_notification else RpcError(error.code, error.message, message.id,
                                                                  error.data).response()
        except Exception:  # a bug: the client gets -32603, the traceback goes to standard error only
            self.log(f"{message.method}: internal error\n{traceback.format_exc()}")
            if message.is_notification:
                return None
            return RpcError(INTERNAL_ERROR, "Internal error (see the server's standard error)", message.id).response()
        if message.is_notification:
            return None
        if message.method == "tools/call":
            self.log(f"tools/call {message.params.get('name')}: {'error' if result.get('isError') else 'ok'} "
                     f"({(time.perf_counter() - started) * 1000:.0f} ms)")
        return jsonrpc.result_response(message.id, result)

    def _dispatch(self, message: Message) -> dict[str, Any]:
        if message.is_notification:
            return {}  # notifications/initialized, notifications/cancelled, ...: nothing to do or say
        if message.method == "initialize":
            return self._initialize(message.params)
        if message.method == "ping":
            return {}
        if message.method == "tools/list":
            offered = tools(self.index, self.dense, self.calibrations)
            return {"tools": [self._described(tool.to_dict()) for tool in offered]}
        if message.method == "tools/call":
            return self._call(message.params)
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {message.method!r} (this server offers initialize, "
                                         "ping, tools/list and tools/call)")

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: initialize needs protocolVersion, a string")
        self.protocol_version = requested if requested in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1]
        self.log(f"initialize: protocol {self.protocol_version} (asked for {requested})")
        return {"capabilities": {"tools": {"listChanged": False}}, "instructions": INSTRUCTIONS,
                "protocolVersion": self.protocol_version,
                "serverInfo": {"name": "regrag", "title": "regrag", "version": __version__}}

    def _at_least(self, version: str) -> bool:
        return PROTOCOL_VERSIONS.index(self.protocol_version) >= PROTOCOL_VERSIONS.index(version)

    def _described(self, tool: dict[str, Any]) -> dict[str, Any]:
        """A tool as this session's protocol version defines one (nothing a revision lacks)."""
        if not self._at_least(STRUCTURED_FROM):
            tool = {key: value for key, value in tool.items() if key not in ("outputSchema", "title")}
        if not self._at_least(ANNOTATIONS_FROM):
            tool = {key: value for key, value in tool.items() if key != "annotations"}
        return tool

    def _call(self, params: dict[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: tools/call needs name, a string")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: tools/call arguments must be an object")
        if find_tool(self.index, name, self.dense, self.calibrations) is None:
            names = ", ".join(tool.name for tool in tools(self.index, self.dense, self.calibrations))
            raise RpcError(INVALID_PARAMS, f"Invalid params: unknown tool {name!r}; the tools are {names}")
        try:
            result = call_tool(self.index, name, arguments, self.dense, self.calibrations)
        except SchemaError as error:
            if not self._at_least(SCHEMA_ERRORS_AS_RESULTS_FROM):
                raise RpcError(INVALID_PARAMS, f"Invalid params: {error}") from None
            return _tool_error(f"invalid arguments: {error}")
        except InputError as error:
            return _tool_error(str(error))
        content = {"content": [{"text": canonical_json(result), "type": "text"}], "isError": False}
        if self._at_least(STRUCTURED_FROM):
            content["structuredContent"] = result
        return content


def _tool_error(message: str) -> dict[str, Any]:
    return {"content": [{"text": message, "type": "text"}], "isError": True}
