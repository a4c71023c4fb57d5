"""`Sinusoidal`: every form of one family variant describes the same encoding PE(p, 2i) = sin(p·ω_i),
PE(p, 2i+1) = cos(p·ω_i), ω_i = base^(−2i/d); a twin overriding one form changes that form only.
"""

from __future__ import annotations

from collections.abc import Callable

import flint
import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.properties.encodings.sinusoidal import (
    VALUE_ERROR,
    Sinusoidal,
    is_table_prefix,
    norm_gap,
    sinusoidal_encoding,
    sinusoidal_encoding_mp,
    wavelength_range,
)
from pe_verify.properties.numerics.correct_rounding import correctly_rounded

DIMS = st.integers(1, 12)
BASES = st.sampled_from([10000.0, 500000.0, 2.0, 100.0])
POSITIONS = st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=4)


@given(d=DIMS, base=BASES, positions=POSITIONS)
def test_float64_and_mpmath_forms_are_the_reference_functions(
    d: int, base: float, positions: list[int]
) -> None:
    encoding = Sinusoidal(d, base)
    assert np.array_equal(encoding.float64_rows(positions), sinusoidal_encoding(positions, d, base))
    assert encoding.rows_mp(positions, 30) == sinusoidal_encoding_mp(positions, d, base, 30)


@given(d=DIMS, base=BASES, positions=POSITIONS)
def test_accurate_rows_are_within_their_bound_of_the_mpmath_values(
    d: int, base: float, positions: list[int]
) -> None:
    encoding = Sinusoidal(d, base)
    rows = encoding.rows(positions)
    assert encoding.error == VALUE_ERROR
    with mpmath.workdps(40):
        exact = encoding.rows_mp(positions, 40)
        for r, p in enumerate(positions):
            for j in range(d):
                assert abs(encoding.value_mp(p, j) - exact[r][j]) <= mpmath.mpf(10) ** -35
                assert abs(mpmath.mpf(float(rows[r, j])) - exact[r][j]) <= encoding.error


@given(d=DIMS, base=BASES, position=st.integers(0, 10**6))
def test_balls_contain_the_values(d: int, base: float, position: int) -> None:
    encoding = Sinusoidal(d, base)
    with flint.ctx.workprec(128):
        balls = encoding.row_balls(position)
    exact = encoding.rows_mp([position], 40)[0]
    assert len(balls) == d
    for ball, value in zip(balls, exact, strict=True):
        assert ball.overlaps(flint.arb(mpmath.nstr(value, 38))) and float(ball.rad()) < 1e-25


@pytest.mark.parametrize("d", [1, 4, 7])
def test_the_exact_column_evaluates_to_the_mpmath_rows(d: int) -> None:
    encoding = Sinusoidal(d)
    column = encoding.column(sp.Integer(123))
    exact = encoding.rows_mp([123], 40)[0]
    for entry, value in zip(column, exact, strict=True):
        assert abs(sp.N(entry, 40) - sp.Float(mpmath.nstr(value, 40), 40)) < 1e-30
    pos = sp.Symbol("pos", real=True)
    assert Sinusoidal(2).column(pos) == sp.Matrix([sp.sin(pos), sp.cos(pos)])


def test_the_stored_float64_table_is_the_float64_rows() -> None:
    encoding = Sinusoidal(16, dtype="float64")
    positions = np.arange(100, dtype=np.int64)
    stored = encoding.stored_rows(positions)
    assert stored.dtype == np.float64
    assert np.max(np.abs(stored - encoding.float64_rows(positions))) < 1e-12
    assert encoding.label == "float64 throughout (base 10000)"
    held = Sinusoidal(16, dtype="bfloat16", positions_in_dtype=True)
    assert held.label == "positions rounded to bfloat16, float32 computation, stored in bfloat16 (base 10000)"


def test_given_frequencies_replace_the_formula() -> None:
    encoding = Sinusoidal(3, omegas=(sp.Rational(1, 2), sp.pi / 7))
    assert encoding.rows_mp([2], 30)[0][2] == pytest.approx(float(sp.sin(2 * sp.pi / 7)))
    assert np.allclose(encoding.float64_rows([2]), [[np.sin(1.0), np.cos(1.0), np.sin(2 * np.pi / 7)]])
    symbolic = Sinusoidal(2, omegas=(sp.Symbol("omega", positive=True),))
    assert symbolic.column(0) == sp.Matrix([0, 1])
    with pytest.raises(ValueError, match="symbolic"):
        symbolic.rows_mp([1])


class CosFirst(Sinusoidal):
    """A twin: cos before sin in every pair, in the float64 form only."""

    def float64_rows(self, positions: object) -> np.ndarray:
        return super().float64_rows(positions)[:, np.arange(self.d) ^ 1]


