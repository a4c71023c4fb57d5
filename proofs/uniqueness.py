"""Do different positions get different sinusoidal values? Document 003's three proofs, decided exactly.

PE(p, 2i) = sin(p·ω_i), PE(p, 2i+1) = cos(p·ω_i), ω_i = b^(−2i/d) with b rational > 1, positions integers.
- Vectors (D3.2): one differing coordinate makes ‖u − v‖² positive, whatever the others do.
- Whole vectors (D3.3): PE(p) ≠ PE(q) for p ≠ q and every d ≥ 1 (ω_0 = 1 and π is irrational). The
  document's ratio argument needs two frequencies with an irrational ratio; it fails exactly for d | 2E
  (b = r^E, E maximal) and, as written, also for d = 3.
- One dimension (D3.4): a sin dimension never repeats a value; a cos dimension repeats exactly at q = −p.
- Two dimensions (D3.5): sin and cos values never coincide; two sin (or two cos) dimensions coincide exactly
  when p·ω_a = q·ω_b (or ±), i.e. when ω_b/ω_a is rational.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, count, product
from typing import NamedTuple

import sympy as sp

from pe_verify.properties.encodings.frequencies import frequency_exponent, frequency_expr, ratio_exponent
from pe_verify.properties.encodings.sinusoidal import pair_index
from pe_verify.properties.numerics.validation import require_positive_int

from .derivation import Step, derivation, fact, identity, implementation_link
from .number_theory import (
    X,
    algebraic_degree,
    frequency,
    frequency_count,
    frequency_ratio,
    minimal_polynomial_degree,
    perfect_power,
    pi_multiple,
    power_exponent,
    prime_exponents,
    ratio_step,
    rational_power,
    rational_ratio_pairs,
    require_rational_base,
)
from .trigonometry import euler_identity

U = sp.Symbol("u", real=True)
XA, YB = sp.symbols("x y", real=True)
P, Q = sp.symbols("p q", integer=True)
K = sp.Symbol("k", integer=True, nonzero=True)
N = sp.Symbol("n", integer=True)
N_NONZERO = sp.Symbol("n", integer=True, nonzero=True)
BASE = sp.Symbol("b", rational=True, positive=True)
DIM = sp.Symbol("d", integer=True, positive=True)
I_INDEX, J_INDEX = sp.symbols("i j", integer=True, nonnegative=True)
OMEGA_I, OMEGA_J = frequency_expr(I_INDEX, DIM, BASE), frequency_expr(J_INDEX, DIM, BASE)

KINDS = ("sin", "cos")
_NUMBER_CLASSES: dict[str, Callable[[sp.Expr], bool | None]] = {
    "rational": lambda expr: expr.is_rational,
    "algebraic": lambda expr: expr.is_algebraic,
}


# ----------------------------------------------------------------------------------------------------------
# Step builders
# ----------------------------------------------------------------------------------------------------------


def zero_lattice(expr: sp.Expr, var: sp.Symbol = U) -> tuple[sp.Expr, sp.Expr]:
    """(s, c) with {u ∈ ℝ : expr = 0} = c + sℤ, 0 ≤ c < s, from SymPy's period T of expr and its zeros
    in [0, T) (they must be evenly spaced)."""
    period = sp.periodicity(expr, var)
    zeros = sorted(sp.solveset(expr, var, sp.Interval.Ropen(0, period)))
    gaps = {right - left for left, right in zip(zeros, [*zeros[1:], zeros[0] + period], strict=True)}
    if len(gaps) != 1:
        raise ValueError(f"the zeros of {expr} are not evenly spaced: {zeros}")
    return gaps.pop(), zeros[0]


def zero_set_step(expr: sp.Expr, spacing: sp.Expr, offset: sp.Expr, justification: str) -> Step:
    """{u : expr = 0} = offset + spacing·ℤ, checked from SymPy's period of expr and its zeros on a period."""
    shift = "" if offset == 0 else f"{sp.latex(offset)} + "
    claim = rf"{sp.latex(expr)} = 0 \iff u \in {shift}{sp.latex(spacing)}\,\mathbb{{Z}}"
    return fact(claim, justification, lambda: zero_lattice(expr) == (spacing, offset))


def not_pi_multiple(value: sp.Expr, multiplier: sp.Expr, number_class: str, claim: str) -> Step:
    """value = π·multiplier is impossible: multiplier ≠ 0, and π = value/multiplier would lie in
    `number_class` ('rational' or 'algebraic'), which SymPy knows π does not."""
    in_class = _NUMBER_CLASSES[number_class]

    def check() -> bool:
        return bool(
            multiplier.is_zero is False and in_class(value / multiplier) is True and in_class(sp.pi) is False
        )

    quotient = rf"$\pi = \frac{{{sp.latex(value)}}}{{{sp.latex(multiplier)}}}$"
    return fact(claim, f"{quotient} would be {number_class}; π is not (Lambert 1761 / Lindemann 1882)", check)


def nonzero_step(expr: sp.Expr, claim: str, justification: str) -> Step:
    """expr ≠ 0, decided by SymPy from the assumptions on its symbols."""
    return fact(claim, justification, lambda: expr.is_zero is False)


def algebraic_step(exprs: Sequence[sp.Expr], claim: str) -> Step:
    """Every expression is algebraic, as SymPy decides from its parts (integers, rational powers)."""
    return fact(
        claim,
        "integer combinations of rational powers of a rational number are algebraic",
        lambda: all(sp.sympify(expr).is_algebraic is True for expr in exprs),
    )


def _sin_half_zeros() -> Step:
    return zero_set_step(sp.sin(U / 2), 2 * sp.pi, sp.Integer(0), "SymPy: period 4π, zeros 0, 2π in [0, 4π)")


def _cos_half_zeros() -> Step:
    return zero_set_step(sp.cos(U / 2), 2 * sp.pi, sp.pi, "SymPy: period 4π, zeros π, 3π in [0, 4π)")


def _sum_to_product_sin(x: sp.Expr, y: sp.Expr) -> Step:
    return euler_identity(
        sp.sin(x) - sp.sin(y),
        2 * sp.cos((x + y) / 2) * sp.sin((x - y) / 2),
        "sum-to-product (checked with complex exponentials)",
    )


