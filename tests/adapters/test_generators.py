"""The HTTP generators, over real HTTP round trips to a local server that speaks each API's format.

Every test injects a sleep that records instead of waiting, so retries cost no
time; the only real waits are the 0.2 s client timeouts of the slow-server
tests.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import sys
import time
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

import pytest

from regrag.adapters.base import AdapterError, Generation, Generator
from regrag.adapters.gemini import GeminiGenerator
from regrag.adapters.http import DEFAULT_MAX_DELAY, JsonHttpClient, display_url
from regrag.adapters.openai_compatible import OpenAICompatibleGenerator


def _load_fake_server() -> ModuleType:
    """``tests`` is not a package (pytest runs with --import-mode=importlib): load the helper by path."""
    name = "fake_llm_server"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("fake_llm_server.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is created
    spec.loader.exec_module(module)
    return module


fake_llm_server = _load_fake_server()
FakeLLMServer = fake_llm_server.FakeLLMServer

PROMPT = "What is the margin interest rate on a Northquill Go margin account?"


@pytest.fixture(autouse=True)
def no_keys_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's real keys must neither leak into requests nor make a test pass by accident."""
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.fixture
def server() -> Iterator[Any]:
    with FakeLLMServer() as running:
        yield running


@pytest.fixture
def sleeps() -> list[float]:
    """The delays the client asked to sleep, in order (nothing actually sleeps)."""
    return []


def gemini(server: Any, sleeps: list[float], **options: Any) -> GeminiGenerator:
    options.setdefault("api_key", server.gemini_api_key)
    return GeminiGenerator(base_url=server.gemini_base_url, sleep=sleeps.append, **options)


def openai(server: Any, sleeps: list[float], **options: Any) -> OpenAICompatibleGenerator:
    options.setdefault("model", "qwen2.5-7b-instruct")
    options.setdefault("api_key", server.openai_api_key)
    return OpenAICompatibleGenerator(base_url=server.openai_base_url, sleep=sleeps.append, **options)


def failure_text(error: BaseException) -> str:
    """Everything a log could show of an exception: the message, repr, and the formatted chain."""
    return "\n".join([str(error), repr(error), *traceback.format_exception(type(error), error, error.__traceback__)])


def assert_no_secret(error: BaseException, *secrets: str) -> None:
    text = failure_text(error)
    for secret in secrets:
        assert secret not in text


# -- success -----------------------------------------------------------------------------


def test_gemini_round_trip_sends_the_real_request_and_joins_text_parts(server: Any, sleeps: list[float]) -> None:
    server.queue_gemini_text(["The margin rate ", "is 8.5% a year."])
    generator = gemini(server, sleeps, temperature=0.2, max_output_tokens=128)

    generation = generator.generate(PROMPT)

    assert generation == Generation(
        "The margin rate is 8.5% a year.",
        "gemini-1.5-flash",
        {"temperature": 0.2, "max_output_tokens": 128, "api": "gemini-generateContent"},
    )
    assert generator.model == "gemini-1.5-flash"
    (request,) = server.requests
    assert request.method == "POST"
    assert request.path == "/v1beta/models/gemini-1.5-flash:generateContent"
    assert request.query == {}  # the key travels in a header, never in the URL
    assert request.headers["x-goog-api-key"] == server.gemini_api_key
    assert request.headers["content-type"] == "application/json"
    assert request.body == {
        "contents": [{"role": "user", "parts": [{"text": PROMPT}]}],
        "generationConfig": {"temperature": 0.2, "maxOutputTokens": 128},
    }
    assert json.loads(request.raw_body.decode("utf-8")) == request.body
    assert server.problems == [] and sleeps == []


def test_openai_round_trip_sends_the_real_request(server: Any, sleeps: list[float]) -> None:
    server.queue_openai_text("8.5% a year.")
    generator = openai(server, sleeps, max_tokens=64)

    generation = generator.generate(PROMPT)

    assert generation == Generation(
        "8.5% a year.",
        "qwen2.5-7b-instruct",
        {"temperature": 0.0, "max_tokens": 64, "api": "openai-chat-completions"},
    )
    (request,) = server.requests
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == f"Bearer {server.openai_api_key}"
    assert request.headers["content-type"] == "application/json"
    assert request.body == {
        "model": "qwen2.5-7b-instruct",
        "messages": [{"role": "user", "content": PROMPT}],
        "temperature": 0.0,
        "max_tokens": 64,
    }
    assert server.problems == [] and sleeps == []


