"""The query ledger: exact line format, chain verification, tamper detection, concurrent appends."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrag.audit.ledger import (
    GENESIS_PREVIOUS,
    LedgerEntry,
    LedgerReport,
    append_record,
    format_report,
    read_ledger,
    verify_ledger,
)
from regrag.errors import InputError

START = datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=timezone.utc)


def build_ledger(path: Path, count: int = 5) -> list[bytes]:
    """A ledger of ``count`` entries with fixed timestamps; its lines (each with its newline)."""
    for number in range(count):
        append_record(path, {"query": f"query {number}", "scores": [0.5, number / 3]}, START + timedelta(seconds=number))
    return path.read_bytes().splitlines(keepends=True)


def rewrite_record(line: bytes, change: dict) -> bytes:
    """``line`` with its record updated, re-serialised canonically but with the old hash."""
    entry = json.loads(line)
    entry["record"].update(change)
    return json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


# -- format -------------------------------------------------------------------


def test_first_entry_exact_bytes(tmp_path):
    path = tmp_path / "ledger.jsonl"
    entry = append_record(path, {"query": "annual fee", "k": 3, "ids": ("a.md#1",), "score": 0.1 + 0.2, "zh": "年费"}, START)
    content = (
        '{"previous":"0000000000000000000000000000000000000000000000000000000000000000",'
        '"record":{"ids":["a.md#1"],"k":3,"query":"annual fee","score":0.30000000000000004,"zh":"年费"},'
        '"sequence":1,"timestamp":"2025-01-02T03:04:05.678901Z"}'
    )
    expected_hash = "6cbdf331c2bf8986217d40a35b3dd93c0df2ee1a0a0984c1a7c04319ecb2e916"
    assert hashlib.sha256(content.encode("utf-8")).hexdigest() == expected_hash
    assert path.read_bytes().decode("utf-8") == (
        '{"hash":"6cbdf331c2bf8986217d40a35b3dd93c0df2ee1a0a0984c1a7c04319ecb2e916",'
        '"previous":"0000000000000000000000000000000000000000000000000000000000000000",'
        '"record":{"ids":["a.md#1"],"k":3,"query":"annual fee","score":0.30000000000000004,"zh":"年费"},'
        '"sequence":1,"timestamp":"2025-01-02T03:04:05.678901Z"}\n'
    )
    assert entry.hash == expected_hash
    assert entry.sequence == 1 and entry.previous == GENESIS_PREVIOUS
    assert entry.record == {"ids": ["a.md#1"], "k": 3, "query": "annual fee", "score": 0.30000000000000004, "zh": "年费"}


def test_chain_of_entries_verifies_and_links(tmp_path):
    path = tmp_path / "ledger.jsonl"
    appended = [append_record(path, {"n": number}) for number in range(6)]
    entries = read_ledger(path)
    assert entries == appended
    assert [entry.sequence for entry in entries] == [1, 2, 3, 4, 5, 6]
    assert entries[0].previous == GENESIS_PREVIOUS
    for before, after in zip(entries, entries[1:]):
        assert after.previous == before.hash
    for entry, line in zip(entries, path.read_bytes().splitlines()):
        assert entry.line() == line
        without_hash = {key: value for key, value in json.loads(line).items() if key != "hash"}
        canonical = json.dumps(without_hash, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert entry.hash == hashlib.sha256(canonical.encode()).hexdigest()
    report = verify_ledger(path)
    assert report == LedgerReport(True, 6, None, "")
    assert format_report(report) == "ok: 6 entries, chain intact"


def test_timestamp_is_utc_with_microseconds(tmp_path):
    path = tmp_path / "ledger.jsonl"
    plus_two = timezone(timedelta(hours=2))
    entry = append_record(path, {}, datetime(2025, 6, 1, 1, 30, tzinfo=plus_two))
    assert entry.timestamp == "2025-05-31T23:30:00.000000Z"
    now = append_record(path, {})
    parsed = datetime.strptime(now.timestamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    assert abs(parsed - datetime.now(timezone.utc)) < timedelta(minutes=5)


def test_clock_going_backwards_is_recorded_and_verifies(tmp_path):
    path = tmp_path / "ledger.jsonl"
    append_record(path, {"n": 1}, START)
    append_record(path, {"n": 2}, START - timedelta(days=1))
    assert [entry.timestamp for entry in read_ledger(path)] == ["2025-01-02T03:04:05.678901Z", "2025-01-01T03:04:05.678901Z"]
    assert verify_ledger(path).ok


def test_empty_ledger_verifies(tmp_path):
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(b"")
    assert verify_ledger(path) == LedgerReport(True, 0, None, "")
    assert read_ledger(path) == []


def test_long_records_cross_tail_blocks(tmp_path):
    path = tmp_path / "ledger.jsonl"
    append_record(path, {"answer": "x" * 200_000})
    append_record(path, {"answer": "y" * 70_000})
    third = append_record(path, {"answer": "z"})
    assert third.sequence == 3 and third.previous == read_ledger(path)[1].hash
    assert verify_ledger(path).entries == 3


def test_entry_dict_round_trip():
    entry = LedgerEntry(1, "2025-01-02T03:04:05.678901Z", GENESIS_PREVIOUS, {"q": "x"}, "a" * 64)
    assert LedgerEntry.from_dict(entry.to_dict()) == entry
    with pytest.raises(InputError, match="missing hash"):
        LedgerEntry.from_dict({key: value for key, value in entry.to_dict().items() if key != "hash"})
    with pytest.raises(InputError, match="sequence"):
        LedgerEntry.from_dict({**entry.to_dict(), "sequence": True})


# -- tampering --------------------------------------------------------------------


@pytest.mark.parametrize("line_number", [1, 2, 3, 4, 5])
def test_edited_record_is_the_first_broken_line(tmp_path, line_number):
    path = tmp_path / "ledger.jsonl"
    lines = build_ledger(path)
    lines[line_number - 1] = rewrite_record(lines[line_number - 1], {"query": "edited"})
    path.write_bytes(b"".join(lines))
    report = verify_ledger(path)
    assert (report.ok, report.first_broken_line, report.entries) == (False, line_number, line_number - 1)
    assert "hash does not match" in report.reason


def test_edited_record_with_recomputed_hash_breaks_the_next_line(tmp_path):
    path = tmp_path / "ledger.jsonl"
    lines = build_ledger(path)
    entry = json.loads(lines[1])
    entry["record"]["query"] = "edited"
    entry["hash"] = LedgerEntry.from_dict(entry).computed_hash()
    lines[1] = json.dumps(entry, sort_keys=True, separators=(",", ":")).encode() + b"\n"
    path.write_bytes(b"".join(lines))
    report = verify_ledger(path)
    assert (report.first_broken_line, report.entries) == (3, 2)
    assert "previous is not the hash of line 2" in report.reason


def test_non_canonical_line_is_detected(tmp_path):
    path = tmp_path / "ledger.jsonl"
    lines = build_ledger(path)
    lines[2] = json.dumps(json.loads(lines[2]), sort_keys=True).encode() + b"\n"  # same content, spaces added
    path.write_bytes(b"".join(lines))
    report = verify_ledger(path)
    assert (report.first_broken_line, report.entries) == (3, 2)
    assert "canonical" in report.reason


def test_deleted_middle_line_is_detected(tmp_path):
    path = tmp_path / "ledger.jsonl"
    lines = build_ledger(path)
    path.write_bytes(b"".join(lines[:2] + lines[3:]))
    report = verify_ledger(path)
    assert (report.ok, report.first_broken_line, report.entries) == (False, 3, 2)
    assert "sequence 4 where 3 was expected" in report.reason
    assert format_report(report).startswith("broken at line 3: previous is not the hash of line 2; sequence 4")


def test_deleted_first_line_is_detected(tmp_path):
    path = tmp_path / "ledger.jsonl"
    lines = build_ledger(path)
    path.write_bytes(b"".join(lines[1:]))
    report = verify_ledger(path)
    assert (report.first_broken_line, report.entries) == (1, 0)
    assert "64 zeros" in report.reason


def test_swapped_lines_are_detected(tmp_path):
    path = tmp_path / "ledger.jsonl"
    lines = build_ledger(path)
    lines[1], lines[2] = lines[2], lines[1]
    path.write_bytes(b"".join(lines))
    report = verify_ledger(path)
    assert (report.first_broken_line, report.entries) == (2, 1)
    assert "reordered" in report.reason


@pytest.mark.parametrize("cut", [1, 10, 100])
def test_truncated_last_line_is_detected(tmp_path, cut):
    path = tmp_path / "ledger.jsonl"
    data = b"".join(build_ledger(path))
    path.write_bytes(data[:-cut])
    report = verify_ledger(path)
    assert (report.first_broken_line, report.entries) == (5, 4)
    assert "incomplete last line" in report.reason


@pytest.mark.parametrize(
    ("garbage", "reason"),
    [
        (b"garbage\n", "malformed JSON"),
        (b"garbage", "incomplete last line"),
        (b"\n", "empty line"),
        (b'{"a": 1}\n', "not a ledger entry"),
        (b"\xff\xfe\n", "invalid UTF-8"),
    ],
)
def test_appended_garbage_is_detected(tmp_path, garbage, reason):
    path = tmp_path / "ledger.jsonl"
    build_ledger(path)
    with open(path, "ab") as handle:
        handle.write(garbage)
    report = verify_ledger(path)
    assert (report.first_broken_line, report.entries) == (6, 5)
    assert reason in report.reason


def test_verify_and_read_a_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        verify_ledger(tmp_path / "missing.jsonl")
    with pytest.raises(InputError, match="file not found"):
        read_ledger(tmp_path / "missing.jsonl")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\n", ":2: invalid UTF-8"),
        (b"{not json\n", ":2: malformed JSON"),
        (b"[1, 2]\n", ":2: not a ledger entry: expected a JSON object"),
        (b'{"sequence": 2}\n', ":2: not a ledger entry: missing hash"),
        (b"", ":1: incomplete last line"),
    ],
)
def test_read_ledger_names_file_and_line(tmp_path, content, message):
    path = tmp_path / "ledger.jsonl"
    lines = build_ledger(path, 1)
    if content:
        path.write_bytes(lines[0] + content)
    else:
        path.write_bytes(lines[0].rstrip(b"\n"))
    with pytest.raises(InputError) as caught:
        read_ledger(path)
    assert str(caught.value).startswith(f"{path}{message}")


# -- append refuses a damaged tail --------------------------------------------------


def test_append_refuses_a_truncated_last_line(tmp_path):
    path = tmp_path / "ledger.jsonl"
    data = b"".join(build_ledger(path, 3))
    path.write_bytes(data[:-20])
    with pytest.raises(InputError) as caught:
        append_record(path, {"q": "more"})
    message = str(caught.value)
    assert message.startswith(f"{path}:3: the last line is incomplete")
    assert f"regrag ledger verify {path}" in message
    assert path.read_bytes() == data[:-20]


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda lines: lines[:-1] + [b"garbage\n"], "malformed JSON"),
        (lambda lines: lines[:-1] + [rewrite_record(lines[-1], {"query": "edited"})], "hash does not match"),
        (lambda lines: lines + [b"\n"], "empty line"),
    ],
)
def test_append_refuses_a_damaged_last_entry(tmp_path, damage, reason):
    path = tmp_path / "ledger.jsonl"
    damaged = b"".join(damage(build_ledger(path, 3)))
    path.write_bytes(damaged)
    line_count = damaged.count(b"\n")
    with pytest.raises(InputError, match=f":{line_count}: the last entry is damaged .*{reason}.*ledger verify"):
        append_record(path, {"q": "more"})
    assert path.read_bytes() == damaged


# -- bad input ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"ids": {"a", "b"}}, r"record\['ids'\] is a set"),
        ({"score": float("nan")}, "NaN"),
        ({"score": float("inf")}, "infinities"),
        ({"results": [{"score": 1.0}, {"score": float("-inf")}]}, r"record\['results'\]\[1\]\['score'\]"),
        ({1: "x"}, "keys must be strings"),
        ({"when": datetime(2025, 1, 1)}, "datetime"),
        ({"text": "\ud800"}, "not valid Unicode"),
        (["not", "a", "mapping"], "must be a mapping"),
    ],
)
def test_non_serialisable_record_is_an_input_error(tmp_path, record, message):
    path = tmp_path / "ledger.jsonl"
    with pytest.raises(InputError, match=message):
        append_record(path, record, START)
    assert not path.exists()


def test_naive_datetime_is_an_input_error(tmp_path):
    path = tmp_path / "ledger.jsonl"
    with pytest.raises(InputError, match="timezone-aware"):
        append_record(path, {"q": "x"}, datetime(2025, 1, 2, 3, 4, 5))
    assert not path.exists()


def test_unopenable_path_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        append_record(tmp_path, {"q": "x"})
    with pytest.raises(InputError, match="directory does not exist"):
        append_record(tmp_path / "missing" / "ledger.jsonl", {"q": "x"})


# -- properties -------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(), children, max_size=3),
    max_leaves=10,
)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(st.dictionaries(st.text(), json_values, max_size=4), min_size=1, max_size=3))
def test_any_json_record_round_trips_and_verifies(tmp_path_factory, records):
    path = tmp_path_factory.mktemp("ledger") / "ledger.jsonl"
    appended = [append_record(path, record, START) for record in records]
    assert [entry.record for entry in read_ledger(path)] == records
    assert read_ledger(path) == appended
    assert verify_ledger(path) == LedgerReport(True, len(records), None, "")


# -- concurrency ------------------------------------------------------------------

# The worker runs as source text through the builtin ``exec`` (which a spawned
# child can unpickle) because pytest's importlib mode gives this test module a
# name that a fresh interpreter cannot import.
WORKER_SOURCE = """
from regrag.audit.ledger import append_record
start.wait(timeout=60)
for number in range(count):
    append_record(path, {"writer": writer, "number": number})
"""

WRITERS = 4
RECORDS_PER_WRITER = 50


def test_concurrent_appends_from_processes_keep_the_chain(tmp_path):
    path = tmp_path / "ledger.jsonl"
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(WRITERS)
    processes = [
        context.Process(
            target=exec,
            args=(WORKER_SOURCE, {"start": start, "path": str(path), "writer": writer, "count": RECORDS_PER_WRITER}),
        )
        for writer in range(WRITERS)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
    assert [process.exitcode for process in processes] == [0] * WRITERS

    entries = read_ledger(path)
    assert len(entries) == WRITERS * RECORDS_PER_WRITER
    assert [entry.sequence for entry in entries] == list(range(1, WRITERS * RECORDS_PER_WRITER + 1))
    assert verify_ledger(path) == LedgerReport(True, WRITERS * RECORDS_PER_WRITER, None, "")
    written = sorted((entry.record["writer"], entry.record["number"]) for entry in entries)
    assert written == [(writer, number) for writer in range(WRITERS) for number in range(RECORDS_PER_WRITER)]
