"""Checking chunk certificates: a chunk's search (`separation.certified_separation` with `certify`) returns,
with its minimum, a `separation.Tiling` of its offsets into pieces, each with a lower bound on S it claims at
every offset of the piece. `check_chunks` trusts nothing of it but the pieces' ends and claims:

* the pieces of each chunk follow end to end from its first offset to its last (no gap, no overlap);
* the turn positions of each piece's start are computed anew, exactly (`TurnTable.words`), and the arc bound
  over a piece excluded as a whole re-derived from them (`arc_lower_bounds`, `sum_lower`: O(d) a piece, no
  screen); a piece of a leaf bounded one by one is re-derived offset by offset (the enclosure of a single
  offset, O(d) each: the screen's float32 products are not redone);
* each re-derived bound must reach the piece's claim and exceed the upper end U of the merged minimum's
  square; an offset whose bound does not exceed U is evaluated in ball arithmetic (at the precision of the
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
    Tiling,
    TurnTable,
    add_turns,
    arc_lower_bounds,
    float_down,
    float_up,
    minimum_ball,
    sum_lower,
    turns_float,
)

#: Turn positions re-derived at once (pieces or offsets × d/2): 16 MiB of words and their temporaries.
_ENTRIES = 2**20

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


def _pieces(tiling: Tiling, mask: np.ndarray, cut: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pieces selected by `mask`, each cut into pieces of at most `cut` offsets: their starts, lengths
    and claims."""
    starts, lengths, claims = tiling.starts[mask], tiling.lengths[mask], tiling.bounds[mask]
    parts = np.maximum(-(-lengths // cut), 1)
    index = np.repeat(np.arange(starts.size), parts)
    first = np.cumsum(parts) - parts
    within = np.arange(index.size) - first[index]
    piece_starts = starts[index] + within * cut
    return piece_starts, np.minimum(cut, starts[index] + lengths[index] - piece_starts), claims[index]


class _Rederived:
    """Re-derived lower bounds on S over pieces and at single offsets of one encoding, from exact turn
    positions."""

    def __init__(self, encoding: Sinusoidal) -> None:
        self.table = TurnTable.of(encoding)
        self.n = encoding.d // 2
        self.steps: tuple[np.ndarray, np.ndarray] | None = None

    def arcs(self, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Per piece [start, start + length), the arc bound over it on every frequency."""
        bounds = np.empty(starts.size)
        block = max(1, _ENTRIES // self.n)
        for first in range(0, starts.size, block):
            part = slice(first, first + block)
            hi, _ = self.table.words(starts[part])
            advance = (lengths[part, None] - 1) * self.table.rates[None, :]
            bounds[part] = sum_lower(arc_lower_bounds(turns_float(hi), advance))
        return bounds

    def offsets(self, starts: np.ndarray, lengths: np.ndarray, cut: int) -> tuple[np.ndarray, np.ndarray]:
        """Every offset of pieces of 1 to `cut` offsets, and the enclosure's lower bound on S at each (its
        turn positions the piece start's plus exact steps of one offset)."""
        if self.steps is None or self.steps[0].shape[0] < cut:
            self.steps = self.table.steps(1, cut)
        step_hi, step_lo = self.steps
        ends = np.cumsum(lengths)
        offsets = np.empty(int(ends[-1]) if ends.size else 0, dtype=np.int64)
        bounds = np.empty(offsets.size)
        block = max(1, _ENTRIES // (self.n * cut))
        for first in range(0, starts.size, block):
            part = slice(first, first + block)
            hi, lo = self.table.words(starts[part])
            local = np.cumsum(lengths[part])
            piece = np.repeat(np.arange(hi.shape[0]), lengths[part])
            within = np.arange(piece.size) - (local - lengths[part])[piece]
            turn_hi, _ = add_turns(hi[piece], lo[piece], step_hi[within], step_lo[within])
            where = slice(int(ends[first] - lengths[first]), int(ends[first] - lengths[first]) + piece.size)
            offsets[where] = starts[part][piece] + within
            turns = turns_float(turn_hi)
            bounds[where] = sum_lower(arc_lower_bounds(turns, np.zeros_like(turns)))
        return offsets, bounds


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


#: Offsets a piece is cut into when its offsets are re-derived one by one (a leaf holds at most 4096).
_CUT = 4096


def check_chunks(
    encoding: Sinusoidal,
    chunks: Sequence[tuple[int, int, Tiling | None]],
    minimum: flint.arb,
    minimum_at: int,
    argmin: tuple[int, ...],
    prec: int,
) -> Checked:
    """Check the certificates of chunks (first offset, end, tiling) against the merged minimum ball `minimum`,
    claimed at `minimum_at`, with `argmin` the offsets claimed to attain it, at the precision `prec` of the
    last evaluation (see the module's docstring)."""
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
        whole = ~tiling.one_by_one
        arcs = rederived.arcs(tiling.starts[whole], tiling.lengths[whole])
        claims = tiling.bounds[whole]
        short = np.flatnonzero(arcs < claims)
        if short.size:
            i = int(short[0])
            start = int(tiling.starts[whole][i])
            problems.append(
                f"{where}the piece {start} ≤ k < {start + int(tiling.lengths[whole][i])} claims S ≥ "
                f"{claims[i]!r}, its arc bound re-derives {arcs[i]!r}"
            )
            continue
        above = arcs > upper
        next_squared = min(next_squared, float(arcs[above].min(initial=math.inf)))
        if int(tiling.lengths[whole][~above].sum()) > MAX_NEAR * _CUT:
            problems.append(f"{where}its pieces excluded as a whole are not bounded above the minimum")
            continue
        singly = tiling.one_by_one.copy()
        singly[np.flatnonzero(whole)[~above]] = True  # arcs not above the minimum: offset by offset
        starts, lengths, claims = _pieces(tiling, singly, _CUT)
        offsets, bounds = rederived.offsets(starts, lengths, _CUT)
        claimed = np.repeat(claims, lengths)
        short = np.flatnonzero(bounds < claimed)
        if short.size:
            i = int(short[0])
            problems.append(
                f"{where}k = {int(offsets[i])} lies in a piece that claims S ≥ {claimed[i]!r}, its enclosure "
                f"re-derives {bounds[i]!r}"
            )
            continue
        next_squared = min(next_squared, float(bounds[bounds > upper].min(initial=math.inf)))
        near += offsets[bounds <= upper].tolist()
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
