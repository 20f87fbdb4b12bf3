"""Which ``ask`` options go with ``--pipeline stock-news`` and which do not.

``ask`` has the extractive answer's options and the pipeline's; an option
that the chosen path cannot honour is refused (``InputError``, exit status 2,
one line saying why) rather than silently ignored. To tell an option the user
gave from its default, the parser's defaults are ``Implicit`` values: a
``str`` or ``int`` that compares and prints as the default but is marked as
not given (``given``).
"""

from __future__ import annotations

import argparse
from typing import Any

from regrag.errors import InputError


class ImplicitStr(str):
    """A string default the user did not give."""


class ImplicitInt(int):
    """An integer default the user did not give."""


def implicit(value: Any) -> Any:
    """``value`` marked as a default (a plain ``str``/``int`` for every other use)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"implicit defaults are str or int, got {value!r}")
    return ImplicitStr(value) if isinstance(value, str) else ImplicitInt(value)


def given(arguments: argparse.Namespace, name: str) -> bool:
    """True when the option ``name`` was on the command line (or differs from an unmarked default)."""
    value = getattr(arguments, name, None)
    if isinstance(value, (ImplicitStr, ImplicitInt)):
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, list):
        return bool(value)
    return value is not None


# The pipeline's options and their defaults (the parser's, marked implicit).
PIPELINE_DEFAULTS = {
    "mode": "rerank", "dense_k": 20, "embedder": "sentence-transformers/LaBSE", "vector_index": "exact",
    "generator": "extractive", "template": "stock-news.v1", "segmentation": "syllables", "unsupported": "mark",
}
PIPELINE_OPTIONS = tuple(PIPELINE_DEFAULTS) + ("llm_model", "llm_base_url")


def ask_defaults(default_rrf_depth: int) -> dict[str, Any]:
    """For ``ask.set_defaults``: every default that ``check_*`` must tell from a given value."""
    defaults = {name: implicit(value) for name, value in PIPELINE_DEFAULTS.items()}
    defaults.update(method=implicit("hybrid"), max_sentences=implicit(3), rrf_depth=implicit(default_rrf_depth))
    return defaults


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def check_without_pipeline(arguments: argparse.Namespace) -> None:
    """The pipeline's options mean nothing to the extractive answer."""
    named = [_flag(name) for name in PIPELINE_OPTIONS if given(arguments, name)]
    if named:
        raise InputError(f"{', '.join(named)}: only with --pipeline stock-news (docs/stock-news.md)")


def check_with_pipeline(arguments: argparse.Namespace) -> None:
    """Refuse each extractive-answer option the pipeline has no meaning for, and
    each pipeline option the chosen mode or generator does not use."""
    if given(arguments, "ledger"):
        raise InputError("--ledger records extractive answers and searches; it cannot be combined with --pipeline")
    for flag, name in (("-k", "k"), ("--dense-k", "dense_k"), ("--rrf-depth", "rrf_depth"),
                       ("--max-sentences", "max_sentences")):
        value = getattr(arguments, name)
        if value < 1:
            raise InputError(f"{flag} must be a positive integer, got {int(value)}")
    if given(arguments, "method"):
        raise InputError("--method chooses the extractive answer's retriever; with --pipeline the ranking is "
                         "chosen by --mode (rerank, rrf, dense, lexical; its lexical retriever is BM25)")
    if given(arguments, "no_entities"):
        raise InputError("--no-entities: the stock-news pipeline never restricts a question to the entities it "
                         "names, so there is nothing to switch off")
    if given(arguments, "threshold"):
        raise InputError("--threshold is the extractive answer's confidence refusal; the pipeline withholds "
                         "answers by their figure checks instead (--unsupported refuse)")
    generator = str(arguments.generator)
    if given(arguments, "max_sentences") and generator != "extractive":
        raise InputError(f"--max-sentences bounds the extractive generator's answer; with --generator {generator} "
                         "the answer's length is set by the prompt template")
    mode = str(arguments.mode)
    if given(arguments, "rrf_depth") and mode != "rrf":
        raise InputError(f"--rrf-depth is the depth of the lists --mode rrf fuses; --mode {mode} fuses none")
    if mode == "lexical":
        named = [_flag(n) for n in ("dense_k", "embedder", "vector_index", "segmentation") if given(arguments, n)]
        if named:
            raise InputError(f"{', '.join(named)}: --mode lexical has no dense recall (no embedder)")
    if generator == "openai" and not arguments.llm_model:
        raise InputError("--generator openai needs --llm-model (the model name the server serves)")
    from regrag.pipeline.stock_news import load_template

    load_template(str(arguments.template))  # a bad template before any model is loaded
    if generator == "extractive":
        named = [_flag(n) for n in ("llm_model", "llm_base_url") if given(arguments, n)]
        if named:
            raise InputError(f"{', '.join(named)}: only with --generator gemini or openai (the extractive generator "
                             "calls no model)")