def test_a_twin_replaces_one_form_and_keeps_the_others() -> None:
    twin, reference = CosFirst(4), Sinusoidal(4)
    assert not np.array_equal(twin.float64_rows([1]), reference.float64_rows([1]))
    assert twin.rows_mp([1]) == reference.rows_mp([1])
    assert np.array_equal(twin.rows([1]), reference.rows([1]))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: Sinusoidal(0), "d must be a positive integer"),
        (lambda: Sinusoidal(8, 1.0), "base must be a finite real number greater than 1"),
        (lambda: Sinusoidal(8, "0.5"), "base must be a finite real number greater than 1"),
        (lambda: Sinusoidal(8, dtype="int8"), "dtype must be one of"),
        (lambda: Sinusoidal(4, omegas=()), "non-empty"),
        (lambda: Sinusoidal(4, omegas=(1.0,)), "needs 2 frequencies, got 1"),
        (lambda: Sinusoidal(2, omegas=(sp.I,)), "exact real numbers"),
        (lambda: Sinusoidal(8).stored_rows(np.arange(3)), "has no dtype"),
        (lambda: Sinusoidal(2, omegas=(sp.Symbol("omega", positive=True),)).row_balls(0), "no ball form"),
    ],
)
def test_bad_input_is_rejected(call: Callable[[], object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------------------------ properties of one encoding

PREC = 170


class Unpaired(Sinusoidal):
    """Every dim at its own frequency index: dims 2i and 2i+1 no longer share ω_i."""

    def frequency_index(self) -> np.ndarray:
        return np.arange(self.d) % ((self.d + 1) // 2)


class Normalised(Sinusoidal):
    """Positions scaled by the table's length: row p depends on max_len."""

    def stored_rows(self, positions: np.ndarray) -> np.ndarray:
        return super().stored_rows(positions * 8 // max(len(positions), 1))


def test_the_ball_forms_contain_the_float64_rows() -> None:
    encoding = Sinusoidal(6)
    with flint.ctx.workprec(PREC):
        balls = encoding.table_balls(range(4))
        assert len(encoding.frequency_balls()) == 3
    rows = encoding.rows(np.arange(4))
    for row, ball_row in zip(rows, balls, strict=True):
        assert all(
            bool(abs(ball - flint.arb(float(v))) < 1e-15) for v, ball in zip(row, ball_row, strict=True)
        )
    with pytest.raises(ValueError, match="no ball form"):
        Sinusoidal(2, omegas=(sp.Symbol("omega", positive=True),)).frequency_balls()


def test_given_exact_frequencies_and_a_decimal_base_have_balls_of_their_exact_values() -> None:
    with flint.ctx.workprec(200):
        sevenths, decimal = Sinusoidal(4, omegas=(1, sp.Rational(1, 7))), Sinusoidal(4, "1.1")
        assert sevenths.frequency_balls()[1].contains(flint.fmpq(1, 7))
        assert (decimal.frequency_balls()[1] ** 2 * flint.fmpq(11, 10)).contains(1)
        assert not (Sinusoidal(4, 1.1).frequency_balls()[1] ** 2 * flint.fmpq(11, 10)).contains(1)


def test_an_integer_base_beyond_two_to_the_53_is_read_exactly() -> None:
    """10^17 + 1 is no float64: its balls must be those of the integer itself, as for the base given as
    text, not those of the float it rounds to."""
    base = 10**17 + 1
    with flint.ctx.workprec(200):
        exact, text = Sinusoidal(4, base).frequency_balls()[1], Sinusoidal(4, str(base)).frequency_balls()[1]
        rounded = Sinusoidal(4, float(base)).frequency_balls()[1]
        assert (exact**2 * base).contains(1) and exact.overlaps(text)
        assert not (rounded**2 * base).contains(1)


def test_the_float32_frequencies_are_the_ones_the_stored_table_uses() -> None:
    encoding = Sinusoidal(6, dtype="float32")
    angles = np.float32(3) * encoding.code_frequencies()
    assert encoding.code_exponents().dtype == np.float32
    stored = encoding.stored_rows(np.array([3]))
    assert np.array_equal(stored[0, 0::2], correctly_rounded("sin", "float32", angles))


def test_float64_rows_follow_the_frequency_index() -> None:
    rows = Unpaired(6).float64_rows(np.arange(3))
    assert not np.array_equal(rows, Sinusoidal(6).float64_rows(np.arange(3)))


@pytest.mark.parametrize("d", [6, 8, 512, 768, 4096])
def test_wavelengths_run_from_two_pi_to_below_two_pi_base(d: int) -> None:
    found = wavelength_range(Sinusoidal(d), PREC)
    assert found.pairs_share_frequency and found.strictly_decreasing and found.below_limit
    assert bool(found.longest > found.shortest)


def test_pairs_that_do_not_share_a_frequency_are_found() -> None:
    assert not wavelength_range(Unpaired(6), PREC).pairs_share_frequency


def test_the_norm_is_constant_for_even_d_only() -> None:
    assert norm_gap(Sinusoidal(6), 5, 0, PREC).contains(0)
    odd = norm_gap(Sinusoidal(3), 1, 0, PREC)
    with flint.ctx.workprec(PREC):
        expected = (flint.arb(10000) ** (flint.arb(-2) / 3)).sin() ** 2
    assert bool(odd > 0) and bool(abs(odd - expected) < 1e-40)


def test_a_shorter_table_is_the_prefix_of_a_longer_one_unless_positions_are_normalised() -> None:
    for d in (6, 512):
        assert is_table_prefix(Sinusoidal(d, dtype="float32"), 17, 1000)
    assert not is_table_prefix(Normalised(6, dtype="float32"), 8, 1000)
