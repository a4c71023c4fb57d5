"""Sinusoidal encoding: PE(p, 2i) = sin(p·ω_i), PE(p, 2i+1) = cos(p·ω_i), with ω_i = base^(−2i/d)."""

from __future__ import annotations

from collections.abc import Iterable

import mpmath
import numpy as np

# The frequencies live in `frequencies.py`; re-exported here, where callers have always imported them.
from .frequencies import frequencies as frequencies
from .frequencies import frequencies_mp as frequencies_mp
from .frequencies import frequency_exprs as frequency_exprs
from .validation import require_positions, require_positive_int


def pair_index(d: int) -> np.ndarray:
    """The frequency index i = ⌊j/2⌋ of each dimension j = 0, …, d−1."""
    return np.arange(require_positive_int(d, "d")) // 2


def sinusoidal_encoding(positions: Iterable[float] | np.ndarray, d: int, base: float = 10000.0) -> np.ndarray:
    """The encoding of each position as a row, in float64: shape (len(positions), d)."""
    positions = require_positions(positions).reshape(-1)
    omega = frequencies(d, base)[pair_index(d)]
    angles = positions[:, None] * omega[None, :]
    is_sin = np.arange(d) % 2 == 0
    return np.where(is_sin, np.sin(angles), np.cos(angles))


def sinusoidal_encoding_mp(
    positions: Iterable[int], d: int, base: float | str = 10000, dps: int = 50
) -> list[list]:
    """The encoding as rows of mpmath numbers with `dps` significant digits (any integer position)."""
    omegas = frequencies_mp(d, base, dps)
    with mpmath.workdps(dps):
        rows = []
        for p in positions:
            p = mpmath.mpf(_require_finite_mp(p))
            rows.append(
                [
                    mpmath.sin(p * omegas[j // 2]) if j % 2 == 0 else mpmath.cos(p * omegas[j // 2])
                    for j in range(d)
                ]
            )
    return rows


def _require_finite_mp(p: object) -> object:
    try:
        value = mpmath.mpf(p)
    except (TypeError, ValueError):
        raise ValueError(f"positions must be real numbers, got {p!r}") from None
    if not mpmath.isfinite(value):
        raise ValueError("positions must be finite; got NaN or infinity")
    return p
