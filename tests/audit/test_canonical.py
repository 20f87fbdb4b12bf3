"""The JSON form of a record (``record_dict``, ``JsonRecord``) that most ``to_dict`` methods share."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from dataclasses import dataclass

from regrag.audit.canonical import JsonRecord, canonical_json, record_dict


@dataclass(frozen=True)
class Inner(JsonRecord):
    zeta: int
    alpha: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Outer:
    name: str
    inners: tuple[Inner, ...]
    optional: Inner | None
    mapping: dict
    pairs: tuple[tuple[str, str], ...] = ()

    @property
    def size(self) -> int:
        return len(self.inners)


def test_fields_sorted_by_name_and_tuples_become_lists():
    inner = Inner(1, ((0, 3), (5, 8)))
    assert list(inner.to_dict()) == ["alpha", "zeta"]
    assert inner.to_dict() == {"alpha": [[0, 3], [5, 8]], "zeta": 1}


def test_nested_records_give_their_to_dict_and_none_stays_none():
    inner = Inner(2, ())
    outer = Outer("o", (inner,), None, {"b": 1})
    data = record_dict(outer)
    assert list(data) == ["inners", "mapping", "name", "optional", "pairs"]
    assert data["inners"] == [{"alpha": [], "zeta": 2}]
    assert data["optional"] is None
    assert record_dict(Outer("o", (), inner, {}))["optional"] == {"alpha": [], "zeta": 2}


def test_a_mapping_is_not_copied():
    mapping = {"b": [1, 2], "a": {"c": None}}
    assert record_dict(Outer("o", (), None, mapping))["mapping"] is mapping


def test_extra_adds_properties_and_replaces_a_fields_form_in_sorted_order():
    outer = Outer("o", (Inner(1, ()),), None, {}, (("k1", "1.2"), ("b", "0.75")))
    data = record_dict(outer, size=outer.size, pairs=dict(outer.pairs))
    assert list(data) == ["inners", "mapping", "name", "optional", "pairs", "size"]
    assert data["pairs"] == {"k1": "1.2", "b": "0.75"}
    assert data["size"] == 1
    assert canonical_json(data) == json.dumps(data, sort_keys=True, separators=(",", ":"))


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_json_values)
def test_canonical_json_is_json_dumps_with_the_canonical_settings(value):
    # the shared encoder must give exactly what a fresh json.dumps call gives, on any value and call after call
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    assert canonical_json(value) == expected
    assert canonical_json(value) == expected


def test_canonical_json_refuses_nan_and_infinity_every_time():
    for value in (float("nan"), [1.0, float("inf")], {"a": -float("inf")}):
        for _ in range(2):
            with pytest.raises(ValueError):
                canonical_json(value)
