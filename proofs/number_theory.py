"""When is a power of a rational base rational? The exact arithmetic behind the uniqueness arguments.

For rational b > 0, b ≠ 1, write b = r^E with E maximal (E is the gcd of the exponents of b's prime
factorisation, so r is not a perfect power). Then b^s (s rational) is rational ⇔ s·E ∈ ℤ; in general b^s is
algebraic of degree denominator(s·E). With ω_i = b^(−2i/d) the frequency ratio ω_i/ω_j = b^(2(j−i)/d) is
rational ⇔ d | 2(j − i)E. Everything here is integer arithmetic and SymPy; no floating point.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import reduce

import sympy as sp

from pe_verify.properties.encodings.frequencies import frequency_count, frequency_expr, ratio_exponent
from pe_verify.properties.numerics.validation import require_positive_int

X = sp.Symbol("x")


def exact_rational(value: object, name: str) -> sp.Rational:
    """`value` as a SymPy Rational when it is exact: an int, a fractions.Fraction, a SymPy Rational, or an
    integral float (a non-integral float such as 1.1 is not the rational it looks like, so it is refused)."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an exact rational number, got {value!r}")
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return sp.Integer(int(value))
        raise ValueError(
            f"{name} must be an exact rational (int, fractions.Fraction or sympy.Rational); "
            f"the float {value!r} is not exact"
        )
    if isinstance(value, sp.Rational):
        return value
    if isinstance(value, numbers.Rational):
        return sp.Rational(int(value.numerator), int(value.denominator))
    raise ValueError(
        f"{name} must be an exact rational (int, fractions.Fraction or sympy.Rational), got {value!r}"
    )


def require_rational_base(base: object) -> sp.Rational:
    """`base` as a SymPy Rational when it is an exact rational greater than 1 (the frequencies need b > 1)."""
    b = exact_rational(base, "base")
    if b <= 1:
        raise ValueError(f"base must be a rational number greater than 1, got {b}")
    return b


def _require_positive_non_unit(b: object) -> sp.Rational:
    value = exact_rational(b, "b")
    if value <= 0 or value == 1:
        raise ValueError(f"b must be a positive rational different from 1, got {value}")
    return value


def prime_exponents(b: object) -> dict[int, int]:
    """The exponents e_p of b = Π p^(e_p), negative for primes of the denominator (rational b > 0, b ≠ 1)."""
    value = _require_positive_non_unit(b)
    exponents = {p: e for p, e in sp.factorint(value.p).items()}
    exponents.update({p: -e for p, e in sp.factorint(value.q).items()})
    return exponents


