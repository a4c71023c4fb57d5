"""Sinusoidal encoding: PE(p, 2i) = sin(p·ω_i), PE(p, 2i+1) = cos(p·ω_i), with ω_i = base^(−2i/d)."""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from .validation import require_base, require_positions, require_positive_int


def pair_index(d: int) -> np.ndarray:
    """The frequency index i = ⌊j/2⌋ of each dimension j = 0, …, d−1."""
    return np.arange(require_positive_int(d, "d")) // 2


def frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """The ⌈d/2⌉ frequencies ω_i = base^(−2i/d) in float64 (one per sin/cos pair)."""
    d = require_positive_int(d, "d")
    base = require_base(base)
    return base ** (-2.0 * np.arange((d + 1) // 2) / d)


def frequency_exprs(d: int, base: int | float | Fraction | sp.Expr = 10000) -> list[sp.Expr]:
    """The frequencies as exact SymPy numbers base^(−2i/d) (for base 10000 this is 10^(−8i/d)).

    A float base is taken at its exact binary value, never replaced by a nearby simpler number.
    """
    d = require_positive_int(d, "d")
    exact = sp.Rational(base) if isinstance(base, numbers.Rational | float) else sp.sympify(base)
    if not (exact.is_real and exact.is_finite and exact > 1):
        raise ValueError(f"base must be a finite real number greater than 1, got {base}")
    return [exact ** sp.Rational(-2 * i, d) for i in range((d + 1) // 2)]


def sinusoidal_encoding(positions: Iterable[float] | np.ndarray, d: int, base: float = 10000.0) -> np.ndarray:
    """The encoding of each position as a row, in float64: shape (len(positions), d)."""
    positions = require_positions(positions).reshape(-1)
    omega = frequencies(d, base)[pair_index(d)]
    angles = positions[:, None] * omega[None, :]
    is_sin = np.arange(d) % 2 == 0
    return np.where(is_sin, np.sin(angles), np.cos(angles))


def frequencies_mp(d: int, base: float | str = 10000, dps: int = 50) -> list[mpmath.mpf]:
    """The ⌈d/2⌉ frequencies ω_i = base^(−2i/d) as mpmath numbers with `dps` digits (a str base is exact)."""
    d = require_positive_int(d, "d")
    dps = require_positive_int(dps, "dps")
    with mpmath.workdps(dps):
        b = mpmath.mpf(base)
        if not (mpmath.isfinite(b) and b > 1):
            raise ValueError(f"base must be a finite real number greater than 1, got {base}")
        return [b ** (mpmath.mpf(-2 * i) / d) for i in range((d + 1) // 2)]


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
