"""The reference sinusoidal encoding: float64 vs 50-digit mpmath, exact frequencies, PE(0), odd d, bad input.

PE(p, 2i) = sin(p·ω_i), PE(p, 2i + 1) = cos(p·ω_i), ω_i = base^(−2i/d).
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_verify.properties.encodings.sinusoidal import (
    frequencies,
    frequency_exprs,
    sinusoidal_encoding,
    sinusoidal_encoding_mp,
)
from pe_verify.properties.numerics.checking import EPS64, angle_tolerance


def log_uniform(low: int, high: int) -> st.SearchStrategy[int]:
    """Integers in [low, high], each band [2^e, 2^(e+1)) equally likely (small and large sizes alike)."""
    bands = [(max(low, 2**e), min(high, 2 ** (e + 1) - 1)) for e in range(high.bit_length())]
    return st.one_of([st.integers(lo, hi) for lo, hi in bands if lo <= hi])


POSITION = st.integers(-(10**6), 10**6) | st.floats(-1e6, 1e6)
BASE = st.sampled_from([10000.0, 500000.0, 2.0]) | st.floats(1.0, 1e9, exclude_min=True)


@pytest.mark.slow
@settings(max_examples=max(20, settings.default.max_examples // 2))
@given(d=log_uniform(1, 1024), base=BASE, positions=st.lists(POSITION, min_size=1, max_size=2))
def test_float64_agrees_with_50_digit_mpmath(d: int, base: float, positions: list[float]) -> None:
    """Each entry is within angle_tolerance(max |p|) of its 50-digit value (the largest frequency is 1)."""
    exact = np.array(sinusoidal_encoding_mp(positions, d, base, dps=50), dtype=np.float64)
    error = np.max(np.abs(sinusoidal_encoding(positions, d, base) - exact))
    assert error <= angle_tolerance(max(abs(p) for p in positions))


def _above_one(base: object) -> bool:
    return base > 1


RATIONAL_BASE = st.builds(sp.Rational, st.integers(2, 10**4), st.integers(1, 10**3)).filter(_above_one)


@settings(max_examples=max(10, settings.default.max_examples // 4))
@given(d=log_uniform(1, 64), base=st.builds(sp.Integer, st.integers(2, 10**6)) | RATIONAL_BASE)
def test_exact_frequencies_equal_float_ones(d: int, base: sp.Rational) -> None:
    """|float ω_i / exact ω_i − 1| ≤ 4ε(1 + |ln ω_i|): pow rounds its exponent; |ln ω_i| amplifies that."""
    exact = np.array([float(sp.N(omega, 30)) for omega in frequency_exprs(d, base)])
    floats = frequencies(d, float(base))
    relative = np.abs(floats / exact - 1)
    assert np.all(relative <= 4 * EPS64 * (1 + np.abs(np.log(exact))))


@pytest.mark.slow
@pytest.mark.parametrize("d", [1, 2, 6, 7, 64, 512])
def test_exact_frequencies_for_base_10000_are_powers_of_ten(d: int) -> None:
    """10000^(−2i/d) = 10^(−8i/d), as SymPy numbers."""
    powers_of_ten = [sp.Integer(10) ** sp.Rational(-8 * i, d) for i in range((d + 1) // 2)]
    assert frequency_exprs(d, 10000) == powers_of_ten


@given(d=log_uniform(1, 1024), base=BASE)
def test_position_zero_has_sin_entries_0_and_cos_entries_1(d: int, base: float) -> None:
    row = sinusoidal_encoding([0], d, base)[0]
    assert np.all(row[0::2] == 0.0) and np.all(row[1::2] == 1.0)
    assert np.any(row != 0) == (d >= 2)  # for d = 1, PE(0) = (sin 0) is the zero vector


@given(half=st.integers(0, 511), base=BASE, positions=st.lists(POSITION, min_size=1, max_size=3))
def test_odd_d_ends_with_a_sin_dimension(half: int, base: float, positions: list[float]) -> None:
    """For d = 2m + 1 the last dimension is sin(p·ω_m), ω_m = base^(−2m/d), with no cos partner."""
    d = 2 * half + 1
    rows = sinusoidal_encoding(positions, d, base)
    assert rows.shape == (len(positions), d)
    with mpmath.workdps(50):
        last = [
            float(mpmath.sin(mpmath.mpf(p) * mpmath.mpf(base) ** (mpmath.mpf(-2 * half) / d)))
            for p in positions
        ]
    assert np.max(np.abs(rows[:, -1] - last)) <= angle_tolerance(max(abs(p) for p in positions))


@pytest.mark.parametrize("d", [1, 3, 7, 513])
def test_odd_d_norm_depends_on_position(d: int) -> None:
    """‖PE(p)‖² = (d − 1)/2 + sin²(p·ω_last): constant (d/2) only for even d."""
    norms = np.sum(sinusoidal_encoding([0, 10**5], d) ** 2, axis=1)
    omega_last = 10000.0 ** (-(d - 1) / d)
    assert norms[0] == pytest.approx((d - 1) / 2, abs=1e-12)
    assert norms[1] == pytest.approx((d - 1) / 2 + np.sin(10**5 * omega_last) ** 2, abs=1e-9)
    assert abs(norms[1] - norms[0]) > 1e-3


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: sinusoidal_encoding([0], 0), "d must be a positive integer, got 0"),
        (lambda: sinusoidal_encoding([0], -4), "d must be a positive integer, got -4"),
        (lambda: sinusoidal_encoding([0], 6.5), "d must be a positive integer, got 6.5"),
        (lambda: sinusoidal_encoding([0], 6.0), "d must be a positive integer, got 6.0"),
        (lambda: sinusoidal_encoding([0], True), "d must be a positive integer, got True"),
        (lambda: sinusoidal_encoding([0], "8"), "d must be a positive integer, got '8'"),
        (
            lambda: sinusoidal_encoding([0], 8, base=1),
            "base must be a finite real number greater than 1, got 1",
        ),
        (lambda: sinusoidal_encoding([0], 8, base=0.5), "base must be a finite real number greater than 1"),
        (
            lambda: sinusoidal_encoding([0], 8, base=float("nan")),
            "base must be a finite real number .*got nan",
        ),
        (
            lambda: sinusoidal_encoding([0], 8, base=float("inf")),
            "base must be a finite real number .*got inf",
        ),
        (
            lambda: sinusoidal_encoding([0], 8, base=True),
            "base must be a real number greater than 1, got True",
        ),
        (lambda: sinusoidal_encoding([0], 8, base="10000"), "base must be a real number greater than 1"),
        (lambda: sinusoidal_encoding([0.0, float("nan")], 8), "positions must be finite"),
        (lambda: sinusoidal_encoding([float("-inf")], 8), "positions must be finite"),
        (lambda: sinusoidal_encoding([2**53 + 2], 8), r"beyond 2\*\*53"),
        (lambda: sinusoidal_encoding([2.0**60], 8), r"beyond 2\*\*53"),
        (lambda: sinusoidal_encoding(["3"], 8), "positions must be real numbers"),
        (lambda: sinusoidal_encoding("0123", 8), "positions must be real numbers"),
        (lambda: sinusoidal_encoding([True, False], 8), "positions must be real numbers"),
        (lambda: frequencies(0), "d must be a positive integer"),
        (lambda: frequency_exprs(8, 1), "base must be a finite real number greater than 1"),
        (lambda: sinusoidal_encoding_mp([0], 0), "d must be a positive integer"),
        (lambda: sinusoidal_encoding_mp([0], 8, base=1), "base must be a finite real number greater than 1"),
        (lambda: sinusoidal_encoding_mp([float("nan")], 8), "positions must be finite"),
        (lambda: sinusoidal_encoding_mp([[1, 2]], 8), "positions must be real numbers"),
    ],
)
def test_bad_input_is_rejected(call: Callable, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
