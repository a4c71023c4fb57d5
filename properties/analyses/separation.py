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
  `frequencies_mp`) and its a-priori bound `near_collision.offset_error_bound`;
* `certified_separation`: min S(k) over K0 ≤ k < K up to 2^62, with a lower bound for every offset of the
  range, by branch and bound on exact 128-bit turn positions (`pe-verify separation`); `audit_separation`
  checks it against brute force on small ranges.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
from threadpoolctl import threadpool_limits

from ..encodings.frequencies import frequencies, frequency_exponent
from ..encodings.sinusoidal import FIXED_POINT_DPS, MAX_POSITION, Sinusoidal, sin_cos_at_integers
from ..numerics.validation import require_even_dimension, require_positive_int
from .near_collision import nearest_vector_offsets, offset_error_bound, offset_squared_distances


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


# ---------------------------------------------------------------------------------------------------------
# Certified separation over a range of offsets (branch and bound)
# ---------------------------------------------------------------------------------------------------------

#: Offsets must satisfy k < MAX_SEPARATION_OFFSET: the 128-bit turn positions k·F keep 2^-64 turns of room.
MAX_SEPARATION_OFFSET = 2**62

#: Given frequencies must satisfy |ω| < MAX_SEPARATION_FREQUENCY: at FIXED_POINT_DPS = 60 digits, ω/2π mod 1
#: is then known within 2^64·10^-60 < 2^-135 turns, well inside the 128-bit rounding of the turn table.
MAX_SEPARATION_FREQUENCY = 2.0**64

#: Margin, in turns, on every computed turn position: covers the 128-bit rounding of ω/2π (k·2^-129 ≤ 2^-67),
#: dropping the low 64 bits (< 2^-64) and, where children are bounded before their exact words are formed,
#: their carry (< 2^-64), the float64 conversion (≤ 2^-53), the advance (L − 1)·f in float64 (≤ 2^-51) and
#: the three roundings of the arc's ends (≤ 3·2^-53): in all below 2^-49.
TURN_MARGIN = 2.0**-46

#: Relative margin on each polynomial enclosure of sin²: its Horner evaluation rounds at most 25 times (three
#: per step, z = y² and the final product) on factors in [0.6, 1] with condition below 2.5 (a relative error
#: below 62.5·2^-53 < 2^-47), the argument π·x two more.
POLYNOMIAL_MARGIN = 2.0**-44

_U32 = 2.0**-24
_U64 = 2.0**-53
_MASK64 = 2**64 - 1
_MASK32 = np.uint64(2**32 - 1)


def _horner(y: np.ndarray, divisors: tuple[int, ...]) -> np.ndarray:
    """y·(1 − z/c_m·(1 − z/c_(m−1)·(… (1 − z/c_1)))) with z = y² and c_1, …, c_m the `divisors` (innermost
    first), in place on temporaries."""
    z = y * y
    w = 1 - z / divisors[0]
    term = np.empty_like(z)
    for divisor in divisors[1:]:
        np.divide(z, divisor, out=term)
        term *= w
        np.subtract(1, term, out=w)
    w *= y
    return w


def _sin_lower(y: np.ndarray) -> np.ndarray:
    """y − y³/3! + … − y¹⁵/15! ≤ sin y on [0, π/2] (alternating series with decreasing terms, cut after a
    negative one), in Horner form."""
    return _horner(y, (210, 156, 110, 72, 42, 20, 6))


def _sin_upper(y: np.ndarray) -> np.ndarray:
    """y − y³/3! + … + y¹⁷/17! ≥ sin y on [0, π/2] (cut after a positive term), in Horner form."""
    return _horner(y, (272, 210, 156, 110, 72, 42, 20, 6))


#: Added to upper and taken from lower enclosures: covers underflow, where relative margins do not hold.
_TINY = 2.0**-990


def chord_lower(distance: np.ndarray) -> np.ndarray:
    """A lower bound on 2(1 − cos 2πx) = 4 sin²(πx) for x at turn distance `distance` ∈ [0, ½] from an
    integer, computed from IEEE float64 operations alone (no library sine)."""
    y = np.minimum(distance, 0.5)
    y *= np.pi * (1 - 4 * _U64)
    chord = _sin_lower(y)
    chord *= chord
    chord *= 4 * (1 - POLYNOMIAL_MARGIN)  # one rounding, as 4·(s·s)·(1 − margin): scaling by 4 is exact
    chord -= _TINY
    return np.maximum(chord, 0.0, out=chord)


def chord_upper(distance: np.ndarray) -> np.ndarray:
    """An upper bound on 4 sin²(πx) for x at turn distance `distance` ∈ [0, ½] from an integer (≤ 4)."""
    y = np.minimum(distance, 0.5) * (np.pi * (1 + 4 * _U64))
    s = _sin_upper(y)
    return np.minimum(4 * (s * s) * (1 + POLYNOMIAL_MARGIN) + _TINY, 4.0)


def arc_lower_bounds(turns: np.ndarray, advance: np.ndarray) -> np.ndarray:
    """Per frequency, a lower bound on 4 sin²(πx) over the arc x ∈ [t, t + a] of turns (t ∈ [0, 1), a ≥ 0),
    widened by TURN_MARGIN at both ends: 0 when the arc may hold an integer, else the chord at the end nearer
    to one (4 sin²(πx) rises with the distance from the nearest integer)."""
    low = turns - TURN_MARGIN
    high = turns + advance + TURN_MARGIN
    # min(low, 1 − high) > 0 exactly when low > 0 and high < 1 (1 − high is exact for high ≥ ½), and
    # chord_lower(0) = 0.
    distance = np.minimum(low, 1 - high)
    return chord_lower(np.maximum(distance, 0.0, out=distance))


def point_upper_bounds(turns: np.ndarray) -> np.ndarray:
    """Per frequency, an upper bound on 4 sin²(πt) at the turn position t ∈ [0, 1) (within TURN_MARGIN)."""
    return chord_upper(np.minimum(turns, 1 - turns) + TURN_MARGIN)


def summation_factor(terms: int) -> float:
    """1 − (m + 2)·2^-52: a float64 sum of m non-negative terms, in any order, times this lies at or below
    their exact sum."""
    return 1 - (terms + 2) * 2 * _U64


def sum_lower(terms: np.ndarray) -> np.ndarray:
    """A lower bound on the exact sum of each row of non-negative float64 terms (any summation order)."""
    return terms.sum(axis=-1) * summation_factor(terms.shape[-1])


def sum_upper(terms: np.ndarray) -> np.ndarray:
    """An upper bound on the exact sum of each row of non-negative float64 terms (any summation order)."""
    return terms.sum(axis=-1) * (1 + (terms.shape[-1] + 2) * 2 * _U64)


def _gamma(terms: int, unit: float) -> float:
    """γ_m = m·u/(1 − m·u): the relative error bound of a sum of m products in any order."""
    return terms * unit / (1 - terms * unit)


def product_error(exact: np.ndarray, factors: Factors) -> float:
    """Bound over 0 ≤ b ≤ h on |X̂_b − X_b|, X_b = Σ_i M_bi·c_i, X̂ = `factors.times(ĉ)`, for every column c
    of true values in [−1, 1] and ĉ of float32 values within η = `ANCHOR_FACTOR_ERROR` of them, where the
    float64 `exact` is within 2^-30 of M entrywise: n·2^-30 + ρ_b + η(n + ρ_b) + (1 + η)·κ_b, with
    ρ_b ≥ Σ_i |exact − Q·R|_bi (the truncation and the float32 rounding of the factors) and κ_b the float32
    summation errors, (γ_m + γ_r(1 + γ_m))·Σ_t |Q_bt|·‖R_t‖₁ for inner products of at most m terms in R·ĉ
    (m = 0 unfactored) and r in Q·(R·ĉ)."""
    n = exact.shape[1]
    residual = np.zeros(exact.shape[0])
    spread = np.zeros(exact.shape[0])
    for rows, columns, block in factors.groups():
        q = factors.q[:, rows].astype(np.float64)
        if block is None:
            residual += np.abs(exact[:, columns] - q).sum(axis=1)
            spread += np.abs(q).sum(axis=1)
        else:
            r = block.astype(np.float64)
            part = np.abs(q) @ np.abs(r).sum(axis=1)
            residual += np.abs(exact[:, columns] - q @ r).sum(axis=1) + _gamma(r.shape[0] + 1, _U64) * part
            spread += part
    residual *= 1 + (n + 4) * 2 * _U64
    inner, outer = _gamma(factors.inner, _U32), _gamma(factors.rank, _U32)
    carried = (inner + outer * (1 + inner)) * spread
    eta = ANCHOR_FACTOR_ERROR
    return float(
        (n * 2.0**-30 + residual + eta * (n + residual) + (1 + eta) * carried).max() * (1 + 8 * _U64)
    )


#: Columns (frequency pairs, fastest first) decomposed together by `Factors.low_rank`.
_GROUP = 256


