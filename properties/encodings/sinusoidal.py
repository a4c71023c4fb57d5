"""Sinusoidal encoding: PE(p, 2i) = sin(p·ω_i), PE(p, 2i+1) = cos(p·ω_i), with ω_i = base^(−2i/d).

One object per family variant, `Sinusoidal(d, base, omegas, dtype, positions_in_dtype)`, declares the
parameters and offers every form the checks read (the frequencies come from `frequencies.py`):

* `float64_rows(positions)`: plain float64, sin/cos of p·ω for any finite real |p| ≤ 2**53 (error ≈ |p|·ε);
* `rows(positions)` with its a-priori bound `error`: float64 at integers 0 ≤ p < 2**32 by exact reduction of
  p·ω/2π, each entry within `VALUE_ERROR` = 2^−51 of the true value (`sin_cos_at_integers`);
* `frequencies_mp(dps)`, `value_mp(p, j)`, `rows_mp(positions, dps)`: mpmath at any precision;
* `frequency_balls()`, `row_balls(p)`, `table_balls(positions)`: arb balls (python-flint) containing the true
  values;
* `column(pos)`: the exact SymPy column, for a symbolic or exact pos (and symbolic `omegas` in the proofs);
* `stored_rows(positions)`, `label`: the common PyTorch code's table stored in `dtype` (float32 computation,
  or float64 throughout), optionally with the positions first rounded to the dtype; `code_exponents()` and
  `code_frequencies()`: that code's float32 exponents and frequencies (div_term).

Properties of one encoding read from these forms: `wavelength_range` (the pairs share a frequency, which
strictly decreases, so λ_i = 2π·base^(2i/d) runs from 2π towards, but below, 2π·base), `norm_gap` (how the
length of PE(p) changes with p: not at all for even d) and `is_table_prefix` (a shorter stored table is the
first rows of a longer one, bit for bit).

`omegas` replaces base^(−2i/d) by ⌈d/2⌉ given frequencies (exact SymPy numbers, or symbols in the proofs).

Design: a frozen dataclass whose forms are methods; a broken twin (an implementation a check must reject) is
a subclass overriding the one form it breaks, and a form it lacks is set to None in the subclass (e.g.
``value_mp = None``: the scans then rank by float64 alone). Subclassing was chosen over override callables
carried in fields because every form keeps one signature in one place, a twin states exactly which form it
changes, and the checks need no "is there an override?" plumbing. The one exception is
`finite_precision.StoredEncoding(label, d, dtype, rows)`: the same interface with its stored form given as a
callable, for a table known only by its rows (an implementation under test in the `sinusoidal` battery).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath
import numpy as np
import sympy as sp

from ..numerics.correct_rounding import correctly_rounded
from ..numerics.dtypes import DtypeSpec, dtype_spec
from ..numerics.validation import require_base, require_positions, require_positive_int
from .frequencies import (
    expr_arb,
    fraction_arb,
    frequencies,
    frequencies_arb,
    frequencies_mp,
    frequency_arb,
    frequency_exponent,
    frequency_exprs,
    frequency_mp,
)

#: Positions must satisfy 0 ≤ p < MAX_POSITION for `Sinusoidal.rows`: a position times a 32-bit limb must
#: fit in 64 bits.
MAX_POSITION = 2**32

#: Bound on |computed − true| for every value returned by `sin_cos_at_integers` (see its docstring).
VALUE_ERROR = 2.0**-51

#: Digits of the frequencies the exact reduction of `sin_cos_at_integers` starts from.
FIXED_POINT_DPS = 60


def pair_index(d: int) -> np.ndarray:
    """The frequency index i = ⌊j/2⌋ of each dimension j = 0, …, d−1."""
    return np.arange(require_positive_int(d, "d")) // 2


def sinusoidal_encoding(positions: Iterable[float] | np.ndarray, d: int, base: float = 10000.0) -> np.ndarray:
    """The encoding of each position as a row, in float64: shape (len(positions), d)."""
    positions = require_positions(positions).reshape(-1)
    return _float64_rows(positions, frequencies(d, base), pair_index(d))


def sinusoidal_encoding_mp(
    positions: Iterable[int], d: int, base: float | str = 10000, dps: int = 50
) -> list[list]:
    """The encoding as rows of mpmath numbers with `dps` significant digits (any integer position)."""
    return _rows_mp(positions, frequencies_mp(d, base, dps), d, dps)


def _float64_rows(positions: np.ndarray, omegas: np.ndarray, index: np.ndarray) -> np.ndarray:
    """sin/cos(p·ω) with dim j at the frequency omegas[index[j]]: sin in the even dims, cos in the odd."""
    angles = positions[:, None] * omegas[index][None, :]
    is_sin = np.arange(len(index)) % 2 == 0
    return np.where(is_sin, np.sin(angles), np.cos(angles))


def _rows_mp(positions: Iterable[object], omegas: Sequence[mpmath.mpf], d: int, dps: int) -> list[list]:
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


@dataclass(frozen=True)
class Sinusoidal:
    """The sinusoidal encoding with d dims and ω_i = base^(−2i/d) (or the given `omegas`), in every form.

    `base` may be a str (read exactly by mpmath and SymPy; float64 forms use float(base)). `dtype` (a name
    or `DtypeSpec`) is where `stored_rows` keeps the common code's table; `positions_in_dtype` rounds the
    positions to that dtype first.
    """

    d: int
    base: float | int | str = 10000.0
    omegas: tuple[object, ...] | None = None
    dtype: DtypeSpec | str | None = None
    positions_in_dtype: bool = False

    def __post_init__(self) -> None:
        require_positive_int(self.d, "d")
        require_base(float(self.base) if isinstance(self.base, str) else self.base)
        if self.omegas is not None:
            exact = tuple(sp.sympify(omega) for omega in self.omegas)
            if not exact or any(omega.is_real is not True for omega in exact):
                raise ValueError(
                    f"omegas must be a non-empty list of exact real numbers, got {self.omegas!r}"
                )
            if len(exact) != (self.d + 1) // 2:
                raise ValueError(f"d = {self.d} needs {(self.d + 1) // 2} frequencies, got {len(exact)}")
            object.__setattr__(self, "omegas", exact)
        if self.dtype is not None:
            object.__setattr__(self, "dtype", dtype_spec(self.dtype))

    # ----------------------------------------------------------------------------------------- float64

    @property
    def error(self) -> float:
        """The a-priori bound on |`rows` − true value| for every entry."""
        return VALUE_ERROR

    def frequencies64(self) -> np.ndarray:
        """The ⌈d/2⌉ frequencies in float64."""
        if self.omegas is None:
            return frequencies(self.d, float(self.base))
        return np.array([float(self._numeric(omega, 17)) for omega in self.omegas])

    def frequency_index(self) -> np.ndarray:
        """The frequency index i of each dimension j (dims 2i and 2i+1 share ω_i): `pair_index(d)`."""
        return pair_index(self.d)

    def float64_rows(self, positions: Iterable[float] | np.ndarray) -> np.ndarray:
        """Plain float64 rows sin/cos(p·ω), shape (len(positions), d), for finite real |p| ≤ 2**53."""
        positions = require_positions(positions).reshape(-1)
        return _float64_rows(positions, self.frequencies64(), self.frequency_index())

    def rows(self, positions: Sequence[int] | np.ndarray) -> np.ndarray:
        """Float64 rows of integers 0 ≤ p < 2^32, each entry within `error` (exact reduction)."""
        sin, cos = sin_cos_at_integers(positions, self.frequencies_mp(FIXED_POINT_DPS))
        rows = np.empty((sin.shape[0], self.d))
        rows[:, 0::2] = sin
        rows[:, 1::2] = cos[:, : self.d // 2]
        return rows

    # ------------------------------------------------------------------------------------------ mpmath

    def frequencies_mp(self, dps: int) -> list[mpmath.mpf]:
        """The ⌈d/2⌉ frequencies as mpmath numbers with `dps` digits (a str base is exact)."""
        if self.omegas is None:
            return frequencies_mp(self.d, self.base, dps)
        with mpmath.workdps(require_positive_int(dps, "dps")):
            return [mpmath.mpf(self._numeric(omega, dps + 10)) for omega in self.omegas]

    def value_mp(self, position: int, dim: int) -> mpmath.mpf:
        """PE(position, dim) at the current mpmath precision (sin for even dim, cos for odd)."""
        if self.omegas is None:
            omega = frequency_mp(dim // 2, self.d, self.base)
        else:
            omega = mpmath.mpf(self._numeric(self.omegas[dim // 2], mpmath.mp.dps + 10))
        angle = mpmath.mpf(position) * omega
        return mpmath.sin(angle) if dim % 2 == 0 else mpmath.cos(angle)

    def rows_mp(self, positions: Iterable[object], dps: int = 50) -> list[list]:
        """Rows of mpmath numbers with `dps` significant digits (any finite real position)."""
        return _rows_mp(positions, self.frequencies_mp(dps), self.d, dps)

    # ------------------------------------------------------------------------------------------- balls

    def frequency_balls(self) -> list[flint.arb]:
        """The ⌈d/2⌉ frequencies as arb balls (current flint precision) containing the true values: the
        given `omegas` (`expr_arb`; ValueError for a symbol), or base^(−2i/d) with a str or int base read
        exactly."""
        if self.omegas is not None:
            return [expr_arb(omega) for omega in self.omegas]
        if isinstance(self.base, str | int):
            base = fraction_arb(Fraction(self.base))
            return [frequency_arb(i, self.d, base) for i in range((self.d + 1) // 2)]
        return list(_frequency_balls(self.d, float(self.base), flint.ctx.prec))

    def row_balls(self, position: int) -> list[flint.arb]:
        """The d entries of PE(position) as arb balls (current flint precision) containing the true values."""
        row = []
        for omega in self.frequency_balls():
            row.extend((flint.arb(position) * omega).sin_cos())
        return row[: self.d]

    def table_balls(self, positions: Iterable[int]) -> list[list[flint.arb]]:
        """`row_balls` of each position: the table as rows of balls."""
        return [self.row_balls(position) for position in positions]

    # ------------------------------------------------------------------------------------------- SymPy

    def exact_frequencies(self) -> list[sp.Expr]:
        """The ⌈d/2⌉ frequencies as exact SymPy numbers (a float base at its exact binary value)."""
        if self.omegas is not None:
            return list(self.omegas)
        base = sp.Rational(self.base) if isinstance(self.base, str) else self.base
        return frequency_exprs(self.d, base)

    def column(self, pos: object) -> sp.Matrix:
        """PE(pos) as an exact SymPy column: entry 2i is sin(pos·ω_i), 2i+1 is cos(pos·ω_i)."""
        omegas = self.exact_frequencies()
        return sp.Matrix(
            [
                sp.sin(pos * omegas[j // 2]) if j % 2 == 0 else sp.cos(pos * omegas[j // 2])
                for j in range(self.d)
            ]
        )

    # ------------------------------------------------------------------------------------------ stored

    def code_exponents(self) -> np.ndarray:
        """The exponents the common code passes to exp, in float32: arange(0, d, 2)·float32(−ln base/d)."""
        return _code_exponents(self.d, float(self.base), np.float32)

    def code_frequencies(self) -> np.ndarray:
        """The common code's div_term in float32: the exp of `code_exponents`, correctly rounded."""
        return correctly_rounded("exp", "float32", self.code_exponents())

    @property
    def stored_dtype(self) -> DtypeSpec:
        """The dtype `stored_rows` keeps the table in."""
        if not isinstance(self.dtype, DtypeSpec):
            raise ValueError("the encoding has no dtype: give Sinusoidal(..., dtype=...) for a stored table")
        return self.dtype

    @property
    def label(self) -> str:
        """How the stored table was computed, as reports name it."""
        spec = self.stored_dtype
        computed = f"float32 computation, stored in {spec.name}"
        if spec.scalar is np.float64:
            computed = "float64 throughout"
        held = f"positions rounded to {spec.name}, " if self.positions_in_dtype else ""
        return f"{held}{computed} (base {float(self.base):g})"

    def stored_rows(self, positions: np.ndarray) -> np.ndarray:
        """The table as the common PyTorch code builds it, stored in `dtype`, at int64 `positions`.

        position = arange as float32; div_term = exp(arange(0, d, 2) · (−ln base / d)) in float32;
        PE[:, 0::2] = sin(position · div_term), PE[:, 1::2] = cos(position · div_term) in float32; then cast
        to the dtype (for float64 everything is float64: the reference). With `positions_in_dtype` the
        positions are first rounded to the dtype (as when the position vector is held in half precision),
        then computed the same way. Odd d drops the last cos column. In float32, exp, sin and cos are
        correctly rounded, so the table is a property of float32 (a platform's libm may differ from it by a
        few ulp); float64 uses numpy's.
        """
        spec, d, base = self.stored_dtype, self.d, float(self.base)
        compute = np.float64 if spec.scalar is np.float64 else np.float32
        if self.positions_in_dtype:
            held = spec.cast(positions)
            if not np.all(np.isfinite(held)):
                raise ValueError(
                    f"positions up to {int(np.max(positions))} exceed the largest finite {spec.name} "
                    f"({spec.max_finite:g}); positions held in {spec.name} must stay below it"
                )
            position = held.astype(compute)
        else:
            position = positions.astype(compute)
        table = np.empty((len(position), d), dtype=compute)
        if compute is np.float64:
            angles = position[:, None] * np.exp(_code_exponents(d, base, compute))[None, :]
            table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles[:, : d // 2])
        else:
            angles = position[:, None] * self.code_frequencies()[None, :]
            table[:, 0::2] = correctly_rounded("sin", "float32", angles)
            table[:, 1::2] = correctly_rounded("cos", "float32", angles[:, : d // 2])
        return spec.cast(table)

    @staticmethod
    def _numeric(omega: sp.Expr, digits: int) -> sp.Expr:
        if omega.free_symbols:
            raise ValueError(f"the frequency {omega} is symbolic: only the exact column form exists")
        return sp.N(omega, digits)


def _code_exponents(d: int, base: float, compute: type[np.floating]) -> np.ndarray:
    """The common code's exponents arange(0, d, 2)·(−ln base/d), computed in `compute`."""
    return np.arange(0, d, 2, dtype=compute) * compute(-math.log(base) / d)


@functools.lru_cache(maxsize=64)
def _frequency_balls(d: int, base: float, prec: int) -> tuple[flint.arb, ...]:
    """ω_i = base^(−2i/d) as arb balls at `prec` bits."""
    return tuple(frequencies_arb(d, base, prec))


# ---------------------------------------------------------------------------------------------------------
# Accurate float64 values at integer positions
# ---------------------------------------------------------------------------------------------------------


def _turn_limbs(omegas: Sequence[mpmath.mpf]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The top three 32-bit limbs of F = round(2^128 · frac(ω/2π)) for each ω (read-only arrays, computed once
    per list of frequencies)."""
    return _turn_limbs_of(tuple(omegas))


@functools.lru_cache(maxsize=64)
def _turn_limbs_of(omegas: tuple[mpmath.mpf, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    limbs = []
    with mpmath.workdps(FIXED_POINT_DPS):
        for omega in omegas:
            turns = mpmath.mpf(omega) / (2 * mpmath.pi)
            fixed = int(mpmath.nint((turns - mpmath.floor(turns)) * mpmath.mpf(2) ** 128)) % 2**128
            limbs.append([(fixed >> shift) & 0xFFFFFFFF for shift in (96, 64, 32)])
    table = np.array(limbs, dtype=np.uint64).reshape(-1, 3)
    table.flags.writeable = False
    f3, f2, f1 = table.T
    return f3, f2, f1


def _two_pi_split() -> tuple[float, float, float]:
    """2π = C1 + C2 with C1 of 21 significant bits (so |hi|·C1 is exact for |hi| ≤ 2^31), and 2π in float."""
    with mpmath.workdps(FIXED_POINT_DPS):
        two_pi = 2 * mpmath.pi
        c1 = mpmath.nint(two_pi * 2**18) / 2**18
        return float(c1), float(two_pi - c1), float(two_pi)


_C1, _C2, _TWO_PI = _two_pi_split()


def _require_integer_positions(positions: object) -> np.ndarray:
    """Positions as uint64 when they are integers with 0 ≤ p < MAX_POSITION."""
    array = require_positions(positions).reshape(-1)
    if array.size and (np.any(array != np.floor(array)) or array.min() < 0 or array.max() >= MAX_POSITION):
        raise ValueError(f"positions must be integers with 0 ≤ p < 2**32 = {MAX_POSITION}")
    return array.astype(np.uint64)


def sin_cos_at_integers(
    positions: Sequence[int] | np.ndarray, omegas: Sequence[mpmath.mpf]
) -> tuple[np.ndarray, np.ndarray]:
    """sin(p·ω) and cos(p·ω), shape (len(positions), len(omegas)), each within VALUE_ERROR = 2^−51.

    For integers 0 ≤ p < 2^32. With F = round(2^128·frac(ω/2π)) split into 32-bit limbs F3..F0, the turn
    fraction frac(p·ω/2π)·2^64 = (p·F3·2^32 + p·F2 + ⌊p·F1/2^32⌋) mod 2^64 up to less than 3 units, computed
    exactly in uint64; read as a signed integer it is t·2^64 with t ∈ [−1/2, 1/2). Writing t = hi·2^−32 +
    lo·2^−64 and 2π = C1 + C2 (C1 of 21 bits), the angle is A + B with A = hi·C1·2^−32 exact and
    B = hi·C2·2^−32 + lo·2π·2^−64 (|B| < 2^−18, error < 2^−69); a two-sum gives a + r = A + B exactly,
    and sin(a + r) = sin a + r·cos a, cos(a + r) = cos a − r·sin a up to r²/2 < 2^−104. The error is the
    library's sin/cos error on [−π, π] (measured ≤ 0.52 ulp ≤ 0.52·2^−53 for numpy's float64 sin/cos) plus
    one final rounding (≤ 2^−54) plus < 2^−58 from the reduction: < 1.1·2^−53. VALUE_ERROR = 2^−51 leaves room
    for a library up to three ulp off; the tests compare against mpmath at random positions up to 2^32.
    """
    p = _require_integer_positions(positions)[:, None]
    f3, f2, f1 = _turn_limbs(omegas)
    turns = ((p * f3) << 32) + p * f2 + ((p * f1) >> 32)
    signed = turns.view(np.int64)
    hi = (signed >> 32).astype(np.float64)
    lo = (signed & 0xFFFFFFFF).astype(np.float64)
    big = hi * (_C1 * 2.0**-32)
    small = hi * (_C2 * 2.0**-32) + lo * (_TWO_PI * 2.0**-64)
    angle = big + small
    virtual = angle - big
    residual = (big - (angle - virtual)) + (small - virtual)
    sin, cos = np.sin(angle), np.cos(angle)
    return sin + cos * residual, cos - sin * residual


# ---------------------------------------------------------------------------------------------------------
# Properties of one encoding
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Wavelengths:
    """The pair structure and exact exponents of one encoding's frequencies, and the wavelengths they give."""

    d: int
    pairs_share_frequency: bool
    strictly_decreasing: bool
    shortest: flint.arb
    longest: flint.arb
    below_limit: bool


def wavelength_range(encoding: Sinusoidal, prec: int) -> Wavelengths:
    """Dims 2i and 2i+1 share the index i (`frequency_index`), the exact exponents −2i/d of ω_i = base^(−2i/d)
    strictly decrease, and λ_i = 2π/ω_i runs from 2π to 2π·base^(2(⌈d/2⌉ − 1)/d) < 2π·base (`prec` bits)."""
    d = encoding.d
    index = encoding.frequency_index()
    count = (d + 1) // 2
    shared = bool(
        np.array_equal(index[0::2], np.arange(count)) and np.array_equal(index[1::2], index[0::2][: d // 2])
    )
    exponents = [frequency_exponent(i, d) for i in range(count)]
    decreasing = all(a > b for a, b in itertools.pairwise(exponents))
    with flint.ctx.workprec(require_positive_int(prec, "prec")):
        base = flint.arb(encoding.base)
        two_pi = 2 * flint.arb.pi()
        longest = two_pi * base ** fraction_arb(-exponents[-1])
        return Wavelengths(d, shared, decreasing, two_pi, longest, bool(longest < two_pi * base))


def norm_gap(encoding: Sinusoidal, position: int, reference: int, prec: int) -> flint.arb:
    """‖PE(position)‖² − ‖PE(reference)‖² as a ball at `prec` bits: zero for even d, where every (sin, cos)
    pair has length 1; the unpaired last sine of an odd d makes it sin²(pω) − sin²(qω)."""
    with flint.ctx.workprec(require_positive_int(prec, "prec")):
        at, ref = encoding.row_balls(position), encoding.row_balls(reference)
        return sum((v * v for v in at), flint.arb(0)) - sum((v * v for v in ref), flint.arb(0))


def is_table_prefix(encoding: Sinusoidal, short: int, long: int) -> bool:
    """The stored table for max_len = short is the first `short` rows of the one for max_len = long, bit for
    bit (no step of the computation depends on max_len)."""
    head, full = encoding.stored_rows(np.arange(short)), encoding.stored_rows(np.arange(long))
    return head.shape == full[:short].shape and head.tobytes() == full[:short].tobytes()