def test_generators_satisfy_the_generator_protocol(server: Any, sleeps: list[float]) -> None:
    assert isinstance(gemini(server, sleeps), Generator)
    assert isinstance(openai(server, sleeps), Generator)


def test_openai_without_a_key_sends_no_authorization_header(sleeps: list[float]) -> None:
    with FakeLLMServer(openai_api_key=None) as local_server:  # like llama-server without --api-key
        local_server.queue_openai_text("ok")
        generator = OpenAICompatibleGenerator("local-model", base_url=local_server.openai_base_url, sleep=sleeps.append)
        assert generator.generate(PROMPT).text == "ok"
        assert "authorization" not in local_server.requests[0].headers


def test_openai_key_comes_from_the_environment(server: Any, sleeps: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", server.openai_api_key)
    server.queue_openai_text("ok")
    generator = OpenAICompatibleGenerator("m", base_url=server.openai_base_url + "/", sleep=sleeps.append)
    assert generator.generate(PROMPT).text == "ok"
    assert server.requests[0].headers["authorization"] == f"Bearer {server.openai_api_key}"
    assert server.requests[0].path == "/v1/chat/completions"  # the trailing slash is not doubled


def test_an_empty_openai_key_overrides_the_environment(server: Any, sleeps: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-this-server")
    server.queue_openai_text("ok")
    generator = OpenAICompatibleGenerator("m", base_url=server.openai_base_url, api_key="", sleep=sleeps.append)
    with pytest.raises(AdapterError, match=r"HTTP 401 \(invalid_api_key\): You didn't provide an API key"):
        generator.generate(PROMPT)
    assert "authorization" not in server.requests[0].headers


def test_gemini_key_comes_from_the_environment(server: Any, sleeps: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", server.gemini_api_key)
    server.queue_gemini_text("ok")
    generator = GeminiGenerator("gemini-2.0-flash", base_url=server.gemini_base_url, sleep=sleeps.append)
    assert generator.generate(PROMPT) == Generation(
        "ok", "gemini-2.0-flash", {"temperature": 0.0, "max_output_tokens": 512, "api": "gemini-generateContent"}
    )
    assert server.requests[0].path == "/v1beta/models/gemini-2.0-flash:generateContent"


def test_gemini_skips_thought_parts(server: Any, sleeps: list[float]) -> None:
    body = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "Let me think.", "thought": True}, {"text": "8.5%"}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ]
    }
    server.queue_raw(200, json.dumps(body).encode(), {"Content-Type": "application/json"})
    assert gemini(server, sleeps).generate(PROMPT).text == "8.5%"


def test_queue_text_answers_in_either_api_shape(server: Any, sleeps: list[float]) -> None:
    server.queue_text("from gemini")
    server.queue_text("from openai")
    assert gemini(server, sleeps).generate(PROMPT).text == "from gemini"
    assert openai(server, sleeps).generate(PROMPT).text == "from openai"
    assert server.pending == 0 and server.problems == []


# -- retries -------------------------------------------------------------------------------


def test_429_is_retried_after_the_retry_after_header(server: Any, sleeps: list[float]) -> None:
    server.queue_error(429, "Resource has been exhausted (e.g. check quota).", retry_after=7)
    server.queue_gemini_text("ok")

    assert gemini(server, sleeps).generate(PROMPT).text == "ok"

    assert sleeps == [7.0]
    first, second = server.requests
    assert first.body == second.body and first.path == second.path
    assert server.problems == []


def test_retry_after_is_capped(server: Any, sleeps: list[float]) -> None:
    server.queue_error(429, "Rate limit reached for requests", retry_after=3600)
    server.queue_openai_text("ok")
    assert openai(server, sleeps).generate(PROMPT).text == "ok"
    assert sleeps == [DEFAULT_MAX_DELAY]


def test_gemini_retry_info_is_honoured_without_a_header(server: Any, sleeps: list[float]) -> None:
    server.queue_error(429, "You exceeded your current quota.", retry_delay=22)
    server.queue_gemini_text("ok")
    assert gemini(server, sleeps).generate(PROMPT).text == "ok"
    assert sleeps == [22.0]


