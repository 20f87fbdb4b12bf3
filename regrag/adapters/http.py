"""A small JSON-over-HTTP client for the LLM generators, standard library only.

It POSTs a JSON body and returns the decoded JSON reply. What it adds to
``urllib.request`` is what a remote model needs and what an audit log should
show when it fails:

- a timeout on every attempt (default 30 s);
- retries with exponential backoff (0.5 s, 1 s, 2 s, … capped) on HTTP 408,
  429 and 5xx, on connection errors and on timeouts; a ``Retry-After`` header
  in seconds (or Google's ``RetryInfo.retryDelay`` in the error body) replaces
  the backoff delay, capped as well. There is no random jitter, so a run's
  sequence of waits is reproducible; the sleep function is injectable so tests
  never wait;
- any other 4xx (400, 401, 403, 404, …) fails at once, since repeating the
  same request cannot succeed;
- every failure is an ``AdapterError`` whose message names the URL (without
  credentials or query string), the HTTP status and the server's own error
  message when the body holds one (``{"error": {"message": …}}``, as both the
  Gemini and OpenAI APIs send, or vLLM's top-level ``{"message": …}``);
- secrets (API keys) are never put into a message: the caller passes them and
  any echo of them in a server's message is replaced by ``[REDACTED]``.

Redirects are refused rather than followed, so an API key header is never
replayed to another host. Proxies from the environment are used, except for
loopback hosts (a local llama.cpp / vLLM / Ollama server, the test server).
"""

from __future__ import annotations

import http.client
import json
import math
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from regrag.adapters.base import AdapterError
from regrag.validation import is_int

DEFAULT_TIMEOUT = 30.0
DEFAULT_RETRIES = 3
DEFAULT_BASE_DELAY = 0.5
DEFAULT_MAX_DELAY = 30.0

# 408 Request Timeout and 429 Too Many Requests are the 4xx worth repeating;
# every 5xx is (500 INTERNAL, 502, 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED).
RETRYABLE_4XX = frozenset({408, 429})

_MAX_MESSAGE_CHARS = 500
_MAX_SNIPPET_CHARS = 200
_REDACTED = "[REDACTED]"
_LOOPBACK_HOSTS = frozenset({"localhost", "::1"})

Sleep = Callable[[float], None]


@dataclass(frozen=True)
class _Failure:
    """One failed attempt: what to report, whether to try again, and how long the server asked us to wait."""

    description: str
    retryable: bool
    retry_after: float | None = None


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """Turns every 3xx into an ``HTTPError``: following it could send the API key to another host."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        return None


class JsonHttpClient:
    """POSTs JSON and returns the decoded reply, retrying only what is worth retrying."""

    def __init__(
        self,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        base_delay: float = DEFAULT_BASE_DELAY,
        max_delay: float = DEFAULT_MAX_DELAY,
        sleep: Sleep = time.sleep,
    ) -> None:
        if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        if not is_int(retries) or retries < 0:
            raise ValueError(f"retries must be a non-negative integer, not {retries!r}")
        if not (math.isfinite(base_delay) and base_delay >= 0):
            raise ValueError(f"base_delay must be a non-negative number of seconds, not {base_delay!r}")
        if not (math.isfinite(max_delay) and max_delay >= 0):
            raise ValueError(f"max_delay must be a non-negative number of seconds, not {max_delay!r}")
        self.timeout = float(timeout)
        self.retries = retries
        self.base_delay = float(base_delay)
        self.max_delay = float(max_delay)
        self._sleep = sleep

    def post_json(
        self,
        url: str,
        body: Mapping[str, Any],
        headers: Mapping[str, str] | None = None,
        *,
        secrets: Sequence[str] = (),
    ) -> Any:
        """POST ``body`` as JSON to ``url`` and return the decoded JSON of a 2xx reply.

        ``secrets`` are strings (API keys) that must never appear in an error
        message; they are redacted from anything the server sends back.
        """
        shown_url = display_url(url)
        request_headers = {"Content-Type": "application/json", "Accept": "application/json"}
        request_headers.update(headers or {})
        data = json.dumps(dict(body), ensure_ascii=False, allow_nan=False).encode("utf-8")
        request = urllib.request.Request(url, data=data, headers=request_headers, method="POST")
        opener = _opener_for(url)
        attempts = self.retries + 1
        failure = _Failure("no attempt made", retryable=False)
        for attempt in range(1, attempts + 1):
            outcome = self._attempt(opener, request, secrets)
            if isinstance(outcome, tuple):
                status, raw = outcome
                return _decode_success(raw, status, shown_url, secrets)
            failure = outcome
            if not failure.retryable:
                raise AdapterError(f"POST {shown_url} failed: {failure.description}")
            if attempt < attempts:
                self._sleep(self.delay_before_retry(attempt, failure.retry_after))
        tries = "attempt" if attempts == 1 else "attempts"
        raise AdapterError(f"POST {shown_url} failed after {attempts} {tries}: {failure.description}")

    def delay_before_retry(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based).

        The server's own ``retry_after`` wins over the exponential backoff;
        both are capped at ``max_delay``.
        """
        if retry_after is not None:
            return min(retry_after, self.max_delay)
        return min(self.base_delay * 2.0 ** (attempt - 1), self.max_delay)

    def _attempt(
        self,
        opener: urllib.request.OpenerDirector,
        request: urllib.request.Request,
        secrets: Sequence[str],
    ) -> tuple[int, bytes] | _Failure:
        """One request: ``(status, body)`` on a 2xx, otherwise the failure to report."""
        try:
            with opener.open(request, timeout=self.timeout) as response:
                status = int(response.status)
                raw = response.read()
            return status, raw
        except urllib.error.HTTPError as error:
            return self._http_failure(error, secrets)
        except urllib.error.URLError as error:
            if isinstance(error.reason, TimeoutError):
                return self._timeout_failure()
            if isinstance(error.reason, ssl.SSLCertVerificationError):  # retrying cannot fix a certificate
                return _Failure(f"TLS certificate error: {redact(str(error.reason), secrets)}", retryable=False)
            return _Failure(f"connection error: {redact(str(error.reason), secrets)}", retryable=True)
        except TimeoutError:
            return self._timeout_failure()
        except (http.client.HTTPException, ConnectionError) as error:
            detail = redact(str(error), secrets) or type(error).__name__
            return _Failure(f"connection error: {type(error).__name__}: {detail}", retryable=True)
        except OSError as error:
            return _Failure(f"connection error: {redact(str(error), secrets)}", retryable=True)

    def _timeout_failure(self) -> _Failure:
        return _Failure(f"timed out after {self.timeout:g} s", retryable=True)

    def _http_failure(self, error: urllib.error.HTTPError, secrets: Sequence[str]) -> _Failure:
        status = int(error.code)
        try:
            raw = error.read()
        except (OSError, http.client.HTTPException):
            raw = b""
        finally:
            error.close()
        payload = _parse_json_or_none(raw)
        description = f"HTTP {status}"
        label, message = error_label_and_message(payload)
        if label:
            description += f" ({redact(label, secrets)})"
        if message:
            description += f": {_truncate(redact(message, secrets), _MAX_MESSAGE_CHARS)}"
        elif payload is None and raw.strip():
            description += f": {_snippet(raw, secrets)}"
        if 300 <= status < 400:
            return _Failure(description + " (redirects are not followed)", retryable=False)
        retryable = status in RETRYABLE_4XX or status >= 500
        retry_after = _retry_after_seconds(error.headers.get("Retry-After")) if error.headers else None
        if retry_after is None:
            retry_after = _retry_info_seconds(payload)
        return _Failure(description, retryable=retryable, retry_after=retry_after)


