"""Position interpolation's error bounds (Chen, Wong, Chen & Tian 2023, arXiv 2306.15595, §2.3 and Appendices
A–B) and the critical dimension of RoPE extrapolation (Liu et al. 2023, arXiv 2310.05209), in ball arithmetic.

**Position interpolation.** With θ_j = c^(−2j/d) and complex coefficients h_j = (q_2j + i·q_2j+1)·(k_2j −
i·k_2j+1), the RoPE score at relative distance s is a(s) = Re Σ_{j<d/2} h_j e^{isθ_j}. Theorem 2.1 bounds the
gap between a(s) and the line a_lin(s) through (s_1, a(s_1)) and (s_2, a(s_2)):

    |a(s) − a_lin(s)| ≤ d·(max_j |h_j|)·(s − s_1)(s_2 − s)/(8 ln c),

which on a unit step of the integer grid ((s − s_1)(s_2 − s) ≤ 1/4) is d·max|h|/(32 ln c), eq. (7). The
proof (Appendix A) bounds |a''| by max|h|·Σ_j θ_j² = max|h|·(1 − c^(−2))/(1 − c^(−4/d)) (eqs. 12–13, correct)
and then by max|h|·d/(4 ln c), citing c^x ≤ 1 + x ln c for x < 0 (eq. 14). The exponential lies above every
tangent line, c^x ≥ 1 + x ln c for every real x, so that step is reversed, and Σ_j θ_j² exceeds d/(4 ln c).

The worst case at the midpoint of a unit step (s_1 = 0, s_2 = 1, s = 1/2) is exact: a(s) − a_lin(s) is
Re Σ_j h_j·(e^{iθ_j/2} − (1 + e^{iθ_j})/2) = Re Σ_j h_j·e^{iθ_j/2}(1 − cos(θ_j/2)), so over |h_j| ≤ 1 its
largest value is Σ_j (1 − cos(θ_j/2)), reached by h_j = e^{−iθ_j/2} (query pair (cos(θ_j/2), −sin(θ_j/2)),
key pair (1, 0)).

The extrapolation bound (RoFormer §3.4.3, eq. 8) is 2·max|h|·B(s) with B(s) = Σ_{k=1}^{d/2} |A_k(s)| and
A_k(s) = Σ_{j<k} e^{isθ_j}; the paper takes B(s) ≥ d "numerically" (Figure 5 plots B(s)/d for s < 2L = 4096),
which makes the ratio of the two bounds at least 2d/(d/(32 ln c)) = 64 ln c.

**Critical dimension.** Pair n (dims 2n, 2n + 1) turns with period 2π/θ_n = 2π·b^(2n/d); the period fits in
the training length T iff n ≤ x = (d/2)·log_b(T/2π). For x not an integer the pairs n = 0, …, ⌈x⌉ − 1 fit and
the others do not, which is Liu et al.'s d_extra = 2⌈x⌉ dims.

Everything is an arb ball at the current flint precision, and every comparison is certified: a ball that
contains the threshold raises `ValueError` instead of guessing. The one float64 function, `scan_floor_float`,
states an a-priori bound on its error.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import flint
import numpy as np

from ..encodings.frequencies import frequencies_arb, frequency_arb
from ..numerics.validation import require_base, require_even_dimension, require_positive_int
from .long_term_decay import relative_upper_bound, relative_upper_bound_error

Bound = Callable[[int, int], flint.arb]

# ---------------------------------------------------------------------------------------------------------
# Decisions
# ---------------------------------------------------------------------------------------------------------


def is_below(ball: flint.arb, threshold: flint.arb | int | Fraction) -> bool:
    """Whether ball < threshold, certified: raise when the ball meets the threshold."""
    limit = _arb(threshold)
    if ball < limit:
        return True
    if ball > limit:
        return False
    raise ValueError(f"cannot decide {ball} against {limit} at {flint.ctx.prec} bits")


def rounds_to(ball: flint.arb, printed: str, significant: int | None = None) -> bool:
    """Whether the ball's value, rounded as `printed` is (to its decimal places, or to `significant`
    significant figures), is `printed`: the ball lies inside the rounding interval (or outside it)."""
    value = Decimal(printed)
    if significant is None:
        unit = Fraction(10) ** value.as_tuple().exponent
    else:
        unit = Fraction(10) ** (value.adjusted() - require_positive_int(significant, "significant") + 1)
    exact = Fraction(value)
    low, high = exact - unit / 2, exact + unit / 2
    return not is_below(ball, low) and is_below(ball, high)


def one_significant_figure(ball: flint.arb) -> int:
    """The ball's value rounded to one significant figure (e.g. 518.3… → 500), certified for every point of
    the ball (positive balls only)."""
    if not is_below(flint.arb(0), ball):
        raise ValueError(f"need a positive ball, got {ball}")
    candidate = int(Decimal(format(float(ball.mid()), ".0e")))
    if not rounds_to(ball, str(candidate), significant=1):
        raise ValueError(f"{ball} does not round to one significant figure at {flint.ctx.prec} bits")
    return candidate


def _arb(value: flint.arb | int | Fraction) -> flint.arb:
    if isinstance(value, flint.arb):
        return value
    exact = Fraction(value)
    return flint.arb(flint.fmpq(exact.numerator, exact.denominator))


# ---------------------------------------------------------------------------------------------------------
# Position interpolation: the theorem, its proof's constants and the exact worst case
# ---------------------------------------------------------------------------------------------------------


def thetas(d: int, base: int) -> list[flint.arb]:
    """θ_j = base^(−2j/d), j < d/2, as arb balls."""
    return frequencies_arb(require_even_dimension(d), _require_int_base(base), count=d // 2)


def theorem_constant(d: int, base: int) -> flint.arb:
    """Theorem 2.1 on a unit step, eq. (7): |a(s) − a_lin(s)|/max|h| ≤ d/(32 ln c)."""
    return flint.arb(require_even_dimension(d)) / (32 * flint.arb(_require_int_base(base)).log())


def proof_constant(d: int, base: int) -> flint.arb:
    """The proof's bound on |a''|/max|h|, eq. (15): d/(4 ln c)."""
    return flint.arb(require_even_dimension(d)) / (4 * flint.arb(_require_int_base(base)).log())


