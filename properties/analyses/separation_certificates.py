"""Checking chunk certificates: a chunk's search (`separation.certified_separation` with `certify`) returns,
with its minimum, a `separation.Tiling` of its offsets into pieces, each with a lower bound on S it claims at
every offset of the piece. `check_chunks` trusts nothing of it but the pieces' ends and claims:

* the pieces of each chunk follow end to end from its first offset to its last (no gap, no overlap);
* the turn positions of each piece's start are computed anew, exactly (`TurnTable.high_words`), and the arc
  bound over the piece re-derived from them (`arc_lower_bounds`, `summation_factor`; no float32 screen): O(d)
  a piece at most, over the frequencies whose arc is shorter than a turn, slowest first, stopping once the
  bound reaches what it must;
* each re-derived bound must exceed the upper end U of the merged minimum's square, and reach the bound the
  answer states for the other offsets; an interval excluded as a whole must reach its claim; a leaf the
  search bounded offset by offset is cut in quarters where its bound falls short, down to single offsets
  (the enclosure of one offset), each of which must reach its leaf's claim as far as the answer relies on
  it (up to those two bounds);
* a single offset whose bound does not exceed U is evaluated in ball arithmetic (at the precision of the
  merged minimum), and must lie above the minimum or be one of the merged argmin offsets, each of which must
  overlap it;
* the merged minimum is the ball recomputed at its offset.

The re-derived bounds then bound every other offset of the range (`Checked.next_squared`). A finding names the
first failing piece of its chunk, and leaves the merged answer uncertified.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import flint
import numpy as np

from ..encodings.sinusoidal import Sinusoidal
from .separation import (
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


class _Rederived:
    """Re-derived lower bounds on S over pieces of offsets of one encoding, from exact turn positions."""

    def __init__(self, encoding: Sinusoidal) -> None:
        self.table = TurnTable.of(encoding)
        self.n = encoding.d // 2
        self.slowest = np.argsort(self.table.rates, kind="stable")

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
    an interval excluded as a whole must reach its claim; a leaf bounded one by one must reach T, else it is
    cut in quarters and its parts checked the same way, down to single offsets (the enclosure of one offset),
    each of which must reach its leaf's claim or T, whichever is less (a claim above T bounds nothing the
    answer states), and is added to `near` when it does not exceed `upper`. So is an interval that reaches
    its claim but not T. The first failing piece (None when all check), and the least bound found above
    `upper` (each summed until it reaches what it must, or in full)."""
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
        cut = np.flatnonzero(failed & (lengths > 1))
        split_offsets += int(lengths[cut][~splits[cut]].sum())
        if split_offsets > MAX_NEAR * 4096:
            return "its intervals excluded as a whole are not bounded above the minimum", lowest
        starts, lengths, index = _quarters(starts[cut], lengths[cut])
        claims, splits = claims[cut][index], np.ones(index.size, dtype=bool)
    return None, lowest


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
    rederived = _Rederived(encoding)
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
