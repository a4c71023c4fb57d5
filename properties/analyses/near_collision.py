"""Near collisions of the sinusoidal encoding: the closest values in different dims, and the closest vectors.

PE(p, 2i) = sin(p·ω_i), PE(p, 2i+1) = cos(p·ω_i), ω_i = base^(−2i/d); dims are counted from 0, dim j has
frequency index j // 2. Two questions are answered by computation over finite ranges:

* **Values.** Over positions 0 ≤ p < N, which pair (p1, j1), (p2, j2) with p1 ≠ p2, j1 ≠ j2 and {j1, j2} not
  in a given exclusion comes closest, and how close? A sort-based scan finds every candidate in float64, the
  candidates are re-ranked at ≥ 50 digits with mpmath, and `certify_cross_dimension_gap` proves a lower
  bound with ball arithmetic (python-flint `arb`).
* **Vectors.** ‖PE(p) − PE(q)‖² = Σ_i 4 sin²(kω_i/2) depends only on k = q − p (d even), so the closest pair
  of distinct positions below N is found among the offsets 1 ≤ k < N, evaluated in blocks by angle addition.

Float64 values are computed by an exact reduction of p·ω_i/2π modulo 1 in 64-bit fixed point
(`sin_cos_at_integers`), so each value is within `VALUE_ERROR` of the true one at every position < 2**32;
plain float64 (`sin(p·ω)`) is off by up to about p·ε, far too much to rank gaps near 1e−16.

Every scan and check takes the encoding as a `sinusoidal.Sinusoidal` and reads its forms: `rows` with the
bound `error`, `value_mp` (re-ranking; None in a twin: float64 only) and `row_balls` (the certificate).
"""

from __future__ import annotations

import functools
import math
import numbers
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath
import numpy as np

from ..encodings.frequencies import frequencies_mp as _frequencies_mp
from ..encodings.sinusoidal import FIXED_POINT_DPS, MAX_POSITION, VALUE_ERROR, Sinusoidal, sin_cos_at_integers
from ..numerics.checking import CheckResult, angle_tolerance
from ..numerics.validation import (
    require_base,
    require_even_dimension,
    require_positive_int,
    require_positive_real,
)

#: Digits below which the re-ranking cannot tell a gap from zero or two gaps apart: 10^(GUARD_DIGITS − dps).
GUARD_DIGITS = 5

#: Evidence kinds of a re-ranked nearest pair (`NearestPair.evidence`, `NearRepeats.evidence`).
CONFIRMED = "confirmed"  # the nearest gap is positive and below every other candidate's at `dps` digits
TIE = "tie"  # another candidate has the same gap to `dps` digits (both are reported among the candidates)
ZERO = "zero"  # the gap is below 10^(GUARD_DIGITS − dps): an exact coincidence is possible, not shown
FLOAT64 = "float64"  # no high-precision values available: ranked by float64 alone

_U = 2.0**-53  # unit roundoff of float64
_CHUNK = 2**16  # elements per vectorised pass: small temporaries are reused, large ones page-fault anew
_ROW_CHUNK = 2**21  # values per call of encoding.rows (the frequencies and their turn limbs are cached)
_WINDOW_RANK = 4096  # the first candidate window: about the 4096-th least positive adjacent gap
_PROBE = 1024  # adjacent gaps tried first for the least valid one (`_least_adjacent_valid_gap`)


# ---------------------------------------------------------------------------------------------------------
# Frequencies at the exact reduction's precision (`sinusoidal.sin_cos_at_integers`)
# ---------------------------------------------------------------------------------------------------------


def frequencies_mp(d: int, base: float = 10000.0) -> list[mpmath.mpf]:
    """The ⌈d/2⌉ frequencies ω_i = base^(−2i/d) at the fixed-point reduction's 60 digits (base as given)."""
    return _frequencies_mp(d, require_base(base), FIXED_POINT_DPS)


# ---------------------------------------------------------------------------------------------------------
# Valid pairs
# ---------------------------------------------------------------------------------------------------------

Exclusion = np.ndarray | Callable[[int, int], bool] | None


def invalid_dimension_pairs(d: int, exclude: Exclusion = None) -> np.ndarray:
    """The symmetric d×d boolean mask of dim pairs never paired: the diagonal (j1 = j2) and the exclusion.

    `exclude` is a d×d boolean mask or a predicate exclude(j1, j2) (called once per pair j1 < j2); a pair is
    left out when either order is marked.
    """
    d = require_positive_int(d, "d")
    if exclude is None:
        mask = np.zeros((d, d), dtype=bool)
    elif callable(exclude):
        mask = np.zeros((d, d), dtype=bool)
        for j1 in range(d):
            for j2 in range(j1 + 1, d):
                mask[j1, j2] = bool(exclude(j1, j2))
    else:
        mask = np.asarray(exclude)
        if mask.shape != (d, d) or mask.dtype != np.bool_:
            raise ValueError(
                f"exclude must be a {d}×{d} boolean mask or a predicate of two dims, "
                f"got an array of shape {mask.shape} and dtype {mask.dtype}"
            )
    return mask | mask.T | np.eye(d, dtype=bool)


def valid_pair_count(n: int, d: int, exclude: Exclusion = None) -> int:
    """The number of unordered valid pairs: V·n(n − 1), V = number of dim pairs j1 < j2 not excluded."""
    n = require_positive_int(n, "n")
    allowed = ~invalid_dimension_pairs(d, exclude)
    return int(np.triu(allowed).sum()) * n * (n - 1)


