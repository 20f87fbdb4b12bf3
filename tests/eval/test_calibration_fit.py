"""Fitting a corpus's calibration map and its out-of-fold figures
(regrag.eval.calibration_fit), exact on a hand-made result."""

from __future__ import annotations

import pytest

from regrag.answer.rules_version import ANSWER_RULES
from regrag.errors import InputError
from regrag.eval.calibration_fit import fit_calibration, out_of_fold
from regrag.eval.run import MethodResult


def result(pairs: dict[str, tuple[float, bool]], found=None, cited_wrong=None) -> MethodResult:
    found = found or {q: True for q in pairs}
    cited_wrong = cited_wrong or {q: not ok for q, (_v, ok) in pairs.items()}
    return MethodResult("hybrid", {}, {}, {}, (), {}, {}, {}, pairs, {}, found, cited_wrong)


# q0..q5 in id order: folds of 2 are {q0, q2, q4} and {q1, q3, q5}
PAIRS = {"q0": (0.2, False), "q1": (0.3, False), "q2": (0.6, True), "q3": (0.7, True), "q4": (0.9, True),
         "q5": (0.4, True)}


def test_out_of_fold_maps_each_fold_by_the_others():
    measured = out_of_fold(result(PAIRS), unanswerable=("q0",), folds=2)
    # fold {q1, q3, q5} fitted: 0.3→0, 0.4→1, 0.7→1; applied to q0 (0.2→0), q2 (0.6→1), q4 (0.9→1)
    # fold {q0, q2, q4} fitted: 0.2→0, 0.6→1, 0.9→1; applied to q1 (0.3→0), q3 (0.7→1), q5 (0.4→0)
    assert measured.folds == 2
    assert measured.refused_unanswerable == 1.0  # q0
    assert measured.refused_answerable == 2 / 5  # q1 and q5
    assert measured.confident_wrong == 0.0  # q2, q3, q4 answered, all right
    # mapped: 0, 0, 1, 1, 1, 0 against right: F F T T T T; bins [0,0.2) 3 (one right), [0.8,1] 3 (all right)
    assert measured.ece == 0.5 * (1 / 3)


def test_a_question_found_nothing_is_refused_whatever_its_map():
    measured = out_of_fold(result(PAIRS, found={**{q: True for q in PAIRS}, "q4": False}), (), folds=2)
    assert measured.refused_answerable == 4 / 6  # q0, q1, q5 by the map, q4 found nothing


def test_the_fit_is_on_every_question_and_records_its_rules():
    calibration, measured = fit_calibration(result(PAIRS), "corpora/example", folds=2, unanswerable=("q0",))
    # pool adjacent violators merges only blocks out of order: equal neighbours stay apart
    assert calibration.points == ((0.2, 0.0), (0.3, 0.0), (0.4, 1.0), (0.6, 1.0), (0.7, 1.0), (0.9, 1.0))
    assert calibration.questions == 6 and calibration.method == "hybrid" and calibration.answer_rules == ANSWER_RULES
    assert calibration.out_of_fold_ece == measured.ece and calibration.folds == 2
    # deterministic: the same result, the same bytes
    assert fit_calibration(result(dict(reversed(list(PAIRS.items())))), "corpora/example", 2, ("q0",))[0] == calibration


def test_bad_folds_and_no_confidences_are_errors():
    with pytest.raises(InputError, match="folds must be between 2 and the number of questions"):
        out_of_fold(result(PAIRS), (), folds=7)
    with pytest.raises(InputError, match="no answer confidences"):
        out_of_fold(result({}), (), folds=2)
