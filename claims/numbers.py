"""What a committed page may print of a number, so that every supported platform prints the same page.

- Exact values (integers, rationals, SymPy numbers) and values computed at a stated precision (mpmath digits,
  ball arithmetic) are printed in full.
- A floating-point measurement is printed only through `certified` — digits that an a-priori bound on its
  floating-point error shows to be the exact value's own rounding, so that any platform whose arithmetic
  obeys the bound prints the same digits (digits the bound does not fix are marked `UNCERTIFIED`, which a
  test forbids on the committed pages) — or through `within`, as the a-priori bound it was tested against.
  Measurements of the document's low-precision code use correctly rounded operations
  (`properties.numerics.correct_rounding`), which makes them properties of the dtype.
- Raw measured floats go to `pe-verify show ID --json` (`Evidence.measured`), which is not committed.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import flint
import mpmath
import numpy as np
import sympy as sp

#: The rule as the dashboard's footer states it.
RULE = (
    "Numbers on these pages: exact values and values computed at a stated precision (mpmath digits, ball "
    "arithmetic) in full; a floating-point measurement only as digits certified by an a-priori bound on its "
    "error (the exact value's own rounding) or as the bound it was tested against; the document's "
    "low-precision code is measured with correctly rounded operations, so those figures are properties of "
    "the dtype — a platform's libm may differ by a few ulp. Raw measured floats: `pe-verify show ID --json`."
)


#: The mark of a float printed without certified digits: committed pages must never contain it.
UNCERTIFIED = "uncertified"


def _formatted(value: Decimal, spec: str) -> str:
    with localcontext() as context:
        context.prec = 80
        return format(value, spec)


def is_certified(value: float, bound: float, spec: str) -> bool:
    """Whether every number within `bound` of `value` gives the same text under `spec` (same sign too)."""
    if not (math.isfinite(value) and math.isfinite(bound) and bound >= 0):
        return False
    exact, radius = Decimal(value), Decimal(bound)
    low, high = exact - radius, exact + radius
    return _formatted(low, spec) == _formatted(high, spec) and low * high >= 0


def certified(value: float, bound: float, spec: str) -> str:
    """`value` formatted with `spec` ('.3e', '.2f', …), when |value − exact| ≤ `bound` fixes every digit.

    Then the text is the exact value's own rounding, whatever the platform computed. Otherwise (a broken
    input, or too many digits asked for) the value is printed marked `UNCERTIFIED` with its bound.
    """
    if is_certified(value, bound, spec):
        return format(value, spec)
    return f"{value:{spec}} ({UNCERTIFIED}: ± {bound:.1e})"


def within(value: float, bound: float, spec: str = ".1e") -> str:
    """A measurement stated only as the bound it was tested against ("≤ 5.8e-07"); a value beyond the bound
    is printed as such, to the digits the bound certifies."""
    if value <= bound:
        return f"≤ {bound:{spec}}"
    return f"{certified(value, bound, spec)}, above the bound {bound:{spec}}"


def certain_signs(differences: object, bound: float) -> bool:
    """Whether the signs of `differences`, each off its exact value by at most `bound`, are the same on every
    platform: none lies within 2·bound of zero. Counting a curve's rises or finding its largest value rests
    on these."""
    values = np.asarray(differences, dtype=np.float64).reshape(-1)
    return bool(math.isfinite(bound) and np.all(np.abs(values) > 2 * bound))


def certain_argmax(values: object, bound: float) -> bool:
    """Whether the largest of `values` (each within `bound` of its exact value) is the largest everywhere:
    no other comes within 2·bound of it."""
    array = np.sort(np.asarray(values, dtype=np.float64).reshape(-1))
    return array.size < 2 or certain_signs([array[-1] - array[-2]], bound)


def libm_scalar(value: float, spec: str) -> str:
    """A value computed in a few float64 steps with Python's `math` (each within an ulp of exact), to the
    digits that an error of 8 ulps leaves fixed."""
    return certified(value, 8 * 2.0**-52 * abs(value), spec)


def ball_digits(ball: flint.arb, digits: int = 8) -> str:
    """The midpoint of a ball (computed at a stated precision) with `digits` significant digits."""
    return ball.str(digits, radius=False)


def ball_enclosure(ball: flint.arb, digits: int) -> str:
    """The ball's value to `digits` significant digits when its whole interval rounds to them, else its ends
    at `digits` digits as [lower, upper]: text that does not depend on the ball's radius (which may follow
    the platform's float64 sums) except at a rounding boundary."""
    lower, upper = (end.str(digits, radius=False) for end in (ball.lower(), ball.upper()))
    return lower if lower == upper else f"[{lower}, {upper}]"


def ball_text(ball: flint.arb, spec: str) -> str:
    """A ball's value to the digits `spec` asks for, certified by its radius (and the conversion to float)."""
    middle = float(ball.mid())
    return certified(middle, float(ball.rad()) + abs(middle) * float(np.finfo(np.float64).eps), spec)


def exact_digits(value: object, digits: int = 6) -> str:
    """An exact SymPy number (or anything SymPy evaluates) to `digits` significant digits."""
    return mpmath.nstr(mpmath.mpf(sp.N(value, digits + 10)), digits)


def tex(expr: sp.Expr) -> str:
    """An exact SymPy number as inline LaTeX, $…$."""
    return f"${sp.latex(expr)}$"
