"""RoPE as exact matrices: the relative-position property, orthogonality, composition, and the two layouts.

Interleaved layout (RoFormer, Meta's reference code): each pair (x_{2i}, x_{2i+1}) is rotated by m·θ_i.
Half-split layout (GPT-NeoX, Hugging Face `rotate_half`): each pair (x_i, x_{i+d/2}) is rotated by m·θ_i,
written out = x·cos + rotate_half(x)·sin with cos = cat(cos mθ, cos mθ) and rotate_half(x) = cat(−x2, x1).
Each map is `properties.rope.Rope(d, layout=...)` in its exact form `Rope.rotate_exact`, and every step below
takes Rope objects, so a broken twin is a Rope subclass overriding `rotate_exact`.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from ..properties.rope import Rope
from .derivation import Expr, Step, derivation, fact, identity, inequality, is_zero

M, N = sp.symbols("m n", real=True)


def rotation(angle: sp.Expr) -> sp.Matrix:
    """The 2×2 rotation by `angle`: (a, b) ↦ (a cos − b sin, a sin + b cos)."""
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def thetas(d: int) -> tuple[sp.Symbol, ...]:
    """Symbolic frequencies θ_0, …, θ_{d/2−1} (positive reals) for rotary dimension d."""
    return sp.symbols(f"theta_0:{_require_even(d) // 2}", positive=True)


def vector(name: str, d: int) -> sp.Matrix:
    """A symbolic real column vector (name_0, …, name_{d−1})."""
    return sp.Matrix(sp.symbols(f"{name}_0:{d}", real=True))


def rope_matrix(rope: Rope, m: sp.Expr, thetas: Sequence[sp.Expr]) -> sp.Matrix:
    """The d×d matrix R_m of a RoPE map: column j is the image of the basis vector e_j."""
    basis = sp.eye(rope.d)
    return sp.Matrix.hstack(*(rope.rotate_exact(basis[:, j], m, thetas) for j in range(rope.d)))


def half_split_permutation(d: int) -> sp.Matrix:
    """The permutation P with (Px)_{2i} = x_i, (Px)_{2i+1} = x_{i+d/2}: index i ↦ 2i, i + d/2 ↦ 2i + 1."""
    half = _require_even(d) // 2
    p = sp.zeros(d, d)
    for i in range(half):
        p[2 * i, i] = p[2 * i + 1, i + half] = 1
    return p


def score(
    rope_q: Rope, rope_k: Rope, q: sp.Matrix, k: sp.Matrix, m: sp.Expr, n: sp.Expr, thetas: Sequence[sp.Expr]
) -> sp.Expr:
    """The attention score ⟨R_m q, R_n k⟩ with q rotated by `rope_q` and k by `rope_k` (exact forms)."""
    return (rope_q.rotate_exact(q, m, thetas).T * rope_k.rotate_exact(k, n, thetas))[0]


def block_relative_step(sign: int = 1) -> Step:
    """R(mθ)ᵀ R(nθ) = R((n − m)θ) for one 2×2 block (`sign` = −1 builds the block rotated the other way)."""
    theta = sp.Symbol("theta", positive=True)
    lhs = rotation(sign * M * theta).T * rotation(sign * N * theta)
    return identity(
        lhs,
        rotation((N - M) * theta),
        "angle-subtraction formulas, entry by entry",
        claim=r"R(m\theta)^\top R(n\theta) = R((n-m)\theta)",
    )


def relative_matrix_step(rope: Rope) -> Step:
    """R_mᵀ R_n = R_{n−m} as d×d matrices, symbolic m, n, θ_i (so the score identity holds for any q, k)."""
    d, th = rope.d, thetas(rope.rotary_dim)
    lhs = rope_matrix(rope, M, th).T * rope_matrix(rope, N, th)
    return _polynomial_identity(
        lhs, rope_matrix(rope, N - M, th), _SUBTRACTION, claim=rf"R_m^\top R_n = R_{{n-m}} \quad (d = {d})"
    )


def relative_score_step(rope_q: Rope, rope_k: Rope) -> Step:
    """⟨R_m q, R_n k⟩ = ⟨q, R_{n−m} k⟩ for symbolic q, k ∈ ℝ^d, positions m, n and frequencies θ_i."""
    d = _same_dimension(rope_q, rope_k)
    q, k, th = vector("q", d), vector("k", d), thetas(rope_q.rotary_dim)
    lhs = score(rope_q, rope_k, q, k, M, N, th)
    rhs = (q.T * rope_k.rotate_exact(k, N - M, th))[0]
    claim = rf"\langle R_m q, R_n k\rangle = \langle q, R_{{n-m}} k\rangle \quad (d = {d})"
    return _polynomial_identity(lhs, rhs, _SUBTRACTION, claim=claim)


def orthogonality_step(rope: Rope) -> Step:
    """R_mᵀ R_m = I for symbolic m and θ_i."""
    d = rope.d
    r = rope_matrix(rope, M, thetas(rope.rotary_dim))
    return _pythagorean_identity(
        r.T * r,
        sp.eye(d),
        "each block gives cos² + sin² = 1; cross terms cancel",
        claim=rf"R_m^\top R_m = I_{{{d}}}",
    )


def norm_step(rope: Rope) -> Step:
    """‖R_m q‖² = ‖q‖² for a symbolic q ∈ ℝ^d."""
    d = rope.d
    q = vector("q", d)
    rotated = rope.rotate_exact(q, M, thetas(rope.rotary_dim))
    return _pythagorean_identity(
        (rotated.T * rotated)[0],
        (q.T * q)[0],
        "cos² + sin² = 1 in every pair",
        claim=rf"\lVert R_m q\rVert^2 = \lVert q\rVert^2 \quad (d = {d})",
    )


def composition_step(rope: Rope) -> Step:
    """R_m R_n = R_{m+n} for symbolic m, n, θ_i."""
    d, th = rope.d, thetas(rope.rotary_dim)
    lhs = rope_matrix(rope, M, th) * rope_matrix(rope, N, th)
    return _polynomial_identity(
        lhs,
        rope_matrix(rope, M + N, th),
        "split cos(m+n)θ_i, sin(m+n)θ_i by the angle-addition formulas; both sides "
        "are then the same polynomial in cos mθ_i, sin mθ_i, cos nθ_i, sin nθ_i",
        claim=rf"R_m R_n = R_{{m+n}} \quad (d = {d})",
    )


def permutation_step(p: sp.Matrix, d: int) -> Step:
    """The half-split matrix equals Pᵀ R_m P with R_m the interleaved matrix."""
    th = thetas(d)
    lhs = rope_matrix(Rope(d, layout="half_split"), M, th)
    rhs = p.T * rope_matrix(Rope(d, layout="interleaved"), M, th) * p
    return identity(
        lhs,
        rhs,
        f"P moves (x_i, x_{{i+d/2}}) to positions (2i, 2i+1): {_describe(p)}",
        claim=rf"R^{{\mathrm{{half}}}}_m = P^\top R^{{\mathrm{{int}}}}_m P \quad (d = {d})",
    )


def permutation_is_orthogonal_step(p: sp.Matrix) -> Step:
    """PᵀP = I for a 0/1 matrix P: each column has exactly one 1 and no two columns share a row."""
    return identity(
        p.T * p,
        sp.eye(p.rows),
        "P has one 1 in each row and in each column",
        claim=rf"P^\top P = I_{{{p.rows}}}",
    )


def shifted_scores_differ_step(
    rope_q: Rope,
    rope_k: Rope,
    q: sp.Matrix,
    k: sp.Matrix,
    m: int,
    n: int,
    cos_sin: Sequence[tuple[sp.Rational, sp.Rational]],
) -> Step:
    """s(m, n) ≠ s(m+1, n+1) exactly, for frequencies θ_i with cos θ_i, sin θ_i the given rationals."""
    th = thetas(2 * len(cos_sin))
    before = _at_rational_angles(score(rope_q, rope_k, q, k, m, n, th), th, cos_sin)
    after = _at_rational_angles(score(rope_q, rope_k, q, k, m + 1, n + 1, th), th, cos_sin)
    return inequality(
        before,
        after,
        "expand cos(jθ), sin(jθ) into powers of cos θ, sin θ and substitute the "
        "rationals; both scores are then rational numbers",
        claim=rf"s({m},{n}) = {sp.latex(before)} \neq {sp.latex(after)} = s({m + 1},{n + 1})",
    )


def unit_circle_step(cos_sin: Sequence[tuple[sp.Rational, sp.Rational]]) -> Step:
    """Each (cos θ_i, sin θ_i) pair lies on the unit circle, so such angles θ_i exist."""
    lhs = sp.Matrix([c**2 + s**2 for c, s in cos_sin])
    return identity(
        lhs,
        sp.ones(len(cos_sin), 1),
        "Pythagorean triples: each pair (c, s) is (cos θ_i, sin θ_i) for θ_i = atan2(s, c)",
        claim=r"\cos^2\theta_i + \sin^2\theta_i = 1 \text{ for } "
        + ", ".join(rf"({sp.latex(c)}, {sp.latex(s)})" for c, s in cos_sin),
    )


def _expand_angles(expr: Expr) -> Expr:
    """Expand products and split cos/sin of sums of angles, entrywise: exact rewriting, nothing dropped."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(_expand_angles)
    return sp.expand(sp.expand_trig(sp.expand(expr)))


