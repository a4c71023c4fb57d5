"""One-step changes stay below each dim's frequency; a table read at doubled positions breaks the bound."""

from __future__ import annotations

import flint

from pe_verify.properties.checks.coordinate_variation import step_changes, total_variation
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

PREC = 170


class DoubledPositions(Sinusoidal):
    """Row p holds PE(2p): every step is a step of 2."""

    def row_balls(self, position: int) -> list[flint.arb]:
        return super().row_balls(2 * position)


class ReversedPairs(Sinusoidal):
    """The slowest pair first: dims 0–1 barely move, dims 4–5 swing."""

    def row_balls(self, position: int) -> list[flint.arb]:
        row = super().row_balls(position)
        pairs = [row[j : j + 2] for j in range(0, self.d, 2)]
        return [value for pair in reversed(pairs) for value in pair]


def test_every_step_is_within_the_frequency_and_dim_0_within_two_sin_half() -> None:
    changes = step_changes(Sinusoidal(6), 8, PREC)
    assert changes.within_frequency
    assert bool(changes.largest_fast <= changes.fast_bound) and bool(changes.fast_bound < 1)
    assert bool(changes.largest_slow < changes.slowest_frequency)
    assert step_changes(Sinusoidal(512), 64, PREC).within_frequency


def test_steps_of_two_exceed_the_frequency_of_the_fast_pair() -> None:
    assert not step_changes(DoubledPositions(6), 8, PREC).within_frequency


def test_fast_dims_swing_and_slow_dims_barely_move_over_the_table() -> None:
    variation = total_variation(Sinusoidal(6), 8, PREC)
    assert bool(variation[0] > 2) and bool(variation[1] > 2)
    assert bool(variation[4] < flint.arb(2) / 100) and bool(variation[5] < flint.arb(2) / 100)
    reversed_variation = total_variation(ReversedPairs(6), 8, PREC)
    assert bool(reversed_variation[0] < flint.arb(2) / 100) and bool(reversed_variation[4] > 2)
