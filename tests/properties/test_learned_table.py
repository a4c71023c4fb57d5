"""A learned table of L rows answers for 0..L−1 only; a table that wraps around answers past its end."""

from __future__ import annotations

import numpy as np

from pe_verify.properties.encodings.learned import LearnedPositionTable, table_reach


class Wrapping(LearnedPositionTable):
    def lookup(self, positions: object) -> np.ndarray:
        return self.weights[np.asarray(positions) % self.max_len]


def test_row_l_is_refused() -> None:
    reach = table_reach(LearnedPositionTable.seeded(512, 8))
    assert reach.max_len == 512 and reach.last_row_shape == (8,)
    assert reach.past_the_end is not None and "got 512" in reach.past_the_end


def test_a_wrapping_table_answers_past_its_end() -> None:
    table = Wrapping.seeded(512, 8)
    assert isinstance(table, Wrapping) and table_reach(table).past_the_end is None


def test_seeded_tables_are_reproducible() -> None:
    assert np.array_equal(
        LearnedPositionTable.seeded(4, 3).weights, LearnedPositionTable.seeded(4, 3).weights
    )
