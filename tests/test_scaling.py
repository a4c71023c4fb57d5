"""Frequency scaling: the derivations verify, the reference schemes pass every check, broken ones fail."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.proofs import scaling as scaling_proofs
from pe_verify.proofs.derivation import Derivation
from pe_verify.properties.scaling import (
    check_dynamic_ntk,
    check_linear_scaling,
    check_llama3_regimes,
    check_ntk_scaling,
    check_yarn_attention_factor,
    check_yarn_regimes,
    dynamic_ntk_frequencies,
    linear_scaling_frequencies,
    llama3_frequencies,
    ntk_scaling_frequencies,
    rope_frequencies,
    yarn_attention_factor,
    yarn_frequencies,
)

DERIVATIONS = [value for value in vars(scaling_proofs).values() if isinstance(value, Derivation)]


def log_uniform(low: float, high: float) -> st.SearchStrategy[float]:
    """Floats spread evenly in log scale over [low, high]."""
    return st.floats(min_value=math.log(low), max_value=math.log(high)).map(math.exp).map(
        lambda x: min(max(x, low), high))


dims = st.integers(min_value=2, max_value=512).map(lambda half: 2 * half)
bases = log_uniform(2.0, 1e6)
factors = log_uniform(1.0, 1e4)
extensions = log_uniform(1.01, 1e4)
lengths = st.integers(min_value=1, max_value=10**6)

LLAMA2 = {"d": 128, "base": 10000.0, "factor": 8.0, "original_max_position_embeddings": 4096}
LLAMA31 = (128, 500000.0, 8.0, 1.0, 4.0, 8192)


def linear_multiplied(d: int, base: float, factor: float) -> np.ndarray:
    """Broken: multiplies the frequencies by s instead of dividing."""
    return rope_frequencies(d, base) * factor


def ntk_exponent_one(d: int, base: float, factor: float) -> np.ndarray:
    """Broken: base·s^(d/d) instead of base·s^(d/(d−2))."""
    return rope_frequencies(d, base * factor)


def dynamic_ntk_unclamped(d: int, base: float, factor: float, seq_len: int, original: int) -> np.ndarray:
    """Broken: s' = s·L/L₀ − (s − 1) without L = max(seq_len, L₀), so short inputs get s' < 1."""
    effective = factor * seq_len / original - (factor - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return rope_frequencies(d, base) * effective ** (-2.0 * np.arange(d // 2) / (d - 2))


def dynamic_ntk_static(d: int, base: float, factor: float, seq_len: int, original: int) -> np.ndarray:
    """Broken: ignores the sequence length and always scales by the full factor."""
    return ntk_scaling_frequencies(d, base, factor)


def _yarn_blend(d: int, base: float, factor: float, keep: np.ndarray) -> np.ndarray:
    theta = rope_frequencies(d, base)
    return theta / factor * (1.0 - keep) + theta * keep


def _ramp(low: float, high: float, n: int) -> np.ndarray:
    return np.clip((np.arange(n) - low) / (high - low), 0.0, 1.0)


def yarn_ramp_reversed(
    d: int, base: float, factor: float, original: int, fast: float, slow: float
) -> np.ndarray:
    """Broken: the ramp's weights swapped, so fast dimensions are interpolated and slow ones kept."""
    low = max(math.floor(d * math.log(original / (fast * 2 * math.pi)) / (2 * math.log(base))), 0)
    high = min(math.ceil(d * math.log(original / (slow * 2 * math.pi)) / (2 * math.log(base))), d - 1)
    return _yarn_blend(d, base, factor, _ramp(low, high, d // 2))


def yarn_without_two_pi(
    d: int, base: float, factor: float, original: int, fast: float, slow: float
) -> np.ndarray:
    """Broken: find_correction_dim without the 2π, counting wavelengths in radians instead of turns."""
    low = max(math.floor(d * math.log(original / fast) / (2 * math.log(base))), 0)
    high = min(math.ceil(d * math.log(original / slow) / (2 * math.log(base))), d - 1)
    return _yarn_blend(d, base, factor, 1.0 - _ramp(low, high, d // 2))


def llama3_regimes_swapped(
    d: int, base: float, factor: float, low: float, high: float, original: int
) -> np.ndarray:
    """Broken: divides the short wavelengths by s and keeps the long ones."""
    theta = rope_frequencies(d, base)
    wavelength = 2 * math.pi / theta
    smooth = (original / wavelength - low) / (high - low)
    blended = (1 - smooth) * theta / factor + smooth * theta
    return np.where(wavelength < original / high, theta / factor,
                    np.where(wavelength > original / low, theta, blended))


def llama3_blend_reversed(
    d: int, base: float, factor: float, low: float, high: float, original: int
) -> np.ndarray:
    """Broken: σ and 1 − σ swapped in the blend, which jumps at both boundaries."""
    theta = rope_frequencies(d, base)
    wavelength = 2 * math.pi / theta
    smooth = (original / wavelength - low) / (high - low)
    blended = smooth * theta / factor + (1 - smooth) * theta
    interpolated = np.where(wavelength > original / low, theta / factor, blended)
    return np.where(wavelength < original / high, theta, interpolated)


@pytest.mark.parametrize("derivation", DERIVATIONS, ids=lambda d: d.id)
def test_derivation_verifies(derivation: Derivation) -> None:
    result = derivation.verify()
    assert result.verified, [(s.claim, s.error) for s in result.steps if not s.holds]


def test_every_scaling_claim_has_a_derivation() -> None:
    assert {d.id for d in DERIVATIONS} == {
        "scaling.linear", "scaling.ntk", "scaling.dynamic_ntk", "scaling.yarn_paper_ramp",
        "scaling.yarn_reference_ramp", "scaling.llama3",
    }


@given(d=dims, base=bases, factor=factors)
def test_linear_scaling_divides_every_frequency(d: int, base: float, factor: float) -> None:
    result = check_linear_scaling(linear_scaling_frequencies, d, base, factor)
    assert result, result


@given(d=dims, base=bases, factor=extensions)
def test_linear_scaling_that_multiplies_fails(d: int, base: float, factor: float) -> None:
    assert not check_linear_scaling(linear_multiplied, d, base, factor)


@given(d=dims, base=bases, factor=factors)
def test_ntk_keeps_the_highest_and_divides_the_lowest_by_s(d: int, base: float, factor: float) -> None:
    result = check_ntk_scaling(ntk_scaling_frequencies, d, base, factor)
    assert result, result


@given(d=dims, base=bases, factor=extensions)
def test_ntk_with_exponent_d_over_d_fails(d: int, base: float, factor: float) -> None:
    # The lowest frequency is then divided by s^((d−2)/d): off by s^(2/d) − 1 ≥ 1.01^(1/512) − 1 ≈ 2e−5.
    assert not check_ntk_scaling(ntk_exponent_one, d, base, factor)


@given(d=dims, base=bases, factor=factors, seq_len=lengths, original=lengths)
def test_dynamic_ntk_is_ntk_by_the_effective_factor(d: int, base: float, factor: float, seq_len: int,
                                                    original: int) -> None:
    result = check_dynamic_ntk(dynamic_ntk_frequencies, d, base, factor, seq_len, original)
    assert result, result


@given(d=dims, base=bases, factor=extensions, original=st.integers(min_value=2, max_value=10**6))
def test_dynamic_ntk_without_the_length_clamp_fails_on_short_inputs(d: int, base: float, factor: float,
                                                                   original: int) -> None:
    # Any L < L₀ with s > 1 gives s' = s·L/L₀ − (s − 1) < 1 instead of 1.
    assert not check_dynamic_ntk(dynamic_ntk_unclamped, d, base, factor, original // 2, original)
    assert not check_dynamic_ntk(dynamic_ntk_static, d, base, factor, original // 2, original)


@given(
    d=dims,
    base=log_uniform(100.0, 1e6),
    factor=log_uniform(1.0, 1e3),
    original=st.integers(min_value=32, max_value=10**5),
    fast=st.floats(min_value=16.0, max_value=64.0),
    slow=st.floats(min_value=0.25, max_value=4.0),
    truncate=st.booleans(),
)
def test_yarn_keeps_fast_and_interpolates_slow_dimensions(
    d: int, base: float, factor: float, original: int, fast: float, slow: float, truncate: bool
) -> None:
    # L₀ ≥ 32 > 2π·β_slow and L₀ ≤ 10⁵ < 2π·β_fast·base^(2(d−1)/d) (≥ 2π·16·100^1.5 ≈ 1.005·10⁵): the range
    # where the reference obeys the paper's regimes (see the two tests after the next).
    yarn = partial(yarn_frequencies, truncate=truncate)
    result = check_yarn_regimes(yarn, d, base, factor, original, fast, slow)
    assert result, result


def test_yarn_matches_the_reference_correction_range_on_a_llama2_configuration() -> None:
    # c(32) = 128·ln(4096/(64π))/(2 ln 10⁴) ≈ 20.94 and c(1) ≈ 45.03, so low = 20 and high = 46:
    # pair 33 sits half-way up the ramp and keeps half of θ.
    theta = rope_frequencies(128, 10000.0)
    scaled = yarn_frequencies(**LLAMA2)
    np.testing.assert_array_equal(scaled[:21], theta[:21])
    np.testing.assert_allclose(scaled[46:], theta[46:] / 8.0, rtol=1e-15)
    np.testing.assert_allclose(scaled[33], theta[33] * (0.5 / 8.0 + 0.5), rtol=1e-15)


def test_yarn_with_reversed_ramp_or_without_two_pi_fails() -> None:
    args = (128, 10000.0, 8.0, 4096, 32.0, 1.0)
    assert not check_yarn_regimes(yarn_ramp_reversed, *args)
    assert not check_yarn_regimes(yarn_without_two_pi, *args)


def test_reference_yarn_departs_from_the_paper_when_the_context_is_shorter_than_2pi_beta_slow() -> None:
    # L₀ = 4 < 2π: c(β_slow) < 0, find_correction_range returns high < low, the ramp is 0 everywhere and
    # every pair is kept, though every pair turns fewer than β_slow = 1 times.
    result = check_yarn_regimes(yarn_frequencies, 128, 10000.0, 8.0, 4)
    assert not result
    assert result.witness["turns"] < 1.0 and result.witness["theta'/theta"] == 1.0


def test_reference_yarn_departs_from_the_paper_when_c_beta_fast_exceeds_d_minus_one() -> None:
    # d = 8, base 2, L₀ = 1000 > 2π·32·2^(7/4) ≈ 676: c(β_fast) = 8·ln(1000/(64π))/(2 ln 2) ≈ 9.26, so
    # low = 9 > high = d − 1 = 7, the ramp is 1 everywhere and every pair is divided by s, though every
    # pair turns more than β_fast = 32 times.
    result = check_yarn_regimes(yarn_frequencies, 8, 2.0, 8.0, 1000)
    assert not result
    assert result.witness["turns"] > 32.0 and result.witness["theta'/theta"] == 1.0 / 8.0


@given(factor=log_uniform(1.0, 1e6))
def test_yarn_attention_factor_is_one_tenth_log_plus_one(factor: float) -> None:
    result = check_yarn_attention_factor(yarn_attention_factor, factor)
    assert result, result


@given(factor=extensions)
def test_yarn_attention_factor_confused_with_its_square_or_log10_fails(factor: float) -> None:
    assert not check_yarn_attention_factor(lambda s: (0.1 * math.log(s) + 1.0) ** 2, factor)
    assert not check_yarn_attention_factor(lambda s: 0.1 * math.log10(s) + 1.0, factor)


@given(
    d=dims,
    base=log_uniform(100.0, 1e7),
    factor=log_uniform(1.0, 64.0),
    low=st.floats(min_value=0.25, max_value=4.0),
    width=st.floats(min_value=0.25, max_value=16.0),
    original=st.integers(min_value=16, max_value=10**6),
)
def test_llama3_keeps_high_divides_low_and_blends_between(
    d: int, base: float, factor: float, low: float, width: float, original: int
) -> None:
    result = check_llama3_regimes(llama3_frequencies, d, base, factor, low, low + width, original)
    assert result, result


def test_llama3_31_configuration_has_all_three_regimes_and_passes() -> None:
    result = check_llama3_regimes(llama3_frequencies, *LLAMA31)
    assert result, result
    theta = rope_frequencies(128, 500000.0)
    scaled = llama3_frequencies(*LLAMA31)
    assert scaled[0] == theta[0] and scaled[-1] == theta[-1] / 8.0
    assert np.any((scaled < theta) & (scaled > theta / 8.0))


def test_llama3_with_swapped_regimes_or_reversed_blend_fails() -> None:
    assert not check_llama3_regimes(llama3_regimes_swapped, *LLAMA31)
    assert not check_llama3_regimes(llama3_blend_reversed, *LLAMA31)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: rope_frequencies(7), "d must be even"),
    (lambda: rope_frequencies(0), "d must be a positive integer"),
    (lambda: rope_frequencies(64.0), "d must be a positive integer"),
    (lambda: rope_frequencies(64, 1.0), "base must be a finite real number greater than 1"),
    (lambda: linear_scaling_frequencies(64, 10000.0, 0.5), "factor must be a real number ≥ 1"),
    (lambda: linear_scaling_frequencies(64, 10000.0, math.nan), "factor must be a finite positive real"),
    (lambda: ntk_scaling_frequencies(2, 10000.0, 2.0), "d must be an even integer ≥ 4"),
    (lambda: ntk_scaling_frequencies(4, 1e300, 1e300), "overflows float64"),
    (lambda: dynamic_ntk_frequencies(64, 10000.0, 2.0, -1, 4096), "seq_len must be a positive integer"),
    (lambda: dynamic_ntk_frequencies(64, 10000.0, 2.0, 10, 0), "max_position_embeddings must be a positive"),
    (lambda: yarn_frequencies(64, 10000.0, 2.0, 0), "original_max_position_embeddings must be a positive"),
    (lambda: yarn_frequencies(64, 10000.0, 2.0, 4096, 1.0, 32.0), "beta_fast must be greater than beta_slow"),
    (lambda: yarn_frequencies(64, 10000.0, 2.0, 4096, -1.0), "beta_fast must be a finite positive real"),
    (lambda: yarn_frequencies(64, 10000.0, 2.0, 4096, truncate="no"), "truncate must be True or False"),
    (lambda: yarn_attention_factor(0.9), "factor must be a real number ≥ 1"),
    (lambda: yarn_attention_factor(2.0, mscale=0.0), "mscale must be a finite positive real"),
    (lambda: llama3_frequencies(64, 10000.0, 8.0, 4.0, 1.0), "high_freq_factor must be greater"),
    (lambda: llama3_frequencies(64, 10000.0, 8.0, 1.0, 4.0, 8192.5), "original_max_position_embeddings"),
    (lambda: check_ntk_scaling(ntk_scaling_frequencies, 2, 10000.0, 2.0), "d must be an even integer ≥ 4"),
    (lambda: check_yarn_regimes(yarn_frequencies, 64, 10000.0, 0.0, 4096), "factor must be a finite"),
])
def test_bad_input_is_rejected_with_a_clear_message(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
