"""RoPE in a low-precision dtype: float64 through the same code is the reference, stored values are the
dtype's, and the shift-invariance check passes in float64 and fails for rotations that round or clamp
positions."""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.properties.analyses.rope_precision import (
    DriftCurve,
    RopeInDtype,
    check_shift_invariance,
    drift_curve,
    median_score_drift,
    position_drift,
    position_drift_error,
    position_spacing,
    reference_score_error,
    rope_in_dtype,
    score_drift,
    unit_queries_and_keys,
)
from pe_verify.properties.encodings.rope import Rope, apply_rope
from pe_verify.properties.numerics.checking import angle_tolerance


def _twice(half: int) -> int:
    return 2 * half


DIMS = st.integers(1, 64).map(_twice)
SEEDS = st.integers(0, 2**32 - 1)
POSITIONS = st.integers(0, 10**4)
SHIFT_LISTS = st.lists(st.integers(0, 10**6), min_size=1, max_size=5).map(np.array)


def inputs(seed: int, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal((n, d))


class PositionsRoundedToBfloat16(Rope):
    """Broken: exact float64 rotation, but at positions stored in bfloat16 (exact only up to 256)."""

    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return super().rotate(x, np.asarray(positions).astype(ml_dtypes.bfloat16).astype(np.float64))


class CacheOf1001Positions(Rope):
    """Broken: a cos/sin cache of 1001 positions, reused (clamped) for every later position."""

    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return super().rotate(x, np.minimum(positions, 1000))


class Truncates(Rope):
    def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        return x[:, :2]


@given(DIMS, SEEDS, st.lists(st.integers(-(10**6), 10**6), min_size=1, max_size=4))
def test_float64_through_the_dtype_code_is_the_reference(d: int, seed: int, positions: list[int]) -> None:
    x = np.random.default_rng(seed).standard_normal((len(positions), d))
    got = rope_in_dtype(x, positions, "float64")
    assert np.allclose(got, apply_rope(x, positions), rtol=0, atol=1e-9 * (1 + max(map(abs, positions))))


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
@given(d=DIMS, seed=SEEDS, position=POSITIONS)
def test_values_are_stored_in_the_dtype(dtype: str, d: int, seed: int, position: int) -> None:
    x = np.random.default_rng(seed).standard_normal((1, d))
    got = rope_in_dtype(x, [position], dtype)
    scalar = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype).type
    assert np.array_equal(got.astype(scalar).astype(np.float64), got)


@given(DIMS, SEEDS, st.lists(POSITIONS, min_size=2, max_size=2), SHIFT_LISTS)
def test_float64_rope_is_shift_invariant(d: int, seed: int, positions: list[int], shifts: np.ndarray) -> None:
    q, k = inputs(seed, 1, d)
    result = check_shift_invariance(Rope(d), q, k, positions[:1], positions[1:], shifts)
    assert result.holds, result


@given(DIMS, SEEDS, st.integers(257, 10**6))
def test_positions_rounded_to_bfloat16_break_shift_invariance(d: int, seed: int, shift: int) -> None:
    q, k = inputs(seed, 1, d)  # past 256 the bfloat16 spacing is ≥ 2: s and s + 1 cannot both be stored
    result = check_shift_invariance(PositionsRoundedToBfloat16(d), q, k, [1], [0], [0, shift])
    assert not result.holds, result


@given(DIMS, SEEDS, POSITIONS)
def test_a_clamped_position_cache_breaks_shift_invariance(d: int, seed: int, position: int) -> None:
    q, k = inputs(seed, 1, d)
    result = check_shift_invariance(CacheOf1001Positions(d), q, k, [position + 1], [position], [0, 2000])
    assert not result.holds, result


def test_bfloat16_drift_grows_with_the_shift_and_float32_angles_keep_it_flat() -> None:
    q, k = inputs(0, 32, 128)
    m, n = np.arange(32) + 5, np.arange(32)
    shifts = np.array([0, 2**16])
    bf16 = np.median(score_drift(RopeInDtype(128, dtype="bfloat16"), q, k, m, n, shifts), axis=1)
    f32 = np.median(
        score_drift(RopeInDtype(128, dtype="bfloat16", angle_dtype="float32"), q, k, m, n, shifts), axis=1
    )
    assert bf16[1] > 10 * bf16[0] and f32[1] < 2 * f32[0]


