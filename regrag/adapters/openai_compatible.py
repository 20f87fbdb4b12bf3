"""A ``Generator`` for any server that speaks OpenAI's Chat Completions API, standard library only.

llama.cpp's ``llama-server``, vLLM, Ollama, LM Studio and OpenAI itself all
accept ``POST {base_url}/chat/completions`` with a ``model``, a list of
``messages``, a ``temperature`` and ``max_tokens``, and answer with
``choices[0].message.content``. Local servers usually need no key; when one
is given (or ``OPENAI_API_KEY`` is set) it is sent as ``Authorization:
Bearer …`` and never appears in an error message.
"""

from __future__ import annotations

import os
import time
from typing import Any

from regrag.adapters.base import AdapterError, Generation
from regrag.adapters.http import DEFAULT_RETRIES, DEFAULT_TIMEOUT, Sleep, display_url, error_label_and_message, redact
from regrag.adapters.http_generator import HttpGenerator

OPENAI_API_KEY_ENV = "OPENAI_API_KEY"
OPENAI_COMPATIBLE_DEFAULT_BASE_URL = "http://127.0.0.1:8080/v1"
OPENAI_COMPATIBLE_API_NAME = "openai-chat-completions"


class OpenAICompatibleGenerator(HttpGenerator):
    """Writes text with a model behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    API_NAME = OPENAI_COMPATIBLE_API_NAME
    TOKENS_NAME = "max_tokens"

    def __init__(
        self,
        model: str,
        base_url: str = OPENAI_COMPATIBLE_DEFAULT_BASE_URL,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        sleep: Sleep = time.sleep,
    ) -> None:
        super().__init__(
            model, "model name (the name the server serves it under)", base_url, temperature, max_tokens,
            timeout=timeout, retries=retries, sleep=sleep,
        )
        self._api_key = api_key if api_key is not None else os.environ.get(OPENAI_API_KEY_ENV) or None
        self.max_tokens = max_tokens

    @property
    def endpoint(self) -> str:
        """The ``chat/completions`` URL."""
        return f"{self.base_url}/chat/completions"

    def request_body(self, prompt: str) -> dict[str, Any]:
        """The JSON body sent for ``prompt``: one user message."""
        return {
            "model": self._model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def generate(self, prompt: str) -> Generation:
        """Send ``prompt`` and return the first choice's message content; ``AdapterError`` if it is empty."""
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        secrets = (self._api_key,) if self._api_key else ()
        reply = self._client.post_json(self.endpoint, self.request_body(prompt), headers, secrets=secrets)
        return self._generation(self._text_of(reply, secrets), self.max_tokens)

    def _text_of(self, reply: Any, secrets: tuple[str, ...]) -> str:
        """``choices[0].message.content``, or an ``AdapterError`` saying why there is none."""
        where = f"model {self._model} at {display_url(self.endpoint)}"
        if not isinstance(reply, dict):
            raise AdapterError(f"{where} returned a response that is not a JSON object")
        # Some servers (older vLLM behind proxies) report errors with HTTP 200.
        if reply.get("error") or reply.get("object") == "error":
            _label, message = error_label_and_message(reply)
            raise AdapterError(f"{where} returned an error: {redact(message or 'no message', secrets)}")
        choices = reply.get("choices")
        if not isinstance(choices, list) or not choices:
            raise AdapterError(f"{where} returned no choices")
        choice = choices[0]
        message_object = choice.get("message") if isinstance(choice, dict) else None
        content = message_object.get("content") if isinstance(message_object, dict) else None
        if not isinstance(content, str) or not content:
            reason = choice.get("finish_reason") if isinstance(choice, dict) else None
            refusal = message_object.get("refusal") if isinstance(message_object, dict) else None
            detail = f"; refusal: {refusal}" if isinstance(refusal, str) and refusal else ""
            raise AdapterError(f"{where} returned no message content (finish_reason {reason or 'unspecified'}){detail}")
        return content
