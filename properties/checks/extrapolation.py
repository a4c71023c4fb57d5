"""The sinusoidal encoding is defined at every position, with nothing tied to a maximum length.

* Exactly, each entry is sin or cos of p·ω_i with exact numbers ω_i: the position is the only free symbol.
* In float64 the table of the first n positions is, bit for bit, the first n rows of any longer table.
* At any position, however far, ‖PE(p)‖² = d/2 for even d (sin² + cos² = 1 per frequency), to the digits
  of the encoding's own `rows_mp`.

Each reads a `sinusoidal.Sinusoidal`; a broken twin is a subclass overriding the form it breaks.
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from ..encodings.sinusoidal import Sinusoidal
from ..numerics.validation import require_positive_int


def angle_free_symbols(encoding: Sinusoidal, position: sp.Symbol) -> set[sp.Symbol]:
    """The free symbols of the exact angles position·ω_i: {position} when every ω_i is an exact number."""
    return set().union(*((position * omega).free_symbols for omega in encoding.exact_frequencies()))


def table_is_prefix(encoding: Sinusoidal, short: int, long: int) -> bool:
    """Whether the float64 table of positions 0, …, short − 1 equals, bit for bit, the first rows of the
    table of positions 0, …, long − 1 (long ≥ short)."""
    short, long = require_positive_int(short, "short"), require_positive_int(long, "long")
    if long < short:
        raise ValueError(f"long must be at least short = {short}, got {long}")
    rows = encoding.float64_rows(np.arange(short))
    return bool(np.array_equal(rows, encoding.float64_rows(np.arange(long))[:short]))


def squared_norm_error(encoding: Sinusoidal, position: int, dps: int = 50) -> mpmath.mpf:
    """|‖PE(position)‖² − d/2| at `dps` digits, the row computed with 10 guard digits (even d)."""
    d, dps = encoding.d, require_positive_int(dps, "dps")
    if d % 2:
        raise ValueError(f"‖PE(p)‖² = d/2 needs an even d, got {d}")
    with mpmath.workdps(dps):
        row = encoding.rows_mp([position], dps=dps + 10)[0]
        return abs(mpmath.fsum(value**2 for value in row) - d // 2)
