"""The frequencies ω_i = base^(−2i/d) of the sinusoidal encoding and of RoPE, in every arithmetic used here.

Pair i (sinusoidal dims 2i and 2i+1, RoPE's rotated pair i) turns by the angle p·ω_i at position p, with

    ω_i = base^(−2i/d),   i = 0, 1, …

This module is the only place the formula is written: `frequency_exponent` gives the exponent −2i/d, and
every other function here, and every frequency elsewhere in the package, is built on it
(`tests/properties/test_frequencies.py` scans the source tree for copies). Code that models a document's or a
library's own way of computing the frequencies (e.g. PyTorch's ``exp(arange(0, d, 2) · (−ln base/d))`` in
float32) is not a copy: it is what is being checked against these.

One form per arithmetic, each a single frequency ``*_(i, d, base)`` and a list over i < count:

* exact: `frequency_exponent` (a `Fraction`, or a SymPy expression for symbolic i or d), and
  `ratio_exponent` for ω_i/ω_j;
* float64: `exponents`, `frequencies` — the exponent correctly rounded (``float(Fraction)``, equal to
  ``-2.0 * i / d``), then numpy's ``base ** x``;
* mpmath: `frequency_mp`, `frequencies_mp` — ``mpf(base) ** (mpf(p) / q)`` for the exponent p/q, equal to
  ``mpf(-2 * i) / d`` (both are one correctly rounded division);
* SymPy: `frequency_expr`, `frequency_exprs` — ``base ** Rational(p, q)``, exact;
* ball arithmetic (python-flint): `frequency_arb`, `frequencies_arb` — ``arb(base) ** (arb(p) / q)``, and
  `expr_arb` for a frequency given as an exact SymPy number.

The lists have ⌈d/2⌉ entries by default (`frequency_count`: the sinusoidal encoding, whose odd d ends with a
sin-only frequency; RoPE's d/2 for even d is the same number). A caller that means d // 2 passes
``count=d // 2``.
"""

from __future__ import annotations

import numbers
from fractions import Fraction
from functools import lru_cache
from typing import overload

import flint
import mpmath
import numpy as np
import sympy as sp

from ..numerics.validation import require_base, require_positive_int


@overload
def frequency_exponent(i: int, d: int) -> Fraction: ...


@overload
def frequency_exponent(i: int | sp.Expr, d: int | sp.Expr) -> Fraction | sp.Expr: ...


def frequency_exponent(i: int | sp.Expr, d: int | sp.Expr) -> Fraction | sp.Expr:
    """The exponent −2i/d of ω_i = base^(−2i/d): the one place the formula is written.

    Integers i ≥ 0 and d ≥ 1 give the exact `Fraction`; a symbolic i or d (the SymPy proofs) gives the SymPy
    expression −2i/d, the same expression ``-2 * i / d`` builds.
    """
    if _symbolic(i) or _symbolic(d):
        unit: Fraction | sp.Expr = sp.Integer(1)
    else:
        d = require_positive_int(d, "d")
        i = _require_index(i)
        unit = Fraction(1)
    return -2 * (unit * i) / d


def ratio_exponent(i: int, j: int, d: int) -> Fraction:
    """The exponent of the frequency ratio ω_i/ω_j = base^(e_i − e_j), e_i = `frequency_exponent(i, d)`."""
    return frequency_exponent(i, d) - frequency_exponent(j, d)


def frequency_count(d: object) -> int:
    """⌈d/2⌉: the number of frequencies (sin and cos share one; an odd d ends with a sin-only frequency)."""
    return (require_positive_int(d, "d") + 1) // 2


# ---------------------------------------------------------------------------------------------------------
# float64
# ---------------------------------------------------------------------------------------------------------


def exponents(d: int, count: int | None = None) -> np.ndarray:
    """The exponents −2i/d, i < count, each correctly rounded to float64 (as ``-2.0 * i / d`` is, up to the
    sign of the zero at i = 0)."""
    d, count = _require_count(d, count)
    return _exponent_table(d, count).copy()


def frequencies(d: int, base: float = 10000.0, count: int | None = None) -> np.ndarray:
    """The frequencies ω_i = base^(−2i/d), i < count (default ⌈d/2⌉, one per sin/cos pair), in float64."""
    d, count = _require_count(d, count)
    base = require_base(base)
    return base ** _exponent_table(d, count)


@lru_cache(maxsize=256)
def _exponent_table(d: int, count: int) -> np.ndarray:
    table = np.array([float(frequency_exponent(i, d)) for i in range(count)], dtype=np.float64)
    table.flags.writeable = False
    return table


# ---------------------------------------------------------------------------------------------------------
# mpmath
# ---------------------------------------------------------------------------------------------------------


def fraction_mp(q: Fraction) -> mpmath.mpf:
    """q at the current mpmath precision: mpf(numerator) / denominator, one correctly rounded division
    (the numerator is exact while it has fewer bits than the precision)."""
    return mpmath.mpf(q.numerator) / q.denominator


def frequency_mp(i: int, d: int, base: object) -> mpmath.mpf:
    """ω_i = base^(−2i/d) at the current mpmath precision; the base as mpmath.mpf reads it (a float exactly,
    a str to the working precision), unchecked. Computed once per (i, d, base, precision): scans and
    re-rankings ask for the same frequencies millions of times."""
    return _frequency_mp(i, d, base, mpmath.mp.prec)


@lru_cache(maxsize=2**15)
def _frequency_mp(i: int, d: int, base: object, prec: int) -> mpmath.mpf:
    with mpmath.workprec(prec):
        return mpmath.mpf(base) ** fraction_mp(frequency_exponent(i, d))


