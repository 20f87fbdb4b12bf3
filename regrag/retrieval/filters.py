"""Metadata filters: equality (``key=value``) and date ranges (``key>=2024-01-01``).

Filters are applied to the candidate passages before the top-k cut, so a
filtered search returns k results whenever k passages match. A range filter
compares ISO dates (``YYYY-MM-DD``); a document whose value is not such a date
does not match it. Naming a field that no document has is an error.

Limits (docs/api.md): a filter has at most ``MAX_FILTER_CHARACTERS``
characters and a call at most ``MAX_FILTERS`` filters (``LimitError``).
Parsing is linear in the filter's length (no regular expression that can
backtrack over the value).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Iterable, Mapping

from regrag.errors import InputError
from regrag.limits import LimitError

OPERATORS = (">=", "<=", "=", ">", "<")
MAX_FILTER_CHARACTERS = 1_000
MAX_FILTERS = 100

# The field and operator (matched at the start); the value is the rest of the
# text, stripped of whitespace with str.strip (what the regex ``\s`` matches,
# exactly). The lookbehind keeps even a search linear: a field can start only
# where no field character precedes it.
_FILTER_HEAD = re.compile(r"(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]*)\s*(>=|<=|=|>|<)")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Filter:
    """One condition on a metadata field (checked when made: ``InputError``)."""

    field: str
    operator: str
    value: str

    def __post_init__(self) -> None:
        if not isinstance(self.field, str) or not isinstance(self.value, str):
            raise InputError(f"a filter's field and value must be strings, got {self.field!r} and {self.value!r}")
        if self.operator not in OPERATORS:
            raise InputError(f"unknown filter operator {self.operator!r}; choose one of {' '.join(OPERATORS)}")
        _check_text(f"{self.field}{self.operator}{self.value}")
        if self.operator != "=" and _parse_date(self.value) is None:
            raise InputError(f"bad filter {str(self)!r}: {self.operator} needs a date YYYY-MM-DD")

    def matches(self, metadata: Mapping[str, str]) -> bool:
        actual = metadata.get(self.field)
        if actual is None:
            return False
        if self.operator == "=":
            return actual == self.value
        date = _parse_date(actual)
        if date is None:
            return False
        bound = _parse_date(self.value)
        if bound is None:  # impossible: checked when the filter was made
            return False
        if self.operator == ">=":
            return date >= bound
        if self.operator == "<=":
            return date <= bound
        if self.operator == ">":
            return date > bound
        return date < bound

    def __str__(self) -> str:
        return f"{self.field}{self.operator}{self.value}"


def _parse_date(text: str) -> datetime.date | None:
    if not _DATE.match(text):
        return None
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        return None


def _check_text(text: str) -> None:
    """``LimitError`` for a filter longer than ``MAX_FILTER_CHARACTERS``;
    ``InputError`` for one that is not valid Unicode text."""
    if len(text) > MAX_FILTER_CHARACTERS:
        raise LimitError(
            f"a filter has {len(text):,} characters; the limit is {MAX_FILTER_CHARACTERS:,} "
            "(regrag.filters.MAX_FILTER_CHARACTERS)"
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"filter {text!r} is not valid Unicode text (it holds a lone surrogate)") from None


def parse_filter(text: str) -> Filter:
    """Parse ``key=value``, ``key>=date``, ``key<=date``, ``key>date`` or ``key<date``."""
    if not isinstance(text, str):
        raise InputError(f"a filter must be a string such as 'issuer=Acme' or a Filter, got {text!r}")
    _check_text(text)
    stripped = text.strip()
    match = _FILTER_HEAD.match(stripped)
    if match is None:
        raise InputError(f"bad filter {text!r}: expected key=value or key>=YYYY-MM-DD")
    field, operator = match.groups()
    value = stripped[match.end():].strip()
    if operator != "=" and _parse_date(value) is None:
        raise InputError(f"bad filter {text!r}: {operator} needs a date YYYY-MM-DD")
    return Filter(field, operator, value)


def coerce_filters(filters: Iterable[Filter | str] | Mapping[str, str] | None) -> tuple[Filter, ...]:
    """Accept Filter objects, filter strings, or a mapping of equality filters."""
    if not filters:
        return ()
    if isinstance(filters, (str, bytes, bytearray)):
        raise InputError("filters must be a list of strings such as ['issuer=Acme'], not one string")
    if isinstance(filters, Mapping):
        items = sorted((str(k), str(v)) for k, v in filters.items())
        _check_count(len(items))
        return tuple(Filter(k, "=", v) for k, v in items)
    try:
        given = list(filters)
    except TypeError:
        raise InputError(f"filters must be a list of strings such as ['issuer=Acme'], got {filters!r}") from None
    _check_count(len(given))
    return tuple(f if isinstance(f, Filter) else parse_filter(f) for f in given)


def _check_count(count: int) -> None:
    if count > MAX_FILTERS:
        raise LimitError(f"{count:,} filters; the limit is {MAX_FILTERS:,} (regrag.filters.MAX_FILTERS)")
