"""What the Spark tests share: the corpus (a SciFact subset when ../shared/data/scifact is
there, else a synthetic one of the same shape), SparkContexts with a chosen executor
environment, and the one-process reference files."""

from __future__ import annotations

import os
import random
from contextlib import contextmanager
from pathlib import Path

from regrag.corpus.model import Document, Section

SHARED = Path(os.environ.get("REGRAG_SHARED", Path(__file__).resolve().parents[3] / "shared"))
SCIFACT = SHARED / "data" / "scifact"
SUBSET = 400  # documents: a Spark job over them takes seconds, not minutes

_WORDS = ("cell protein gene expression tumor mouse patient risk trial dose receptor pathway immune "
          "infection virus vaccine blood pressure insulin glucose brain neuron signal mutation cancer "
          "therapy response rate cohort clinical outcome mortality survival binding kinase").split()


def corpus_documents() -> tuple[list[Document], str]:
    """(documents sorted by id, where they come from)."""
    if SCIFACT.is_dir():
        from regrag.corpus.load import load_corpus

        documents = sorted(load_corpus(SCIFACT).documents, key=lambda d: d.id)[:SUBSET]
        return documents, f"the first {SUBSET} SciFact documents by id"
    chooser = random.Random(17)
    documents = []
    for number in range(SUBSET):
        title = " ".join(chooser.choices(_WORDS, k=4)).capitalize()
        text = ". ".join(" ".join(chooser.choices(_WORDS, k=chooser.randint(6, 18))) for _ in range(chooser.randint(2, 9)))
        documents.append(Document(f"doc-{number:04d}", title, text, (Section(title, 0, len(text)),), (), "synthetic.jsonl"))
    return sorted(documents, key=lambda d: d.id), f"{SUBSET} synthetic documents"


def write_jsonl(documents: list[Document], path: Path) -> Path:
    """The documents as a corpus.jsonl a loader reads back as the same documents (ids, titles, texts)."""
    import json

    with open(path, "w", encoding="utf-8") as handle:
        for document in documents:
            handle.write(json.dumps({"_id": document.id, "title": document.title, "text": document.text},
                                    ensure_ascii=False) + "\n")
    return path


@contextmanager
def spark(master: str, executor_env: dict[str, str] | None = None, hash_seed: str | None = None,
          python: str | None = None):
    """A SparkContext on ``master`` whose Python workers get ``executor_env``, PYTHONHASHSEED
    ``hash_seed`` (pyspark passes the driver's environment value on) and run ``python``.
    Not from the JVM's system properties (``loadDefaults=False``): a stopped context leaves its
    settings there, and the next context would inherit the previous executor environment."""
    from pyspark import SparkConf, SparkContext

    active = SparkContext._active_spark_context
    if active is not None:
        active.stop()
    saved = {name: os.environ.get(name) for name in ("PYTHONHASHSEED", "PYSPARK_PYTHON")}
    if hash_seed is not None:
        os.environ["PYTHONHASHSEED"] = hash_seed
    if python is not None:
        os.environ["PYSPARK_PYTHON"] = python
    conf = SparkConf(loadDefaults=False).setMaster(master).setAppName("regrag tests").set("spark.ui.showConsoleProgress", "false") \
        .set("spark.ui.enabled", "false")
    for name, value in (executor_env or {}).items():
        conf.set(f"spark.executorEnv.{name}", value)
    try:
        context = SparkContext(conf=conf)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    context.setLogLevel("ERROR")
    try:
        yield context
    finally:
        context.stop()
