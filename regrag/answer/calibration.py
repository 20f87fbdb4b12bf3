"""A calibration map for one corpus: the confidence ``ask`` computes, mapped to
the share of answers that were right at that confidence on the corpus's own
labelled questions (docs/calibration.md).

The rule-based confidence of ``regrag.answer.confidence`` ranks answers well
but means different things on different corpora: on a set whose questions all
have answers, a confidence of 0.4 is right far more often than on one where a
quarter are unanswerable near misses. ``regrag eval --fit-calibration FILE``
fits a non-decreasing step map (isotonic regression, ``regrag.eval.isotonic``)
on a labelled set and writes it here, with the rules it was fitted under and
its out-of-fold error; ``ask --calibration FILE`` (``AskOptions.calibration``)
then reports the mapped value as ``confidence.value`` and refuses below the
threshold by it, keeping the rule-based one as ``confidence.uncalibrated``.

The file is one canonical JSON object (``regrag-calibration/1``) whose
``fingerprint`` is the SHA-256 of the canonical JSON of everything else, so an
edited file is refused; ``read_calibration`` names the file and the field of
any fault. Applying the map is a lookup, no arithmetic: the same bytes on
every platform.
"""

from __future__ import annotations

import bisect
import math
import os
from dataclasses import dataclass
from typing import Any

from regrag.audit.canonical import JsonRecord, canonical_bytes, canonical_json, sha256_hex
from regrag.errors import InputError
from regrag.io.writes import write_atomically
from regrag.jsonl import parse_json_object, read_bytes

CALIBRATION_FORMAT = "regrag-calibration/1"
_FIELDS = ("answer_rules", "folds", "format", "labelled_set", "lexicon", "method", "out_of_fold_ece", "points",
           "questions")


@dataclass(frozen=True)
class CalibrationMap(JsonRecord):
    """The step map ``points`` (each the lowest confidence of a step and that
    step's observed accuracy, both ascending) and what it was fitted on."""

    points: tuple[tuple[float, float], ...]
    method: str  # the retrieval method whose confidence it maps
    labelled_set: str  # the labelled folder, as given to eval
    questions: int  # how many questions it was fitted on
    answer_rules: str  # regrag.answer.rules_version.ANSWER_RULES when fitted
    lexicon: str  # the synonym set's label when fitted ("" for none)
    out_of_fold_ece: float  # ECE of maps fitted on the other folds, each applied to its own fold
    folds: int
    format: str = CALIBRATION_FORMAT

    def __post_init__(self) -> None:
        check_points(self.points, "points")

    def apply(self, value: float) -> float:
        """``value`` through the map (``step_value``)."""
        return step_value(self.points, value)

    @property
    def sha256(self) -> str:
        """The fingerprint: SHA-256 of the canonical JSON of every field."""
        return sha256_hex(self.to_dict())

    def label(self) -> str:
        """How ``confidence.calibration`` names the map: ``regrag-calibration/1 sha256:HEX``."""
        return f"{self.format} sha256:{self.sha256}"


def step_value(points, value: float) -> float:
    """The accuracy of the last step of ``points`` starting at or below
    ``value`` (the first step's below every start); ``points`` non-empty,
    ascending. Shared with ``regrag.eval.isotonic.calibrated``."""
    position = bisect.bisect_right([start for start, _accuracy in points], value) - 1
    return points[max(position, 0)][1]


def staleness(calibration: CalibrationMap, answer_rules: str, lexicon: str) -> str:
    """Why the map may not fit this engine's confidences (empty when it was fitted under the same answer
    rules and synonym set): a map is a fact about the confidences it was fitted on."""
    reasons = []
    if calibration.answer_rules != answer_rules:
        reasons.append(f"answer rules {calibration.answer_rules} (this engine: {answer_rules})")
    if calibration.lexicon != lexicon:
        reasons.append(f"synonyms {calibration.lexicon or 'none'} (this call: {lexicon or 'none'})")
    return ", ".join(reasons)


def check_points(points: Any, where: str) -> tuple[tuple[float, float], ...]:
    """``points`` as a tuple of (start, accuracy) pairs: at least one, numbers
    in [0, 1], starts strictly ascending, accuracies non-decreasing;
    ``InputError`` naming ``where`` otherwise."""
    if not isinstance(points, (list, tuple)) or not points:
        raise InputError(f"{where}: must be a non-empty list of [confidence, accuracy] pairs")
    out = []
    for number, pair in enumerate(points):
        if (not isinstance(pair, (list, tuple)) or len(pair) != 2
                or not all(type(x) in (int, float) and math.isfinite(x) and 0.0 <= x <= 1.0 for x in pair)):
            raise InputError(f"{where}[{number}]: must be a pair of numbers between 0 and 1, got {pair!r}")
        if out and (pair[0] <= out[-1][0] or pair[1] < out[-1][1]):
            raise InputError(f"{where}[{number}]: starts must ascend and accuracies must not fall, got {pair!r} "
                             f"after {list(out[-1])!r}")
        out.append((float(pair[0]), float(pair[1])))
    return tuple(out)