def frequencies_mp(
    d: int, base: float | str = 10000, dps: int = 50, count: int | None = None
) -> list[mpmath.mpf]:
    """The frequencies ω_i = base^(−2i/d), i < count (default ⌈d/2⌉), as mpmath numbers with `dps` digits
    (a str base is exact)."""
    d, count = _require_count(d, count)
    dps = require_positive_int(dps, "dps")
    with mpmath.workdps(dps):
        b = mpmath.mpf(base)
        if not (mpmath.isfinite(b) and b > 1):
            raise ValueError(f"base must be a finite real number greater than 1, got {base}")
        return [frequency_mp(i, d, b) for i in range(count)]


# ---------------------------------------------------------------------------------------------------------
# SymPy
# ---------------------------------------------------------------------------------------------------------


def frequency_expr(i: int | sp.Expr, d: int | sp.Expr, base: object) -> sp.Expr:
    """ω_i = base^(−2i/d) as a SymPy expression: base ** Rational for integers i, d (exact), the symbolic
    power for a symbolic i or d. The base is sympified as given."""
    return sp.sympify(base) ** sp.sympify(frequency_exponent(i, d))


def frequency_exprs(
    d: int, base: int | float | Fraction | sp.Expr = 10000, count: int | None = None
) -> list[sp.Expr]:
    """The frequencies as exact SymPy numbers base^(−2i/d), i < count (for base 10000: 10^(−8i/d)).

    A float base is taken at its exact binary value, never replaced by a nearby simpler number.
    """
    d, count = _require_count(d, count)
    exact = sp.Rational(base) if isinstance(base, numbers.Rational | float) else sp.sympify(base)
    if not (exact.is_real and exact.is_finite and exact > 1):
        raise ValueError(f"base must be a finite real number greater than 1, got {base}")
    return [frequency_expr(i, d, exact) for i in range(count)]


# ---------------------------------------------------------------------------------------------------------
# Ball arithmetic (python-flint arb)
# ---------------------------------------------------------------------------------------------------------


def fraction_arb(q: Fraction) -> flint.arb:
    """q as an arb ball at the current flint precision: arb(numerator) / denominator (exact when q is a
    dyadic rational that fits, else a ball of one rounding's radius around it)."""
    return flint.arb(q.numerator) / q.denominator


#: The SymPy functions `expr_arb` evaluates, by the arb method of the same meaning.
_ARB_FUNCTIONS = {sp.exp: "exp", sp.log: "log", sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.atan: "atan"}


def expr_arb(expr: sp.Expr) -> flint.arb:
    """An exact real SymPy number (rationals, floats at their exact binary value, π, e, sums, products,
    powers and exp, log, sin, cos, tan, atan of these) as an arb ball containing it, at the current flint
    precision; ValueError for anything else (a symbol, or a value arb cannot enclose)."""
    expr = sp.sympify(expr)
    if expr.is_Rational or expr.is_Float:
        return fraction_arb(Fraction(*sp.Rational(expr).as_numer_denom()))
    if expr is sp.pi:
        return flint.arb.pi()
    if expr is sp.E:
        return flint.arb(1).exp()
    args = [expr_arb(arg) for arg in expr.args] if expr.args else None
    if args is None:
        value = None
    elif expr.is_Add:
        value = sum(args[1:], args[0])
    elif expr.is_Mul:
        value = args[0]
        for arg in args[1:]:
            value *= arg
    elif expr.is_Pow:
        base, exponent = args
        value = base ** int(expr.exp) if expr.exp.is_Integer else base**exponent
    elif expr.func in _ARB_FUNCTIONS and len(args) == 1:
        value = getattr(args[0], _ARB_FUNCTIONS[expr.func])()
    else:
        value = None
    if value is None or not value.is_finite():
        raise ValueError(
            f"{expr} has no ball form (an exact real number built from rationals and π is needed)"
        )
    return value


def frequency_arb(i: int, d: int, base: object) -> flint.arb:
    """ω_i = base^(−2i/d) as an arb ball containing it, at the current flint precision (base as flint.arb
    reads it: an int or float exactly), unchecked."""
    return flint.arb(base) ** fraction_arb(frequency_exponent(i, d))


def frequencies_arb(
    d: int, base: int | float = 10000, prec: int | None = None, count: int | None = None
) -> list[flint.arb]:
    """The frequencies ω_i = base^(−2i/d), i < count (default ⌈d/2⌉), as arb balls at `prec` bits (default:
    flint's current precision)."""
    d, count = _require_count(d, count)
    require_base(base)  # checked, but used as given: an int base is exact in arb at any size
    if prec is None:
        return [frequency_arb(i, d, base) for i in range(count)]
    with flint.ctx.workprec(require_positive_int(prec, "prec")):
        return [frequency_arb(i, d, base) for i in range(count)]


# ---------------------------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------------------------


def _symbolic(value: object) -> bool:
    """A SymPy expression other than an integer (a SymPy Integer is taken as the int it is)."""
    return isinstance(value, sp.Basic) and not value.is_Integer


def _require_index(i: object) -> int:
    if isinstance(i, bool) or not isinstance(i, numbers.Integral) or i < 0:
        raise ValueError(f"the frequency index i must be a non-negative integer, got {i!r}")
    return int(i)


def _require_count(d: object, count: object) -> tuple[int, int]:
    """d as a positive int, and the number of frequencies: `count` (0 ≤ count ≤ ⌈d/2⌉), default ⌈d/2⌉."""
    d = require_positive_int(d, "d")
    most = (d + 1) // 2
    if count is None:
        return d, most
    if isinstance(count, bool) or not isinstance(count, numbers.Integral) or not 0 <= count <= most:
        raise ValueError(f"count must be an integer in [0, ⌈d/2⌉ = {most}], got {count!r}")
    return d, int(count)
