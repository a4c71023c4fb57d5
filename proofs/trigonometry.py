"""Trigonometry behind the encodings: angle addition, and exp/log frequencies as powers of the base."""

from __future__ import annotations

from collections.abc import Iterator

import sympy as sp

from ..properties.frequencies import frequency_exponent
from .derivation import Expr, Step, derivation, identity

A, B = sp.symbols("a b", real=True)
BASE = sp.Symbol("b", positive=True)
INDEX = sp.Symbol("i", nonnegative=True)
DIM = sp.Symbol("d", positive=True)


def vanishes_in_exponentials(expr: Expr) -> bool:
    """True when `expr` (a scalar, or every entry of a matrix) expands to exactly 0 once sin and cos are
    written as complex exponentials, sin x = (e^{ix} − e^{−ix})/(2i) and cos x = (e^{ix} + e^{−ix})/2."""
    if isinstance(expr, sp.MatrixBase):
        return all(vanishes_in_exponentials(entry) for entry in expr)
    return sp.expand(sp.sympify(expr).rewrite(sp.exp)) == 0


def euler_identity(lhs: Expr, rhs: Expr, justification: str, claim: str | None = None) -> Step:
    """A step asserting lhs = rhs, checked by writing both sides with complex exponentials and expanding."""
    text = claim or f"{sp.latex(lhs)} = {sp.latex(rhs)}"
    return Step(text, justification, lambda: vanishes_in_exponentials(lhs - rhs))


def code_frequency(i: int | sp.Expr, d: int | sp.Expr, base: int | sp.Expr) -> sp.Expr:
    """The frequency as the sinusoidal code computes it: exp(2i · (−ln base / d))."""
    i, d, base = sp.sympify((i, d, base))
    return sp.exp(2 * i * (-sp.log(base) / d))


def rope_code_frequency(i: int | sp.Expr, d: int | sp.Expr, base: int | sp.Expr) -> sp.Expr:
    """The frequency as the RoPE code computes it: 1 / base^(2i/d)."""
    i, d, base = sp.sympify((i, d, base))
    return 1 / base ** (2 * i / d)


@derivation(
    id="trigonometry.angle_addition",
    title="Angle addition from Euler's formula",
    statement=r"\sin(a+b) = \sin a\cos b + \cos a\sin b,\qquad \cos(a+b) = \cos a\cos b - \sin a\sin b",
    hypotheses=(r"$a, b$ real",),
)
def angle_addition() -> Iterator[Step]:
    euler_a = sp.cos(A) + sp.I * sp.sin(A)
    euler_b = sp.cos(B) + sp.I * sp.sin(B)
    cos_sum = sp.cos(A) * sp.cos(B) - sp.sin(A) * sp.sin(B)
    sin_sum = sp.sin(A) * sp.cos(B) + sp.cos(A) * sp.sin(B)
    yield identity(sp.exp(sp.I * (A + B)), sp.exp(sp.I * A) * sp.exp(sp.I * B), "law of exponents")
    yield identity(sp.exp(sp.I * A), euler_a, "Euler's formula", claim=r"e^{ia} = \cos a + i\sin a")
    yield identity(
        euler_a * euler_b,
        cos_sum + sp.I * sin_sum,
        "multiply out, using i² = −1",
        claim=r"(\cos a + i\sin a)(\cos b + i\sin b) = "
        r"(\cos a\cos b - \sin a\sin b) + i\,(\sin a\cos b + \cos a\sin b)",
    )
    yield identity(
        sp.re(sp.exp(sp.I * (A + B))),
        sp.cos(A + B),
        r"Euler's formula at $a+b$; the real part, since $a+b$ is real",
        claim=r"\operatorname{Re} e^{i(a+b)} = \cos(a+b)",
    )
    yield identity(
        sp.im(sp.exp(sp.I * (A + B))),
        sp.sin(A + B),
        r"Euler's formula at $a+b$; the imaginary part, since $a+b$ is real",
        claim=r"\operatorname{Im} e^{i(a+b)} = \sin(a+b)",
    )
    yield euler_identity(
        sp.cos(A + B),
        cos_sum,
        "real parts of steps 1–4 (every cosine and sine of a real angle is real); "
        "checked by writing both sides with complex exponentials",
    )
    yield euler_identity(
        sp.sin(A + B),
        sin_sum,
        "imaginary parts of steps 1–3 and 5; checked by writing both sides with complex exponentials",
    )