_SUBTRACTION = (
    "split cos(n−m)θ_i, sin(n−m)θ_i by the angle-subtraction formulas; both sides are then the "
    "same polynomial in cos mθ_i, sin mθ_i, cos nθ_i, sin nθ_i"
)


def _polynomial_identity(lhs: Expr, rhs: Expr, justification: str, claim: str) -> Step:
    """lhs = rhs as a polynomial identity in the cosines and sines of the angles mθ_i, nθ_i, … (each taken as
    an independent variable) after splitting angle sums. This is stronger than the trigonometric identity, and
    decided completely: an expanded polynomial is zero exactly when every coefficient is."""
    return fact(claim, justification, lambda: _is_zero_polynomial(_expand_angles(lhs - rhs)))


def _is_zero_polynomial(expr: Expr) -> bool:
    if isinstance(expr, sp.MatrixBase):
        return all(_is_zero_polynomial(entry) for entry in expr)
    variables = {atom: sp.Dummy(str(atom), real=True) for atom in expr.atoms(sp.cos, sp.sin)}
    return sp.expand(expr.xreplace(variables)) == 0


def _pythagorean_identity(lhs: Expr, rhs: Expr, justification: str, claim: str) -> Step:
    """lhs = rhs after expanding and replacing every sin²(a) by 1 − cos²(a): an exact rewriting."""
    return fact(claim, justification, lambda: is_zero(_without_sine_squares(lhs - rhs)))