def _sum_to_product_cos(x: sp.Expr, y: sp.Expr) -> Step:
    return euler_identity(
        sp.cos(x) - sp.cos(y),
        -2 * sp.sin((x + y) / 2) * sp.sin((x - y) / 2),
        "sum-to-product (checked with complex exponentials)",
    )


# ----------------------------------------------------------------------------------------------------------
# D3.2: one differing coordinate
# ----------------------------------------------------------------------------------------------------------

FIRST_GAP = sp.Symbol("delta_0", real=True, nonzero=True)
OTHER_GAPS = sp.Symbol("S", nonnegative=True)


@derivation(
    id="uniqueness.one_coordinate",
    title="One differing coordinate makes two vectors differ, whatever the other coordinates do",
    statement=r"u_0 \neq v_0 \implies \lVert u - v \rVert^2 = \delta_0^2 + S > 0 \implies u \neq v",
    hypotheses=(
        r"$u, v$ real vectors; $\delta_0 = u_0 - v_0 \neq 0$; $S = \sum_{j \ge 1} (u_j - v_j)^2$ over any "
        r"number of other coordinates with any values",
    ),
)
def one_coordinate() -> Iterator[Step]:
    u_j, v_j = sp.symbols("u_j v_j", real=True)
    yield fact(
        r"(u_j - v_j)^2 \ge 0 \ \Rightarrow\ S \ge 0",
        "SymPy: the square of a real number is non-negative, so is a sum of such squares",
        lambda: ((u_j - v_j) ** 2).is_nonnegative is True,
    )
    yield fact(
        r"\delta_0^2 + S > 0",
        r"SymPy decides the sign: a nonzero real $\delta_0$ squared is positive, and $S \ge 0$",
        lambda: (FIRST_GAP**2 + OTHER_GAPS).is_positive is True,
    )
    yield identity(
        (FIRST_GAP**2 + OTHER_GAPS).subs({FIRST_GAP: 0, OTHER_GAPS: 0}),
        0,
        "with every difference 0 (equal vectors) the squared distance is 0: it vanishes exactly when all "
        "coordinates agree",
        claim=r"\delta_0 = 0,\ S = 0 \implies \lVert u - v \rVert^2 = 0",
    )


# ----------------------------------------------------------------------------------------------------------
# D3.3: whole vectors
# ----------------------------------------------------------------------------------------------------------


@derivation(
    id="uniqueness.distinct_positions",
    title="Different integer positions have different sinusoidal encodings, for every d ≥ 1",
    statement=r"p, q \in \mathbb{Z},\ p \neq q \implies PE(p) \neq PE(q)\qquad(\text{every } d \ge 1,"
    r"\ \text{every base } b > 1)",
    hypotheses=(
        r"$PE(p)_{2i} = \sin(p\,\omega_i)$, $PE(p)_{2i+1} = \cos(p\,\omega_i)$, $\omega_i = b^{-2i/d}$; "
        r"dimension 0 is $\sin p$ and, for $d \ge 2$, dimension 1 is $\cos p$",
        r"$k = p - q$ a nonzero integer",
    ),
)
def distinct_positions() -> Iterator[Step]:
    yield identity(
        OMEGA_I.subs(I_INDEX, 0), 1, "the exponent −2·0/d is 0", claim=r"\omega_0 = b^{-2\cdot 0/d} = 1"
    )
    squared_gap = (sp.sin(P) - sp.sin(Q)) ** 2 + (sp.cos(P) - sp.cos(Q)) ** 2
    yield euler_identity(
        squared_gap,
        4 * sp.sin((P - Q) / 2) ** 2,
        r"$d \ge 2$: dimensions 0 and 1 agree at $p$ and $q$ only if this vanishes",
        claim=r"(\sin p - \sin q)^2 + (\cos p - \cos q)^2 = 4\sin^2\tfrac{p - q}{2}",
    )
    yield _sin_half_zeros()
    yield fact(
        r"k \in 2\pi\mathbb{Z},\ k \in \mathbb{Z}\setminus\{0\}\ \text{is impossible}",
        r"$k = 2\pi\cdot 0$ contradicts $k \neq 0$; $k = 2\pi n$, $n \neq 0$ would make "
        r"$\pi = k/(2n)$ rational (Lambert 1761) — so $d \ge 2$ is done",
        lambda: (
            K.is_zero is False and (K / (2 * N_NONZERO)).is_rational is True and sp.pi.is_rational is False
        ),
    )
    yield _sum_to_product_sin(P, Q)
    yield _cos_half_zeros()
    yield not_pi_multiple(
        P + Q,
        2 * N + 1,
        "rational",
        r"d = 1:\ \sin p = \sin q \text{ needs } p - q \in 2\pi\mathbb{Z} "
        r"\text{ (excluded above) or } p + q = \pi(2n + 1)"
        r"\text{ (excluded: } 2n + 1 \neq 0)",
    )


def _ratio_rule_holds(bases: Sequence[int | sp.Rational], dims: Sequence[int]) -> bool:
    """b^(2m/d) ∈ ℚ ⇔ d | 2mE, compared with SymPy's minimal polynomial (degree 1) for each sample."""
    for b, d in product(bases, dims):
        for m in range(1, frequency_count(d)):
            rule = (2 * m * power_exponent(b)) % d == 0
            if rule != (rational_power(b, sp.Rational(2 * m, d)) is not None):
                return False
            if rule != (minimal_polynomial_degree(b, sp.Rational(2 * m, d)) == 1):
                return False
    return True


_RULE_SAMPLES = ((10000, 500000, 64, sp.Rational(9, 4)), (3, 4, 6, 8, 9, 12))


def ratio_rule_step() -> Step:
    """ω_i/ω_j = b^(2(j−i)/d) is rational ⇔ d | 2(j − i)E, compared on samples with SymPy's minimal
    polynomials."""
    bases, dims = _RULE_SAMPLES
    return fact(
        r"b = r^E\ (E \text{ maximal}):\quad b^{2m/d} \in \mathbb{Q} \iff d \mid 2mE",
        "unique factorisation (`number_theory.rational_power`); compared with SymPy's minimal "
        f"polynomial for b ∈ {{{', '.join(map(str, bases))}}}, d ∈ {set(dims)}, 0 < m < ⌈d/2⌉",
        lambda: _ratio_rule_holds(bases, dims),
        f"b ∈ {{{', '.join(map(str, bases))}}}, d ∈ {set(dims)}",
    )


