"""A fee charged as a rate with a minimum or a maximum, applied to the amount a question names.

"What handling fee does RiverPost charge on a USD 2,000 remittance?" is answered
by "a handling fee of 0.10% of the remittance amount, with a minimum of USD 3.00
and a maximum of USD 30.00": 0.10% of USD 2,000 is USD 2.00, below the minimum,
so the fee is the minimum, ``USD 3.00`` (session 42). The question's ``2,000`` is
then no missing number: it is the base the stated rate applies to.

- A sentence *states an applied rate* when it writes a percentage of an amount
  (``0.10% of the remittance amount``, ``按取现金额的1.2%``, ``0,15% giá trị giao
  dịch``) and, after it and before the next such rate, a minimum or a maximum
  amount (``with a minimum of USD 3.00``, ``最低人民币12元``, ``tối đa 300.000
  đồng``).
- A question *names a base* when it writes exactly one amount
  (``regrag.answer.answer_types``), in the currency of the bounds.
- The fee is rate × base, computed exactly with fractions. The short answer is
  the bound the fee falls outside of, cited where the sentence writes it; inside
  the bounds it is the rate. ``working`` records the arithmetic, so a reader can
  check it; the answer never holds a figure the text does not write.

Pure functions of the texts: no index, no state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from regrag.answer.answer_types import NUMBER, typed_spans

# a percentage of an amount: the rate, then (or, in Chinese, before it) what it is of
_RATES = (
    re.compile(r"(" + NUMBER + r"\s?[%％])\s+of\s+the\s+(?:[a-z-]+\s+){0,3}?(?:amount|value|balance|sum|principal)\b",
               re.IGNORECASE),
    re.compile(r"(?:金额|余额|部分|本金|款项|价值)的(" + NUMBER + r"[%％])"),
    re.compile(r"(" + NUMBER + r"\s?%)\s+(?:trên\s+|của\s+)?(?:giá\s+trị|số\s+tiền|tổng\s+số\s+tiền)(?![\w])",
               re.IGNORECASE),
)
# the words right before a bound's amount
_MINIMUM = re.compile(r"(?:\b(?:minimum|min\.?)(?:\s+(?:fee|charge))?(?:\s+of)?|最低|最少|不低于|(?<!\w)tối\s+thiểu"
                      r"(?:\s+là)?|(?<!\w)thấp\s+nhất(?:\s+là)?)\s*(?:为|是)?\s*$", re.IGNORECASE)
_MAXIMUM = re.compile(r"(?:\b(?:maximum|max\.?)(?:\s+(?:fee|charge))?(?:\s+of)?|最高|最多|不超过|封顶|(?<!\w)tối\s+đa"
                      r"(?:\s+là)?|(?<!\w)cao\s+nhất(?:\s+là)?)\s*(?:为|是)?\s*$", re.IGNORECASE)
#: the expected answer types a fee is computed for: a yes-no question's amount ("Is the fee USD 5.00?")
#: is a claim to check, not a base
FEE_TYPES = ("amount", "figure")
_BEFORE = 24  # characters before an amount that may hold its bound word
# currencies as the amount patterns write them, by code
_CURRENCIES = (
    (re.compile(r"USD|US\$|美元"), "USD"),
    (re.compile(r"HKD|港币|港元"), "HKD"),
    (re.compile(r"VND|đồng"), "VND"),
    (re.compile(r"RMB|CNY|人民币|元"), "CNY"),
    (re.compile(r"\b([A-Z]{3})\b"), None),  # any other code, as written (EUR, VLR)
)
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
# a scale word after an amount's number, as the amount patterns allow one ("USD 2 million", "5万元", "5 triệu đồng")
_SCALED = re.compile(r"\d+(?:[.,]\d+)*\s?(million|billion|bn|triệu|tỷ|nghìn|ngàn|万|亿)")
_SCALES = {"million": 10 ** 6, "billion": 10 ** 9, "bn": 10 ** 9, "triệu": 10 ** 6, "tỷ": 10 ** 9, "nghìn": 10 ** 3,
           "ngàn": 10 ** 3, "万": 10 ** 4, "亿": 10 ** 8}


@dataclass(frozen=True)
class AppliedRate:
    """A rate of an amount with its bounds, as one sentence states it (spans into that sentence)."""

    rate: Fraction  # the percentage as a share of one (0.10% → 1/1000)
    rate_span: tuple[int, int]  # the percentage with its sign
    currency: str
    minimum: tuple[Fraction, tuple[int, int]] | None
    maximum: tuple[Fraction, tuple[int, int]] | None


@dataclass(frozen=True)
class AppliedFee:
    """The stated rate applied to the question's amount: the span answering, and why."""

    base_word: str  # the question's number, as it writes it ("2,000")
    span: tuple[int, int]  # in the sentence: the bound the fee falls outside of, else the rate
    working: str  # "0.10% of USD 2,000 is USD 2.00, below the minimum: USD 3.00"


