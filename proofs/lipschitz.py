"""The sinusoidal encoding is Lipschitz in the position: a shift by k moves coordinate j by at most |k|·ω_j.

Sum-to-product writes the change of a sin or cos coordinate as 2 sin(kω/2) times a sine or cosine, so it is at
most 2|sin(kω/2)| ≤ |k|ω (because |sin y| ≤ |y|); summing squares, ‖PE(p + k) − PE(p)‖ ≤ |k|·‖ω‖. Pairs with
ω near 1 can move by up to 2 sin(1/2) ≈ 0.96 in one step, pairs with tiny ω by at most ω.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import sympy as sp

from .derivation import Step, derivation, fact, identity, is_zero
from .sinusoidal import SYMBOLIC_OMEGAS, distance_step, exact_frequencies
from .trigonometry import euler_identity, vanishes_in_exponentials

P, K, T = sp.symbols("p k t", real=True)
Y = sp.Symbol("y", real=True)
Y_PLUS = sp.Symbol("y", nonnegative=True)
OMEGA = sp.Symbol("omega", positive=True)

HALF_STEP = K * OMEGA / 2
MIDPOINT = (P + K / 2) * OMEGA


def sine_change() -> sp.Expr:
    """sin((p + k)ω) − sin(pω): the change of a sin coordinate under a shift by k."""
    return sp.sin((P + K) * OMEGA) - sp.sin(P * OMEGA)


def cosine_change() -> sp.Expr:
    """cos((p + k)ω) − cos(pω): the change of a cos coordinate under a shift by k."""
    return sp.cos((P + K) * OMEGA) - sp.cos(P * OMEGA)


def sum_to_product_step(change: sp.Expr, product: sp.Expr, name: str) -> Step:
    """change = product, checked by writing both sides with complex exponentials."""
    return euler_identity(
        change,
        product,
        "sum-to-product: write both sides with complex exponentials",
        claim=rf"{name}((p + k)\omega) - {name}(p\omega) = {sp.latex(product)}",
    )


def gap_step(change: sp.Expr, leftover: sp.Expr) -> Step:
    """(2 sin(kω/2))² − change² = leftover, and leftover is a product of squares, hence ≥ 0."""
    bound = (2 * sp.sin(HALF_STEP)) ** 2
    return fact(
        rf"\big(2\sin\tfrac{{k\omega}}{{2}}\big)^2 - \Delta^2 = {sp.latex(leftover)} \ge 0",
        "the change is 2 sin(kω/2) times a sine or cosine; 1 − cos² = sin² (and 1 − sin² = cos²); "
        "SymPy checks the identity with exponentials and decides the sign of the product of squares",
        lambda: vanishes_in_exponentials(bound - change**2 - leftover) and leftover.is_nonnegative is True,
    )


def integral_step(integrand: sp.Expr, antiderivative: sp.Expr) -> Step:
    """∫_0^y integrand dt = antiderivative, with SymPy doing the integral."""
    integral = sp.Integral(integrand, (T, 0, Y_PLUS))
    return identity(
        integral.doit(),
        antiderivative,
        "SymPy integrates",
        claim=rf"{sp.latex(integral)} = {sp.latex(antiderivative)}",
    )


def square_step(integrand: sp.Expr, square: sp.Expr) -> Step:
    """integrand = square ≥ 0 for real t (a half-angle formula)."""
    return fact(
        rf"{sp.latex(integrand)} = {sp.latex(square)} \ge 0",
        "half-angle formula; a real square is nonnegative",
        lambda: vanishes_in_exponentials(integrand - square) and square.is_nonnegative is True,
    )


def sine_bound_steps() -> Iterator[Step]:
    """|sin y| ≤ |y|: y ∓ sin y are integrals over [0, y] of 1 ∓ cos t ≥ 0, and sin is odd."""
    for integrand, square, antiderivative in (
        (1 - sp.cos(T), 2 * sp.sin(T / 2) ** 2, Y_PLUS - sp.sin(Y_PLUS)),
        (1 + sp.cos(T), 2 * sp.cos(T / 2) ** 2, Y_PLUS + sp.sin(Y_PLUS)),
    ):
        yield square_step(integrand, square)
        yield integral_step(integrand, antiderivative)
    yield identity(
        sp.Abs(sp.sin(-Y)),
        sp.Abs(sp.sin(Y)),
        "sin is odd (SymPy), so |sin| is even: the bound for y ≥ 0 gives it for y < 0",
        claim=r"|\sin(-y)| = |\sin y|",
    )


@derivation(
    id="lipschitz.sine_bound",
    title="A sine is never larger than its argument: |sin y| ≤ |y|",
    statement=r"|\sin y| \le |y| \quad (y \in \mathbb{R})",
    hypotheses=(
        r"for $y \ge 0$: $y - \sin y = \int_0^y (1 - \cos t)\,dt$ and $y + \sin y = \int_0^y (1 + \cos "
        r"t)\,dt$ are integrals of nonnegative functions over $[0, y]$, so $-y \le \sin y \le y$",
        r"for $y < 0$ apply this to $-y$: $|\sin|$ is even",
    ),
)
def sine_bound() -> Iterator[Step]:
    yield from sine_bound_steps()


@derivation(
    id="lipschitz.coordinate_step",
    title="A shift by k moves each sinusoidal coordinate by at most 2|sin(kω/2)| ≤ |k|ω",
    statement=r"|PE(p + k, j) - PE(p, j)| \le 2\,\big|\sin\tfrac{k\omega_j}{2}\big| \le |k|\,\omega_j, "
    r"\qquad k = 1:\ |PE(p + 1, j) - PE(p, j)| \le 2\sin\tfrac{\omega_j}{2} \le \omega_j",
    hypotheses=(
        r"$PE(p, 2i) = \sin(p\omega_i)$, $PE(p, 2i+1) = \cos(p\omega_i)$, $\omega_i > 0$; $p, k$ real",
        r"the first bound is attained over real $p$ (at $p = -k/2$ for a sin coordinate); the second is "
        r"`lipschitz.sine_bound` at $y = k\omega/2$",
    ),
)
def coordinate_step() -> Iterator[Step]:
    sine_product = 2 * sp.sin(HALF_STEP) * sp.cos(MIDPOINT)
    cosine_product = -2 * sp.sin(HALF_STEP) * sp.sin(MIDPOINT)
    yield sum_to_product_step(sine_change(), sine_product, r"\sin")
    yield sum_to_product_step(cosine_change(), cosine_product, r"\cos")
    yield gap_step(sine_product, 4 * sp.sin(HALF_STEP) ** 2 * sp.sin(MIDPOINT) ** 2)
    yield gap_step(cosine_product, 4 * sp.sin(HALF_STEP) ** 2 * sp.cos(MIDPOINT) ** 2)
    yield identity(
        sine_change().subs(P, -K / 2),
        2 * sp.sin(HALF_STEP),
        "at p = −k/2 the cosine factor is cos 0 = 1: the bound is attained",
        claim=r"\sin(\tfrac{k}{2}\omega) - \sin(-\tfrac{k}{2}\omega) = 2\sin\tfrac{k\omega}{2}",
    )
    yield identity(
        2 * sp.Abs(HALF_STEP),
        sp.Abs(K) * OMEGA,
        "`lipschitz.sine_bound` at y = kω/2, and ω > 0",
        claim=r"2\,\big|\sin\tfrac{k\omega}{2}\big| \le 2\,\big|\tfrac{k\omega}{2}\big| = "
        r"|k|\,\omega",
    )


def distance_terms_step(omegas: Sequence[sp.Expr]) -> Step:
    """Σ_i 2(1 − cos(kω_i)) = Σ_i 4 sin²(kω_i/2)."""
    lhs = sp.Add(*[2 * (1 - sp.cos(K * w)) for w in omegas])
    rhs = sp.Add(*[4 * sp.sin(K * w / 2) ** 2 for w in omegas])
    return euler_identity(
        lhs,
        rhs,
        "half-angle formula in every pair",
        claim=r"\sum_i 2\big(1 - \cos k\omega_i\big) = \sum_i 4\sin^2\tfrac{k\omega_i}{2}",
    )


def squared_bound_step() -> Step:
    """sin² y ≤ y²: y² − sin² y = (|y| − |sin y|)(|y| + |sin y|), a product of two factors ≥ 0."""
    factored = (sp.Abs(Y) - sp.Abs(sp.sin(Y))) * (sp.Abs(Y) + sp.Abs(sp.sin(Y)))
    return fact(
        r"\sin^2 y \le y^2",
        "y² − sin² y = (|y| − |sin y|)(|y| + |sin y|), both factors ≥ 0 by `lipschitz.sine_bound`",
        lambda: is_zero(Y**2 - sp.sin(Y) ** 2 - factored),
    )


@derivation(
    id="lipschitz.distance_bound",
    title="Encodings of positions k apart are at most |k|·‖ω‖ apart",
    statement=r"\lVert PE(p + k) - PE(p)\rVert^2 = \sum_i 4\sin^2\tfrac{k\omega_i}{2} \le k^2 \sum_i "
    r"\omega_i^2, \qquad \lVert PE(p + k) - PE(p)\rVert \le |k|\,\lVert\omega\rVert",
    hypotheses=(
        r"$d$ even, pairs $(\sin p\omega_i, \cos p\omega_i)$, any $\omega_i > 0$; $p, k$ real",
        r"the distance formula is `sinusoidal.distance` with $p - q = k$; checked for three symbolic "
        r"frequencies and for $d = 6$ with $\omega_i = 10000^{-2i/6}$",
    ),
)
def distance_bound() -> Iterator[Step]:
    yield distance_step([OMEGA], justification="`sinusoidal.distance`, one pair; pairs add up")
    yield distance_terms_step(SYMBOLIC_OMEGAS)
    yield distance_terms_step(exact_frequencies(6))
    yield squared_bound_step()
    yield identity(
        4 * (K * OMEGA / 2) ** 2,
        K**2 * OMEGA**2,
        "each term is at most 4(kω_i/2)² = k²ω_i²",
        claim=r"4\,\big(\tfrac{k\omega_i}{2}\big)^2 = k^2\omega_i^2",
    )
