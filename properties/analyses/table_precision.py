"""Finite-precision facts about sinusoidal tables, read through a `sinusoidal.Sinusoidal`'s own forms.

* Positions held in a dtype: from p = 2^(m+1) on (m the mantissa width) the dtype stores p + 1 as p, so the
  rows of p and p + 1 of the stored table (`stored_rows`, positions rounded to the dtype) are identical.
* The float64 table (`float64_rows`) at integer positions p < N: an entry at p ≥ 1 is within
  `checking.angle_tolerance(p)` of its exact value (its angle is at most p radians, ω_0 = 1 being the largest
  frequency); row 0 is sin 0 = 0 and cos 0 = 1, off by at most one rounding.

A broken twin is a `Sinusoidal` subclass overriding the form it breaks, or one built with a wrong parameter.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..encodings.sinusoidal import Sinusoidal
from ..numerics.checking import EPS64, angle_tolerance
from ..numerics.validation import require_positive_int
from .finite_precision import position_collision


class CollisionRows(NamedTuple):
    """The first integer p the dtype cannot tell from p + 1, the value both are stored as, whether the stored
    rows of p and p + 1 are identical, and whether p is the formula's 2^(m+1)."""

    position: int
    stored_value: float
    identical: bool
    agrees: bool


def rows_at_position_collision(encoding: Sinusoidal) -> CollisionRows:
    """The stored rows of the encoding at the first position collision p, p + 1 of its dtype (positions held
    in the dtype make them identical)."""
    found = position_collision(encoding.stored_dtype)
    p = found.first_collision
    rows = encoding.stored_rows(np.array([p, p + 1], dtype=np.int64))
    return CollisionRows(p, found.stored_value, bool(np.array_equal(rows[0], rows[1])), found.agrees)


def float64_table_bounds(encoding: Sinusoidal, n_positions: int) -> tuple[np.ndarray, np.ndarray]:
    """The float64 table of positions 0, …, N−1 and an a-priori bound on each entry's error:
    angle_tolerance(p) at p ≥ 1, one rounding EPS64·|value| in row 0."""
    n = require_positive_int(n_positions, "n_positions")
    table = np.asarray(encoding.float64_rows(np.arange(n)), dtype=np.float64)
    per_row = np.array([angle_tolerance(p, base=float(encoding.base)) if p else 0.0 for p in range(n)])
    bounds = np.repeat(per_row[:, None], table.shape[1], axis=1)
    bounds[0] = EPS64 * np.abs(table[0])
    return table, bounds
