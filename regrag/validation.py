"""The checks that public arguments and stored records repeat, in one place.

``bool`` is a subclass of ``int`` in Python, so ``isinstance(True, int)``
holds; every count, depth and number in regrag refuses booleans, and these
helpers say so once. Messages are part of the interface (tests pin them):
``check_positive_int(5.0, "k")`` raises ``InputError("k must be a positive
integer, got 5.0")``.
"""

from __future__ import annotations

import math
from typing import Any

from regrag.errors import InputError


def is_int(value: Any) -> bool:
    """True for an ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """True for an ``int`` or ``float`` that is not a ``bool`` (NaN and infinities included)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_finite_number(value: Any) -> bool:
    """``is_number`` and finite."""
    return is_number(value) and math.isfinite(value)


def check_positive_int(value: Any, name: str) -> int:
    """``value`` when it is an int >= 1 (not a bool); else ``InputError``
    ``"{name} must be a positive integer, got {value!r}"``."""
    if not is_int(value) or value < 1:
        raise InputError(f"{name} must be a positive integer, got {value!r}")
    return value
