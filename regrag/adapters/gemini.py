"""A ``Generator`` for Google's Gemini API (``models/{model}:generateContent``), standard library only.

The request is one user turn with one text part, and a ``generationConfig``
holding the temperature and the output-token limit. The API key travels in
the ``x-goog-api-key`` header, never in the URL, so it cannot leak into a log
line or an error message that names the URL.

The reply's text is the concatenation of the first candidate's text parts.
A reply without text is an ``AdapterError`` that says why: the prompt was
blocked (``promptFeedback.blockReason``), the candidate was stopped
(``finishReason`` such as ``SAFETY`` or ``RECITATION``), or there was no
candidate at all.
"""

from __future__ import annotations

import os
import time
import urllib.parse
from typing import Any

from regrag.adapters.base import AdapterError, Generation
from regrag.adapters.http import DEFAULT_RETRIES, DEFAULT_TIMEOUT, Sleep
from regrag.adapters.http_generator import HttpGenerator

GEMINI_API_KEY_ENV = "GEMINI_API_KEY"
GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
GEMINI_API_NAME = "gemini-generateContent"


class GeminiGenerator(HttpGenerator):
    """Writes text with a Gemini model through the ``generateContent`` REST method."""

    API_NAME = GEMINI_API_NAME
    TOKENS_NAME = "max_output_tokens"

    def __init__(
        self,
        model: str = "gemini-1.5-flash",
        api_key: str | None = None,
        base_url: str = GEMINI_DEFAULT_BASE_URL,
        temperature: float = 0.0,
        max_output_tokens: int = 512,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        sleep: Sleep = time.sleep,
    ) -> None:
        super().__init__(
            model, "Gemini model name", base_url, temperature, max_output_tokens,
            timeout=timeout, retries=retries, sleep=sleep,
        )
        key = api_key if api_key is not None else os.environ.get(GEMINI_API_KEY_ENV)
        if not key:
            raise AdapterError(
                f"no Gemini API key: set the {GEMINI_API_KEY_ENV} environment variable or pass api_key"
            )
        self._api_key = key
        self.max_output_tokens = max_output_tokens

    @property
    def endpoint(self) -> str:
        """The ``generateContent`` URL for this model (it holds no credentials)."""
        name = self._model.removeprefix("models/")
        return f"{self.base_url}/models/{urllib.parse.quote(name, safe='-._~')}:generateContent"

    def request_body(self, prompt: str) -> dict[str, Any]:
        """The JSON body sent for ``prompt``: one user turn, one text part."""
        return {
            "contents": [{"role": "user", "parts": [{"text": prompt}]}],
            "generationConfig": {
                "temperature": self.temperature,
                "maxOutputTokens": self.max_output_tokens,
            },
        }

    def generate(self, prompt: str) -> Generation:
        """Send ``prompt`` and return the first candidate's text; ``AdapterError`` if there is none."""
        reply = self._client.post_json(
            self.endpoint,
            self.request_body(prompt),
            {"x-goog-api-key": self._api_key},
            secrets=(self._api_key,),
        )
        return self._generation(self._text_of(reply), self.max_output_tokens)

    def _text_of(self, reply: Any) -> str:
        """The joined text parts of the first candidate, or an ``AdapterError`` saying why there are none."""
        where = f"Gemini model {self._model}"
        if not isinstance(reply, dict):
            raise AdapterError(f"{where} returned a response that is not a JSON object")
        feedback = reply.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            detail = feedback.get("blockReasonMessage")
            suffix = f": {detail}" if isinstance(detail, str) and detail else ""
            raise AdapterError(f"{where} blocked the prompt (blockReason {feedback['blockReason']}){suffix}")
        candidates = reply.get("candidates")
        if not isinstance(candidates, list) or not candidates:
            raise AdapterError(f"{where} returned no candidates")
        candidate = candidates[0]
        if not isinstance(candidate, dict):
            raise AdapterError(f"{where} returned a candidate that is not a JSON object")
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        texts: list[str] = []
        if isinstance(parts, list):
            for part in parts:
                # Thought summaries (``"thought": true``) are the model's reasoning, not its answer.
                if isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
                    texts.append(part["text"])
        text = "".join(texts)
        if not text:
            reason = candidate.get("finishReason") or "unspecified"
            raise AdapterError(f"{where} returned no text (finishReason {reason})")
        return text