def display_url(url: str) -> str:
    """The URL as error messages show it: no user info, query string or fragment (where keys can hide)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"{host}:{port}" if port is not None else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _opener_for(url: str) -> urllib.request.OpenerDirector:
    """An opener that refuses redirects and bypasses proxies for loopback hosts."""
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    loopback = host in _LOOPBACK_HOSTS or host.startswith("127.")
    proxies = urllib.request.ProxyHandler({}) if loopback else urllib.request.ProxyHandler()
    return urllib.request.build_opener(proxies, _RefuseRedirects())


def _decode_success(raw: bytes, status: int, shown_url: str, secrets: Sequence[str]) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        shown = _snippet(raw, secrets) if raw.strip() else "an empty body"
        raise AdapterError(
            f"POST {shown_url} returned HTTP {status} with a body that is not valid JSON: {shown}"
        ) from None


def _parse_json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def error_label_and_message(payload: Any) -> tuple[str, str]:
    """The status label and message of an error body, or empty strings.

    Gemini: ``{"error": {"code": 429, "message": …, "status": "RESOURCE_EXHAUSTED"}}``;
    OpenAI, llama.cpp, Ollama: ``{"error": {"message": …, "type": …, "code": …}}``;
    vLLM: ``{"object": "error", "message": …, "type": …}``; some servers: ``{"error": "…"}``.
    """
    if not isinstance(payload, dict):
        return "", ""
    error = payload.get("error")
    if isinstance(error, str):
        return "", error
    source = error if isinstance(error, dict) else payload
    message = source.get("message")
    label: object = source.get("status")
    if not isinstance(label, str):
        label = source.get("code") if isinstance(source.get("code"), str) else source.get("type")
    return (label if isinstance(label, str) else ""), (message if isinstance(message, str) else "")


def _retry_after_seconds(value: str | None) -> float | None:
    """A ``Retry-After`` header in delta-seconds; an HTTP-date or garbage gives ``None`` (use the backoff)."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _retry_info_seconds(payload: Any) -> float | None:
    """Google's ``google.rpc.RetryInfo`` detail (``"retryDelay": "22s"``) in an error body, if any."""
    if not isinstance(payload, dict) or not isinstance(payload.get("error"), dict):
        return None
    details = payload["error"].get("details")
    if not isinstance(details, list):
        return None
    for detail in details:
        if not isinstance(detail, dict) or not str(detail.get("@type", "")).endswith("google.rpc.RetryInfo"):
            continue
        delay = detail.get("retryDelay")
        if isinstance(delay, str) and delay.endswith("s"):
            return _retry_after_seconds(delay[:-1])
    return None


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every non-empty secret (an API key) replaced by ``[REDACTED]``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, _REDACTED)
    return text


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _snippet(raw: bytes, secrets: Sequence[str]) -> str:
    """The start of a body that is not JSON, on one line, for an error message."""
    text = " ".join(raw.decode("utf-8", errors="replace").split())
    return repr(_truncate(redact(text, secrets), _MAX_SNIPPET_CHARS))

