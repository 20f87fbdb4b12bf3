"""``regrag serve``: the HTTP API and the page over an index (docs/serve.md).

Also ``regrag serve --new-token NAME --groups a,b``: prints a fresh token
(give it to NAME) and the token-file entry holding only its SHA-256.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys

from regrag.cli.options import add_index_options, calibrations_of
from regrag.cli.status import ExitStatus
from regrag.errors import InputError


def register(commands) -> None:
    serve = commands.add_parser("serve", help="serve the JSON API and the search page over HTTP")
    add_index_options(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; any other "
                       "needs --auth)")
    serve.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 picks a free one)")
    serve.add_argument("--auth", metavar="FILE", default=None,
                       help="token file (JSON, token SHA-256s -> principals and groups); without it the server "
                            "listens on loopback only and every caller reads everything")
    serve.add_argument("--ledger", metavar="FILE", default=None, help="append every request to this ledger")
    serve.add_argument("--statistics", choices=("corpus", "group"), default="corpus",
                       help="corpus: BM25/TF-IDF statistics of the whole corpus (default); group: of the documents "
                            "each group set may read (docs/serve.md)")
    serve.add_argument("--calibration", metavar="FILE", action="append", default=[],
                       help="map _ask's confidence with this calibration file (regrag eval --fit-calibration) "
                            "for the method it was fitted on; repeatable, one file a method (docs/calibration.md)")
    serve.add_argument("--unlabelled", choices=("public", "private"), default="public",
                       help="who reads documents without an 'access' field: everyone (default) or '*' only")
    serve.add_argument("--workers", type=int, default=8, help="worker threads (default 8)")
    serve.add_argument("--backlog", type=int, default=64,
                       help="connections waiting for a worker before new ones get 503 (default 64)")
    serve.add_argument("--max-body", type=int, default=64 * 1024, help="largest request body in bytes (413 beyond)")
    serve.add_argument("--timeout", type=float, default=10.0, help="socket timeout per connection, seconds")
    serve.add_argument("--rate", type=float, default=50.0,
                       help="requests a second per principal before 429 (0: no limit; default 50)")
    serve.add_argument("--burst", type=int, default=100, help="requests a principal may send at once (default 100)")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="another name clients may use in the Host header (repeatable)")
    serve.add_argument("--replay", metavar="LEDGER", default=None,
                       help="replay the searches and answers a server recorded in LEDGER (each through the view "
                            "of the principal's groups it records), print one line each, then exit (1 if any differs)")
    serve.add_argument("--new-token", metavar="NAME", default=None,
                       help="print a new token for principal NAME and its token-file entry, then exit")
    serve.add_argument("--groups", default="", help="with --new-token: comma-separated groups ('*' reads all)")
    serve.add_argument("--ledger-reader", action="store_true", help="with --new-token: may browse the ledger")
    serve.set_defaults(handler=run_serve)


def _bounded(value, name: str, low, high):
    if not low <= value <= high:
        raise InputError(f"--{name} must be between {low} and {high}, got {value}")
    return value


def _replay(holder, ledger: str) -> int:
    from regrag.serve.ledger_view import replay_served

    outcome = replay_served(holder, ledger)
    print(outcome["chain"])
    for line in outcome["lines"]:
        print(line)
    print(f"{outcome['identical']} of {outcome['replayed']} served records replayed identically")
    ok = outcome["chain_ok"] and outcome["identical"] == outcome["replayed"]
    return ExitStatus.OK if ok else ExitStatus.CHECK_FAILED


def run_serve(arguments: argparse.Namespace) -> int:
    from regrag.serve.auth import TokenTable, new_token, token_entry

    if arguments.new_token is not None:
        token = new_token()
        groups = [g.strip() for g in arguments.groups.split(",") if g.strip()]
        entry = token_entry(arguments.new_token, groups, arguments.ledger_reader, token)
        print(f"token (give it to {arguments.new_token}; it is not stored anywhere): {token}")
        print(json.dumps(entry, sort_keys=True))
        return ExitStatus.OK
    from regrag.serve.app import ServerConfig, make_server
    from regrag.serve.state import IndexHolder, Served
    from regrag.serve.search_api import Where

    config = ServerConfig(
        host=arguments.host, port=_bounded(arguments.port, "port", 0, 65535),
        tokens=TokenTable.load(arguments.auth) if arguments.auth else None, ledger=arguments.ledger,
        workers=_bounded(arguments.workers, "workers", 1, 256), backlog=_bounded(arguments.backlog, "backlog", 1, 10_000),
        max_body_bytes=_bounded(arguments.max_body, "max-body", 1024, 64 * 1024 * 1024),
        socket_timeout=_bounded(arguments.timeout, "timeout", 0.1, 3600.0), rate=_bounded(arguments.rate, "rate", 0, 1e6),
        burst=_bounded(arguments.burst, "burst", 1, 1_000_000), allowed_hosts=tuple(arguments.allowed_host))
    served = Served(arguments.statistics, arguments.unlabelled, calibrations_of(arguments.calibration, "serve"))
    if arguments.index is not None:
        holder = IndexHolder(arguments.index, pinned=Where(arguments.generation, arguments.as_of), served=served)
    else:
        from regrag.cli.options import load_index

        holder = IndexHolder(index=load_index(arguments), served=served)
    if arguments.replay is not None:
        return _replay(holder, arguments.replay)
    def stop(_signal, _frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    server = make_server(holder, config)
    scope = ("loopback only (no --auth: every caller reads everything)" if config.tokens is None
             else f"{len(config.tokens)} principal(s) from {arguments.auth}")
    shown = f"[{config.host}]" if ":" in config.host else config.host
    print(f"regrag serve: listening on http://{shown}:{server.port}/ ({scope}); Ctrl-C stops", file=sys.stderr,
          flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        print("regrag serve: stopped", file=sys.stderr)
    finally:
        server.server_close()
    return ExitStatus.OK