def _without_sine_squares(expr: Expr) -> Expr:
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(_without_sine_squares)
    expr = sp.expand(expr)
    squares = {sine**2: 1 - sp.cos(sine.args[0]) ** 2 for sine in expr.atoms(sp.sin)}
    return sp.expand(expr.subs(squares))


def _at_rational_angles(
    expr: sp.Expr, th: Sequence[sp.Symbol], cos_sin: Sequence[tuple[sp.Rational, sp.Rational]]
) -> sp.Expr:
    values = {}
    for theta, (c, s) in zip(th, cos_sin, strict=True):
        values[sp.cos(theta)], values[sp.sin(theta)] = c, s
    return sp.expand(sp.expand_trig(expr).subs(values))


def _describe(p: sp.Matrix) -> str:
    """Where P sends each index: "j→r" when (Px)_r = x_j."""
    return ", ".join(f"{j}→{r}" for r in range(p.rows) for j in range(p.cols) if p[r, j] == 1)


def _require_even(d: object) -> int:
    if isinstance(d, bool) or not isinstance(d, int) or d <= 0 or d % 2:
        raise ValueError(f"the rotary dimension d must be a positive even integer (pairs rotate), got {d!r}")
    return d


def _same_dimension(rope_q: Rope, rope_k: Rope) -> int:
    if (rope_q.d, rope_q.rotary_dim) != (rope_k.d, rope_k.rotary_dim):
        raise ValueError(
            f"q and k must be rotated in the same dimensions, got d = {rope_q.d} "
            f"(r = {rope_q.rotary_dim}) and d = {rope_k.d} (r = {rope_k.rotary_dim})"
        )
    return rope_q.d


