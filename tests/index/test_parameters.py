"""IndexParameters ranges: every value outside them is one clear error naming
the field (CLI: one line, exit 2), and every value inside them gives finite
scores (issue 12, item 1.8: --title-weight 1e308 and tiny title weights gave
tracebacks)."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from regrag import Index
from regrag.errors import InputError
from regrag.index.parameters import IndexParameters

REFUSED = [
    ("k1", float("nan"), "finite"), ("k1", float("inf"), "finite"), ("k1", -0.1, "between 0 and 1000"),
    ("k1", 1000.5, "between 0 and 1000"), ("k1", 1e308, "between 0 and 1000"),
    ("b", 2.0, "between 0 and 1"), ("b", -0.01, "between 0 and 1"), ("b", float("nan"), "finite"),
    ("title_weight", -1.0, "0 or between 0.001 and 1000"), ("title_weight", 1e308, "0 or between 0.001 and 1000"),
    ("title_weight", 1e-300, "0 or between 0.001 and 1000"), ("title_weight", 0.0009, "0 or between 0.001 and 1000"),
    ("title_weight", 1000.01, "0 or between 0.001 and 1000"), ("title_weight", float("-inf"), "finite"),
    ("max_passage_chars", 0, "between 50 and 2,147,483,647"), ("max_passage_chars", 49, "between 50"),
    ("max_passage_chars", 2**31, "between 50 and 2,147,483,647"), ("max_passage_chars", 10**23, "between 50"),
    ("max_passage_chars", 100.0, "an integer"), ("max_passage_chars", True, "an integer"), ("k1", True, "finite number"),
    ("k1", "1.5", "finite number"),
]


@pytest.mark.parametrize("name, value, expected", REFUSED, ids=[f"{n}={v!r}" for n, v, _e in REFUSED])
def test_out_of_range_parameters_are_refused_naming_the_field(name, value, expected):
    with pytest.raises(InputError) as raised:
        IndexParameters(**{name: value})
    assert f"parameter {name} must be" in str(raised.value)
    assert expected in str(raised.value)


@pytest.mark.parametrize("values", [
    {"k1": 0.0}, {"k1": 1000.0}, {"k1": 1000}, {"b": 0.0}, {"b": 1.0}, {"title_weight": 0.0},
    {"title_weight": 0.001}, {"title_weight": 1000.0}, {"max_passage_chars": 50}, {"max_passage_chars": 2**31 - 1},
])
def test_the_bounds_themselves_are_accepted(values):
    parameters = IndexParameters(**values)
    for name, value in values.items():
        assert getattr(parameters, name) == value


def test_negative_zero_is_stored_as_zero_so_one_scoring_has_one_index_id(title_only):
    plus = Index.from_path(title_only, parameters=IndexParameters(b=0.0, title_weight=0.0))
    minus = Index.from_path(title_only, parameters=IndexParameters(b=-0.0, title_weight=-0.0))
    assert math.copysign(1.0, IndexParameters(b=-0.0).b) == 1.0
    assert minus.index_id == plus.index_id


# A passage whose body holds no term: its only terms are its title's, weighted by title_weight.
@pytest.fixture
def title_only(tmp_path):
    (tmp_path / "t.md").write_text("# Alpha beta\n\n---\n\n# Gamma\n\nalpha gamma delta text here\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("values", [
    {"title_weight": 0.001}, {"title_weight": 0.001, "k1": 1000.0, "b": 1.0}, {"title_weight": 1000.0, "k1": 1000.0},
    {"title_weight": 1000.0, "k1": 0.0, "b": 0.0}, {"title_weight": 0.0},
])
def test_every_score_is_finite_at_the_bounds(values, title_only):
    """At 1e-300 this passage's TF-IDF norm underflowed to 0 (ZeroDivisionError);
    at 1e308 its weighted length overflowed (OverflowError)."""
    index = Index.from_path(title_only, parameters=IndexParameters(**values))
    for method in ("bm25", "tfidf", "hybrid"):
        hits = index.search("alpha beta gamma", k=10, method=method, entities=False)
        assert hits
        assert all(math.isfinite(hit.score) and hit.score > 0 for hit in hits)


CLI_CASES = [
    (["--k1", "nan"], "parameter k1 must be a finite number"),
    (["--k1", "1e308"], "parameter k1 must be between 0 and 1000"),
    (["--b", "2"], "parameter b must be between 0 and 1"),
    (["--title-weight", "-1"], "parameter title_weight must be 0 or between"),
    (["--title-weight", "1e308"], "parameter title_weight must be 0 or between"),
    (["--title-weight", "1e-300"], "parameter title_weight must be 0 or between"),
    (["--max-passage-chars", "0"], "parameter max_passage_chars must be an integer between 50"),
    (["--max-passage-chars", "100000000000000000000000"], "parameter max_passage_chars must be an integer between 50"),
]


@pytest.mark.parametrize("options, expected", CLI_CASES, ids=[" ".join(o) for o, _e in CLI_CASES])
def test_cli_refuses_out_of_range_parameters_in_one_line(options, expected):
    done = subprocess.run([sys.executable, "-m", "regrag", "search", "fee", *options],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert expected in done.stderr
