"""Hypothesis strategies for testing positional-encoding code in your own suite: the positions, head sizes and
rotary inputs `pe-verify check` draws from, as building blocks for your own properties.

    from hypothesis import given
    from pe_verify.strategies import rotary_inputs

    @given(rotary_inputs(d=64, max_pos=4096))
    def test_my_rope_keeps_norms(inputs):
        x, positions = inputs
        ...

Positions are whole numbers 0 … max_pos − 1 (int64 arrays for `rotary_inputs`); head sizes are even, as a
rotation of pairs needs; vectors are finite float64 values of moderate size, so that rounding and not
overflow is what a property meets.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

#: The largest magnitude of a vector entry drawn: large enough to matter, far from float32's overflow.
ENTRY_BOUND = 1e3


def positions(max_pos: int = 65536) -> st.SearchStrategy[int]:
    """A position 0 … max_pos − 1."""
    if max_pos < 1:
        raise ValueError(f"max_pos must be at least 1; got {max_pos}")
    return st.integers(0, max_pos - 1)


def dims(max_d: int = 512, min_d: int = 2) -> st.SearchStrategy[int]:
    """An even head size from min_d to max_d (rounded up and down to even), small ones first when
    shrinking."""
    low, high = min_d + min_d % 2, max_d - max_d % 2
    if low < 2 or high < low:
        raise ValueError(f"no even head size from {min_d} to {max_d}")
    return st.integers(low // 2, high // 2).map(lambda half: 2 * half)


def rotary_inputs(
    d: int | None = None, max_pos: int = 65536, max_rows: int = 8
) -> st.SearchStrategy[tuple[np.ndarray, np.ndarray]]:
    """(x, positions): x float64 of shape [n, d] with 1 ≤ n ≤ max_rows, positions int64 of shape [n], as a
    `rotate(x, positions)` takes them; d drawn by `dims()` when not given."""
    if d is not None and (d < 2 or d % 2):
        raise ValueError(f"d must be an even head size of at least 2; got {d}")
    if max_rows < 1:
        raise ValueError(f"max_rows must be at least 1; got {max_rows}")
    head = st.just(d) if d is not None else dims()
    entries = st.floats(-ENTRY_BOUND, ENTRY_BOUND, allow_nan=False, allow_infinity=False)

    def drawn(size: int) -> st.SearchStrategy[tuple[np.ndarray, np.ndarray]]:
        rows = st.lists(st.lists(entries, min_size=size, max_size=size), min_size=1, max_size=max_rows)
        return rows.flatmap(
            lambda x: st.lists(positions(max_pos), min_size=len(x), max_size=len(x)).map(
                lambda p: (np.array(x, dtype=np.float64), np.array(p, dtype=np.int64))
            )
        )

    return head.flatmap(drawn)
