"""Generations: the server follows CURRENT without dropping requests, and
serves older generations by number or time (docs/serve.md, "Generations")."""

from __future__ import annotations

import json
import threading
import time

from regrag import Index
from regrag.index.directory import IndexStore
from regrag.serve.state import IndexHolder

from tests.serve.support import DOCUMENTS, write_corpus


def search(running, text: str, **extra):
    status, _h, data = running.call("POST", "/_search", dict({"query": {"match": {"text": text}}}, **extra))
    return status, json.loads(data)


def publish_one_more(directory, folder, number: int) -> None:
    (folder / f"added-{number}.md").write_text(f"# Added {number}\n\nAn annual fee note, number {number}.\n")
    Index.from_path(folder).save(directory)


def test_a_new_generation_is_served_once_current_moves(tmp_path, make_running):
    directory, folder = tmp_path / "index", write_corpus(tmp_path / "documents")
    Index.from_path(folder).save(directory)
    running = make_running(IndexHolder(directory))
    status, body = search(running, "annual fee note")
    assert status == 200 and body["regrag"]["generation"] == 1
    publish_one_more(directory, folder, 2)
    time.sleep(0.1)
    status, body = search(running, "annual fee note number 2", size=1)
    assert body["regrag"]["generation"] == 2 and body["hits"]["hits"][0]["_id"] == "added-2.md#1"
    status, old = search(running, "annual fee note number 2", size=5, generation=1)
    assert status == 200 and old["regrag"]["generation"] == 1
    assert "added-2.md#1" not in [h["_id"] for h in old["hits"]["hits"]]
    published = IndexStore(directory).history()[1][1].published
    status, as_of = search(running, "annual fee", as_of=published)
    assert as_of["regrag"]["generation"] == 2
    status, _body = search(running, "annual fee", generation=9)
    assert status == 400


def test_requests_during_publishing_all_succeed_and_name_their_generation(tmp_path, make_running):
    directory, folder = tmp_path / "index", write_corpus(tmp_path / "documents")
    Index.from_path(folder).save(directory)
    running = make_running(IndexHolder(directory), workers=4, rate=0)
    outcomes: list[tuple[int, dict]] = []
    stop = threading.Event()

    def client() -> None:
        while not stop.is_set():
            outcomes.append(search(running, "annual fee", size=3, method="bm25"))

    clients = [threading.Thread(target=client) for _ in range(3)]
    for thread in clients:
        thread.start()
    try:
        for number in range(2, 6):
            publish_one_more(directory, folder, number)
            time.sleep(0.15)
    finally:
        stop.set()
        for thread in clients:
            thread.join()
    assert outcomes and all(status == 200 for status, _b in outcomes), _debug_statuses(outcomes)
    _current, generations = IndexStore(directory).history()
    ids = {g.number: g.index_id for g in generations}
    seen = {body["regrag"]["generation"] for _s, body in outcomes}
    assert len(seen) >= 2
    for _status, body in outcomes:
        generation = body["regrag"]["generation"]
        assert body["regrag"]["index_id"] == ids[generation]  # no response mixes generations
        assert all(h["_source"]["index_id"] == ids[generation] for h in body["hits"]["hits"])
    assert len(DOCUMENTS) == 6


def _debug_statuses(outcomes):
    return sorted({(s, json.dumps(b)[:300]) for s, b in outcomes if s != 200})


def test_a_damaged_new_generation_leaves_the_open_one_served(tmp_path, make_running, capsys):
    directory, folder = tmp_path / "index", write_corpus(tmp_path / "documents")
    Index.from_path(folder).save(directory)
    running = make_running(IndexHolder(directory), rate=0)
    assert search(running, "annual fee")[1]["regrag"]["generation"] == 1
    publish_one_more(directory, folder, 2)
    manifest = max(directory.rglob("manifest.json"), key=lambda p: p.stat().st_mtime_ns)  # generation 2's
    manifest.write_bytes(manifest.read_bytes().replace(b'"', b"'", 1))
    time.sleep(0.1)
    for _ in range(3):
        status, body = search(running, "annual fee")
        assert status == 200 and body["regrag"]["generation"] == 1
    assert capsys.readouterr().err.count("could not be opened") == 1
