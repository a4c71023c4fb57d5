"""RoPE computed in a low-precision dtype, and how far its scores drift from the offset-only score.

In exact arithmetic ⟨R_{m+s} q, R_{n+s} k⟩ = ⟨R_m q, R_n k⟩ for every shift s. In a dtype whose
significand has p bits, the stored position m + s and each angle (m + s)·θ_i are off by up to half a unit in
the last place, about |(m + s)·θ_i|·2^(−p): an absolute angle error that grows with the position, so the
score drifts away from the offset-only value as s grows (Wang et al. 2024, "When Precision Meets Position:
BFloat16 Breaks Down RoPE in Long-Context Training", arXiv 2411.13476).

`rope_in_dtype` computes interleaved RoPE with every step rounded: positions and frequencies (correctly
rounded) are stored in the angle dtype, their product is formed there, cos and sin of the stored angle are
correctly rounded to the dtype (`correct_rounding`), and the rotation's products and sums are done in the
dtype (numpy's float16, ml_dtypes' bfloat16, which rounds float64 through float32). `RopeInDtype(d, base,
dtype=..., angle_dtype=...)` is the `rope.Rope` whose float64 `rotate` is that computation (its other forms
are the exact RoPE's). `score_drift` measures |⟨rot(q, m+s), rot(k, n+s)⟩ − ⟨R_m q, R_n k⟩| for a Rope
against the float64 reference of the RoPE it declares, and `check_shift_invariance` turns that into a
`CheckResult` for a stated tolerance.

`position_drift` measures instead how far a rotation's own score moves with the shift,
|⟨rot(q, m+s), rot(k, n+s)⟩ − ⟨rot(q, m), rot(k, n)⟩|, which needs no reference; for a dtype of float32 or
narrower every such value is exact up to its float64 summation, which `position_drift_error` bounds, and
`drift_curve` gathers the median and largest drift over many (q, k) with that bound (`DriftCurve`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..encodings.frequencies import exponents
from ..encodings.rope import Rope
from ..encodings.scaling import rope_frequencies
from ..numerics.checking import CheckResult, angle_tolerance
from ..numerics.correct_rounding import correctly_rounded
from ..numerics.dtypes import DtypeSpec, dtype_spec
from ..numerics.validation import (
    require_base,
    require_even_dimension,
    require_positions,
    require_positive_real,
)


def rope_in_dtype(
    x: np.ndarray,
    positions: Sequence[float] | np.ndarray,
    dtype: str | DtypeSpec = "bfloat16",
    *,
    angle_dtype: str | DtypeSpec | None = None,
    base: float = 10000.0,
) -> np.ndarray:
    """Interleaved RoPE of the rows of x (shape (n, d)) at `positions`, every step rounded to `dtype`.

    Positions, frequencies θ_i = base^(−2i/d) and the angles p·θ_i are held in `angle_dtype` (by default
    `dtype`); cos and sin of each stored angle are rounded to `dtype`, and so are x and every product and
    sum of the rotation. The values are returned as float64 (exactly the stored ones).
    """
    spec = dtype_spec(dtype)
    angle_spec = spec if angle_dtype is None else dtype_spec(angle_dtype)
    x = np.asarray(x)
    if x.dtype.kind not in "iuf" or x.ndim != 2 or x.shape[0] == 0:
        raise ValueError(f"x must be an (n, d) array of real numbers with n ≥ 1, got shape {x.shape}")
    d = require_even_dimension(x.shape[1], "the vector length d of x")
    p = require_positions(positions)
    if p.shape != (x.shape[0],):
        raise ValueError(f"positions must have shape ({x.shape[0]},), one per row of x; got {p.shape}")
    _require_representable(p, angle_spec, "positions")
    _require_representable(x, spec, "x")
    theta = _frequencies(d, require_base(base), angle_spec)
    angles = angle_spec.cast(p)[:, None] * theta[None, :]
    cos, sin = _cos_sin(np.asarray(angles, dtype=np.float64), spec)
    low = spec.cast(x)
    a, b = low[:, 0::2], low[:, 1::2]
    out = np.empty_like(low)
    out[:, 0::2] = a * cos - b * sin
    out[:, 1::2] = a * sin + b * cos
    return out.astype(np.float64)


@dataclass(frozen=True)
class RopeInDtype(Rope):
    """Interleaved RoPE on all d dims whose `rotate` rounds every step to `dtype` (`rope_in_dtype`), with
    positions, frequencies and angles held in `angle_dtype` (by default `dtype`)."""

    dtype: DtypeSpec | str = "bfloat16"
    angle_dtype: DtypeSpec | str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.layout != "interleaved" or self.rotary_fraction != 1.0:
            raise ValueError(
                "RopeInDtype rotates all d dims in the interleaved layout; "
                f"got layout={self.layout!r}, rotary_fraction={self.rotary_fraction}"
            )
        object.__setattr__(self, "dtype", dtype_spec(self.dtype))
        if self.angle_dtype is not None:
            object.__setattr__(self, "angle_dtype", dtype_spec(self.angle_dtype))

    def rotate(self, x: np.ndarray, positions: Sequence[float] | np.ndarray) -> np.ndarray:
        """`rope_in_dtype` of the rows of x (shape (n, d)): the stored values, returned as float64."""
        if np.ndim(x) >= 1:
            self._require_length(np.shape(x)[-1:], "x")
        return rope_in_dtype(x, positions, self.dtype, angle_dtype=self.angle_dtype, base=self.base)


def _frequencies(d: int, base: float, spec: DtypeSpec) -> np.ndarray:
    """θ_i = base^(−2i/d) held in the dtype: correctly rounded below float64."""
    if spec.scalar is np.float64:
        return rope_frequencies(d, base)
    return correctly_rounded("pow", spec, np.float64(base), exponents(d, d // 2))


def _cos_sin(angles: np.ndarray, spec: DtypeSpec) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of the stored angles rounded to the dtype: correctly rounded below float64."""
    if spec.scalar is np.float64:
        return np.cos(angles), np.sin(angles)
    return correctly_rounded("cos", spec, angles), correctly_rounded("sin", spec, angles)