def _require_pairs_exist(n: int, d: int, invalid: np.ndarray) -> None:
    if n < 2 or invalid.all():
        raise ValueError(
            f"no valid pair exists for n={n}, d={d} with this exclusion: a pair needs two positions "
            "(n ≥ 2) and two dims whose pair is not excluded"
        )


def _is_valid(first: np.ndarray, second: np.ndarray, d: int, invalid_flat: np.ndarray) -> np.ndarray:
    """Whether the flat labels p·d + j of each pair are at different positions and allowed dims."""
    first, second = first.astype(np.int64), second.astype(np.int64)
    pairs = (first % d) * d + second % d
    return (first // d != second // d) & ~invalid_flat[pairs]


# ---------------------------------------------------------------------------------------------------------
# Nearest cross-dimension pair
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NearPair:
    """Two entries (position, dim) and their distance: `gap` at high precision, `float_gap` in float64."""

    first: tuple[int, int]
    second: tuple[int, int]
    gap: mpmath.mpf
    float_gap: float


@dataclass(frozen=True)
class NearestPair:
    """The nearest valid pair over positions < n, with every candidate that could have been it.

    `candidates` are all valid pairs whose float64 gap is at most `float_threshold` (the smallest float64
    gap plus 4·value_error, see `nearest_cross_dimension_pair`), sorted by their `dps`-digit gaps;
    `nearest` is the first. `evidence` is one of CONFIRMED, TIE, ZERO, FLOAT64.
    """

    n: int
    d: int
    base: float
    nearest: NearPair
    candidates: tuple[NearPair, ...]
    evidence: str
    dps: int
    value_error: float
    float_threshold: float


def _threshold(best: float, slack: float) -> float:
    """Largest float gap a candidate may have; the factor 1 + 4u covers the rounded subtractions."""
    return (best + slack) * (1.0 + 4 * _U)


def _labelled_values(n: int, encoding: Sinusoidal) -> np.ndarray:
    """All n·d float64 values v with their flat labels ℓ = p·d + j as complex numbers v + iℓ (ℓ < 2^53 is
    exact), in label order; `encoding.rows` is called on about `_ROW_CHUNK` values at a time."""
    d = encoding.d
    entries = np.empty(n * d, dtype=np.complex128)
    grid = entries.real.reshape(n, d)
    step = max(1, _ROW_CHUNK // d)
    for start in range(0, n, step):
        stop = min(n, start + step)
        rows = np.asarray(encoding.rows(np.arange(start, stop)), dtype=np.float64)
        if rows.shape != (stop - start, d) or not np.all(np.isfinite(rows)):
            raise ValueError(f"encoding.rows must return finite values of shape ({stop - start}, {d})")
        grid[start:stop] = rows
        entries.imag[start * d : stop * d] = np.arange(start * d, stop * d)
    return entries


def _row_values(n: int, encoding: Sinusoidal) -> np.ndarray:
    """All n·d float64 values, flat index p·d + j."""
    return _labelled_values(n, encoding).real.copy()


def _label_dtype(size: int) -> type:
    return np.int32 if size < 2**31 else np.int64


Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]  # (a, b, gap) arrays of `close_valid_pairs`


def _scan_arrays(
    n: int, encoding: Sinusoidal, invalid: np.ndarray, slack: float, floor: float = 0.0
) -> tuple[np.ndarray, np.ndarray, Pairs]:
    """Sorted values and labels holding every valid pair within max(threshold(B, slack), floor) — the
    candidate window of `_candidate_values` — and their `close_valid_pairs`."""
    entries = _labelled_values(n, encoding)
    entries.sort()
    return _candidate_values(entries, encoding.d, invalid, slack, floor)


def _window(entries: np.ndarray, window: float) -> tuple[np.ndarray, np.ndarray]:
    """The values of the sorted `entries` (v + iℓ) with a neighbour at most `window` away, and their labels
    (int32 when they fit)."""
    slots = _slots_within(entries.real, window)
    return entries.real[slots], entries.imag[slots].astype(_label_dtype(entries.size))


def _candidate_values(
    entries: np.ndarray, d: int, invalid: np.ndarray, slack: float, floor: float
) -> tuple[np.ndarray, np.ndarray, Pairs]:
    """The values with a sorted neighbour within a window W ≥ max(threshold(B, slack), floor), sorted, with
    their labels and their `close_valid_pairs`; `entries` are the values with their labels, v + iℓ, sorted by
    value and then label. Why the window holds every pair the full scan reports: docs/methods.md, "Method
    notes"."""
    window = max(floor, _threshold(_kth_least_positive_adjacent_gap(entries.real, _WINDOW_RANK), slack))
    for _ in range(2):
        candidates, labels = _window(entries, window)
        pairs = close_valid_pairs(candidates, labels, d, invalid, slack)
        best = float(pairs[2].min()) if pairs[2].size else math.inf
        needed = max(_threshold(best, slack), floor)
        if needed <= window:
            return candidates, labels, pairs
        window = needed
    raise AssertionError("the second window is threshold(B') ≥ threshold(B) or all values: it suffices")


def _kth_least_positive_adjacent_gap(m: np.ndarray, k: int) -> float:
    """About the k-th least positive adjacent gap m_{i+1} − m_i (0 if none): a first window only (any value
    is sound). Zero gaps are left out: equal values are candidates in any window, and a window of zero would
    have to grow once the least valid gap turns out positive."""
    if m.size < 2:
        return 0.0
    stride = max(1, (m.size - 1) // (64 * k))
    gaps = m[1::stride] - m[: m.size - 1 : stride]
    gaps = gaps[gaps > 0]
    if not gaps.size:
        return 0.0
    rank = min(gaps.size, max(1, (k + stride - 1) // stride))
    return float(np.partition(gaps, rank - 1)[rank - 1])


def _slots_within(m: np.ndarray, window: float) -> np.ndarray:
    """The sorted positions i with a neighbour (i − 1 or i + 1) at most `window` away (int32 if it fits)."""
    parts = [np.zeros(0, dtype=_label_dtype(m.size))]
    for start in range(0, m.size - 1, _CHUNK):
        stop = min(m.size - 1, start + _CHUNK)
        close = m[start + 1 : stop + 1] - m[start:stop] <= window
        slot = np.zeros(close.size + 1, dtype=bool)
        slot[:-1] = close
        slot[1:] |= close
        parts.append((start + np.flatnonzero(slot)).astype(parts[0].dtype))
    slots = np.concatenate(parts)
    if slots.size > 1:  # the previous chunk may have ended at `start` already
        slots = slots[np.concatenate(([True], slots[1:] != slots[:-1]))]
    return slots


def close_valid_pairs(
    m: np.ndarray, labels: np.ndarray, d: int, invalid: np.ndarray, slack: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every valid pair (a, b), a < b in sorted order, with m_b − m_a ≤ threshold(B, slack), B the least gap.

    `m` is sorted ascending, `labels` are the flat labels p·d + j, `invalid` the d×d mask of dim pairs never
    paired. Returns (a, b, gap) arrays. Why the scan finds the minimum and every pair: docs/methods.md,
    "Method notes".
    """
    best = _least_adjacent_valid_gap(m, labels, d, invalid)
    a, b, gaps = _valid_pairs_within(m, labels, d, invalid, lambda least: _threshold(least, slack), best)
    keep = gaps <= _threshold(float(gaps.min(initial=best)), slack)
    return a[keep], b[keep], gaps[keep]


def _least_adjacent_valid_gap(m: np.ndarray, labels: np.ndarray, d: int, invalid: np.ndarray) -> float:
    """The least gap m_{a+1} − m_a over valid neighbours (inf if none): a first upper bound on B."""
    invalid_flat = invalid.reshape(-1)
    # A strided sample of valid adjacent gaps gives a first bound (an actual valid gap, so sound).
    stride = max(1, (m.size - 1) // 2**16)
    first, second = labels[: m.size - 1 : stride], labels[1::stride]
    sample = (m[1::stride] - m[: m.size - 1 : stride])[_is_valid(first, second, d, invalid_flat)]
    best = float(sample.min()) if sample.size else math.inf
    for start in range(0, m.size - 1, _CHUNK):
        stop = min(m.size - 1, start + _CHUNK)
        gaps = m[start + 1 : stop + 1] - m[start:stop]
        # Only gaps below the best so far can lower it; they are tried least first, in growing batches
        # (all gaps ≤ the batch's largest), so the first batch with a valid pair holds the chunk's least.
        rest, batch = np.flatnonzero(gaps < best), _PROBE
        while rest.size:
            if rest.size > batch:
                kth = np.partition(gaps[rest], batch - 1)[batch - 1]
                probe, rest = rest[gaps[rest] <= kth], rest[gaps[rest] > kth]
            else:
                probe, rest = rest, rest[:0]
            valid = _is_valid(labels[start + probe], labels[start + probe + 1], d, invalid_flat)
            if valid.any():
                best = min(best, float(gaps[probe[valid]].min()))
                break
            batch *= 8
    return best


def _valid_pairs_within(
    m: np.ndarray,
    labels: np.ndarray,
    d: int,
    invalid: np.ndarray,
    limit: Callable[[float], float],
    best: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Valid pairs (a, a + t) with gap ≤ limit(least valid gap found so far), stepping t = 1, 2, …"""
    invalid_flat = invalid.reshape(-1)
    size = m.size
    active_parts = [np.zeros(0, dtype=np.int64)]
    for start in range(0, size - 1, _CHUNK):
        stop = min(size - 1, start + _CHUNK)
        gaps = m[start + 1 : stop + 1] - m[start:stop]
        active_parts.append(start + np.flatnonzero(gaps <= limit(best)))
    active = np.concatenate(active_parts)
    found_a, found_b, found_gap = [active[:0]], [active[:0]], [np.zeros(0)]
    step = 1
    while active.size:
        active = active[active + step < size]
        gaps = m[active + step] - m[active]
        keep = gaps <= limit(best)
        active, gaps = active[keep], gaps[keep]
        valid = _is_valid(labels[active], labels[active + step], d, invalid_flat)
        if valid.any():
            found_a.append(active[valid])
            found_b.append(active[valid] + step)
            found_gap.append(gaps[valid])
            best = min(best, float(gaps[valid].min()))
        step += 1
    return np.concatenate(found_a), np.concatenate(found_b), np.concatenate(found_gap)


def _rerank(
    first: np.ndarray,
    second: np.ndarray,
    float_gaps: np.ndarray,
    encoding: Sinusoidal,
    dps: int,
) -> tuple[tuple[NearPair, ...], str]:
    """The candidate pairs (flat labels) sorted by their gaps at `dps` digits, and the evidence kind."""
    pairs, d = [], encoding.d
    with mpmath.workdps(dps):
        value = functools.lru_cache(maxsize=None)(lambda label: encoding.value_mp(label // d, label % d))
        for a, b, float_gap in zip(first.tolist(), second.tolist(), float_gaps.tolist(), strict=True):
            ends = sorted([divmod(a, d), divmod(b, d)])
            gap = abs(value(a) - value(b)) if encoding.value_mp else mpmath.mpf(float_gap)
            pairs.append(NearPair(ends[0], ends[1], +gap, float(float_gap)))
        pairs.sort(key=lambda pair: (pair.gap, pair.first, pair.second))
        resolution = mpmath.mpf(10) ** (GUARD_DIGITS - dps)
        if encoding.value_mp is None:
            evidence = FLOAT64
        elif pairs[0].gap <= resolution:
            evidence = ZERO
        elif len(pairs) > 1 and pairs[1].gap - pairs[0].gap <= resolution:
            evidence = TIE
        else:
            evidence = CONFIRMED
    return tuple(pairs), evidence


def _require_scan_inputs(n: object, encoding: Sinusoidal, dps: object) -> tuple[int, int, float, int]:
    n = require_positive_int(n, "n")
    d = encoding.d
    base = float(encoding.base)
    dps = require_positive_int(dps, "dps")
    if n > MAX_POSITION:
        raise ValueError(f"n must be at most 2**32 = {MAX_POSITION} (positions 0 ≤ p < n), got {n}")
    if dps < 20:
        raise ValueError(f"dps must be at least 20 digits (float64 carries 16), got {dps}")
    error = encoding.error
    if isinstance(error, bool) or not isinstance(error, numbers.Real) or not 0 <= error < math.inf:
        raise ValueError(f"encoding.error must be a finite non-negative bound, got {error!r}")
    return n, d, base, dps


def nearest_cross_dimension_pair(
    encoding: Sinusoidal,
    n: int,
    *,
    exclude: Exclusion = None,
    dps: int = 50,
) -> NearestPair:
    """The valid pair (p1, j1), (p2, j2) — p1 ≠ p2 < n, j1 ≠ j2, not excluded — nearest in value.

    Sort-based (see `close_valid_pairs`), O(nd·log(nd)) time, 16 bytes per value and about 50 per candidate
    (`_candidate_values`). Every float64 value is within e = encoding.error of the true one, so the true
    nearest pair's float gap is at most its true gap G* + 2e, and G* is at most the float-best pair's true gap
    ≤ B + 2e (B the least float gap): every pair that can be the true nearest has float gap ≤ B + 4e. All of
    them are re-ranked at `dps` digits.
    """
    n, d, _, dps = _require_scan_inputs(n, encoding, dps)
    invalid = invalid_dimension_pairs(d, exclude)
    _require_pairs_exist(n, d, invalid)
    _, labels, pairs = _scan_arrays(n, encoding, invalid, 4 * encoding.error)
    return _nearest_of_pairs(labels, pairs, n, encoding, dps)


def _nearest_of_pairs(
    labels: np.ndarray, pairs: Pairs, n: int, encoding: Sinusoidal, dps: int
) -> NearestPair:
    """The re-ranked `NearestPair` of the candidate pairs (sorted positions a, b and float gaps)."""
    a, b, gaps = pairs
    candidates, evidence = _rerank(labels[a], labels[b], gaps, encoding, dps)
    threshold = _threshold(float(gaps.min()), 4 * encoding.error)
    d, base = encoding.d, float(encoding.base)
    return NearestPair(n, d, base, candidates[0], candidates, evidence, dps, encoding.error, threshold)


def nearest_cross_dimension_pair_naive(
    encoding: Sinusoidal,
    n: int,
    *,
    exclude: Exclusion = None,
    dps: int = 50,
) -> NearestPair:
    """The same nearest pair by comparing all (nd)² pairs: O((nd)²) time, for small inputs and cross-checks.

    The candidates (every valid pair within the same float64 threshold) are re-ranked as in the scan.
    """
    n, d, base, dps = _require_scan_inputs(n, encoding, dps)
    invalid = invalid_dimension_pairs(d, exclude)
    _require_pairs_exist(n, d, invalid)
    values = _row_values(n, encoding)
    labels = np.arange(values.size)
    slack = 4 * encoding.error
    best = math.inf
    found_a, found_b, found_gap = [], [], []
    rows = max(1, 2**22 // values.size)
    for start in range(0, values.size, rows):
        a = labels[start : start + rows, None]
        gaps = np.abs(values[None, :] - values[a])
        valid = (labels[None, :] > a) & _is_valid(a, labels[None, :], d, invalid.reshape(-1))
        gaps = np.where(valid, gaps, np.inf)
        best = min(best, float(gaps.min()))
        rows_hit, cols_hit = np.nonzero(gaps <= _threshold(best, slack))
        found_a.append(start + rows_hit)
        found_b.append(cols_hit)
        found_gap.append(gaps[rows_hit, cols_hit])
    a, b, gaps = (np.concatenate(found) for found in (found_a, found_b, found_gap))
    keep = gaps <= _threshold(best, slack)
    candidates, evidence = _rerank(a[keep], b[keep], gaps[keep], encoding, dps)
    threshold = _threshold(best, slack)
    return NearestPair(n, d, base, candidates[0], candidates, evidence, dps, encoding.error, threshold)


# ---------------------------------------------------------------------------------------------------------
# The equidistribution prediction
# ---------------------------------------------------------------------------------------------------------

#: P(|X − Y| < g) = (2g/π²)(ln(1/g) + ARCSINE_PAIR_CONSTANT) + O(g²) for X, Y independent arcsine on [−1, 1].
ARCSINE_PAIR_CONSTANT = 1 + 3 * math.log(2)


def arcsine_close_pair_probability(g: float) -> mpmath.mpf:
    """P(|X − Y| < g) for X = cos πA, Y = cos πB, A, B independent uniform on [0, 1] (arcsine law), by quad.

    For a fixed A the admissible B fill the arc between arccos(min(x + g, 1)) and arccos(max(x − g, −1)),
    x = cos πA; the probability is the integral of that length over A (split where x ± g reaches ±1).
    """
    g = mpmath.mpf(require_positive_real(g, "g"))
    if g >= 2:
        return mpmath.mpf(1)

    def arc(a: mpmath.mpf) -> mpmath.mpf:
        x = mpmath.cos(mpmath.pi * a)
        return (mpmath.acos(max(x - g, -1)) - mpmath.acos(min(x + g, 1))) / mpmath.pi

    edge = mpmath.acos(1 - g) / mpmath.pi
    return mpmath.quad(arc, [0, edge, mpmath.mpf(1) / 2, 1 - edge, 1])


def predicted_minimum_gap(valid_pairs: int) -> float:
    """E[min gap] over `valid_pairs` pairs of independent arcsine values, with the pair count Poisson.

    Derivation: with X = cos πA, Y = cos πB, |X − Y| = 2 sin(πS)|sin(πD)|, S = (A+B)/2, D = (A−B)/2; the
    region |X − Y| < g has area (2g/π²)(ln(1/g) + 1 + 3 ln 2) + O(g²) (the ln comes from the arcsine
    density ρ(x) = 1/(π√(1 − x²)), whose ∫ρ² diverges at ±1; `arcsine_close_pair_probability` checks the
    constant). If the number of pairs closer than g is Poisson with mean λ(g) = Q·P(g), then
    P(min > g) = e^{−λ(g)} and E[min] = ∫_0^∞ e^{−λ(g)} dg ≈ π² / (2Q(ln(1/E) + 1 + 3 ln 2)). With Q ≈ M²/2
    pairs of M values this is ≈ π²/(M²(2 ln M + O(1))): a 1/(M² ln M) law, not c/M². A model, not a proof:
    the encoding's values are deterministic, and same-frequency sin–cos pairs are correlated.
    """
    q = mpmath.mpf(require_positive_int(valid_pairs, "valid_pairs"))
    if q < 100:
        raise ValueError(f"the small-gap expansion needs at least 100 pairs, got {valid_pairs}")

    def rate(g: mpmath.mpf) -> mpmath.mpf:
        return q * 2 * g / mpmath.pi**2 * (mpmath.log(1 / g) + ARCSINE_PAIR_CONSTANT)

    with mpmath.workdps(30):
        scale = mpmath.pi**2 / (2 * q * (mpmath.log(q) + ARCSINE_PAIR_CONSTANT))
        end = scale * 80
        points = [0, scale / 4, scale, scale * 4, scale * 16, end]
        return float(mpmath.quad(lambda g: mpmath.exp(-rate(g)), points))


@dataclass(frozen=True)
class GapRow:
    """One line of the gap-against-n table: the nearest valid pair at n positions against the arcsine model.

    The minimum of one sample fluctuates by a factor of several, so the row also counts the valid pairs
    whose true gap is at most `close` (a multiple of the predicted minimum): `observed_close` (exact, see
    `close_pair_count`; `close_ties` of them equal `close` to the digits used) against the model's
    `expected_close` = valid_pairs · P(|X − Y| < close).
    """

    n: int
    values: int
    valid_pairs: int
    nearest: NearestPair
    predicted: float
    close: float
    observed_close: int
    close_ties: int
    expected_close: float
    seconds: float


def _close_window(encoding: Sinusoidal, close: float) -> tuple[float, float]:
    """Float gaps at most the first are true gaps at most `close`, float gaps above the second are not: the
    values are within `encoding.error` of the truth, and the subtraction rounds once."""
    error = 2 * encoding.error
    return (close - error) * (1 - 4 * _U), (close + error) * (1 + 4 * _U)


def _decided_close_count(
    m: np.ndarray, labels: np.ndarray, encoding: Sinusoidal, invalid: np.ndarray, close: float, dps: int
) -> tuple[int, int]:
    """`close_pair_count` on sorted candidate values that hold every valid pair within the window's top."""
    d = encoding.d
    low, high = _close_window(encoding, close)
    first, second, gaps = _valid_pairs_within(m, labels, d, invalid, lambda _: high, math.inf)
    count, tied = int(np.count_nonzero(gaps <= low)), 0
    undecided = (gaps > low) & (gaps <= high)
    ends = zip(labels[first[undecided]].tolist(), labels[second[undecided]].tolist(), strict=True)
    with mpmath.workdps(dps):
        limit, resolution = mpmath.mpf(close), mpmath.mpf(10) ** (GUARD_DIGITS - dps)
        for a, b in ends:
            gap = abs(encoding.value_mp(a // d, a % d) - encoding.value_mp(b // d, b % d))
            tied += bool(abs(gap - limit) <= resolution)
            count += bool(gap <= limit)
    return count, tied


def close_pair_count(
    encoding: Sinusoidal, n: int, close: float, *, exclude: Exclusion = None, dps: int = 50
) -> tuple[int, int]:
    """How many valid pairs over positions < n have a true gap of at most `close`, and how many of those
    counted equal `close` to `dps` − GUARD_DIGITS digits (a tie the digits cannot decide). A pair whose
    float64 gap is farther from `close` than the values' error allows is counted by it; the few closer are
    decided at `dps` digits."""
    n, d, _, dps = _require_scan_inputs(n, encoding, dps)
    close = require_positive_real(close, "close")
    invalid = invalid_dimension_pairs(d, exclude)
    m, labels, _ = _scan_arrays(n, encoding, invalid, 4 * encoding.error, _close_window(encoding, close)[1])
    return _decided_close_count(m, labels, encoding, invalid, close, dps)


def gap_against_n(
    encoding: Sinusoidal,
    ns: Sequence[int],
    *,
    exclude: Exclusion = None,
    dps: int = 50,
    close_factor: float = 100.0,
) -> list[GapRow]:
    """Per n: the nearest valid cross-dimension gap, the arcsine model's `predicted_minimum_gap`, and the
    number of valid pairs within close_factor × predicted (decided exactly, `close_pair_count`) against the
    model's expectation."""
    d = encoding.d
    close_factor = require_positive_real(close_factor, "close_factor")
    invalid = invalid_dimension_pairs(d, exclude)
    rows = []
    for n in ns:
        started = time.perf_counter()
        n, d, _, dps = _require_scan_inputs(n, encoding, dps)
        _require_pairs_exist(n, d, invalid)
        pairs = valid_pair_count(n, d, exclude)
        predicted = predicted_minimum_gap(pairs)
        close = close_factor * predicted
        window = _close_window(encoding, close)[1]
        m, labels, found = _scan_arrays(n, encoding, invalid, 4 * encoding.error, window)
        nearest = _nearest_of_pairs(labels, found, n, encoding, dps)
        observed, ties = _decided_close_count(m, labels, encoding, invalid, close, dps)
        del m, labels, found
        expected = pairs * float(arcsine_close_pair_probability(close))
        seconds = time.perf_counter() - started
        rows.append(GapRow(n, n * d, pairs, nearest, predicted, close, observed, ties, expected, seconds))
    return rows


# ---------------------------------------------------------------------------------------------------------
# Ball-arithmetic certificate
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GapCertificate:
    """The outcome of `certify_cross_dimension_gap`: `holds` when `lower_bound` ≥ `delta` was proved.

    `lower_bound` is exact (a rational): every valid pair's true gap is at least it. `statement` says in
    words what was proved. `closest` are the two entries (position, dim) whose balls came closest.
    """

    holds: bool
    delta: float
    lower_bound: Fraction
    max_radius: Fraction
    closest: tuple[tuple[int, int], tuple[int, int]]
    statement: str


def _exact(ball: flint.arb) -> Fraction:
    """The value of an exact arb (zero radius) as a Fraction."""
    mantissa, exponent = ball.man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def certify_cross_dimension_gap(
    encoding: Sinusoidal,
    n: int,
    delta: float = 1e-12,
    *,
    exclude: Exclusion = None,
    prec: int = 128,
) -> GapCertificate:
    """Prove with interval arithmetic: every valid pair over positions < n is at least `delta` apart.

    Every value x_a is an arb ball; m_a is its midpoint rounded to float64 and r_a ≥ |x_a − m_a| a rigorous
    bound (arb), R = max r_a. Sort by m. For a valid pair a < b (in m order) and a's first valid partner c,
    |x_b − x_a| ≥ m_b − m_a − 2R ≥ m_c − m_a − 2R (as in `close_valid_pairs`). The float subtraction
    m_c − m_a is within a factor (1 ± 2^−53) of the exact one, so with D the least float gap over first
    valid partners, L = D·(1 − 2^−53) − 2R (computed exactly) bounds every valid gap from below. The
    certificate holds when L ≥ delta > 0. It is sound for any exact base (taken as the float given).
    """
    n, d, base, _ = _require_scan_inputs(n, encoding, 50)
    delta = require_positive_real(delta, "delta")
    prec = require_positive_int(prec, "prec")
    if encoding.row_balls is None:
        raise ValueError("the encoding has no row_balls: a certificate needs ball values")
    invalid = invalid_dimension_pairs(d, exclude)
    _require_pairs_exist(n, d, invalid)
    midpoints, max_radius = _ball_midpoints(n, encoding, prec)
    labels = np.argsort(midpoints).astype(_label_dtype(midpoints.size))
    m = midpoints[labels]
    a, b, gaps = close_valid_pairs(m, labels, d, invalid, 0.0)
    closest = int(np.argmin(gaps))
    lower = Fraction(float(gaps[closest])) * (1 - Fraction(1, 2**53)) - 2 * max_radius
    holds = lower >= Fraction(delta)
    ends = sorted([divmod(int(labels[a[closest]]), d), divmod(int(labels[b[closest]]), d)])
    verdict = "≥" if holds else "< (NOT certified)"
    statement = (
        f"For all integers 0 ≤ p1, p2 < {n}, p1 ≠ p2, and dims j1 ≠ j2 < {d} whose pair is not excluded: "
        f"|PE(p1, j1) − PE(p2, j2)| ≥ L ≈ {float(lower):.6e} (L exact in lower_bound), PE the exact "
        f"real-valued encoding with base = {base!r}, proved with arb ball arithmetic at {prec} bits; "
        f"L {verdict} delta = {delta!r}."
    )
    return GapCertificate(holds, delta, lower, max_radius, (ends[0], ends[1]), statement)


def _ball_midpoints(n: int, encoding: Sinusoidal, prec: int) -> tuple[np.ndarray, Fraction]:
    """The float64 midpoints m (flat index p·d + j) and an exact R ≥ max |x − m| over all values."""
    d = encoding.d
    midpoints = np.empty(n * d)
    radius = flint.arb(0)
    saved = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        for p in range(n):
            row = list(encoding.row_balls(p))
            if len(row) != d:
                raise ValueError(f"encoding.row_balls must return {d} balls, got {len(row)}")
            for j, ball in enumerate(row):
                mid = float(ball.mid())
                midpoints[p * d + j] = mid
                radius = radius.max((ball - flint.arb(mid)).abs_upper())
    finally:
        flint.ctx.prec = saved
    if not radius.is_finite():
        raise ValueError("a ball value is not finite: the certificate needs finite values")
    return midpoints, _exact(radius)


# ---------------------------------------------------------------------------------------------------------
# Whole-vector near repeats
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NearRepeat:
    """An offset k and the distance ‖PE(p + k) − PE(p)‖; `distance` at high precision (None: not computed)."""

    offset: int
    float_distance: float
    distance: mpmath.mpf | None = None


@dataclass(frozen=True)
class NearRepeats:
    """The offsets whose vectors come closest, best first, with how they were ranked.

    `candidates` is how many offsets were re-ranked at `dps` digits (all whose float64 squared distance is
    within twice the error bound of the count-th smallest); `evidence` is CONFIRMED, TIE or FLOAT64.
    """

    n: int
    d: int
    repeats: tuple[NearRepeat, ...]
    candidates: int
    evidence: str
    dps: int | None


def _require_frequencies(encoding: Sinusoidal) -> list[mpmath.mpf]:
    omegas = encoding.frequencies_mp(FIXED_POINT_DPS)
    if not all(mpmath.isfinite(w) and w > 0 for w in omegas):
        raise ValueError(f"frequencies must be d/2 = {encoding.d // 2} finite positive numbers")
    return omegas


def offset_error_bound(d: int) -> float:
    """Bound on |S_float(k) − S(k)| for S(k) = d − 2·Σ_i cos(kω_i) evaluated by angle addition.

    Each term cos bω·cos Kω − sin bω·sin Kω has operands within e = VALUE_ERROR, hence is within 4e + e²;
    the d-term dot product (any summation order, as in BLAS) adds at most γ_d·Σ|products| ≤ d²u/(1 − du); the
    final d − 2C adds ≤ 2du. So |error| ≤ 2((d/2)(4e + e²) + d²u/(1 − du)) + 2du.
    """
    e = VALUE_ERROR
    return 2 * ((d / 2) * (4 * e + e * e) + d * d * _U / (1 - d * _U)) + 2 * d * _U


def offset_squared_distances(n: int, omegas: Sequence[mpmath.mpf], block: int = 1024) -> np.ndarray:
    """S(k) = ‖PE(p + k) − PE(p)‖² = Σ_i 2(1 − cos kω_i) for k = 0, …, n − 1, in float64.

    k = K + b with K a multiple of `block` and 0 ≤ b < block: cos((K + b)ω) = cos bω·cos Kω − sin bω·sin Kω,
    so Σ_i cos((K + b)ω_i) is the (b, K) entry of [cos bω | −sin bω] (block × d) times [cos Kω; sin Kω]
    (d × blocks). Each block is anchored at cos Kω, sin Kω computed by exact reduction (no drift), and the
    in-block angles bω are small; see `offset_error_bound`.
    """
    block = min(require_positive_int(block, "block"), n)
    d = 2 * len(omegas)
    sin_b, cos_b = sin_cos_at_integers(np.arange(block), omegas)
    left = np.hstack([cos_b, -sin_b])
    blocks = -(-n // block)
    out = np.empty(blocks * block)
    step = max(1, 2**22 // block)
    for first in range(0, blocks, step):
        last = min(blocks, first + step)
        sin_k, cos_k = sin_cos_at_integers(np.arange(first, last) * block, omegas)
        sums = left @ np.vstack([cos_k.T, sin_k.T])
        out[first * block : last * block] = (d - 2 * sums).T.reshape(-1)
    return out[:n]


def offset_squared_distance_mp(k: int, omegas: Sequence[mpmath.mpf]) -> mpmath.mpf:
    """S(k) = Σ_i 4 sin²(kω_i/2) at the current mpmath precision (no cancellation for small kω)."""
    return mpmath.fsum(4 * mpmath.sin(k * omega / 2) ** 2 for omega in omegas)


def nearest_vector_offsets(
    encoding: Sinusoidal,
    n: int,
    *,
    count: int = 5,
    dps: int = 50,
    block: int = 1024,
    min_offset: int = 1,
) -> NearRepeats:
    """The `count` offsets min_offset ≤ k < n minimising ‖PE(p + k) − PE(p)‖ (equal for all p), at dps digits.

    For even d, (sin a − sin b)² + (cos a − cos b)² = 2 − 2cos(a − b), so
    ‖PE(p) − PE(q)‖² = Σ_i 2(1 − cos kω_i) with k = q − p: the closest pair of distinct positions below n
    is (0, k) for the best offset k.
    The encoding's `omegas` (d/2 positive numbers), if given, replace base^(−2i/d). The true top `count` all
    have float64 values within 2·offset_error_bound(d) of the count-th smallest float value; all those are
    re-ranked.
    A `min_offset` beyond the slowest period 2π/ω_min asks how close the encoding comes to repeating itself.
    """
    n = require_positive_int(n, "n")
    d = require_even_dimension(encoding.d)
    count = require_positive_int(count, "count")
    dps = require_positive_int(dps, "dps")
    min_offset = require_positive_int(min_offset, "min_offset")
    if not min_offset < n <= MAX_POSITION:
        raise ValueError(f"n must satisfy min_offset < n ≤ 2**32 (offsets min_offset ≤ k < n), got n = {n}")
    omegas = _require_frequencies(encoding)
    squared = offset_squared_distances(n, omegas, block)
    squared[:min_offset] = np.inf
    count = min(count, n - min_offset)
    kth = float(np.partition(squared, count - 1)[count - 1])
    offsets = np.flatnonzero(squared <= kth + 2 * offset_error_bound(d))
    with mpmath.workdps(dps):
        exact = {int(k): offset_squared_distance_mp(int(k), omegas) for k in offsets}
        ranked = sorted(exact, key=lambda k: (exact[k], k))
        repeats = tuple(
            NearRepeat(k, math.sqrt(max(float(squared[k]), 0.0)), mpmath.sqrt(exact[k]))
            for k in ranked[:count]
        )
        resolution = mpmath.mpf(10) ** (GUARD_DIGITS - dps)
        tied = len(ranked) > 1 and exact[ranked[1]] - exact[ranked[0]] <= resolution
    return NearRepeats(n, d, repeats, len(ranked), TIE if tied else CONFIRMED, dps)


def _pairwise_squared_distances(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per offset k: the least and largest ‖rows[p + k] − rows[p]‖² over p, and the p attaining the least."""
    n = rows.shape[0]
    least = np.full(n, np.inf)
    largest = np.full(n, -np.inf)
    where = np.zeros(n, dtype=np.int64)
    for p in range(n - 1):
        squared = np.sum((rows[p + 1 :] - rows[p]) ** 2, axis=1)
        better = squared < least[1 : n - p]
        where[1 : n - p][better] = p
        least[1 : n - p] = np.minimum(least[1 : n - p], squared)
        largest[1 : n - p] = np.maximum(largest[1 : n - p], squared)
    return least, largest, where


def _encoded_rows(encoding: Sinusoidal, n: int) -> np.ndarray:
    d = encoding.d
    rows = np.asarray(encoding.rows(np.arange(n)), dtype=np.float64)
    if rows.shape != (n, d) or not np.all(np.isfinite(rows)):
        raise ValueError(f"encode must return finite values of shape ({n}, {d})")
    return rows


def nearest_vector_pairs_naive(
    encoding: Sinusoidal,
    n: int,
    *,
    count: int = 5,
) -> NearRepeats:
    """The closest pairs of distinct positions < n by comparing all n(n − 1)/2 encoded vectors in float64.

    O(n²d): for small n, as a cross-check of `nearest_vector_offsets` and as its baseline. Pairs are grouped
    by offset (the least distance over pairs with that offset), and the `count` best offsets are returned.
    """
    n = require_positive_int(n, "n")
    d = encoding.d
    count = require_positive_int(count, "count")
    if n < 2:
        raise ValueError(f"n must be at least 2 (two distinct positions), got {n}")
    least, _, _ = _pairwise_squared_distances(_encoded_rows(encoding, n))
    order = 1 + np.argsort(least[1:], kind="stable")[:count]
    repeats = tuple(NearRepeat(int(k), math.sqrt(max(float(least[k]), 0.0))) for k in order)
    return NearRepeats(n, d, repeats, n - 1, FLOAT64, None)


def check_distance_depends_only_on_offset(
    encoding: Sinusoidal,
    n: int,
    tolerance: float | None = None,
) -> CheckResult:
    """‖PE(p + k) − PE(p)‖² is the same for every p (positions p, p + k < n): it depends on the offset k only.

    Holds for the sinusoidal encoding with even d (each sin/cos pair contributes 2 − 2cos kω_i). Fails for an
    unpaired sin dim (odd d) or when a cos dim uses another frequency than its sin partner. Default tolerance:
    angle_tolerance(n, 8d), the float64 error of d squared differences of entries at angles up to n.
    """
    n = require_positive_int(n, "n")
    d = encoding.d
    if n < 3:
        raise ValueError(f"n must be at least 3 (two pairs with the same offset), got {n}")
    tolerance = angle_tolerance(float(n), terms=8 * d) if tolerance is None else tolerance
    least, largest, where = _pairwise_squared_distances(_encoded_rows(encoding, n))
    spread = largest[1 : n - 1] - least[1 : n - 1]
    worst = int(np.argmax(spread)) + 1
    return CheckResult(
        "‖PE(p + k) − PE(p)‖ depends only on the offset k",
        bool(spread[worst - 1] <= tolerance),
        float(spread[worst - 1]),
        float(tolerance),
        {
            "offset": worst,
            "least": float(least[worst]),
            "largest": float(largest[worst]),
            "position_of_least": int(where[worst]),
        },
    )
