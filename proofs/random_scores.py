"""RoPE scores of random queries and keys (Barbero et al. 2024, "Round and Round We Go!", arXiv 2410.06205):
what the expectation of qᵀR_r k is, and which distances a score can favour.

Write q, k ∈ ℝ^{2K} by blocks q_i = (q_{2i}, q_{2i+1}) (the interleaved layout: the half-split score of
(q, k) is the interleaved score of (Pq, Pk) for the fixed permutation P of `rope.half_split_permutation`,
which maps independent Gaussian entries to independent Gaussian entries and R^half_r q to Pᵀ R^int_r Pq, so
both results below hold for it too). Grouped by blocks, the score of a query at m and a key at n is

    ⟨R_m q, R_n k⟩ = Σ_{i<K} q_iᵀ R((n − m)θ_i) k_i,

a bilinear form in q and k whose coefficients cos((n − m)θ_i), ±sin((n − m)θ_i) are numbers. Hence

- `expected_score`: for q independent of k, E⟨R_m q, R_n k⟩ = E[q]ᵀ R_{n−m} E[k] (linearity over the terms
  q_a k_b and E[q_a k_b] = E[q_a]E[k_b]); for independent standard Gaussian entries it is 0 and the second
  moment is d = 2K, at every distance: no decay of the expected score, nor of its spread;
- `score_peak_at_any_distance`: for every distance r and q, the key k = R_r q gives the score
  Σ_{i<K} ‖q_i‖² cos((m − n − r)θ_i) ≤ ‖q‖², attained at m − n = r, and (θ_0 = 1 for every base) at no
  other integer distance when q_0 ≠ 0.

Expectations are computed by `expectation`: a polynomial in independent random variables is expanded into
monomials, each monomial's expectation is the product of its factors' moments (independence), and the sum
follows by linearity. The moments of a Gaussian variable are SymPy's (`sympy.stats`). Block indices, the
number of blocks K, the positions, the distance and the frequencies are symbolic throughout.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import sympy as sp
from sympy import stats

from pe_verify.properties.encodings.frequencies import frequency_expr

from .derivation import Expr, Step, derivation, fact, identity
from .rope import (
    BLOCKS,
    FREQUENCY,
    PAIR,
    M,
    N,
    entry_formula_step,
    interleaved_entry,
    pair_sum_step,
    rotation,
)

Q, K = sp.IndexedBase("q", real=True), sp.IndexedBase("k", real=True)
#: The means E[q_j] and E[k_j].
MU, NU = sp.IndexedBase("mu", real=True), sp.IndexedBase("nu", real=True)
#: A distance r and the angle φ of one block.
DISTANCE, ANGLE = sp.symbols("r phi", real=True)
#: A second block index l = i + 1 + w ≠ i.
GAP = sp.Symbol("w", integer=True, nonnegative=True)
#: The moment E[x^p] of one random variable x.
Moment = Callable[[sp.Expr, int], sp.Expr]


def block(x: sp.IndexedBase, i: sp.Expr) -> sp.Matrix:
    """The block x_i = (x_{2i}, x_{2i+1}) as a column."""
    return sp.Matrix([x[2 * i], x[2 * i + 1]])


def bilinear(a: sp.Matrix, angle: sp.Expr, b: sp.Matrix) -> sp.Expr:
    """aᵀ R(angle) b for 2-vectors a, b."""
    return (a.T * rotation(angle) * b)[0]


def block_variables(i: sp.Expr) -> tuple[sp.Expr, ...]:
    """The random entries of block i of q and of k."""
    return (Q[2 * i], Q[2 * i + 1], K[2 * i], K[2 * i + 1])


def block_means(i: sp.Expr) -> dict[sp.Expr, sp.Expr]:
    """E[x] for each random entry x of block i: μ_j for q_j, ν_j for k_j."""
    return dict(zip(block_variables(i), (MU[2 * i], MU[2 * i + 1], NU[2 * i], NU[2 * i + 1]), strict=True))


@functools.cache
def _gaussian_moment(power: int) -> tuple[sp.Expr, sp.Symbol]:
    """E[x^power] for x ~ N(μ, 1), as a polynomial in the symbol μ (sympy.stats)."""
    mean = sp.Symbol("mu", real=True)
    return sp.expand(stats.E(stats.Normal("x", mean, 1) ** power)), mean


def gaussian_moment(means: dict[sp.Expr, sp.Expr]) -> Moment:
    """The moments of independent unit-variance Gaussian variables with the given means."""

    def moment(variable: sp.Expr, power: int) -> sp.Expr:
        value, mean = _gaussian_moment(power)
        return value.subs(mean, means[variable])

    return moment


def standard_moment(variable: sp.Expr, power: int) -> sp.Expr:
    """E[x^power] for x ~ N(0, 1)."""
    value, mean = _gaussian_moment(power)
    return value.subs(mean, 0)


def expectation(polynomial: Expr, variables: Sequence[sp.Expr], moment: Moment) -> sp.Expr:
    """E[polynomial] for independent random `variables`: linearity over the monomials, and the expectation
    of a monomial Π x_j^{e_j} is Π E[x_j^{e_j}] by independence (`moment` gives E[x^e]). Coefficients may be
    any expressions free of the variables."""
    terms = sp.Poly(sp.expand(polynomial), *variables).terms()
    return sp.Add(
        *(
            coefficient * sp.Mul(*(moment(x, e) for x, e in zip(variables, powers, strict=True) if e))
            for powers, coefficient in terms
        )
    )


def _vanishes(expr: Expr) -> bool:
    """expr = 0 after expanding products, splitting cos/sin of sums of angles and writing sin² as 1 − cos²:
    exact rewritings, nothing dropped."""
    expr = sp.expand(sp.expand_trig(sp.expand(expr)))
    squares = {sine**2: 1 - sp.cos(sine.args[0]) ** 2 for sine in expr.atoms(sp.sin)}
    return sp.expand(expr.subs(squares)) == 0


def _score_summand(
    x: sp.IndexedBase, turned: Callable[[sp.Expr], sp.Expr], m: sp.Expr, n: sp.Expr
) -> sp.Expr:
    """Block i's share (R_m x)_{2i}(R_n y)_{2i} + (R_m x)_{2i+1}(R_n y)_{2i+1} of ⟨R_m x, R_n y⟩, with the
    entries of y given by `turned`."""
    return sum(
        interleaved_entry(lambda j: x[j], j, m) * interleaved_entry(turned, j, n)
        for j in (2 * PAIR, 2 * PAIR + 1)
    )


def block_form_step(offset: sp.Expr = N - M) -> Step:
    """Block i's share of ⟨R_m q, R_n k⟩ is q_iᵀ R(`offset`·θ_i) k_i, for a symbolic block index i (so, with
    the pair grouping, ⟨R_m q, R_n k⟩ = Σ_{i<K} q_iᵀ R((n − m)θ_i) k_i for every K; a wrong offset fails)."""
    share = _score_summand(Q, lambda j: K[j], M, N)
    form = bilinear(block(Q, PAIR), offset * FREQUENCY[PAIR], block(K, PAIR))
    return fact(
        r"\langle R_m q, R_n k\rangle = \sum_{i<K} q_i^\top R((n-m)\theta_i)\,k_i",
        r"the pair grouping above with $f_j = (R_m q)_j (R_n k)_j$; block $i$ of each vector turns by "
        r"$R(m\theta_i)$, resp. $R(n\theta_i)$ (the interleaved entry formulas), and "
        r"$R(m\theta)^\top R(n\theta) = R((n-m)\theta)$ by the angle-subtraction formulas; checked for a "
        r"symbolic block index $i$",
        lambda: _vanishes(share - form),
    )


def independence_step() -> Step:
    """E[XY] = E[X]E[Y] for independent X ~ N(μ, 1), Y ~ N(ν, 1) (sympy.stats), and the Gaussian moments
    used."""
    mu, nu = sp.symbols("mu nu", real=True)
    x, y = stats.Normal("X", mu, 1), stats.Normal("Y", nu, 1)
    return fact(
        r"E[XY] = E[X]\,E[Y],\quad E[X] = \mu,\quad E[X^2] = \mu^2 + 1 "
        r"\quad (X \sim N(\mu, 1),\ Y \sim N(\nu, 1) \text{ independent})",
        "sympy.stats integrates over the joint density; independence makes the expectation of every monomial "
        "in independent variables the product of the factors' moments, which is how `expectation` computes",
        lambda: (
            sp.expand(stats.E(x * y) - mu * nu) == 0
            and sp.expand(stats.E(x) - mu) == 0
            and sp.expand(stats.E(x**2) - mu**2 - 1) == 0
        ),
    )


def block_mean_step(moment: Moment | None = None) -> Step:
    """E[q_iᵀ R(φ) k_i] = μ_iᵀ R(φ) ν_i for a symbolic angle φ and block i (`moment`: the moments used; a
    wrong one fails)."""
    variables = block_variables(PAIR)
    moment = moment or gaussian_moment(block_means(PAIR))
    form = bilinear(block(Q, PAIR), ANGLE, block(K, PAIR))
    return identity(
        expectation(form, variables, moment),
        bilinear(block(MU, PAIR), ANGLE, block(NU, PAIR)),
        r"linearity over the four terms $R(\varphi)_{ab}\, q_{2i+a} k_{2i+b}$, whose coefficients are "
        r"numbers, and $E[q_a k_b] = E[q_a]E[k_b]$ ($q$ independent of $k$)",
        claim=r"E\bigl[q_i^\top R(\varphi)\,k_i\bigr] = \mu_i^\top R(\varphi)\,\nu_i",
    )


def mean_score_step() -> Step:
    """Summed over the K blocks: E⟨R_m q, R_n k⟩ = Σ_{i<K} μ_iᵀR((n − m)θ_i)ν_i = ⟨R_m μ, R_n ν⟩."""
    expected = expectation(
        bilinear(block(Q, PAIR), (N - M) * FREQUENCY[PAIR], block(K, PAIR)),
        block_variables(PAIR),
        gaussian_moment(block_means(PAIR)),
    )
    means = _score_summand(MU, lambda j: NU[j], M, N)
    return fact(
        r"E\langle R_m q, R_n k\rangle = \sum_{i<K} \mu_i^\top R((n-m)\theta_i)\,\nu_i = "
        r"\langle R_m\,E[q], R_n\,E[k]\rangle = E[q]^\top R_{n-m}\,E[k]",
        r"the expectation of a sum of $K$ terms is the sum of their expectations (the block step with "
        r"$\varphi = (n-m)\theta_i$); the block form of the score, read backwards for the mean vectors, "
        r"gives $\langle R_m \mu, R_n \nu\rangle$, and $R_m^\top R_n = R_{n-m}$",
        lambda: _vanishes(expected - means),
    )


def gaussian_mean_step() -> Step:
    """For standard Gaussian entries μ = ν = 0, so E⟨R_m q, R_n k⟩ = Σ_{i<K} 0 = 0 for every m, n, θ_i, K."""
    standard = stats.Normal("X", 0, 1)
    summand = bilinear(block(MU, PAIR), (N - M) * FREQUENCY[PAIR], block(NU, PAIR))
    zero = {MU[2 * PAIR]: 0, MU[2 * PAIR + 1]: 0, NU[2 * PAIR]: 0, NU[2 * PAIR + 1]: 0}
    return fact(
        r"q_j, k_j \sim N(0, 1):\quad E\langle R_m q, R_n k\rangle = \sum_{i<K} 0 = 0 "
        r"\quad (\text{every } m, n, \theta_i, K)",
        r"$E[X] = 0$ for $X \sim N(0, 1)$ (sympy.stats), so every $\mu_j = \nu_j = 0$ and each term of the "
        r"sum vanishes, whatever the distance $n - m$ and the frequencies",
        lambda: stats.E(standard) == 0 and sp.Sum(summand.subs(zero), (PAIR, 0, BLOCKS - 1)).doit() == 0,
    )


def second_moment_steps(moment: Moment = standard_moment) -> list[Step]:
    """E[(q_iᵀR(φ)k_i)²] = 2 and E[(q_iᵀR(φ)k_i)(q_lᵀR(ψ)k_l)] = 0 for blocks l ≠ i, so E⟨R_m q, R_n k⟩² =
    2K = d at every distance (`moment`: the moments used; a wrong one fails)."""
    other, psi = PAIR + 1 + GAP, sp.Symbol("psi", real=True)
    own = bilinear(block(Q, PAIR), ANGLE, block(K, PAIR))
    cross = own * bilinear(block(Q, other), psi, block(K, other))
    return [
        fact(
            r"E\bigl[(q_i^\top R(\varphi)\,k_i)^2\bigr] = 2",
            r"expanded, each square $q_{2i+a}^2 k_{2i+b}^2$ has expectation 1 and every other term a factor "
            r"of mean 0; the coefficients $\cos^2\varphi + \sin^2\varphi$ add up to 1 twice",
            lambda: _vanishes(expectation(own**2, block_variables(PAIR), moment) - 2),
        ),
        fact(
            r"E\bigl[(q_i^\top R(\varphi)\,k_i)(q_l^\top R(\psi)\,k_l)\bigr] = 0 \quad (l = i + 1 + w \ne i)",
            r"the two blocks hold different, independent entries, each appearing once in every term: a "
            r"factor of mean 0",
            lambda: _vanishes(expectation(cross, (*block_variables(PAIR), *block_variables(other)), moment)),
        ),
        fact(
            r"E\langle R_m q, R_n k\rangle^2 = \sum_{i<K} 2 = 2K = d,\quad "
            r"\operatorname{Var}\langle R_m q, R_n k\rangle = d",
            r"the square of the block sum is the sum of the squares plus the cross terms, which vanish; "
            r"the mean is 0 (above)",
            lambda: sp.Sum(2, (PAIR, 0, BLOCKS - 1)).doit() == 2 * BLOCKS,
        ),
    ]


@derivation(
    id="random_scores.expected_score",
    title="The expected RoPE score of independent queries and keys, and of Gaussian ones",
    statement=r"E\langle R_m q, R_n k\rangle = E[q]^\top R_{n-m}\,E[k];\quad q_j, k_j \sim N(0, 1) "
    r"\text{ independent}:\ E\langle R_m q, R_n k\rangle = 0,\ E\langle R_m q, R_n k\rangle^2 = d "
    r"\text{ at every distance}",
    hypotheses=(
        r"$q, k \in \mathbb{R}^{d}$, $d = 2K$ for a symbolic $K \ge 1$, random and independent of each "
        r"other, with entries of finite variance; in the Gaussian case all $2d$ entries are independent "
        r"$N(0, 1)$.",
        r"Positions $m, n$, frequencies $\theta_i$ and block indices symbolic; the interleaved layout (the "
        r"half-split score of $(q, k)$ is the interleaved score of $(Pq, Pk)$ for a fixed permutation $P$).",
        r"Expectations by linearity and independence, with the Gaussian moments of `sympy.stats` "
        r"(one step checks both on two variables).",
    ),
)
def expected_score() -> list[Step]:
    return [
        entry_formula_step(),
        pair_sum_step(),
        block_form_step(),
        independence_step(),
        block_mean_step(),
        mean_score_step(),
        gaussian_mean_step(),
        *second_moment_steps(),
    ]


def aligned_score_step(distance: sp.Expr = DISTANCE) -> Step:
    """With k = R_r q, block i's share of ⟨R_m q, R_n k⟩ is ‖q_i‖² cos((m − n − r)θ_i), symbolic i (a key
    turned by another distance, e.g. −r, fails)."""

    def turned(j: sp.Expr) -> sp.Expr:
        return interleaved_entry(lambda index: Q[index], j, distance)

    share = _score_summand(Q, turned, M, N)
    norm = Q[2 * PAIR] ** 2 + Q[2 * PAIR + 1] ** 2
    return fact(
        r"k = R_r q:\quad \langle R_m q, R_n k\rangle = \sum_{i<K} \lVert q_i\rVert^2 \cos((m-n-r)\theta_i)",
        r"the pair grouping with $f_j = (R_m q)_j (R_n R_r q)_j$; block $i$ gives "
        r"$q_i^\top R(m\theta_i)^\top R((n+r)\theta_i)\, q_i = q_i^\top R((n+r-m)\theta_i)\, q_i$, and "
        r"$x^\top R(\varphi) x = \lVert x\rVert^2 \cos\varphi$; checked for a symbolic block index $i$",
        lambda: _vanishes(share - norm * sp.cos((M - N - DISTANCE) * FREQUENCY[PAIR])),
    )


def peak_steps() -> list[Step]:
    """The score at m − n = r is ‖q‖², and ‖q‖² minus the score elsewhere is a sum of nonnegative terms."""
    half, z = (M - N - DISTANCE) * FREQUENCY[PAIR] / 2, sp.Symbol("z", real=True)
    norm = Q[2 * PAIR] ** 2 + Q[2 * PAIR + 1] ** 2
    return [
        fact(
            r"m - n = r:\quad \sum_{i<K} \lVert q_i\rVert^2 \cos 0 = \sum_{i<K} \lVert q_i\rVert^2 = "
            r"\lVert q\rVert^2",
            r"every angle $(m - n - r)\theta_i$ is 0; the squared norm grouped by pairs",
            lambda: (
                sp.expand((norm * sp.cos((M - N - DISTANCE) * FREQUENCY[PAIR])).subs(M, N + DISTANCE) - norm)
                == 0
            ),
        ),
        fact(
            r"\lVert q\rVert^2 - \langle R_m q, R_n k\rangle = \sum_{i<K} \lVert q_i\rVert^2 "
            r"\bigl(1 - \cos((m-n-r)\theta_i)\bigr) = \sum_{i<K} 2\lVert q_i\rVert^2 "
            r"\sin^2\!\tfrac{(m-n-r)\theta_i}{2} \ge 0",
            r"$1 - \cos 2x = 2\sin^2 x$; each term is a product of squares of reals, so nonnegative (SymPy "
            r"decides the sign of the summand for a symbolic block index), and so is their sum: the score is "
            r"largest at $m - n = r$, over every real distance",
            lambda: (
                _vanishes(1 - sp.cos(2 * z) - 2 * sp.sin(z) ** 2)
                and (2 * norm * sp.sin(half) ** 2).is_nonnegative is True
            ),
        ),
    ]


def unique_peak_step() -> Step:
    """θ_0 = 1 for every base and d, and cos x = 1 at no nonzero integer x: with q_0 ≠ 0, block 0 alone makes
    ‖q‖² − score > 0 at every integer distance m − n ≠ r (r an integer)."""
    x = sp.Symbol("x", real=True)
    offset = sp.Symbol("j", integer=True, nonzero=True)
    d, base = sp.symbols("d b", positive=True)
    return fact(
        r"\theta_0 = 1,\ \ m - n - r \in \mathbb{Z}\setminus\{0\} \Rightarrow \cos(m-n-r) \ne 1:\quad "
        r"\lVert q_0\rVert^2 (1 - \cos(m - n - r)) > 0 \text{ for } q_0 \ne 0",
        r"$\theta_0 = \mathrm{base}^{0} = 1$ for symbolic $d$ and base; SymPy solves $\cos x = 1$ over the "
        r"reals as $2\pi\mathbb{Z}$ and decides that a symbolic nonzero integer is not in it ($\pi$ is "
        r"irrational): so the largest score over integer distances is at $m - n = r$ only",
        lambda: (
            frequency_expr(0, d, base) == 1
            and sp.solveset(sp.cos(x) - 1, x, sp.S.Reals).contains(offset) is sp.false
        ),
    )


@derivation(
    id="random_scores.score_peak_at_any_distance",
    title="A RoPE score can peak at any distance",
    statement=r"k = R_r q:\ \langle R_m q, R_n k\rangle = \sum_{i<K} \lVert q_i\rVert^2 "
    r"\cos((m-n-r)\theta_i) \le \lVert q\rVert^2, \text{ with equality at } m - n = r \text{ (and, for } "
    r"q_0 \ne 0 \text{, at no other integer distance)}",
    hypotheses=(
        r"$q \in \mathbb{R}^{2K}$ for a symbolic $K \ge 1$; the distance $r$, positions $m, n$, frequencies "
        r"$\theta_i$ and block indices symbolic; $\theta_0 = 1$ (RoPE's standard frequencies, every base).",
        r"Uniqueness among integer distances for an integer $r$ and a nonzero first block $q_0$.",
        r"The interleaved layout; the half-split score of $(q, k)$ is the interleaved score of $(Pq, Pk)$ "
        r"for a fixed permutation $P$, and $R^{\mathrm{half}}_r = P^\top R^{\mathrm{int}}_r P$.",
    ),
)
def score_peak_at_any_distance() -> list[Step]:
    return [entry_formula_step(), pair_sum_step(), aligned_score_step(), *peak_steps(), unique_peak_step()]