@derivation(
    id="uniqueness.ratio_argument",
    title="The document's ratio argument needs an irrational frequency ratio, which d | 2E does not give",
    statement=r"PE(p) = PE(q),\ p \neq q \implies \frac{\omega_i}{\omega_j} = \frac{n_i}{n_j} \in \mathbb{Q};"
    r"\quad \text{contradiction only if some } \frac{\omega_i}{\omega_j} = b^{2(j-i)/d} "
    r"\notin \mathbb{Q} \iff d \nmid 2E\ (b = r^E,\ E \text{ maximal})",
    hypotheses=(
        r"$\omega_i = b^{-2i/d}$ with $b$ rational $> 1$; frequencies $i < \lfloor d/2 \rfloor$ have a sin "
        r"and a cos dimension, so equal encodings give $k\,\omega_i = 2\pi n_i$ there ($k = p - q \neq 0$)",
        r"for odd $d$ the last frequency has only a sin dimension, which gives $k\omega \in 2\pi\mathbb{Z}$ "
        r"or $(p + q)\,\omega \in \pi(2\mathbb{Z} + 1)$ instead",
    ),
    instances="the rule b^(2m/d) ∈ ℚ ⇔ d | 2mE at b = 10000, 500000, 64, 9/4; d = 3, 4, 6, 8, 9, 12",
)
def ratio_argument() -> Iterator[Step]:
    n_i, n_j = sp.symbols("n_i n_j", integer=True, nonzero=True)
    yield identity(
        (2 * sp.pi * n_i / K) / (2 * sp.pi * n_j / K),
        n_i / n_j,
        r"divide $k\omega_i = 2\pi n_i$ by $k\omega_j = 2\pi n_j$",
        claim=r"\frac{\omega_i}{\omega_j} = \frac{2\pi n_i/k}{2\pi n_j/k} = \frac{n_i}{n_j}",
    )
    yield identity(OMEGA_I / OMEGA_J, BASE ** (2 * (J_INDEX - I_INDEX) / DIM), "law of exponents")
    yield ratio_rule_step()
    eight = [frequency(8, 10000, i) for i in range(4)]
    yield identity(
        sp.Matrix(eight),
        sp.Matrix([sp.Integer(10) ** -i for i in range(4)]),
        r"$10000 = 10^4$: every ratio is a power of 10, so the argument finds no contradiction",
        claim=r"d = 8,\ b = 10000:\ (\omega_0, \dots, \omega_3) = (1, 10^{-1}, 10^{-2}, 10^{-3})",
    )
    for d, exponent in ((6, sp.Rational(4, 3)), (512, sp.Rational(1, 64))):
        degree = exponent.q
        claim = rf"d = {d},\ b = 10000:\ \omega_0/\omega_1 = 10^{{{sp.latex(exponent)}}} \notin \mathbb{{Q}}"
        yield fact(
            claim,
            f"its minimal polynomial x^{degree} − 10^{exponent.p} has degree {degree} > 1",
            lambda d=d, degree=degree: (
                minimal_polynomial_degree(10000, sp.Rational(2, d))
                == degree
                == algebraic_degree(10000, sp.Rational(2, d))
            ),
        )
    yield fact(
        r"d = 3:\ \text{only } \omega_0 \text{ has both a sin and a cos dimension}",
        "the encoder's layout (`pair_index`): the only cos dimension of d = 3 is dimension 1, on "
        "frequency 0; as written the argument has no pair to compare",
        lambda: {int(i) for i in pair_index(3)[1::2]} == {0} and len(set(pair_index(3))) == 2,
    )


@dataclass(frozen=True)
class ArgumentVerdict:
    """Whether the document's ratio argument reaches its contradiction for (d, base), and why (not)."""

    d: int
    base: sp.Rational
    holds: bool
    reason: str
    pair: tuple[int, int] | None = None


def document_argument_holds(d: int, base: object, sin_only_case_split: bool = False) -> ArgumentVerdict:
    """D3.3's argument works ⇔ two usable frequencies have an irrational ratio ω_i/ω_j = b^(2(j−i)/d).

    As written it uses the frequencies with a sin and a cos dimension (⌊d/2⌋ of them); with
    `sin_only_case_split` the sin-only frequency of an odd d is used too (either case of sin x = sin y
    puts c·ω in π·ℚ with c ≠ 0, so its ratio to ω_0 would again be rational).
    """
    d = require_positive_int(d, "d")
    b = require_rational_base(base)
    usable = frequency_count(d) if sin_only_case_split else d // 2
    if usable < 2:
        noun = "frequency" if usable == 1 else "frequencies"
        what = noun if sin_only_case_split else f"{noun} with both a sin and a cos dimension"
        return ArgumentVerdict(d, b, False, f"d = {d} has {usable} {what}: no pair to compare")
    for i, j in combinations(range(usable), 2):
        exponent = sp.Rational(ratio_exponent(i, j, d))
        if rational_power(b, exponent) is None:
            root, power = perfect_power(b)
            reduced = f" = {root}^({exponent * power})" if power > 1 else ""
            ratio = f"ω_{i}/ω_{j} = {b}^({exponent}){reduced}"
            degree = algebraic_degree(b, exponent)
            return ArgumentVerdict(d, b, True, f"{ratio} is irrational (degree {degree})", (i, j))
    adjacent = rational_power(b, sp.Rational(2, d))
    return ArgumentVerdict(
        d, b, False, f"every ratio is a power of ω_i/ω_(i+1) = {b}^(2/{d}) = {adjacent}, which is rational"
    )


def argument_failures(base: object, d_max: int, sin_only_case_split: bool = False) -> tuple[int, ...]:
    """Every d ≤ d_max for which the ratio argument fails, each d decided pair by pair (brute force)."""
    d_max = require_positive_int(d_max, "d_max")
    return tuple(
        d for d in range(1, d_max + 1) if not document_argument_holds(d, base, sin_only_case_split).holds
    )