#: The two layouts, by the name the derivations use, as their `properties.rope` layout.
LAYOUTS: dict[str, str] = {"interleaved": "interleaved", "half-split": "half_split"}


def _relative_steps(layout: str) -> list[Step]:
    ropes = {d: Rope(d, layout=layout) for d in (2, 4, 6)}
    return [relative_score_step(ropes[d], ropes[d]) for d in (2, 4, 6)] + [relative_matrix_step(ropes[4])]


@derivation(
    id="rope.relative_interleaved",
    title="RoPE scores depend only on the offset (interleaved layout)",
    statement=r"\langle R_m q, R_n k\rangle = \langle q, R_{n-m} k\rangle",
    hypotheses=(
        r"Interleaved layout: $R_m$ rotates $(x_{2i}, x_{2i+1})$ by $m\theta_i$.",
        r"$m, n$ real; $\theta_i > 0$, $q, k$ symbolic.",
        r"The score is a sum over independent 2×2 blocks, so the one-block case with symbolic $\theta$ gives "
        r"every even $d$; $d = 4, 6$ check the assembled matrices.",
    ),
)
def relative_interleaved() -> list[Step]:
    return [block_relative_step(), *_relative_steps("interleaved")]


@derivation(
    id="rope.relative_half_split",
    title="RoPE scores depend only on the offset (half-split layout)",
    statement=r"\langle R_m q, R_n k\rangle = \langle q, R_{n-m} k\rangle",
    hypotheses=(
        r"Half-split layout: $R_m x = x \odot \cos + \mathrm{rotate\_half}(x) \odot \sin$, which rotates "
        r"$(x_i, x_{i+d/2})$ by $m\theta_i$.",
        r"$m, n$ real; $\theta_i > 0$, $q, k$ symbolic.",
        r"Every even $d$ follows from the one-block case because the half-split map is the interleaved one "
        r"conjugated by a permutation (`rope.half_split_permutation`); $d = 4, 6$ are checked directly.",
    ),
)
def relative_half_split() -> list[Step]:
    return [block_relative_step(), *_relative_steps("half_split")]


@derivation(
    id="rope.orthogonal",
    title="RoPE matrices are orthogonal, so they keep norms",
    statement=r"R_m^\top R_m = I, \qquad \lVert R_m q\rVert = \lVert q\rVert",
    hypotheses=(r"Both layouts; $m$ real, $\theta_i > 0$ symbolic; $d = 2, 4, 6$.",),
)
def orthogonal() -> list[Step]:
    steps = [orthogonality_step(Rope(d, layout=layout)) for layout in LAYOUTS.values() for d in (2, 4, 6)]
    return steps + [norm_step(Rope(4, layout=layout)) for layout in LAYOUTS.values()]


@derivation(
    id="rope.composition",
    title="Rotating by m and then by n is rotating by m + n",
    statement=r"R_m R_n = R_{m+n}",
    hypotheses=(r"Both layouts; $m, n$ real, $\theta_i > 0$ symbolic; $d = 2, 4, 6$.",),
)
def composition() -> list[Step]:
    return [composition_step(Rope(d, layout=layout)) for layout in LAYOUTS.values() for d in (2, 4, 6)]


