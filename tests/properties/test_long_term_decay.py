"""RoFormer's long-term decay: the Abel bound holds for any h and frequencies, broken bounds fail, the
relative upper bound (in float64 and in ball arithmetic) and its decay profile are what they say, and the mean
score of independent standard Gaussian queries and keys is 0 within its standard error while correlated or
shifted ones are caught."""

from __future__ import annotations

import itertools
import math

import flint
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.properties.checks.long_term_decay import (
    abel_bound,
    ball_midpoints,
    check_abel_bound,
    check_mean_score_vanishes,
    decay_profile,
    pair_products,
    phase_partial_sums,
    relative_upper_bound,
    relative_upper_bound_arb,
    relative_upper_bound_error,
    rotary_sum,
)
from pe_verify.properties.encodings.rope import apply_rope
from pe_verify.properties.encodings.scaling import rope_frequencies

HALF_DIMS = st.integers(1, 128)
BASES = st.sampled_from([10000.0, 500000.0, 10.0]) | st.floats(1.5, 1e6)
SEEDS = st.integers(0, 2**32 - 1)
DISTANCES = st.lists(st.integers(-(10**5), 10**5), min_size=1, max_size=20).map(np.array)


def random_h(seed: int, rows: int, half: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return pair_products(rng.standard_normal((rows, 2 * half)), rng.standard_normal((rows, 2 * half)))


def tight_h(half: int) -> np.ndarray:
    """h_j = d/2 − j: every step is −1, and at distance 0 the Abel bound is attained with equality."""
    return (half - np.arange(half, dtype=float))[None, :].astype(complex)


# Broken bounds: each drops a piece of the Abel argument.


def bound_without_last_partial_sum(h: np.ndarray, distances: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Broken: Σ_{j<d/2} |S_j| instead of Σ_{j≤d/2} |S_j| (off by one)."""
    padded = np.concatenate([h, np.zeros((h.shape[0], 1))], axis=1)
    step = np.max(np.abs(np.diff(padded, axis=1)), axis=1)
    partial = np.abs(phase_partial_sums(distances, theta))[:, :-1]
    return step[:, None] * np.sum(partial, axis=1)[None, :]


def bound_without_padding(h: np.ndarray, distances: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Broken: forgets h_{d/2} = 0, so the last step |h_{d/2−1}| is missing from the maximum."""
    step = np.max(np.abs(np.diff(h, axis=1)), axis=1, initial=0.0)
    return step[:, None] * np.sum(np.abs(phase_partial_sums(distances, theta)), axis=1)[None, :]


def bound_with_mean(h: np.ndarray, distances: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Broken: uses the plotted relative bound (the mean of |S_j|) as if it were the bound itself."""
    return abel_bound(h, distances, theta) / theta.size


@given(HALF_DIMS, BASES, SEEDS, DISTANCES)
def test_abel_bound_holds_for_random_h(half: int, base: float, seed: int, distances: np.ndarray) -> None:
    theta = rope_frequencies(2 * half, base)
    result = check_abel_bound(abel_bound, random_h(seed, 3, half), distances, theta)
    assert result.holds, result


@given(st.integers(2, 128), BASES)
def test_abel_bound_is_attained_by_a_linear_h_at_distance_zero(half: int, base: float) -> None:
    result = check_abel_bound(abel_bound, tight_h(half), np.array([0]), rope_frequencies(2 * half, base))
    assert result.holds and result.witness["largest_ratio"] == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("broken", [bound_without_last_partial_sum, bound_with_mean])
@given(half=st.integers(2, 128), base=BASES)
def test_bounds_missing_a_term_fail_on_the_tight_h(broken, half: int, base: float) -> None:
    result = check_abel_bound(broken, tight_h(half), np.array([0]), rope_frequencies(2 * half, base))
    assert not result.holds, result


@given(st.integers(1, 128), BASES, st.floats(0.1, 10.0))
def test_bound_without_h_end_fails_on_a_constant_h(half: int, base: float, value: float) -> None:
    constant = np.full((1, half), value, dtype=complex)
    theta = rope_frequencies(2 * half, base)
    result = check_abel_bound(bound_without_padding, constant, np.array([0]), theta)
    assert not result.holds, result


@given(st.integers(1, 64), SEEDS, st.integers(-(10**4), 10**4), st.integers(-(10**4), 10**4))
def test_real_part_of_the_rotary_sum_is_the_interleaved_rope_score(
    half: int, seed: int, m: int, n: int
) -> None:
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((1, 2 * half)), rng.standard_normal((1, 2 * half))
    expected = float(np.sum(apply_rope(q, [m]) * apply_rope(k, [n])))
    got = rotary_sum(pair_products(q, k), np.array([m - n]), rope_frequencies(2 * half))[0, 0].real
    assert got == pytest.approx(expected, abs=1e-9 * (1 + abs(m) + abs(n)))


@given(st.integers(1, 256))
def test_relative_upper_bound_at_distance_zero_is_the_mean_of_one_to_half_d(half: int) -> None:
    assert relative_upper_bound(np.array([0]), 2 * half)[0] == pytest.approx((half + 1) / 2, rel=1e-12)


def test_relative_upper_bound_of_roformer_figure_falls_over_the_plotted_range() -> None:
    curve = relative_upper_bound(np.arange(251))
    profile = decay_profile(curve, 50)
    assert profile.start == pytest.approx(32.5)
    assert profile.windows_decrease and not profile.monotone and profile.end < 8


def test_decay_profile_counts_rises_and_window_maxima() -> None:
    profile = decay_profile(np.array([5.0, 4.0, 4.5, 3.0, 2.0, 2.5, 1.0]), 3)
    assert (profile.rises, profile.steps, profile.largest_rise, profile.largest_rise_at) == (2, 6, 0.5, 1)
    later = decay_profile(np.array([3.0, 3.125, 2.0, 2.5, 1.0]), 2)
    assert profile.first_rise_at == 1 and (later.first_rise_at, later.largest_rise_at) == (0, 2)
    assert profile.window_maxima == (5.0, 3.0) and profile.windows_decrease and not profile.monotone


def test_decay_profile_of_a_falling_curve_is_monotone_and_of_a_flat_one_does_not_decrease() -> None:
    assert decay_profile(np.linspace(3.0, 1.0, 10), 4).monotone
    assert decay_profile(np.linspace(3.0, 1.0, 10), 4).first_rise_at is None
    assert not decay_profile(np.ones(10), 4).windows_decrease


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pair_products(np.ones((2, 3)), np.ones((2, 3))), "even"),
        (lambda: pair_products(np.ones((2, 4)), np.ones((3, 4))), "same shape"),
        (lambda: rotary_sum(np.ones((1, 3)), np.array([0]), np.ones(2)), "one value per frequency"),
        (lambda: phase_partial_sums(np.array([np.nan]), np.ones(2)), "finite"),
        (lambda: phase_partial_sums(np.array([0]), np.array([1.0, -1.0])), "positive"),
        (lambda: relative_upper_bound(np.arange(3), d=5), "even"),
        (
            lambda: check_abel_bound(lambda h, x, t: np.ones(2), np.ones((1, 2)), np.arange(3), np.ones(2)),
            "shape",
        ),
        (lambda: decay_profile(np.array([1.0]), 2), "at least 2"),
        (lambda: decay_profile(np.arange(4.0), 0), "positive integer"),
        (lambda: relative_upper_bound_arb([0, 1.5]), "integers"),
        (lambda: relative_upper_bound_arb([True]), "integers"),
        (lambda: relative_upper_bound_arb([0], d=7), "even"),
        (lambda: relative_upper_bound_arb([0], prec=0), "positive integer"),
        (lambda: ball_midpoints([]), "non-empty"),
        (lambda: ball_midpoints([1.0]), "flint.arb"),
        (lambda: ball_midpoints([flint.arb("inf")]), "finite"),
        (lambda: check_mean_score_vanishes(np.ones((1, 4)), np.ones((1, 4)), [0], np.ones(2), 1.0), "2 rows"),
        (
            lambda: check_mean_score_vanishes(np.ones((2, 4)), np.ones((2, 4)), [0], np.ones(2), 0.0),
            "score_sd",
        ),
        (
            lambda: check_mean_score_vanishes(np.ones((2, 4)), np.ones((2, 4)), [0], np.ones(2), 1.0, -1),
            "sigmas",
        ),
    ],
)
def test_bad_input_is_rejected_with_a_clear_message(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_the_curve_error_bounds_float64_against_a_high_precision_curve() -> None:
    import mpmath

    distances = np.array([0, 1, 37, 250, 50_000, 99_999])
    curve = relative_upper_bound(distances, 16, 10000.0)
    error = relative_upper_bound_error(distances, 16, 10000.0)
    with mpmath.workdps(40):
        theta = [mpmath.mpf(10000) ** (-mpmath.mpf(2 * i) / 16) for i in range(8)]
        for value, delta in zip(curve, distances, strict=True):
            partial, total = mpmath.mpc(0), mpmath.mpf(0)
            for t in theta:
                partial += mpmath.expj(int(delta) * t)
                total += abs(partial)
            assert abs(mpmath.mpf(float(value)) - total / 8) <= error
    assert relative_upper_bound_error(distances[:3], 16, 10000.0) < error


# The curve in ball arithmetic.


@pytest.mark.slow
@given(st.integers(1, 64), st.sampled_from([10000, 500000, 10]), st.lists(st.integers(0, 5000), max_size=6))
def test_the_balls_contain_the_float64_curve_within_its_error_bound(
    half: int, base: int, distances: list[int]
) -> None:
    distances = [0, *distances]
    balls = relative_upper_bound_arb(distances, 2 * half, base, prec=96)
    curve = relative_upper_bound(np.array(distances), 2 * half, float(base))
    error = relative_upper_bound_error(np.array(distances), 2 * half, float(base))
    for ball, value in zip(balls, curve, strict=True):
        assert abs(ball - value) <= error
    assert balls[0] == flint.arb(half + 1) / 2  # every S_j(0) = j: exact, radius 0


def test_ball_midpoints_bound_every_exact_value() -> None:
    balls = relative_upper_bound_arb(range(0, 257, 16))
    values, bound = ball_midpoints(balls)
    assert all(abs(ball - value) <= bound for ball, value in zip(balls, values, strict=True))
    assert bound < 1e-14 and values[0] == 32.5
    wide = [flint.arb(1, 0.25), flint.arb(2)]
    assert ball_midpoints(wide)[1] >= 0.25


def test_the_first_rise_of_roformers_curve_is_decided_by_the_balls() -> None:
    balls = relative_upper_bound_arb(range(20))
    steps = [b - a for a, b in itertools.pairwise(balls)]
    assert all(step < 0 for step in steps[:18]) and steps[18] > 0


# The mean score of random queries and keys.

SAMPLE_SEEDS = (0, 1, 2)


def gaussian_pairs(seed: int, rows: int, d: int, shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((rows, d)) + shift, rng.standard_normal((rows, d)) + shift


@pytest.mark.parametrize("seed", SAMPLE_SEEDS)
@pytest.mark.parametrize("d", [2, 16, 128])
def test_the_mean_score_of_standard_gaussian_pairs_is_within_its_standard_error(seed: int, d: int) -> None:
    q, k = gaussian_pairs(seed, 2048, d)
    result = check_mean_score_vanishes(q, k, np.arange(0, 300, 3), rope_frequencies(d), math.sqrt(d))
    assert result.holds, result
    assert result.witness["standard_error"] == pytest.approx(math.sqrt(d / 2048))


@pytest.mark.parametrize("seed", SAMPLE_SEEDS)
def test_shifted_or_correlated_pairs_fail_the_mean_score_check(seed: int) -> None:
    """Broken inputs: a mean of 1 in every entry (expected score 2 Re S_{d/2}(r), RoFormer's partial sum), and
    k = q (not independent: expected score Σ_i 2 cos(rθ_i))."""
    d, theta, distances = 16, rope_frequencies(16), np.arange(0, 300, 3)
    shifted = check_mean_score_vanishes(*gaussian_pairs(seed, 2048, d, 1.0), distances, theta, math.sqrt(d))
    q, _ = gaussian_pairs(seed, 2048, d)
    same = check_mean_score_vanishes(q, q, distances, theta, math.sqrt(d))
    assert not shifted.holds and not same.holds
    assert same.witness["distance"] == 0 and same.witness["mean"] == pytest.approx(d, rel=0.1)


def test_a_standard_error_taken_too_small_fails_the_mean_score_check() -> None:
    q, k = gaussian_pairs(0, 2048, 16)
    result = check_mean_score_vanishes(q, k, np.arange(50), rope_frequencies(16), math.sqrt(16) / 100)
    assert not result.holds and result.max_error > result.tolerance
