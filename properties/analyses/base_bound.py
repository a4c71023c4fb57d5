"""The base lower bound of RoPE (Men et al. 2024, "Base of RoPE Bounds Context Length", arXiv 2405.14591):
the sign of the cosine sum B(m) = Σ_{i<d/2} cos(m·θ_i), θ_i = b^(−2i/d), over the positions 0 ≤ m ≤ L.

The paper's criterion: a base b serves the context length L — here, b is *admissible for L* — when B(m) ≥ 0
at every integer 0 ≤ m ≤ L; its table gives the smallest such base per L, to two significant digits.

The admissible bases do not form an interval but islands: a base can meet the criterion while a larger one
fails it (`LowestBase.larger_failing` exhibits one when it finds it), so bisection on b finds *a* boundary of
the admissible set, not its lowest point. Two answers are computed. `lowest_bases`: the smallest base with
`digits` significant digits (c·10^e, 10^(digits−1) ≤ c < 10^digits, above 1) that is admissible, every
smaller such base checked — a finite question, but islands between those bases are not seen. `infimum`: the
least admissible real base, certified: `island_scan` sweeps ln b and decides whole intervals of bases from one
float64 scan each, by the slope bound |∂B(m)/∂ln b| ≤ m·Σ_i (2i/d)·b^(−2i/d) (`slope`, `reach`), so no
island is missed except within undecided cells narrower than `RESOLUTION`; the left end of the first island
is then bisected, each step certified (`scan` for an admissible middle, `rises` in arb for a failing one).

How one base is checked (`scan`): B(m) in float64, block after block in increasing m. With a table of
cos(kθ_i) and sin(kθ_i), k < `TABLE`, and the anchors cos(m0·θ_i), sin(m0·θ_i) for m0 = TABLE, 2·TABLE, …,
one matrix product gives every B(m0 + k) = Σ_i cos(m0θ_i)cos(kθ_i) − sin(m0θ_i)sin(kθ_i). `scan_error` bounds
each value's float64 error a priori; a value farther than that from 0 has the sign of its float, one within
it is recomputed in arb balls (`CosineSum.ball`), and the deciding values — the first negative B(m) of a base
that fails, the least B(m) of one that passes — are always given as balls. A scan stops at the first negative
value, so a failing base costs only as many positions as it survives.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import count

import flint
import numpy as np

from ..encodings.frequencies import frequencies, frequency_arb
from ..numerics.checking import EPS64
from ..numerics.validation import require_even_dimension, require_positive_int

#: Length of the table of cos(kθ_i), sin(kθ_i): each block's positions are anchor + k, k < TABLE.
TABLE = 256
#: Anchors per matrix product at most (a block covers TABLE · MOST_ANCHORS positions); blocks double up to it.
MOST_ANCHORS = 8
#: How many candidates above a length's lowest base `lowest_bases` tries for one that fails.
WINDOW = 90
#: The largest base `lowest_bases` tries before giving up.
CEILING = Fraction(10) ** 15
#: Precision (bits) of the arb balls.
BITS = 128
#: Precisions (bits) tried in turn when a ball does not decide a sign.
RETRY_BITS = (256, 1024)


def _ball(base: Fraction) -> flint.arb:
    """The base as an arb ball at the current precision (exact for an integer)."""
    return flint.arb(base.numerator) / base.denominator


def _span(low: Fraction, high: Fraction) -> flint.arb:
    """An arb ball containing every number of [low, high], at the current precision."""
    return _ball(low).union(_ball(high))


@dataclass(frozen=True)
class CosineSum:
    """B(m) = Σ_i cos(m·θ_i) at one base: the frequencies θ_i in float64 for the scan, and the base itself for
    the balls (`frequency_balls`: every θ_i as a ball at the current precision, from the base as a ball)."""

    base: Fraction
    d: int
    theta: np.ndarray
    frequency_balls: Callable[[flint.arb], list[flint.arb]]

    def ball(self, m: int, prec: int = BITS, bases: tuple[Fraction, Fraction] | None = None) -> flint.arb:
        """B(m) as an arb ball computed at `prec` bits: at the base, or, given `bases` = (low, high), a ball
        containing B(m) at every base low ≤ b ≤ high (the frequencies evaluated on the ball of the bases)."""
        with flint.ctx.workprec(prec):
            base = _ball(self.base) if bases is None else _span(*bases)
            position = flint.arb(m)
            return sum([(position * theta).cos() for theta in self.frequency_balls(base)], flint.arb(0))


Builder = Callable[[Fraction, int], CosineSum]


def cosine_sum(base: Fraction | int, d: int = 128) -> CosineSum:
    """The paper's B(m) at base b: the d/2 frequencies θ_i = b^(−2i/d), i < d/2
    (`properties.encodings.frequencies`)."""
    d = require_even_dimension(d)
    base = Fraction(base)
    if base <= 1:
        raise ValueError(f"the base must be greater than 1, got {base}")
    theta = frequencies(d, float(base), count=d // 2)
    return CosineSum(base, d, theta, functools.partial(_power_law_balls, d))


def _power_law_balls(d: int, base: flint.arb) -> list[flint.arb]:
    """θ_i = b^(−2i/d), i < d/2, as balls: θ_1 = `frequency_arb` (1, d, b) and θ_i = θ_(i−1)·θ_1, whose balls
    stay about as tight as the base's (one power of the base, not d/2)."""
    step, found = frequency_arb(1, d, base), [flint.arb(1)]
    for _ in range(1, d // 2):
        found.append(found[-1] * step)
    return found


def value_errors(limit: int, base: Fraction) -> tuple[float, float]:
    """(δ_a, δ_t): a-priori bounds on the float64 error of an anchor's cos and sin, cos(m0·θ_i) for m0 ≤
    limit, and of the table's, cos(k·θ_i) for k < TABLE, against their exact values at the exact θ_i.

    With ε = 2^−52 and λ = ln b: θ_i = b^x (x = −2i/d and b each rounded, pow within an ulp) is off by at
    most ε(3 + λ)·θ_i; the angle m·θ_i, one more rounding, by ε(4 + λ)·m (θ_i ≤ 1); cos and sin (within 4
    ulp) add 4ε: δ = ε((4 + λ)·m + 4)."""
    log_base = math.log(float(base))
    return EPS64 * ((4 + log_base) * limit + 4), EPS64 * ((4 + log_base) * TABLE + 4)


def scan_error(limit: int, base: Fraction, terms: int) -> float:
    """An a-priori bound on the float64 error of each value B(m), m ≤ limit, that `scan` computes.

    An anchor's cos and sin are off by δ_a, the table's by δ_t (`value_errors`), so each product term cos·cos
    − sin·sin by 2(δ_a + δ_t + δ_a·δ_t); the 2·terms products of the dot product sum with an error of at
    most (2·terms)²·ε·(1 + δ_a + δ_t)². A factor 2 covers the rest.
    """
    anchor, table = value_errors(limit, base)
    per_term = 2 * (anchor + table + anchor * table)
    return 2 * (terms * per_term + (2 * terms) ** 2 * EPS64 * (1 + anchor + table) ** 2)


#: What `float_blocks` checks its cos and sin values against: θ_i as balls and (δ_a, δ_t) (`value_errors`).
Exact = tuple[Sequence[flint.arb], tuple[float, float]]


def _within(
    values: np.ndarray, positions: np.ndarray, exact: Sequence[flint.arb], bound: float, trig: str
) -> None:
    """ArithmeticError unless each values[k, i] lies within `bound` of trig(positions[k]·θ_i), θ_i the exact
    ball `exact[i]`: the float64 library's cos or sin checked where it ran, in arb at `BITS` bits."""
    with flint.ctx.workprec(BITS):
        allowed = flint.arb(bound)
        for i, theta in enumerate(exact):
            for k, position in enumerate(positions.tolist()):
                angle = flint.arb(int(position)) * theta
                true = angle.cos() if trig == "cos" else angle.sin()
                if not abs(true - float(values[k, i])) <= allowed:
                    raise ArithmeticError(
                        f"float64 {trig}({int(position)}·θ_{i}) = {float(values[k, i])!r} is not within "
                        f"{bound:.1e} of {true.str(20, radius=False)}"
                    )


def float_blocks(
    theta: np.ndarray, limit: int, exact: Exact | None = None
) -> Iterator[tuple[int, np.ndarray]]:
    """B(m) = Σ_i cos(m·θ_i) for m = 0 … limit in float64, block after block in increasing m: (first
    position, values). The first block is the table itself; each later one is a matrix product of at most
    MOST_ANCHORS anchors, small enough for BLAS to run it on one thread (at these sizes, starting threads
    costs more than it saves). Given `exact`, every cos and sin the blocks are built from is first checked
    against its exact value (`_within`): the values then hold their bound whatever the platform's float64
    cos, sin and pow are, resting on IEEE products and sums alone."""
    angles = np.outer(np.arange(TABLE, dtype=np.float64), theta)
    cos_table = np.cos(angles)
    table_positions = np.arange(min(TABLE, limit + 1))
    if exact is not None:
        _within(cos_table, table_positions, exact[0], exact[1][1], "cos")
    yield 0, cos_table.sum(axis=1)[: limit + 1]
    if limit < TABLE:
        return
    sin_table = np.sin(angles)
    if exact is not None:
        _within(sin_table, np.arange(TABLE), exact[0], exact[1][1], "sin")
    table = np.hstack([cos_table, -sin_table])
    start, anchors = TABLE, 1
    while start <= limit:
        anchors = min(anchors, -(-(limit + 1 - start) // TABLE))
        positions = start + TABLE * np.arange(anchors, dtype=np.float64)
        phases = np.outer(theta, positions)
        cos, sin = np.cos(phases), np.sin(phases)
        if exact is not None:
            _within(cos.T, positions, exact[0], exact[1][0], "cos")
            _within(sin.T, positions, exact[0], exact[1][0], "sin")
        values = (table @ np.vstack([cos, sin])).T.reshape(-1)
        yield start, values[: limit + 1 - start]
        start += TABLE * anchors
        anchors = min(2 * anchors, MOST_ANCHORS)


@dataclass(frozen=True)
class Value:
    """B(m) at one position, as an arb ball."""

    m: int
    ball: flint.arb


@dataclass(frozen=True)
class Scan:
    """One base checked at every position 0 ≤ m ≤ limit.

    `first_negative`: the first m with B(m) < 0 (None: the base is admissible for `limit`); `least_at`: for an
    admissible base, where B(m) is least over m ≤ limit, and `least_certain` whether that place is the same on
    every platform (no other value within twice the float bound of it); `error`: the a-priori float64 bound;
    `in_balls`: how many values lay within it of 0 and were decided in balls. The deciding values themselves,
    `negative` and `least`, are balls computed when asked for.
    """

    cosine: CosineSum
    limit: int
    first_negative: int | None
    least_at: int | None
    least_certain: bool
    error: float
    in_balls: int

    @property
    def base(self) -> Fraction:
        return self.cosine.base

    @property
    def admissible(self) -> bool:
        return self.first_negative is None

    @property
    def survives(self) -> int:
        """How far the base got: its first negative position, or one past the limit."""
        return self.limit + 1 if self.first_negative is None else self.first_negative

    @functools.cached_property
    def negative(self) -> Value:
        """The first negative B(m) as a ball that is certainly below 0 (a base that fails)."""
        if self.first_negative is None:
            raise ValueError(f"base {self.base} is admissible up to {self.limit}: no negative value")
        return _sign(self.cosine, self.first_negative)

    @functools.cached_property
    def least(self) -> Value:
        """The least B(m), m ≤ limit, as a ball that is certainly above 0 (an admissible base)."""
        if self.least_at is None:
            raise ValueError(f"base {self.base} fails at m = {self.first_negative}: no least value")
        return _sign(self.cosine, self.least_at)


def _sign(cosine: CosineSum, m: int) -> Value:
    """B(m) as a ball that excludes 0, at the first precision of BITS, RETRY_BITS that decides its sign."""
    for prec in (BITS, *RETRY_BITS):
        ball = cosine.ball(m, prec)
        if bool(ball > 0) or bool(ball < 0):
            return Value(m, ball)
    raise ArithmeticError(f"the sign of B({m}) at base {cosine.base} is not decided at {RETRY_BITS[-1]} bits")


def scan(cosine: CosineSum, limit: int, track_least: bool = True, checked: bool = False) -> Scan:
    """Check B(m) ≥ 0 at every 0 ≤ m ≤ limit, stopping at the first negative value (see the module); with
    `track_least` False an admissible base's least value is not looked for (`least_at` None). With
    `checked`, every float64 cos and sin the scan is built from is checked in arb first (`float_blocks`), so
    its error bound rests on IEEE products and sums alone (ArithmeticError naming a value that is off)."""
    limit = require_positive_int(limit, "limit")
    error = scan_error(limit, cosine.base, len(cosine.theta))
    exact = None
    if checked:
        with flint.ctx.workprec(BITS):
            exact = (cosine.frequency_balls(_ball(cosine.base)), value_errors(limit, cosine.base))
    least: list[tuple[float, int]] = []
    in_balls = 0
    for start, values in float_blocks(cosine.theta, limit, exact):
        below = np.flatnonzero(values < -error)
        end = int(below[0]) if below.size else values.size
        for k in np.flatnonzero(np.abs(values[:end]) <= error):
            in_balls += 1
            if _sign(cosine, start + int(k)).ball < 0:
                return Scan(cosine, limit, start + int(k), None, False, error, in_balls)
        if below.size:
            return Scan(cosine, limit, start + end, None, False, error, in_balls)
        if track_least:
            two = np.argpartition(values, 1)[:2] if values.size > 1 else np.arange(values.size)
            least = sorted([*least, *((float(values[k]), start + int(k)) for k in two)])[:2]
    if not least:
        return Scan(cosine, limit, None, None, False, error, in_balls)
    certain = len(least) < 2 or least[1][0] - least[0][0] > 2 * error
    return Scan(cosine, limit, None, least[0][1], certain, error, in_balls)


def candidate_bases(digits: int = 2) -> Iterator[Fraction]:
    """The bases above 1 with `digits` significant digits, c·10^e (10^(digits−1) ≤ c < 10^digits, e an
    integer), in increasing order: 1.1, 1.2, …, 9.9, 10, 11, … for two digits."""
    digits = require_positive_int(digits, "digits")
    low, high = 10 ** (digits - 1), 10**digits
    for exponent in count(1 - digits):
        for c in range(low, high):
            base = c * Fraction(10) ** exponent
            if base > 1:
                yield base


@dataclass(frozen=True)
class LowestBase:
    """The smallest base with the given significant digits that is admissible for L.

    `scan`: that base checked up to L (admissible, with its least value); `rejected`: how many smaller
    candidate bases were checked, each with a negative B(m) at some m ≤ L; `larger_failing`: the scan of the
    first larger candidate, within `WINDOW` candidates, that fails for L — when there is one, the admissible
    bases are not an interval.
    """

    length: int
    base: Fraction
    scan: Scan
    rejected: int
    larger_failing: Scan | None


def lowest_bases(
    lengths: Sequence[int], d: int = 128, digits: int = 2, build: Builder = cosine_sum
) -> dict[int, LowestBase]:
    """For every L in `lengths`, the smallest admissible base with `digits` significant digits.

    Each candidate base, in increasing order, is scanned once up to the largest L still open, which tells for
    every L at once whether it is admissible (B(m) ≥ 0 up to the first negative m). A length stays open until
    it has its base and then for `WINDOW` more candidates, or until one of them fails for it; the search
    gives up (LookupError) above `CEILING`.
    """
    lengths = sorted({require_positive_int(length, "length") for length in lengths})
    found: dict[int, tuple[Fraction, int]] = {}
    failing: dict[int, Scan] = {}
    for number, base in enumerate(candidate_bases(digits)):
        open_lengths = [
            length
            for length in lengths
            if length not in failing and (length not in found or number - found[length][1] <= WINDOW)
        ]
        if not open_lengths:
            break
        if base > CEILING:
            raise LookupError(f"no admissible base up to {CEILING} for the lengths {open_lengths}")
        checked = scan(build(base, d), max(open_lengths), track_least=False)
        for length in open_lengths:
            if length not in found and checked.survives > length:
                found[length] = (base, number)
            elif length in found and checked.survives <= length:
                failing[length] = checked
    return {
        length: LowestBase(length, base, scan(build(base, d), length), rejected, failing.get(length))
        for length, (base, rejected) in found.items()
    }


@dataclass(frozen=True)
class TableEntry:
    """One row of a published table of lower bounds at one length L: the published base checked up to L,
    beside the smallest admissible base; they agree when they are the same base."""

    length: int
    published: Scan
    lowest: LowestBase

    @property
    def agrees(self) -> bool:
        return self.lowest.base == self.published.base


def recompute_table(
    published: Mapping[int, Fraction], d: int = 128, digits: int = 2, build: Builder = cosine_sum
) -> dict[int, TableEntry]:
    """Every row L → b of a published table of lower bounds: b scanned up to L, and the smallest admissible
    base with `digits` significant digits (one search for all the lengths)."""
    lowest = lowest_bases(list(published), d, digits, build)
    return {
        length: TableEntry(length, scan(build(Fraction(base), d), length), lowest[length])
        for length, base in published.items()
    }


#: Width, in ln b, below which the island scan stops splitting a cell it cannot decide.
RESOLUTION = 1e-9
#: Cells of equal width the island scan starts from.
START_CELLS = 64
#: Bisection steps at most when the infimum is certified.
BISECTIONS = 60
#: A cell's state: every base in it is admissible, every one fails, or the scan could not tell.
ADMISSIBLE, FAILS, UNDECIDED = "admissible", "fails", "undecided"


def slope(cosine: CosineSum, low: Fraction | np.ndarray) -> float | np.ndarray:
    """S = Σ_i x_i·low^(−x_i), where θ_i = b^(−x_i) (x_i = −ln θ_i / ln b, read off the cosine sum: 2i/d for
    the paper's frequencies), with a margin for rounding: |∂B(m)/∂ln b| = |Σ_i sin(mθ_i)·m·x_i·θ_i| ≤ m·S at
    every base b ≥ low (each θ_i decreases in b). For an array of lows, one S each."""
    exponents = -np.log(cosine.theta) / math.log(float(cosine.base))
    lows = np.asarray(low, dtype=np.float64) if isinstance(low, np.ndarray) else np.float64(float(low))
    total = (exponents * lows[..., None] ** -exponents).sum(axis=-1) * (1 + 1e-9)
    return total if isinstance(low, np.ndarray) else float(total)


@functools.cache
def _exponent_sum(build: Builder, d: int) -> CosineSum:
    """The cosine sum at base 2^10, where the exponents x_i = −ln θ_i / ln b are read off to full float
    precision (near b = 1 they would not be)."""
    return build(Fraction(1024), d)


@dataclass(frozen=True)
class Cell:
    """The bases low ≤ b ≤ high, decided at once: every one admissible, every one failing, or undecided. A
    decided cell names the `centre` of the scan that decided it (None for a bisection interval, shown by
    `rises`); a failing one its `witness`, a position m whose B(m) is negative at every base of it."""

    low: Fraction
    high: Fraction
    state: str
    centre: Fraction | None = None
    witness: int | None = None


#: How far (in ln b) `reach` rounds its answer down, beyond a relative 10^-6: more than the float64 error of
#: a cell's ends, so a cell whose ends lie within r + REACH_SLACK/2 of its centre is still decided.
REACH_SLACK = 1e-13


def _half_widths(cells: Sequence[Cell]) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's low end and the larger of ln(centre/low), ln(high/centre), in float64: log1p of the
    differences, which are exact for float ends within a factor 2 (Sterbenz), so each width is within a
    relative 10^-15 (ArithmeticError for a cell wider than a factor 2)."""
    low, centre, high = (
        np.array([float(getattr(cell, end)) for cell in cells], dtype=np.float64)
        for end in ("low", "centre", "high")
    )
    if not (centre <= 2 * low).all() or not (high <= 2 * centre).all():
        raise ArithmeticError("a cell spans more than a factor 2 in the base")
    return low, np.maximum(np.log1p((centre - low) / low), np.log1p((high - centre) / centre))


def reach(
    centre: Fraction, low: Fraction, length: int, d: int = 128, build: Builder = cosine_sum
) -> tuple[str, float, int | None]:
    """How far in ln b the float64 scan at `centre` decides the bases b ≥ low: (state, r, the m that decides
    a failing state).

    With v_m the float value of B(m) at the centre (within E = `scan_error` of it) and S the `slope` at low,
    |B(m)(b) − v_m| ≤ E + m·S·|ln b − ln centre| at every base b ≥ low. So every base within r of the centre
    fails if r = max_m (−v_m − E)/(m·S) > 0 (some m ≤ length stays negative), and is admissible if
    r = min_{m ≥ 1} (v_m − E)/(m·S) > 0 (B(0) > 0: every m stays positive); otherwise the state is undecided
    and r = 0. Every position 0 … length is covered, none sampled. r is rounded down."""
    cosine = build(centre, d)
    error, rate = scan_error(length, centre, len(cosine.theta)), slope(_exponent_sum(build, d), low)
    worst, least, witness = -math.inf, math.inf, 0
    for start, values in float_blocks(cosine.theta, length):
        m = np.arange(start, start + values.size, dtype=np.float64)
        if start == 0:
            values, m = values[1:], m[1:]
        if values.size:
            ratios = (-values - error) / m
            k = int(ratios.argmax())
            if ratios[k] > worst:
                worst, witness = float(ratios[k]), int(m[k])
            least = min(least, float(((values - error) / m).min()))
    if worst > 0:
        return FAILS, worst / rate * (1 - 1e-6) - REACH_SLACK, witness
    if least > 0:
        return ADMISSIBLE, least / rate * (1 - 1e-6) - REACH_SLACK, None
    return UNDECIDED, 0.0, None


def island_scan(
    length: int,
    low: Fraction,
    high: Fraction,
    d: int = 128,
    build: Builder = cosine_sum,
    resolution: float = RESOLUTION,
    beyond: float = math.inf,
) -> tuple[Cell, ...]:
    """[low, high] cut into cells, in increasing order, that each are admissible, fail, or are undecided and
    at most `resolution` wide in ln b; the sweep ends early, `beyond` (in ln b) past the low end of its first
    admissible cell.

    A sweep from low: everything below the point p is decided; the next scan is at p·e^g, and when its reach r
    (`reach`, bounded with the slope at p) covers back to p, the cell [p, centre·e^r] is decided and the next
    guess g is 3r/4; when not, g is halved, down to `resolution`, below which [p, p·e^g] is undecided. No
    island and no dip below 0 is missed between the cells: each cell is decided at every base in it, so an
    island the scan does not show lies within undecided cells, each at most `resolution` wide."""
    length = require_positive_int(length, "length")
    if not 1 <= low < high:
        raise ValueError(f"the bases must satisfy 1 ≤ low < high, got {low} and {high}")
    if not 1e-12 <= resolution <= 1:
        raise ValueError(f"the resolution must lie in [1e-12, 1], got {resolution}")
    if not beyond > 0:
        raise ValueError(f"the sweep must go on past the first island, got beyond = {beyond}")
    cells: list[Cell] = []
    point, guess, stop = low, math.log(float(high / low)) / START_CELLS, high
    while point < stop:
        centre = min(Fraction(float(point) * math.exp(guess)), stop)
        state, r, witness = reach(centre, point, length, d, build)
        if state != UNDECIDED and math.log(float(centre / point)) <= r:
            end = min(Fraction(float(centre) * math.exp(r)), stop)
            if end > point:
                cells.append(Cell(point, end, state, centre, witness))
                if state == ADMISSIBLE and stop == high and beyond < math.inf:
                    stop = min(high, Fraction(float(point) * math.exp(beyond)))
                point, guess = end, max(0.6 * r, resolution)
                continue
        if guess > resolution:
            guess /= 2
            continue
        cells.append(Cell(point, centre, UNDECIDED))
        point = centre
    return tuple(cells)


def runs(cells: Sequence[Cell]) -> tuple[tuple[Cell, ...], ...]:
    """The runs of adjacent cells that do not fail, in increasing order."""
    found: list[list[Cell]] = []
    for previous, cell in zip([None, *cells], cells, strict=False):
        if cell.state != FAILS:
            if previous is None or previous.state == FAILS:
                found.append([])
            found[-1].append(cell)
    return tuple(tuple(run) for run in found)


def islands(cells: Sequence[Cell]) -> tuple[tuple[Fraction, Fraction], ...]:
    """The islands (low, high): the runs with an admissible cell; each island's ends lie within the undecided
    cells at either end of its run (or at the scan's ends)."""
    return tuple(
        (run[0].low, run[-1].high) for run in runs(cells) if any(cell.state == ADMISSIBLE for cell in run)
    )


def rises(cosine: CosineSum, m: int, low: Fraction, high: Fraction, prec: int = BITS) -> bool:
    """Whether ∂B(m)/∂ln b = Σ_i sin(mθ_i)·m·x_i·θ_i (x_i = −ln θ_i / ln b) is certainly positive at every
    base of [low, high]: one arb evaluation on the ball of those bases."""
    with flint.ctx.workprec(prec):
        base, total = _span(low, high), flint.arb(0)
        for theta in cosine.frequency_balls(base):
            total += (m * theta).sin() * m * theta * (-theta.log() / base.log())
        return bool(total > 0)


@dataclass(frozen=True)
class Infimum:
    """The least base admissible for `length` above `start`, certified to lie in [low, high].

    Every base from `start` below `low` fails — the island scan's failing `cells`, then the bisection's
    failing intervals `bisected` — and `high` is admissible (`scan`); `witness` is the position whose B(m)
    rises across the last bisection interval and is negative at `low`. `check_infimum` re-checks it all."""

    length: int
    start: Fraction
    low: Fraction
    high: Fraction
    witness: int
    steps: int
    cells: tuple[Cell, ...]
    bisected: tuple[Cell, ...] = ()

    @property
    def failing(self) -> tuple[Cell, ...]:
        """The island scan's failing cells from `start` up to its first other cell."""
        return tuple(itertools.takewhile(lambda cell: cell.state == FAILS, self.cells))

    @property
    def ball(self) -> flint.arb:
        """[low, high] as an arb ball: its printed digits are those it certifies."""
        with flint.ctx.workprec(BITS):
            middle, radius = _ball((self.low + self.high) / 2), _ball((self.high - self.low) / 2)
            return flint.arb(middle.mid(), radius.mid() * 2)

    def rounded(self, digits: int) -> Fraction | None:
        """The infimum rounded to `digits` significant digits (half up), or None if its interval straddles a
        rounding boundary."""
        ends = {_round(self.low, digits), _round(self.high, digits)}
        return ends.pop() if len(ends) == 1 else None


def _round(value: Fraction, digits: int) -> Fraction:
    exponent = len(str(value.numerator // value.denominator)) - digits
    unit = Fraction(10) ** exponent
    return math.floor(value / unit + Fraction(1, 2)) * unit


def infimum(
    length: int,
    high: Fraction,
    start: Fraction = Fraction(1),
    d: int = 128,
    build: Builder = cosine_sum,
    resolution: float = RESOLUTION,
    beyond: float = math.inf,
) -> Infimum:
    """The least admissible base for `length` in [start, high], high itself admissible, certified.

    The island scan of [start, high] proves every base below its first run of undecided cells fails; that
    run, followed by an admissible cell, holds the infimum. Bisection in it keeps its ends certified: a
    middle base that `scan` finds admissible is the new high; one that fails at m, with B(m) rising (`rises`,
    in arb) over [low, middle], fails with everything in between, and is the new low. It stops when the
    interval is as narrow as float64 bases tell apart, or when neither holds (ArithmeticError if nothing is
    decided). The island scan stops `beyond` (in ln b) past its first admissible cell: nothing above it
    bears on the infimum."""
    cells = island_scan(length, start, high, d, build, resolution, beyond)
    first = runs(cells)[0]
    edge = list(itertools.takewhile(lambda cell: cell.state == UNDECIDED, first))
    if not edge or len(edge) == len(first):
        raise ArithmeticError(f"the first island for L = {length} is not bracketed at ln-width {resolution}")
    low, top = edge[0].low, edge[-1].high
    if not scan(build(top, d), length, track_least=False).admissible:
        raise ArithmeticError(f"the base {top} the island scan found admissible fails for L = {length}")
    bisected: list[Cell] = []
    steps = 0
    while steps < BISECTIONS and top - low > top * Fraction(1, 2**50):
        middle = (low + top) / 2
        found = scan(build(middle, d), length, track_least=False)
        if found.admissible:
            top = middle
        elif rises(found.cosine, found.negative.m, low, middle):
            bisected.append(Cell(low, middle, FAILS, None, found.negative.m))
            low = middle
        else:
            break
        steps += 1
    if not bisected:
        raise ArithmeticError(f"no base of the first island's edge for L = {length} is certified to fail")
    return Infimum(length, start, low, top, bisected[-1].witness, steps, cells, tuple(bisected))


def _fails_throughout(cell: Cell, d: int, build: Builder) -> bool:
    """Whether B(m) < 0 at every base of the failing cell [low, high], m its witness: B(m) evaluated in arb
    on the ball of those bases (`CosineSum.ball`), with no float64 value and no assumed error bound."""
    if cell.witness is None or not cell.low < cell.high:
        return False
    return bool(build(cell.high, d).ball(cell.witness, BITS, (cell.low, cell.high)) < 0)


def _admissible_throughout(cell: Cell, length: int, d: int, build: Builder) -> bool:
    """Whether every base of the admissible cell is admissible: the scan at its centre reaches both ends
    (to within REACH_SLACK/2, less than `reach` has already taken off)."""
    if cell.centre is None or not cell.low <= cell.centre <= cell.high:
        return False
    state, r, _ = reach(cell.centre, cell.low, length, d, build)
    return state == ADMISSIBLE and float(_half_widths([cell])[1][0]) <= r + REACH_SLACK / 2


def check_infimum(
    found: Infimum, d: int = 128, build: Builder = cosine_sum, every_cell: bool = False
) -> None:
    """Re-check an infimum's proof, ArithmeticError naming the first step that does not hold: the cells run
    without a gap from `start`, and each failing one up to the first other cell fails at its witness
    (`_fails_throughout`, in arb on the ball of the cell's bases); the bisection's intervals run on from
    them to `low`, each with B(m) < 0 at its top and rising across it (`rises`); `high` is admissible
    (`scan`, every float64 cos and sin it is built from checked in arb). With `every_cell`, every decided
    cell past the first island's edge is re-checked too (a full scan for each admissible one)."""
    point = found.start
    for cell in found.cells:
        if cell.low != point or not cell.low < cell.high:
            raise ArithmeticError(f"the cells leave a gap or overlap at {float(point)}")
        point = cell.high
    failing = found.failing
    for cell in failing:
        if not _fails_throughout(cell, d, build):
            raise ArithmeticError(f"the cell [{float(cell.low)}, {float(cell.high)}] is not shown to fail")
    point = failing[-1].high if failing else found.start
    for cell in found.bisected:
        cosine = build(cell.high, d)
        if cell.low != point or cell.witness is None or cell.state != FAILS:
            raise ArithmeticError(f"the bisection interval ending at {float(cell.high)} does not follow on")
        if not (_sign(cosine, cell.witness).ball < 0 and rises(cosine, cell.witness, cell.low, cell.high)):
            raise ArithmeticError(f"B({cell.witness}) is not shown negative across [{cell.low}, {cell.high}]")
        point = cell.high
    if point != found.low or not found.low < found.high:
        raise ArithmeticError(f"the failing bases end at {float(point)}, not at the infimum's low end")
    if not scan(build(found.high, d), found.length, track_least=False, checked=True).admissible:
        raise ArithmeticError(f"the base {found.high} is not admissible for L = {found.length}")
    rest = found.cells[len(failing) :] if every_cell else ()
    for cell in rest:
        if cell.state == FAILS:
            holds = _fails_throughout(cell, d, build)
        else:
            holds = cell.state == UNDECIDED or _admissible_throughout(cell, found.length, d, build)
        if not holds:
            raise ArithmeticError(f"the {cell.state} cell [{float(cell.low)}, {float(cell.high)}] is not")


#: The first line of an infimum's certificate (`certificate_text`).
CERTIFICATE_HEADER = "pe-verify certificate: the least base b with B(m) >= 0 for every m <= length"
#: How a cell's state is written in a certificate.
_STATE_LETTERS = {FAILS: "F", ADMISSIBLE: "A", UNDECIDED: "U"}


def _number(value: Fraction) -> str:
    """A base in full: as the shortest decimal that reads back to it when it is a float, else as p/q."""
    return repr(float(value)) if Fraction(float(value)) == value else f"{value.numerator}/{value.denominator}"


def _read_number(text: str) -> Fraction:
    return Fraction(text) if "/" in text else Fraction(float(text))


def _cell_line(cell: Cell) -> str:
    fields = [_STATE_LETTERS[cell.state], _number(cell.high)]
    if cell.centre is not None:
        fields.append(_number(cell.centre))
    if cell.witness is not None:
        fields.append(str(cell.witness))
    return " ".join(fields)


def certificate_text(found: Infimum, d: int = 128) -> str:
    """An infimum's proof as text: the length, d, start and ends; one line per island-scan cell (state, top,
    centre, witness; each starts where the previous ends); one line `top m` per bisection interval.
    `read_certificate` reads it back; `check_infimum` checks what it reads."""
    lines = [
        CERTIFICATE_HEADER,
        f"length {found.length} d {d} start {_number(found.start)} low {_number(found.low)} "
        f"high {_number(found.high)}",
        f"steps {found.steps} witness {found.witness}",
        "cells",
        *(_cell_line(cell) for cell in found.cells),
        "bisected",
        *(f"{_number(cell.high)} {cell.witness}" for cell in found.bisected),
    ]
    return "\n".join(lines) + "\n"


def read_certificate(text: str) -> tuple[Infimum, int]:
    """The infimum a `certificate_text` states and its d (ValueError if the text is not one), unchecked."""
    states = {letter: state for state, letter in _STATE_LETTERS.items()}
    lines = text.splitlines()
    try:
        if lines[0] != CERTIFICATE_HEADER or lines[3] != "cells":
            raise ValueError("the header is missing")
        head, tail = lines[1].split(), lines[2].split()
        if [head[k] for k in (0, 2, 4, 6, 8)] != ["length", "d", "start", "low", "high"] or tail[0::2] != [
            "steps",
            "witness",
        ]:
            raise ValueError("the second or third line is not the certificate's")
        length, d = int(head[1]), int(head[3])
        start, low, high = (_read_number(head[k]) for k in (5, 7, 9))
        steps, witness = int(tail[1]), int(tail[3])
        split = lines.index("bisected")
        point, cells, bisected = start, [], []
        for line in lines[4:split]:
            letter, top, *rest = line.split()
            state = states[letter]
            centre = _read_number(rest[0]) if rest else None
            m = int(rest[1]) if len(rest) > 1 else None
            fits = (state == FAILS) == (m is not None) and (state == UNDECIDED) == (centre is None)
            if len(rest) > 2 or not fits:
                raise ValueError(f"the cell line {line!r} does not fit its state")
            cells.append(Cell(point, _read_number(top), state, centre, m))
            point = cells[-1].high
        point = next((cell.low for cell in cells if cell.state != FAILS), point)
        for line in lines[split + 1 :]:
            top, m = line.split()
            bisected.append(Cell(point, _read_number(top), FAILS, None, int(m)))
            point = bisected[-1].high
    except (IndexError, KeyError, ValueError, ZeroDivisionError) as error:
        raise ValueError(f"not a base-bound certificate: {error}") from None
    return Infimum(length, start, low, high, witness, steps, tuple(cells), tuple(bisected)), d
