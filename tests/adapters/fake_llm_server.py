"""A local HTTP server that speaks the Gemini and OpenAI Chat Completions wire formats, for tests.

It listens on 127.0.0.1 (a free port) in a background thread, checks every
request the way the real services do (method, path, API key, content type,
body shape), records it, and answers from a scripted queue::

    with FakeLLMServer() as server:
        server.queue_gemini_text("The margin rate is 8.5%.")
        generator = GeminiGenerator(api_key=server.gemini_api_key, base_url=server.gemini_base_url)
        assert generator.generate("…").text == "The margin rate is 8.5%."
        assert server.requests[0].body["contents"][0]["parts"][0]["text"] == "…"
        assert server.problems == []

Endpoints: ``POST {gemini_base_url}/models/{model}:generateContent`` (key in
``x-goog-api-key`` or ``?key=``) and ``POST {openai_base_url}/chat/completions``
(``Authorization: Bearer KEY`` when the server has an ``openai_api_key``; none
needed when it is ``None``, like a local llama.cpp without ``--api-key``).

A request that the real service would reject (wrong key, unknown field, bad
type, unknown model, wrong path or method) gets that service's error reply
and does not consume the queue; the reason is kept in
``RecordedRequest.problems`` and ``server.problems``. A well-formed request
with nothing queued gets HTTP 400 with a message saying so (400 so the client
fails at once instead of retrying).

Queue methods (each reply is used by exactly one request, first in first out):
``queue_text`` (rendered in the shape of whichever API is called),
``queue_gemini_text``, ``queue_openai_text``, ``queue_error``,
``queue_gemini_blocked``, ``queue_gemini_stopped``, ``queue_gemini_no_candidates``,
``queue_openai_no_content``, ``queue_slow``, ``queue_malformed``,
``queue_disconnect`` and ``queue_raw``.

The test suite imports it by path (``tests`` is not a package, and pytest runs
with ``--import-mode=importlib``)::

    import importlib.util, sys
    from pathlib import Path
    path = Path(__file__).parent / "adapters" / "fake_llm_server.py"
    spec = importlib.util.spec_from_file_location("fake_llm_server", path)
    fake_llm_server = importlib.util.module_from_spec(spec)
    sys.modules["fake_llm_server"] = fake_llm_server
    spec.loader.exec_module(fake_llm_server)
"""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Callable, Sequence

GEMINI_PREFIX = "/v1beta"
OPENAI_PREFIX = "/v1"

DEFAULT_GEMINI_API_KEY = "fake-gemini-key-4f1c9a27d3"
DEFAULT_OPENAI_API_KEY = "sk-fake-openai-key-8b2e6d05c1"

# google.rpc status names by HTTP status, as Gemini reports them in error.status.
GOOGLE_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

# OpenAI's error.type and error.code by HTTP status.
OPENAI_ERROR_KINDS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}

# Top-level request fields each API knows; anything else is rejected, as the services do.
GEMINI_REQUEST_FIELDS = frozenset(
    {
        "contents", "generationConfig", "generation_config", "safetySettings", "safety_settings",
        "systemInstruction", "system_instruction", "tools", "toolConfig", "tool_config",
        "cachedContent", "cached_content",
    }
)
GEMINI_GENERATION_CONFIG_FIELDS: dict[str, tuple[type, ...]] = {
    "temperature": (int, float),
    "maxOutputTokens": (int,),
    "max_output_tokens": (int,),
    "topP": (int, float),
    "top_p": (int, float),
    "topK": (int,),
    "top_k": (int,),
    "candidateCount": (int,),
    "candidate_count": (int,),
    "stopSequences": (list,),
    "stop_sequences": (list,),
    "seed": (int,),
    "presencePenalty": (int, float),
    "frequencyPenalty": (int, float),
    "responseMimeType": (str,),
    "response_mime_type": (str,),
    "responseSchema": (dict,),
    "thinkingConfig": (dict,),
}
OPENAI_REQUEST_FIELDS = frozenset(
    {
        "model", "messages", "temperature", "max_tokens", "max_completion_tokens", "top_p", "n",
        "stream", "stream_options", "stop", "seed", "presence_penalty", "frequency_penalty",
        "logit_bias", "logprobs", "top_logprobs", "response_format", "tools", "tool_choice",
        "parallel_tool_calls", "user", "metadata", "store", "reasoning_effort", "service_tier",
        "modalities", "prediction", "audio",
    }
)
OPENAI_MESSAGE_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})

