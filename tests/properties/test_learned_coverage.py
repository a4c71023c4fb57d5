"""A learned table covers exactly positions 0, …, L − 1; twins that clamp, wrap or drop a row are caught."""

from __future__ import annotations

import numpy as np
import pytest

from pe_verify.properties.checks.learned_coverage import (
    covers_positions_below,
    lookup_error,
    random_position_table,
)
from pe_verify.properties.encodings.learned import LearnedPositionTable


class ClampingTable(LearnedPositionTable):
    """Mutation: positions past the end silently reuse the last row."""

    def lookup(self, positions: object) -> np.ndarray:
        return self.weights[np.minimum(np.asarray(positions), self.max_len - 1)]


class WrappingTable(LearnedPositionTable):
    """Mutation: positions wrap around the table (p mod L)."""

    def lookup(self, positions: object) -> np.ndarray:
        return self.weights[np.asarray(positions) % self.max_len]


class IndexingTable(LearnedPositionTable):
    """Plain numpy indexing: past the end it raises IndexError (as nn.Embedding does)."""

    def lookup(self, positions: object) -> np.ndarray:
        return self.weights[np.asarray(positions)]


def test_a_table_of_l_rows_covers_the_positions_below_l_and_fails_at_l() -> None:
    table = random_position_table(512, 8)
    assert covers_positions_below(table, 512)
    message = lookup_error(table, 512)
    assert message is not None and "got 512" in message
    assert lookup_error(table, 511) is None


@pytest.mark.parametrize("twin", [ClampingTable, WrappingTable], ids=["clamping", "wrapping"])
def test_twins_that_return_a_row_past_the_end_give_no_error(twin: type[LearnedPositionTable]) -> None:
    table = random_position_table(16, 4, table=twin)
    assert covers_positions_below(table, 16)
    assert lookup_error(table, 16) is None


def test_an_index_error_counts_as_a_failed_lookup() -> None:
    message = lookup_error(random_position_table(16, 4, table=IndexingTable), 16)
    assert message is not None and "out of bounds" in message


def test_a_table_one_row_short_does_not_cover_the_length() -> None:
    table = random_position_table(511, 8)
    assert not covers_positions_below(table, 512)
    assert lookup_error(table, 511) is not None


def test_the_table_is_seeded() -> None:
    first, second = random_position_table(4, 3, seed=1), random_position_table(4, 3, seed=1)
    assert np.array_equal(first.weights, second.weights)
    assert not np.array_equal(first.weights, random_position_table(4, 3, seed=2).weights)