def calibration_from_dict(record: Any, where: str) -> CalibrationMap:
    """A ``CalibrationMap`` from its dict (as ``to_dict`` gives it, as a ledger
    records it); ``InputError`` naming ``where`` and the field."""
    if not isinstance(record, dict):
        raise InputError(f"{where}: a calibration map must be a JSON object")
    missing = [name for name in _FIELDS if name not in record]
    extra = sorted(name for name in record if name not in _FIELDS)
    if missing or extra:
        raise InputError(f"{where}: " + "; ".join(
            ([f"missing field(s) {', '.join(missing)}"] if missing else [])
            + ([f"unknown field(s) {', '.join(extra)}"] if extra else [])))
    if record["format"] != CALIBRATION_FORMAT:
        raise InputError(f"{where}: format: expected {CALIBRATION_FORMAT!r}, got {record['format']!r}")
    for name in ("method", "labelled_set", "answer_rules", "lexicon"):
        if not isinstance(record[name], str):
            raise InputError(f"{where}: {name}: must be a string")
    for name in ("questions", "folds"):
        if type(record[name]) is not int or record[name] < 0:
            raise InputError(f"{where}: {name}: must be a whole number >= 0")
    ece = record["out_of_fold_ece"]
    if type(ece) not in (int, float) or not math.isfinite(ece) or not 0.0 <= ece <= 1.0:
        raise InputError(f"{where}: out_of_fold_ece: must be a number between 0 and 1")
    points = check_points(record["points"], f"{where}: points")
    return CalibrationMap(points, record["method"], record["labelled_set"], record["questions"],
                          record["answer_rules"], record["lexicon"], float(ece), record["folds"])


def dumps_calibration(calibration: CalibrationMap) -> bytes:
    """The file's bytes: the canonical JSON of the map with its fingerprint, and a newline."""
    return canonical_bytes(dict(calibration.to_dict(), fingerprint=calibration.sha256)) + b"\n"


def write_calibration(path: str | os.PathLike[str], calibration: CalibrationMap) -> None:
    """Write the map atomically (the old file, if any, is kept when this fails)."""
    write_atomically(path, dumps_calibration(calibration))


def read_calibration(path: str | os.PathLike[str]) -> CalibrationMap:
    """The map of a file ``write_calibration`` wrote; ``InputError`` naming the
    file for bad UTF-8 or JSON, a missing, unknown or bad field, or a
    fingerprint that does not match (an edited file)."""
    where = os.fspath(path)
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{where}: not UTF-8 text (not a calibration file)") from None
    record = parse_json_object(text, where, parse_constant=_no_constant(where))
    fingerprint = record.pop("fingerprint", None)
    if not isinstance(fingerprint, str):
        raise InputError(f"{where}: fingerprint: missing (not a calibration file written by regrag eval)")
    calibration = calibration_from_dict(record, where)
    if calibration.sha256 != fingerprint or canonical_json(calibration.to_dict()) != canonical_json(record):
        raise InputError(f"{where}: fingerprint does not match the content (the file was edited)")
    return calibration


def _no_constant(where: str):
    def refuse(name: str) -> Any:
        raise InputError(f"{where}: malformed JSON ({name} is not a number JSON allows)")
    return refuse


def read_calibrations(paths) -> dict[str, CalibrationMap]:
    """The maps of ``paths`` by the method each was fitted on, for a server
    that answers with several methods (``regrag serve`` and ``regrag mcp``,
    ``--calibration`` repeated); two maps of one method are refused, naming
    both files, since which one applies would otherwise be a guess."""
    maps: dict[str, CalibrationMap] = {}
    sources: dict[str, str] = {}
    for path in paths:
        calibration = read_calibration(path)
        if calibration.method in maps:
            raise InputError(f"{os.fspath(path)}: a second map of {calibration.method} answers "
                             f"(the first is {sources[calibration.method]}): give one map a method")
        maps[calibration.method] = calibration
        sources[calibration.method] = os.fspath(path)
    return maps


def calibration_for(maps, method: str) -> CalibrationMap | None:
    """The map of ``maps`` fitted on ``method``'s answers, or None (a server's maps, one per method)."""
    return next((calibration for calibration in maps if calibration.method == method), None)