_GEMINI_PATH = re.compile(r"^/models/(?P<model>[^/:]+):generateContent$")


@dataclass
class RecordedRequest:
    """One request as the server received it.

    ``headers`` keys are lower-case. ``body`` is the decoded JSON (``None`` if
    it was not JSON). ``api`` is ``"gemini"``, ``"openai"`` or ``None`` for an
    unknown path; ``model`` is the model the request named.
    """

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    raw_body: bytes
    body: Any
    api: str | None
    model: str | None
    problems: list[str] = field(default_factory=list)


@dataclass
class Reply:
    """What the server sends back: status, headers and body bytes.

    ``delay`` seconds pass before anything is sent (to make a client time out);
    ``disconnect`` closes the connection without any response.
    """

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    disconnect: bool = False


# A scripted reply is rendered when the request arrives, in the called API's shape.
ReplyRenderer = Callable[[RecordedRequest], Reply]


@dataclass
class _Scripted:
    api: str | None  # "gemini", "openai", or None for "either"
    render: ReplyRenderer
    label: str


def json_reply(status: int, payload: Any, headers: dict[str, str] | None = None, delay: float = 0.0) -> Reply:
    """A JSON reply, encoded as the services do (UTF-8, ``application/json; charset=UTF-8``)."""
    all_headers = {"Content-Type": "application/json; charset=UTF-8"}
    all_headers.update(headers or {})
    return Reply(status, json.dumps(payload, ensure_ascii=False).encode("utf-8"), all_headers, delay)


def token_count(text: str) -> int:
    """A deterministic stand-in for a tokenizer: whitespace-separated words."""
    return len(text.split())


def gemini_text_response(texts: Sequence[str], model: str, prompt_tokens: int, finish_reason: str = "STOP") -> dict[str, Any]:
    """A ``GenerateContentResponse`` with one candidate whose parts are ``texts``."""
    candidate_tokens = sum(token_count(text) for text in texts)
    return {
        "candidates": [
            {
                "content": {"parts": [{"text": text} for text in texts], "role": "model"},
                "finishReason": finish_reason,
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": candidate_tokens,
            "totalTokenCount": prompt_tokens + candidate_tokens,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt_tokens}],
        },
        "modelVersion": model,
        "responseId": "fake-response-id",
    }


def openai_text_response(text: str | None, model: str, prompt_tokens: int, finish_reason: str = "stop") -> dict[str, Any]:
    """A ``chat.completion`` object with one choice whose message content is ``text``."""
    completion_tokens = token_count(text or "")
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
        "system_fingerprint": "fp_fake",
    }


def gemini_error_body(status: int, message: str, retry_delay: float | None = None, status_name: str | None = None) -> dict[str, Any]:
    """Google's error shape: ``{"error": {"code", "message", "status", "details"?}}``."""
    error: dict[str, Any] = {
        "code": status,
        "message": message,
        "status": status_name or GOOGLE_STATUS_NAMES.get(status, "UNKNOWN"),
    }
    if retry_delay is not None:
        error["details"] = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{retry_delay:g}s"}]
    return {"error": error}


def openai_error_body(status: int, message: str, error_type: str | None = None, code: str | None = None) -> dict[str, Any]:
    """OpenAI's error shape: ``{"error": {"message", "type", "param", "code"}}``."""
    default_type, default_code = OPENAI_ERROR_KINDS.get(status, ("api_error", None))
    return {
        "error": {
            "message": message,
            "type": error_type or default_type,
            "param": None,
            "code": code if code is not None else default_code,
        }
    }


def error_reply(api: str | None, status: int, message: str, retry_after: float | None = None, retry_delay: float | None = None) -> Reply:
    """An error reply in the shape of ``api`` (Gemini's for an unknown path)."""
    headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
    if api == "openai":
        return json_reply(status, openai_error_body(status, message), headers)
    return json_reply(status, gemini_error_body(status, message, retry_delay), headers)


