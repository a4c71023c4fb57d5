"""RoPE's angle p·θ_i in float32, computed two ways: as one product fl(p·θ̂_i) of the position by a float32
frequency (transformers, vLLM, SGLang), or by i successive float32 products p·θ̂_s·θ̂_s·…·θ̂_s from the
position, with θ̂_s the float32 ratio base^(−2/d) (llama.cpp's `ggml_rope_cache_init`).

Both are exact IEEE binary32 computations, reproduced here with numpy's float32 multiply (correctly rounded
on every platform numpy supports); the float32 frequencies θ̂_i and ratio θ̂_s are the float32 numbers
nearest the exact values, decided at 40 digits (a runtime's own ``pow`` may differ from them by an ulp,
which this module does not model). The difference δ_i(p) of the two float32 angles is exact in float64. A
unit q, k at positions p and 0 then score differently by max_i 2|sin(δ_i(p)/2)|, which exceeds ε exactly
when |δ_i(p)| mod 2π lies in (2·asin(ε/2), 2π − 2·asin(ε/2)): `first_parting` finds the least such p.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np

from ..encodings.frequencies import frequencies_mp, frequency_mp

#: Positions per block of the scan (two float32 arrays of this length per pair, at a time).
BLOCK = 2**20
#: Digits the exact frequencies are decided at before rounding to float32.
DIGITS = 40


def nearest_float32(value: mpmath.mpf) -> np.float32:
    """The float32 nearest `value` (ties to even), decided exactly: the float64 rounding's neighbours are
    held against `value` at the current mpmath precision."""
    guess = np.float32(float(value))
    below, above = np.nextafter(guess, np.float32(-np.inf)), np.nextafter(guess, np.float32(np.inf))
    best = guess
    for candidate in (below, above):
        gap, best_gap = abs(mpmath.mpf(float(candidate)) - value), abs(mpmath.mpf(float(best)) - value)
        even = int(np.frombuffer(candidate.tobytes(), np.uint32)[0]) % 2 == 0
        if gap < best_gap or (gap == best_gap and even):
            best = candidate
    return np.float32(best)


@dataclass(frozen=True)
class Parting:
    """Where the two float32 angle computations part: the first position p (query at p, key at 0) at which
    some pair's angles differ by enough to move a unit score by more than ε (None: none before `scanned`),
    that pair, its angle difference there, and the largest angle difference over the positions scanned."""

    first: int | None
    pair: int | None
    gap: float
    largest: float
    scanned: int


def frequencies32(base: str, d: int) -> np.ndarray:
    """θ̂_i: the float32 nearest each frequency θ_i, i < d/2 (`frequencies.frequencies_mp`)."""
    exact = frequencies_mp(d, base, DIGITS, count=d // 2)
    with mpmath.workdps(DIGITS):
        return np.array([nearest_float32(theta) for theta in exact], np.float32)


def ratio32(base: str, d: int) -> np.float32:
    """θ̂_s: the float32 nearest the ratio θ_1 = base^(−2/d) of consecutive frequencies."""
    with mpmath.workdps(DIGITS):
        return nearest_float32(frequency_mp(1, d, mpmath.mpf(base)))


def first_parting(base: str, d: int, positions: int, epsilon: float) -> Parting:
    """Scan positions 1 ≤ p < `positions` for the first at which one product and the recurrence part by more
    than `epsilon` on a unit score (see the module)."""
    theta, ratio = frequencies32(base, d), ratio32(base, d)
    with mpmath.workdps(DIGITS):
        low = 2 * mpmath.asin(mpmath.mpf(epsilon) / 2)
        high = 2 * mpmath.pi - low
    lo64, hi64 = float(low), float(high)
    largest, found = 0.0, None
    for start in range(1, positions, BLOCK):
        p = np.arange(start, min(start + BLOCK, positions), dtype=np.float32)
        recurred = p.copy()
        for i in range(d // 2):
            product = p * theta[i]
            gap = np.abs(product.astype(np.float64) - recurred.astype(np.float64))
            largest = max(largest, float(gap.max(initial=0.0)))
            hits = np.flatnonzero(_beyond(gap, lo64, hi64, low, high))
            if hits.size and (found is None or start + int(hits[0]) < found[0]):
                found = (start + int(hits[0]), i, float(gap[hits[0]]))
            recurred = recurred * ratio
        if found is not None:
            return Parting(found[0], found[1], found[2], largest, min(start + BLOCK, positions))
    return Parting(None, None, 0.0, largest, positions)


def _beyond(gap: np.ndarray, lo64: float, hi64: float, low: mpmath.mpf, high: mpmath.mpf) -> np.ndarray:
    """Whether each exact |δ| lies in (low, high) mod 2π; values next to a bound, or of a turn or more, are
    decided at `DIGITS` digits."""
    clear = (gap > np.nextafter(lo64, np.inf)) & (gap < np.nextafter(hi64, -np.inf))
    unsure = np.flatnonzero(
        (np.abs(gap - lo64) <= 2 * np.spacing(lo64)) | (gap >= np.nextafter(hi64, -np.inf))
    )
    out = clear.copy()
    with mpmath.workdps(DIGITS):
        for k in unsure.tolist():
            turns = mpmath.mpf(float(gap[k])) % (2 * mpmath.pi)
            out[k] = bool(low < turns < high)
    return out
