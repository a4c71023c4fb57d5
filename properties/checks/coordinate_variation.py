"""How much each coordinate of the sinusoidal encoding moves from one position to the next.

A step of 1 changes coordinate j by |PE(p+1, j) − PE(p, j)| ≤ 2 sin(ω_j/2) ≤ ω_j
(`lipschitz.coordinate_step`), with ω_j the frequency of dim j's pair: fast pairs swing, slow pairs barely
move. Both forms here read a `sinusoidal.Sinusoidal` through `table_balls` and `frequency_balls`, in ball
arithmetic (python-flint `arb`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import flint

from ..encodings.sinusoidal import Sinusoidal
from ..numerics.validation import require_positive_int


@dataclass(frozen=True)
class StepChanges:
    """One-step changes |PE(p+1, j) − PE(p, j)| over positions 0..n−1 of one d, certified against ω_j."""

    d: int
    n_positions: int
    within_frequency: bool
    largest_fast: flint.arb
    fast_bound: flint.arb
    largest_slow: flint.arb
    slowest_frequency: flint.arb


def step_changes(encoding: Sinusoidal, n_positions: int, prec: int) -> StepChanges:
    """At `prec` bits: whether every |PE(p+1, j) − PE(p, j)| < ω_j for p + 1 < n; the largest change of dim 0
    with its bound 2 sin(ω_0/2), and the largest change of the last sine dim with its frequency."""
    with flint.ctx.workprec(require_positive_int(prec, "prec")):
        rows = encoding.table_balls(range(n_positions))
        frequencies = encoding.frequency_balls()
        omegas = [frequencies[j // 2] for j in range(encoding.d)]
        changes = [
            [abs(b - a) for a, b in zip(here, after, strict=True)] for here, after in itertools.pairwise(rows)
        ]
        within = all(
            bool(change < omega) for row in changes for change, omega in zip(row, omegas, strict=True)
        )
        fast = max((row[0] for row in changes), key=lambda ball: float(ball.mid()))
        slow = max((row[-2] for row in changes), key=lambda ball: float(ball.mid()))
        fast_bound = 2 * (omegas[0] / 2).sin()
        return StepChanges(encoding.d, n_positions, within, fast, fast_bound, slow, omegas[-1])


def total_variation(encoding: Sinusoidal, n_positions: int, prec: int) -> list[flint.arb]:
    """TV_j = Σ_{p=0}^{n−2} |PE(p+1, j) − PE(p, j)| for each dim j over positions 0..n−1, as balls at `prec`
    bits."""
    with flint.ctx.workprec(require_positive_int(prec, "prec")):
        rows = encoding.table_balls(range(n_positions))
        return [
            sum((abs(after[j] - here[j]) for here, after in itertools.pairwise(rows)), flint.arb(0))
            for j in range(encoding.d)
        ]