class _Handler(BaseHTTPRequestHandler):
    """Parses, records and answers one request; all logic lives on the server."""

    server: "_Server"
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self._handle()

    def do_GET(self) -> None:  # noqa: N802
        self._handle()

    def do_PUT(self) -> None:  # noqa: N802
        self._handle()

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        try:
            reply = self.server.fake.answer(self.command, self.path, dict(self.headers.items()), raw)
        except Exception as error:  # a bug in a scripted reply: say so rather than drop the connection
            self.server.fake.internal_errors.append(f"{type(error).__name__}: {error}")
            reply = error_reply(None, 400, f"fake LLM server failed: {type(error).__name__}: {error}")
        if reply.delay > 0 and self.server.fake.closing.wait(reply.delay):
            self.close_connection = True
            return
        if reply.disconnect:
            self.close_connection = True
            return
        try:
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)
        except OSError:  # the client gave up (a timeout test); nothing to tell it
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's signature)
        """Silent: test output should show assertions, not access logs."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: "FakeLLMServer"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up mid-reply is expected in timeout tests; stay quiet."""


class FakeLLMServer:
    """A scripted Gemini + OpenAI-compatible server on 127.0.0.1; use it as a context manager."""

    def __init__(
        self,
        *,
        gemini_api_key: str = DEFAULT_GEMINI_API_KEY,
        openai_api_key: str | None = DEFAULT_OPENAI_API_KEY,
        gemini_models: Sequence[str] | None = None,
        openai_models: Sequence[str] | None = None,
    ) -> None:
        """``*_models``: the model names the server knows (others get the real 404); ``None`` accepts any."""
        self.gemini_api_key = gemini_api_key
        self.openai_api_key = openai_api_key
        self.gemini_models = frozenset(gemini_models) if gemini_models is not None else None
        self.openai_models = frozenset(openai_models) if openai_models is not None else None
        self.closing = threading.Event()
        self.internal_errors: list[str] = []  # exceptions raised while rendering a reply (a test bug)
        self._lock = threading.Lock()
        self._queue: deque[_Scripted] = deque()
        self._requests: list[RecordedRequest] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> "FakeLLMServer":
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        if self._server is not None:
            return self
        self.closing.clear()
        server = _Server(("127.0.0.1", 0), _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving; slow replies still waiting are abandoned at once."""
        self.closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> "FakeLLMServer":
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- addresses -----------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeLLMServer is not running; use it as a context manager or call start()")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def gemini_base_url(self) -> str:
        """Pass as ``GeminiGenerator(base_url=…)``."""
        return self.base_url + GEMINI_PREFIX

    @property
    def openai_base_url(self) -> str:
        """Pass as ``OpenAICompatibleGenerator(base_url=…)``."""
        return self.base_url + OPENAI_PREFIX

    # -- what was received -----------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def problems(self) -> list[str]:
        """Every validation problem found in any request, and any failure of the server itself
        (empty when all requests were well-formed and answered as scripted)."""
        return [problem for request in self.requests for problem in request.problems] + list(self.internal_errors)

    @property
    def pending(self) -> int:
        """How many scripted replies are still queued."""
        with self._lock:
            return len(self._queue)

    # -- scripting -------------------------------------------------------------------

    def queue_text(self, text: str) -> None:
        """A normal answer with ``text``, in the shape of whichever API is called."""

        def render(request: RecordedRequest) -> Reply:
            if request.api == "openai":
                return self._openai_text_reply(request, text, "stop")
            return self._gemini_text_reply(request, [text], "STOP")

        self._push(None, render, "text")

    def queue_gemini_text(self, text: str | Sequence[str], *, finish_reason: str = "STOP") -> None:
        """A Gemini answer; a sequence of strings becomes that many text parts."""
        texts = [text] if isinstance(text, str) else list(text)
        self._push("gemini", lambda request: self._gemini_text_reply(request, texts, finish_reason), "gemini text")

    def queue_openai_text(self, text: str, *, finish_reason: str = "stop") -> None:
        """An OpenAI chat completion whose first choice says ``text``."""
        self._push("openai", lambda request: self._openai_text_reply(request, text, finish_reason), "openai text")

    def queue_error(
        self,
        status: int,
        message: str,
        retry_after: float | None = None,
        *,
        retry_delay: float | None = None,
    ) -> None:
        """An error in the called API's real shape; ``retry_after`` adds a ``Retry-After`` header,
        ``retry_delay`` a Gemini ``google.rpc.RetryInfo`` detail."""
        self._push(None, lambda request: error_reply(request.api, status, message, retry_after, retry_delay), f"error {status}")

    def queue_gemini_blocked(self, block_reason: str = "SAFETY") -> None:
        """A blocked prompt: no candidates, ``promptFeedback.blockReason`` set (HTTP 200, as Gemini does)."""

        def render(request: RecordedRequest) -> Reply:
            payload = {
                "promptFeedback": {
                    "blockReason": block_reason,
                    "safetyRatings": [
                        {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH"},
                    ],
                },
                "usageMetadata": {"promptTokenCount": self._prompt_tokens(request), "totalTokenCount": self._prompt_tokens(request)},
                "modelVersion": request.model,
            }
            return json_reply(200, payload)

        self._push("gemini", render, "gemini blocked")

    def queue_gemini_stopped(self, finish_reason: str = "SAFETY") -> None:
        """A candidate stopped before any text (``finishReason`` SAFETY, RECITATION, …), no ``content``."""

        def render(request: RecordedRequest) -> Reply:
            payload = {
                "candidates": [
                    {
                        "finishReason": finish_reason,
                        "index": 0,
                        "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT", "probability": "MEDIUM"}],
                    }
                ],
                "usageMetadata": {"promptTokenCount": self._prompt_tokens(request), "totalTokenCount": self._prompt_tokens(request)},
                "modelVersion": request.model,
            }
            return json_reply(200, payload)

        self._push("gemini", render, "gemini stopped")

    def queue_gemini_no_candidates(self) -> None:
        """A 200 reply with usage metadata but no candidates and no block reason."""
        self._push(
            "gemini",
            lambda request: json_reply(200, {"usageMetadata": {"promptTokenCount": self._prompt_tokens(request)}, "modelVersion": request.model}),
            "gemini no candidates",
        )

    def queue_openai_no_content(self, finish_reason: str = "length") -> None:
        """A chat completion whose message content is ``null`` (e.g. all tokens spent on reasoning)."""
        self._push("openai", lambda request: self._openai_text_reply(request, None, finish_reason), "openai no content")

    def queue_slow(self, delay: float, text: str = "too late") -> None:
        """A normal answer sent only after ``delay`` seconds (abandoned at once when the server closes)."""

        def render(request: RecordedRequest) -> Reply:
            reply = (
                self._openai_text_reply(request, text, "stop")
                if request.api == "openai"
                else self._gemini_text_reply(request, [text], "STOP")
            )
            reply.delay = delay
            return reply

        self._push(None, render, f"slow {delay:g}s")

    def queue_malformed(self, body: bytes = b'{"candidates": [{"content": ', status: int = 200) -> None:
        """A reply whose body is not valid JSON, labelled ``application/json``."""
        self.queue_raw(status, body, {"Content-Type": "application/json; charset=UTF-8"})

    def queue_disconnect(self) -> None:
        """Close the connection without sending any response (a dropped connection)."""
        self._push(None, lambda request: Reply(0, b"", disconnect=True), "disconnect")

    def queue_raw(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        """Exactly these bytes, for shapes the other methods do not cover."""
        self._push(None, lambda request: Reply(status, body, dict(headers or {})), f"raw {status}")

    # -- request handling (called from the handler threads) ------------------------

    def answer(self, method: str, target: str, headers: dict[str, str], raw: bytes) -> Reply:
        """Record the request, validate it, and pick the reply."""
        split = urllib.parse.urlsplit(target)
        query = dict(urllib.parse.parse_qsl(split.query))
        lowered = {name.lower(): value for name, value in headers.items()}
        try:
            body: Any = json.loads(raw.decode("utf-8")) if raw else None
        except (UnicodeDecodeError, ValueError):
            body = None
        api, model = self._route(split.path)
        if api == "openai" and isinstance(body, dict) and isinstance(body.get("model"), str):
            model = body["model"]
        request = RecordedRequest(method, split.path, query, lowered, raw, body, api, model)
        with self._lock:
            self._requests.append(request)
        rejection = self._validate(request)
        if rejection is not None:
            return rejection
        with self._lock:
            scripted = self._queue.popleft() if self._queue else None
        if scripted is None:
            message = "fake LLM server: no reply queued for this request"
            request.problems.append(message)
            return error_reply(api, 400, message)
        if scripted.api is not None and scripted.api != api:
            message = f"fake LLM server: the queued reply ({scripted.label}) is for {scripted.api}, the request was for {api}"
            request.problems.append(message)
            return error_reply(api, 400, message)
        return scripted.render(request)

    def _route(self, path: str) -> tuple[str | None, str | None]:
        if path.startswith(GEMINI_PREFIX + "/"):
            match = _GEMINI_PATH.match(path[len(GEMINI_PREFIX):])
            if match:
                return "gemini", urllib.parse.unquote(match.group("model"))
        if path == OPENAI_PREFIX + "/chat/completions":
            return "openai", None
        return None, None

    def _validate(self, request: RecordedRequest) -> Reply | None:
        """The real service's error reply for a request it would reject, or ``None``."""
        if request.api is None:
            return self._reject(request, None, 404, f"fake LLM server: no endpoint at {request.path}")
        if request.method != "POST":
            return self._reject(request, request.api, 405, f"method {request.method} is not allowed; use POST")
        if request.api == "gemini":
            return self._validate_gemini(request)
        return self._validate_openai(request)

    def _reject(self, request: RecordedRequest, api: str | None, status: int, message: str) -> Reply:
        request.problems.append(f"HTTP {status}: {message}")
        return error_reply(api, status, message)

    def _validate_gemini(self, request: RecordedRequest) -> Reply | None:
        key = request.headers.get("x-goog-api-key") or request.query.get("key")
        if not key:
            return self._reject(
                request, "gemini", 403,
                "Method doesn't allow unregistered callers (callers without established identity). "
                "Please use API Key or other form of API consumer identity to call this API.",
            )
        if key != self.gemini_api_key:
            return self._reject(request, "gemini", 400, "API key not valid. Please pass a valid API key.")
        problem = _content_type_problem(request)
        if problem:
            return self._reject(request, "gemini", 400, problem)
        problem = _gemini_body_problem(request.body)
        if problem:
            return self._reject(request, "gemini", 400, problem)
        if self.gemini_models is not None and request.model not in self.gemini_models:
            return self._reject(
                request, "gemini", 404,
                f"models/{request.model} is not found for API version {GEMINI_PREFIX.strip('/')}, or is not "
                "supported for generateContent. Call ListModels to see the list of available models and "
                "their supported methods.",
            )
        return None

    def _validate_openai(self, request: RecordedRequest) -> Reply | None:
        if self.openai_api_key is not None:
            authorization = request.headers.get("authorization", "")
            if not authorization.startswith("Bearer ") or not authorization[len("Bearer "):].strip():
                return self._reject(
                    request, "openai", 401,
                    "You didn't provide an API key. You need to provide your API key in an Authorization "
                    "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
                )
            if authorization[len("Bearer "):] != self.openai_api_key:
                # The real service echoes a masked key; echoing it whole tests the client's redaction.
                return self._reject(request, "openai", 401, f"Incorrect API key provided: {authorization[len('Bearer '):]}.")
        problem = _content_type_problem(request)
        if problem:
            return self._reject(request, "openai", 400, problem)
        problem = _openai_body_problem(request.body)
        if problem:
            return self._reject(request, "openai", 400, problem)
        if self.openai_models is not None and request.model not in self.openai_models:
            return self._reject(
                request, "openai", 404,
                f"The model `{request.model}` does not exist or you do not have access to it.",
            )
        return None

    # -- reply rendering ---------------------------------------------------------------

    def _push(self, api: str | None, render: ReplyRenderer, label: str) -> None:
        with self._lock:
            self._queue.append(_Scripted(api, render, label))

    @staticmethod
    def _prompt_tokens(request: RecordedRequest) -> int:
        body = request.body if isinstance(request.body, dict) else {}
        if request.api == "openai":
            messages = body.get("messages") or []
            return sum(token_count(m.get("content", "")) for m in messages if isinstance(m.get("content"), str))
        return sum(
            token_count(part.get("text", ""))
            for content in body.get("contents") or []
            for part in content.get("parts") or []
            if isinstance(part.get("text"), str)
        )

    def _gemini_text_reply(self, request: RecordedRequest, texts: Sequence[str], finish_reason: str) -> Reply:
        return json_reply(200, gemini_text_response(texts, request.model or "", self._prompt_tokens(request), finish_reason))

    def _openai_text_reply(self, request: RecordedRequest, text: str | None, finish_reason: str) -> Reply:
        return json_reply(200, openai_text_response(text, request.model or "", self._prompt_tokens(request), finish_reason))


# -- request validation ------------------------------------------------------------------


def _content_type_problem(request: RecordedRequest) -> str | None:
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        return f"Content-Type must be application/json, got {content_type!r}"
    if request.body is None:
        return "Invalid JSON payload received. The body is not valid JSON."
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _gemini_body_problem(body: Any) -> str | None:
    """Why Gemini would reject this ``GenerateContentRequest``, or ``None``."""
    if not isinstance(body, dict):
        return "Invalid JSON payload received. Expected an object."
    for name in sorted(body):
        if name not in GEMINI_REQUEST_FIELDS:
            return f'Invalid JSON payload received. Unknown name "{name}": Cannot find field.'
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        return "* GenerateContentRequest.contents: contents is not specified"
    for index, content in enumerate(contents):
        if not isinstance(content, dict):
            return f"Invalid value at 'contents[{index}]': expected a Content object"
        for name in sorted(content):
            if name not in ("role", "parts"):
                return f'Invalid JSON payload received. Unknown name "{name}" at \'contents[{index}]\': Cannot find field.'
        if content.get("role", "user") not in ("user", "model"):
            return f"Please use a valid role: user, model. (contents[{index}].role)"
        parts = content.get("parts")
        if not isinstance(parts, list) or not parts:
            return f"* GenerateContentRequest.contents[{index}].parts: contents.parts must not be empty."
        for part_index, part in enumerate(parts):
            if not isinstance(part, dict) or not isinstance(part.get("text"), str):
                return f"* GenerateContentRequest.contents[{index}].parts[{part_index}].data: required oneof field 'data' must have one initialized field"
    config = body.get("generationConfig", body.get("generation_config", {}))
    if not isinstance(config, dict):
        return "Invalid value at 'generation_config': expected a GenerationConfig object"
    for name in sorted(config):
        expected = GEMINI_GENERATION_CONFIG_FIELDS.get(name)
        if expected is None:
            return f'Invalid JSON payload received. Unknown name "{name}" at \'generation_config\': Cannot find field.'
        value = config[name]
        if isinstance(value, bool) or not isinstance(value, expected):
            return f"Invalid value at 'generation_config.{name}' ({type(value).__name__})"
    temperature = config.get("temperature")
    if temperature is not None and not 0.0 <= temperature <= 2.0:
        return "* GenerateContentRequest.generation_config.temperature: must be in the range [0.0, 2.0]"
    max_output_tokens = config.get("maxOutputTokens", config.get("max_output_tokens"))
    if max_output_tokens is not None and max_output_tokens < 1:
        return "* GenerateContentRequest.generation_config.max_output_tokens: must be positive"
    return None


def _openai_body_problem(body: Any) -> str | None:
    """Why the Chat Completions API would reject this request, or ``None``."""
    if not isinstance(body, dict):
        return "We could not parse the JSON body of your request. The body must be a JSON object."
    for name in sorted(body):
        if name not in OPENAI_REQUEST_FIELDS:
            return f"Unrecognized request argument supplied: {name}"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "Missing required parameter: 'messages'."
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            return f"Invalid type for 'messages[{index}]': expected an object."
        if message.get("role") not in OPENAI_MESSAGE_ROLES:
            return f"Invalid value: '{message.get('role')}'. Supported values are: 'system', 'assistant', 'user', 'tool', 'developer'. (messages[{index}].role)"
        content = message.get("content")
        if not isinstance(content, (str, list)):
            return f"Invalid type for 'messages[{index}].content': expected one of a string or array of objects."
    temperature = body.get("temperature")
    if temperature is not None and (not _is_number(temperature) or not 0.0 <= temperature <= 2.0):
        return f"Invalid 'temperature': {temperature!r}. Expected a number between 0 and 2."
    max_tokens = body.get("max_tokens")
    if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1):
        return f"Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got {max_tokens!r} instead."
    return None
