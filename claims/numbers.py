"""What a committed page may print of a number, so that every supported platform prints the same page.

- Exact values (integers, rationals, SymPy numbers) and values computed at a stated precision (mpmath digits,
  ball arithmetic) are printed in full.
- A floating-point measurement is printed only through `certified` — digits that an a-priori bound on its
  floating-point error shows to be the exact value's own rounding, so that any platform whose arithmetic
  obeys the bound prints the same digits (and one that does not fails loudly instead) — or through `within`,
  as the a-priori bound it was tested against. Measurements of the document's low-precision code use
  correctly rounded operations (`properties.correct_rounding`), which makes them properties of the dtype.
- Raw measured floats go to `pe-verify show ID --json` (`Evidence.measured`), which is not committed.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

#: The rule as the dashboard's footer states it.
RULE = (
    "Numbers on these pages: exact values and values computed at a stated precision (mpmath digits, ball "
    "arithmetic) in full; a floating-point measurement only as digits certified by an a-priori bound on its "
    "error (the exact value's own rounding) or as the bound it was tested against; the document's "
    "low-precision code is measured with correctly rounded operations, so those figures are properties of "
    "the dtype — a platform's libm may differ by a few ulp. Raw measured floats: `pe-verify show ID --json`."
)


class UncertifiedDigits(ValueError):
    """The digits asked for are not determined by the value and its error bound."""


def _formatted(value: Decimal, spec: str) -> str:
    with localcontext() as context:
        context.prec = 80
        return format(value, spec)


def certified(value: float, bound: float, spec: str) -> str:
    """`value` formatted with `spec` ('.3e', '.2f', …), when |value − exact| ≤ `bound` fixes every digit.

    Every number within `bound` of `value` must give the same text; then that text is the exact value's
    rounding, whatever the platform computed. Raises `UncertifiedDigits` otherwise.
    """
    if not (math.isfinite(value) and math.isfinite(bound) and bound >= 0):
        raise UncertifiedDigits(f"cannot certify {value!r} with error bound {bound!r}")
    exact, radius = Decimal(value), Decimal(bound)
    low, high = _formatted(exact - radius, spec), _formatted(exact + radius, spec)
    if low != high or (exact - radius) * (exact + radius) < 0:
        raise UncertifiedDigits(
            f"{value!r} ± {bound:.1e} does not fix the digits of {spec!r} ({low} to {high}); print fewer"
        )
    return format(value, spec)


def within(value: float, bound: float, spec: str = ".1e") -> str:
    """A measurement stated only as the bound it was tested against ("≤ 5.8e-07"); `value` must obey it."""
    if not value <= bound:
        raise ValueError(f"{value!r} exceeds the bound {bound!r} it is stated against")
    return f"≤ {bound:{spec}}"
