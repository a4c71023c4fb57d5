"""Correctly rounded sin, cos, exp and pow in float32, float16 and bfloat16 agree with mpmath rounded once."""

from __future__ import annotations

import ml_dtypes
import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.properties.numerics import correct_rounding
from pe_verify.properties.numerics.correct_rounding import correctly_rounded
from pe_verify.properties.numerics.dtypes import dtype_spec

EXACT = {"sin": mpmath.sin, "cos": mpmath.cos, "exp": mpmath.exp}
BITS = {"float32": 24, "float16": 11, "bfloat16": 8}


def _rounded_once(name: str, x: float, dtype: str) -> float:
    """f(x) at 200 bits, rounded once to the dtype's significand (normal range)."""
    with mpmath.workprec(200):
        value = EXACT[name](mpmath.mpf(x))
    with mpmath.workprec(BITS[dtype]):
        return float(+value)


def _inputs(dtype: str, name: str, count: int = 3000, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    spread = 8.0 if name == "exp" else 3000.0
    return np.asarray(dtype_spec(dtype).cast(rng.uniform(-spread, spread, count)), dtype=np.float64)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", sorted(BITS))
@pytest.mark.parametrize("name", sorted(EXACT))
def test_agrees_with_mpmath_rounded_once(name: str, dtype: str) -> None:
    x = _inputs(dtype, name)
    got = np.asarray(correctly_rounded(name, dtype, x), dtype=np.float64)
    expected = np.array([_rounded_once(name, value, dtype) for value in x])
    normal = np.abs(expected) >= 2.0 ** dtype_spec(dtype).min_exponent
    assert np.array_equal(got[normal], expected[normal])


def test_decides_the_values_the_float32_cast_rounds_twice() -> None:
    # sin(-1773.2891845703125) = -0.99023435…, just inside the bfloat16 midpoint -0.990234375; rounded to
    # float32 first it lands on the midpoint and the tie goes to even, -0.9921875, one spacing off.
    x = np.array([-1773.2891845703125])
    assert float(correctly_rounded("sin", "bfloat16", x)[0]) == -0.98828125


@pytest.mark.parametrize("dtype", sorted(BITS))
def test_values_just_above_half_the_smallest_subnormal_round_up_from_zero(dtype: str) -> None:
    # sin(x) ≈ x − x³/6 for x a hair above 2^(e − 1), e the exponent of the smallest subnormal: the exact
    # value lies above the midpoint between 0 and that subnormal, so it rounds up, not to zero.
    spec = dtype_spec(dtype)
    smallest = 2.0 ** (spec.min_exponent - spec.nmant)
    x = np.array([np.nextafter(np.nextafter(smallest / 2, 1.0), 1.0), np.nextafter(smallest / 2, 0.0)])
    with mpmath.workprec(200):
        above = [mpmath.sin(mpmath.mpf(float(v))) > smallest / 2 for v in x]
    assert above == [True, False]
    assert np.asarray(correctly_rounded("sin", dtype, x), dtype=np.float64).tolist() == [smallest, 0.0]


def test_pow_is_exact_where_the_power_is_representable() -> None:
    got = correctly_rounded("pow", "float32", np.float64(10000.0), np.array([0.0, 0.25, 0.5, 0.75]))
    assert got.tolist() == [1.0, 10.0, 100.0, 1000.0]


def test_without_the_midpoint_recomputation_the_double_rounding_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """sin(x) in float64 lies just off a bfloat16 midpoint and rounds to it in float32: casting through
    float32 (as ml_dtypes did before 0.7) rounds twice and lands on the wrong side."""
    x = np.array([-1773.2891845703125])
    once = _rounded_once("sin", float(x[0]), "bfloat16")
    if float(ml_dtypes.bfloat16(np.sin(x[0]))) == once:
        pytest.skip(f"ml_dtypes {ml_dtypes.__version__} rounds float64 to bfloat16 once: no double rounding")
    monkeypatch.setattr(correct_rounding, "NARROW_MARGIN", 0.0)
    assert float(correctly_rounded("sin", "bfloat16", x)[0]) != once
    monkeypatch.undo()
    assert float(correctly_rounded("sin", "bfloat16", x)[0]) == once


def test_a_libm_error_larger_than_the_margin_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A float64 sin off by 2^-30 relative (far beyond any libm) makes float32 results wrong: the
    agreement test above would fail, so it can."""
    functions = dict(correct_rounding._FUNCTIONS)
    functions["sin"] = (lambda x: np.sin(x) * (1 + 2.0**-30), mpmath.sin)
    monkeypatch.setattr(correct_rounding, "_FUNCTIONS", functions)
    x = _inputs("float32", "sin")
    got = np.asarray(correctly_rounded("sin", "float32", x), dtype=np.float64)
    expected = np.array([_rounded_once("sin", value, "float32") for value in x])
    assert not np.array_equal(got, expected)


def _mirrored_sin(x: np.ndarray) -> np.ndarray:
    """A float64 sin that puts every value within 2^11 float64 ulps of a float32 midpoint on the other side
    of it: an error of at most 2^12 ulps, 2^(−40) relative, which any float32 rounding of it gets wrong."""
    bits = np.sin(x).view(np.int64)
    low = bits & ((1 << 29) - 1)
    near = np.abs(low - (1 << 28)) <= 1 << 11
    return np.where(near, bits + 2 * ((1 << 28) - low), bits).view(np.float64)


@pytest.mark.slow
def test_every_float32_value_the_libm_margin_leaves_in_doubt_is_decided_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a sin whose error stays within the margin but crosses float32 midpoints, the results are still
    those of the exact sine; with a margin too small for that error they are not, so the bit test that
    picks the values to decide again is what makes them right."""
    x = np.arange(1, 2**22, dtype=np.float32).astype(np.float64)
    moved = np.flatnonzero(_mirrored_sin(x) != np.sin(x))
    assert len(moved) > 10
    x = x[moved]
    expected = [_rounded_once("sin", value, "float32") for value in x]
    monkeypatch.setitem(correct_rounding._FUNCTIONS, "sin", (_mirrored_sin, mpmath.sin))
    assert np.asarray(correctly_rounded("sin", "float32", x), dtype=np.float64).tolist() == expected
    monkeypatch.setattr(correct_rounding, "MARGIN", 2.0**-44)
    assert np.asarray(correctly_rounded("sin", "float32", x), dtype=np.float64).tolist() != expected


@given(st.floats(-1e4, 1e4, allow_nan=False, width=32))
def test_float32_sin_is_within_half_an_ulp(x: float) -> None:
    got = float(correctly_rounded("sin", "float32", np.array([x]))[0])
    with mpmath.workprec(200):
        error = abs(mpmath.mpf(got) - mpmath.sin(mpmath.mpf(x)))
    spacing = float(np.spacing(np.float32(abs(got)))) if got else 2.0**-149
    assert error <= spacing / 2 * (1 + 2.0**-20)


def test_refuses_float64_and_unknown_functions() -> None:
    with pytest.raises(ValueError, match="float32 and narrower"):
        correctly_rounded("sin", "float64", np.array([1.0]))
    with pytest.raises(ValueError, match="function must be one of"):
        correctly_rounded("tan", "float32", np.array([1.0]))
