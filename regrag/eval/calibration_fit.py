"""Fitting a corpus's calibration map on its labelled questions, and what such
a map would do to questions it was not fitted on (docs/calibration.md).

``fit_calibration`` fits the isotonic map (``regrag.eval.isotonic``) on every
(confidence, evidence passage relevant) pair of one method's results. Its
in-sample error flatters it, so ``out_of_fold`` measures the procedure
instead: the questions, in id order, are dealt into ``folds`` folds (the
*i*-th question to fold *i* mod ``folds``), a map is fitted on the other folds
and applied to each fold's own questions, and the pooled mapped pairs give
the ECE, the refusals (a question is refused when it found nothing to answer
with, or its mapped confidence is below the threshold) and the confident
wrong share. Deterministic: no shuffling, exact fractions inside the fit.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrag.answer.calibration import CalibrationMap
from regrag.answer.lexicon import LEXICON_VERSION
from regrag.answer.rules_version import ANSWER_RULES
from regrag.answer.threshold import REFUSAL_THRESHOLD
from regrag.audit.canonical import JsonRecord
from regrag.errors import InputError
from regrag.eval.calibration import expected_calibration_error, reliability_table
from regrag.eval.isotonic import calibrated, fit_isotonic

DEFAULT_FOLDS = 10


@dataclass(frozen=True)
class OutOfFold(JsonRecord):
    """The answer figures of maps fitted without each question's fold."""

    folds: int
    ece: float
    refused_answerable: float | None  # None: the set has no answerable (or no unanswerable) questions
    refused_unanswerable: float | None
    confident_wrong: float


def _pairs(result) -> list[tuple[str, float, bool]]:
    if not result.confidence:
        raise InputError(f"{result.method}: no answer confidences to calibrate (the labelled set has no answers.jsonl "
                         "and no unanswerable questions, or answers were not evaluated)")
    return [(query_id, *result.confidence[query_id]) for query_id in sorted(result.confidence)]


def out_of_fold(result, unanswerable: tuple[str, ...], folds: int = DEFAULT_FOLDS,
                threshold: float = REFUSAL_THRESHOLD) -> OutOfFold:
    """``result``'s (a ``MethodResult``) figures under ``folds``-fold maps."""
    pairs = _pairs(result)
    if not 2 <= folds <= len(pairs):
        raise InputError(f"folds must be between 2 and the number of questions ({len(pairs)}), got {folds}")
    mapped: dict[str, float] = {}
    for fold in range(folds):
        step_map = fit_isotonic([(value, ok) for number, (_q, value, ok) in enumerate(pairs) if number % folds != fold])
        for number, (query_id, value, _ok) in enumerate(pairs):
            if number % folds == fold:
                mapped[query_id] = calibrated(step_map, value)
    ece = expected_calibration_error(reliability_table([(mapped[q], ok) for q, _v, ok in pairs]))
    refused = {q: not result.found[q] or mapped[q] < threshold for q, _v, _ok in pairs}
    unanswered = set(unanswerable)
    answerable = [q for q, _v, _ok in pairs if q not in unanswered]
    lacking = [q for q, _v, _ok in pairs if q in unanswered]
    answered = [q for q, _v, _ok in pairs if not refused[q]]

    def share(ids: list[str], flag) -> float | None:
        return sum(1 for q in ids if flag(q)) / len(ids) if ids else None

    return OutOfFold(folds, ece, share(answerable, refused.__getitem__), share(lacking, refused.__getitem__),
                     share(answered, result.cited_wrong.__getitem__) or 0.0)


def fit_calibration(result, labelled_set: str, folds: int = DEFAULT_FOLDS, unanswerable: tuple[str, ...] = ()
                    ) -> tuple[CalibrationMap, OutOfFold]:
    """The map fitted on all of ``result``'s questions, with its out-of-fold figures
    (the ECE is stored in the map). ``result`` must come from an evaluation
    without a calibration map (the rule-based confidences)."""
    pairs = _pairs(result)
    measured = out_of_fold(result, unanswerable, folds)
    points = fit_isotonic([(value, ok) for _q, value, ok in pairs])
    return CalibrationMap(points, result.method, labelled_set, len(pairs), ANSWER_RULES, LEXICON_VERSION,
                          measured.ece, folds), measured