def number_value(word: str) -> Fraction:
    """The value of a number as the texts write it: ``2,000`` and ``20.000`` are thousands
    (a separator before exactly three digits, after a leading digit other than a lone 0),
    ``0,15`` and ``1.50`` decimals; with both separators, the last one is the decimal one."""
    digits = _DIGITS.search(word).group()
    separators = [c for c in digits if c in ".,"]
    if not separators:
        return Fraction(int(digits))
    if len(set(separators)) == 2:
        decimal = digits[max(digits.rfind("."), digits.rfind(","))]
        whole, _, fraction = digits.rpartition(decimal)
        return Fraction(int(re.sub(r"[.,]", "", whole)) if whole else 0) + Fraction(f"0.{fraction}")
    groups = re.split(r"[.,]", digits)
    if len(groups) > 2 or (len(groups[1]) == 3 and groups[0] != "0"):
        return Fraction(int("".join(groups)))
    return Fraction(f"{groups[0]}.{groups[1]}")


def amount_value(amount: str) -> Fraction:
    """The value of an amount span: its number times its scale word, if any (``USD 2 million`` → 2000000)."""
    scaled = _SCALED.search(amount)
    return number_value(amount) * (_SCALES[scaled.group(1)] if scaled else 1)


def currency_of(amount: str) -> str | None:
    """The currency code an amount span writes (``人民币12元`` → CNY), or None."""
    for pattern, code in _CURRENCIES:
        match = pattern.search(amount)
        if match is not None:
            return code or match.group(1)
    return None


def stated_rates(text: str) -> list[AppliedRate]:
    """The applied rates ``text`` states, each with the bounds written after it, in text order."""
    rates = sorted((match.start(1), match.end(1)) for pattern in _RATES for match in pattern.finditer(text))
    amounts = [(s, e) for s, e in typed_spans(text, "amount") if not re.search(r"[%％]", text[s:e])]
    found = []
    for number, (start, end) in enumerate(rates):
        limit = rates[number + 1][0] if number + 1 < len(rates) else len(text)
        bounds: dict[str, tuple[Fraction, tuple[int, int]]] = {}
        currencies = set()
        for s, e in amounts:
            if not end <= s < limit:
                continue
            before = text[max(end, s - _BEFORE):s]
            for side, pattern in (("minimum", _MINIMUM), ("maximum", _MAXIMUM)):
                if side not in bounds and pattern.search(before):
                    bounds[side] = (amount_value(text[s:e]), (s, e))
                    currencies.add(currency_of(text[s:e]))
        if bounds and len(currencies) == 1 and None not in currencies:
            found.append(AppliedRate(number_value(text[start:end]) / 100, (start, end), currencies.pop(),
                                     bounds.get("minimum"), bounds.get("maximum")))
    return found


def question_base(question: str) -> tuple[str, str, Fraction, str] | None:
    """The one amount the question names: (currency, its number as written, its value, the amount as
    written); None for none or several."""
    amounts = [question[s:e] for s, e in typed_spans(question, "amount")]
    if len(amounts) != 1 or currency_of(amounts[0]) is None:
        return None
    return currency_of(amounts[0]), _DIGITS.search(amounts[0]).group(), amount_value(amounts[0]), amounts[0]


def _money(value: Fraction, currency: str) -> str:
    """A computed amount for the working line: exact, with at least two decimals (``USD 2.00``,
    ``USD 2.345``); a value with no finite decimal of six places is rounded half-even to six, "about"."""
    places = 2
    while (value * 10 ** places).denominator != 1 and places < 6:
        places += 1
    scaled = value * 10 ** places
    whole = round(scaled)  # exact when the denominator is 1; half-even otherwise
    shown = f"{whole // 10 ** places}.{whole % 10 ** places:0{places}d}"
    return f"{currency} {shown}" if scaled.denominator == 1 else f"about {currency} {shown}"


def applied_fee(question: str, text: str) -> AppliedFee | None:
    """The first rate ``text`` states whose bounds are in the currency of the question's one amount,
    applied to that amount; None when there is none."""
    base = question_base(question)
    if base is None:
        return None
    currency, word, value, written = base
    for rate in stated_rates(text):
        if rate.currency != currency:
            continue
        fee = rate.rate * value
        computed = f"{text[rate.rate_span[0]:rate.rate_span[1]]} of {written} is {_money(fee, currency)}"
        if rate.minimum is not None and fee < rate.minimum[0]:
            span = rate.minimum[1]
            return AppliedFee(word, span, f"{computed}, below the minimum: {text[span[0]:span[1]]}")
        if rate.maximum is not None and fee > rate.maximum[0]:
            span = rate.maximum[1]
            return AppliedFee(word, span, f"{computed}, above the maximum: {text[span[0]:span[1]]}")
        return AppliedFee(word, rate.rate_span, f"{computed}, within the bounds")
    return None


def rate_bases(question: str, texts: list[str]) -> tuple[str, ...]:
    """The question's number (as written) when one of ``texts`` states a rate it is the base of; else ()."""
    for text in texts:
        fee = applied_fee(question, text)
        if fee is not None:
            return (fee.base_word,)
    return ()