def test_5xx_is_retried_with_exponential_backoff(server: Any, sleeps: list[float]) -> None:
    server.queue_error(503, "The model is overloaded. Please try again later.")
    server.queue_error(500, "An internal error has occurred.")
    server.queue_openai_text("ok")
    assert openai(server, sleeps).generate(PROMPT).text == "ok"
    assert sleeps == [0.5, 1.0]
    assert len(server.requests) == 3


def test_gives_up_after_the_retries_naming_url_status_and_message(server: Any, sleeps: list[float]) -> None:
    for _ in range(4):
        server.queue_error(503, "The model is overloaded. Please try again later.")
    generator = gemini(server, sleeps)

    with pytest.raises(AdapterError) as caught:
        generator.generate(PROMPT)

    message = str(caught.value)
    assert message.startswith(f"POST {generator.endpoint} failed after 4 attempts: ")
    assert "HTTP 503 (UNAVAILABLE): The model is overloaded. Please try again later." in message
    assert sleeps == [0.5, 1.0, 2.0]
    assert len(server.requests) == 4
    assert_no_secret(caught.value, server.gemini_api_key)


def test_retries_zero_means_one_attempt(server: Any, sleeps: list[float]) -> None:
    server.queue_error(500, "An internal error has occurred.")
    with pytest.raises(AdapterError, match=r"failed after 1 attempt: HTTP 500 \(server_error\)"):
        openai(server, sleeps, retries=0).generate(PROMPT)
    assert sleeps == [] and len(server.requests) == 1


@pytest.mark.parametrize("api", ["gemini", "openai"])
@pytest.mark.parametrize(
    "status, server_message",
    [
        (400, "Invalid JSON payload received."),
        (401, "Request had invalid authentication credentials."),
        (403, "Permission denied: Consumer has been suspended."),
        (404, "The model `m` does not exist or you do not have access to it."),
    ],
)
def test_client_errors_fail_at_once(server: Any, sleeps: list[float], api: str, status: int, server_message: str) -> None:
    server.queue_error(status, server_message)
    generator = gemini(server, sleeps) if api == "gemini" else openai(server, sleeps)

    with pytest.raises(AdapterError) as caught:
        generator.generate(PROMPT)

    message = str(caught.value)
    assert message.startswith(f"POST {generator.endpoint} failed: HTTP {status} (")
    assert server_message in message
    assert len(server.requests) == 1 and sleeps == []
    assert_no_secret(caught.value, server.gemini_api_key, server.openai_api_key)


def test_timeout_is_retried_then_reported(server: Any, sleeps: list[float]) -> None:
    server.queue_slow(5.0)
    server.queue_slow(5.0)
    started = time.monotonic()

    with pytest.raises(AdapterError) as caught:
        gemini(server, sleeps, timeout=0.2, retries=1).generate(PROMPT)

    assert time.monotonic() - started < 2.0
    assert "failed after 2 attempts: timed out after 0.2 s" in str(caught.value)
    assert sleeps == [0.5] and len(server.requests) == 2


def test_timeout_then_success(server: Any, sleeps: list[float]) -> None:
    server.queue_slow(5.0)
    server.queue_openai_text("ok")
    assert openai(server, sleeps, timeout=0.2).generate(PROMPT).text == "ok"
    assert sleeps == [0.5]


def test_dropped_connection_is_retried(server: Any, sleeps: list[float]) -> None:
    server.queue_disconnect()
    server.queue_gemini_text("ok")
    assert gemini(server, sleeps).generate(PROMPT).text == "ok"
    assert sleeps == [0.5]


def test_refused_connection_is_retried_then_reported(sleeps: list[float]) -> None:
    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    generator = OpenAICompatibleGenerator("m", base_url=f"http://127.0.0.1:{port}/v1", retries=2, sleep=sleeps.append)
    with pytest.raises(AdapterError, match=r"failed after 3 attempts: connection error"):
        generator.generate(PROMPT)
    assert sleeps == [0.5, 1.0]


def test_non_json_error_body_is_quoted_and_5xx_retried(server: Any, sleeps: list[float]) -> None:
    server.queue_raw(502, b"<html><body>502 Bad Gateway</body></html>", {"Content-Type": "text/html"})
    server.queue_raw(502, b"<html><body>502 Bad Gateway</body></html>", {"Content-Type": "text/html"})
    with pytest.raises(AdapterError, match=r"after 2 attempts: HTTP 502: '<html><body>502 Bad Gateway"):
        openai(server, sleeps, retries=1).generate(PROMPT)