@derivation(
    id="trigonometry.exp_log_frequency",
    title="The exp/log frequency is a power of the base",
    statement=(
        r"e^{2i\,(-\ln b/d)} = b^{-2i/d} = \frac{1}{b^{2i/d}},"
        r"\qquad e^{2i\,(-\ln 10000/d)} = 10000^{-2i/d} = 10^{-8i/d}"
    ),
    hypotheses=(
        r"$b > 0$ (the base), $d > 0$ (the dimension), $i \ge 0$ (the frequency index), all symbolic",
        r"the sinusoidal code computes `exp(arange(0, d, 2) * (-ln(10000)/d))`, whose entry $i$ is "
        r"$e^{2i\,(-\ln 10000/d)}$",
        r"the RoPE code computes `1/(base ** (arange(0, d, 2)/d))`, whose entry $i$ is $1/b^{2i/d}$",
    ),
)
def exp_log_frequency() -> Iterator[Step]:
    exponent = frequency_exponent(INDEX, DIM)
    yield identity(
        2 * INDEX * (-sp.log(BASE) / DIM),
        exponent * sp.log(BASE),
        "rearrange the product",
        claim=r"2i\left(-\frac{\ln b}{d}\right) = -\frac{2i}{d}\,\ln b",
    )
    yield identity(
        code_frequency(INDEX, DIM, BASE),
        BASE**exponent,
        r"$b > 0$, so $b = e^{\ln b}$ and $e^{x\ln b} = b^{x}$ for real $x$",
        claim=r"e^{2i\,(-\ln b/d)} = b^{-2i/d}",
    )
    yield identity(
        rope_code_frequency(INDEX, DIM, BASE),
        BASE**exponent,
        r"$1/b^{x} = b^{-x}$ for $b > 0$",
        claim=r"\frac{1}{b^{2i/d}} = b^{-2i/d}",
    )
    yield identity(
        sp.Integer(10000) ** exponent,
        sp.Integer(10) ** (4 * exponent),
        r"$10000 = 10^4$ and $(10^4)^x = 10^{4x}$ for real $x$",
        claim=r"10000^{-2i/d} = 10^{-8i/d}",
    )
    yield identity(
        code_frequency(INDEX, DIM, 10000),
        sp.Integer(10) ** (4 * exponent),
        "steps 2 and 4 with b = 10000",
        claim=r"e^{2i\,(-\ln 10000/d)} = 10^{-8i/d}",
    )
    powers = sp.Matrix([sp.Rational(1, 10**i) for i in range(4)])
    yield identity(
        sp.Matrix([code_frequency(i, 8, 10000) for i in range(4)]),
        powers,
        r"step 5 at $d = 8$: the frequencies are $10^{-i}$",
        claim=r"d = 8:\ \big(e^{2i\,(-\ln 10000/8)}\big)_{i=0}^{3} = "
        r"(1, 10^{-1}, 10^{-2}, 10^{-3})",
    )
    yield identity(
        sp.Matrix([rope_code_frequency(i, 8, 10000) for i in range(4)]),
        powers,
        r"step 3 at $b = 10000$, $d = 8$: the RoPE code gives the same numbers",
        claim=r"d = 8:\ \big(1/10000^{2i/8}\big)_{i=0}^{3} = (1, 10^{-1}, 10^{-2}, 10^{-3})",
    )
