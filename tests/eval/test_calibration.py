"""Reliability bins and expected calibration error, by hand."""

from __future__ import annotations

import pytest

from regrag.eval.calibration import expected_calibration_error, reliability_table


def test_bins_and_ece_by_hand():
    pairs = [(0.1, False), (0.15, True), (0.9, True), (1.0, True), (0.5, False)]
    table = reliability_table(pairs, bins=5)
    assert [(b.low, b.high, b.count) for b in table] == [(0.0, 0.2, 2), (0.4, 0.6, 1), (0.8, 1.0, 2)]
    assert table[0].mean_confidence == pytest.approx(0.125) and table[0].accuracy == 0.5
    assert table[2].mean_confidence == pytest.approx(0.95) and table[2].accuracy == 1.0
    # ECE = 2/5·|0.5 − 0.125| + 1/5·|0 − 0.5| + 2/5·|1 − 0.95|
    assert expected_calibration_error(table) == pytest.approx(0.4 * 0.375 + 0.2 * 0.5 + 0.4 * 0.05)


def test_out_of_range_confidence_is_rejected():
    with pytest.raises(ValueError):
        reliability_table([(1.5, True)])


def test_empty():
    assert reliability_table([]) == ()
    assert expected_calibration_error(()) == 0.0
