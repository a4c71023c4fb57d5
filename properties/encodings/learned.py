"""Learned absolute positions: position p is encoded by row p of an (L, d) table, only for 0 ≤ p < L.

`table_reach` looks up the last row and the one past it: a table of L rows has no vector for position L.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


class LearnedPositionTable:
    """L learned position vectors; it encodes no position outside 0, …, L − 1 (cannot extrapolate)."""

    def __init__(self, weights: Sequence[Sequence[float]] | np.ndarray) -> None:
        """Keep a read-only float64 copy of `weights`, which must be a finite (L, d) array with L, d ≥ 1."""
        table = np.asarray(weights)
        if table.dtype.kind not in "iuf" or table.dtype == np.bool_:
            raise ValueError(f"weights must be real numbers, got dtype {table.dtype}")
        if table.ndim != 2 or 0 in table.shape:
            raise ValueError(f"weights must have shape (L, d) with L ≥ 1 and d ≥ 1, got shape {table.shape}")
        table = table.astype(np.float64)
        if not np.all(np.isfinite(table)):
            raise ValueError("weights must be finite; got NaN or infinity")
        table.flags.writeable = False
        self._weights = table

    @classmethod
    def seeded(cls, max_len: int, d: int, seed: int = 0) -> LearnedPositionTable:
        """A table of L = max_len rows of standard normal weights from a seeded generator (a stand-in for
        trained weights)."""
        return cls(np.random.default_rng(seed).standard_normal((max_len, d)))

    @property
    def max_len(self) -> int:
        """L, the number of positions the table covers."""
        return self._weights.shape[0]

    @property
    def weights(self) -> np.ndarray:
        """The (L, d) table itself (read-only)."""
        return self._weights

    def lookup(self, positions: Sequence[int] | np.ndarray | int) -> np.ndarray:
        """The rows for `positions`: shape positions.shape + (d,).

        Each position must be an integer in [0, L − 1]; numpy indexing would silently wrap a negative one to
        the end of the table, so it is rejected instead.
        """
        index = self._require_indices(positions)
        return self._weights[index]

    def _require_indices(self, positions: object) -> np.ndarray:
        array = np.asarray(positions)
        allowed = f"integers in [0, {self.max_len - 1}] (the table has L = {self.max_len} rows)"
        if array.dtype == np.bool_ or array.dtype.kind not in "iuf":
            raise ValueError(f"positions must be {allowed}, got dtype {array.dtype}")
        if array.dtype.kind == "f" and not np.all(np.isfinite(array) & (array == np.round(array))):
            raise ValueError(f"positions must be {allowed}; got a non-integer, NaN or infinity")
        if array.size and (np.min(array) < 0 or np.max(array) >= self.max_len):
            offender = array.reshape(-1)[np.argmax((array < 0) | (array >= self.max_len))].item()
            raise ValueError(f"positions must be {allowed}; got {offender}")
        return array.astype(np.intp)


@dataclass(frozen=True)
class TableReach:
    """What a learned table of L rows returns at its last row and past it."""

    max_len: int
    last_row_shape: tuple[int, ...]
    past_the_end: str | None


def table_reach(table: LearnedPositionTable) -> TableReach:
    """Look up rows L − 1 and L of the table: the shape of the last row, and the message with which row L is
    refused (None when a row comes back)."""
    last = table.lookup(table.max_len - 1).shape
    try:
        table.lookup(table.max_len)
    except ValueError as refusal:
        return TableReach(table.max_len, last, str(refusal))
    return TableReach(table.max_len, last, None)