def score_drift(
    rope: Rope,
    q: np.ndarray,
    k: np.ndarray,
    positions_q: np.ndarray,
    positions_k: np.ndarray,
    shifts: Sequence[int] | np.ndarray,
) -> np.ndarray:
    """|⟨rot(q, m + s), rot(k, n + s)⟩ − ⟨R_m q, R_n k⟩| for every shift s (rows) and pair (columns).

    The first score is summed in float64 from `rope.rotate`; the second is the float64 reference
    `Rope(d, base, layout, rotary_fraction)` of the parameters `rope` declares, at the unshifted positions,
    which equals every shifted score in exact arithmetic.
    """
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    m, n = require_positions(positions_q, "positions_q"), require_positions(positions_k, "positions_k")
    shifts = require_positions(shifts, "shifts").reshape(-1)
    reference = Rope(rope.d, rope.base, rope.layout, rope.rotary_fraction)
    exact = np.sum(reference.rotate(q, m) * reference.rotate(k, n), axis=-1)
    scores = [np.sum(_rotated(rope, q, m + s) * _rotated(rope, k, n + s), axis=-1) for s in shifts]
    return np.abs(np.array(scores) - exact[None, :])


def unit_queries_and_keys(
    d: int, pairs: int, max_key: int = 16, max_offset: int = 64, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`pairs` seeded unit (q, k) ∈ ℝ^d × ℝ^d, keys at n ∈ [0, max_key) and queries at m = n + offset with
    offset ∈ [0, max_offset): (q, k, m, n)."""
    rng = np.random.default_rng(seed)
    q, k = (rng.standard_normal((pairs, d)) for _ in range(2))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    keys = rng.integers(0, max_key, size=pairs)
    return q, k, keys + rng.integers(0, max_offset, size=pairs), keys


def median_score_drift(
    rope: Rope,
    q: np.ndarray,
    k: np.ndarray,
    positions_q: np.ndarray,
    positions_k: np.ndarray,
    shifts: Sequence[int] | np.ndarray,
) -> np.ndarray:
    """The median over the pairs of `score_drift`, one value per shift."""
    return np.median(score_drift(rope, q, k, positions_q, positions_k, shifts), axis=1)


def reference_score_error(positions_q: np.ndarray, positions_k: np.ndarray, d: int) -> float:
    """A float64 bound on the reference score ⟨R_m q, R_n k⟩ of unit (q, k) ∈ ℝ^d at those positions, and so
    on every drift measured against it (the rounded scores themselves are exact functions of correctly
    rounded values, summed in float64)."""
    largest = float(max(np.max(positions_q), np.max(positions_k)))
    return angle_tolerance(largest, terms=2 * d) + d * 2.0**-50


def check_shift_invariance(
    rope: Rope,
    q: np.ndarray,
    k: np.ndarray,
    positions_q: np.ndarray,
    positions_k: np.ndarray,
    shifts: Sequence[int] | np.ndarray,
    tolerance: float | None = None,
) -> CheckResult:
    """⟨rot(q, m + s), rot(k, n + s)⟩ = ⟨R_m q, R_n k⟩ within `tolerance` for every shift s and pair, with
    rot = `rope.rotate` and R the float64 reference of the RoPE `rope` declares.

    The default tolerance is float64's: angle_tolerance(largest position, 2d) times max |q|·max |k|. Pass a
    larger one to ask whether a low-precision rotation stays within it.
    """
    drift = score_drift(rope, q, k, positions_q, positions_k, shifts)
    shifts = require_positions(shifts, "shifts").reshape(-1)
    if tolerance is None:
        q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
        positions = np.concatenate([require_positions(positions_q), require_positions(positions_k)])
        largest = float(np.max(np.abs(positions)) + np.max(np.abs(shifts)))
        scale = float(np.max(np.abs(q)) * np.max(np.abs(k)))
        tolerance = angle_tolerance(largest, terms=2 * q.shape[1]) * scale
    else:
        tolerance = require_positive_real(tolerance, "tolerance")
    shift, pair = np.unravel_index(int(np.argmax(drift)), drift.shape)
    largest_drift = float(drift[shift, pair])
    return CheckResult(
        "shift invariance ⟨rot(q, m + s), rot(k, n + s)⟩ = ⟨R_m q, R_n k⟩",
        bool(largest_drift <= tolerance),
        largest_drift,
        float(tolerance),
        {"shift": float(shifts[shift]), "pair": int(pair), "drift": largest_drift},
    )


def _require_representable(values: np.ndarray, spec: DtypeSpec, name: str) -> None:
    if np.any(np.abs(values) > spec.max_finite):
        raise ValueError(
            f"{name} must stay within the largest finite {spec.name} value {spec.max_finite:g}; "
            f"got {float(np.max(np.abs(values))):g}"
        )


def _rotated(rope: Rope, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    out = np.asarray(rope.rotate(x.copy(), positions.copy()), dtype=np.float64)
    if out.shape != x.shape:
        raise ValueError(f"the rotation must return its input's shape {x.shape}, returned {out.shape}")
    return out


def position_drift(
    rope: Rope,
    q: np.ndarray,
    k: np.ndarray,
    positions_q: np.ndarray,
    positions_k: np.ndarray,
    shifts: Sequence[int] | np.ndarray,
) -> np.ndarray:
    """|⟨rot(q, m + p), rot(k, n + p)⟩ − ⟨rot(q, m), rot(k, n)⟩| for every shift p (rows) and pair
    (columns), rot = `rope.rotate`: how far one rotation's score at a fixed offset m − n moves with the
    absolute position, against its own score at the unshifted positions. In exact arithmetic it is 0 for
    every p (the relative property); each score is summed in float64."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    m, n = require_positions(positions_q, "positions_q"), require_positions(positions_k, "positions_k")
    shifts = require_positions(shifts, "shifts").reshape(-1)
    start = np.sum(_rotated(rope, q, m) * _rotated(rope, k, n), axis=-1)
    scores = [np.sum(_rotated(rope, q, m + p) * _rotated(rope, k, n + p), axis=-1) for p in shifts]
    return np.abs(np.array(scores) - start[None, :])


def position_drift_error(d: int, scale: float = 1.0) -> float:
    """A bound on the float64 error of every `position_drift` value of a `RopeInDtype` whose dtype is float32
    or narrower, for (q, k) ∈ ℝ^d × ℝ^d with |q|·|k| ≤ `scale`.

    The rotated vectors are stored values of the dtype (24 significant bits or fewer), so every product of
    two of them is exact in float64 and each score rounds only in its sum of d terms: by at most
    (d − 1)·2^(−53)·Σ|x_i y_i| ≤ (d − 1)·2^(−53)·|x||y| in any order of summation, with |x||y| ≤ 4·scale
    (rounding to such a dtype and rotating by rounded cos and sin grows a norm by far less than a factor 2).
    The difference of two scores (each at most 4·scale in size) rounds once more.
    """
    d = require_even_dimension(d)
    size = 4.0 * require_positive_real(scale, "scale")
    return 2.0 * (d - 1) * 2.0**-53 * size * (1.0 + d * 2.0**-52) + 2.0 * size * 2.0**-53


@dataclass(frozen=True)
class DriftCurve:
    """The median and the largest `position_drift` over the pairs, one value each per shift p, with the
    a-priori bound `bound` on every value's float64 error (`position_drift_error`)."""

    shifts: np.ndarray
    median: np.ndarray
    worst: np.ndarray
    bound: float

    def at(self, shift: int) -> int:
        """The row of `shift` (a ValueError when it was not measured)."""
        rows = np.flatnonzero(self.shifts == shift)
        if rows.size != 1:
            raise ValueError(f"shift {shift} was not measured; measured: {self.shifts.tolist()}")
        return int(rows[0])

    def exceeds(self, other: DriftCurve, factor: float) -> np.ndarray:
        """Per shift (the same shifts): this curve's median is at least `factor` times `other`'s median,
        certified by both bounds."""
        if not np.array_equal(self.shifts, other.shifts):
            raise ValueError("the curves must be measured at the same shifts")
        return self.median - factor * other.median > self.bound + factor * other.bound

    def growth(self, start: int, end: int) -> tuple[float, float]:
        """median(end)/median(start) and a bound on its float64 error (both medians off by ≤ `bound`)."""
        top, bottom = float(self.median[self.at(end)]), float(self.median[self.at(start)])
        if bottom <= self.bound:
            return float("inf"), float("inf")
        ratio = top / bottom
        return ratio, 1.01 * (self.bound + ratio * self.bound) / (bottom - self.bound)

    def grows(self, start: int, end: int, factor: float) -> bool:
        """median(end) ≥ factor·median(start), certified: the median grew at least `factor`-fold."""
        top, bottom = float(self.median[self.at(end)]), float(self.median[self.at(start)])
        return bool(top - factor * bottom > (1.0 + factor) * self.bound)

    def stays_within(self, start: int, end: int, factor: float) -> bool:
        """median(end) < factor·median(start), certified: the median grew less than `factor`-fold."""
        top, bottom = float(self.median[self.at(end)]), float(self.median[self.at(start)])
        return bool(factor * bottom - top > (1.0 + factor) * self.bound)


def drift_curve(
    rope: RopeInDtype,
    q: np.ndarray,
    k: np.ndarray,
    positions_q: np.ndarray,
    positions_k: np.ndarray,
    shifts: Sequence[int] | np.ndarray,
) -> DriftCurve:
    """The `DriftCurve` of a rotation in float32 or a narrower dtype over the pairs (q, k) at (m, n)."""
    spec = dtype_spec(rope.dtype)
    if spec.nmant > 23:
        raise ValueError(f"the drift bound holds for float32 and narrower dtypes, not {spec.name}")
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    drift = position_drift(rope, q, k, positions_q, positions_k, shifts)
    scale = float(np.max(np.linalg.norm(q, axis=1) * np.linalg.norm(k, axis=1)))
    shifts = require_positions(shifts, "shifts").reshape(-1)
    bound = position_drift_error(q.shape[1], scale)
    return DriftCurve(shifts, np.median(drift, axis=1), np.max(drift, axis=1), bound)


def position_spacing(dtype: str | DtypeSpec, position: int) -> Fraction:
    """The gap between consecutive values of `dtype` around an integer position p ≥ 1: 2^(e − m) for p in
    [2^e, 2^(e+1)) and m the dtype's mantissa bits (below 1: every integer up to 2^(m+1) is stored
    exactly)."""
    spec = dtype_spec(dtype)
    if isinstance(position, bool) or not isinstance(position, int | np.integer) or position < 1:
        raise ValueError(f"position must be an integer ≥ 1, got {position!r}")
    return Fraction(2) ** (int(position).bit_length() - 1 - spec.nmant)
