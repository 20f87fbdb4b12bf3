"""The stock-news pipeline of a published system, rebuilt on regrag's core.

1. Preprocess every passage (``Preprocessing``) and embed it; store the
   vectors in a vector index (the standard-library exact index by default,
   FAISS ``IndexFlatL2`` as in the paper with the ``faiss`` extra).
2. Retrieve, by ``mode``:
   - ``rerank`` (the paper's design): the ``dense_k`` nearest passages by L2
     distance, re-ranked by BM25 (candidates without a query term keep their
     dense order after the others);
   - ``rrf``: Reciprocal Rank Fusion (k = 60) of the dense list and the BM25
     list over the whole corpus;
   - ``dense``: the dense list alone; ``lexical``: BM25 alone (no embedder needed).
3. Build the prompt from a versioned template (``prompts/NAME.txt``), the
   question and the top ``k`` passages numbered ``[1]`` … ``[k]``; generate.
4. Check every figure of the answer against the passages it cites
   (``regrag.answer.faithfulness``); ``unsupported="mark"`` flags the answer,
   ``"refuse"`` withholds it, ``"allow"`` only reports.

Everything that shaped the answer is recorded in ``PipelineAnswer.to_dict``:
preprocessing, mode and depths, embedder and vector index, the template's
name and SHA-256, the prompt's SHA-256, the generator's model and
parameters, every candidate's dense and BM25 rank, and the figure checks.
Stage timings are kept apart (``timings``) because they are not reproducible.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from regrag.adapters.base import Embedder, Generation, Generator, VectorIndex
from regrag.audit.canonical import JsonRecord, canonical_json
from regrag.errors import InputError
from regrag.answer.faithfulness import FaithfulnessReport, check_answer
from regrag.io import files
from regrag.retrieval.filters import coerce_filters
from regrag.retrieval.fusion import reciprocal_rank_fusion
from regrag.limits import DEFAULT_LIMITS, LimitError, check_search_depth
from regrag.pipeline.extractive import NOT_FOUND, ExtractiveGenerator
from regrag.pipeline.preprocess import Preprocessing
from regrag.provenance import Hit, RetrieverResult
from regrag.retrieval.options import SearchOptions
from regrag.validation import check_positive_int

MODES = ("rerank", "rrf", "dense", "lexical")
UNSUPPORTED_POLICIES = ("mark", "refuse", "allow")
PROMPTS = Path(__file__).resolve().parent / "prompts"
DEFAULT_TEMPLATE = "stock-news.v1"


@dataclass(frozen=True)
class PipelineConfig(JsonRecord):
    """How the pipeline retrieves and generates (recorded with every answer)."""

    mode: str = "rerank"
    dense_k: int = 20
    k: int = 5
    rrf_depth: int = 100
    template: str = DEFAULT_TEMPLATE
    unsupported: str = "mark"
    # the text cleaning before embedding; None: the embedder's own setting (``preprocessing_for``)
    preprocessing: Preprocessing | None = None
    # metadata filters (``search``'s syntax), applied before dense recall and BM25; kept sorted
    filters: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise InputError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.unsupported not in UNSUPPORTED_POLICIES:
            raise InputError(f"unsupported must be one of {', '.join(UNSUPPORTED_POLICIES)}, got {self.unsupported!r}")
        for name in ("dense_k", "k", "rrf_depth"):
            value = getattr(self, name)
            check_positive_int(value, name)
        object.__setattr__(self, "filters", tuple(sorted(str(f) for f in coerce_filters(self.filters))))


def preprocessing_for(embedder: object) -> Preprocessing:
    """The cleaning an embedder declares (``preprocessing = "paper"`` or ``"none"``);
    ``"paper"`` for one that declares none (the published design's setting)."""
    return Preprocessing.named(str(getattr(embedder, "preprocessing", "paper")))


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """Questions through the embedder's query side (E5's ``query: ``) when it has one."""
    method = getattr(embedder, "embed_queries", None)
    return method(texts) if callable(method) else embedder.embed(texts)


def embed_passages(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """Passages through the embedder's passage side (E5's ``passage: ``) when it has one."""
    method = getattr(embedder, "embed_passages", None)
    return method(texts) if callable(method) else embedder.embed(texts)


def load_template(name: str) -> tuple[str, str]:
    """The template text and its SHA-256; ``name`` is a file in ``prompts/`` (without ``.txt``) or a path."""
    known = ", ".join(sorted(p.stem for p in files.matching(PROMPTS, "*.txt")))
    if not name.endswith(".txt") and ("/" in name or "\\" in name or name.startswith(".")):
        raise InputError(f"prompt template {name!r}: a packaged name ({known}) or a path ending in .txt")
    path = Path(name) if name.endswith(".txt") else PROMPTS / f"{name}.txt"
    try:
        data = files.read_whole(path)
    except OSError:
        raise InputError(f"prompt template {name!r} not found (packaged: {known}; or give a .txt path)") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"prompt template {path}: not valid UTF-8 (byte {error.start})") from None
    if "{question}" not in text or "{passages}" not in text:
        raise InputError(f"prompt template {path}: needs the placeholders {{question}} and {{passages}}")
    return text, hashlib.sha256(data).hexdigest()


_PLACEHOLDER = re.compile(r"\{(question|passages)\}")


def render_prompt(template: str, question: str, passages: Sequence[tuple[int, str, str]]) -> str:
    """The template with the question and the numbered passages (number, title, text)."""
    listed = "\n\n".join(f"[{number}] {title}\n{text}" for number, title, text in passages)
    values = {"question": question, "passages": listed}
    # one pass: a passage or question that contains "{question}" stays as written
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


@dataclass(frozen=True)
class PipelineAnswer:
    """A generated answer, its evidence, its figure checks and what made it."""

    question: str
    text: str  # what the user is shown (empty when refused)
    generated: str  # what the generator wrote
    verdict: str  # answered | marked | refused | not-found
    hits: tuple[Hit, ...]
    faithfulness: FaithfulnessReport
    provenance: dict[str, Any]
    timings: dict[str, float] = field(default_factory=dict, compare=False)

    @property
    def found(self) -> bool:
        return self.verdict in ("answered", "marked")

    def citation(self, number: int) -> Hit:
        return self.hits[number - 1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "faithfulness": self.faithfulness.to_dict(),
            "generated": self.generated,
            "hits": [hit.to_dict() for hit in self.hits],
            "provenance": self.provenance,
            "question": self.question,
            "text": self.text,
            "verdict": self.verdict,
        }

    def to_json(self) -> str:
        return canonical_json(self.to_dict())


class StockNewsPipeline:
    """Dense recall, lexical re-ranking and cited generation over an ``Index``."""

    def __init__(
        self,
        index,
        embedder: Embedder | None = None,
        vector_index: VectorIndex | None = None,
        generator: Generator | ExtractiveGenerator | None = None,
        config: PipelineConfig | None = None,
        exhaustive: bool = False,
    ) -> None:
        self.index = index
        self.config = config or PipelineConfig()
        self.exhaustive = bool(exhaustive)  # score every posting (same results; not part of the config record)
        # the same caps as Index.search (docs/security.md): k, the fused depth, and the dense candidates
        limits = getattr(index, "limits", DEFAULT_LIMITS)
        check_search_depth(self.config.k, self.config.rrf_depth if self.config.mode == "rrf" else None, limits)
        if self.config.dense_k > limits.k:
            raise LimitError(f"dense_k is {self.config.dense_k:,}; the limit is {limits.k:,} (regrag.limits.Limits.k)")
        if self.config.mode != "lexical" and embedder is None:
            raise InputError(f"mode {self.config.mode!r} needs an embedder (mode 'lexical' does not)")
        self.embedder = embedder
        if self.config.preprocessing is None:  # resolved here, so the answer records the setting used
            self.config = replace(self.config, preprocessing=preprocessing_for(embedder))
        if vector_index is None and embedder is not None:
            from regrag.adapters.vector_index import ExactVectorIndex

            vector_index = ExactVectorIndex()
        self.vector_index = vector_index
        self.generator = generator or ExtractiveGenerator(index)
        self.template, self.template_sha256 = load_template(self.config.template)
        self._built = False
        self.build_seconds = 0.0

    @property
    def cleaning(self) -> Preprocessing:
        """The text cleaning in use (resolved from the embedder when the config left it open)."""
        assert self.config.preprocessing is not None
        return self.config.preprocessing

    def passage_text(self, position: int) -> str:
        """The text a passage is embedded from: its title and body."""
        passage = self.index.passage(position)
        document = self.index.document(passage.document_id)
        return passage.title + "\n" + document.text[passage.start : passage.end]

    def build(self) -> None:
        """Embed every passage (once)."""
        if self._built or self.embedder is None or self.vector_index is None:
            self._built = True
            return
        started = time.perf_counter()
        count = self.index.passage_count
        texts = [self.cleaning.apply(self.passage_text(p)) for p in range(count)]
        if len(self.vector_index) == 0 and texts:
            self.vector_index.add([self.index.passage_id(p) for p in range(count)], embed_passages(self.embedder, texts))
        self.build_seconds = time.perf_counter() - started
        self._built = True

    def retrieve(self, question: str, timings: dict[str, float] | None = None) -> list[Hit]:
        """The top ``k`` passages by the configured mode, with provenance."""
        analyzed = self.index.analyze_query(question)  # the query checks and limits, before any embedding
        config = self.config
        allowed = self.index.filtered_positions(config.filters)  # filter errors before any embedding too
        self.build()
        timings = timings if timings is not None else {}
        exhaustive = self.exhaustive
        dense: list[tuple[str, int, float]] = []
        if config.mode != "lexical":
            assert self.embedder is not None and self.vector_index is not None
            started = time.perf_counter()
            vector = embed_queries(self.embedder, [self.cleaning.apply(question)])[0]
            timings["embed_query"] = time.perf_counter() - started
            started = time.perf_counter()
            depth = config.dense_k if config.mode == "rerank" else max(config.dense_k, config.k)
            dense = self._dense(vector, depth, allowed)
            timings["dense_search"] = time.perf_counter() - started
        started = time.perf_counter()
        index = self.index
        method = f"stock-news:{config.mode}"
        dense_by_id = {pid: (r, d) for pid, r, d in dense}
        chosen: list[tuple[str, float, tuple[RetrieverResult, ...]]] = []
        if config.mode == "dense":
            chosen = [(pid, -distance, (RetrieverResult("dense", r, distance),)) for pid, r, distance in dense[: config.k]]
        elif config.mode == "lexical":
            ranking = index.ranking(question, options=SearchOptions(config.k, "bm25", config.filters, entities=False,
                                                                    exhaustive=exhaustive))
            chosen = [(pid, s, (RetrieverResult("bm25", r, s),)) for r, (_d, pid, s) in enumerate(ranking, 1)]
        elif config.mode == "rerank":
            allowed = frozenset(self.index.position_of(pid) for pid, _r, _d in dense)
            ranked = index.rank_positions(analyzed, "bm25", len(allowed), allowed)
            lexical = {index.passage_id(p): (r, s) for r, (p, s) in enumerate(ranked, 1)}
            order = [index.passage_id(p) for p, _s in ranked] + [pid for pid, _r, _d in dense if pid not in lexical]
            for pid in order[: config.k]:
                r, d = dense_by_id[pid]
                retrievers = [RetrieverResult("dense", r, d)]
                if pid in lexical:
                    retrievers.append(RetrieverResult("bm25", *lexical[pid]))
                chosen.append((pid, lexical[pid][1] if pid in lexical else 0.0, tuple(retrievers)))
        else:  # rrf
            ranked = index.rank_positions(analyzed, "bm25", max(config.rrf_depth, config.k), allowed, exhaustive)
            lexical = {index.passage_id(p): (r, s) for r, (p, s) in enumerate(ranked, 1)}
            positions = {pid: self.index.position_of(pid) for pid, _r, _d in dense}
            fused = reciprocal_rank_fusion([[positions[pid] for pid, _r, _d in dense], [p for p, _s in ranked]])
            for position, score, _best in fused[: config.k]:
                pid = index.passage_id(position)
                retrievers = []
                if pid in dense_by_id:
                    retrievers.append(RetrieverResult("dense", *dense_by_id[pid]))
                if pid in lexical:
                    retrievers.append(RetrieverResult("bm25", *lexical[pid]))
                chosen.append((pid, score, tuple(retrievers)))
        hits = self.index.hits(question, chosen, method)
        timings["lexical"] = time.perf_counter() - started
        return hits

    def _dense(self, vector, depth: int, allowed: frozenset[int] | None) -> list[tuple[str, int, float]]:
        """The ``depth`` nearest passages (id, dense rank, distance) among ``allowed``
        (all when None): the nearest are fetched in doubling batches until enough
        pass the filters, so the list is the unfiltered ranking's filtered prefix."""
        assert self.vector_index is not None
        if allowed is None:
            return [(hit.id, hit.rank, hit.distance) for hit in self.vector_index.search(vector, depth)]
        size = len(self.vector_index)
        fetch = min(size, depth)
        while True:
            found = self.vector_index.search(vector, fetch) if fetch else []
            kept = [hit for hit in found if self.index.position_of(hit.id) in allowed]
            if len(kept) >= depth or fetch >= size:
                return [(hit.id, rank, hit.distance) for rank, hit in enumerate(kept[:depth], start=1)]
            fetch = min(size, fetch * 2)

    def prompt(self, question: str, hits: Sequence[Hit]) -> str:
        passages = [
            (number, hit.section_title, self.index.document(hit.document_id).text[hit.passage_span[0] : hit.passage_span[1]])
            for number, hit in enumerate(hits, start=1)
        ]
        return render_prompt(self.template, question, passages)

    def ask(self, question: str) -> PipelineAnswer:
        """Retrieve, generate, check figures; see the module docstring."""
        if not isinstance(question, str) or not question.strip():
            raise InputError("the question is empty")
        timings: dict[str, float] = {}
        hits = self.retrieve(question, timings)
        prompt = self.prompt(question, hits)
        started = time.perf_counter()
        generation = self._generate(question, hits, prompt)
        timings["generate"] = time.perf_counter() - started
        started = time.perf_counter()
        texts = [self.index.document(h.document_id).text[h.passage_span[0] : h.passage_span[1]] for h in hits]
        generated = generation.text.strip()
        # the NOT FOUND sentinel states no figure (its capitals are not tickers)
        report = check_answer("" if generated == NOT_FOUND else generation.text, texts)
        timings["faithfulness"] = time.perf_counter() - started
        if not hits or generated == NOT_FOUND or not generated:
            verdict, shown = "not-found", ""
        elif report.faithful or self.config.unsupported == "allow":
            verdict, shown = "answered", generated
        elif self.config.unsupported == "refuse":
            verdict, shown = "refused", ""
        else:
            verdict, shown = "marked", generated
        provenance = {
            "config": self.config.to_dict(),
            "corpus_root": self.index.corpus_root,
            "embedder": _describe(self.embedder),
            "generator": {"model": generation.model, "parameters": generation.parameters},
            "index_id": self.index.index_id,
            "prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest(),
            "template": {"name": self.config.template, "sha256": self.template_sha256},
            "vector_index": _describe(self.vector_index),
        }
        return PipelineAnswer(question, shown, generation.text, verdict, tuple(hits), report, provenance, timings)

    def _generate(self, question: str, hits: Sequence[Hit], prompt: str) -> Generation:
        if isinstance(self.generator, ExtractiveGenerator):
            return self.generator.generate_from(question, hits)
        if not hits:
            return Generation(NOT_FOUND, self.generator.model, {})
        return self.generator.generate(prompt)


def _describe(component: object) -> dict[str, Any] | None:
    if component is None:
        return None
    describe = getattr(component, "description", None)
    if callable(describe):
        return dict(describe())
    return {"class": type(component).__name__, "name": str(getattr(component, "name", ""))}