@dataclass(frozen=True)
class Factors:
    """M ≈ Q·R for an (h + 1) × n matrix M of cos bω_i or sin bω_i, in float32, with R block diagonal over
    groups of _GROUP consecutive columns: a group is kept as it is (its block of R the identity, None) or
    replaced by its truncated singular value decomposition (slow frequencies make a group low rank)."""

    q: np.ndarray
    blocks: tuple[np.ndarray | None, ...]
    columns: int

    @property
    def rank(self) -> int:
        return self.q.shape[1]

    @property
    def inner(self) -> int:
        """The most terms in one inner product of R·ĉ (0 when no group is decomposed)."""
        return max((block.shape[1] for block in self.blocks if block is not None), default=0)

    @classmethod
    def plain(cls, matrix: np.ndarray) -> Factors:
        return cls(matrix.astype(np.float32), (None,) * -(-matrix.shape[1] // _GROUP), matrix.shape[1])

    @classmethod
    def low_rank(cls, matrix: np.ndarray, limit: float) -> Factors:
        """Each group at the least rank whose neglected singular values are below `limit`·√(group size),
        or as it is where that would not save a quarter of its multiplications."""
        rows = matrix.shape[0]
        qs, blocks = [], []
        for first in range(0, matrix.shape[1], _GROUP):
            group = matrix[:, first : first + _GROUP]
            u, singular, vt = np.linalg.svd(group, full_matrices=False)
            rank = max(1, int(np.count_nonzero(singular > limit * math.sqrt(group.shape[1]))))
            keep = rank * (rows + group.shape[1]) > 0.75 * rows * group.shape[1]
            qs.append(group if keep else u[:, :rank] * singular[:rank])
            blocks.append(None if keep else vt[:rank].astype(np.float32))
        return cls(np.hstack(qs).astype(np.float32), tuple(blocks), matrix.shape[1])

    def groups(self) -> list[tuple[slice, slice, np.ndarray | None]]:
        """Per group: its rows of R (columns of Q), its columns of M, its block."""
        groups, row = [], 0
        for first, block in zip(range(0, self.columns, _GROUP), self.blocks, strict=True):
            columns = slice(first, min(first + _GROUP, self.columns))
            height = columns.stop - first if block is None else block.shape[0]
            groups.append((slice(row, row + height), columns, block))
            row += height
        return groups

    def times(self, c: np.ndarray, product: Product | None = None) -> np.ndarray:
        """fl32(Q·fl32(R·c)) for float32 columns c (n × anchors), by `product` (default `float32_product`)."""
        product = product or float32_product
        if all(block is None for block in self.blocks):
            return product(self.q, c)
        parts = [
            c[columns] if block is None else product(block, c[columns]) for _, columns, block in self.groups()
        ]
        return product(self.q, np.concatenate(parts))

    def shapes(self) -> set[tuple[int, int]]:
        """(rows, inner dimension) of every matrix product `times` forms."""
        shapes = {(self.q.shape[0], self.rank)}
        return shapes | {block.shape for block in self.blocks if block is not None}


@dataclass(frozen=True)
class LeafProducts:
    """X_b = Σ_i cos bω_i·cos aω_i and Y_b = Σ_i sin bω_i·sin aω_i (0 ≤ b ≤ h) for a block of anchors a, as
    float32 products `Factors.times`: the matrix of cos bω_i itself, or a low-rank factorization of it (at
    d = 512 and h = 2048 rank about 120 of 256 leaves out less than 2^-16 per entry). `error` bounds
    |Ŝ − S| for S(a ± b) = d − 2(X ∓ Y)."""

    cos: Factors
    sin: Factors
    error: float

    @property
    def rank(self) -> int:
        """The inner dimension of the products (d/2 when not factored)."""
        return max(self.cos.rank, self.sin.rank)

    @classmethod
    def of(cls, cos_b: np.ndarray, sin_b: np.ndarray, cos: Factors, sin: Factors) -> LeafProducts:
        """The products with these factors of the float64 matrices cos bω_i, sin bω_i (within 2^-30)."""
        total = product_error(cos_b, cos) + product_error(sin_b, sin)
        n = cos_b.shape[1]
        return cls(cos, sin, (2 * (total + _U32 * (n + total)) + 4 * n * _U64) * (1 + 8 * _U64))

    @classmethod
    def plain(cls, cos_b: np.ndarray, sin_b: np.ndarray) -> LeafProducts:
        return cls.of(cos_b, sin_b, Factors.plain(cos_b), Factors.plain(sin_b))

    @classmethod
    def factored(cls, cos_b: np.ndarray, sin_b: np.ndarray, limit: float = 2.0**-16) -> LeafProducts | None:
        """The low-rank products (`Factors.low_rank` at `limit`), or None when no group pays."""
        cos, sin = Factors.low_rank(cos_b, limit), Factors.low_rank(sin_b, limit)
        if cos.inner == sin.inner == 0:
            return None
        return cls.of(cos_b, sin_b, cos, sin)

    def sums(
        self, cos_a: np.ndarray, sin_a: np.ndarray, product: Product | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """X̂ and Ŷ, shape (h + 1, anchors), for the anchor factors from `anchor_factors`."""
        return self.cos.times(cos_a, product), self.sin.times(sin_a, product)


Product = Callable[[np.ndarray, np.ndarray], np.ndarray]


def float32_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The float32 matrix product the screen relies on (numpy's BLAS), checked by `product_failure`."""
    return a @ b


#: Columns of the probe products of `product_failure`.
_PROBE_COLUMNS = 64


@functools.cache
def product_failure(
    product: Callable[[np.ndarray, np.ndarray], np.ndarray], rows: int, inner: int
) -> str | None:
    """Why `product` of float32 (rows × inner)·(inner × 64) matrices breaks the bound `product_error`
    assumes, |fl32(A·B) − A·B| ≤ γ_inner(2^-24)·|A|·|B| (a product rounding to nearest in float32), checked
    against the float64 product of the same inputs on random entries in [−1, 1]; None when it holds. A
    product that rounds its inputs (bf16, TF32) or accumulates in less than float32 fails."""
    rng = np.random.default_rng(rows * 65537 + inner)
    a = rng.uniform(-1, 1, (rows, inner)).astype(np.float32)
    b = rng.uniform(-1, 1, (inner, _PROBE_COLUMNS)).astype(np.float32)
    wide_a, wide_b = a.astype(np.float64), b.astype(np.float64)
    exact = wide_a @ wide_b
    bound = (_gamma(inner, _U32) + 2 * _gamma(inner + 2, _U64)) * (np.abs(wide_a) @ np.abs(wide_b)) + _TINY
    error = np.abs(np.asarray(product(a, b), dtype=np.float64) - exact)
    if error.shape != exact.shape or not np.all(error <= bound):
        worst = float(np.max(error / bound)) if error.shape == exact.shape else math.inf
        return (
            f"the float32 matrix product ({rows} × {inner})·({inner} × {_PROBE_COLUMNS}) errs by up to "
            f"{worst:.3g} "
            "times the bound of a product rounding to nearest in float32 (reduced-precision inputs or sums?)"
        )
    return None


def _trig_probes() -> np.ndarray:
    """float32 angles in [−π, π]: a grid of 2^16, and 16 float32 neighbours either side of 0, ±π/4, ±π/2,
    ±3π/4 and ±π (the float32 nearest π lies above it, so ±π is probed from inside)."""
    grid = np.linspace(-np.pi, np.pi, 2**16).astype(np.float32)
    hard = np.float32(np.pi) * np.array([0, 0.25, 0.5, 0.75, 1, -0.25, -0.5, -0.75, -1], dtype=np.float32)
    steps = np.arange(-16, 17, dtype=np.float32)
    near = np.concatenate([x + steps * np.spacing(x) for x in hard]).astype(np.float32)
    return np.concatenate([grid, near[np.abs(near.astype(np.float64)) <= np.pi]])


@functools.cache
def trig_failure(
    cos: Callable[[np.ndarray], np.ndarray], sin: Callable[[np.ndarray], np.ndarray]
) -> str | None:
    """Why numpy's `cos` or `sin` breaks what the screen assumes on [−π, π]: in float32 within 2^-22
    (ANCHOR_FACTOR_ERROR), in float64 within 2^-30 (the leaf tables, `product_error`), on `_trig_probes`
    against the math module's float64 values of the same arguments; None when all hold."""
    angle = _trig_probes()
    wide = angle.astype(np.float64)
    for name, function, reference in (("cos", cos, math.cos), ("sin", sin, math.sin)):
        exact = np.array([reference(x) for x in wide.tolist()])
        for argument, bound, kind in ((angle, 2.0**-22, "float32"), (wide, 2.0**-30, "float64")):
            error = float(np.max(np.abs(np.asarray(function(argument), dtype=np.float64) - exact)))
            if not error <= bound - 2.0**-50:
                return f"numpy's {kind} {name} errs by {error:.3g} on [−π, π], beyond the {bound:.3g} assumed"
    return None


#: Bound on |ĉ − cos 2πt| and |ŝ − sin 2πt| for the float32 anchor factors of `anchor_factors`: the angle
#: 2π(t − round(t)) ∈ [−π, π] rounds to float32 within 2^-23, and numpy's float32 cos and sin are assumed
#: within 2^-22 there (`tests/properties/test_separation_certified.py` checks this on a dense grid).
ANCHOR_FACTOR_ERROR = 2.0**-23 + 2.0**-22 + 2.0**-50


def anchor_factors(hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cos 2πt and sin 2πt in float32 for the turn positions t of the rows of `hi`, transposed to (d/2,
    rows), each within ANCHOR_FACTOR_ERROR: the float32 functions on the angle reduced to [−π, π]."""
    turns = turns_float(hi)
    angle = (2 * np.pi * (turns - (turns >= 0.5))).T.astype(np.float32)
    return np.cos(angle), np.sin(angle)


@dataclass(frozen=True)
class ScreenNumerics:
    """Where the float32 screen computes: its anchor factors (within ANCHOR_FACTOR_ERROR), its float32 matrix
    product (rounding to nearest), and the run-time checks of both on the machine and device it runs on
    (`failures(shapes)`: why an assumption fails, at the product shapes the screen used)."""

    name: str
    anchor_factors: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
    product: Product
    failures: Callable[[set[tuple[int, int]]], tuple[str, ...]]


def _numpy_failures(shapes: set[tuple[int, int]]) -> tuple[str, ...]:
    failures = [trig_failure(np.cos, np.sin)]
    failures += [product_failure(float32_product, rows, inner) for rows, inner in sorted(shapes)]
    return tuple(failure for failure in failures if failure is not None)


def _numpy_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return float32_product(a, b)  # looked up as it runs: the screen and its check use the same product


#: The screen in numpy: float32 cos and sin of the reduced angles, numpy's BLAS for the products.
NUMPY_SCREEN = ScreenNumerics("numpy", anchor_factors, _numpy_product, _numpy_failures)


@dataclass(frozen=True)
class TurnTable:
    """F_i = round(2^128·ω_i/2π) (d/2 frequencies) and the float64 turn rates f_i = F_i/2^128; the turn
    position of offset k is k·F_i mod 2^128, kept as two uint64 words (hi, lo)."""

    fixed: tuple[int, ...]
    rates: np.ndarray

    @classmethod
    def of(cls, encoding: Sinusoidal) -> TurnTable:
        """The table for an even-d encoding, from its frequencies at FIXED_POINT_DPS digits."""
        import mpmath

        omegas = encoding.frequencies_mp(FIXED_POINT_DPS)[: encoding.d // 2]
        with mpmath.workdps(FIXED_POINT_DPS):
            fixed = tuple(
                int(mpmath.nint(mpmath.frac(omega / (2 * mpmath.pi)) * mpmath.mpf(2) ** 128)) % 2**128
                for omega in omegas
            )
        return cls(fixed, np.array([value / 2**128 for value in fixed]))

    def at(self, offset: int) -> tuple[np.ndarray, np.ndarray]:
        """The turn positions of one offset, exactly (k·F_i mod 2^128), as (hi, lo) words."""
        values = [(offset * value) % 2**128 for value in self.fixed]
        return (
            np.array([v >> 64 for v in values], dtype=np.uint64),
            np.array([v & _MASK64 for v in values], dtype=np.uint64),
        )

    def high_words(self, offsets: np.ndarray, columns: np.ndarray | None = None) -> np.ndarray:
        """The high words of the turn positions of many offsets 0 ≤ k < 2^62 at once, exactly (k·F_i mod
        2^128, shifted down by 64 bits), on the frequencies `columns` (default all): shape (offsets,
        columns). With F = F_h·2^64 + F_l, it is k·F_h mod 2^64 (uint64 arithmetic wraps) plus the high word
        of k·F_l, from products of 32-bit limbs (each exact in uint64)."""
        fixed = self.fixed if columns is None else [self.fixed[i] for i in columns.tolist()]
        high = np.array([value >> 64 for value in fixed], dtype=np.uint64)
        g1 = np.array([(value >> 32) & 0xFFFFFFFF for value in fixed], dtype=np.uint64)
        g0 = np.array([value & 0xFFFFFFFF for value in fixed], dtype=np.uint64)
        k = np.asarray(offsets, dtype=np.int64).astype(np.uint64)[:, None]
        shift = np.uint64(32)
        k0, k1 = k & _MASK32, k >> shift
        cross, other = k1 * g0, k0 * g1
        carry = ((cross & _MASK32) + (other & _MASK32) + ((k0 * g0) >> shift)) >> shift
        words = k * high
        words += k1 * g1
        words += cross >> shift
        words += other >> shift
        words += carry
        return words

    def steps(self, step: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The turn positions of 0, step, 2·step, …, (count − 1)·step: shape (count, d/2), by exact 128-bit
        additions."""
        hi = np.zeros((count, len(self.fixed)), dtype=np.uint64)
        lo = np.zeros_like(hi)
        one_hi, one_lo = self.at(step)
        for j in range(1, count):
            hi[j], lo[j] = add_turns(hi[j - 1], lo[j - 1], one_hi, one_lo)
        return hi, lo


def add_turns(
    hi: np.ndarray, lo: np.ndarray, other_hi: np.ndarray, other_lo: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(hi, lo) + (other_hi, other_lo) modulo 2^128, broadcasting: the turn position of a sum of offsets."""
    low = lo + other_lo
    high = hi + other_hi
    high += low < lo
    return high, low


def turns_float(hi: np.ndarray) -> np.ndarray:
    """The turn fraction hi·2^-64 ∈ [0, 1) in float64 (the low word adds less than 2^-64)."""
    return hi.astype(np.float64) * 2.0**-64


class InconsistentEnclosures(ArithmeticError):
    """Every offset was excluded, so some bound exceeded a value it was meant to bound."""


@dataclass(frozen=True)
class ChordBounds:
    """The enclosures the certified search relies on; a twin that overstates one must be caught
    (`audit_separation`)."""

    def interval(self, turns: np.ndarray, advance: np.ndarray) -> np.ndarray:
        """Per frequency, a lower bound on 4 sin²(πx) over the arc [turns, turns + advance]."""
        return arc_lower_bounds(turns, advance)

    def point_upper(self, turns: np.ndarray) -> np.ndarray:
        """Per frequency, an upper bound on 4 sin²(πt) at the turn position."""
        return point_upper_bounds(turns)

    def screen_error(self, products: LeafProducts) -> float:
        """The bound on the float32 block products' error in S (`LeafProducts.error`)."""
        return products.error

    def factored_products(self, cos_b: np.ndarray, sin_b: np.ndarray) -> LeafProducts | None:
        """The low-rank products the screen switches to once it has screened enough leaves
        (`LeafProducts.factored`)."""
        return LeafProducts.factored(cos_b, sin_b)


CHORD_BOUNDS = ChordBounds()

#: Frequencies added to the interval bounds at a time; intervals are dropped as soon as the partial bound
#: exceeds the attained value (every term is non-negative).
_COLUMN_BLOCK = 8

#: Turn positions held at once (frontier intervals × d/2); sets the search's memory (`separation_memory`).
_FRONTIER_ENTRIES = 2**21

#: Offsets screened at once (2^20 // leaf leaves): their float32 products and sums (8 bytes an offset, 8 MiB)
#: are read several times, and fewer than 256 anchors leave the block products short of BLAS speed at leaves
#: of 4096, while leaves of 16 in blocks of 256 spent their time in per-block overhead.
_SCREEN_OFFSETS = 2**20

#: The screen switches to low-rank products after this many leaves: decomposing the matrices group by group
#: took about as long as screening 4600 leaves of plain products at d = 4096 and 5000 at d = 512.
_FACTOR_AFTER = 4096


@dataclass(frozen=True)
class Excluded:
    """Excluded intervals [start, start + length) of offsets and the lower bound on S that excluded each,
    in the order the search excluded them."""

    starts: np.ndarray
    lengths: np.ndarray
    bounds: np.ndarray


@dataclass(frozen=True)
class Tiling:
    """A searched range cut into pieces [start, start + length), ascending and end to end, each with a lower
    bound on S the search claims at every offset of it: a piece excluded by one arc bound over it
    (`one_by_one` False), or a leaf whose offsets were bounded one by one (by the screen, an enclosure, or
    kept to the last phase), its bound the least of theirs. Each claim is taken down by CLAIM_SLACK, which
    covers the summation order and the carry a re-derivation may differ in. A chunk's certificate, checked
    by `separation_certificates.check_chunks` without trusting the search."""

    starts: np.ndarray
    lengths: np.ndarray
    bounds: np.ndarray
    one_by_one: np.ndarray

    @property
    def nbytes(self) -> int:
        """Bytes its arrays hold."""
        return sum(array.nbytes for array in (self.starts, self.lengths, self.bounds, self.one_by_one))


#: Bytes a `Tiling` holds per piece (start, length, bound and kind), and pieces at most per leaf of the range:
#: excluded intervals hold at least a leaf each, except one cut short at the range's end per level.
TILING_BYTES_PER_PIECE = 25


def tiling_memory(d: int, size: int, leaf: int | None = None) -> int:
    """Bytes the certificate (`Tiling`) of a search over `size` offsets holds at most, before it is built:
    a piece per leaf screened or interval excluded (each at least a leaf long, but one per level of the tree),
    twice over while its parts are joined."""
    leaf = leaf or search_shape(d)[0]
    return 2 * TILING_BYTES_PER_PIECE * (-(-size // leaf) + 64)


#: Relative and absolute amounts a `Tiling`'s claims are taken down by: a re-derived arc bound may sum its
#: d/2 terms in another order ((d/2 + 2)·2^-52 relative, below 2^-40 for d ≤ 4096) and read a turn position
#: with the carry from the low word the search left out (below 2^-64 turns, 2^-60 of S per term).
CLAIM_SLACK = (2.0**-38, 2.0**-52)


@dataclass(frozen=True)
class Separation:
    """min over from_offset ≤ k < max_offset of ‖PE(p + k) − PE(p)‖ for every p, with its certificate.

    `minimum` is √S at the argmin, a ball at `prec` bits; `argmin_offsets` are the offsets whose balls
    overlap it (one: the minimiser is decided, `certified`). Every other offset in the range has
    distance at least √`next_squared` (S units, a certified float lower bound). Offsets were excluded
    `by_bounds` (inside intervals whose arc bound exceeds an attained value), `by_screen` (one by one, by the
    float32 block product and its error bound), `by_points` (by single-offset enclosures) or at 50 digits
    (`candidates` evaluated in arb); `seconds` says how long each phase took. With `record`, `pruned` holds
    every excluded interval. A run seeded with a value attained elsewhere (`certified_separation`'s `seed`)
    in which every offset lies above the seed has no minimum: `minimum` None, `argmin_offsets` empty, and
    `next_squared` bounds every offset of the range.
    """

    d: int
    base: str
    from_offset: int
    max_offset: int
    minimum: flint.arb | None
    argmin_offsets: tuple[int, ...]
    next_squared: float
    by_bounds: int
    by_screen: int
    by_points: int
    candidates: int
    seconds: dict[str, float]
    pruned: Excluded | None = None
    failed_assumptions: tuple[str, ...] = ()
    least_lower: Fraction | None = None
    seed: float | None = None
    #: The offset whose ball is `minimum` (one of `argmin_offsets`; None without a minimum).
    minimum_at: int | None = None
    #: With `certify`, the certificate of the range: what every offset was excluded by (`Tiling`).
    tiling: Tiling | None = None

    @property
    def certified(self) -> bool:
        """The minimiser is decided (one offset's ball lies below every other offset's bound) and every
        numerical assumption of the screen held where it ran (`trig_failure`, `product_failure`)."""
        return self.minimum is not None and len(self.argmin_offsets) == 1 and not self.failed_assumptions

    def same_answer(self, other: Separation) -> bool:
        """Whether `other` gives this answer: the same minimum ball (midpoint and radius), the same offsets
        attaining it and the same certificate (how it was reached, and the bounds on other offsets, may
        differ)."""
        if self.minimum is None or other.minimum is None:
            return self.minimum is other.minimum and self.argmin_offsets == other.argmin_offsets
        return (
            self.minimum.mid() == other.minimum.mid()
            and self.minimum.rad() == other.minimum.rad()
            and self.argmin_offsets == other.argmin_offsets
            and self.certified == other.certified
        )

    @property
    def reason(self) -> str | None:
        """Why the answer is not certified; None when it is."""
        if self.failed_assumptions:
            return "; ".join(self.failed_assumptions)
        if self.minimum is None:
            return "every offset of the range lies above the seed: the minimum is attained elsewhere"
        return None if self.certified else "the minimiser is not decided between the offsets listed"

    @property
    def next_lower_bound(self) -> Fraction | None:
        """A rigorous lower bound on the distance at every offset of the range other than `argmin_offsets`;
        None when the range holds no other offset (`next_squared` is then +∞)."""
        if math.isinf(self.next_squared):
            return None
        return Fraction(math.sqrt(max(self.next_squared, 0.0)) * (1 - 4 * _U64))

    @property
    def lower_bound(self) -> Fraction:
        """A rigorous lower bound on the distance at every offset of the range: the least lower end over the
        minimum's ball and every other ball evaluated (`least_lower`; the minimum's own when certified). A
        seeded run excluded offsets against the seed, which may lie below its own minimum: its bound is also
        at most `next_lower_bound`, and with no minimum it is that bound."""
        bounds = [] if self.seed is None or self.next_lower_bound is None else [self.next_lower_bound]
        if self.minimum is not None:
            bounds.append(max(_ball_value(self.minimum.mid()) - _ball_value(self.minimum.rad()), Fraction(0)))
        if self.least_lower is not None:
            bounds.append(self.least_lower)
        return min(bounds, default=Fraction(0))


def _ball_value(exact: flint.arb) -> Fraction:
    mantissa, exponent = exact.man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def decimal_floor(value: Fraction, digits: int) -> str:
    """`value` ≥ 0 rounded down to `digits` significant decimal digits, as a plain decimal string."""
    if value <= 0:
        return "0"
    exponent = math.floor(math.log10(value.numerator) - math.log10(value.denominator))
    while Fraction(10) ** exponent > value:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= value:
        exponent += 1
    shift = digits - 1 - exponent
    scaled = math.floor(value * Fraction(10) ** shift)
    text = str(scaled)
    if shift <= 0:
        return text + "0" * -shift
    text = text.rjust(shift + 1, "0")
    return f"{text[:-shift]}.{text[-shift:]}"


def search_shape(d: int) -> tuple[int, int]:
    """The leaf size and branching the certified search uses for d dims unless told: 4^(⌊d/4⌋ + 1) offsets
    per leaf, at most 4096, with branching 4 below 4096 and 16 at it. With few frequencies a float32 screen
    costs more per offset than an arc bound per interval, so short leaves pay. Measured beyond the longest
    wavelength: at d = 6 to 2^34, leaves of 4096 took 7× as long as leaves of 16, and leaves of 32 1.25×;
    at d = 8 to 16 to 2^28, the rule's leaves were within 1.6× of the best of those tried (powers of 4 did
    better than the powers of 2 between them) and up to 3.4× faster than 4096; from d = 20 on, 4096 with
    branching 16 was within 1.3× of the best."""
    if d >= 20:  # 4^(⌊d/4⌋ + 1) ≥ 4096, computed only below it
        return 4096, 16
    return 4 ** (d // 4 + 1), 4


def separation_memory(d: int, max_offset: int, leaf: int | None = None, branching: int | None = None) -> int:
    """Bytes the certified search holds at most (estimated before anything is allocated): per level of the
    tree a piece of children's turn words with their temporaries (32 bytes per entry), the leaf table of
    turn positions, the float32 block products of one block of screened leaves, the anchors' factors of one
    screen chunk and the decomposition of one group of the leaf matrices. The leaf and branching default to
    `search_shape(d)`."""
    shape = search_shape(d)
    leaf, branching = leaf or shape[0], branching or shape[1]
    n = d // 2
    depth = max(1, math.ceil(math.log(max(max_offset / leaf, 1.0), branching)) + 1)
    frontier = depth * _FRONTIER_ENTRIES * 32
    leaf_table = leaf * n * 16 + (leaf // 2 + 1) * n * 56
    anchors = _FRONTIER_ENTRIES * 4 // leaf
    screen = min(anchors * leaf, _SCREEN_OFFSETS) * 18 + anchors * n * 56
    decomposition = (leaf // 2 + 1) * min(n, _GROUP) * 48
    return frontier + leaf_table + screen + decomposition


# Rates behind `separation_seconds` (seconds), measured with `certified_separation` on a 2-core machine over
# d = 2 … 4096, bases 10, 10^4 and 5·10^5 and ranges up to 2^34 (2^40 at d = 6), rounded up. Screened
# offsets cost 1.2e-9 to 2.6e-8 s (d = 14 to 4096); with the global minimum near k = 1 the rest of the range
# is excluded by intervals at 5e-11 to 5.5e-10 s an offset (d ≥ 64); at d ≤ 12 the arc bounds exclude all but
# a fraction of the offsets, at 7e-8 to 1.2e-7 s per interval bounded (d ≤ 6), 1.8e-10 to 1.1e-9 s an offset.
_SECONDS_FIXED = 1.0  # imports aside: tables, the first leaves, the decision in ball arithmetic
_SECONDS_PER_DIM = 5e-4  # the turn table (mpmath), the leaf tables and their decomposition, per dimension
_SECONDS_PER_SCREENED = 2e-9  # an offset screened by the block products, plus per frequency pair:
_SECONDS_PER_SCREENED_PAIR = 1.3e-11
_SECONDS_PER_EXCLUDED = 3e-10  # an offset of an interval excluded by the bound against a minimum near k = 1
_SECONDS_PER_BOUNDED = 1e-7  # an interval bounded, when few pairs leave the minimum near 0 (d ≤ 12)
_SECONDS_PER_BOUNDED_OFFSET = (5e-10, 1.2e-9)  # the least rate an offset at d ≤ 6, and at 8 ≤ d ≤ 12
_FEW_PAIRS = 12  # up to this d the arc bounds decide most offsets beyond the longest wavelength

# Rates behind `separation_seconds(..., check=True)`, the check of a certificate (`separation_certificates`),
# measured with benchmarks/chunk_certificates.py at d = 6, 64 and 512 and rounded up: an offset the screen
# decided beyond the longest wavelength is checked in the float64 block products, each frequency pair in
# full, since the minimum there lies close to every leaf's least value (4.2e-11 to 4.7e-11 s a pair at
# d = 512, 60612 ≤ k < 2^27 and < 2^24); with the minimum near k = 1 the intervals and leaves took 7.5e-11
# (d = 512) to 1.5e-10 (d = 64) s an offset; with few pairs the check took up to 0.76 times the search.
_CHECK_SECONDS_PER_SCREENED_PAIR = 1e-10
_CHECK_SECONDS_PER_EXCLUDED = 1e-9
_CHECK_FEW_PAIRS = 1.0


def separation_seconds(
    d: int,
    base: float,
    max_offset: int,
    from_offset: int = 1,
    *,
    check: bool = False,
    omegas: np.ndarray | None = None,
) -> float:
    """A rough estimate of the seconds `certified_separation` takes over from_offset ≤ k < max_offset, in
    closed form from d, the frequencies and the range (nothing of the range's size is built), on a 2-core
    machine; with `check`, of the seconds the check of its certificate takes
    (`separation_certificates.check_chunks`). The frequencies are base^(−2i/d), or the given `omegas` (a
    scaled RoPE's, whose pairs a factor slows unevenly; pairs that do not turn are left out).

    Beyond the longest wavelength λ = 2π/ω_min the distance behaves like a sum of d/2 independent terms,
    whose least value over N offsets is near d − √d·√(2 ln N). When the range starts below λ and the
    Lipschitz bound k²‖ω‖² at its first offset is below that, the minimum lies near the start and the rest
    is excluded by long intervals; else the offsets are screened one by one (d > 12) or, with few pairs, the
    arc bounds exclude all but a fraction of them: an interval of L offsets survives its bound when every
    pair may reach a whole turn inside it, with probability Π_i min(1, L·f_i) (f_i = ω_i/2π).
    """
    n = d // 2
    count = max(max_offset - from_offset, 0)
    if omegas is None:  # geometric in i: closed forms, so that a huge d builds nothing of its size
        log_base = math.log(base)
        slowest = -float(frequency_exponent(n - 1, d)) * log_base  # ln(1/ω_min)
        step = 2 * float(frequency_exponent(1, d)) * log_base  # ln(ω_(i+1)²/ω_i²)
        squared_norm = math.expm1(n * step) / math.expm1(step)  # Σ_i ω_i², a geometric sum
    else:
        turning = np.asarray(omegas, dtype=np.float64)
        turning = turning[turning > 0]
        slowest, squared_norm = -math.log(float(turning.min())), float(np.sum(turning**2))
    far_start = math.exp(min(math.log(2 * math.pi) + slowest, 63 * math.log(2)))
    far = max(max_offset - max(from_offset, far_start), 0.0)
    near_minimum = min(4.0 * n, from_offset**2 * squared_norm) if from_offset < 2**32 else 4.0 * n
    far_minimum = 2 * n - math.sqrt(2 * n) * math.sqrt(2 * math.log(max(far, 2.0)))
    fixed = _SECONDS_FIXED + _SECONDS_PER_DIM * d
    if from_offset < far_start and (far == 0 or near_minimum < far_minimum):
        return fixed + count * (_CHECK_SECONDS_PER_EXCLUDED if check else _SECONDS_PER_EXCLUDED)
    if d > _FEW_PAIRS:
        if check:
            return fixed + count * n * _CHECK_SECONDS_PER_SCREENED_PAIR
        return fixed + count * (_SECONDS_PER_SCREENED + _SECONDS_PER_SCREENED_PAIR * n)
    leaf, branching = search_shape(d)
    rates = frequencies(d, base, count=n) if omegas is None else turning
    rates = rates / (2 * math.pi)
    bounded, length = 0.0, leaf
    while length < max(count, leaf) * branching:
        bounded += math.prod(min(1.0, branching * length * float(rate)) for rate in rates) / length
        length *= branching
    least = _SECONDS_PER_BOUNDED_OFFSET[d > 6]
    return (fixed + count * max(_SECONDS_PER_BOUNDED * bounded, least)) * (_CHECK_FEW_PAIRS if check else 1)


def encoding_seconds(
    encoding: Sinusoidal, max_offset: int, from_offset: int = 1, *, check: bool = False
) -> float:
    """`separation_seconds` for `encoding`: at its given frequencies, or at its base's."""
    omegas = None if encoding.omegas is None else encoding.frequencies64()
    return separation_seconds(
        encoding.d, float(encoding.base), max_offset, from_offset, check=check, omegas=omegas
    )


def base_text(encoding: Sinusoidal) -> str:
    """The base a result names: the encoding's, or "given frequencies" when it reads its own `omegas`."""
    return str(encoding.base) if encoding.omegas is None else "given frequencies"


class _Search:
    """The state of one branch and bound: the best attained upper bound on min S, the surviving single
    offsets and the tallies of what was excluded how."""

    def __init__(
        self,
        encoding: Sinusoidal,
        first: int,
        stop: int,
        bounds: ChordBounds,
        leaf: int,
        record: bool,
        seed: float = math.inf,
        numerics: ScreenNumerics = NUMPY_SCREEN,
        certify: bool = False,
    ) -> None:
        self.numerics = numerics
        self.table = TurnTable.of(encoding)
        self.n = encoding.d // 2
        self.first, self.stop, self.bounds, self.leaf, self.record = first, stop, bounds, leaf, record
        self.best = self.seed = seed
        self.next_squared = math.inf
        self.by_bounds = self.by_screen = self.by_points = 0
        self.survivors: dict[int, float] = {}
        self.pruned: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.tiles: list[tuple[np.ndarray, np.ndarray, np.ndarray, bool]] | None = [] if certify else None
        self.half = -(-leaf // 2)
        self.sin_b, self.cos_b = sin_cos_at_integers(
            np.arange(self.half + 1), encoding.frequencies_mp(FIXED_POINT_DPS)
        )
        self.products = LeafProducts.plain(self.cos_b, self.sin_b)
        self.factor_after: int | None = _FACTOR_AFTER
        self.half_hi, self.half_lo = self.table.at(self.half)
        self.leaf_hi, self.leaf_lo = self.table.steps(1, leaf)
        self.seconds = {"bounds": 0.0, "screen": 0.0, "points": 0.0}
        self.yields: dict[int, tuple[bool, int]] = {}
        self.shapes: set[tuple[int, int]] = set()

    def failed_assumptions(self) -> tuple[str, ...]:
        """The numerical assumptions of the screen that fail where it ran, if it screened any leaf: for numpy,
        its float32 cos and sin (`trig_failure`) and the float32 products at every shape used
        (`product_failure`); for another `ScreenNumerics`, its own checks."""
        return self.numerics.failures(self.shapes) if self.shapes else ()

    @property
    def screen_error(self) -> float:
        """The bound on the error in S of the products the screen uses now."""
        return self.bounds.screen_error(self.products)

    def lengths(self, starts: np.ndarray, length: int) -> np.ndarray:
        return np.minimum(length, self.stop - starts)

    def attain(self, hi: np.ndarray) -> None:
        """Lower `best` to the upper bounds of S at the offsets whose turn positions are the rows of hi."""
        if hi.shape[0]:
            self.best = min(self.best, float(sum_upper(self.bounds.point_upper(turns_float(hi))).min()))

    def bound_columns(self, length: int) -> np.ndarray | None:
        """The frequencies whose arc over `length` offsets is shorter than a turn, slowest first; None when
        even 4 for each of them could not exceed `best` (nothing could be pruned), or when the last bounds at
        this length excluded under 0.1 % of their intervals and fewer than 8 pieces were skipped since
        (skipping a bound is always sound)."""
        useful, skipped = self.yields.get(length, (True, 0))
        if not useful and skipped < 8:
            self.yields[length] = (useful, skipped + 1)
            return None
        slow = np.flatnonzero((length - 1) * self.table.rates + 2 * TURN_MARGIN < 1)[::-1]
        return None if 4 * slow.size * (1 + POLYNOMIAL_MARGIN) <= self.best else slow

    def prune(
        self, starts: np.ndarray, hi: np.ndarray, length: int, columns: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Which intervals [start, start + length) have an arc bound over the frequencies `columns` not
        above `best`, their turn words being the columns of `hi`, and the kept one with the least bound;
        the rest are excluded, counted and, if recording, kept."""
        started = time.perf_counter()
        # Every interval is bounded over the arcs of `length` offsets: an interval cut short by `stop` covers
        # a sub-arc, on which 4 sin² is at least its least value over the whole arc.
        advance = (length - 1) * self.table.rates
        lower = np.zeros(starts.size)
        alive = np.arange(starts.size)
        for block in range(0, columns.size, _COLUMN_BLOCK):
            part = slice(block, block + _COLUMN_BLOCK)
            everyone = alive.size == starts.size
            words = hi[:, part] if everyone else hi[alive, part]
            terms = self.bounds.interval(turns_float(words), advance[columns[part]][None, :]).sum(-1)
            partial = lower if everyone else lower[alive]
            partial += terms
            if not everyone:
                lower[alive] = partial
            factor = 1 - (min(block + _COLUMN_BLOCK, columns.size) + 2) * 2 * _U64
            alive = alive[partial * factor <= self.best]
            if not alive.size:
                break
        lower *= 1 - (columns.size + 2) * 2 * _U64
        keep = np.zeros(starts.size, dtype=bool)
        keep[alive] = True
        self.yields[length] = (1000 * (starts.size - alive.size) >= starts.size, 0)
        lowest = alive[np.argmin(lower[alive])][None] if alive.size else alive
        if alive.size < starts.size:
            gone = ~keep
            first = starts[gone]
            lengths = self.lengths(first, length)
            covered = int(lengths.sum())
            self.by_bounds += covered
            self.next_squared = min(self.next_squared, float(lower[gone].min()))
            if self.record:
                self._keep(first, lengths, lower[gone])
            if self.tiles is not None:
                self.tiles.append((first, lengths, lower[gone], False))
            self._done(covered)
        self.seconds["bounds"] += time.perf_counter() - started
        return keep, lowest

    def points(self, offsets: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Single offsets with their turn positions: enclose S, lower `best`, keep those that may attain
        it; their lower bounds on S."""
        if not offsets.size:
            return np.zeros(0)
        turns = turns_float(hi)
        upper = sum_upper(self.bounds.point_upper(turns))
        lower = sum_lower(self.bounds.interval(turns, np.zeros_like(turns)))
        self.best = min(self.best, float(upper.min()))
        keep = lower <= self.best
        self.by_points += int(np.count_nonzero(~keep))
        if (~keep).any():
            self.next_squared = min(self.next_squared, float(lower[~keep].min()))
            if self.record:
                self._keep(offsets[~keep], 1, lower[~keep])
        self.survivors.update(zip(offsets[keep].tolist(), lower[keep].tolist(), strict=True))
        return lower

    def screen(self, starts: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> None:
        """Leaves [s, s + leaf) around anchors a = s + h (h = ⌈leaf/2⌉): with X = Σ_i cos bω_i cos aω_i and
        Y = Σ_i sin bω_i sin aω_i as float32 block products, S(a ± b) = d − 2(X ∓ Y) within `screen_error`.
        Leaves go _SCREEN_OFFSETS offsets at a time, so that the products stay in cache as they are read."""
        started = time.perf_counter()
        anchor_hi, _ = add_turns(hi, lo, self.half_hi[None, :], self.half_lo[None, :])
        cos_a, sin_a = self.numerics.anchor_factors(anchor_hi)
        if self.factor_after is not None:
            self.factor_after -= starts.size
            if self.factor_after <= 0:
                self._factor()
        self.shapes |= self.products.cos.shapes() | self.products.sin.shapes()
        block = max(1, _SCREEN_OFFSETS // self.leaf)
        for first in range(0, starts.size, block):
            part = slice(first, first + block)
            self._screen_leaves(starts[part], hi[part], lo[part], cos_a[:, part], sin_a[:, part])
        self.seconds["screen"] += time.perf_counter() - started

    def _factor(self) -> None:
        """Switch to low-rank products if they pay (their decomposition costs about as much as screening
        _FACTOR_AFTER leaves with the plain ones)."""
        self.factor_after = None
        factored = self.bounds.factored_products(self.cos_b, self.sin_b)
        if factored is not None:
            self.products = factored
        del self.cos_b, self.sin_b

    def _screen_leaves(
        self, starts: np.ndarray, hi: np.ndarray, lo: np.ndarray, cos_a: np.ndarray, sin_a: np.ndarray
    ) -> None:
        """Screen the leaves at `starts` (their anchors' cos aω_i and sin aω_i the columns of cos_a, sin_a):
        the offset of least S is enclosed first, then every offset whose S less the error cannot exceed
        `best` (X ∓ Y at or above a float32 threshold rounded down). Row r of the sums is offset s + r;
        rows beyond a leaf cut short by `stop` are −∞."""
        half = self.half
        x, y = self.products.sums(cos_a, sin_a, self.numerics.product)
        sums = np.empty((2 * half, starts.size), dtype=np.float32)
        np.add(x[half:0:-1], y[half:0:-1], out=sums[:half])
        np.subtract(x[:half], y[:half], out=sums[half:])
        del x, y
        lengths = self.lengths(starts, 2 * half)
        for leaf in np.flatnonzero(lengths < 2 * half):
            sums[lengths[leaf] :, leaf] = -np.inf
        tops = sums.max(axis=0)
        top = int(np.argmax(tops))
        row = int(np.argmax(sums[:, top]))
        enclosed = [self._enclose(starts, hi, lo, np.array([row * starts.size + top]))]
        sums[row, top] = -np.inf
        tops[top] = sums[:, top].max()
        threshold = np.nextafter(np.float32((2 * self.n - self.screen_error - self.best) / 2), -np.inf)
        open_leaves = np.flatnonzero(tops >= threshold)
        candidates = sums[:, open_leaves]
        chosen = candidates >= threshold
        within = int(lengths.sum()) - 1
        kept = int(np.count_nonzero(chosen))
        self.by_screen += within - kept
        if kept < within:
            nearest = max(
                float(np.max(tops, where=tops < threshold, initial=-np.inf)),
                float(np.max(candidates, where=~chosen, initial=-np.inf)),
            )
            self.next_squared = min(self.next_squared, 2 * self.n - 2 * nearest - self.screen_error)
            if self.record:
                row, leaf = np.nonzero((sums < threshold) & (sums > -np.inf))
                claimed = 2 * self.n - 2 * sums[row, leaf].astype(np.float64) - self.screen_error
                self._keep(starts[leaf] + row, 1, claimed)
        row, column = np.nonzero(chosen)
        enclosed.append(self._enclose(starts, hi, lo, row * starts.size + open_leaves[column]))
        if self.tiles is not None:
            # Each leaf's claim: the least of the screen's bounds on its excluded offsets (the greatest sum
            # below the threshold: all of a closed leaf's, the unchosen of an open one's) and of its enclosed
            # offsets' bounds.
            excluded = tops.copy()
            excluded[open_leaves] = np.max(candidates, axis=0, where=~chosen, initial=-np.inf)
            claims = 2 * self.n - 2 * excluded.astype(np.float64) - self.screen_error
            for leaf, lower in enclosed:
                np.minimum.at(claims, leaf, lower)
            self.tiles.append((starts, lengths, claims, True))
        self._done(within + 1)

    def _enclose(
        self, starts: np.ndarray, hi: np.ndarray, lo: np.ndarray, flat: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Enclose the offsets at `flat` (row-major in the leaves' sums): their leaves and lower bounds."""
        within, leaf = np.divmod(flat, starts.size)
        turn_hi, _ = add_turns(hi[leaf], lo[leaf], self.leaf_hi[within], self.leaf_lo[within])
        return leaf, self.points(starts[leaf] + within, turn_hi)

    def search(self, branching: int, on_progress: Callable[[int], None] | None) -> None:
        """Cover [first, stop) by one root interval of leaf·branching^m offsets and refine it depth first in
        pieces: children inherit exact turn positions by 128-bit additions (first on the frequencies their
        bound reads, then, for those not pruned, on all), intervals are pruned by their arc bound, leaves
        are screened."""
        self.branching, self.on_progress = branching, on_progress
        root = self.leaf
        while root < self.stop - self.first:
            root *= branching
        hi, lo = self.table.at(self.first)
        self.attain(hi[None, :])
        self._refine(np.array([self.first], dtype=np.int64), hi[None, :], lo[None, :], root)

    def _keep(self, starts: np.ndarray, lengths: np.ndarray | int, lower: np.ndarray) -> None:
        """Record excluded intervals [start, start + length) with the bound that excluded them."""
        lengths = np.broadcast_to(lengths, starts.shape)
        self.pruned.append((starts.astype(np.int64), lengths.astype(np.int64), lower.astype(np.float64)))

    def tiling(self) -> Tiling:
        """The pieces collected with `certify`, ascending, their claims taken down by CLAIM_SLACK."""
        assert self.tiles is not None
        starts, lengths, bounds = (
            np.concatenate([np.asarray(part[i], dtype) for part in self.tiles] or [np.zeros(0, dtype)])
            for i, dtype in ((0, np.int64), (1, np.int64), (2, np.float64))
        )
        one_by_one = np.concatenate(
            [np.full(len(part[0]), part[3]) for part in self.tiles] or [np.zeros(0, dtype=bool)]
        )
        order = np.argsort(starts, kind="stable")
        relative, absolute = CLAIM_SLACK
        claims = np.maximum(bounds[order] * (1 - relative) - self.n * absolute, 0.0)
        return Tiling(starts[order], lengths[order], claims, one_by_one[order])

    def excluded(self) -> Excluded:
        """Every interval recorded by `_keep`."""
        parts = [np.concatenate(part) for part in zip(*self.pruned, strict=True)] if self.pruned else []
        return Excluded(*parts) if parts else Excluded(*(np.zeros(0, dtype) for dtype in (int, int, float)))

    def _done(self, offsets: int) -> None:
        if self.on_progress is not None and offsets:
            self.on_progress(offsets)

    def _refine(self, starts: np.ndarray, hi: np.ndarray, lo: np.ndarray, length: int) -> None:
        if length <= self.leaf:
            chunk = max(1, _FRONTIER_ENTRIES * 4 // self.leaf)
            for first in range(0, starts.size, chunk):
                part = slice(first, first + chunk)
                self.screen(starts[part], hi[part], lo[part])
            return
        child = length // self.branching
        step_hi, step_lo = self.table.steps(child, self.branching)
        piece = max(1, _FRONTIER_ENTRIES // (self.n * self.branching))
        for first in range(0, starts.size, piece):
            part = slice(first, first + piece)
            columns = self.bound_columns(child)
            self._refine(
                *self._children(starts[part], hi[part], lo[part], child, step_hi, step_lo, columns), child
            )

    def _children(
        self,
        starts: np.ndarray,
        hi: np.ndarray,
        lo: np.ndarray,
        child: int,
        step_hi: np.ndarray,
        step_lo: np.ndarray,
        columns: np.ndarray | None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The `branching` children of each interval (step-major) starting before `stop`, with exact turn
        words, and with `columns` only those the arc bound over these frequencies keeps. Without a bound
        the words come by broadcasting. With one, the bound reads only the high words of those columns,
        summed without the carry from the low words (less than 2^-64 turns off, inside TURN_MARGIN), and
        only the kept children get their exact words on every frequency."""
        # Only steps j with child·j < stop − min(starts) ≤ 2^62 are formed: no start wraps in int64.
        count = min(self.branching, -(-(self.stop - int(starts.min())) // child))
        step_hi, step_lo = step_hi[:count], step_lo[:count]
        kids = (starts[None, :] + child * np.arange(count, dtype=np.int64)[:, None]).reshape(-1)
        index = np.flatnonzero(kids < self.stop) if kids.size and kids.max() >= self.stop else None
        if columns is None:
            kid_hi, kid_lo = add_turns(hi[None], lo[None], step_hi[:, None], step_lo[:, None])
            kid_hi, kid_lo = kid_hi.reshape(-1, self.n), kid_lo.reshape(-1, self.n)
            if index is None:
                return kids, kid_hi, kid_lo
            return kids[index], kid_hi[index], kid_lo[index]
        rough = (hi[:, columns][None] + step_hi[:, columns][:, None]).reshape(-1, columns.size)
        if index is None:
            index = np.arange(kids.size)
        else:
            kids, rough = kids[index], rough[index]
        keep, lowest = self.prune(kids, rough, child, columns)
        step, parent = np.divmod(index[lowest], starts.size)
        self.attain(add_turns(hi[parent], lo[parent], step_hi[step], step_lo[step])[0])
        step, parent = np.divmod(index[keep], starts.size)
        kid_hi, kid_lo = add_turns(hi[parent], lo[parent], step_hi[step], step_lo[step])
        return kids[keep], kid_hi, kid_lo


def longest_excludable_interval(encoding: Sinusoidal, squared: float) -> int:
    """The most offsets an interval may hold and still be excluded by the arc bound against a value S =
    `squared`: pairs that turn a full circle inside it bound nothing, and each other pair at most 4, so an
    interval of L offsets needs 4·#{i : (L − 1)·ω_i/2π < 1} > S."""
    rates = TurnTable.of(encoding).rates
    needed = math.floor(squared / 4) + 1
    if needed > rates.size:
        return 0
    slowest = np.sort(rates)[needed - 1]
    return math.ceil(1 / slowest)


def beyond_longest_wavelength(encoding: Sinusoidal) -> int:
    """⌈λ_max⌉, the first offset beyond one turn of the slowest pair (λ_i = 2π/|ω_i| of the encoding's own
    frequencies, certified in arb)."""
    with flint.ctx.workprec(128):
        omegas = encoding.frequency_balls()[: encoding.d // 2]
        ceilings = [(2 * flint.arb.pi() / abs(omega)).ceil() for omega in omegas]
    if not all(ceiling.is_exact() for ceiling in ceilings):
        raise ValueError(f"the longest wavelength at d = {encoding.d} is too close to an integer to round up")
    return max(int(ceiling.unique_fmpz()) for ceiling in ceilings)


#: The BLAS threads the search's matrix products run on: one. Its products are small blocks: beside a busy
#: neighbour OpenBLAS's threads wait on each other, and a second thread, which buys 1.5× on a quiet 2-core
#: machine, cost 2.2× instead (`benchmarks/separation_threads.py` measures both cases in one run).
SEARCH_BLAS_THREADS = 1


@threadpool_limits.wrap(limits=SEARCH_BLAS_THREADS, user_api="blas")
def certified_separation(
    encoding: Sinusoidal,
    max_offset: int,
    from_offset: int = 1,
    *,
    bounds: ChordBounds = CHORD_BOUNDS,
    leaf: int | None = None,
    branching: int | None = None,
    digits: int = 50,
    record: bool = False,
    on_progress: Callable[[int], None] | None = None,
    seed: float | None = None,
    precision_offset: int | None = None,
    numerics: ScreenNumerics = NUMPY_SCREEN,
    certify: bool = False,
) -> Separation:
    """The least ‖PE(p + k) − PE(p)‖ over from_offset ≤ k < max_offset (d even, the same for every p), the
    offsets attaining it, and a rigorous lower bound for every offset of the range, at the encoding's own
    frequencies (given `omegas`, |ω| < 2^64, or base^(−2i/d)).

    Turn positions k·ω_i/2π are exact 128-bit fixed point (k·F_i mod 2^128), with TURN_MARGIN for every
    rounding after; per frequency, 4 sin²(πx) is enclosed by Taylor polynomials evaluated in IEEE float64
    (`chord_lower`, `chord_upper`: no library sine), sums by `sum_lower`/`sum_upper`. Intervals whose arc
    bound exceeds an attained upper bound are excluded; leaves of `leaf` offsets are screened by float32
    block products, low-rank once enough leaves have been screened, with the bound `LeafProducts.error`
    (which assumes numpy's float64 sin and cos within 2^-30, its float32 ones within 2^-22 on [−π, π] and a
    float32 product rounding to nearest: checked where it runs, `trig_failure` and `product_failure`, a
    failure leaving the answer uncertified with its `reason`);
    what survives is enclosed offset by offset, and the last candidates are evaluated in arb at
    enough bits for `digits` digits. `on_progress(offsets)` is called as each root block is done;
    `record` keeps every excluded interval (for `audit_separation`).

    A chunk of a larger range (`separation_chunks`) may be `seed`ed with an upper bound on S attained at an
    offset elsewhere, so that it prunes against it from the start (when every offset lies above the seed,
    the answer has no minimum), and passes the whole range's end as `precision_offset`, which sets the
    precision of the last evaluation (default `max_offset`): its balls are then those of a single run.
    `numerics` says where the screen computes (default numpy; `separation_torch.torch_screen` for torch).
    With `certify` the answer carries its certificate, `tiling` (at most `tiling_memory` bytes).
    """
    d = require_even_dimension(encoding.d)
    from_offset = require_positive_int(from_offset, "from_offset")
    max_offset = require_positive_int(max_offset, "max_offset")
    if not from_offset < max_offset <= MAX_SEPARATION_OFFSET:
        raise ValueError(
            f"offsets must satisfy 1 ≤ from_offset < max_offset ≤ 2^62, got from_offset = {from_offset} and "
            f"max_offset = {max_offset}"
        )
    if encoding.omegas is not None and not np.all(
        np.abs(encoding.frequencies64()) < MAX_SEPARATION_FREQUENCY
    ):
        raise ValueError(f"the frequencies must satisfy |ω| < 2^64, got {encoding.omegas}")
    shape = search_shape(d)
    leaf = require_positive_int(shape[0] if leaf is None else leaf, "leaf")
    if leaf % 2:
        raise ValueError(f"leaf must be even (two halves around an anchor), got {leaf}")
    branching = require_positive_int(shape[1] if branching is None else branching, "branching")
    if branching < 2:
        raise ValueError(f"branching must be at least 2, got {branching}")
    if seed is not None and not (isinstance(seed, float | int) and 0 <= seed < math.inf):
        raise ValueError(f"seed must be a finite value of S at or above 0, got {seed!r}")
    precision_offset = max_offset if precision_offset is None else precision_offset
    if not max_offset <= require_positive_int(precision_offset, "precision_offset") <= MAX_SEPARATION_OFFSET:
        raise ValueError(f"precision_offset must lie in max_offset … 2^62, got {precision_offset}")
    start = math.inf if seed is None else seed
    search = _Search(encoding, from_offset, max_offset, bounds, leaf, record, start, numerics, certify)
    search.search(branching, on_progress)
    started = time.perf_counter()
    minimum, argmin, others, evaluated, floor, least = _decide(encoding, search, digits, precision_offset)
    search.seconds["points"] = time.perf_counter() - started
    return Separation(
        d,
        base_text(encoding),
        from_offset,
        max_offset,
        minimum,
        argmin,
        min(search.next_squared, others),
        search.by_bounds,
        search.by_screen,
        search.by_points + len(search.survivors) - evaluated,
        evaluated,
        dict(search.seconds),
        search.excluded() if record else None,
        search.failed_assumptions(),
        floor,
        seed,
        least,
        search.tiling() if certify else None,
    )


def squared_distance_ball(encoding: Sinusoidal, offset: int, prec: int) -> flint.arb:
    """S(k) = Σ_i 4 sin²(kω_i/2) as a ball at `prec` bits, over the encoding's own frequencies
    (`Sinusoidal.frequency_balls`: its exact `omegas`, or base^(−2i/d) with the base read exactly)."""
    with flint.ctx.workprec(prec):
        omegas = encoding.frequency_balls()[: encoding.d // 2]
        return _squared_distance(omegas, offset)


def _squared_distance(omegas: list[flint.arb], offset: int) -> flint.arb:
    """Σ_i 4 sin²(kω_i/2) at k = `offset` for frequency balls `omegas`, at the current flint precision."""
    total = flint.arb(0)
    for omega in omegas:
        total += 4 * (offset * omega / 2).sin() ** 2
    return total


def float_up(value: flint.arb) -> float:
    """The least float64 at or above the exact value of an exact arb (an endpoint of a ball)."""
    exact = _ball_value(value)
    rounded = float(exact)
    return rounded if Fraction(rounded) >= exact else float(np.nextafter(rounded, math.inf))


def float_down(value: flint.arb) -> float:
    """The greatest float64 at or below the exact value of an exact arb (an endpoint of a ball)."""
    exact = _ball_value(value)
    rounded = float(exact)
    return rounded if Fraction(rounded) <= exact else float(np.nextafter(rounded, -math.inf))


def decision_precision(encoding: Sinusoidal, precision_offset: int, digits: int) -> int:
    """The bits at which the last candidates are evaluated: enough for `digits` digits of S at offsets up to
    `precision_offset` and the encoding's largest frequency."""
    magnitude = max(math.frexp(abs(omega))[1] for omega in encoding.frequencies64()[: encoding.d // 2])
    return 64 + max(precision_offset, 2).bit_length() + max(magnitude, 0) + math.ceil(digits * 3.33)


def minimum_ball(encoding: Sinusoidal, offset: int, prec: int) -> flint.arb:
    """√S at `offset` as `_decide` computes a minimum at `prec` bits (the same operations: the same ball)."""
    with flint.ctx.workprec(prec):
        return _squared_distance(encoding.frequency_balls()[: encoding.d // 2], offset).sqrt()


def _decide(
    encoding: Sinusoidal, search: _Search, digits: int, precision_offset: int
) -> tuple[flint.arb | None, tuple[int, ...], float, int, Fraction | None, int | None]:
    """Evaluate the surviving offsets in arb (at a precision set by `precision_offset`), least lower bound
    first, until the next bound exceeds the upper end of the least ball so far (rounded up): the minimum,
    the offsets whose balls overlap it, the least bound among the rest (S units, rounded down), how many
    were evaluated, the least lower end of the distance over every evaluated ball, and the offset of the
    minimum. A seeded search with no survivor at or below its seed has none of them (None, (), its bound, 0,
    None, None)."""
    ranked = sorted((lower, k) for k, lower in search.survivors.items() if lower <= search.best)
    others = min((lower for lower in search.survivors.values() if lower > search.best), default=math.inf)
    if not ranked and search.seed < math.inf:
        return None, (), others, 0, None, None
    prec = decision_precision(encoding, precision_offset, digits)
    balls: dict[int, flint.arb] = {}
    with flint.ctx.workprec(prec):
        omegas = encoding.frequency_balls()[: encoding.d // 2]
    least, stop_above = None, math.inf
    for lower, k in ranked:
        if lower > stop_above:
            others = min(others, lower)
            break
        with flint.ctx.workprec(prec):
            balls[k] = _squared_distance(omegas, k)
        if least is None or float(balls[k].mid()) < float(balls[least].mid()):
            least, stop_above = k, float_up(balls[k].upper())
    if least is None:
        raise InconsistentEnclosures("no offset survived the search: an enclosure overstates")
    argmin = tuple(sorted(k for k, ball in balls.items() if ball.overlaps(balls[least])))
    for k, ball in balls.items():
        if k not in argmin:
            others = min(others, float_down(ball.lower()))
    with flint.ctx.workprec(prec):
        minimum = balls[least].sqrt()
        floor = min(_ball_value(ball.lower()) for ball in balls.values())
        root = flint.arb(flint.fmpq(floor.numerator, floor.denominator)).sqrt() if floor > 0 else flint.arb(0)
    floor = _ball_value(root.lower()) if floor > 0 else Fraction(0)
    return minimum, argmin, others, len(balls), floor, least


@dataclass(frozen=True)
class SeparationAudit:
    """A certified search against brute force on a small range: `overstated` lists the excluded intervals
    (start, length, bound), screened and enclosed single offsets included, whose bound exceeds the least
    float64 S over them by more than its error bound; `twice` counts excluded intervals that overlap the next
    one (an offset decided twice, so tallied twice); `agrees` says both found the same minimiser.
    `separation` is None when the search found its own enclosures inconsistent (`failure` says how)."""

    separation: Separation | None
    brute_force_offset: int
    overstated: tuple[tuple[int, int, float], ...]
    twice: int = 0
    failure: str | None = None

    @property
    def agrees(self) -> bool:
        return self.separation is not None and self.separation.argmin_offsets == (self.brute_force_offset,)

    @property
    def holds(self) -> bool:
        return self.agrees and not self.overstated and not self.twice


def audit_separation(
    encoding: Sinusoidal,
    max_offset: int,
    from_offset: int = 1,
    *,
    bounds: ChordBounds = CHORD_BOUNDS,
    leaf: int = 16,
    branching: int = 4,
) -> SeparationAudit:
    """Run `certified_separation` with `bounds` (small leaves, so that intervals are pruned) and check it
    against every offset of the range: float64 S(k) with `offset_error_bound`, the minimiser re-ranked at
    50 digits (`near_collision.nearest_vector_offsets`). For ranges brute force can do (K < 2^24)."""
    if max_offset >= 2**24:
        raise ValueError(f"the audit computes every offset: max_offset must be below 2^24, got {max_offset}")
    nearest = nearest_vector_offsets(encoding, max_offset, count=1, min_offset=from_offset)
    try:
        found = certified_separation(
            encoding, max_offset, from_offset, bounds=bounds, leaf=leaf, branching=branching, record=True
        )
    except InconsistentEnclosures as exc:
        return SeparationAudit(None, nearest.repeats[0].offset, (), failure=str(exc))
    squared = offset_squared_distances(max_offset, encoding.frequencies_mp(FIXED_POINT_DPS))
    error = offset_error_bound(encoding.d)
    pruned = found.pruned
    order = np.lexsort((pruned.lengths, pruned.starts))
    starts, lengths, given = pruned.starts[order], pruned.lengths[order], pruned.bounds[order]
    ends = starts + lengths
    twice = int(np.count_nonzero(ends[:-1] > starts[1:]))
    if twice:
        least = np.array([squared[start:end].min() for start, end in zip(starts, ends, strict=True)])
    else:
        # Disjoint intervals: reduceat over start, end, start, … gives each one's least S at the even
        # places (an end at max_offset reads the appended +∞, which cannot lower a minimum).
        least = np.minimum.reduceat(np.append(squared, np.inf), np.ravel([starts, ends], order="F"))[::2]
    wrong = np.flatnonzero(given > least + error)
    overstated = tuple(
        zip(starts[wrong].tolist(), lengths[wrong].tolist(), given[wrong].tolist(), strict=True)
    )
    return SeparationAudit(found, nearest.repeats[0].offset, overstated, twice)