def test_redirects_are_refused(server: Any, sleeps: list[float]) -> None:
    server.queue_raw(307, b"", {"Location": "http://attacker.invalid/steal"})
    with pytest.raises(AdapterError, match=r"failed: HTTP 307 \(redirects are not followed\)"):
        gemini(server, sleeps).generate(PROMPT)
    assert len(server.requests) == 1


# -- bad replies ------------------------------------------------------------------------------


@pytest.mark.parametrize("api", ["gemini", "openai"])
def test_malformed_json_in_a_200_reply(server: Any, sleeps: list[float], api: str) -> None:
    server.queue_malformed()
    generator = gemini(server, sleeps) if api == "gemini" else openai(server, sleeps)
    with pytest.raises(AdapterError) as caught:
        generator.generate(PROMPT)
    assert str(caught.value) == (
        f"POST {generator.endpoint} returned HTTP 200 with a body that is not valid JSON: "
        "'{\"candidates\": [{\"content\":'"
    )
    assert len(server.requests) == 1 and sleeps == []


def test_gemini_blocked_prompt(server: Any, sleeps: list[float]) -> None:
    server.queue_gemini_blocked("PROHIBITED_CONTENT")
    with pytest.raises(AdapterError, match=r"^Gemini model gemini-1.5-flash blocked the prompt \(blockReason PROHIBITED_CONTENT\)$"):
        gemini(server, sleeps).generate(PROMPT)


@pytest.mark.parametrize("finish_reason", ["SAFETY", "RECITATION"])
def test_gemini_candidate_stopped_without_text(server: Any, sleeps: list[float], finish_reason: str) -> None:
    server.queue_gemini_stopped(finish_reason)
    with pytest.raises(AdapterError, match=rf"returned no text \(finishReason {finish_reason}\)"):
        gemini(server, sleeps).generate(PROMPT)


def test_gemini_no_candidates(server: Any, sleeps: list[float]) -> None:
    server.queue_gemini_no_candidates()
    with pytest.raises(AdapterError, match=r"^Gemini model gemini-1.5-flash returned no candidates$"):
        gemini(server, sleeps).generate(PROMPT)


def test_openai_null_content(server: Any, sleeps: list[float]) -> None:
    server.queue_openai_no_content("length")
    with pytest.raises(AdapterError, match=r"returned no message content \(finish_reason length\)"):
        openai(server, sleeps).generate(PROMPT)


def test_openai_empty_content(server: Any, sleeps: list[float]) -> None:
    server.queue_openai_text("")
    with pytest.raises(AdapterError, match=r"returned no message content \(finish_reason stop\)"):
        openai(server, sleeps).generate(PROMPT)


