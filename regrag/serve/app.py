"""The HTTP server: a bounded worker pool, routing, authentication, limits,
JSON errors and the ledger (docs/serve.md).

Each connection carries one request (``Connection: close``), read with a
socket timeout, by one of ``workers`` threads; connections beyond the
``backlog`` waiting for a worker get 503 at once. Every request is checked
in this order: ``Host`` header (400), route (404/405), principal (401),
rate (429), body size (413), body JSON (400); then the route runs, and its
outcome is appended to the ledger with the principal.
"""

from __future__ import annotations

import json
import queue
import socket
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

from regrag.errors import CorruptIndexError, InputError
from regrag.serve import api_routes, page_routes
from regrag.serve.responses import HttpError, Response, error_body
from regrag.serve.auth import ANONYMOUS, Principal, TokenTable, bearer_token
from regrag.serve.limiting import RateLimiter, SessionTable
from regrag.serve.state import IndexHolder

LOOPBACK = ("127.0.0.1", "::1", "localhost")


@dataclass(frozen=True)
class ServerConfig:
    """How the server runs; every bound has a default (docs/serve.md, "Hardening")."""

    host: str = "127.0.0.1"
    port: int = 8080
    tokens: TokenTable | None = None
    ledger: str | None = None
    workers: int = 8
    backlog: int = 64
    max_body_bytes: int = 64 * 1024
    socket_timeout: float = 10.0
    rate: float = 50.0  # requests a second per principal, on average
    burst: int = 100
    allowed_hosts: tuple[str, ...] = ()
    page: bool = True

    def host_names(self, port: int) -> frozenset[str]:
        names = {self.host, *self.allowed_hosts}
        if self.host in LOOPBACK or self.host in ("0.0.0.0", "::"):
            names |= set(LOOPBACK)
        found = set()
        for name in names:
            shown = f"[{name}]" if ":" in name else name
            found |= {shown.lower(), f"{shown}:{port}".lower()}
        return frozenset(found)


class RegragServer(HTTPServer):
    """``HTTPServer`` with a fixed pool of worker threads and a bounded queue."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, holder: IndexHolder, config: ServerConfig) -> None:
        self.holder, self.config = holder, config
        self.rates = RateLimiter(config.rate, config.burst)
        self.sessions = SessionTable()
        self.counts: dict[str, int] = {}
        self.counts_lock = threading.Lock()
        self._busy = 0
        self.ledger_lock = threading.Lock()
        self.started = time.monotonic()
        self._queue: queue.Queue = queue.Queue(maxsize=config.backlog)
        family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
        self.address_family = family
        super().__init__((config.host, config.port), Handler)
        self.hosts = config.host_names(self.server_address[1])
        self._workers = [threading.Thread(target=self._work, name=f"regrag-serve-{n}", daemon=True)
                         for n in range(config.workers)]
        for worker in self._workers:
            worker.start()

    @property
    def port(self) -> int:
        return self.server_address[1]

    @property
    def queued(self) -> int:
        """Connections accepted and waiting for a worker."""
        return self._queue.qsize()

    @property
    def busy(self) -> int:
        """Workers handling a connection now."""
        with self.counts_lock:
            return self._busy

    def process_request(self, request, client_address) -> None:  # called by serve_forever's thread
        try:
            self._queue.put_nowait((request, client_address))
        except queue.Full:
            self.count(503)
            try:
                request.settimeout(1.0)
                body = error_body(503, "overloaded", "every worker is busy and the queue is full; retry later")
                request.sendall(b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n"
                                b"Retry-After: 1\r\nConnection: close\r\nContent-Length: " + str(len(body)).encode()
                                + b"\r\n\r\n" + body)
            except OSError:
                pass
            self.shutdown_request(request)

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            request, client_address = item
            with self.counts_lock:
                self._busy += 1
            try:
                self.finish_request(request, client_address)
            except Exception:  # a broken connection: nothing to answer
                pass
            finally:
                self.shutdown_request(request)
                with self.counts_lock:
                    self._busy -= 1

    def server_close(self) -> None:
        super().server_close()
        for _worker in self._workers:
            self._queue.put(None)
        for worker in self._workers:
            worker.join(timeout=5)

    def count(self, status: int) -> None:
        with self.counts_lock:
            key = str(status)
            self.counts[key] = self.counts.get(key, 0) + 1

    def record(self, record: dict[str, Any]) -> dict[str, Any] | None:
        """Append ``record`` to the ledger (when there is one); the entry's sequence and hash."""
        if self.config.ledger is None:
            return None
        from regrag.audit.ledger import append_record

        entry = append_record(self.config.ledger, record)
        return {"hash": entry.hash, "sequence": entry.sequence}


