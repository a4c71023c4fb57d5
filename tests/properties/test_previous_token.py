"""The previous-token head peaks at j = i − 1 on the document's table; pairs at the wrong frequency do not."""

from __future__ import annotations

import flint
import pytest

from pe_verify.properties.checks.previous_token import previous_token_scores, shift_back
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

PREC = 170


class ReversedPairs(Sinusoidal):
    """The pairs in reverse order: the shift by ω_0 hits the slowest pair."""

    def row_balls(self, position: int) -> list[flint.arb]:
        row = super().row_balls(position)
        pairs = [row[j : j + 2] for j in range(0, self.d, 2)]
        return [value for pair in reversed(pairs) for value in pair]


def test_every_query_peaks_at_its_previous_token() -> None:
    head = previous_token_scores(Sinusoidal(6), 8, PREC)
    assert head.peaks and bool(head.margin > 0)
    assert (head.query, head.runner_up) == (1, 6)


def test_the_shift_maps_a_row_to_the_previous_one() -> None:
    encoding = Sinusoidal(6)
    with flint.ctx.workprec(PREC):
        shifted = shift_back(encoding.row_balls(5), encoding.frequency_balls())
        previous = encoding.row_balls(4)
        assert all(bool(abs(a - b) < flint.arb(10) ** -40) for a, b in zip(shifted, previous, strict=True))


def test_pairs_at_other_frequencies_move_the_peak() -> None:
    assert not previous_token_scores(ReversedPairs(6), 8, PREC).peaks


def test_a_single_position_has_no_previous_token() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        previous_token_scores(Sinusoidal(6), 1, PREC)
