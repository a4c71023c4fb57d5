"""The printing rule for committed pages: certified digits, bounds, and the refusals that keep them honest."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.claims.numbers import UncertifiedDigits, certified, within


def test_certified_prints_the_digits_the_bound_fixes() -> None:
    assert certified(27.4931, 1e-9, ".3g") == "27.5"
    assert certified(0.765147, 1e-12, ".4f") == "0.7651"


def test_certified_refuses_digits_the_bound_leaves_open() -> None:
    with pytest.raises(UncertifiedDigits, match="print fewer"):
        certified(27.45, 1e-9, ".3g")  # 27.45 ± 1e-9 straddles the boundary between 27.4 and 27.5
    with pytest.raises(UncertifiedDigits):
        certified(float("nan"), 1e-9, ".3g")


@given(st.floats(-1e6, 1e6, allow_nan=False), st.floats(0, 1e-3), st.floats(-1, 1))
def test_certified_text_is_what_every_value_within_the_bound_prints(
    value: float, bound: float, where: float
) -> None:
    try:
        text = certified(value, bound, ".3e")
    except UncertifiedDigits:
        return
    other = value + where * bound  # any platform's value within the bound
    assert f"{other:.3e}" == text


def test_within_states_the_bound_and_refuses_a_value_beyond_it() -> None:
    assert within(1.85e-12, 5.803e-07, ".3e") == "≤ 5.803e-07"
    with pytest.raises(ValueError, match="exceeds the bound"):
        within(1e-3, 5.803e-07)