class Request:
    """What a route sees: the principal, the query string, the JSON or form body."""

    def __init__(self, handler: "Handler", principal: Principal, body: bytes) -> None:
        self.handler, self.principal, self.body = handler, principal, body
        self.server: RegragServer = handler.server  # type: ignore[assignment]
        parts = urlsplit(handler.path)
        self.path = parts.path
        self.query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        self.cookies = _cookies(handler.headers.get("Cookie", ""))
        self.ledger_entry: dict[str, Any] | None = None

    def json(self) -> Any:
        try:
            return json.loads(self.body.decode("utf-8")) if self.body else {}
        except (UnicodeDecodeError, ValueError) as error:
            raise HttpError(400, "parse_exception", f"the request body is not JSON ({error})") from None
        except RecursionError:
            raise HttpError(400, "parse_exception", "the request body is nested too deeply") from None

    def form(self) -> dict[str, str]:
        try:
            text = self.body.decode("utf-8")
        except UnicodeDecodeError:
            raise HttpError(400, "parse_exception", "the form is not UTF-8") from None
        return {k: v[-1] for k, v in parse_qs(text, keep_blank_values=True).items()}


Route = Callable[[Request], Response]


def routes() -> dict[tuple[str, str], tuple[Route, bool]]:
    """(method, path) -> (handler, is a page route authenticated by session cookie)."""
    table = {key: (route, False) for key, route in api_routes.ROUTES.items()}
    table.update({key: (route, True) for key, route in page_routes.ROUTES.items()})
    return table


ROUTES = routes()
OPEN_ROUTES = {("GET", "/_health"), ("GET", "/login"), ("POST", "/login"), ("GET", "/assets/page.css"), ("GET", "/favicon.ico")}


