"""The command line's number rules (`pe_verify.inputs`): whole numbers exactly and within their range, reals
read into float64 with at most 17 significant digits, bases above 1 in float64 too; and the ranges agree
with the limits of the library behind them."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from pe_verify import inputs
from pe_verify.inputs import Base, Real, Whole, significant_digits, written
from pe_verify.properties.analyses.near_collision import MAX_POSITION
from pe_verify.properties.analyses.separation import MAX_SEPARATION_OFFSET


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        ("1", 1),
        ("100000", 1),
        ("0.00123", 3),
        ("1.0000000000000000000001", 23),
        ("-1.5e-7", 2),
        ("12345678901234567", 17),
        ("3/2", 1),
        ("1/12345", 5),
        ("0", 0),
        (".50", 1),
    ],
)
def test_significant_digits_run_from_the_first_nonzero_digit_to_the_last(text: str, digits: int) -> None:
    assert significant_digits(text) == digits


def test_a_real_takes_17_significant_digits_and_no_more() -> None:
    read = Real("max-minutes", Fraction(1, 1000), Fraction(10**6))
    assert read("1.2345678901234567") == 1.2345678901234567
    assert read("1/3") == 1 / 3
    with pytest.raises(ValueError, match="at most 17 significant digits"):
        read("1.23456789012345678")
    with pytest.raises(ValueError, match=re.escape("from 0.001 to 10^6, got '1e-400'")):
        read("1e-400")


def test_a_whole_number_is_read_exactly_and_states_its_range() -> None:
    read = Whole("seed", 0, 2**64 - 1)
    assert read("1.8446744073709551615e19") == 2**64 - 1
    message = "seed must be a whole number from 0 to 2^64 − 1, got '2.5'"
    with pytest.raises(ValueError, match=re.escape(message)):
        read("2.5")
    with pytest.raises(ValueError, match=re.escape("an even whole number from 2 to 2^20")):
        Whole("d", 2, 2**20, even=True)("7")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1", "greater than 1"),
        ("1.0000000000000000000001", "its nearest float64 is 1.0"),
        ("1e309", "beyond the largest float64"),
        ("17976931348623159e292", "beyond the largest float64"),
        ("nan", "a number such as"),
    ],
)
def test_a_base_exceeds_1_in_float64_too_and_is_finite(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Base().value(text)


def test_a_base_read_exactly_keeps_its_digits_and_one_read_into_float64_takes_17() -> None:
    exact = "10000.0000000000000000001"
    assert Base().value(exact) == Fraction(exact) and Base()(f" {exact} ") == exact
    with pytest.raises(ValueError, match="at most 17 significant digits"):
        Base(float64=True).value(exact)


def test_range_ends_are_written_as_people_write_them() -> None:
    assert [written(n) for n in (1, 4096, 2**20, 2**64 - 1, 10**9, Fraction(1, 1000))] == [
        "1",
        "4096",
        "2^20",
        "2^64 − 1",
        "10^9",
        "0.001",
    ]


def test_the_command_line_ranges_are_the_library_limits() -> None:
    assert inputs.MAX_POSITIONS == MAX_POSITION and inputs.MAX_OFFSET == MAX_SEPARATION_OFFSET
