"""Replay every fuzzing seed (tests/fuzz/seeds/<target>/*) through its target.

The seeds are the nastiest inputs written or found for each input surface (combining floods,
bidi controls, NFKC expanders, deep JSON, huge numbers, damaged ledgers and manifests, ...);
each target (tests/fuzz/targets.py) swallows ``InputError`` and checks invariants on what
regrag returns, so any other exception here is a regression. bench/fuzz.py mutates the same
seeds; a finding worth keeping is added to the seed folder.
"""

from __future__ import annotations

import pytest

from tests.fuzz.targets import KNOWN_FINDINGS, TARGETS, run_target, seed_directory

SEEDS = sorted(
    (target, path.name)
    for target in TARGETS
    for path in (seed_directory() / target).iterdir()
    if path.is_file()
)


def test_every_target_has_seeds() -> None:
    assert sorted({target for target, _name in SEEDS}) == sorted(TARGETS)


def _marked(target: str, name: str):
    """A known finding (tests/fuzz/targets.py: KNOWN_FINDINGS) is a strict xfail: once its
    module is fixed the test fails until the entry is removed."""
    reason = KNOWN_FINDINGS.get((target, name))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(target, name, marks=marks, id=f"{target}/{name}")


@pytest.mark.parametrize(("target", "name"), [_marked(t, n) for t, n in SEEDS])
def test_seed_runs_without_an_unexpected_exception(target: str, name: str) -> None:
    data = (seed_directory() / target / name).read_bytes()
    assert len(data) <= 8192, "seeds are small files"
    run_target(target, data)
