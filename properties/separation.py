"""Separation by offset: how far PE(p + k) is from PE(p) for the sinusoidal encoding (d even, every p alike).

‖PE(p + k) − PE(p)‖² = S(k) = Σ_i 2(1 − cos kω_i) = Σ_i 4 sin²(kω_i/2) (`sinusoidal.distance`), and
S(k) ≤ k²‖ω‖² (`lipschitz.distance_bound`): a unit step moves the vector little. S is not monotone in k,
since each pair turns back towards its start after half a period. The forms, each written against a
`sinusoidal.Sinusoidal`:

* `offset_distance`, `offset_distances`: √S(k) as arb balls (python-flint), from `frequency_balls`;
* `unit_step_against_bound`: √S(1) and the Lipschitz constant ‖ω‖ = (Σ_i ω_i²)^½, as balls;
* `first_distance_dip`: the first k with √S(k + 1) < √S(k), certified in ball arithmetic;
* `nearest_offset`: how every offset 2 ≤ k ≤ K compares with k = 1, each comparison decided from the float64
  S(k) of `near_collision.offset_squared_distances` (exact reduction of k·ω_i modulo 2π, from
  `frequencies_mp`) and its a-priori bound `near_collision.offset_error_bound`.
"""

from __future__ import annotations

from dataclasses import dataclass

import flint
import numpy as np

from .near_collision import offset_error_bound, offset_squared_distances
from .sinusoidal import FIXED_POINT_DPS, MAX_POSITION, Sinusoidal
from .validation import require_even_dimension, require_positive_int


def offset_distance(encoding: Sinusoidal, offset: int, prec: int | None = None) -> flint.arb:
    """‖PE(p + k) − PE(p)‖ = (Σ_i 2(1 − cos kω_i))^½ at k = `offset`, for every p: a ball at `prec` bits
    (None: the current flint precision)."""
    if prec is not None:
        with flint.ctx.workprec(require_positive_int(prec, "prec")):
            return offset_distance(encoding, offset)
    omegas = encoding.frequency_balls()[: encoding.d // 2]
    return sum((2 * (1 - (offset * omega).cos()) for omega in omegas), flint.arb(0)).sqrt()


def offset_distances(encoding: Sinusoidal, max_offset: int) -> list[flint.arb]:
    """`offset_distance` for k = 0, …, max_offset, at the current flint precision."""
    return [offset_distance(encoding, k) for k in range(max_offset + 1)]


def unit_step_against_bound(encoding: Sinusoidal, prec: int) -> tuple[flint.arb, flint.arb]:
    """‖PE(p + 1) − PE(p)‖ and the Lipschitz bound ‖ω‖ = (Σ_i ω_i²)^½ it obeys, as balls at `prec` bits."""
    with flint.ctx.workprec(require_positive_int(prec, "prec")):
        omegas = encoding.frequency_balls()[: encoding.d // 2]
        bound = sum((omega * omega for omega in omegas), flint.arb(0)).sqrt()
        return offset_distance(encoding, 1), bound


@dataclass(frozen=True)
class DistanceDip:
    """The first offset k at which ‖PE(p+k) − PE(p)‖ decreases (k → k + 1), certified in ball arithmetic."""

    d: int
    offset: int
    before: flint.arb
    after: flint.arb


def first_distance_dip(encoding: Sinusoidal, max_offset: int, prec: int) -> DistanceDip | None:
    """The smallest k < max_offset with dist(k + 1) < dist(k), where every earlier step certainly increased.

    None when the distance certainly increases at every k < max_offset; ValueError when a step cannot be
    decided at `prec` bits.
    """
    with flint.ctx.workprec(require_positive_int(prec, "prec")):
        distances = offset_distances(encoding, max_offset)
        for k in range(max_offset):
            before, after = distances[k], distances[k + 1]
            if after > before:
                continue
            if after < before:
                return DistanceDip(encoding.d, k, before, after)
            raise ValueError(
                f"d = {encoding.d}: cannot decide whether the distance grows from k = {k} to {k + 1}"
            )
    return None


@dataclass(frozen=True)
class NearestOffset:
    """How the offsets 2 ≤ k ≤ K compare with k = 1 in S(k) = ‖PE(p + k) − PE(p)‖².

    `closer` counts the k that are certainly nearer than k = 1 (`first_closer` the smallest); every other k is
    certainly farther. `nearest` is the k ≥ 2 of least float64 S(k); `nearest_is_unique` says no other k ≥ 2
    comes within twice the bound `error` (on each float64 S(k)) of it, so it is the true minimiser.
    """

    d: int
    max_offset: int
    error: float
    closer: int
    first_closer: int | None
    nearest: int
    nearest_is_unique: bool

    @property
    def unit_is_nearest(self) -> bool:
        """k = 1 is strictly nearer than every offset 2 ≤ k ≤ K: the minimum over 1 ≤ k ≤ K is attained
        at k = 1 only."""
        return self.closer == 0


def nearest_offset(encoding: Sinusoidal, max_offset: int) -> NearestOffset:
    """Compare S(k) with S(1) for every 2 ≤ k ≤ K = max_offset, each comparison certain (d even, K < 2^32).

    Ŝ(k) is within e = `offset_error_bound(d)` of S(k) (exact reduction of k·ω_i, VALUE_ERROR per cos and
    sin, the blocked dot product's rounding). The difference fl(Ŝ(k) − Ŝ(1)) is rounded monotonically and
    2e is a float, so fl(Ŝ(k) − Ŝ(1)) > 2e implies S(k) − S(1) > 0, and < −2e implies S(k) < S(1). A
    difference within 2e is not decided: ValueError names the offset.
    """
    d = require_even_dimension(encoding.d)
    max_offset = require_positive_int(max_offset, "max_offset")
    if not 2 <= max_offset < MAX_POSITION:
        raise ValueError(f"max_offset must satisfy 2 ≤ K < 2**32 (offsets 2 ≤ k ≤ K), got {max_offset}")
    squared = offset_squared_distances(max_offset + 1, encoding.frequencies_mp(FIXED_POINT_DPS))
    error = offset_error_bound(d)
    others = squared[2:]
    gaps = others - squared[1]
    undecided = np.flatnonzero(np.abs(gaps) <= 2 * error)
    if undecided.size:
        raise ValueError(
            f"d = {d}: cannot decide whether k = {int(undecided[0]) + 2} is nearer than k = 1 "
            f"(within twice the bound {error:.1e})"
        )
    closer = np.flatnonzero(gaps < 0) + 2
    nearest = int(np.argmin(others))
    unique = int(np.count_nonzero(others - others[nearest] <= 2 * error)) == 1
    first = int(closer[0]) if closer.size else None
    return NearestOffset(d, max_offset, error, int(closer.size), first, nearest + 2, unique)