@derivation(
    id="rope.half_split_permutation",
    title="The half-split layout is the interleaved one with permuted coordinates",
    statement=r"R^{\mathrm{half}}_m = P^\top R^{\mathrm{int}}_m P, \quad "
    r"(Px)_{2i} = x_i,\ (Px)_{2i+1} = x_{i+d/2}",
    hypotheses=(
        r"$P$ sends index $i$ to $2i$ and index $i + d/2$ to $2i + 1$ ($0 \le i < d/2$).",
        r"Both layouts use the same frequencies $\theta_i$; $m$ real; $d = 4, 6, 8$.",
    ),
)
def half_split_is_permuted_interleaved() -> list[Step]:
    steps = []
    for d in (4, 6, 8):
        p = half_split_permutation(d)
        steps += [permutation_is_orthogonal_step(p), permutation_step(p, d)]
    return steps


PYTHAGOREAN = ((sp.Rational(3, 5), sp.Rational(4, 5)), (sp.Rational(5, 13), sp.Rational(12, 13)))
MIXED_Q = sp.Matrix([1, 2, 0, -1])
MIXED_K = sp.Matrix([2, -1, 1, 3])


def standard_frequency_steps() -> list[Step]:
    """With θ_0 = 1 (every base) and q = k = e_0 the mixed score is cos m·cos n, and s(0,0) ≠ s(1,1)."""
    th, e0 = thetas(4), sp.Matrix([1, 0, 0, 0])
    theta = th[0]
    return [
        identity(
            score(Rope(4), Rope(4, layout="half_split"), e0, e0, M, N, th),
            sp.cos(M * theta) * sp.cos(N * theta),
            "interleaved R_m e_0 = (cos mθ_0, sin mθ_0, 0, 0); "
            "half-split R_n e_0 = (cos nθ_0, 0, sin nθ_0, 0)",
            claim=r"s(m, n) = \langle R^{\mathrm{int}}_m e_0, R^{\mathrm{half}}_n e_0\rangle = "
            r"\cos m\theta_0 \cos n\theta_0",
        ),
        identity(
            1 - sp.cos(theta) ** 2,
            (1 - sp.cos(2 * theta)) / 2,
            "double-angle formula",
            claim=r"s(0,0) - s(1,1) = 1 - \cos^2\theta_0 = \tfrac12 (1 - \cos 2\theta_0)",
        ),
        fact(
            r"\cos 2 \neq 1, \text{ so for } \theta_0 = 1:\ s(0,0) \neq s(1,1)",
            r"SymPy solves $\cos x = 1$ over the reals as $2\pi\mathbb{Z}$ and decides "
            r"$2 \notin 2\pi\mathbb{Z}$ because $\pi$ is irrational; "
            r"$\theta_0 = \mathrm{base}^0 = 1$ for every base",
            _two_is_not_in_2pi_z,
        ),
    ]


def _two_is_not_in_2pi_z() -> bool:
    x = sp.Symbol("x", real=True)
    return sp.solveset(sp.cos(x) - 1, x, sp.S.Reals).contains(sp.Integer(2)) is sp.false


@derivation(
    id="rope.mixed_layouts_break_relative",
    title="Rotating q in one layout and k in the other is not relative",
    statement=r"\langle R^{\mathrm{int}}_m q, R^{\mathrm{half}}_n k\rangle"
    r" \text{ is not a function of } n - m",
    hypotheses=(
        r"$d = 4$; $q$ rotated by the interleaved map, $k$ by the half-split map, both with the same "
        r"$\theta_0, \theta_1$.",
        r"First counterexample: angles with rational $(\cos\theta_i, \sin\theta_i) = "
        + r",\ ".join(rf"({c}, {s})" for c, s in PYTHAGOREAN)
        + rf"$, $q = {tuple(MIXED_Q)}$, $k = {tuple(MIXED_K)}$, positions $(1, 2)$ and $(2, 3)$.",
        r"Second counterexample: the standard frequency $\theta_0 = 1$, $q = k = e_0$, positions $(0, 0)$ "
        r"and $(1, 1)$.",
    ),
)
def mixed_layouts_break_relative() -> list[Step]:
    mixed = shifted_scores_differ_step(
        Rope(4), Rope(4, layout="half_split"), MIXED_Q, MIXED_K, 1, 2, PYTHAGOREAN
    )
    return [unit_circle_step(PYTHAGOREAN), mixed, *standard_frequency_steps()]
