"""Platform-independent logarithms.

C libraries may differ in the last bit of ``log``; ``decimal``'s ``ln`` is
correctly rounded in software, so ``float(Decimal(x).ln())`` at 40 significant
digits is the same double everywhere. Results are cached: the arguments that
occur (document frequencies, term counts) repeat a lot.
"""

from __future__ import annotations

from decimal import Context, Decimal
from fractions import Fraction
from functools import lru_cache

_CONTEXT = Context(prec=40)


@lru_cache(maxsize=1 << 16)
def exact_ln(value: Fraction) -> float:
    """Natural log of a positive rational, identical on every platform."""
    if value <= 0:
        raise ValueError("ln of a non-positive number")
    quotient = _CONTEXT.divide(Decimal(value.numerator), Decimal(value.denominator))
    return float(_CONTEXT.ln(quotient))
