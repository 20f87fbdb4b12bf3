"""The UTC clock and the one timestamp format of regrag.

Index generations (``CURRENT``) and ledger entries stamp times as
``YYYY-MM-DDTHH:MM:SS.ffffffZ``, so stamps sort as text in time order;
``parse_timestamp`` reads the ISO 8601 times a user gives (``--as-of``).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from regrag.errors import InputError


def now() -> datetime:
    """The current time, in UTC."""
    return datetime.now(timezone.utc)


def format_timestamp(moment: datetime, what: str = "timestamp") -> str:
    """``moment`` in UTC as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (ISO 8601 with
    microseconds and ``Z``); ``InputError`` naming ``what`` for a naive
    datetime or something else."""
    if not isinstance(moment, datetime):
        raise InputError(f"{what} must be a datetime, got {type(moment).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InputError(f"{what} must be timezone-aware (a naive datetime has no defined UTC time; give a time zone)")
    utc = moment.astimezone(timezone.utc)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T"
        f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}.{utc.microsecond:06d}Z"
    )


# ISO 8601 extended format: date, T or space, HH[:MM[:SS[.fraction]]], then Z or ±HH[[:]MM[[:]SS[.ffffff]]].
_ISO_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?"
    r"(?:(Z)|([+-])(\d{2})(?::?(\d{2})(?::?(\d{2})(?:\.(\d{1,6}))?)?)?)?", re.ASCII)


def _extended_iso_time(value: str) -> datetime:
    """The forms ``datetime.fromisoformat`` reads on Python 3.11 in the extended
    format, parsed the same way on every supported Python (3.10's reads fewer:
    no ``Z``, no fraction of other than 3 or 6 digits); a fraction beyond
    microseconds is truncated, as 3.11 does. ``ValueError`` otherwise."""
    match = _ISO_TIME.fullmatch(value)
    if match is None:
        raise ValueError(value)
    year, month, day, hour, minute, second, fraction, zulu, sign, off_h, off_m, off_s, off_f = match.groups()
    microsecond = int((fraction or "0")[:6].ljust(6, "0"))
    zone = None
    if zulu:
        zone = timezone.utc
    elif sign:
        offset = timedelta(hours=int(off_h), minutes=int(off_m or 0), seconds=int(off_s or 0),
                           microseconds=int((off_f or "0").ljust(6, "0")))
        zone = timezone(-offset if sign == "-" else offset)
    return datetime(int(year), int(month), int(day), int(hour), int(minute or 0), int(second or 0), microsecond,
                    tzinfo=zone)


def parse_timestamp(text: str) -> datetime:
    """Accept ``2026-11-30T10:00:00Z``, with fractions, or a time zone offset;
    a date alone means its end of day (UTC)."""
    value = text.strip()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return datetime.fromisoformat(value).replace(tzinfo=timezone.utc) + timedelta(days=1, microseconds=-1)
        moment = _extended_iso_time(value)
        if moment.tzinfo is None:
            raise InputError(f"--as-of {text!r}: give a time zone (for example a trailing Z for UTC)")
        return moment.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        raise InputError(f"--as-of {text!r}: expected an ISO 8601 time such as 2026-11-30T10:00:00Z") from None
