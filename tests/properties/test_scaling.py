"""Frequency scaling: the derivations verify, the reference schemes pass every check, broken ones fail."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from twins import Log10Factor, SwappedBetas

from pe_verify.proofs import scaling as scaling_proofs
from pe_verify.proofs.derivation import Derivation
from pe_verify.properties.encodings import frequencies as fq
from pe_verify.properties.encodings import scaling as scaling_module
from pe_verify.properties.encodings.rope import Rope
from pe_verify.properties.encodings.scaling import (
    KINDS,
    RopeScaling,
    attention_factor_arb,
    certainly_above,
    check_attention_factor_exact,
    check_dynamic_ntk,
    check_linear_scaling,
    check_llama3_regimes,
    check_longrope_factors,
    check_ntk_scaling,
    check_yarn_attention_factor,
    check_yarn_regimes,
    compare_yarn_ramps,
    dynamic_ntk_frequencies,
    frequency_tolerance,
    linear_scaling_frequencies,
    llama3_frequencies,
    logit_scale_mp,
    longrope_frequencies,
    ntk_scaling_frequencies,
    pair_regimes,
    ramp_thresholds,
    regime_counts,
    rope_frequencies,
    scaling_regimes,
    turns_per_context,
    yarn_code_bounds,
    yarn_frequencies,
    yarn_pair_regimes,
    yarn_weights,
)

DERIVATIONS = [value for value in vars(scaling_proofs).values() if isinstance(value, Derivation)]


def _twice(half: int) -> int:
    return 2 * half


def _clip(x: float, low: float, high: float) -> float:
    return min(max(x, low), high)


def log_uniform(low: float, high: float) -> st.SearchStrategy[float]:
    """Floats spread evenly in log scale over [low, high]."""
    return (
        st.floats(min_value=math.log(low), max_value=math.log(high))
        .map(math.exp)
        .map(functools.partial(_clip, low=low, high=high))
    )


dims = st.integers(min_value=2, max_value=512).map(_twice)
bases = log_uniform(2.0, 1e6)
factors = log_uniform(1.0, 1e4)
extensions = log_uniform(1.01, 1e4)
lengths = st.integers(min_value=1, max_value=10**6)

#: Llama 2 (d = 128, base 10⁴) extended by YaRN with s = 8 over L₀ = 4096.
LLAMA2_YARN = RopeScaling("yarn", 8.0, 4096)
#: Llama 3.1 (d = 128, base 5·10⁵): s = 8, low 1, high 4, L₀ = 8192.
LLAMA31 = RopeScaling("llama3", 8.0, 8192, low_freq_factor=1.0, high_freq_factor=4.0)


# ------------------------------------------------------------------------------------------ broken twins


class LinearMultiplied(RopeScaling):
    """Broken: multiplies the frequencies by s instead of dividing."""

    def frequencies(self, d: int, base: float = 10000.0) -> np.ndarray:
        return rope_frequencies(d, base) * self.factor


class NtkExponentOne(RopeScaling):
    """Broken: base·s^(d/d) instead of base·s^(d/(d−2))."""

    def frequencies(self, d: int, base: float = 10000.0) -> np.ndarray:
        return rope_frequencies(d, base * self.factor)


class DynamicNtkUnclamped(RopeScaling):
    """Broken: s' = s·L/L₀ − (s − 1) without L = max(seq_len, L₀), so short inputs get s' < 1."""

    def frequencies(self, d: int, base: float = 10000.0) -> np.ndarray:
        effective = self.factor * self.sequence_length / self.original_context - (self.factor - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return rope_frequencies(d, base) * effective ** (-2.0 * np.arange(d // 2) / (d - 2))


class DynamicNtkStatic(RopeScaling):
    """Broken: ignores the sequence length and always scales by the full factor."""

    def frequencies(self, d: int, base: float = 10000.0) -> np.ndarray:
        return RopeScaling("ntk", self.factor).frequencies(d, base)


def _correction(scaling: RopeScaling, d: int, base: float, two_pi: float) -> tuple[int, int]:
    """⌊c(β_fast)⌋ and ⌈c(β_slow)⌉ clamped to [0, d − 1], with 2π replaced by `two_pi`."""
    context = scaling.original_context
    low = d * math.log(context / (scaling.beta_fast * two_pi)) / (2 * math.log(base))
    high = d * math.log(context / (scaling.beta_slow * two_pi)) / (2 * math.log(base))
    return max(math.floor(low), 0), min(math.ceil(high), d - 1)


def _yarn_blend(scaling: RopeScaling, d: int, base: float, keep: np.ndarray) -> np.ndarray:
    theta = rope_frequencies(d, base)
    return theta / scaling.factor * (1.0 - keep) + theta * keep


def _ramp(low: float, high: float, n: int) -> np.ndarray:
    return np.clip((np.arange(n) - low) / (high - low), 0.0, 1.0)


class YarnRampReversed(RopeScaling):
    """Broken: the ramp's weights swapped, so fast dimensions are interpolated and slow ones kept."""

    def frequencies(self, d: int, base: float = 10000.0) -> np.ndarray:
        low, high = _correction(self, d, base, 2 * math.pi)
        return _yarn_blend(self, d, base, _ramp(low, high, d // 2))


class YarnWithoutTwoPi(RopeScaling):
    """Broken: find_correction_dim without the 2π, counting wavelengths in radians instead of turns."""

    def frequencies(self, d: int, base: float = 10000.0) -> np.ndarray:
        low, high = _correction(self, d, base, 1.0)
        return _yarn_blend(self, d, base, 1.0 - _ramp(low, high, d // 2))


class AttentionSquared(RopeScaling):
    """Broken: YaRN's attention factor confused with its square 1/t."""

    def attention_factor(self, mscale: float = 1.0) -> float:
        return (0.1 * math.log(self.factor) + 1.0) ** 2


class AttentionLog10(RopeScaling):
    """Broken: the decimal logarithm instead of the natural one."""

    def attention_factor(self, mscale: float = 1.0) -> float:
        return 0.1 * math.log10(self.factor) + 1.0


def _llama3_parts(scaling: RopeScaling, d: int, base: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """θ, the wavelengths λ and σ = (L₀/λ − low)/(high − low)."""
    theta = rope_frequencies(d, base)
    wavelength = 2 * math.pi / theta
    low, high = scaling.low_freq_factor, scaling.high_freq_factor
    return theta, wavelength, (scaling.original_context / wavelength - low) / (high - low)


class Llama3RegimesSwapped(RopeScaling):
    """Broken: divides the short wavelengths by s and keeps the long ones."""

    def frequencies(self, d: int, base: float = 10000.0) -> np.ndarray:
        theta, wavelength, smooth = _llama3_parts(self, d, base)
        s, context = self.factor, self.original_context
        blended = (1 - smooth) * theta / s + smooth * theta
        kept = np.where(wavelength > context / self.low_freq_factor, theta, blended)
        return np.where(wavelength < context / self.high_freq_factor, theta / s, kept)


class Llama3BlendReversed(RopeScaling):
    """Broken: σ and 1 − σ swapped in the blend, which jumps at both boundaries."""

    def frequencies(self, d: int, base: float = 10000.0) -> np.ndarray:
        theta, wavelength, smooth = _llama3_parts(self, d, base)
        s, context = self.factor, self.original_context
        blended = smooth * theta / s + (1 - smooth) * theta
        interpolated = np.where(wavelength > context / self.low_freq_factor, theta / s, blended)
        return np.where(wavelength < context / self.high_freq_factor, theta, interpolated)


# ------------------------------------------------------------------------------------------ derivations


@pytest.mark.slow
@pytest.mark.parametrize("derivation", DERIVATIONS, ids=lambda d: d.id)
def test_derivation_verifies(derivation: Derivation) -> None:
    result = derivation.verify()
    assert result.verified, [(s.claim, s.error) for s in result.steps if not s.holds]


def test_every_scaling_claim_has_a_derivation() -> None:
    assert {d.id for d in DERIVATIONS} == {
        "scaling.linear",
        "scaling.ntk",
        "scaling.dynamic_ntk",
        "scaling.longrope",
        "scaling.proportional",
        "scaling.yarn_paper_ramp",
        "scaling.yarn_reference_ramp",
        "scaling.llama3",
        "scaling.yarn_temperature",
        "scaling.pi_tangent_line",
        "scaling.pi_curvature_sum",
        "scaling.pi_midpoint_error",
        "scaling.pi_bound_ratio",
        "scaling.critical_dimension",
    }


# ------------------------------------------------------------------------------------------ checks


@given(d=dims, base=bases, factor=factors)
def test_linear_scaling_divides_every_frequency(d: int, base: float, factor: float) -> None:
    result = check_linear_scaling(RopeScaling("linear", factor), d, base)
    assert result, result


@given(d=dims, base=bases, factor=extensions)
def test_linear_scaling_that_multiplies_fails(d: int, base: float, factor: float) -> None:
    assert not check_linear_scaling(LinearMultiplied("linear", factor), d, base)


@given(d=dims, base=bases, factor=factors)
def test_ntk_keeps_the_highest_and_divides_the_lowest_by_s(d: int, base: float, factor: float) -> None:
    result = check_ntk_scaling(RopeScaling("ntk", factor), d, base)
    assert result, result


@given(d=dims, base=bases, factor=extensions)
def test_ntk_with_exponent_d_over_d_fails(d: int, base: float, factor: float) -> None:
    # The lowest frequency is then divided by s^((d−2)/d): off by s^(2/d) − 1 ≥ 1.01^(1/512) − 1 ≈ 2e−5.
    assert not check_ntk_scaling(NtkExponentOne("ntk", factor), d, base)


@given(d=dims, base=bases, factor=factors, seq_len=lengths, original=lengths)
def test_dynamic_ntk_is_ntk_by_the_effective_factor(
    d: int, base: float, factor: float, seq_len: int, original: int
) -> None:
    result = check_dynamic_ntk(RopeScaling("dynamic-ntk", factor, original, seq_len=seq_len), d, base)
    assert result, result


@given(d=dims, base=bases, factor=extensions, original=st.integers(min_value=2, max_value=10**6))
def test_dynamic_ntk_without_the_length_clamp_fails_on_short_inputs(
    d: int, base: float, factor: float, original: int
) -> None:
    # Any L < L₀ with s > 1 gives s' = s·L/L₀ − (s − 1) < 1 instead of 1.
    assert not check_dynamic_ntk(
        DynamicNtkUnclamped("dynamic-ntk", factor, original, seq_len=original // 2), d, base
    )
    assert not check_dynamic_ntk(
        DynamicNtkStatic("dynamic-ntk", factor, original, seq_len=original // 2), d, base
    )


def test_dynamic_ntk_without_a_sequence_length_is_unscaled() -> None:
    scaling = RopeScaling("dynamic-ntk", 8.0, 4096)
    assert scaling.sequence_length == 4096 and scaling.effective_factor == 1.0
    assert np.array_equal(scaling.frequencies(128, 10000.0), rope_frequencies(128, 10000.0))
    assert check_dynamic_ntk(scaling, 128, 10000.0)


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
    result = check_yarn_regimes(RopeScaling("yarn", factor, original, fast, slow, truncate=truncate), d, base)
    assert result, result


def test_yarn_matches_the_reference_correction_range_on_a_llama2_configuration() -> None:
    # c(32) = 128·ln(4096/(64π))/(2 ln 10⁴) ≈ 20.94 and c(1) ≈ 45.03, so low = 20 and high = 46:
    # pair 33 sits half-way up the ramp and keeps half of θ.
    theta = rope_frequencies(128, 10000.0)
    scaled = LLAMA2_YARN.frequencies(128, 10000.0)
    np.testing.assert_array_equal(scaled[:21], theta[:21])
    np.testing.assert_allclose(scaled[46:], theta[46:] / 8.0, rtol=1e-15)
    np.testing.assert_allclose(scaled[33], theta[33] * (0.5 / 8.0 + 0.5), rtol=1e-15)


def test_the_paper_ramp_is_linear_in_the_turns_between_alpha_and_beta() -> None:
    # Eq. 18: γ(r) = (r − α)/(β − α) on r = L₀θ_i/(2π) in [α, β], 1 above β, 0 below α.
    paper = RopeScaling("yarn", 8.0, 4096, 32.0, 1.0, ramp="paper")
    theta = rope_frequencies(128, 10000.0)
    turns = 4096 * theta / (2 * math.pi)
    gamma = (paper.frequencies(128, 10000.0) / theta - 1 / 8.0) / (1 - 1 / 8.0)
    blended = (turns > 1.0) & (turns < 32.0)
    np.testing.assert_allclose(gamma[blended], (turns[blended] - 1.0) / 31.0, rtol=1e-12)
    assert np.all(gamma[turns >= 32.0] == 1.0) and np.allclose(gamma[turns <= 1.0], 0.0, atol=1e-15)
    assert check_yarn_regimes(paper, 128, 10000.0)
    assert not np.allclose(paper.frequencies(128, 10000.0), LLAMA2_YARN.frequencies(128, 10000.0))
    with pytest.raises(ValueError, match="ramp must be one of code, paper"):
        RopeScaling("yarn", 8.0, ramp="eq18")


PHI3_LIKE = {
    "short_factor": tuple(1.0 + 0.05 * i for i in range(32)),
    "long_factor": tuple(1.0 + 1.5 * i for i in range(32)),
}


def test_longrope_divides_each_pair_by_the_factors_its_length_picks() -> None:
    short = RopeScaling("longrope", 32.0, 4096, **PHI3_LIKE)
    long = dataclasses.replace(short, seq_len=4097)
    theta = rope_frequencies(64, 10000.0)
    for scaling, ext in ((short, PHI3_LIKE["short_factor"]), (long, PHI3_LIKE["long_factor"])):
        np.testing.assert_allclose(scaling.frequencies(64, 10000.0), theta / np.asarray(ext), rtol=1e-15)
        assert check_longrope_factors(scaling, 64, 10000.0)
    assert check_longrope_factors(short, 64, 10000.0).property.startswith(
        "LongRoPE divides each θ_i by its own"
    )
    assert "long_factor" in check_longrope_factors(long, 64, 10000.0).property
    assert short.attention_factor() == math.sqrt(1 + math.log(32.0) / math.log(4096))
    free = longrope_frequencies(64, 10000.0, PHI3_LIKE["short_factor"], PHI3_LIKE["long_factor"], 4096, 4097)
    assert np.array_equal(free, long.frequencies(64, 10000.0))


class LongRopeIgnoringLength(RopeScaling):
    """Broken: the short factors whatever the sequence length."""

    def frequencies(self, d: int, base: float = 10000.0) -> np.ndarray:
        return rope_frequencies(d, base) / np.asarray(self.short_factor)


def test_longrope_that_ignores_the_length_fails_beyond_the_original_context() -> None:
    assert check_longrope_factors(LongRopeIgnoringLength("longrope", 32.0, 4096, **PHI3_LIKE), 64, 10000.0)
    broken = LongRopeIgnoringLength("longrope", 32.0, 4096, seq_len=8192, **PHI3_LIKE)
    result = check_longrope_factors(broken, 64, 10000.0)
    assert not result and result.witness["i"] > 0


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({}, "short_factor must hold one positive factor per pair"),
        ({"short_factor": (1.0, 2.0), "long_factor": (1.0,)}, "one value per pair each"),
        ({"short_factor": (1.0, -2.0), "long_factor": (1.0, 2.0)}, "short_factor must be a finite positive"),
        ({"short_factor": "12", "long_factor": (1.0, 2.0)}, "short_factor must be a sequence"),
    ],
)
def test_longrope_factors_are_validated(given: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RopeScaling("longrope", 4.0, 4096, **given)
    with pytest.raises(ValueError, match="one factor per pair: d = 8 has 4 pairs, got 2"):
        RopeScaling("longrope", 4.0, short_factor=(1.0, 2.0), long_factor=(1.0, 2.0)).frequencies(8)


def test_yarn_with_reversed_ramp_or_without_two_pi_fails() -> None:
    fields = dataclasses.asdict(LLAMA2_YARN)
    assert check_yarn_regimes(LLAMA2_YARN, 128, 10000.0)
    assert not check_yarn_regimes(YarnRampReversed(**fields), 128, 10000.0)
    assert not check_yarn_regimes(YarnWithoutTwoPi(**fields), 128, 10000.0)


def test_reference_yarn_departs_from_the_paper_when_the_context_is_shorter_than_2pi_beta_slow() -> None:
    # L₀ = 4 < 2π: c(β_slow) < 0, find_correction_range returns high < low, the ramp is 0 everywhere and
    # every pair is kept, though every pair turns fewer than β_slow = 1 times.
    result = check_yarn_regimes(RopeScaling("yarn", 8.0, 4), 128, 10000.0)
    assert not result
    assert result.witness["turns"] < 1.0 and result.witness["theta'/theta"] == 1.0


def test_reference_yarn_departs_from_the_paper_when_c_beta_fast_exceeds_d_minus_one() -> None:
    # d = 8, base 2, L₀ = 1000 > 2π·32·2^(7/4) ≈ 676: c(β_fast) = 8·ln(1000/(64π))/(2 ln 2) ≈ 9.26, so
    # low = 9 > high = d − 1 = 7, the ramp is 1 everywhere and every pair is divided by s, though every
    # pair turns more than β_fast = 32 times.
    result = check_yarn_regimes(RopeScaling("yarn", 8.0, 1000), 8, 2.0)
    assert not result
    assert result.witness["turns"] > 32.0 and result.witness["theta'/theta"] == 1.0 / 8.0


@given(factor=log_uniform(1.0, 1e6))
def test_yarn_attention_factor_is_one_tenth_log_plus_one(factor: float) -> None:
    result = check_yarn_attention_factor(RopeScaling("yarn", factor))
    assert result, result


@given(factor=extensions)
def test_yarn_attention_factor_confused_with_its_square_or_log10_fails(factor: float) -> None:
    assert not check_yarn_attention_factor(AttentionSquared("yarn", factor))
    assert not check_yarn_attention_factor(AttentionLog10("yarn", factor))


def test_the_attention_factor_scales_with_mscale_for_yarn_and_is_one_otherwise() -> None:
    assert RopeScaling("yarn", math.e).attention_factor(mscale=2.0) == 0.1 * 2.0 * 1.0 + 1.0
    for kind in ("linear", "ntk", "dynamic-ntk", "llama3"):
        assert RopeScaling(kind, 8.0).attention_factor() == 1.0


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
    scaling = RopeScaling("llama3", factor, original, low_freq_factor=low, high_freq_factor=low + width)
    result = check_llama3_regimes(scaling, d, base)
    assert result, result


def test_llama3_31_configuration_has_all_three_regimes_and_passes() -> None:
    result = check_llama3_regimes(LLAMA31, 128, 500000.0)
    assert result, result
    theta = rope_frequencies(128, 500000.0)
    scaled = LLAMA31.frequencies(128, 500000.0)
    assert scaled[0] == theta[0] and scaled[-1] == theta[-1] / 8.0
    assert np.any((scaled < theta) & (scaled > theta / 8.0))


def test_llama3_with_swapped_regimes_or_reversed_blend_fails() -> None:
    fields = dataclasses.asdict(LLAMA31)
    assert not check_llama3_regimes(Llama3RegimesSwapped(**fields), 128, 500000.0)
    assert not check_llama3_regimes(Llama3BlendReversed(**fields), 128, 500000.0)


# ------------------------------------------------------------------------------------------ the forms


def _bits(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).view(np.uint64)


def _ntk_before(d: int, base: float, s: float) -> np.ndarray:
    return fq.frequencies(d, base * s ** (d / (d - 2)))


def _yarn_before(
    d: int, base: float, s: float, context: int, fast: float, slow: float, truncate: bool
) -> np.ndarray:
    low = d * math.log(context / (fast * 2.0 * math.pi)) / (2.0 * math.log(base))
    high = d * math.log(context / (slow * 2.0 * math.pi)) / (2.0 * math.log(base))
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    keep = 1.0 - np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)
    theta = fq.frequencies(d, base)
    return theta / s * (1.0 - keep) + theta * keep


def _llama3_before(d: int, base: float, s: float, low: float, high: float, context: int) -> np.ndarray:
    theta = fq.frequencies(d, base)
    wavelength = 2.0 * math.pi / theta
    smooth = (context / wavelength - low) / (high - low)
    blended = (1.0 - smooth) * theta / s + smooth * theta
    interpolated = np.where(wavelength > context / low, theta / s, blended)
    return np.where(wavelength < context / high, theta, interpolated)


def _before_and_after(kind: str, d: int, base: float, s: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """(the free functions' expression before `RopeScaling`, the object's frequencies) for the grid."""
    if kind == "none":
        return [(fq.frequencies(d, base), RopeScaling().frequencies(d, base))]
    if kind == "linear":
        return [(fq.frequencies(d, base) / s, RopeScaling("linear", s).frequencies(d, base))]
    if kind == "ntk":
        return [(_ntk_before(d, base, s), RopeScaling("ntk", s).frequencies(d, base))]
    if kind == "dynamic-ntk":
        pairs = []
        for length, context in ((1, 4096), (4096, 4096), (5000, 4096), (10**6, 4096), (100, 7)):
            effective = 1.0 + s * (max(length, context) - context) / context
            scaling = RopeScaling("dynamic-ntk", s, context, seq_len=length)
            pairs.append((_ntk_before(d, base, effective), scaling.frequencies(d, base)))
        return pairs
    if kind == "yarn":
        pairs = []
        for context, (fast, slow), truncate in itertools.product(
            (4, 32, 1000, 4096, 131072), ((32.0, 1.0), (16.0, 0.5), (64.0, 2.0)), (True, False)
        ):
            scaling = RopeScaling("yarn", s, context, fast, slow, truncate=truncate)
            before = _yarn_before(d, base, s, context, fast, slow, truncate)
            pairs.append((before, scaling.frequencies(d, base)))
        return pairs
    pairs = []
    for (low, high), context in itertools.product(((1.0, 4.0), (0.5, 2.0), (2.0, 8.0)), (16, 8192, 131072)):
        scaling = RopeScaling("llama3", s, context, low_freq_factor=low, high_freq_factor=high)
        pairs.append((_llama3_before(d, base, s, low, high, context), scaling.frequencies(d, base)))
    return pairs


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_frequencies_are_bit_identical_to_the_free_functions_they_replace(kind: str) -> None:
    for d, base, s in itertools.product(
        (4, 6, 8, 10, 64, 128, 512, 1000), (1.5, 2.0, 10000.0, 500000.0, 1e6), (1.0, 1.5, 8.0, 40.0, 1e4)
    ):
        if kind == "none" and s != 1.0:
            continue
        for before, after in _before_and_after(kind, d, base, s):
            assert after.dtype == np.float64 and after.shape == (d // 2,)
            assert np.array_equal(_bits(after), _bits(before)), (kind, d, base, s)


def test_the_free_functions_are_the_float64_form_of_one_configuration() -> None:
    d, base = 128, 10000.0
    pairs = [
        (linear_scaling_frequencies(d, base, 8.0), RopeScaling("linear", 8.0)),
        (ntk_scaling_frequencies(d, base, 8.0), RopeScaling("ntk", 8.0)),
        (
            dynamic_ntk_frequencies(d, base, 8.0, 9000, 4096),
            RopeScaling("dynamic-ntk", 8.0, 4096, seq_len=9000),
        ),
        (
            yarn_frequencies(d, base, 8.0, 4096, 16.0, 2.0, False),
            RopeScaling("yarn", 8.0, 4096, 16.0, 2.0, truncate=False),
        ),
        (
            llama3_frequencies(d, base, 8.0, 1.0, 2.0, 4096),
            RopeScaling("llama3", 8.0, 4096, low_freq_factor=1.0, high_freq_factor=2.0),
        ),
    ]
    for free, scaling in pairs:
        assert np.array_equal(_bits(free), _bits(scaling.frequencies(d, base))), scaling


@pytest.mark.parametrize(
    "scaling",
    [
        RopeScaling(),
        RopeScaling("linear", 8.0),
        RopeScaling("ntk", 40.0),
        RopeScaling("dynamic-ntk", 4.0, 4096, seq_len=10000),
        LLAMA2_YARN,
        RopeScaling("yarn", 16.0, 2048, 16.0, 0.5, truncate=False),
        RopeScaling("yarn", 16.0, 4096, ramp="paper"),
        LLAMA31,
        RopeScaling("llama3", 32.0, 4096, low_freq_factor=0.5, high_freq_factor=2.0),
    ],
    ids=repr,
)
@pytest.mark.parametrize(("d", "base"), [(64, 10000.0), (128, 500000.0), (256, 1e6)])
def test_the_mpmath_form_agrees_with_the_float64_form(scaling: RopeScaling, d: int, base: float) -> None:
    # The float64 form is within the checks' tolerance of the same rule at 40 digits (the YaRN ramp ends and
    # the Llama 3 regime boundaries of these configurations are far from a rounding's reach).
    exact = scaling.frequencies_mp(d, base, dps=40)
    assert len(exact) == d // 2 and all(isinstance(value, mpmath.mpf) for value in exact)
    high, low = scaling.high_freq_factor, scaling.low_freq_factor
    multiplier = 1.0 + scaling.factor * high / (high - low) if scaling.kind == "llama3" else 1.0
    tolerance = frequency_tolerance(base, max(scaling.factor, scaling.effective_factor)) * multiplier
    with mpmath.workdps(40):
        got = [mpmath.mpf(float(value)) for value in scaling.frequencies(d, base)]
        worst = max(abs(a / b - 1) for a, b in zip(got, exact, strict=True))
    assert worst <= tolerance


def test_the_mpmath_form_reads_a_str_base_exactly() -> None:
    with mpmath.workdps(60):
        expected = [value / 8 for value in fq.frequencies_mp(64, "10000.1", 60, count=32)]
    assert RopeScaling("linear", 8.0).frequencies_mp(64, "10000.1", 60) == expected


def test_fields_are_normalised_and_the_object_is_frozen() -> None:
    scaling = RopeScaling("yarn", 8, 4096, 32, 1)
    assert scaling == RopeScaling("yarn", 8.0, 4096, 32.0, 1.0)
    assert isinstance(scaling.factor, float) and isinstance(scaling.beta_fast, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        scaling.factor = 2.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rope_frequencies(7), "d must be even"),
        (lambda: rope_frequencies(0), "d must be a positive integer"),
        (lambda: rope_frequencies(64.0), "d must be a positive integer"),
        (lambda: rope_frequencies(64, 1.0), "base must be a finite real number greater than 1"),
        (lambda: RopeScaling("cubic"), "kind must be one of none, linear, ntk, dynamic-ntk, yarn, llama3"),
        (lambda: RopeScaling("none", 2.0), "factor must be 1 for kind 'none'"),
        (lambda: RopeScaling("linear", 0.5), "factor must be a real number ≥ 1"),
        (lambda: RopeScaling("linear", math.nan), "factor must be a finite positive real"),
        (lambda: RopeScaling("linear", 8.0).frequencies(64, 1.0), "base must be a finite real number"),
        (lambda: RopeScaling("ntk", 2.0).frequencies(2, 10000.0), "d must be an even integer ≥ 4"),
        (lambda: RopeScaling("ntk", 1e300).frequencies(4, 1e300), "overflows float64"),
        (lambda: RopeScaling("dynamic-ntk", 2.0, 4096, seq_len=-1), "seq_len must be a positive integer"),
        (
            lambda: RopeScaling("dynamic-ntk", 2.0, 0, seq_len=10),
            r"original_context \(.*\) must be a positive",
        ),
        (lambda: RopeScaling("yarn", 2.0, 8192.5), "original_max_position_embeddings\\) must be a positive"),
        (lambda: RopeScaling("yarn", 2.0, 4096, 1.0, 32.0), "beta_fast must be at least beta_slow"),
        (lambda: RopeScaling("yarn", 2.0, 4096, 1.0, 1.0, ramp="paper"), "the paper.s ramp runs"),
        (lambda: RopeScaling("yarn", 2.0, 4096, -1.0), "beta_fast must be a finite positive real"),
        (lambda: RopeScaling("yarn", 2.0, 4096, truncate="no"), "truncate must be True or False"),
        (lambda: RopeScaling("yarn", 0.9), "factor must be a real number ≥ 1"),
        (lambda: RopeScaling("yarn", 0.0), "factor must be a finite"),
        (
            lambda: RopeScaling("yarn", 2.0).attention_factor(mscale=0.0),
            "mscale must be a finite positive real",
        ),
        (
            lambda: RopeScaling("llama3", 8.0, low_freq_factor=4.0, high_freq_factor=1.0),
            "high_freq_factor must be at least",
        ),
        (
            lambda: RopeScaling("linear", 2.0).frequencies_mp(64, 10000.0, dps=0),
            "dps must be a positive integer",
        ),
        (lambda: RopeScaling("ntk", 2.0).frequencies_mp(2, 10000.0), "d must be an even integer ≥ 4"),
        (lambda: check_ntk_scaling(RopeScaling("ntk", 2.0), 2, 10000.0), "d must be an even integer ≥ 4"),
        (
            lambda: dynamic_ntk_frequencies(64, 10000.0, 2.0, 10, 0),
            "max_position_embeddings\\) must be a positive",
        ),
        (lambda: yarn_frequencies(64, 10000.0, 2.0, 4096, truncate="no"), "truncate must be True or False"),
    ],
)
def test_bad_input_is_rejected_with_a_clear_message(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


# ------------------------------------------------------------------ certified regimes and YaRN weights

YARN_64K = RopeScaling("yarn", factor=16, original_context=4096, beta_fast=32, beta_slow=1)
LLAMA31_SCALING = RopeScaling(
    "llama3", factor=8, original_context=8192, low_freq_factor=1, high_freq_factor=4
)


def _sign_flipped_turns(d: int, base: int, context: int) -> list[flint.arb]:
    """r_i with base^(+2i/d): every pair turns faster than the fastest."""
    pi = flint.arb.pi()
    return [flint.arb(context) * flint.arb(base) ** (flint.arb(2 * i) / d) / (2 * pi) for i in range(d // 2)]


def test_turns_per_context_agree_with_float64() -> None:
    with flint.ctx.workprec(128):
        turns = turns_per_context(128, 10000, 4096)
    expected = 4096 * rope_frequencies(128, 10000.0) / (2 * math.pi)
    assert len(turns) == 64
    assert all(abs(float(r.mid()) / e - 1) < 1e-12 for r, e in zip(turns, expected, strict=True))


def test_certainly_above_decides_or_refuses() -> None:
    assert certainly_above(flint.arb(5), 4) and not certainly_above(flint.arb(3), Fraction(7, 2))
    for ball in (flint.arb(4), flint.arb(4, 1e-3)):
        with pytest.raises(ValueError, match="cannot decide"):
            certainly_above(ball, 4)


def test_regime_counts_refuse_to_guess_at_a_threshold() -> None:
    with pytest.raises(ValueError, match="cannot decide"):
        regime_counts([flint.arb(4)], 1, 4)
    with pytest.raises(ValueError, match="cannot decide"):
        regime_counts([flint.arb(4, 1e-3)], 1, 4)
    assert regime_counts([flint.arb(5), flint.arb(2), flint.arb("0.5")], 1, 4) == (1, 1, 1)


@pytest.mark.parametrize(("scaling", "base"), [(YARN_64K, 10000), (LLAMA31_SCALING, 500000)])
def test_published_configurations_have_all_three_regimes(scaling: RopeScaling, base: int) -> None:
    with flint.ctx.workprec(128):
        counts = scaling_regimes(scaling, 128, base)
    assert sum(counts) == 64 and min(counts) > 0
    float64 = check_yarn_regimes if scaling.kind == "yarn" else check_llama3_regimes
    assert float64(scaling, 128, float(base))


def test_sign_flipped_turns_keep_every_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scaling_module, "turns_per_context", _sign_flipped_turns)
    with flint.ctx.workprec(128):
        assert scaling_regimes(LLAMA31_SCALING, 128, 500000) == (64, 0, 0)


def test_regimes_need_a_ramp() -> None:
    with pytest.raises(ValueError, match="only YaRN and Llama 3"):
        ramp_thresholds(RopeScaling("linear", 2))


def test_yarn_code_bounds_match_find_correction_range_in_float64() -> None:
    with flint.ctx.workprec(128):
        c_beta, c_alpha, low, high = yarn_code_bounds(YARN_64K, 128, 10000)
    floats = [128 * math.log(4096 / (n * 2 * math.pi)) / (2 * math.log(10000)) for n in (32, 1)]
    assert abs(float(c_beta.mid()) - floats[0]) < 1e-12 and abs(float(c_alpha.mid()) - floats[1]) < 1e-12
    assert (low, high) == (math.floor(floats[0]), math.ceil(floats[1]))


def test_yarn_weights_of_the_code_are_one_minus_the_reference_ramp() -> None:
    with flint.ctx.workprec(128):
        paper, code = yarn_weights(YARN_64K, 128, 10000)
    theta = rope_frequencies(128, 10000.0)
    scaled = YARN_64K.frequencies(128, 10000.0)
    keep = (scaled - theta / 16) / (theta - theta / 16)
    assert np.allclose([float(w) for w in code], keep, atol=1e-9)
    assert all(0 <= float(gamma.mid()) <= 1 for gamma in paper)


def test_the_paper_and_code_ramps_differ_on_llama2() -> None:
    with flint.ctx.workprec(128):
        ramps = compare_yarn_ramps(YARN_64K, 128, 10000, Fraction(1, 100))
    assert ramps.same_ends and ramps.differs and ramps.ends_moved and ramps.blended > 0
    assert 0 < ramps.code_at < 1 and ramps.low < ramps.high


def test_the_weights_at_the_ramp_ends_are_those_of_real_pairs() -> None:
    """The pairs next to the rounded ends (not the fractional dims c(β), c(α), where no pair sits)."""
    with flint.ctx.workprec(128):
        paper, code = yarn_weights(YARN_64K, 128, 10000)
        ramps = compare_yarn_ramps(YARN_64K, 128, 10000, Fraction(1, 100))
    assert (ramps.start, ramps.end) == (ramps.low + 1, ramps.high - 1)
    assert ramps.code_start == code[ramps.start] == 1 - Fraction(1, ramps.high - ramps.low)
    assert ramps.code_end == code[ramps.end] == Fraction(1, ramps.high - ramps.low)
    assert ramps.paper_start.overlaps(paper[ramps.start]) and ramps.paper_end.overlaps(paper[ramps.end])
    assert code[ramps.start - 1] - ramps.code_start > 0 and ramps.code_end - code[ramps.end + 1] > 0


def test_a_code_ramp_equal_to_the_papers_does_not_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    original = scaling_module.yarn_weights

    def paper_twice(scaling: RopeScaling, d: int, base: int) -> tuple[list, list[Fraction]]:
        paper, _ = original(scaling, d, base)
        return paper, [Fraction(gamma.mid().str(30, radius=False)) for gamma in paper]

    monkeypatch.setattr(scaling_module, "yarn_weights", paper_twice)
    with flint.ctx.workprec(128):
        assert not compare_yarn_ramps(YARN_64K, 128, 10000, Fraction(1, 100)).differs


def test_ramp_ends_that_need_no_rounding_do_not_move(monkeypatch: pytest.MonkeyPatch) -> None:
    original = scaling_module.yarn_code_bounds

    def integer_ends(scaling: RopeScaling, d: int, base: int) -> tuple[flint.arb, flint.arb, int, int]:
        _, _, low, high = original(scaling, d, base)
        return flint.arb(low), flint.arb(high), low, high

    monkeypatch.setattr(scaling_module, "yarn_code_bounds", integer_ends)
    with flint.ctx.workprec(128):
        assert not compare_yarn_ramps(YARN_64K, 128, 10000, Fraction(1, 100)).ends_moved


def test_the_logit_scale_is_the_attention_factor_squared() -> None:
    for factor in (1, 2, 16, 32):
        scaling = RopeScaling("yarn", factor)
        assert abs(float(logit_scale_mp(scaling)) - scaling.attention_factor() ** 2) < 1e-14
    assert logit_scale_mp(RopeScaling("linear", 4)) == 1
    with mpmath.workdps(30):
        assert (
            abs(logit_scale_mp(RopeScaling("yarn", 16)) - (mpmath.log(16) / 10 + 1) ** 2)
            < mpmath.mpf(10) ** -28
        )


class SquaredFactor(RopeScaling):
    """Broken: the logit scale 1/t returned where √(1/t) is asked for."""

    def attention_factor(self, mscale: float = 1.0) -> float:
        return super().attention_factor(mscale) ** 2


def test_pair_regimes_read_exact_ends_and_blend_the_rest() -> None:
    weights = [Fraction(1), Fraction(1), Fraction(2, 3), Fraction(1, 3), Fraction(0)]
    assert pair_regimes(weights) == scaling_module.PairRegimes((0, 1), (2, 3), (4,))
    balls = [flint.arb(1), flint.arb("0.5", 1e-30), flint.arb(0)]
    assert pair_regimes(balls) == scaling_module.PairRegimes((0,), (1,), (2,))


def test_the_paper_and_the_rounded_code_put_llama2_pairs_in_the_same_regimes() -> None:
    with flint.ctx.workprec(128):
        paper, code = yarn_pair_regimes(YARN_64K, 128, 10000)
    assert paper == code
    assert (paper.kept, paper.blended, paper.interpolated) == (
        tuple(range(21)),
        tuple(range(21, 46)),
        tuple(range(46, 64)),
    )
    with flint.ctx.workprec(128):
        turns = turns_per_context(128, 10000, 4096)
    assert all(float(turns[i].mid()) > 32 for i in paper.kept)
    assert all(float(turns[i].mid()) < 1 for i in paper.interpolated)


def test_swapped_alpha_and_beta_move_the_pair_sets() -> None:
    swapped = SwappedBetas("yarn", factor=16, original_context=4096, beta_fast=32, beta_slow=1)
    assert (swapped.beta_fast, swapped.beta_slow) == (1, 32)
    with flint.ctx.workprec(128):
        paper, code = yarn_pair_regimes(swapped, 128, 10000)
        right, _ = yarn_pair_regimes(YARN_64K, 128, 10000)
    assert paper != right and code != right and paper != code
    assert paper.kept == right.interpolated and paper.interpolated == right.kept


@given(factor=log_uniform(1.0, 1e6))
def test_the_attention_factor_is_the_exact_formula_to_a_few_ulps(factor: float) -> None:
    with flint.ctx.workprec(128):
        result = check_attention_factor_exact(RopeScaling("yarn", factor))
    assert result.holds, result


@pytest.mark.parametrize("broken", [Log10Factor, SquaredFactor])
@given(factor=extensions)
def test_an_attention_factor_off_the_formula_fails_against_the_ball(broken: type, factor: float) -> None:
    with flint.ctx.workprec(128):
        result = check_attention_factor_exact(broken("yarn", factor))
    assert not result.holds, result


def test_the_attention_factor_ball_holds_the_formula_and_refuses_contractions() -> None:
    with flint.ctx.workprec(128):
        ball = attention_factor_arb(8)
    assert abs(float(ball.mid()) - (0.1 * math.log(8) + 1)) < 1e-15 and float(ball.rad()) < 1e-30
    assert attention_factor_arb(1) == 1
    with pytest.raises(ValueError, match="≥ 1"):
        attention_factor_arb(0.5)


# ------------------------------------------------------------------ the temperature derivation's steps


class Unscaled(scaling_proofs.ScaledRope):
    """Forgets its scale: the logit is not multiplied at all."""

    def rotate_exact(self, x, m, thetas):
        return Rope.rotate_exact(self, x, m, thetas)


@pytest.mark.twin("scaling.yarn_temperature")
@pytest.mark.slow
def test_the_temperature_steps_hold_and_fail_without_the_scale() -> None:
    assert scaling_proofs.block_scaling_step().check()
    assert scaling_proofs.block_sum_step().check() and scaling_proofs.scaled_score_step().check()
    assert not scaling_proofs.block_scaling_step(Unscaled(2, scale=scaling_proofs.SCALE)).check()


def test_llama_4_s_equal_frequency_factors_leave_no_band_between() -> None:
    """low_freq_factor = high_freq_factor (Llama 4 Scout's 1 and 1): every pair is kept or divided by s, the
    same in float64 as at 50 digits, and no warning is raised (the test run turns warnings into errors)."""
    scaling = RopeScaling("llama3", 16.0, original_context=8192, low_freq_factor=1.0, high_freq_factor=1.0)
    fast = scaling.frequencies(128, 500000.0)
    assert np.isfinite(fast).all()
    exact = [float(value) for value in scaling.frequencies_mp(128, 500000, 50)]
    assert fast == pytest.approx(exact, rel=1e-12)