class Handler(BaseHTTPRequestHandler):
    server_version = "regrag"
    sys_version = ""
    protocol_version = "HTTP/1.0"

    def setup(self) -> None:
        self.request.settimeout(self.server.config.socket_timeout)  # type: ignore[attr-defined]
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:  # the ledger is the log
        return

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_HEAD(self) -> None:
        self._send(Response(405, b"", headers={"Allow": "GET, POST"}))

    def _handle(self, method: str) -> None:
        server: RegragServer = self.server  # type: ignore[assignment]
        principal: Principal | None = None
        path = urlsplit(self.path).path
        try:
            host = (self.headers.get("Host") or "").strip().lower()
            if host not in server.hosts:
                raise HttpError(400, "bad_host", f"Host header {host[:100]!r} is not one this server answers to")
            found = ROUTES.get((method, path))
            if found is None:
                if any(p == path for _m, p in ROUTES):
                    raise HttpError(405, "method_not_allowed", f"{method} is not allowed on {path}")
                raise HttpError(404, "not_found", f"no such endpoint {path[:200]!r}")
            route, is_page = found
            principal = self._principal(server, is_page, (method, path) in OPEN_ROUTES)
            if principal is not None and not server.rates.allow(principal.name):
                raise HttpError(429, "too_many_requests", f"more than {server.config.rate:g} requests a second on average "
                                f"for {principal.name!r}; retry later", {"Retry-After": "1"})
            request = Request(self, principal or ANONYMOUS, self._body(server, method))
            response = route(request)
            principal = request.principal
        except HttpError as error:
            response = Response(error.status, error_body(error.status, error.kind, error.reason), headers=error.headers)
            if ROUTES.get((method, path), (None, False))[1] and error.status != 303:
                response = page_routes.error_page(error.status, error.reason, error.headers)
            if error.status == 401:
                response.headers["WWW-Authenticate"] = 'Bearer realm="regrag"'
            request = None
        except CorruptIndexError as error:
            response = Response(503, error_body(503, "index_unavailable", str(error)))
            request = None
        except InputError as error:
            response = Response(400, error_body(400, "illegal_argument_exception", str(error)))
            request = None
        except Exception as error:  # a bug: say so without a traceback to the client
            print(f"regrag serve: internal error on {method} {path[:200]}: {type(error).__name__}: {error}",
                  file=sys.stderr)
            response = Response(500, error_body(500, "internal_error", "internal error (logged on the server)"))
            request = None
        server.count(response.status)
        self._ledger(server, method, path, principal, response, request)
        self._send(response)

    def _principal(self, server: RegragServer, is_page: bool, open_route: bool) -> Principal | None:
        tokens = server.config.tokens
        if tokens is None:
            return ANONYMOUS
        if is_page:
            principal = server.sessions.principal(_cookies(self.headers.get("Cookie", "")).get("regrag_session", ""))
        else:
            token = bearer_token(self.headers.get("Authorization"))
            principal = tokens.principal_for(token) if token else None
        if principal is None and not open_route:
            if is_page:
                raise HttpError(303, "login", "log in first", {"Location": "/login"})
            raise HttpError(401, "security_exception", "missing or unknown bearer token (Authorization: Bearer TOKEN)")
        return principal

    def _body(self, server: RegragServer, method: str) -> bytes:
        if self.headers.get("Transfer-Encoding"):
            raise HttpError(400, "bad_request", "chunked bodies are not accepted; send Content-Length")
        length = self.headers.get("Content-Length")
        if length is None:
            if method == "POST":
                raise HttpError(400, "bad_request", "a POST needs a Content-Length header")
            return b""
        if not length.isdigit() or len(length) > 18:
            raise HttpError(400, "bad_request", f"bad Content-Length {length[:40]!r}")
        if int(length) > server.config.max_body_bytes:
            raise HttpError(413, "request_too_large", f"the body has {int(length):,} bytes; the limit is "
                            f"{server.config.max_body_bytes:,} (regrag serve --max-body)")
        try:
            return self.rfile.read(int(length))
        except (socket.timeout, OSError):
            raise HttpError(400, "bad_request", "the body did not arrive in time") from None

    def _ledger(self, server, method, path, principal, response, request) -> None:
        record = request.ledger_entry if request is not None and request.ledger_entry is not None else {
            "command": "request", "method": method, "path": path[:1000]}
        record = dict(record, principal=principal.name if principal is not None else None, status=response.status)
        try:
            reference = server.record(record)
        except InputError as error:
            print(f"regrag serve: the ledger refused an entry: {error}", file=sys.stderr)
            response.status, response.content_type = 503, "application/json; charset=utf-8"
            response.body = error_body(503, "ledger_unavailable", "the request could not be recorded in the ledger")
            return
        if reference is not None:
            response.headers["X-Regrag-Ledger-Entry"] = f"{reference['sequence']} {reference['hash']}"

    def _send(self, response: Response) -> None:
        try:
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
            if "Cache-Control" not in response.headers:
                self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Connection", "close")
            for name, value in sorted(response.headers.items()):
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(response.body)
        except OSError:
            pass


def _cookies(header: str) -> dict[str, str]:
    found = {}
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name:
            found[name] = value
    return found


def make_server(holder: IndexHolder, config: ServerConfig) -> RegragServer:
    """A bound server (not yet serving): ``serve_forever()`` it, then ``shutdown()`` and ``server_close()``."""
    if config.tokens is None and config.host not in LOOPBACK:
        raise InputError(f"without --auth the server listens on loopback only; --host {config.host} needs --auth FILE")
    return RegragServer(holder, config)