def test_a_looser_tolerance_is_used_when_given() -> None:
    q, k = inputs(1, 4, 64)
    rotate = RopeInDtype(64, dtype="bfloat16")
    assert not check_shift_invariance(rotate, q, k, [1, 2, 3, 4], [0, 0, 0, 0], [0, 16]).holds
    assert check_shift_invariance(rotate, q, k, [1, 2, 3, 4], [0, 0, 0, 0], [0, 16], tolerance=1.0).holds


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rope_in_dtype(np.ones((1, 3)), [0]), "even"),
        (lambda: rope_in_dtype(np.ones((1, 4)), [0], "int8"), "dtype must be one of"),
        (lambda: rope_in_dtype(np.ones((1, 4)), [70000], "float16"), "largest finite float16"),
        (lambda: rope_in_dtype(np.ones((1, 4)), [0, 1]), "one per row"),
        (lambda: rope_in_dtype(np.ones(4), [0]), r"\(n, d\)"),
        (lambda: rope_in_dtype(np.ones((1, 4)), [np.nan]), "finite"),
        (
            lambda: check_shift_invariance(Rope(4), np.ones((1, 4)), np.ones((1, 4)), [0], [0], [0], -1.0),
            "positive",
        ),
        (lambda: score_drift(Truncates(4), np.ones((1, 4)), np.ones((1, 4)), [0], [0], [0]), "shape"),
        (lambda: RopeInDtype(4, layout="half_split"), "interleaved"),
        (lambda: RopeInDtype(4, dtype="int8"), "dtype must be one of"),
        (lambda: RopeInDtype(8).rotate(np.ones((1, 4)), [0]), "length d = 8"),
    ],
)
def test_bad_input_is_rejected_with_a_clear_message(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


@given(DIMS, SEEDS, st.lists(POSITIONS, min_size=1, max_size=3), st.sampled_from(["bfloat16", "float16"]))
def test_rope_in_dtype_object_is_the_dtype_computation(
    d: int, seed: int, positions: list[int], dtype: str
) -> None:
    x, _ = inputs(seed, len(positions), d)
    rope = RopeInDtype(d, dtype=dtype)
    assert np.array_equal(rope.rotate(x, positions), rope_in_dtype(x, positions, dtype))


def test_unit_queries_and_keys_are_unit_and_in_range() -> None:
    q, k, m, n = unit_queries_and_keys(32, 10, max_key=16, max_offset=64)
    assert np.allclose(np.linalg.norm(q, axis=1), 1) and np.allclose(np.linalg.norm(k, axis=1), 1)
    assert np.all((n >= 0) & (n < 16)) and np.all((n <= m) & (m < n + 64))
    assert all(np.array_equal(a, b) for a, b in zip((q, k, m, n), unit_queries_and_keys(32, 10), strict=True))


def test_median_drift_stays_within_the_reference_error_in_float64_only() -> None:
    q, k, m, n = unit_queries_and_keys(32, 16)
    shifts = np.array([0, 2**8, 2**12])
    error = reference_score_error(m, n, 32)
    float64 = median_score_drift(Rope(32), q, k, m, n, shifts)
    bfloat16 = median_score_drift(RopeInDtype(32, dtype="bfloat16"), q, k, m, n, shifts)
    assert float64.shape == bfloat16.shape == (3,)
    assert np.all(float64 <= error) and np.all(bfloat16 > error)
    assert np.array_equal(float64, np.median(score_drift(Rope(32), q, k, m, n, shifts), axis=1))


# ------------------------------------------------------------ a rotation's score against its own at p = 0

CHECKPOINTS = np.array([0, 1, 2**8, 2**14, 2**16])


def _fsum_drift(rope: Rope, q: np.ndarray, k: np.ndarray, m: np.ndarray, n: np.ndarray, p: int) -> np.ndarray:
    """`position_drift` at one shift with each score summed exactly (math.fsum)."""

    def scores(shift: int) -> np.ndarray:
        a, b = rope.rotate(q.copy(), m + shift), rope.rotate(k.copy(), n + shift)
        return np.array([math.fsum(row) for row in a * b])

    return np.abs(scores(p) - scores(0))


@given(DIMS, SEEDS, st.lists(POSITIONS, min_size=2, max_size=2), SHIFT_LISTS)
def test_float64_rope_barely_drifts_from_its_own_score(
    d: int, seed: int, positions: list[int], shifts: np.ndarray
) -> None:
    q, k = inputs(seed, 1, d)
    drift = position_drift(Rope(d), q, k, positions[:1], positions[1:], shifts)
    scale = float(np.linalg.norm(q) * np.linalg.norm(k))
    largest = max(positions) + int(np.max(shifts))
    assert np.all(drift <= 2 * angle_tolerance(largest, terms=2 * d) * scale)


@given(DIMS, SEEDS, st.integers(257, 10**6))
def test_positions_rounded_to_bfloat16_drift_from_their_own_score(d: int, seed: int, shift: int) -> None:
    q, k = inputs(seed, 1, d)
    drift = position_drift(PositionsRoundedToBfloat16(d), q, k, [1], [0], [0, shift])
    clean = position_drift(Rope(d), q, k, [1], [0], [0, shift])
    assert drift[1, 0] > 1e3 * max(clean[1, 0], 1e-12)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_the_drift_bound_covers_the_float64_summation(dtype: str) -> None:
    q, k, m, n = unit_queries_and_keys(64, 16)
    rope = RopeInDtype(64, dtype=dtype)
    bound = position_drift_error(64)
    for p in (1, 2**10):
        drift = position_drift(rope, q, k, m, n, [p])[0]
        assert np.all(np.abs(drift - _fsum_drift(rope, q, k, m, n, p)) <= bound)
    assert position_drift_error(64, 2.0) == 2 * bound and position_drift_error(128) > bound


def test_bfloat16_drift_grows_past_float32_and_saturates_where_float32_angles_stay_flat() -> None:
    q, k, m, n = unit_queries_and_keys(128, 32)
    bf16 = drift_curve(RopeInDtype(128, dtype="bfloat16"), q, k, m, n, CHECKPOINTS)
    f32 = drift_curve(RopeInDtype(128, dtype="float32"), q, k, m, n, CHECKPOINTS)
    angles = drift_curve(RopeInDtype(128, dtype="bfloat16", angle_dtype="float32"), q, k, m, n, CHECKPOINTS)
    assert bf16.median[0] == bf16.worst[0] == 0
    assert (
        np.all(bf16.exceeds(f32, 4)[1:]) and bf16.grows(1, 2**16, 10) and bf16.stays_within(2**14, 2**16, 2)
    )
    assert f32.grows(1, 2**16, 100) and f32.grows(2**14, 2**16, 2)
    assert angles.stays_within(1, 2**16, 2) and not angles.grows(1, 2**16, 10)


def test_a_curve_is_not_above_itself_and_a_flat_curve_does_not_grow() -> None:
    q, k, m, n = unit_queries_and_keys(32, 16)
    bf16 = drift_curve(RopeInDtype(32, dtype="bfloat16"), q, k, m, n, CHECKPOINTS)
    assert not np.any(bf16.exceeds(bf16, 1))
    flat = DriftCurve(CHECKPOINTS, np.full(5, 1e-3), np.full(5, 2e-3), 1e-13)
    assert not flat.grows(1, 2**16, 2) and flat.stays_within(1, 2**16, 2)
    assert flat.growth(1, 2**16)[0] == 1 and not flat.stays_within(1, 2**16, 1)
    assert DriftCurve(CHECKPOINTS, np.zeros(5), np.zeros(5), 1e-13).growth(1, 2**16) == (math.inf, math.inf)


def test_drift_curves_refuse_float64_unmeasured_shifts_and_mismatched_curves() -> None:
    q, k, m, n = unit_queries_and_keys(16, 4)
    with pytest.raises(ValueError, match="float32 and narrower"):
        drift_curve(RopeInDtype(16, dtype="float64"), q, k, m, n, CHECKPOINTS)
    curve = drift_curve(RopeInDtype(16, dtype="bfloat16"), q, k, m, n, CHECKPOINTS)
    with pytest.raises(ValueError, match="was not measured"):
        curve.growth(1, 3)
    other = drift_curve(RopeInDtype(16, dtype="bfloat16"), q, k, m, n, CHECKPOINTS[:-1])
    with pytest.raises(ValueError, match="same shifts"):
        curve.exceeds(other, 1)


def test_position_spacing_is_the_dtypes_gap() -> None:
    assert position_spacing("bfloat16", 1) == Fraction(1, 128) and position_spacing("bfloat16", 255) == 1
    assert position_spacing("bfloat16", 256) == 2 and position_spacing("bfloat16", 2**16) == 512
    assert position_spacing("float16", 2**11) == 2 and position_spacing("float32", 2**24) == 2
    for p in (300, 5000, 70000):
        stored = float(np.float32(p).astype(ml_dtypes.bfloat16))
        assert abs(stored - p) <= position_spacing("bfloat16", p) / 2
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="integer ≥ 1"):
            position_spacing("bfloat16", bad)
