"""The default refusal threshold of ``ask``, apart from the confidence model
(``regrag.answer.confidence``), so that the command line and the answer
options can name it without importing the model's patterns."""

from __future__ import annotations

REFUSAL_THRESHOLD = 0.55  # ask refuses below this confidence (docs/answers.md)
