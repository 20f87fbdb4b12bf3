"""The cross-set calibration map (regrag.eval.isotonic): pool adjacent violators."""

from __future__ import annotations

from fractions import Fraction

from regrag.eval.isotonic import calibrated, fit_isotonic


def test_monotone_blocks_and_their_accuracy():
    pairs = [(0.1, False), (0.2, True), (0.3, False), (0.6, True), (0.7, True), (0.9, False), (0.95, True)]
    mapping = fit_isotonic(pairs)
    accuracies = [a for _low, a in mapping]
    assert accuracies == sorted(accuracies)
    assert mapping == ((0.1, 0.0), (0.2, 0.5), (0.6, 2 / 3), (0.95, 1.0))  # worked by hand
    assert calibrated(mapping, 0.0) == 0.0 and calibrated(mapping, 0.25) == 0.5 and calibrated(mapping, 0.9) == 2 / 3
    assert calibrated(mapping, 1.0) == 1.0


def test_order_of_the_pairs_does_not_matter():
    pairs = [(0.5, True), (0.5, False), (0.4, True), (0.8, False), (0.8, True), (0.1, False)]
    assert fit_isotonic(pairs) == fit_isotonic(list(reversed(pairs)))


def test_empty_map_is_identity():
    assert fit_isotonic([]) == () and calibrated((), 0.37) == 0.37


def test_weights_count_sets_alike():
    # two sets: a big one always right at 0.5, a small one always wrong at 0.5
    pairs = [(0.5, True)] * 8 + [(0.5, False)] * 2
    weights = [Fraction(1, 8)] * 8 + [Fraction(1, 2)] * 2
    assert fit_isotonic(pairs) == ((0.5, 0.8),)
    assert fit_isotonic(pairs, weights) == ((0.5, 0.5),)
