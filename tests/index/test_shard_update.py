"""Incremental updates of a sharded generation (docs/index-format.md,
"Sharded generations"): phase A runs for new and changed documents only,
the others' records are recovered from the previous generation's segments
(byte-equal to analysing them again), and the result is byte-identical to
a fresh sharded build of the new corpus: random corpora, changes and S
(hypothesis), and ``regrag index --update`` on a sharded directory."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrag import Index
from regrag.cli import main
from regrag.index import shard_phases
from regrag.index.parameters import IndexParameters
from regrag.index.shard_phases import analyse_partition
from regrag.index.shard_update import segment_records, update_sharded
from regrag.index.sharded import ShardedIndex, build_sharded
from regrag.index.verify import verify_store
from regrag.text.analyzer import Analyzer
from tests.index.test_shards import WORDS, corpus, document, sharded_directory


def _changes(documents, seed: int):
    """Random replacements (some unchanged), deletions and additions, and the corpus they make."""
    chance = random.Random(seed)
    upserts, deletions = [], []
    for item in documents:
        roll = chance.random()
        if roll < 0.15:
            upserts.append(dataclasses.replace(item, title=item.title + " " + chance.choice(WORDS)))
        elif roll < 0.2:
            upserts.append(item)  # a replacement by the same document: no change
        elif roll < 0.3:
            deletions.append(item.id)
    for number in range(chance.randrange(0, 4)):
        upserts.append(document(900 + number, [chance.choice(WORDS) for _ in range(chance.randrange(1, 30))],
                                "New", "Acme"))
    replaced = {item.id: item for item in upserts}
    final = [replaced.pop(item.id, item) for item in documents if item.id not in deletions] + list(replaced.values())
    return upserts, deletions, final


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), count=st.integers(1, 25), weight=st.sampled_from([1.3, 0.7, 3.0]),
       shards=st.integers(1, 5))
def test_an_update_gives_the_bytes_of_a_fresh_sharded_build(seed, count, weight, shards):
    parameters, analyzer = IndexParameters(title_weight=weight), Analyzer()
    documents = corpus(seed, count)
    old = Index.open(sharded_directory(documents, parameters, shards)).inverted
    recovered = sorted(data for segment in old.segments for _key, data in segment_records(segment))
    assert recovered == sorted(data for _s, data in analyse_partition(documents, analyzer, parameters, shards))
    upserts, deletions, final = _changes(documents, seed)
    if not final:
        return
    files, statistics, analysed = update_sharded(old, upserts, deletions)
    expected_files, expected_statistics = build_sharded(final, analyzer, parameters, shards)
    assert statistics.to_bytes() == expected_statistics.to_bytes()
    assert files == expected_files
    assert analysed == sum(1 for item in upserts if item not in documents)  # phase A for the changed ones only


def test_phase_a_runs_only_for_new_and_changed_documents(monkeypatch):
    parameters = IndexParameters(title_weight=1.3)
    documents = corpus(3, 60)
    old = Index.open(sharded_directory(documents, parameters, 3)).inverted
    seen: list[str] = []
    original = shard_phases.analyse_partition

    def counting(given, *rest, **options):
        given = list(given)
        seen.extend(item.id for item in given)
        return original(given, *rest, **options)

    monkeypatch.setattr(shard_phases, "analyse_partition", counting)
    changed = dataclasses.replace(documents[7], title="Changed title")
    update_sharded(old, [changed, documents[9], document(700, ["apple", "fee"], "New", "Bank")], [documents[2].id])
    assert seen == [changed.id, "d700"]


def _generation_files(directory: Path) -> dict[str, bytes]:
    newest = sorted((directory / "generations").iterdir())[-1]
    return {str(path.relative_to(newest)): path.read_bytes() for path in sorted(newest.rglob("*")) if path.is_file()}


def _write_corpus(documents, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.md"):
        old.unlink()
    for item in documents:
        (folder / f"{item.id}.md").write_text(f"# {item.title}\n\n{item.text}\n", encoding="utf-8")
    return folder


def test_index_update_of_a_sharded_directory_stays_sharded_and_equals_a_fresh_build(tmp_path, capsys):
    documents = corpus(11, 40)
    folder = _write_corpus(documents, tmp_path / "corpus")
    assert main(["index", str(folder), "--out", str(tmp_path / "index"), "--shards", "3", "-q"]) == 0
    upserts, deletions, final = _changes(documents, 4)
    _write_corpus(final, folder)
    capsys.readouterr()
    assert main(["index", str(folder), "--out", str(tmp_path / "index"), "--update", "--allow-deletions", "-q"]) == 0
    out = capsys.readouterr().out
    assert "generation 2" in out and "replaced" in out, out
    assert main(["index", str(folder), "--out", str(tmp_path / "fresh"), "--shards", "3", "-q"]) == 0
    updated, fresh = _generation_files(tmp_path / "index"), _generation_files(tmp_path / "fresh")
    assert sorted(updated) == sorted(fresh) and len(updated) > 10
    assert updated == fresh
    opened = Index.open(tmp_path / "index")
    assert isinstance(opened.inverted, ShardedIndex) and opened.inverted.shard_count == 3
    assert verify_store(tmp_path / "index").ok
    assert main(["index", str(folder), "--out", str(tmp_path / "index"), "--update", "--shards", "2"]) == 2
