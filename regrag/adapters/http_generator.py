"""What the two HTTP generators (Gemini, OpenAI-compatible) share, standard library only.

Both take a model name, a base URL, a temperature and an output-token limit,
check them the same way, send their request through one ``JsonHttpClient``
and record the same settings in every ``Generation``. Only the request body,
the headers and the reading of the reply differ; those stay in
``gemini.py`` and ``openai_compatible.py``.
"""

from __future__ import annotations

from typing import ClassVar

from regrag.adapters.base import AdapterError, Generation
from regrag.adapters.http import JsonHttpClient, Sleep
from regrag.validation import is_finite_number, is_int


class HttpGenerator:
    """The model name, sampling settings and HTTP client of a generator behind a JSON API.

    A subclass names its API (``API_NAME``, recorded in every ``Generation``)
    and what its token limit is called (``TOKENS_NAME``, in messages and in
    the recorded settings), and keeps the limit under that name itself.
    """

    API_NAME: ClassVar[str]
    TOKENS_NAME: ClassVar[str]

    def __init__(
        self,
        model: str,
        model_hint: str,
        base_url: str,
        temperature: float,
        tokens: int,
        *,
        timeout: float,
        retries: int,
        sleep: Sleep,
    ) -> None:
        check_generation_options(model, model_hint, self.TOKENS_NAME, tokens, temperature)
        self._model = model
        self.base_url = base_url.rstrip("/")
        self.temperature = float(temperature)
        self._client = JsonHttpClient(timeout=timeout, retries=retries, sleep=sleep)

    @property
    def model(self) -> str:
        """The model name as given (sent or addressed in every request, recorded in every ``Generation``)."""
        return self._model

    def _generation(self, text: str, tokens: int) -> Generation:
        """``text`` as a ``Generation`` recording the model and the settings it was asked with."""
        return Generation(
            text,
            self._model,
            {"temperature": self.temperature, self.TOKENS_NAME: tokens, "api": self.API_NAME},
        )


def check_generation_options(model: object, model_hint: str, tokens_name: str, tokens: object, temperature: object) -> float:
    """Validate what both generators take; returns the temperature as a float."""
    if not isinstance(model, str) or not model.strip():
        raise AdapterError(f"{model_hint} must be a non-empty string")
    if not is_int(tokens) or tokens < 1:
        raise AdapterError(f"{tokens_name} must be a positive integer, not {tokens!r}")
    if (
        not is_finite_number(temperature)
        or temperature < 0
    ):
        raise AdapterError(f"temperature must be a finite, non-negative number, not {temperature!r}")
    return float(temperature)