def perfect_power(b: object) -> tuple[sp.Rational, int]:
    """(r, E) with b = r^E and E maximal: E = gcd of b's prime exponents, so r is not a perfect power."""
    exponents = prime_exponents(b)
    power = reduce(math.gcd, (abs(e) for e in exponents.values()))
    root = sp.Mul(*[sp.Rational(p) ** (e // power) for p, e in exponents.items()])
    return sp.Rational(root), power


def power_exponent(b: object) -> int:
    """The maximal E with b = r^E, r rational (E = 1 when b is not a perfect power, e.g. 500000 = 2^5·5^6)."""
    return perfect_power(b)[1]


def rational_power(b: object, exponent: object) -> sp.Rational | None:
    """b^s exactly when it is rational, else None: for b = r^E (E maximal), b^s ∈ ℚ ⇔ s·E ∈ ℤ, and then
    b^s = r^(s·E). (If r^(u/v) ∈ ℚ with gcd(u, v) = 1, v divides every exponent of r, whose gcd is 1.)"""
    s = exact_rational(exponent, "exponent")
    if exact_rational(b, "b") == 1:
        return sp.Integer(1)
    root, power = perfect_power(b)
    scaled = s * power
    return root**scaled if scaled.is_integer else None


def algebraic_degree(b: object, exponent: object) -> int:
    """The degree of b^s over ℚ: the denominator q of s·E = u/q (x^q − r^u is irreducible by Capelli's
    theorem, as r^u > 0 is no ℓ-th power for a prime ℓ | q). Degree 1 ⇔ b^s rational."""
    s = exact_rational(exponent, "exponent")
    return int((s * perfect_power(b)[1]).q)


def minimal_polynomial_degree(b: object, exponent: object) -> int:
    """The degree of SymPy's minimal polynomial of b^s: an independent check of `algebraic_degree`."""
    value = exact_rational(b, "b") ** exact_rational(exponent, "exponent")
    return int(sp.degree(sp.minimal_polynomial(value, X), X))


def _require_index(i: object, count: int, name: str) -> int:
    if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= i < count:
        raise ValueError(f"{name} must be an integer in [0, {count}), got {i!r}")
    return int(i)


def frequency(d: object, base: object, i: object) -> sp.Expr:
    """ω_i = b^(−2i/d) as an exact SymPy number (algebraic, since b and −2i/d are rational)."""
    i = _require_index(i, frequency_count(d), "frequency index i")
    return frequency_expr(i, d, require_rational_base(base))


def frequency_ratio(d: object, base: object, i: object, j: object) -> sp.Rational | None:
    """ω_i/ω_j = b^(2(j−i)/d) exactly when it is rational (⇔ d | 2(j − i)E), else None."""
    count = frequency_count(d)
    i, j = _require_index(i, count, "frequency index i"), _require_index(j, count, "frequency index j")
    return rational_power(require_rational_base(base), sp.Rational(ratio_exponent(i, j, d)))


def ratio_step(d: object, base: object) -> int:
    """The smallest m ≥ 1 with b^(2m/d) rational: m = d / gcd(d, 2E). So ω_i/ω_j ∈ ℚ ⇔ m | (j − i)."""
    d = require_positive_int(d, "d")
    return d // math.gcd(d, 2 * power_exponent(require_rational_base(base)))


def rational_ratio_pairs(d: object, base: object) -> tuple[tuple[int, int, sp.Rational], ...]:
    """Every (i, j, ω_i/ω_j) with i < j whose ratio is rational: j − i is a multiple of `ratio_step`."""
    count, step = frequency_count(d), ratio_step(d, base)
    b = require_rational_base(base)
    return tuple(
        (i, j, rational_power(b, sp.Rational(ratio_exponent(i, j, d))))
        for i in range(count)
        for j in range(i + step, count, step)
    )


def period(d: object, base: object, dim: object) -> sp.Expr:
    """T = 2π/ω_i, the period of dimension `dim` (frequency index i = dim // 2, so dims 2i and 2i + 1 share
    it), exactly."""
    d = require_positive_int(d, "d")
    dim = _require_index(dim, d, "dimension dim")
    return 2 * sp.pi / frequency(d, base, dim // 2)


def period_ratio(d: object, base: object, dim1: object, dim2: object) -> sp.Expr:
    """T_dim2 / T_dim1 = ω_a/ω_b = b^(2(b' − a)/d) exactly (a = dim1 // 2, b' = dim2 // 2), simplified."""
    return sp.simplify(period(d, base, dim2) / period(d, base, dim1))


def follows_period_formula(periods: Mapping[int, sp.Expr], d: object, base: object) -> bool:
    """Whether each given T_dim is exactly 2π·b^(2⌊dim/2⌋/d): SymPy reduces every difference to 0."""
    d, b = require_positive_int(d, "d"), require_rational_base(base)
    return all(
        sp.simplify(value - 2 * sp.pi * b ** sp.Rational(2 * (dim // 2), d)) == 0
        for dim, value in periods.items()
    )


def pi_multiple(omega: object) -> sp.Rational | None:
    """t with ω = t·π when ω/π is rational; None when ω/π is proved irrational (ω algebraic and nonzero, so
    ω/π transcendental by Lindemann, or SymPy decides ω/π ∉ ℚ). ValueError when neither can be decided."""
    value = _require_exact_nonzero_real(omega)
    ratio = value / sp.pi
    if ratio.is_Rational:
        return ratio
    if value.is_algebraic:
        return None
    ratio = sp.simplify(ratio)
    if ratio.is_Rational:
        return ratio
    if ratio.is_rational is False:
        return None
    raise ValueError(
        f"cannot decide whether {value} is a rational multiple of π; give the frequency as a "
        "rational multiple of π or as an algebraic number such as b**Rational(-2*i, d)"
    )


def _require_exact_nonzero_real(omega: object) -> sp.Expr:
    if isinstance(omega, (bool, float)) or not isinstance(omega, (numbers.Rational, sp.Expr)):
        raise ValueError(
            f"the frequency must be an exact SymPy number (e.g. pi/3 or 10**Rational(-4, 3)), got {omega!r}"
        )
    value = sp.sympify(omega)
    if value.free_symbols or value.is_real is not True or value.is_zero is not False:
        raise ValueError(f"the frequency must be a nonzero real number without symbols, got {value}")
    return value


@dataclass(frozen=True)
class NumberFact:
    """A fact the arguments rely on, with its source; `check` runs the part SymPy decides."""

    name: str
    statement: str
    source: str
    check: Callable[[], bool]


_RATIONAL, _ALGEBRAIC = sp.Symbol("q", rational=True, nonzero=True), sp.Symbol("a", algebraic=True)
_OTHER_ALGEBRAIC = sp.Symbol("c", algebraic=True)
_POSITIVE_RATIONAL, _EXPONENT = sp.Symbol("b", rational=True, positive=True), sp.Symbol("s", rational=True)
_INTEGER = sp.Symbol("n", integer=True)
_DEGREE_SAMPLES = (
    (10000, sp.Rational(1, 3)),
    (10000, sp.Rational(1, 4)),
    (10000, sp.Rational(1, 64)),
    (500000, sp.Rational(1, 6)),
    (sp.Rational(9, 4), sp.Rational(1, 2)),
    (sp.Rational(9, 4), sp.Rational(1, 3)),
    (8, sp.Rational(2, 9)),
    (64, sp.Rational(5, 12)),
)


def _degrees_agree() -> bool:
    return all(algebraic_degree(b, s) == minimal_polynomial_degree(b, s) for b, s in _DEGREE_SAMPLES)


FACTS = (
    NumberFact("pi_irrational", "π is irrational", "Lambert 1761", lambda: sp.pi.is_rational is False),
    NumberFact(
        "pi_transcendental",
        "π is transcendental: no nonzero polynomial with rational coefficients vanishes at π",
        "Lindemann 1882",
        lambda: sp.pi.is_transcendental is True and sp.pi.is_algebraic is False,
    ),
    NumberFact(
        "rational_power_algebraic",
        "b^s is algebraic for rational b > 0 and rational s = u/q: it is a root of x^q − b^u",
        "definition of algebraic numbers",
        lambda: (_POSITIVE_RATIONAL**_EXPONENT).is_algebraic is True,
    ),
    NumberFact(
        "algebraic_field",
        "sums, products and integer multiples of algebraic numbers are algebraic",
        "the algebraic numbers form a field",
        lambda: all(
            expr.is_algebraic is True
            for expr in (_ALGEBRAIC + _OTHER_ALGEBRAIC, _ALGEBRAIC * _OTHER_ALGEBRAIC, _INTEGER * _ALGEBRAIC)
        ),
    ),
    NumberFact(
        "algebraic_not_pi_multiple",
        "an algebraic number a is never a nonzero rational multiple of π "
        "(a = qπ would make π = a/q algebraic)",
        "Lindemann 1882 and the field property",
        lambda: (_ALGEBRAIC / _RATIONAL).is_algebraic is True and sp.pi.is_algebraic is False,
    ),
    NumberFact(
        "rational_power_degree",
        "for b = r^E (E maximal), b^s has degree denominator(s·E) over ℚ; "
        "so b^s ∈ ℚ ⇔ s·E ∈ ℤ (checked against SymPy's minimal polynomials on samples)",
        "unique factorisation; Capelli's theorem on x^q − a",
        _degrees_agree,
    ),
)
