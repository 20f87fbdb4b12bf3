"""The default, offline generator of the stock-news pipeline: the best
sentences of the retrieved passages, verbatim, each followed by the number
of the passage it came from (``[n]``), as an LLM is asked to cite."""

from __future__ import annotations

from typing import Sequence

from regrag.adapters.base import Generation
from regrag.answer.extractive import select_sentences
from regrag.errors import InputError
from regrag.provenance import Hit
from regrag.validation import check_positive_int

NOT_FOUND = "NOT FOUND"


class ExtractiveGenerator:
    """Extracts instead of generating; needs the index the hits come from."""

    model = "regrag-extractive"

    def __init__(self, index, max_sentences: int = 3, evidence_passages: int = 3) -> None:
        for name, value in (("max_sentences", max_sentences), ("evidence_passages", evidence_passages)):
            check_positive_int(value, name)
        self.index = index
        self.max_sentences = max_sentences
        self.evidence_passages = evidence_passages

    def parameters(self) -> dict:
        return {"evidence_passages": self.evidence_passages, "max_sentences": self.max_sentences}

    def generate_from(self, question: str, hits: Sequence[Hit]) -> Generation:
        """Sentences chosen as ``ask`` chooses them (``regrag.answer``), cited by position in ``hits``."""
        number_of = {hit.passage_id: number for number, hit in enumerate(hits, start=1)}
        sentences = select_sentences(self.index, question, list(hits), self.max_sentences, self.evidence_passages)
        if not sentences:
            return Generation(NOT_FOUND, self.model, self.parameters())
        text = " ".join(f"{sentence.text} [{number_of[sentence.passage_id]}]" for sentence in sentences)
        return Generation(text, self.model, self.parameters())
