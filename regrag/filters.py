"""Metadata filters: equality (``key=value``) and date ranges (``key>=2024-01-01``).

Filters are applied to the candidate passages before the top-k cut, so a
filtered search returns k results whenever k passages match. A range filter
compares ISO dates (``YYYY-MM-DD``); a document whose value is not such a date
does not match it. Naming a field that no document has is an error.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Iterable, Mapping

from regrag.errors import InputError

_FILTER = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*(>=|<=|=|>|<)\s*(.*?)\s*$", re.DOTALL)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Filter:
    """One condition on a metadata field."""

    field: str
    operator: str
    value: str

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
        assert bound is not None  # checked in parse_filter
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


def parse_filter(text: str) -> Filter:
    """Parse ``key=value``, ``key>=date``, ``key<=date``, ``key>date`` or ``key<date``."""
    match = _FILTER.match(text)
    if match is None:
        raise InputError(f"bad filter {text!r}: expected key=value or key>=YYYY-MM-DD")
    field, operator, value = match.groups()
    if operator != "=" and _parse_date(value) is None:
        raise InputError(f"bad filter {text!r}: {operator} needs a date YYYY-MM-DD")
    return Filter(field, operator, value)


def coerce_filters(filters: Iterable[Filter | str] | Mapping[str, str] | None) -> tuple[Filter, ...]:
    """Accept Filter objects, filter strings, or a mapping of equality filters."""
    if not filters:
        return ()
    if isinstance(filters, Mapping):
        return tuple(Filter(str(k), "=", str(v)) for k, v in sorted(filters.items()))
    if isinstance(filters, str):
        raise InputError("filters must be a list of strings such as ['issuer=Acme'], not one string")
    return tuple(f if isinstance(f, Filter) else parse_filter(f) for f in filters)
