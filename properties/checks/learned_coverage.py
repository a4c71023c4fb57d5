"""A learned table of L rows covers exactly the positions 0, …, L − 1: each of them has a row and position L
has none, so a lookup there fails; it does not return a vector of lower quality."""

from __future__ import annotations

import numpy as np

from ..encodings.learned import LearnedPositionTable


def random_position_table(
    length: int, width: int, seed: int = 0, table: type[LearnedPositionTable] = LearnedPositionTable
) -> LearnedPositionTable:
    """A `table` of `length` rows and `width` columns of seeded standard normal weights (a stand-in for a
    trained one: what is checked here does not depend on the values)."""
    return table(np.random.default_rng(seed).standard_normal((length, width)))


def covers_positions_below(table: LearnedPositionTable, length: int) -> bool:
    """Every position 0, …, length − 1 has a row: the table has `length` rows and looking all of them up
    gives one row of its width each."""
    width = table.weights.shape[1]
    return table.max_len == length and table.lookup(np.arange(length)).shape == (length, width)


def lookup_error(table: LearnedPositionTable, position: int) -> str | None:
    """The message of the error that looking `position` up raises, or None when a row comes back."""
    try:
        table.lookup(position)
    except (IndexError, ValueError) as error:
        return str(error)
    return None