def argument_failure_rule(base: object, sin_only_case_split: bool = False) -> tuple[int, ...]:
    """Every d (there are finitely many) for which the ratio argument fails: the divisors of 2E, plus d = 3 as
    written. Every ratio is a power of b^(2/d), rational ⇔ d | 2E; d ≤ 2 divides 2E and has one frequency."""
    failing = set(sp.divisors(2 * power_exponent(require_rational_base(base))))
    return tuple(sorted(failing if sin_only_case_split else failing | {3}))


def rule_mismatches(
    rule: Callable[[object], Sequence[int]], base: object, d_max: int, sin_only_case_split: bool = False
) -> tuple[int, ...]:
    """The d ≤ d_max on which `rule(base)` and the brute-force failures disagree (empty: rule confirmed)."""
    brute = set(argument_failures(base, d_max, sin_only_case_split))
    predicted = {d for d in rule(base) if d <= d_max}
    return tuple(sorted(brute ^ predicted))


# ----------------------------------------------------------------------------------------------------------
# D3.4: one dimension
# ----------------------------------------------------------------------------------------------------------


def _no_full_turns(omega: sp.Expr) -> Iterator[Step]:
    yield nonzero_step(
        K * omega, r"k\,\omega \neq 0\quad(k = p - q \neq 0)", r"$k \neq 0$ and $\omega \neq 0$"
    )
    yield not_pi_multiple(
        K * omega,
        2 * N_NONZERO,
        "algebraic",
        r"(p - q)\,\omega = 2\pi n \text{ is impossible }"
        r"(n \neq 0 \text{ as } k\omega \neq 0)",
    )


def sine_dimension_steps(omega: sp.Expr) -> Iterator[Step]:
    """sin(pω) = sin(qω) with integers p ≠ q is impossible for algebraic ω (the π steps check only when SymPy
    knows ω is algebraic; for ω = π/3 they fail)."""
    yield _sum_to_product_sin(P * omega, Q * omega)
    yield _sin_half_zeros()
    yield _cos_half_zeros()
    yield from _no_full_turns(omega)
    yield not_pi_multiple(
        (P + Q) * omega,
        2 * N + 1,
        "algebraic",
        r"(p + q)\,\omega = \pi(2n + 1) \text{ is impossible } (2n + 1 \neq 0)",
    )


def cosine_dimension_steps(omega: sp.Expr) -> Iterator[Step]:
    """cos(pω) = cos(qω) with integers p ≠ q ⇔ q = −p ≠ 0, for algebraic ω (the π steps check only when
    SymPy knows ω is algebraic; for ω = π/3 they fail)."""
    yield _sum_to_product_cos(P * omega, Q * omega)
    yield _sin_half_zeros()
    yield from _no_full_turns(omega)
    yield not_pi_multiple(
        (P + Q) * omega,
        2 * N_NONZERO,
        "algebraic",
        r"(p + q)\,\omega = 2\pi n \text{ with } n \neq 0 \text{ is impossible}",
    )
    yield fact(
        r"(p + q)\,\omega = 2\pi\cdot 0 \iff q = -p",
        "the case the document omits: n = 0 gives an integer equation, not one containing π",
        lambda: sp.solve(sp.Eq((P + Q) * omega, 0), Q) == [-P],
    )
    p_low = sp.Symbol("p", integer=True, nonnegative=True)
    q_high = sp.Symbol("q", integer=True, positive=True)
    yield fact(
        r"0 \le p < q \implies p + q > 0:\ \text{injective on } \mathbb{N}",
        "order the two positions; q ≥ 1",
        lambda: (p_low + q_high).is_positive is True,
    )
    yield identity(
        sp.cos(1 * omega),
        sp.cos(-1 * omega),
        r"cos is even: over $\mathbb{Z}$ the pair "
        r"$(1, -1)$ collides",
        claim=r"\cos(1\cdot\omega) = \cos(-1\cdot\omega)",
    )


_ONE_DIMENSION_HYPOTHESES = (
    r"$\omega = \omega_i = b^{-2i/d}$ with $b$ rational $> 1$: a rational power of a rational (algebraic)",
    r"$p \neq q$ integers, $k = p - q$",
)


@derivation(
    id="uniqueness.sine_dimension",
    title="A sin dimension never repeats a value over the integers",
    statement=r"p, q \in \mathbb{Z},\ p \neq q \implies \sin(p\,\omega_i) \neq \sin(q\,\omega_i)",
    hypotheses=_ONE_DIMENSION_HYPOTHESES,
)
def sine_dimension() -> Iterator[Step]:
    yield from sine_dimension_steps(OMEGA_I)


@derivation(
    id="uniqueness.cosine_dimension",
    title="A cos dimension repeats a value exactly at q = −p: injective on ℕ, not on ℤ",
    statement=r"p \neq q:\ \cos(p\,\omega_i) = \cos(q\,\omega_i) \iff q = -p;\quad \text{so injective for }"
    r"p, q \ge 0,\ \text{not for } p, q \in \mathbb{Z}\ (\text{e.g. } (1, -1))",
    hypotheses=_ONE_DIMENSION_HYPOTHESES,
)
def cosine_dimension() -> Iterator[Step]:
    yield from cosine_dimension_steps(OMEGA_I)


@derivation(
    id="uniqueness.pi_side_condition",
    title="'Contains π, hence irrational' needs ω ∉ πℚ: a rational multiple of π collides",
    statement=r"\omega = \tfrac{\pi}{3}:\ \sin(0\,\omega) = \sin(3\,\omega),\ \sin(\omega) = \sin(2\omega),\ "
    r"\cos(2\omega) = \cos(4\omega)",
    hypotheses=(
        r"the document's case 2 reads $2p_1 + k = \pi(2n + 1)\,w_j$ with $w_j = 1/\omega_j$; the right side "
        r"is irrational only when $\pi w_j \notin \mathbb{Q}$, i.e. $\omega_j \notin \pi\mathbb{Q}$",
    ),
)
def pi_side_condition() -> Iterator[Step]:
    omega = sp.pi / 3
    yield identity(
        2 * 1 + 1,
        sp.pi * (2 * 0 + 1) * (3 / sp.pi),
        r"with $w_j = 3/\pi$ the π cancels: $p_1 = 1$, $k = 1$, $n = 0$ solve case 2",
        claim=r"2\cdot 1 + 1 = \pi\,(2\cdot 0 + 1)\cdot\tfrac{3}{\pi}",
    )
    yield identity(sp.sin(0 * omega), sp.sin(3 * omega), r"$\sin 0 = \sin\pi = 0$")
    yield identity(sp.sin(1 * omega), sp.sin(2 * omega), r"$\sin\frac{\pi}{3} = \sin\frac{2\pi}{3}$ (case 2)")
    yield identity(sp.cos(2 * omega), sp.cos(4 * omega), r"$\cos\tfrac{2\pi}{3} = \cos\tfrac{4\pi}{3}$")
    yield identity(sp.sin((P + 6) * omega), sp.sin(P * omega), r"period 6: $6\omega = 2\pi$")


