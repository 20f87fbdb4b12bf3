"""``verify``: a hit record (what ``search`` or ``ask`` returned, perhaps
relayed by an assistant) checked against the index it names, field by
field, and a quotation checked against the passage it cites.

Each check is recomputed from the index, never trusted from the record:
the index id and corpus root; the passage (document, span, section title,
source, text); the query terms and where they match; each lexical
retriever's score (``explain`` sums to exactly the score ``search``
gives) and, for ``hybrid``, the fused score from the record's own ranks.
A filter or the entity step can change a hit's ranks but not these, so a
record verifies whatever the options of the call that made it. A ``dense``
or ``fused`` hit is checked against the stored vectors (``dense``: a
``DenseSearcher``) from its query vector, given or read from the call's
ledger entry (``regrag.dense.hit_check``); its index id is the dense one."""

from __future__ import annotations

from typing import Any

from regrag.audit.merkle import inclusion_proof
from regrag.engine import Index
from regrag.errors import InputError
from regrag.retrieval.fusion import rrf_contribution
from regrag.retrieval.methods import LEXICAL_METHODS, METHODS, VECTOR_METHODS

DENSE_HIT_METHODS = VECTOR_METHODS  # regrag.dense.search.DENSE_METHODS (that module loads the dense layer)


def verify_record(index: Index, record: dict[str, Any], quote: str | None = None, *, dense: Any = None,
                  query_vector: Any = None) -> dict[str, Any]:
    """``{"valid", "passage_id", "checks": [{"check", "ok", "detail"}], "proof"}``:
    ``valid`` when every check passed; ``proof`` is the document's Merkle
    inclusion proof (``regrag verify-proof`` checks it without the index).
    ``dense`` (a ``DenseSearcher`` over ``index``) and ``query_vector`` check dense and fused hits."""
    checks: list[dict[str, Any]] = []

    def add(name: str, ok: bool, detail: str) -> bool:
        checks.append({"check": name, "detail": detail, "ok": ok})
        return ok

    passage_id = record.get("passage_id")
    is_dense = record.get("method") in DENSE_HIT_METHODS
    index_id = dense.dense_index_id if is_dense and dense is not None else index.index_id
    add("index_id", record.get("index_id") == index_id, _same("dense index id" if index_id != index.index_id
                                                              else "index id", record.get("index_id"), index_id))
    add("corpus_root", record.get("corpus_root") == index.corpus_root,
        _same("corpus root", record.get("corpus_root"), index.corpus_root))
    try:
        position = index.position_of(passage_id)
    except InputError as error:
        add("passage", False, str(error))
        return _report(checks, passage_id if isinstance(passage_id, str) else None, None)
    passage = index.passage(position)
    document = index.document(passage.document_id)
    expected = {"document_id": document.id, "passage_span": [passage.start, passage.end],
                "section_title": passage.title, "source": document.source}
    wrong = sorted(name for name, value in expected.items() if record.get(name) != value)
    add("passage", not wrong, "document, span, section title and source match" if not wrong
        else f"differs from the index in {', '.join(wrong)}")
    text = index.passage_text(passage_id)
    if "text" in record:
        add("text", record["text"] == text, "the text is the passage's, verbatim" if record["text"] == text
            else "the text is not the passage's text")
    if quote is not None:
        found = quote in text
        add("quote", found, f"found verbatim at characters {text.index(quote) + passage.start}-"
            f"{text.index(quote) + passage.start + len(quote)} of the document" if found
            else "the quote does not occur verbatim in the passage")
    query = record.get("query")
    if isinstance(query, str) and query:
        _check_scores(index, record, query, passage_id, position, add, dense, query_vector)
    else:
        add("query", False, "the record has no query: scores and matches cannot be checked")
    hashes = index.content_hashes()
    proof = inclusion_proof([(key, hashes[key]) for key in sorted(hashes)], document.id)
    return _report(checks, passage_id, proof.to_dict())


