"""The printing rule for committed pages: certified digits, bounds, and the refusals that keep them honest."""

from __future__ import annotations

import flint
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.claims.numbers import (
    UNCERTIFIED,
    ball_enclosure,
    certain_argmax,
    certain_signs,
    certified,
    within,
)


def test_certified_prints_the_digits_the_bound_fixes() -> None:
    assert certified(27.4931, 1e-9, ".3g") == "27.5"
    assert certified(0.765147, 1e-12, ".4f") == "0.7651"


def test_certified_marks_digits_the_bound_leaves_open() -> None:
    # 27.45 ± 1e-9 straddles the boundary between 27.4 and 27.5
    assert certified(27.45, 1e-9, ".3g") == f"27.4 ({UNCERTIFIED}: ± 1.0e-09)"
    assert UNCERTIFIED in certified(float("nan"), 1e-9, ".3g")
    assert UNCERTIFIED in certified(1e-12, 1e-9, ".3g")  # the sign itself is open


@given(st.floats(-1e6, 1e6, allow_nan=False), st.floats(0, 1e-3), st.floats(-1, 1))
def test_certified_text_is_what_every_value_within_the_bound_prints(
    value: float, bound: float, where: float
) -> None:
    text = certified(value, bound, ".3e")
    if UNCERTIFIED in text:
        return
    other = value + where * bound  # any platform's value within the bound
    assert f"{other:.3e}" == text


def test_within_states_the_bound_and_a_value_beyond_it() -> None:
    assert within(1.85e-12, 5.803e-07, ".3e") == "≤ 5.803e-07"
    assert within(1e-3, 5.803e-07) == "1.0e-03, above the bound 5.8e-07"


def test_signs_and_argmax_are_certain_only_with_a_margin() -> None:
    assert certain_signs([0.5, -0.25], 1e-9)
    assert not certain_signs([0.5, 1e-12], 1e-9)
    assert certain_argmax([1.0, 3.0, 2.0], 1e-9)
    assert not certain_argmax([1.0, 3.0, 3.0 - 1e-12], 1e-9)


def test_a_ball_is_printed_to_the_digits_its_whole_interval_rounds_to() -> None:
    assert ball_enclosure(flint.arb("26952.3392278579", "6.13e-11"), 12) == "26952.3392279"
    assert ball_enclosure(flint.arb("26952.3392278579", "5.40e-11"), 12) == "26952.3392279"
    assert ball_enclosure(flint.arb("1.25", "0.01"), 2) == "[1.2, 1.3]"