def test_openai_error_object_with_status_200(server: Any, sleeps: list[float]) -> None:
    body = {"object": "error", "message": "The model `m` does not exist.", "type": "NotFoundError", "param": None, "code": 404}
    server.queue_raw(200, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with pytest.raises(AdapterError, match=r"returned an error: The model `m` does not exist\.$"):
        openai(server, sleeps).generate(PROMPT)


def test_vllm_top_level_error_shape_is_read(server: Any, sleeps: list[float]) -> None:
    body = {"object": "error", "message": "The model `m` does not exist.", "type": "NotFoundError", "param": None, "code": 404}
    server.queue_raw(404, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with pytest.raises(AdapterError, match=r"failed: HTTP 404 \(NotFoundError\): The model `m` does not exist\.$"):
        openai(server, sleeps).generate(PROMPT)


# -- keys ---------------------------------------------------------------------------------------


def test_missing_gemini_key_names_the_environment_variable() -> None:
    with pytest.raises(AdapterError, match="set the GEMINI_API_KEY environment variable"):
        GeminiGenerator()


def test_empty_gemini_key_in_environment_counts_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "")
    with pytest.raises(AdapterError, match="GEMINI_API_KEY"):
        GeminiGenerator()


def test_wrong_gemini_key_is_rejected_as_the_real_api_does(server: Any, sleeps: list[float]) -> None:
    wrong_key = "AIzaWrongKey-0123456789"
    with pytest.raises(AdapterError) as caught:
        gemini(server, sleeps, api_key=wrong_key).generate(PROMPT)
    assert "HTTP 400 (INVALID_ARGUMENT): API key not valid. Please pass a valid API key." in str(caught.value)
    assert len(server.requests) == 1
    assert_no_secret(caught.value, wrong_key, server.gemini_api_key)


def test_wrong_openai_key_echoed_by_the_server_is_redacted(server: Any, sleeps: list[float]) -> None:
    wrong_key = "sk-wrong-key-0123456789"
    with pytest.raises(AdapterError) as caught:
        openai(server, sleeps, api_key=wrong_key).generate(PROMPT)
    assert "HTTP 401 (invalid_api_key): Incorrect API key provided: [REDACTED]." in str(caught.value)
    assert_no_secret(caught.value, wrong_key, server.openai_api_key)


def _queue_rate_limit_then_overload(server: Any) -> None:
    server.queue_error(429, "Resource has been exhausted (e.g. check quota).", retry_after=1)
    for _ in range(3):
        server.queue_error(503, "The model is overloaded. Please try again later.")


SCRIPTED_FAILURES: dict[str, Callable[[Any], None]] = {
    "429 then 503s": _queue_rate_limit_then_overload,
    "401": lambda server: server.queue_error(401, "Request had invalid authentication credentials."),
    "malformed": lambda server: server.queue_malformed(),
    "timeout": lambda server: server.queue_slow(5.0),
    "disconnect": lambda server: server.queue_disconnect(),
    "non-JSON 500": lambda server: server.queue_raw(500, b"Internal Server Error"),
}


@pytest.mark.parametrize("scenario", sorted(SCRIPTED_FAILURES))
@pytest.mark.parametrize("api", ["gemini", "openai"])
def test_the_api_key_never_appears_in_an_exception(server: Any, sleeps: list[float], api: str, scenario: str) -> None:
    SCRIPTED_FAILURES[scenario](server)
    make = gemini if api == "gemini" else openai
    generator = make(server, sleeps, timeout=0.2, retries=0 if scenario in ("timeout", "disconnect") else 3)
    with pytest.raises(AdapterError) as caught:
        generator.generate(PROMPT)
    assert_no_secret(caught.value, server.gemini_api_key, server.openai_api_key)


# -- the fake server's own checks --------------------------------------------------------------


def test_unknown_model_gets_the_real_404(sleeps: list[float]) -> None:
    with FakeLLMServer(gemini_models=["gemini-1.5-flash"], openai_models=["served-model"]) as local_server:
        with pytest.raises(AdapterError, match=r"HTTP 404 \(NOT_FOUND\): models/gemini-0-nope is not found for API version v1beta"):
            gemini(local_server, sleeps, model="gemini-0-nope").generate(PROMPT)
        with pytest.raises(AdapterError, match=r"HTTP 404 \(model_not_found\): The model `other` does not exist"):
            openai(local_server, sleeps, model="other").generate(PROMPT)
        assert len(local_server.problems) == 2 and sleeps == []


@pytest.mark.parametrize(
    "path, body, headers, expected",
    [
        ("/v1beta/models/m:generateContent", {"contents": [{"parts": [{"text": "x"}]}]}, {}, "HTTP 403 (PERMISSION_DENIED)"),
        (
            "/v1beta/models/m:generateContent",
            {"contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"max_tokens": 5}},
            {"x-goog-api-key": "GEMINI"},
            'Unknown name "max_tokens"',
        ),
        ("/v1beta/models/m:generateContent", {"contents": []}, {"x-goog-api-key": "GEMINI"}, "contents is not specified"),
        (
            "/v1beta/models/m:generateContent",
            {"contents": [{"parts": [{"text": "x"}]}]},
            {"x-goog-api-key": "GEMINI", "Content-Type": "text/plain"},
            "Content-Type must be application/json",
        ),
        ("/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "x"}]}, {}, "HTTP 401 (invalid_api_key)"),
        (
            "/v1/chat/completions",
            {"model": "m", "prompt": "x"},
            {"Authorization": "Bearer OPENAI"},
            "Unrecognized request argument supplied: prompt",
        ),
        (
            "/v1/chat/completions",
            {"model": "m", "messages": [{"role": "robot", "content": "x"}]},
            {"Authorization": "Bearer OPENAI"},
            "Invalid value: 'robot'",
        ),
        ("/v1/completions", {"model": "m", "prompt": "x"}, {"Authorization": "Bearer OPENAI"}, "HTTP 404"),
    ],
)
def test_the_fake_server_rejects_what_the_real_api_rejects(
    server: Any, path: str, body: dict[str, Any], headers: dict[str, str], expected: str
) -> None:
    server.queue_text("never sent")
    keys = {"GEMINI": server.gemini_api_key, "OPENAI": server.openai_api_key}
    real_headers = {name: " ".join(keys.get(word, word) for word in value.split(" ")) for name, value in headers.items()}
    client = JsonHttpClient(retries=0, sleep=lambda seconds: None)
    with pytest.raises(AdapterError) as caught:
        client.post_json(server.base_url + path, body, real_headers, secrets=tuple(keys.values()))
    assert expected in str(caught.value)
    assert server.pending == 1  # a rejected request does not use up the scripted reply
    assert len(server.problems) == 1


def test_an_unscripted_request_fails_at_once_and_says_why(server: Any, sleeps: list[float]) -> None:
    with pytest.raises(AdapterError, match="no reply queued for this request"):
        gemini(server, sleeps).generate(PROMPT)
    assert sleeps == [] and server.problems == ["fake LLM server: no reply queued for this request"]


def test_a_reply_queued_for_the_other_api_is_reported(server: Any, sleeps: list[float]) -> None:
    server.queue_openai_text("wrong shape")
    with pytest.raises(AdapterError, match="is for openai, the request was for gemini"):
        gemini(server, sleeps).generate(PROMPT)


def test_usage_fields_are_in_the_replies(server: Any) -> None:
    server.queue_gemini_text("one two three")
    server.queue_openai_text("one two")
    client = JsonHttpClient(retries=0)
    gemini_reply = client.post_json(
        server.gemini_base_url + "/models/m:generateContent",
        {"contents": [{"role": "user", "parts": [{"text": "a b"}]}]},
        {"x-goog-api-key": server.gemini_api_key},
    )
    openai_reply = client.post_json(
        server.openai_base_url + "/chat/completions",
        {"model": "m", "messages": [{"role": "user", "content": "a b c"}]},
        {"Authorization": f"Bearer {server.openai_api_key}"},
    )
    assert gemini_reply["usageMetadata"]["promptTokenCount"] == 2
    assert gemini_reply["usageMetadata"]["candidatesTokenCount"] == 3
    assert gemini_reply["usageMetadata"]["totalTokenCount"] == 5
    assert gemini_reply["modelVersion"] == "m"
    assert openai_reply["usage"] == {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    assert openai_reply["object"] == "chat.completion" and openai_reply["model"] == "m"


# -- the HTTP client's pieces ------------------------------------------------------------------


def test_display_url_drops_credentials_query_and_fragment() -> None:
    assert display_url("http://user:secret@127.0.0.1:8080/v1/chat/completions?key=abc#frag") == (
        "http://127.0.0.1:8080/v1/chat/completions"
    )
    assert display_url("https://generativelanguage.googleapis.com/v1beta/models/m:generateContent") == (
        "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent"
    )


def test_backoff_doubles_and_is_capped() -> None:
    client = JsonHttpClient(base_delay=0.5, max_delay=3.0, sleep=lambda seconds: None)
    assert [client.delay_before_retry(attempt, None) for attempt in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert client.delay_before_retry(1, 2.5) == 2.5
    assert client.delay_before_retry(1, 99.0) == 3.0


@pytest.mark.parametrize("options", [{"timeout": 0}, {"timeout": -1.0}, {"retries": -1}, {"retries": 1.5}])
def test_client_rejects_bad_settings(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        JsonHttpClient(**options)


def test_generators_reject_bad_settings(server: Any, sleeps: list[float]) -> None:
    with pytest.raises(AdapterError, match="max_output_tokens"):
        gemini(server, sleeps, max_output_tokens=0)
    with pytest.raises(AdapterError, match="model name"):
        OpenAICompatibleGenerator("")
    with pytest.raises(AdapterError, match="temperature"):
        openai(server, sleeps, temperature=-0.1)
    with pytest.raises(AdapterError, match="temperature"):
        gemini(server, sleeps, temperature=float("nan"))