def curvature_constant(d: int, base: int) -> flint.arb:
    """Σ_j θ_j²: the largest |a''(s)|/max|h| (eq. 12 with equality at s = 0, h_j = 1)."""
    return sum((theta * theta for theta in thetas(d, base)), flint.arb(0))


def tangent_step(d: int, base: int) -> tuple[flint.arb, flint.arb]:
    """Both sides of the proof's eq. (14): c^(−4/d) and 1 − (4/d)·ln c (the proof needs the first ≤ the
    second; c^(−4/d) is θ_2, a frequency of the same table)."""
    d = require_even_dimension(d)
    c = _require_int_base(base)
    return frequency_arb(2, d, c), 1 - 4 * flint.arb(c).log() / d


def midpoint_worst_case(d: int, base: int) -> flint.arb:
    """Σ_j (1 − cos(θ_j/2)): the largest |a(1/2) − a_lin(1/2)| over |h_j| ≤ 1 on the step [0, 1]."""
    return sum((1 - (theta / 2).cos() for theta in thetas(d, base)), flint.arb(0))


def worst_case_query_key(d: int, base: int) -> tuple[list[flint.arb], list[flint.arb]]:
    """A query and a key (interleaved pairs) whose coefficients are h_j = e^{−iθ_j/2}: query pair j is
    (cos(θ_j/2), −sin(θ_j/2)), key pair j is (1, 0). Every |h_j| is 1."""
    query: list[flint.arb] = []
    for theta in thetas(d, base):
        sine, cosine = (theta / 2).sin_cos()
        query += [cosine, -sine]
    key = [flint.arb(1), flint.arb(0)] * (d // 2)
    return query, key


def pair_coefficients(query: list[flint.arb], key: list[flint.arb]) -> list[flint.acb]:
    """h_j = (q_2j + i·q_2j+1)·(k_2j − i·k_2j+1) for every pair j (the paper's eq. 3)."""
    if len(query) != len(key) or len(query) % 2:
        raise ValueError(f"query and key must have the same even length, got {len(query)} and {len(key)}")
    return [
        flint.acb(query[2 * j], query[2 * j + 1]) * flint.acb(key[2 * j], -key[2 * j + 1])
        for j in range(len(query) // 2)
    ]


def score(h: list[flint.acb], s: Fraction, d: int, base: int) -> flint.arb:
    """a(s) = Re Σ_j h_j·e^{isθ_j}."""
    frequencies = thetas(d, base)
    if len(h) != len(frequencies):
        raise ValueError(f"h must hold one coefficient per pair ({len(frequencies)}), got {len(h)}")
    distance = _arb(s)
    terms = zip(h, frequencies, strict=True)
    return sum(
        (coefficient * flint.acb(0, distance * theta).exp() for coefficient, theta in terms), flint.acb(0)
    ).real


def interpolation_error(
    h: list[flint.acb], s1: Fraction, s2: Fraction, s: Fraction, d: int, base: int
) -> flint.arb:
    """|a(s) − a_lin(s)| with a_lin(s) = (1 − λ)·a(s_1) + λ·a(s_2), λ = (s − s_1)/(s_2 − s_1) (eq. 6)."""
    s1, s2, s = Fraction(s1), Fraction(s2), Fraction(s)
    if not s1 <= s <= s2 or s1 == s2:
        raise ValueError(f"need s_1 ≤ s ≤ s_2 and s_1 < s_2, got {s1}, {s}, {s2}")
    weight = _arb((s - s1) / (s2 - s1))
    line = (1 - weight) * score(h, s1, d, base) + weight * score(h, s2, d, base)
    return abs(score(h, s, d, base) - line)


@dataclass(frozen=True)
class MidpointCheck:
    """A claimed bound on |a(s) − a_lin(s)|/max|h| at s = 1/2 on the step [0, 1], against the worst
    coefficients: the error they give (from the definition of a), the claimed bound, and whether the
    error is certified within it."""

    error: flint.arb
    bound: flint.arb
    holds: bool


def check_midpoint_bound(bound: Bound, d: int, base: int) -> MidpointCheck:
    """Whether bound(d, base) bounds the interpolation error of h_j = e^{−iθ_j/2} (max|h| = 1) at the
    midpoint of the step [0, 1]; the error is computed from a(s) itself, not from its closed form."""
    h = pair_coefficients(*worst_case_query_key(d, base))
    error = interpolation_error(h, Fraction(0), Fraction(1), Fraction(1, 2), d, base)
    claimed = bound(d, base)
    return MidpointCheck(error, claimed, not is_below(claimed, error))


# ---------------------------------------------------------------------------------------------------------
# The extrapolation bound's B(s)
# ---------------------------------------------------------------------------------------------------------


def extrapolation_sum(s: int, frequencies: list[flint.arb]) -> flint.arb:
    """B(s) = Σ_{k=1}^{d/2} |A_k(s)|, A_k(s) = Σ_{j<k} e^{isθ_j}, for the given θ_j."""
    terms = []
    for theta in frequencies:
        sine, cosine = (s * theta).sin_cos()
        terms.append(flint.acb(cosine, sine))
    return sum(map(abs, itertools.accumulate(terms)), flint.arb(0))


def extrapolation_ratios(d: int, base: int, distances: range) -> Iterator[tuple[int, flint.arb]]:
    """(s, B(s)/d) for every s of `distances` (non-negative integers), in order."""
    frequencies = thetas(d, base)
    for s in distances:
        if s < 0:
            raise ValueError(f"distances must be non-negative, got {s}")
        yield s, extrapolation_sum(s, frequencies) / d


@dataclass(frozen=True)
class Floor:
    """B(s)/d over a range of distances: its smallest value and where, and whether B(s) ≥ d throughout."""

    distances: range
    smallest: flint.arb
    smallest_at: int
    holds: bool


def extrapolation_floor(d: int, base: int, distances: range) -> Floor:
    """The smallest B(s)/d over `distances` (certified to be the smallest: no other ball overlaps it) and
    whether every B(s)/d is certified ≥ 1."""
    ratios = list(extrapolation_ratios(d, base, distances))
    if not ratios:
        raise ValueError("distances must not be empty")
    at, smallest = min(ratios, key=lambda item: item[1].mid())
    if any(s != at and not is_below(smallest, ratio) for s, ratio in ratios):
        raise ValueError(f"the smallest B(s)/d is not certified at {flint.ctx.prec} bits")
    return Floor(distances, smallest, at, all(not is_below(ratio, 1) for _, ratio in ratios))


def first_below(d: int, base: int, distances: range) -> tuple[int, flint.arb] | None:
    """The first s of `distances` with B(s) < d, certified, with B(s)/d there (None when there is none)."""
    return next(
        ((s, ratio) for s, ratio in extrapolation_ratios(d, base, distances) if is_below(ratio, 1)), None
    )


@dataclass(frozen=True)
class FloorScan:
    """B(s)/d at s = 0, …, last in float64, each value within `error` of the exact one: how many fall below 1,
    the first that does, the smallest and where, and whether `error` decides all of it (no value within
    `error` of 1, no other value within 2·`error` of the smallest)."""

    last: int
    below: int
    first_below: int | None
    smallest: float
    smallest_at: int
    error: float
    decided: bool


def scan_floor_float(d: int, base: int, last: int) -> FloorScan:
    """B(s)/d for s = 0, …, last in float64: RoFormer's relative upper bound (1/(d/2))·B(s), halved, with
    its a-priori error bound (`relative_upper_bound_error`), halved too."""
    distances = np.arange(require_positive_int(last, "last") + 1)
    ratios = relative_upper_bound(distances, require_even_dimension(d), float(_require_int_base(base))) / 2
    error = relative_upper_bound_error(distances, d, float(base)) / 2
    below = np.nonzero(ratios < 1)[0]
    order = np.argsort(ratios, kind="stable")
    decided = bool(np.all(np.abs(ratios - 1) > error) and ratios[order[1]] - ratios[order[0]] > 2 * error)
    return FloorScan(
        last,
        int(below.size),
        int(below[0]) if below.size else None,
        float(ratios[order[0]]),
        int(order[0]),
        error,
        decided,
    )


# ---------------------------------------------------------------------------------------------------------
# The critical dimension (Liu et al. 2023)
# ---------------------------------------------------------------------------------------------------------


def critical_exponent(d: int, base: int, train_length: int) -> flint.arb:
    """x = (d/2)·log_b(T/2π): the largest pair index whose period 2π·b^(2n/d) fits in T, as a real."""
    d, base = require_even_dimension(d), _require_int_base(base)
    quotient = flint.arb(require_positive_int(train_length, "train_length")) / (2 * flint.arb.pi())
    return flint.arb(d // 2) * quotient.log() / flint.arb(base).log()


def critical_dimension(d: int, base: int, train_length: int) -> int:
    """d_extra = 2⌈(d/2)·log_b(T/2π)⌉, the ceiling certified (it raises when x may be an integer)."""
    ceiling = critical_exponent(d, base, train_length).ceil().unique_fmpz()
    if ceiling is None:
        raise ValueError(f"⌈x⌉ is not certified at {flint.ctx.prec} bits (x may be an integer)")
    return 2 * int(ceiling)


def pair_periods(d: int, base: int) -> list[flint.arb]:
    """2π/θ_n for every pair n < d/2."""
    two_pi = 2 * flint.arb.pi()
    return [two_pi / theta for theta in thetas(d, base)]


@dataclass(frozen=True)
class PeriodSplit:
    """Which pairs complete a full period within T: the claimed dimension, the number of dims whose pair's
    period is ≤ T, the longest such period and the shortest longer one (None where there is none), and
    whether the claimed dimension is exactly those dims, the pairs below it and no other."""

    claimed: int
    complete_dims: int
    longest_complete: flint.arb | None
    shortest_incomplete: flint.arb | None
    holds: bool


def check_critical_dimension(claimed: int, d: int, base: int, train_length: int) -> PeriodSplit:
    """Whether the first `claimed` dims (pairs n < claimed/2) are exactly those whose period 2π/θ_n fits in
    T = `train_length`, each comparison certified."""
    length = flint.arb(require_positive_int(train_length, "train_length"))
    periods = pair_periods(d, base)
    complete = [n for n, period in enumerate(periods) if not is_below(length, period)]
    beyond = [n for n in range(len(periods)) if n not in complete]
    longest = periods[complete[-1]] if complete else None
    shortest = periods[beyond[0]] if beyond else None
    prefix = complete == list(range(len(complete)))
    return PeriodSplit(claimed, 2 * len(complete), longest, shortest, prefix and claimed == 2 * len(complete))


def _require_int_base(base: object) -> int:
    """The base as an int (exact in arb at any size): the published configurations use integer bases."""
    require_base(base)
    if isinstance(base, bool) or not float(base).is_integer():
        raise ValueError(f"base must be an integer greater than 1, got {base!r}")
    return int(base)
