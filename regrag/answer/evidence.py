"""The evidence an answer's confidence is measured on: which hits it reads,
their terms and characters, and the entity names the question uses
(docs/answers.md, "Confidence": *evidence*)."""

from __future__ import annotations

from regrag.retrieval.entities import ENTITY_FIELDS


def evidence_hits(hits, sentence=None) -> list:
    """The top hit, plus, when the query named several entities, the best hit
    from each named entity's documents (a question about two products needs
    evidence from both), plus the passage of ``sentence`` (the cited sentence)
    when it is another hit of the top hit's document: the policy's scope
    ranks first, its review clause holds the answer (session 40)."""
    chosen = [hits[0]]
    if sentence is not None and sentence.passage_id != hits[0].passage_id:
        own = next((h for h in hits if h.passage_id == sentence.passage_id and h.document_id == hits[0].document_id), None)
        if own is not None:
            chosen.append(own)
    step = hits[0].entities
    if step is not None and step.applied and len(step.matches) > 1:
        for match in step.matches:
            best = next((h for h in hits if h.document_id in match.documents), None)
            if best is not None and all(best.passage_id != h.passage_id for h in chosen):
                chosen.append(best)
    return chosen


def evidence_terms(index, hits, names: dict[str, tuple[str, ...]] | None = None) -> set[str]:
    """Terms of the evidence: each hit's passage and title, and its document's
    title and metadata values (dates split at ``-``). The entity fields
    (``regrag.retrieval.entities.ENTITY_FIELDS``) count only through ``names``: for a
    document id, the names of it that the question used. A document's alias
    list is not evidence for the rest of a question."""
    names = names or {}
    terms: set[str] = set()
    for hit in hits:
        document = index.document(hit.document_id)
        language = index.document_language(hit.document_id)
        body_terms, title_terms = index.passage_terms(index.position_of(hit.passage_id))
        terms.update(term for term, _s, _e in body_terms)
        terms.update(term for term, _s, _e in title_terms)
        parts = [document.title, *(value.replace("-", " ") for key, value in document.metadata if key not in ENTITY_FIELDS),
                 *names.get(hit.document_id, ())]
        for part in parts:
            terms.update(term for term, _s, _e in index.analyzer.analyze(part, language))
    return terms


def evidence_characters(index, hits) -> frozenset[str]:
    """The characters of the evidence passages and their section titles."""
    found: set[str] = set()
    for hit in hits:
        start, end = hit.passage_span
        found.update(index.document(hit.document_id).text[start:end])
        found.update(hit.section_title)
    return frozenset(found)


def named_in_question(index, question: str, language: str) -> tuple[dict[str, tuple[str, ...]], set[str]]:
    """The entity names the question uses (whether or not the step is on), as
    ``{document id: names}``, and the question's terms inside those names."""
    matches = index.entity_catalog.match(question)
    names: dict[str, list[str]] = {}
    for match in matches:
        for document_id in match.documents:
            names.setdefault(document_id, []).append(question[match.start : match.end])
    inside = {term for match in matches for term, _s, _e in index.analyzer.analyze(question[match.start : match.end], language)}
    return {key: tuple(value) for key, value in names.items()}, inside
