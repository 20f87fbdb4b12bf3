"""``regrag mcp --index DIR``: a Model Context Protocol server over standard
input and output, for LLM assistants (docs/integrations.md). Standard
output carries only the protocol's messages: anything else the process
would print goes to standard error, with the server's log."""

from __future__ import annotations

import argparse
import sys

from regrag.cli.options import add_index_options, calibrations_of, load_index
from regrag.cli.output import OutputError
from regrag.cli.status import ExitStatus
from regrag.validation import check_positive_int


def register(commands) -> None:
    mcp = commands.add_parser("mcp", help="serve search, ask, explain and verify to an LLM assistant (MCP over stdio)")
    add_index_options(mcp)
    mcp.add_argument("--max-message-bytes", type=int, default=None, metavar="N",  # the default: imported when run
                     help="longest request line accepted, in bytes (default 1 MiB, "
                          "regrag.integrations.jsonrpc.MAX_MESSAGE_BYTES); a longer one gets a JSON-RPC error")
    mcp.add_argument("--calibration", metavar="FILE", action="append", default=[],
                     help="map the ask tool's confidence with this calibration file (regrag eval --fit-calibration) "
                          "for the method it was fitted on; repeatable, one file a method (docs/calibration.md)")
    mcp.set_defaults(handler=run_mcp)


def run_mcp(arguments: argparse.Namespace) -> int:
    from regrag.integrations.jsonrpc import MAX_MESSAGE_BYTES
    from regrag.integrations.mcp_server import McpServer

    limit = MAX_MESSAGE_BYTES if arguments.max_message_bytes is None else arguments.max_message_bytes
    check_positive_int(limit, "--max-message-bytes")
    calibrations = calibrations_of(arguments.calibration, "mcp")  # a bad file before anything else
    protocol_output = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print cannot corrupt the protocol stream
    index = load_index(arguments)
    where = f"generation {index.generation.number} of {arguments.index}" if index.generation else "an index built now"
    print(f"regrag mcp: serving index {index.index_id[:16]} ({index.document_count} documents, {where}) "
          "on standard input and output", file=sys.stderr, flush=True)
    log = (lambda line: None) if arguments.quiet else None
    dense = _dense_searcher(index, arguments)
    server = McpServer(index, **({"log": log} if log else {}), max_message_bytes=limit, dense=dense,
                       calibrations=calibrations)
    try:
        server.serve(sys.stdin.buffer, protocol_output)
    except OSError as error:
        raise OutputError("standard output", error) from None
    return ExitStatus.OK


def _dense_searcher(index, arguments: argparse.Namespace):
    """A ``DenseSearcher`` when the served generation carries dense vectors (``regrag embed``): ``verify``
    then checks dense hits, and with the embedder installed ``search`` and ``ask`` offer dense and fused."""
    if index.generation is None or not getattr(arguments, "index", None):
        return None
    from regrag.adapters.choose import embedder_for
    from regrag.dense.generation import stored_in
    from regrag.dense.search import DenseSearcher
    from regrag.errors import RegragError

    vectors = stored_in(arguments.index, index.generation)
    if vectors is None:
        return None
    try:
        embedder = embedder_for(vectors.identity)
        return _announced(DenseSearcher(index, vectors, embedder), vectors)
    except RegragError as error:
        print(f"regrag mcp: the generation's dense vectors are loaded for verify; dense search is not offered: {error}",
              file=sys.stderr, flush=True)
        return DenseSearcher(index, vectors, None)


def _announced(searcher, vectors):
    print(f"regrag mcp: dense vectors attached ({vectors.passage_count} passages, {vectors.identity.get('package')} "
          f"{vectors.identity.get('version')}): search and ask offer dense and fused", file=sys.stderr, flush=True)
    return searcher