def _check_scores(index: Index, record: dict[str, Any], query: str, passage_id: str, position: int, add,
                  dense: Any = None, query_vector: Any = None) -> None:
    try:
        analyzed = index.analyze_query(query)
        explanation = index.explain(query, passage_id)
        if record.get("synonyms") is not None:  # an expanded query (docs/synonyms.md): the built-in set recomputes
            from regrag.answer.lexicon import synonyms_from_record
            from regrag.retrieval.explanation import explain_position
            from regrag.retrieval.synonym_query import expand_query

            rules = synonyms_from_record({key: value for key, value in record["synonyms"].items()
                                          if key in ("name", "sha256", "version", "text")})
            analyzed = expand_query(index.analyzer, analyzed, rules)
            explanation = explain_position(index.inverted, query, analyzed, passage_id, position)
            same = analyzed.synonyms.to_dict() == record["synonyms"]
            add("synonyms", same, "the synonym expansion recomputes exactly" if same
                else "the synonym expansion differs from the recorded one")
    except (InputError, AttributeError, TypeError) as error:
        add("query", False, str(error))
        return
    add("query_terms", record.get("query_terms") == list(analyzed.terms),
        "the query analyses to the recorded terms" if record.get("query_terms") == list(analyzed.terms)
        else f"the query analyses to {list(analyzed.terms)}")
    matches = [match.to_dict() for match in index.passage_matches(position, analyzed.terms)]
    add("matches", record.get("matches") == matches, "the term matches (offsets) recompute exactly"
        if record.get("matches") == matches else "the term matches differ from the passage's")
    scores = {"bm25": explanation.bm25.score, "tfidf": explanation.tfidf.score}
    retrievers = record.get("retrievers")
    if not isinstance(retrievers, list) or not all(isinstance(r, dict) and isinstance(r.get("retriever"), str)
                                                   for r in retrievers):
        add("scores", False, "the record has no list of retrievers (each with a 'retriever' name)")
        return
    bad = [r.get("retriever") for r in retrievers if r.get("retriever") in scores
           and r.get("score") != scores[r.get("retriever")]]
    method = record.get("method")
    if method in DENSE_HIT_METHODS:
        if dense is None:
            add("scores", False, f"a {method} hit is checked against stored dense vectors, and this index has none here")
        else:
            from regrag.dense.hit_check import dense_score_check

            add("scores", *dense_score_check(dense.vectors, record, position, scores, query_vector))
        return
    if method not in METHODS:  # e.g. a stock-news pipeline's hit: its score is not this index's to recompute
        add("scores", False, f"the score of method {str(method)[:40]!r} cannot be recomputed from the index "
                             f"(it recomputes {', '.join(METHODS)})")
        return
    names = [r["retriever"] for r in retrievers]
    expected = [method] if method in LEXICAL_METHODS else None
    if (names != expected) if expected is not None else (names not in (["bm25"], ["tfidf"], ["bm25", "tfidf"])):
        add("scores", False, f"a {method} hit lists retrievers {names}, not {expected or 'bm25 and/or tfidf, in that order'}")
        return
    if method in LEXICAL_METHODS and record.get("score") != scores[method]:
        bad.append(method)
    if method == "hybrid" and not bad:
        bad.extend(_fused_problem(record, retrievers))
    detail = "every retriever score recomputes exactly" + (" and the fused score follows from the ranks"
                                                           if method == "hybrid" else "")
    add("scores", not bad, detail if not bad else f"score(s) that do not recompute: {', '.join(map(str, bad))}")


def _fused_problem(record: dict[str, Any], retrievers: list[dict[str, Any]]) -> list[str]:
    """["hybrid"] when the fused score is not the RRF sum of the record's
    own lexical ranks, added in the fusion's order (bm25, then tfidf)."""
    ranks = {r.get("retriever"): r.get("rank") for r in retrievers}
    if not all(isinstance(rank, int) and not isinstance(rank, bool) and rank >= 1 for rank in ranks.values()):
        return ["hybrid"]
    fused = 0.0
    for name in LEXICAL_METHODS:
        if name in ranks:
            fused += rrf_contribution(ranks[name])
    return [] if record.get("score") == fused else ["hybrid"]


def _same(what: str, given: Any, actual: str) -> str:
    if given == actual:
        return f"the {what} is this index's ({actual[:16]}…)"
    return f"the record's {what} {str(given)[:16]!r}… is not this index's ({actual[:16]}…)"


def _report(checks: list[dict[str, Any]], passage_id: str | None, proof: dict[str, Any] | None) -> dict[str, Any]:
    return {"checks": checks, "passage_id": passage_id, "proof": proof,
            "valid": all(check["ok"] for check in checks)}
