"""RoPE's long-term decay (Su et al., RoFormer, arXiv 2104.09864, §3.4.3): the Abel-summation bound on the
rotary sum and the relative upper bound the paper plots.

Read pair i of q and of k as complex numbers and let h_i = q_[2i:2i+1]·conj(k_[2i:2i+1]); the interleaved RoPE
score of a query at m and a key at n is then Re Σ_{i<d/2} h_i·e^{i(m−n)θ_i}. With S_j = Σ_{l<j} e^{i(m−n)θ_l}
(S_0 = 0) and h_{d/2} = 0, Abel summation gives Σ_i h_i e^{i(m−n)θ_i} = −Σ_{j<d/2} S_{j+1}(h_{j+1} − h_j), so

    |Σ_i h_i e^{i(m−n)θ_i}| ≤ (max_j |h_{j+1} − h_j|) · Σ_{j=1}^{d/2} |S_j|,

and the paper plots the relative upper bound (1/(d/2))·Σ_{j=1}^{d/2} |S_j| against m − n (d = 128, θ_i =
10000^(−2i/d)). The bound, its check (which takes the bound as a callable and returns a `CheckResult`) and the
decay profile are float64; `relative_upper_bound_arb` computes the plotted curve in ball arithmetic, so its
values and the signs of its steps are certified.

The bound is a worst case over h. For random q and k the score has an expectation: for q independent of k it
is E[q]ᵀR_{n−m}E[k] (`proofs.random_scores`), 0 for standard Gaussian q and k at every distance;
`check_mean_score_vanishes` measures that on samples.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import flint
import numpy as np

from ..encodings.frequencies import frequencies_arb
from ..encodings.scaling import rope_frequencies
from ..numerics.checking import EPS64, CheckResult, angle_tolerance
from ..numerics.validation import (
    require_even_dimension,
    require_positions,
    require_positive_int,
    require_positive_real,
)

Bound = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def pair_products(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """h_i = (q_{2i} + i·q_{2i+1})·conj(k_{2i} + i·k_{2i+1}), row by row: shape (n, d/2), complex."""
    q, k = _require_rows(q, "q"), _require_rows(k, "k")
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same shape, got {q.shape} and {k.shape}")
    return (q[:, 0::2] + 1j * q[:, 1::2]) * np.conj(k[:, 0::2] + 1j * k[:, 1::2])


def rotary_sum(h: np.ndarray, distances: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Σ_i h_i·e^{iΔθ_i} for every row of h and every distance Δ: shape (n, len(distances)), complex."""
    h, distances, theta = _require_sum_inputs(h, distances, theta)
    return h @ np.exp(1j * theta[:, None] * distances[None, :])


