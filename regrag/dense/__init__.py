"""Dense retrieval an auditor can replay: passage vectors quantised to int8
and stored beside an index generation, scored by exact integer arithmetic
(docs/dense.md). Standard library only; numpy, when installed, gives the same
integers faster. The embedder is needed only to embed passages and queries:
a recorded query vector is scored without it."""
