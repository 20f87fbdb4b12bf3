"""Answers: extractive, cited answers (``extractive``), their confidence and
refusal threshold (``confidence``), and the figure check of an answer against
the passages it cites (``faithfulness``). Works on the ``Searcher`` protocol
(``regrag.answer.searcher``), not on the index's internals."""
