"""``regrag mcp --index DIR``: a Model Context Protocol server over standard
input and output, for LLM assistants (docs/integrations.md). Standard
output carries only the protocol's messages: anything else the process
would print goes to standard error, with the server's log."""

from __future__ import annotations

import argparse
import sys

from regrag.cli.options import add_index_options, load_index
from regrag.cli.output import OutputError
from regrag.cli.status import ExitStatus
from regrag.validation import check_positive_int


def register(commands) -> None:
    mcp = commands.add_parser("mcp", help="serve search, ask, explain and verify to an LLM assistant (MCP over stdio)")
    add_index_options(mcp)
    mcp.add_argument("--max-message-bytes", type=int, default=None, metavar="N",  # the default: imported when run
                     help="longest request line accepted, in bytes (default 1 MiB, "
                          "regrag.integrations.jsonrpc.MAX_MESSAGE_BYTES); a longer one gets a JSON-RPC error")
    mcp.set_defaults(handler=run_mcp)


def run_mcp(arguments: argparse.Namespace) -> int:
    from regrag.integrations.jsonrpc import MAX_MESSAGE_BYTES
    from regrag.integrations.mcp_server import McpServer

    limit = MAX_MESSAGE_BYTES if arguments.max_message_bytes is None else arguments.max_message_bytes
    check_positive_int(limit, "--max-message-bytes")
    protocol_output = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print cannot corrupt the protocol stream
    index = load_index(arguments)
    where = f"generation {index.generation.number} of {arguments.index}" if index.generation else "an index built now"
    print(f"regrag mcp: serving index {index.index_id[:16]} ({index.document_count} documents, {where}) "
          "on standard input and output", file=sys.stderr, flush=True)
    log = (lambda line: None) if arguments.quiet else None
    server = McpServer(index, **({"log": log} if log else {}), max_message_bytes=limit)
    try:
        server.serve(sys.stdin.buffer, protocol_output)
    except OSError as error:
        raise OutputError("standard output", error) from None
    return ExitStatus.OK