def phase_partial_sums(distances: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """S_j = Σ_{l<j} e^{iΔθ_l} for j = 1, …, d/2 and every distance Δ: shape (len(distances), d/2)."""
    distances = require_positions(distances, "distances").reshape(-1)
    theta = _require_frequencies(theta)
    return np.cumsum(np.exp(1j * distances[:, None] * theta[None, :]), axis=1)


def relative_upper_bound(distances: np.ndarray, d: int = 128, base: float = 10000.0) -> np.ndarray:
    """The curve of RoFormer's Figure 2: (1/(d/2))·Σ_{j=1}^{d/2} |S_j| at each distance."""
    theta = rope_frequencies(d, base)
    return np.mean(np.abs(phase_partial_sums(distances, theta)), axis=1)


def relative_upper_bound_error(distances: np.ndarray, d: int = 128, base: float = 10000.0) -> float:
    """A float64 bound on each value of `relative_upper_bound`: its partial sums add up to d/2 complex terms
    e^(iΔθ), each a cos and a sin of an angle up to max Δ (θ_0 = 1)."""
    return angle_tolerance(float(np.max(distances)), terms=d, base=base)


#: Bits of the balls of `relative_upper_bound_arb`.
BALL_BITS = 128


def relative_upper_bound_arb(
    distances: Iterable[int], d: int = 128, base: int | float = 10000, prec: int = BALL_BITS
) -> tuple[flint.arb, ...]:
    """Balls containing the curve of RoFormer's Figure 2, (1/(d/2))·Σ_{j=1}^{d/2} |S_j|, at each integer
    distance: θ_i from `frequencies_arb` and every e^(iΔθ_l), partial sum and modulus in ball arithmetic at
    `prec` bits (at Δ = 0 every term is exactly 1, so the ball is the exact (d/2 + 1)/2)."""
    half = require_even_dimension(d) // 2
    prec = require_positive_int(prec, "prec")
    integers = [_require_integer(delta, "distances") for delta in distances]
    values = []
    with flint.ctx.workprec(prec):
        theta = frequencies_arb(d, base, count=half)
        for delta in integers:
            partial, total = flint.acb(0), flint.arb(0)
            for t in theta:
                partial += flint.acb(0, delta * t).exp()
                total += abs(partial)
            values.append(total / half)
    return tuple(values)


def ball_midpoints(balls: Iterable[flint.arb]) -> tuple[np.ndarray, float]:
    """The balls' midpoints as float64, and one bound on |midpoint − exact value| for all of them: the
    largest radius plus the rounding of a midpoint to float64."""
    balls = tuple(balls)
    if not balls or not all(isinstance(ball, flint.arb) and ball.is_finite() for ball in balls):
        raise ValueError("balls must be a non-empty sequence of finite flint.arb balls")
    values = np.array([float(ball.mid()) for ball in balls])
    radius = max(float(ball.rad()) for ball in balls)
    return values, radius * (1 + EPS64) + EPS64 * float(np.max(np.abs(values)))


def abel_bound(h: np.ndarray, distances: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """(max_j |h_{j+1} − h_j|, with h_{d/2} = 0) · Σ_{j=1}^{d/2} |S_j|: shape (n, len(distances))."""
    h, distances, theta = _require_sum_inputs(h, distances, theta)
    padded = np.concatenate([h, np.zeros((h.shape[0], 1))], axis=1)
    largest_step = np.max(np.abs(np.diff(padded, axis=1)), axis=1)
    return largest_step[:, None] * np.sum(np.abs(phase_partial_sums(distances, theta)), axis=1)[None, :]


def check_abel_bound(bound: Bound, h: np.ndarray, distances: np.ndarray, theta: np.ndarray) -> CheckResult:
    """|Σ_i h_i e^{iΔθ_i}| ≤ bound(h, Δ, θ) for every row of h and every distance Δ.

    Tolerance: both sides sum d/2 terms built from angles up to max |Δ|·max θ, so each is off by at most
    angle_tolerance(that angle, d/2) times its own scale (Σ|h_i| for the sum, the bound itself for the bound).
    """
    h, distances, theta = _require_sum_inputs(h, distances, theta)
    lhs = np.abs(rotary_sum(h, distances, theta))
    rhs = np.asarray(bound(h.copy(), distances.copy(), theta.copy()), dtype=np.float64)
    if rhs.shape != lhs.shape:
        raise ValueError(f"the bound must return shape {lhs.shape} (rows × distances), returned {rhs.shape}")
    per_term = angle_tolerance(float(np.max(np.abs(distances)) * np.max(theta)), terms=theta.size)
    scale = np.sum(np.abs(h), axis=1)[:, None] + np.abs(rhs)
    excess = np.where(np.isfinite(rhs), lhs - rhs - per_term * scale, np.inf)
    row, column = np.unravel_index(int(np.argmax(excess)), excess.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(rhs > 0, lhs / rhs, np.inf)
    return CheckResult(
        "Abel bound |Σ h_i e^{iΔθ_i}| ≤ (max |h_{j+1} − h_j|)·Σ_j |S_j|",
        bool(np.max(excess) <= 0.0),
        float(max(np.max(lhs - rhs), 0.0)),
        float(np.max(per_term * scale)),
        {
            "row": int(row),
            "distance": float(distances[column]),
            "sum": float(lhs[row, column]),
            "bound": float(rhs[row, column]),
            "largest_ratio": float(np.max(ratio)),
        },
    )


@dataclass(frozen=True)
class DecayProfile:
    """How a curve sampled at consecutive distances falls: its rises and the maxima of equal windows."""

    start: float
    end: float
    rises: int
    steps: int
    largest_rise: float
    largest_rise_at: int
    window: int
    window_maxima: tuple[float, ...]
    first_rise_at: int | None = None

    @property
    def monotone(self) -> bool:
        """No step goes up."""
        return self.rises == 0

    @property
    def windows_decrease(self) -> bool:
        """Each window's maximum is below the previous window's."""
        return all(b < a for a, b in zip(self.window_maxima, self.window_maxima[1:], strict=False))


def decay_profile(curve: np.ndarray, window: int) -> DecayProfile:
    """The rises of `curve` (steps i → i+1 that go up), the first and the largest one, and the maxima of
    consecutive windows of `window` samples (a remainder shorter than a window joins the last window)."""
    values = np.asarray(curve, dtype=np.float64).reshape(-1)
    window = require_positive_int(window, "window")
    if values.size < 2 or not np.all(np.isfinite(values)):
        raise ValueError(f"curve must hold at least 2 finite values, got {values.size}")
    steps = np.diff(values)
    edges = [*range(0, window * max(values.size // window, 1), window), values.size]
    maxima = [float(values[a:b].max()) for a, b in itertools.pairwise(edges)]
    rise_at = int(np.argmax(steps))
    rises = np.flatnonzero(steps > 0)
    return DecayProfile(
        float(values[0]),
        float(values[-1]),
        int(np.sum(steps > 0)),
        int(steps.size),
        float(max(steps[rise_at], 0.0)),
        rise_at,
        window,
        tuple(maxima),
        int(rises[0]) if rises.size else None,
    )


def check_mean_score_vanishes(
    q: np.ndarray,
    k: np.ndarray,
    distances: np.ndarray,
    theta: np.ndarray,
    score_sd: float,
    sigmas: float = 5.0,
) -> CheckResult:
    """The sample mean of the interleaved RoPE scores Re Σ_i h_i e^{iΔθ_i} over the rows (q, k) lies within
    `sigmas` standard errors of 0 at every distance Δ, the standard error being `score_sd`/√n for n rows
    (`score_sd`: the standard deviation of one score, √d for standard Gaussian q and k).

    The error is stated in standard errors, the largest |mean|/(score_sd/√n) over the distances. Against
    `sigmas` ≥ 1 standard errors, float64's own error in the mean (at most `angle_tolerance` of the largest
    angle times the scale Σ_i |h_i| of a score) is negligible for any sample this check is run on.
    """
    h = pair_products(q, k)
    distances = require_positions(distances, "distances").reshape(-1)
    score_sd, sigmas = require_positive_real(score_sd, "score_sd"), require_positive_real(sigmas, "sigmas")
    if h.shape[0] < 2:
        raise ValueError(f"the sample must hold at least 2 rows (q, k), got {h.shape[0]}")
    mean = np.mean(rotary_sum(h, distances, theta).real, axis=0)
    error = score_sd / math.sqrt(h.shape[0])
    ratio = np.abs(mean) / error
    worst = int(np.argmax(ratio))
    return CheckResult(
        "sample mean of the RoPE score within the standard error bound of 0 at every distance",
        bool(np.all(ratio <= sigmas)),
        float(ratio[worst]),
        float(sigmas),
        {"distance": float(distances[worst]), "mean": float(mean[worst]), "standard_error": error},
    )


def _require_integer(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be integers, got {value!r}")
    return int(value)


def _require_rows(x: object, name: str) -> np.ndarray:
    array = np.asarray(x)
    if array.dtype.kind not in "iuf" or array.dtype == np.bool_ or array.ndim != 2 or array.shape[0] == 0:
        raise ValueError(f"{name} must be an (n, d) array of real numbers with n ≥ 1, got {array.shape}")
    require_even_dimension(array.shape[1], f"the vector length d of {name}")
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite; got NaN or infinity")
    return array


def _require_frequencies(theta: object) -> np.ndarray:
    array = np.asarray(theta)
    if array.dtype.kind not in "iuf" or array.ndim != 1 or array.size == 0:
        raise ValueError(f"theta must be a non-empty 1-D array of real frequencies, got shape {array.shape}")
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError("theta must be finite positive frequencies")
    return array


def _require_sum_inputs(
    h: object, distances: object, theta: object
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    theta = _require_frequencies(theta)
    values = np.asarray(h)
    if values.dtype.kind not in "iufc" or values.ndim != 2 or values.shape[1] != theta.size:
        raise ValueError(f"h must be an (n, {theta.size}) array, one value per frequency; got {values.shape}")
    values = values.astype(np.complex128)
    if not np.all(np.isfinite(values)):
        raise ValueError("h must be finite; got NaN or infinity")
    return values, require_positions(distances, "distances").reshape(-1), theta
