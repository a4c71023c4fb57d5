"""Checking chunk certificates: a chunk's search (`separation.certified_separation` with `certify`) returns,
with its minimum, a `separation.Tiling` of its offsets into pieces, each with a lower bound on S it claims at
every offset of the piece. `check_chunks` trusts nothing of it but the pieces' ends and claims:

* the pieces of each chunk follow end to end from its first offset to its last (no gap, no overlap);
* the turn positions of each piece's start are computed anew, exactly (`TurnTable.high_words`), and the arc
  bound over the piece re-derived from them (`arc_lower_bounds`, `summation_factor`; no float32 screen): O(d)
  a piece at most, over the frequencies whose arc is shorter than a turn, slowest first, stopping once the
  bound reaches what it must;
* each re-derived bound must exceed the upper end U of the merged minimum's square, and reach the bound the
  answer states for the other offsets; an interval excluded as a whole must reach its claim (else it is cut
  in quarters, and those are checked as leaves); a leaf the search bounded offset by offset, where its arc
  bound falls short, is bounded at every offset at once by float64 block products (`_Rederived.products`:
  S = 2n − 2·Σ_i cos ω_i(a ± b), from cos and sin of the exact turn positions of the leaf's anchor a, its
  middle, and of 0 ≤ b ≤ L/2, by the angle-addition formulas, with an a-priori error bound), and each
  offset must reach its leaf's claim as far as the answer relies on it (up to those two bounds); an offset
  whose product bound falls short is bounded alone by the enclosure of one offset, which must reach it;
* a single offset whose bound does not exceed U is evaluated in ball arithmetic (at the precision of the
  merged minimum), and must lie above the minimum or be one of the merged argmin offsets, each of which must
  overlap it;
* the merged minimum is the ball recomputed at its offset.

The re-derived bounds then bound every other offset of the range (`Checked.next_squared`). A finding names the
first failing piece of its chunk, and leaves the merged answer uncertified.

No float64 library cos or sin is trusted. The block products' cos and sin of a turn position t (in turns,
exact to below 2^-63 from its 128-bit word) split t = a/2^11 + r: cos and sin of 2π·a/2^11 come from one
table of 2^11 float64 values each, every one checked in arb within SECTOR_ERROR before it is used
(`base_bound._within`, the check the base-bound scan runs on its own values), and those of 2πr, |2πr| <
0.0031, from Taylor polynomials of IEEE products and sums; the two combine by the angle-addition formulas.
Each value is then within VALUE_ERROR of its exact cos or sin (`turn_cos_sin`), and each product bound rests
on IEEE float64 products and sums in any order (`product_error`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import flint
import numpy as np
from threadpoolctl import threadpool_limits

from ..encodings.sinusoidal import Sinusoidal
from .base_bound import BITS, _within
from .separation import (
    SEARCH_BLAS_THREADS,
    TURN_MARGIN,
    Tiling,
    TurnTable,
    arc_lower_bounds,
    float_down,
    float_up,
    minimum_ball,
    summation_factor,
    turns_float,
)

#: Turn positions re-derived at once (pieces × frequencies): 16 MiB of words and their temporaries.
_ENTRIES = 2**20

#: Frequencies added to a bound at a time, slowest first; a piece is done once its partial bound suffices.
_COLUMNS = 16

#: Offsets at most, over all chunks, whose re-derived bound does not exceed the minimum and that are
#: evaluated in ball arithmetic; more leave the answer uncertified (a certificate that claims next to
#: nothing).
MAX_NEAR = 4096

#: Leaves at most this long are bounded at every offset by block products, those longer than QUARTER_LENGTH
#: only when their arc bound falls short of half what it must (else they are cut in quarters first, whose
#: arc bounds then mostly pass); longer pieces are cut in quarters. Beyond the longest wavelength at d = 512
#: the leaves' arc bounds reach 0.11 to 0.22 of what they must and the products of whole leaves of 4096 took
#: 0.24 s where products of their quarters took 0.33 s (60612 ≤ k < 2^24); from k = 1 at d = 64 the leaves
#: that fail reach 0.998 and above, and pass in quarters (0.03 s, whole products 0.05 s, 1 ≤ k < 2^28).
PRODUCT_LENGTH = 4096
QUARTER_LENGTH = 1024

#: The top bits of a turn position that pick its sector, 2π·a/2^SECTOR_BITS, in the checked table.
SECTOR_BITS = 11

#: Bound on each float64 cos and sin of the sector table, 2π·a/2^11 rounded (within 2π·2^-52, its angle
#: reduced to [−π, π)) and the library's cos or sin (a few ulp): checked in arb for each of the 2·2^11 values.
SECTOR_ERROR = 2.0**-48

_U = 2.0**-53

#: Bound on each cos and sin of a turn position from `turn_cos_sin`, against the exact value at the exact
#: frequency. Its parts, in units of u = 2^-53: the table's SECTOR_ERROR (32u) times at most 1 + 0.0031
#: (the factors it multiplies: |cos 2πr| ≤ 1, |sin 2πr| ≤ 0.0031); the polynomials' error on 2πr, at most
#: u each (the argument 2π̂·r within 0.0062u, truncation below 0.02u, their rounding below 0.6u), counted
#: twice, 2u each; the three roundings of the angle addition, below 2.01u; and the turn position's own error,
#: below 2^-63 turns (128-bit rounding of ω/2π times k < 2^62, and the dropped low word), 2^-60 = u/128.
#: In all below 32.1 + 4 + 2.01 + 0.008 < 64 u.
VALUE_ERROR = 2.0**-47


@dataclass(frozen=True)
class Checked:
    """What `check_chunks` found: `problems` (empty when every certificate checks), the offsets it evaluated
    in ball arithmetic, and the least bound on S it re-derived over every offset of the range other than the
    merged argmin offsets (+∞ when there is none)."""

    problems: tuple[str, ...]
    evaluated: int
    next_squared: float


def _quarters(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each piece [start, start + length) of two or more offsets cut into up to four nearly equal parts:
    their starts, lengths, and the index of the piece each comes from."""
    part = -(-lengths // 4)
    index = np.repeat(np.arange(starts.size), 4)
    offset = np.tile(np.arange(4), starts.size) * part[index]
    keep = offset < lengths[index]
    index, offset = index[keep], offset[keep]
    return starts[index] + offset, np.minimum(part[index], lengths[index] - offset), index


def sector_table() -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of 2π·a/2^11, 0 ≤ a < 2^11, in float64 (numpy's), each checked in arb to lie within
    SECTOR_ERROR of its exact value (`base_bound._within`; ArithmeticError naming the first that does not)."""
    sectors = 2**SECTOR_BITS
    a = np.arange(sectors)
    angle = (2 * np.pi) * ((a - sectors * (a >= sectors // 2)) / sectors)
    cos, sin = np.cos(angle), np.sin(angle)
    with flint.ctx.workprec(BITS):
        turn = 2 * flint.arb.pi()
        step = [turn / sectors]
    try:
        _within(cos[:, None], a, step, SECTOR_ERROR, "cos")
        _within(sin[:, None], a, step, SECTOR_ERROR, "sin")
    except ArithmeticError as error:
        raise ArithmeticError(f"{error} (θ_0 = 2π/{sectors}, the check's sector table)") from None
    return cos, sin


def turn_cos_sin(hi: np.ndarray, sectors: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """cos 2πt and sin 2πt for the turn positions t = hi·2^-64 (the high words of exact turn positions), each
    within VALUE_ERROR of the exact value at the exact frequency: t = a/2^11 + r, a its top 11 bits and r
    the rest (exact in float64), cos and sin of 2π·a/2^11 from the checked `sectors` (`sector_table`) and of
    x = 2π·r (|x| < 0.0031) from Taylor polynomials to x⁴ and x⁵, combined by the angle-addition formulas.
    No library cos or sin runs here."""
    sector = (hi >> np.uint64(64 - SECTOR_BITS)).astype(np.intp)
    x = (hi & np.uint64(2 ** (64 - SECTOR_BITS) - 1)).astype(np.float64) * (2.0**-64 * 2 * np.pi)
    z = x * x
    cos_x = 1 - z * (0.5 - z * (1 / 24))
    sin_x = x * (1 - z * (1 / 6 - z * (1 / 120)))
    cos_a, sin_a = sectors[0][sector], sectors[1][sector]
    return cos_a * cos_x - sin_a * sin_x, sin_a * cos_x + cos_a * sin_x


def dot_error(n: int) -> float:
    """A bound E on |P − Σ_i cos ω_i·k| at every offset k = a ± b of a leaf, P = fl(X ∓ Y) from the float64
    dot products X = Σ_i cos aω_i·cos bω_i and Y = Σ_i sin aω_i·sin bω_i over the n pairs (a the leaf's
    anchor, b ≥ 0 a column of the table): the values' errors, 2n·δ(2 + δ) (δ = VALUE_ERROR); the two dot
    products' rounding in any order and with or without fused multiply-adds, γ_n·Σ(|cos|·|cos'| +
    |sin|·|sin'|) ≤ γ_2n·n(1 + 2δ)² (Higham; the sum at most 1 per pair by Cauchy–Schwarz, widened by the
    values' errors); the rounding of X ∓ Y, at most u·(n + 1) (|X| + |Y| ≤ n + 1); and underflow, below
    2^-1000 a term. Widened by 2^-40 for the rounding of this sum."""
    delta, terms = VALUE_ERROR, 2 * n
    gamma = terms * _U / (1 - terms * _U)
    error = terms * delta * (2 + delta) + gamma * n * (1 + 2 * delta) ** 2 + _U * (n + 1) + terms * 2.0**-1000
    return error * (1 + 2.0**-40)


def product_error(n: int) -> float:
    """A bound B such that S ≥ fl(fl(2n − 2P) − B) at every offset, P as in `dot_error`: 2E for S = 2n −
    2Σ_i cos, and the two roundings, each at most u·(4n + 2) (|2n − 2P| ≤ 4n + 2), widened by 2^-40."""
    return (2 * dot_error(n) + 2 * _U * (4 * n + 2)) * (1 + 2.0**-40)


def product_limits(n: int, thresholds: np.ndarray) -> np.ndarray:
    """Per threshold T, a float64 limit p with S ≥ T wherever the computed dot product P (`dot_error`) is at
    most p: S ≥ 2n − 2P − 2E ≥ T once P ≤ n − E − T/2, which the computed limit lies below by the
    margin 8u·(n + |T|), twice the rounding of its four operations."""
    thresholds = np.asarray(thresholds, dtype=np.float64)
    return (n - dot_error(n) - thresholds / 2) - 8 * _U * (n + np.abs(thresholds))


class _Rederived:
    """Re-derived lower bounds on S over pieces of offsets of one encoding, from exact turn positions."""

    def __init__(self, encoding: Sinusoidal) -> None:
        self.table = TurnTable.of(encoding)
        self.n = encoding.d // 2
        self.slowest = np.argsort(self.table.rates, kind="stable")
        self.sectors = sector_table()
        self.error = product_error(self.n)
        self.steps = np.zeros((2, self.n, 0))

    def _steps(self, length: int) -> np.ndarray:
        """The tables cos ω_i·b and sin ω_i·b over the pairs i, 0 ≤ b < length: 2 × n × length, kept until a
        longer one is asked for."""
        if self.steps.shape[2] < length:
            cos, sin = turn_cos_sin(self.table.high_words(np.arange(length)), self.sectors)
            self.steps = np.ascontiguousarray(np.stack([cos.T, sin.T]))
        return self.steps[:, :, :length]

    def products(
        self, starts: np.ndarray, lengths: np.ndarray, threshold: np.ndarray, upper: float
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """Lower bounds on S at every offset of the pieces [start, start + length) (length ≤ PRODUCT_LENGTH)
        by float64 block products around each piece's anchor a = start + ⌊length/2⌋: its cos and sin of
        ω_i·a times the tables of ω_i·b give X = Σ_i cos aω_i·cos bω_i and Y = Σ_i sin aω_i·sin bω_i, and
        P = X ∓ Y ≈ Σ_i cos ω_i(a ± b) within `dot_error`, hence S = 2n − 2Σ (one table column serves two
        offsets). An offset whose P lies at or below its piece's limit (`product_limits`: S reaches the
        piece's `threshold` and exceeds `upper`) is done; the others are returned, with the index of their
        piece, to be bounded alone; and the least bound on S of those done, fl(2n − 2P) − `product_error` at
        the largest P done (+∞ when none)."""
        left: list[np.ndarray] = []
        pieces: list[np.ndarray] = []
        largest = -math.inf
        limits = product_limits(self.n, np.maximum(threshold, np.nextafter(upper, math.inf)))
        for length in np.unique(lengths).tolist():
            group = np.flatnonzero(lengths == length)
            half = length // 2
            cos_b, sin_b = self._steps(half + 1)
            block = max(1, _ENTRIES // length)
            for first in range(0, group.size, block):
                chosen = group[first : first + block]
                anchors = starts[chosen] + half
                cos_a, sin_a = turn_cos_sin(self.table.high_words(anchors), self.sectors)
                x, y = cos_a @ cos_b, sin_a @ sin_b
                sums = np.empty((chosen.size, length))
                np.subtract(x[:, : length - half], y[:, : length - half], out=sums[:, half:])
                np.add(x[:, half:0:-1], y[:, half:0:-1], out=sums[:, :half])
                tops = sums.max(axis=1)
                whole = tops <= limits[chosen]
                largest = max(largest, float(tops.max(where=whole, initial=-math.inf)))
                if whole.all():
                    continue
                rest = np.flatnonzero(~whole)
                done = sums[rest] <= limits[chosen[rest]][:, None]
                largest = max(largest, float(sums[rest].max(where=done, initial=-math.inf)))
                row, column = np.nonzero(~done)
                left.append(starts[chosen[rest]][row] + column)
                pieces.append(chosen[rest][row])
        lowest = (2 * self.n - 2 * largest) - self.error if largest > -math.inf else math.inf
        if not left:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.intp), lowest
        return np.concatenate(left), np.concatenate(pieces), lowest

    def arcs(self, starts: np.ndarray, lengths: np.ndarray, enough: np.ndarray) -> np.ndarray:
        """Per piece [start, start + length), the arc bound over it (`arc_lower_bounds`, `summation_factor`)
        on the frequencies whose arc is shorter than a turn (the others add 0), summed slowest first in blocks
        of _COLUMNS; a piece is left with its partial bound (still a lower bound) once that reaches
        `enough`."""
        bounds = np.zeros(starts.size)
        for length in np.unique(lengths).tolist():
            group = np.flatnonzero(lengths == length)
            advance = (length - 1) * self.table.rates
            columns = self.slowest[advance[self.slowest] + 2 * TURN_MARGIN < 1]
            factor = summation_factor(columns.size)
            block = max(1, _ENTRIES // max(columns.size, 1))
            for first in range(0, group.size, block):
                alive = group[first : first + block]
                for at in range(0, columns.size, _COLUMNS):
                    part = columns[at : at + _COLUMNS]
                    hi = self.table.high_words(starts[alive], part)
                    bounds[alive] += arc_lower_bounds(turns_float(hi), advance[part][None, :]).sum(axis=-1)
                    alive = alive[bounds[alive] * factor < enough[alive]]
                    if not alive.size:
                        break
            bounds[group] *= factor
        return bounds


def _tiling_problem(tiling: Tiling, first: int, stop: int) -> str | None:
    """Where the pieces fail to follow end to end from `first` to `stop`; None when they do."""
    starts, lengths = tiling.starts, tiling.lengths
    if not starts.size:
        return f"its certificate holds no piece of {first} ≤ k < {stop}"
    ends = starts + lengths
    expected = np.concatenate([[first], ends[:-1]])
    bad = np.flatnonzero((starts != expected) | (lengths < 1))
    if bad.size:
        i = int(bad[0])
        if lengths[i] < 1:
            return f"its certificate holds an empty piece at k = {int(starts[i])}"
        if starts[i] > expected[i]:
            return f"its certificate leaves offsets {int(expected[i])} ≤ k < {int(starts[i])} uncovered"
        return f"its certificate covers k = {int(starts[i])} twice"
    if ends[-1] != stop:
        return f"its certificate ends at k = {int(ends[-1])}, not {stop}"
    return None


def _check_pieces(
    rederived: _Rederived, tiling: Tiling, upper: float, wanted: float, near: list[int]
) -> tuple[str | None, float]:
    """Check each piece by its re-derived arc bound against T = max(`upper`, `wanted`) (just above `upper`):
    an interval excluded as a whole must reach its claim; a leaf bounded one by one must reach T, else every
    offset of it is bounded by block products (`_Rederived.products`; a leaf longer than QUARTER_LENGTH whose
    bound reaches half of what it must is cut in quarters first), and those whose bound falls short of
    their leaf's claim or T, whichever is less (a claim above T bounds nothing the answer states), or of
    `wanted`, or does not exceed `upper`, are bounded alone (the enclosure of one offset), which must reach
    the former; an offset whose bound does not exceed `upper` is added to `near`. An interval that reaches
    its claim but not T is cut in quarters, checked as leaves (by products once PRODUCT_LENGTH long at
    most). The first failing piece (None when all check), and the least bound found above `upper` (each
    summed until it reaches what it must, or in full)."""
    starts, lengths, claims, splits = tiling.starts, tiling.lengths, tiling.bounds, tiling.one_by_one
    enough = max(float(np.nextafter(upper, math.inf)), wanted)
    lowest, split_offsets = math.inf, 0
    while starts.size:
        required = np.where(splits, np.minimum(claims, enough), claims)
        bounds = rederived.arcs(starts, lengths, np.where(splits, enough, np.maximum(claims, enough)))
        passed = (bounds >= required) & (bounds > upper) & ((bounds >= wanted) | ~splits | (lengths == 1))
        lowest = min(lowest, float(bounds[passed].min(initial=math.inf)))
        short = np.flatnonzero((bounds < required) & (~splits | (lengths == 1)))
        if short.size:
            i = int(short[0])
            start, end = int(starts[i]), int(starts[i] + lengths[i])
            kind = "piece" if splits[i] else "interval"
            return (
                f"the {kind} {start} ≤ k < {end} claims S ≥ {claims[i]!r}, its bound re-derives {bounds[i]!r}"
            ), lowest
        failed = ~passed
        near += starts[failed & (lengths == 1)].tolist()
        several = failed & (lengths > 1)
        far_short = (lengths <= QUARTER_LENGTH) | (bounds < required / 2)
        multiplied = several & splits & (lengths <= PRODUCT_LENGTH) & far_short
        leaves, cut = np.flatnonzero(multiplied), np.flatnonzero(several & ~multiplied)
        split_offsets += int(lengths[cut][~splits[cut]].sum())
        if split_offsets > MAX_NEAR * 4096:
            return "its intervals excluded as a whole are not bounded above the minimum", lowest
        threshold = np.maximum(required[leaves], wanted)
        alone, index, least = rederived.products(starts[leaves], lengths[leaves], threshold, upper)
        lowest = min(lowest, least)
        quartered, parts, part_index = _quarters(starts[cut], lengths[cut])
        starts = np.concatenate([quartered, alone])
        lengths = np.concatenate([parts, np.ones(alone.size, dtype=parts.dtype)])
        claims = np.concatenate([claims[cut][part_index], claims[leaves][index]])
        splits = np.ones(starts.size, dtype=bool)
    return None, lowest


@threadpool_limits.wrap(limits=SEARCH_BLAS_THREADS, user_api="blas")
def check_chunks(
    encoding: Sinusoidal,
    chunks: Sequence[tuple[int, int, Tiling | None]],
    minimum: flint.arb,
    minimum_at: int,
    argmin: tuple[int, ...],
    prec: int,
    wanted: float = 0.0,
) -> Checked:
    """Check the certificates of chunks (first offset, end, tiling) against the merged minimum ball `minimum`,
    claimed at `minimum_at`, with `argmin` the offsets claimed to attain it, at the precision `prec` of the
    last evaluation (see the module's docstring). Bounds are summed until they reach `wanted` too (a bound on
    S at the other offsets that the answer would state), so that `Checked.next_squared` reaches it where the
    certificates support it."""
    problems: list[str] = []
    with flint.ctx.workprec(prec):
        again = minimum_ball(encoding, minimum_at, prec)
        if again.mid() != minimum.mid() or again.rad() != minimum.rad():
            problems.append(f"the merged minimum is not the distance at k = {minimum_at}")
        square = again * again
        upper = float_up(square.upper())
    try:
        rederived = _Rederived(encoding)
    except ArithmeticError as error:
        return Checked((*problems, str(error)), 0, 0.0)
    near: list[int] = []
    next_squared = math.inf
    for first, stop, tiling in chunks:
        where = f"chunk {first} ≤ k < {stop}: "
        if tiling is None:
            problems.append(f"{where}it holds no certificate")
            continue
        problem = _tiling_problem(tiling, first, stop)
        if problem is not None:
            problems.append(where + problem)
            continue
        failure, lowest = _check_pieces(rederived, tiling, upper, wanted, near)
        next_squared = min(next_squared, lowest)
        if failure is not None:
            problems.append(where + failure)
    if len(near) > MAX_NEAR:
        problems.append(
            f"{len(near)} offsets are not bounded above the minimum, more than {MAX_NEAR} to evaluate"
        )
        return Checked(tuple(problems), 0, next_squared)
    evaluated = sorted(set(near) | set(argmin))
    for k in evaluated:
        with flint.ctx.workprec(prec):
            ball = minimum_ball(encoding, k, prec)
            if ball.overlaps(again):
                if k not in argmin:
                    problems.append(f"k = {k} attains the merged minimum but is not among its offsets")
            elif k in argmin:
                problems.append(f"k = {k} is claimed to attain the merged minimum but does not")
            elif ball < again:
                problems.append(f"the distance at k = {k} lies below the merged minimum")
            else:
                next_squared = min(next_squared, float_down((ball * ball).lower()))
    return Checked(tuple(problems), len(evaluated), next_squared)