@dataclass(frozen=True)
class CollisionVerdict:
    """Whether one dimension repeats a value: f(p1·ω) = f(p2·ω) with p1 ≠ p2 (f = sin or cos)."""

    kind: str
    omega: sp.Expr
    allow_negative: bool
    collides: bool
    reason: str
    witness: tuple[int, int] | None = None
    period: int | None = None
    family: str = ""


def frequency_collision(omega: object, kind: str, allow_negative: bool = False) -> CollisionVerdict:
    """Whether sin(pω) (kind 'sin') or cos(pω) ('cos') takes one value at two integer positions, ω exact.

    ω/π irrational (e.g. ω algebraic): sin never; cos only at p2 = −p1 (needs negative positions).
    ω = (u/v)π: values repeat with period P = 2v/gcd(u, 2); the witness is the smallest by max |p|.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be 'sin' or 'cos', got {kind!r}")
    multiple = pi_multiple(omega)
    omega = sp.sympify(omega)
    if multiple is None:
        return _irrational_collision(omega, kind, allow_negative)
    period = 2 * multiple.q // math.gcd(abs(multiple.p), 2)
    if kind == "cos":
        sums: tuple[int, ...] = (0,)
    else:
        sums = (period // 2,) if multiple.p % 2 else ()
    witness = _smallest_witness(period, sums, allow_negative)
    family = f"p2 ≡ p1 (mod {period})" + "".join(f" or p1 + p2 ≡ {c} (mod {period})" for c in sums)
    return CollisionVerdict(
        kind,
        omega,
        allow_negative,
        True,
        f"ω = {multiple}·π is a rational multiple of π: {kind}(p·ω) has period {period}",
        witness,
        period,
        family,
    )


def _irrational_collision(omega: sp.Expr, kind: str, allow_negative: bool) -> CollisionVerdict:
    base_reason = "ω/π is irrational, so x ± y ∈ π·ℚ for x = p1·ω, y = p2·ω forces the multiple to be 0"
    if kind == "sin":
        return CollisionVerdict(
            kind,
            omega,
            allow_negative,
            False,
            base_reason + ": sin needs (p1 − p2)ω ∈ 2πℤ (only p1 = p2) or (p1 + p2)ω ∈ π(2ℤ + 1) (never)",
        )
    if not allow_negative:
        return CollisionVerdict(
            kind,
            omega,
            allow_negative,
            False,
            base_reason + ": cos needs p1 = ±p2, and p1 = −p2 ≠ 0 needs a negative position",
        )
    return CollisionVerdict(
        kind,
        omega,
        allow_negative,
        True,
        base_reason + ": cos(p·ω) = cos(−p·ω)",
        (-1, 1),
        None,
        "p2 = −p1 ≠ 0",
    )


def _smallest_witness(period: int, sums: tuple[int, ...], allow_negative: bool) -> tuple[int, int]:
    """The collision p1 < p2 (p1 ≡ p2 or p1 + p2 ≡ c mod period) with the least max |p|, fewest negative
    positions, then smallest; (0, period) is always one, so the search ends."""
    for level in count(1):
        anchors = (level, -level) if allow_negative else (level,)
        low = -level if allow_negative else 0
        found = [
            (min(a, q), max(a, q))
            for a in anchors
            for residue in (a, *[c - a for c in sums])
            for q in range(low + (residue - low) % period, level + 1, period)
            if q != a
        ]
        if found:
            return min(found, key=lambda pair: (sum(p < 0 for p in pair), pair))
    raise AssertionError("unreachable: count() does not end")


def _require_dimension(dim: object, d: int, name: str) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim < d:
        raise ValueError(f"{name} must be an integer in [0, {d}) (dimensions count from 0), got {dim!r}")
    return dim


def dimension_collision(d: int, base: object, dim: int, allow_negative: bool = False) -> CollisionVerdict:
    """D3.4 for dimension `dim` of the reference encoding (even: sin, odd: cos; frequency index dim // 2)."""
    d = require_positive_int(d, "d")
    dim = _require_dimension(dim, d, "dim")
    return frequency_collision(frequency(d, base, dim // 2), KINDS[dim % 2], allow_negative)


# ----------------------------------------------------------------------------------------------------------
# D3.5: two dimensions
# ----------------------------------------------------------------------------------------------------------


def sine_cosine_steps(omega_a: sp.Expr, omega_b: sp.Expr) -> Iterator[Step]:
    """sin(pω_a) = cos(qω_b) is impossible for integers p, q when ω_a, ω_b are algebraic."""
    x, y = P * omega_a, Q * omega_b
    product = 2 * sp.cos((XA - YB) / 2 + sp.pi / 4) * sp.sin((XA + YB) / 2 - sp.pi / 4)
    yield euler_identity(sp.sin(XA) - sp.cos(YB), product, r"$\cos y = \sin(\pi/2 - y)$, then sum-to-product")
    for factor in (sp.cos(U / 2 + sp.pi / 4), sp.sin(U / 2 - sp.pi / 4)):
        yield zero_set_step(factor, 2 * sp.pi, sp.pi / 2, "SymPy: period 4π, zeros π/2, 5π/2 in [0, 4π)")
    yield algebraic_step((x - y, x + y), r"x \pm y = p\,\omega_a \pm q\,\omega_b \in \overline{\mathbb{Q}}")
    for sign, text in ((-1, "-"), (1, "+")):
        yield not_pi_multiple(
            x + sign * y,
            (4 * N + 1) / 2,
            "algebraic",
            rf"x {text} y = \tfrac{{\pi}}{{2}} + 2\pi n = \pi\,\tfrac{{4n + 1}}{{2}} "
            rf"\text{{ is impossible }} (4n + 1 \neq 0)",
        )


@derivation(
    id="uniqueness.sine_cosine_never",
    title="A sin value and a cos value never coincide, at any positions and frequencies",
    statement=r"\sin(p\,\omega_a) \neq \cos(q\,\omega_b)\qquad (p, q \in \mathbb{Z};\ \text{any } a, b,"
    r"\ \text{including } a = b)",
    hypotheses=(r"$\omega_a = b^{-2a/d}$, $\omega_b = b^{-2b/d}$ with $b$ rational $> 1$ (algebraic)",),
)
def sine_cosine_never() -> Iterator[Step]:
    yield from sine_cosine_steps(OMEGA_I, OMEGA_J)


@derivation(
    id="uniqueness.same_type_coincidence",
    title="Two sin (or two cos) dimensions coincide exactly when the frequency ratio is rational",
    statement=r"a \neq b:\ \sin(p\,\omega_a) = \sin(q\,\omega_b) \iff p\,\omega_a = q\,\omega_b;\ "
    r"\cos(p\,\omega_a) = \cos(q\,\omega_b) \iff p\,\omega_a = \pm q\,\omega_b;\ "
    r"\text{so } p \neq q \text{ exist} \iff \tfrac{\omega_b}{\omega_a} = b^{2(a-b)/d} "
    r"\in \mathbb{Q}",
    hypotheses=(
        r"$\omega_a = b^{-2a/d}$ with $b$ rational $> 1$; $x = p\,\omega_a$, $y = q\,\omega_b$ "
        r"are algebraic",
        r"the document's intermediate-value argument only yields near-equality; this rule is exact",
    ),
)
def same_type_coincidence() -> Iterator[Step]:
    x, y = P * OMEGA_I, Q * OMEGA_J
    yield _sum_to_product_sin(XA, YB)
    yield _sin_half_zeros()
    yield _cos_half_zeros()
    yield algebraic_step((x - y, x + y), r"x \pm y = p\,\omega_a \pm q\,\omega_b \in \overline{\mathbb{Q}}")
    yield not_pi_multiple(
        x - y,
        2 * N_NONZERO,
        "algebraic",
        r"\sin x = \sin y:\ x - y = 2\pi n \text{ forces } n = 0, \text{ i.e. } x = y",
    )
    yield not_pi_multiple(
        x + y, 2 * N + 1, "algebraic", r"\sin x = \sin y:\ x + y = \pi(2n + 1) \text{ never}"
    )
    yield _sum_to_product_cos(XA, YB)
    for sign, text in ((-1, "-"), (1, "+")):
        yield not_pi_multiple(
            x + sign * y,
            2 * N_NONZERO,
            "algebraic",
            rf"\cos x = \cos y:\ x {text} y = 2\pi n \text{{ forces }} n = 0",
        )
    yield identity(
        OMEGA_J / OMEGA_I,
        BASE ** (2 * (I_INDEX - J_INDEX) / DIM),
        "law of exponents",
        claim=r"p\,\omega_a = q\,\omega_b \iff \frac{p}{q} = \frac{\omega_b}{\omega_a} "
        r"= b^{2(a-b)/d}",
    )
    yield identity(
        sp.sin(1 * frequency(8, 10000, 0)),
        sp.sin(10 * frequency(8, 10000, 1)),
        r"$\omega_1 = 10^{-1}$: positions 1 (dim 0) and 10 (dim 2)",
        claim=r"d = 8:\ \sin(1\cdot\omega_0) = \sin(10\cdot\omega_1)",
    )
    yield identity(
        sp.cos(1 * frequency(512, 10000, 0)),
        sp.cos(-10 * frequency(512, 10000, 64)),
        r"$\omega_{64} = 10000^{-128/512} = 10^{-1}$: dims 1 and 129, positions 1 and −10",
        claim=r"d = 512:\ \cos(1\cdot\omega_0) = \cos(-10\cdot\omega_{64})",
    )
    yield fact(
        r"d = 6,\ b = 10000:\ \omega_1/\omega_0,\ \omega_2/\omega_0,\ \omega_2/\omega_1 "
        r"\notin \mathbb{Q}",
        "each is 10^(−4/3) or 10^(−8/3): minimal polynomials of degree 3, so no coincidence at d = 6",
        lambda: all(minimal_polynomial_degree(10000, frequency_exponent(m, 6)) == 3 for m in (1, 2)),
    )
    yield fact(
        r"d = 4096,\ b = 500000 = 2^5 5^6:\ E = 1,\ \text{no rational ratio}",
        "b^(2m/4096) ∈ ℚ needs 4096 | 2m, i.e. m ≥ 2048, but |a − b| ≤ 2047",
        lambda: (
            prime_exponents(500000) == {2: 5, 5: 6}
            and ratio_step(4096, 500000) == 2048 > frequency_count(4096) - 1
        ),
    )


def _least_multiple_holds(d_max: int, e_max: int) -> bool:
    """d | 2mE ⇔ d/gcd(d, 2E) divides m, for every d ≤ d_max, E ≤ e_max and 1 ≤ m ≤ d_max."""
    return all(
        ((2 * m * e) % d == 0) == (m % (d // math.gcd(d, 2 * e)) == 0)
        for d, e, m in product(range(1, d_max + 1), range(1, e_max + 1), range(1, d_max + 1))
    )


def _slack_signs_decided(classes: tuple[int, ...] = (0, 4)) -> bool:
    """⌈d/2⌉ − 1 − d/gcd(d, 8) is ≥ 0 on the `classes` of d mod 8 and < 0 on the others, decided
    symbolically in k for d = 8k + r."""
    k = sp.Symbol("k", integer=True, nonnegative=True)
    for residue in range(8):
        low = 1 if residue == 0 else 0  # d = 8k + r ≥ 1
        d = 8 * (k + low) + residue
        gcd = math.gcd(residue, 8) if residue else 8  # gcd(8k + r, 8) = gcd(r, 8)
        slack = sp.expand(4 * (k + low) + sp.ceiling(sp.Rational(residue, 2)) - 1 - d / gcd)
        decided = slack.is_nonnegative if residue in classes else slack.is_negative
        if decided is not True:
            return False
    return True


_EXISTENCE_SAMPLES = ((10000, 64, sp.Rational(9, 4), 500000), 10)


def _existence_rule_holds() -> bool:
    bases, d_max = _EXISTENCE_SAMPLES
    return all(
        cross_dim_exact_exists(d, b) == bool(frequency_list_coincidences(frequencies(d, b)))
        for b in bases
        for d in range(1, d_max + 1)
    )


def frequencies(d: int, base: object) -> list[sp.Expr]:
    """The exact frequencies ω_0, …, ω_{⌈d/2⌉−1} of the sinusoidal encoding."""
    return [frequency(d, base, i) for i in range(frequency_count(d))]


@derivation(
    id="uniqueness.coincidence_condition",
    title="Values of different dimensions coincide exactly if and only if d / gcd(d, 2E) < ⌈d/2⌉; at base "
    "10000, if and only if 4 divides d",
    statement=r"b = r^E\ (E \text{ maximal}):\quad \exists\, p_1 \neq p_2,\ j \neq l:\ "
    r"PE(p_1, j) = PE(p_2, l) "
    r"\iff \frac{d}{\gcd(d, 2E)} < \left\lceil \frac{d}{2} \right\rceil;\qquad b = 10000:\ \iff 4 \mid d",
    hypotheses=(
        r"$PE(p)_{2i} = \sin(p\,\omega_i)$, $PE(p)_{2i+1} = \cos(p\,\omega_i)$, $\omega_i = b^{-2i/d}$, "
        r"$b > 1$ rational, positions integers",
        r"a sin value never equals a cos value (`uniqueness.sine_cosine_never`); two sin or two cos "
        r"dimensions coincide exactly when their frequency ratio is rational "
        r"(`uniqueness.same_type_coincidence`)",
    ),
    instances="the least-multiple step for d ≤ 128, E ≤ 8; the rule b^(2m/d) ∈ ℚ ⇔ d | 2mE on the samples "
    "of `uniqueness.ratio_argument`; the combined rule against every frequency pair for d ≤ 10 at b = 10000, "
    "64, 9/4, 500000 (the step to 4 | d is symbolic in d)",
)
def coincidence_condition() -> Iterator[Step]:
    yield implementation_link(
        r"\{\omega_a\} = \{\omega_0, \dots, \omega_{\lceil d/2 \rceil - 1}\}:\ "
        r"|a - b| \in \{1, \dots, \lceil d/2 \rceil - 1\}",
        "the encoder's layout (`pair_index`): dims 2a and 2a + 1 carry frequency a",
        lambda: all(set(map(int, pair_index(d))) == set(range(frequency_count(d))) for d in range(1, 65)),
        "d ≤ 64",
    )
    yield ratio_rule_step()
    yield fact(
        r"d \mid 2mE \iff \frac{d}{\gcd(d, 2E)} \mid m",
        "divide by g = gcd(d, 2E): (d/g) | m·(2E/g) with gcd(d/g, 2E/g) = 1, so (d/g) | m (Euclid's lemma); "
        "compared with direct division for d ≤ 128, E ≤ 8",
        lambda: _least_multiple_holds(128, 8),
        "d, m ≤ 128, E ≤ 8",
    )
    yield fact(
        r"\exists\, a \neq b:\ \tfrac{\omega_b}{\omega_a} \in \mathbb{Q} "
        r"\iff \frac{d}{\gcd(d, 2E)} \le \left\lceil \tfrac{d}{2} \right\rceil - 1",
        "the smallest usable |a − b| is d/gcd(d, 2E); compared with every frequency pair decided by its "
        "minimal polynomial (`frequency_list_coincidences`)",
        _existence_rule_holds,
        f"d ≤ {_EXISTENCE_SAMPLES[1]} at b = {', '.join(map(str, _EXISTENCE_SAMPLES[0]))}",
    )
    yield fact(
        r"b = 10000 = 10^4,\ E = 4:\ \frac{d}{\gcd(d, 8)} \le \left\lceil \tfrac{d}{2} \right\rceil - 1 "
        r"\iff d \equiv 0, 4 \pmod 8 \iff 4 \mid d",
        "d = 8k + r and gcd(8k + r, 8) = gcd(r, 8): the slack ⌈d/2⌉ − 1 − d/gcd is "
        "3k + 2 for r = 0 (d = 8(k + 1)), 2k for r = 4, −1 for r = 2, 6 and −4k − (r + 1)/2 for odd r; "
        "SymPy decides each sign for integer k ≥ 0",
        lambda: power_exponent(10000) == 4 and _slack_signs_decided(),
    )


class ValuePair(NamedTuple):
    """Position p1 in dimension dim1 and position p2 in dimension dim2: a candidate coincidence."""

    p1: int
    dim1: int
    p2: int
    dim2: int


@dataclass(frozen=True)
class CoincidenceVerdict:
    """Whether PE(p1, dim1) = PE(p2, dim2) for some p1 ≠ p2; with the witness family when it does.

    On the family p1·ω_a = ±p2·ω_b, i.e. (p1, p2) = (m·t, ±n·t) with ω_b/ω_a = m/n = `ratio`. At p1 = p2 = 0
    every sin dimension is 0 and every cos dimension 1; that same-position case is excluded.
    """

    dim1: int
    dim2: int
    allow_negative: bool
    coincide: bool
    reason: str
    ratio: sp.Rational | None = None
    witness: ValuePair | None = None
    family: str = ""

    def member(self, t: int, sign: int = 1) -> ValuePair:
        """The family member (m·t, dim1, sign·n·t, dim2); t ≠ 0 (t > 0 without negative positions)."""
        if self.ratio is None:
            raise ValueError(f"dims {self.dim1} and {self.dim2} never coincide: {self.reason}")
        signs = (1, -1) if self.allow_negative and self.dim1 % 2 == 1 else (1,)
        if t == 0 or (t < 0 and not self.allow_negative) or sign not in signs:
            raise ValueError(
                f"this family has t ≠ 0 (t > 0 without negative positions) and sign ±1 "
                f"(−1 only for cos–cos with negative positions); got t = {t}, sign = {sign}"
            )
        return ValuePair(self.ratio.p * t, self.dim1, sign * self.ratio.q * t, self.dim2)


def _same_type_verdict(
    dim1: int, dim2: int, ratio: sp.Rational | None, ratio_text: str, allow_negative: bool
) -> CoincidenceVerdict:
    kind = KINDS[dim1 % 2]
    if ratio is None:
        return CoincidenceVerdict(
            dim1,
            dim2,
            allow_negative,
            False,
            f"{kind}–{kind}: equal only if p1·ω_a = ±p2·ω_b, but ω_b/ω_a = "
            f"{ratio_text} is irrational, so only p1 = p2 = 0",
        )
    m, n = ratio.p, ratio.q
    signs = "±" if kind == "cos" and allow_negative else ""
    values = "t ∈ ℤ∖{0}" if allow_negative else "t = 1, 2, …"
    reason = f"{kind}–{kind}: equal ⇔ p1·ω_a = {signs}p2·ω_b; ω_b/ω_a = {ratio_text} = {ratio}"
    family = f"(p1, p2) = ({m}·t, {signs}{n}·t), {values}"
    witness = ValuePair(m, dim1, n, dim2)
    return CoincidenceVerdict(dim1, dim2, allow_negative, True, reason, ratio, witness, family)


def _never_verdict(dim1: int, dim2: int, allow_negative: bool) -> CoincidenceVerdict:
    return CoincidenceVerdict(
        dim1,
        dim2,
        allow_negative,
        False,
        "sin–cos: never (sin x = cos y needs "
        "x ± y ∈ π/2 + 2πℤ, but x ± y is algebraic and π is transcendental)",
    )


def cross_dimension_coincidence(
    d: int, base: object, dim1: int, dim2: int, allow_negative: bool = False
) -> CoincidenceVerdict:
    """D3.5 exactly: dims of different type never coincide; same type coincide ⇔ ω_b/ω_a = b^(2(a−b)/d) ∈ ℚ
    (a = dim1 // 2, b = dim2 // 2), at (p1, p2) = (m, n)·t with ω_b/ω_a = m/n."""
    d = require_positive_int(d, "d")
    dim1, dim2 = _require_dimension(dim1, d, "dim1"), _require_dimension(dim2, d, "dim2")
    if dim1 == dim2:
        raise ValueError(
            f"dim1 and dim2 must differ (got {dim1} twice); for one dimension use dimension_collision"
        )
    if dim1 % 2 != dim2 % 2:
        return _never_verdict(dim1, dim2, allow_negative)
    a, b = dim1 // 2, dim2 // 2
    ratio = frequency_ratio(d, base, b, a)
    ratio_text = f"{require_rational_base(base)}^({sp.Rational(2 * (a - b), d)})"
    return _same_type_verdict(dim1, dim2, ratio, ratio_text, allow_negative)


def coinciding_dim_pairs(
    d: int, base: object, allow_negative: bool = False
) -> tuple[CoincidenceVerdict, ...]:
    """Every dim pair dim1 < dim2 of (d, base) with an exact coincidence at p1 ≠ p2: (2i, 2j) and, when both
    exist, (2i+1, 2j+1) for each rational ratio ω_i/ω_j (j − i a multiple of d / gcd(d, 2E))."""
    d = require_positive_int(d, "d")
    verdicts = []
    for i, j, ratio in rational_ratio_pairs(d, base):
        for dim1, dim2 in ((2 * i, 2 * j), (2 * i + 1, 2 * j + 1)):
            if dim2 < d:
                verdicts.append(_same_type_verdict(dim1, dim2, 1 / ratio, f"ω_{j}/ω_{i}", allow_negative))
    return tuple(sorted(verdicts, key=lambda verdict: (verdict.dim1, verdict.dim2)))


def cross_dim_exact_exists(d: int, base: object) -> bool:
    """An exact cross-dimension coincidence exists ⇔ some |a − b| < ⌈d/2⌉ is a multiple of d / gcd(d, 2E)."""
    return ratio_step(d, base) <= frequency_count(d) - 1


def dims_with_exact_coincidence(base: object, d_max: int, brute_force: bool = False) -> tuple[int, ...]:
    """Every d ≤ d_max with an exact cross-dimension coincidence: by the rule of `cross_dim_exact_exists`, or
    with `brute_force` pair by pair (`coinciding_dim_pairs`)."""
    d_max = require_positive_int(d_max, "d_max")
    if brute_force:
        return tuple(d for d in range(1, d_max + 1) if coinciding_dim_pairs(d, base))
    return tuple(d for d in range(1, d_max + 1) if cross_dim_exact_exists(d, base))


def frequency_list_coincidences(
    omegas: Sequence[object], allow_negative: bool = False
) -> tuple[CoincidenceVerdict, ...]:
    """Every coinciding dim pair of an encoding with exact positive algebraic frequencies `omegas` (dims 2i
    and 2i+1 use omegas[i]); each ratio is decided by SymPy's minimal polynomial (rational ⇔ degree 1)."""
    exact = [_require_algebraic_frequency(omega) for omega in omegas]
    if not exact:
        raise ValueError("omegas must contain at least one frequency")
    verdicts = []
    for a, b in combinations(range(len(exact)), 2):
        ratio = _rational_value(exact[b] / exact[a])
        if ratio is not None:
            for dim1, dim2 in ((2 * a, 2 * b), (2 * a + 1, 2 * b + 1)):
                verdicts.append(_same_type_verdict(dim1, dim2, ratio, f"ω_{b}/ω_{a}", allow_negative))
    return tuple(sorted(verdicts, key=lambda verdict: (verdict.dim1, verdict.dim2)))


def _require_algebraic_frequency(omega: object) -> sp.Expr:
    value = sp.sympify(omega) if isinstance(omega, (int, sp.Expr)) and not isinstance(omega, bool) else None
    if value is None or value.is_algebraic is not True or value.is_positive is not True:
        raise ValueError(
            f"each frequency must be an exact positive algebraic SymPy number (e.g. "
            f"10**Rational(-4, 3)); got {omega!r}"
        )
    return value


def _rational_value(value: sp.Expr) -> sp.Rational | None:
    polynomial = sp.Poly(sp.minimal_polynomial(value, X), X)
    if polynomial.degree() != 1:
        return None
    leading, constant = polynomial.all_coeffs()
    return sp.Rational(-constant, leading)
