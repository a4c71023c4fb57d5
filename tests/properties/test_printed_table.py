"""Four-decimal rounding decided in ball arithmetic; a ball on a boundary stays undecided; tables compared."""

from __future__ import annotations

import flint
import numpy as np

from pe_verify.properties.checks.printed_table import (
    certified_rounding,
    decimal_text,
    rounded_table,
    table_differences,
    table_error_bound,
    table_rounding,
)
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

PREC = 170


def test_a_value_away_from_a_boundary_rounds_with_a_positive_margin() -> None:
    with flint.ctx.workprec(PREC):
        rounding = certified_rounding(flint.arb(1).sin(), PREC)
    assert rounding.text == "0.8415" and bool(rounding.margin > 0) and rounding.digits == "0.8414709848"


def test_a_ball_that_straddles_a_rounding_boundary_is_not_decided() -> None:
    straddling = flint.arb("0.84145", "1e-10")
    assert certified_rounding(straddling, PREC).text is None


def test_negative_zero_prints_as_zero() -> None:
    assert decimal_text(-0.0) == "0.0000" and decimal_text(-0.5, 1) == "-0.5"


def test_the_document_table_rounds_and_the_closest_call_is_found() -> None:
    with flint.ctx.workprec(PREC):
        balls = Sinusoidal(6).table_balls(range(8))
    rounding = table_rounding(balls, PREC)
    assert rounding.decided and rounding.closest == (2, 1)
    assert rounding.texts[1][:2] == ["0.8415", "0.5403"]
    least = float(rounding.margin.mid())
    assert all(float(entry.margin.mid()) >= least for row in rounding.entries for entry in row)


def test_a_float_table_is_bounded_against_the_balls_and_differences_are_listed() -> None:
    with flint.ctx.workprec(PREC):
        balls = Sinusoidal(6).table_balls(range(8))
    table = Sinusoidal(6).float64_rows(np.arange(8))
    assert bool(table_error_bound(table, balls, PREC) < flint.arb(10) ** -14)
    printed = rounded_table(table)
    wrong = [row[:] for row in printed]
    wrong[1][0] = "0.8416"
    assert table_differences(printed, printed) == []
    assert table_differences(wrong, printed) == [(1, 0, "0.8416", "0.8415")]
