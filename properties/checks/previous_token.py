"""A previous-token head on the sinusoidal encoding: W_Q = M_(−1) (the offset by −1), W_K = I.

M_(−1) maps PE(i) to PE(i − 1) pair by pair, (sin, cos)(x) ↦ (sin, cos)(x − ω), so the position–position score
of key j for query i is PE(i − 1)·PE(j) = Σ_l cos((i − 1 − j)ω_l), which is d/2 at j = i − 1 and smaller at
every other integer j (`attention.previous_token_head`). Here the scores of a table of positions are computed
in ball arithmetic (python-flint `arb`) from a `sinusoidal.Sinusoidal`'s `table_balls` and `frequency_balls`,
and the peak is decided for every query.
"""

from __future__ import annotations

from dataclasses import dataclass

import flint

from ..encodings.sinusoidal import Sinusoidal
from ..numerics.validation import require_positive_int


def shift_back(row: list[flint.arb], omegas: list[flint.arb]) -> list[flint.arb]:
    """M_(−1)·PE(i) = PE(i − 1), block by block: (sin, cos)(x) ↦ (sin, cos)(x − ω) by angle addition."""
    shifted = []
    for index, omega in enumerate(omegas):
        sin_x, cos_x = row[2 * index], row[2 * index + 1]
        sin_w, cos_w = omega.sin_cos()
        shifted += [sin_x * cos_w - cos_x * sin_w, cos_x * cos_w + sin_x * sin_w]
    return shifted


@dataclass(frozen=True)
class PreviousTokenScores:
    """Scores PE(i − 1)·PE(j) of the head on a table: does each query peak at j = i − 1, and where is the
    smallest margin to a runner-up?"""

    peaks: bool
    margin: flint.arb
    query: int
    runner_up: int


def previous_token_scores(encoding: Sinusoidal, n_positions: int, prec: int) -> PreviousTokenScores:
    """Positions 0..n−1 (d even, n ≥ 2), W_Q = M_(−1), W_K = I, at `prec` bits: whether for every query
    i ≥ 1 the score of key j is largest exactly at j = i − 1, and the smallest margin to another key."""
    if require_positive_int(n_positions, "n_positions") < 2:
        raise ValueError(
            f"n_positions must be at least 2 (a query and its previous token), got {n_positions}"
        )
    with flint.ctx.workprec(require_positive_int(prec, "prec")):
        rows = encoding.table_balls(range(n_positions))
        omegas = encoding.frequency_balls()[: encoding.d // 2]
        peaks, closest = True, None
        for i in range(1, n_positions):
            query = shift_back(rows[i], omegas)
            scores = [
                sum((q * k for q, k in zip(query, rows[j], strict=True)), flint.arb(0))
                for j in range(n_positions)
            ]
            others = [j for j in range(n_positions) if j != i - 1]
            peaks = peaks and all(bool(scores[i - 1] > scores[j]) for j in others)
            for j in others:
                gap = scores[i - 1] - scores[j]
                if closest is None or float(gap.mid()) < float(closest[0].mid()):
                    closest = (gap, i, j)
        return PreviousTokenScores(peaks, *closest)
