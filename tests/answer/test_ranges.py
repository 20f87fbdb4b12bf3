"""Numbers inside a stated range (regrag.answer.ranges; session 41)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from regrag.answer.ranges import ranged_numbers

WITHIN = "A prepayment charge applies if the loan is repaid within the first 12 months after drawdown."


def test_a_number_inside_the_range_is_held():
    assert ranged_numbers("Is there a charge if it is repaid in the 8th month after drawdown?", [WITHIN]) == ("8th",)
    assert ranged_numbers("Is there a charge after 12 months?", [WITHIN]) == ("12",)
    assert ranged_numbers("第8个月提前还款收费吗？", ["放款后12个月内提前还款的，收取2.00%"]) == ("8",)


def test_outside_the_range_or_in_another_unit_it_is_not():
    assert ranged_numbers("repaid in the 14th month", [WITHIN]) == ()
    assert ranged_numbers("repaid on the 8th day", [WITHIN]) == ()
    assert ranged_numbers("repaid in the 8th month", ["the loan runs for 12 months"]) == ()
    assert ranged_numbers("repaid in the 0th month", [WITHIN]) == ()


@given(st.integers(min_value=1, max_value=400), st.integers(min_value=1, max_value=400))
def test_held_exactly_when_at_most_the_limit(number, limit):
    held = ranged_numbers(f"What applies after {number} days?", [f"It applies within {limit} days."])
    assert held == ((str(number),) if number <= limit else ())


def test_the_prepayment_question_is_answered(manuals):
    answer = manuals.ask("Is there a prepayment charge if a Qingying Loan is repaid in the 8th month after drawdown?")
    # refused at 0.40 before session 41, with 8th missing
    assert answer.found and answer.confidence.missing_specifics == ()
    assert answer.short_answer.text.startswith("2.00% of the prepaid principal")
