"""RoPE as exact matrices: the relative-position property, orthogonality, composition, and the two layouts.

Interleaved layout (RoFormer, Meta's reference code): each pair (x_{2i}, x_{2i+1}) is rotated by m·θ_i.
Half-split layout (GPT-NeoX, Hugging Face `rotate_half`): each pair (x_i, x_{i+d/2}) is rotated by m·θ_i,
written out = x·cos + rotate_half(x)·sin with cos = cat(cos mθ, cos mθ) and rotate_half(x) = cat(−x2, x1).
Each map is `properties.encodings.rope.Rope(d, layout=...)` in its exact form `Rope.rotate_exact`, and every
step below takes Rope objects, so a broken twin is a Rope subclass overriding `rotate_exact`.

For every even rotary dimension r at once, each entry of either map is also written as a function of a
symbolic index (pair ⌊j/2⌋ or j mod r/2), with r/2 a symbolic integer; those formulas are checked against
`Rope.rotate_exact` on small r and then carry the layout permutation and the mixed-layout counterexample to
every r. With d = 2K for a symbolic K, the interleaved matrix is block-diagonal, so its Gram matrix and the
squared norm it keeps are SymPy sums over the K blocks (regrouped by pairs, a lemma proved by induction on K),
and its composition holds pair by pair; the half-split matrix PᵀR^int P inherits both by symbolic-matrix
algebra. The Abel summation behind RoFormer's long-term decay bound is proved by induction on the number of
terms (and checked term by term for up to 8).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sympy as sp

from pe_verify.properties.encodings.rope import Rope, layout_permutation

from .derivation import Expr, Step, derivation, fact, identity, implementation_link, inequality, is_zero

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


# ---------------------------------------------------------------------- every even rotary dimension at once

#: A pair index i and the half r/2 of a symbolic rotary dimension r, written h = i + 1 + u with u ≥ 0, so
#: that every statement about the pair index i holds for every i < r/2 and every even r it fits in.
PAIR, SLACK = sp.symbols("i u", integer=True, nonnegative=True)
HALF = PAIR + 1 + SLACK
X = sp.IndexedBase("x", real=True)
FREQUENCY = sp.IndexedBase("theta", positive=True)
Entries = Callable[[sp.Expr], sp.Expr]


def _x(j: sp.Expr) -> sp.Expr:
    return X[j]


def interleaved_entry(x: Entries, j: sp.Expr, m: sp.Expr) -> sp.Expr:
    """Entry j of R^int_m x for a symbolic index j: pair ⌊j/2⌋ turns by mθ_{⌊j/2⌋}; the partner of j is
    j + 1 when j is even (entry a cos − b sin) and j − 1 when j is odd (entry b cos + a sin)."""
    odd = sp.Mod(j, 2)
    angle = m * FREQUENCY[sp.floor(j / 2)]
    return x(j) * sp.cos(angle) + (2 * odd - 1) * x(j + 1 - 2 * odd) * sp.sin(angle)


def half_split_entry(x: Entries, j: sp.Expr, m: sp.Expr, half: sp.Expr) -> sp.Expr:
    """Entry j of x·cat(cos mθ, cos mθ) + rotate_half(x)·cat(sin mθ, sin mθ) with r/2 = `half`, for a symbolic
    index j: rotate_half(x)_j is −x_{j+r/2} for j < r/2 and x_{j−r/2} otherwise."""
    first = j < half
    angle = m * FREQUENCY[sp.Piecewise((j, first), (j - half, True))]
    turned = sp.Piecewise((-x(j + half), first), (x(j - half), True))
    return x(j) * sp.cos(angle) + turned * sp.sin(angle)


def permuted_index(j: sp.Expr, half: sp.Expr) -> sp.Expr:
    """perm(j) = ⌊j/2⌋ + (r/2)·(j mod 2), so (Px)_j = x_{perm(j)}: perm(2i) = i, perm(2i + 1) = i + r/2."""
    return sp.floor(j / 2) + half * sp.Mod(j, 2)


def unpermuted_index(j: sp.Expr, half: sp.Expr) -> sp.Expr:
    """σ(j) = 2j for j < r/2 and 2(j − r/2) + 1 otherwise: the slot P moves coordinate j to, so
    (Pᵀy)_j = y_{σ(j)}."""
    return sp.Piecewise((2 * j, j < half), (2 * (j - half) + 1, True))


def _is_zero_expansion(expr: Expr) -> bool:
    """Whether `expr` (every entry of a matrix) expands to 0 exactly."""
    if isinstance(expr, sp.MatrixBase):
        return all(_is_zero_expansion(entry) for entry in expr)
    return sp.expand(expr) == 0


def index_map_steps() -> list[Step]:
    """perm and σ are inverse maps of {0, …, r − 1} for symbolic r = 2h, and perm is `layout_permutation`."""
    i, h = PAIR, HALF
    slots = sp.Matrix([permuted_index(2 * i, h), permuted_index(2 * i + 1, h)])
    there_and_back = sp.Matrix(
        [unpermuted_index(permuted_index(j, h), h) - j for j in (2 * i, 2 * i + 1)]
        + [permuted_index(unpermuted_index(j, h), h) - j for j in (i, i + h)]
    )
    return [
        identity(
            slots,
            sp.Matrix([i, i + h]),
            r"$\lfloor 2i/2\rfloor = \lfloor (2i+1)/2\rfloor = i$ and $(2i) \bmod 2 = 0$, "
            r"$(2i+1) \bmod 2 = 1$ for a symbolic integer $i$",
            claim=r"\mathrm{perm}(2i) = i,\quad \mathrm{perm}(2i+1) = i + r/2",
        ),
        fact(
            r"\sigma(\mathrm{perm}(j)) = j \ (j = 2i, 2i+1),\qquad \mathrm{perm}(\sigma(j)) = j \ "
            r"(j = i, i + r/2)",
            r"symbolic $i$ and $r/2 = i + 1 + u$ ($u \ge 0$), so $i < r/2 \le i + r/2$ decides each branch; "
            r"every $j < r$ is $2i$ or $2i+1$ and also $i$ or $i + r/2$ for some $i < r/2$, so perm is a "
            r"permutation of $\{0, \dots, r-1\}$ with inverse $\sigma$",
            lambda: _is_zero_expansion(there_and_back),
        ),
        implementation_link(
            r"\mathrm{perm}(j) = \texttt{layout\_permutation}(r)[j] \quad (r = 2, 4, \dots, 16)",
            "the index formula is the permutation the float64 checks use",
            lambda: all(
                [permuted_index(sp.Integer(j), sp.Integer(r // 2)) for j in range(r)]
                == [int(value) for value in layout_permutation(r)]
                for r in range(2, 17, 2)
            ),
            "r = 2, 4, …, 16",
        ),
    ]


def entry_formula_step(rope_type: type[Rope] = Rope) -> Step:
    """The symbolic-index entry formulas are `rope_type(r, layout).rotate_exact` of both layouts for r = 2, 4,
    6, 8 (a Rope subclass that rotates differently fails)."""

    def formula(layout: str, r: int) -> sp.Matrix:
        half = sp.Integer(r // 2)
        if layout == "interleaved":
            return sp.Matrix([interleaved_entry(_x, sp.Integer(j), M) for j in range(r)])
        return sp.Matrix([half_split_entry(_x, sp.Integer(j), M, half) for j in range(r)])

    def agrees() -> bool:
        for r in (2, 4, 6, 8):
            x, th = sp.Matrix([X[j] for j in range(r)]), [FREQUENCY[i] for i in range(r // 2)]
            for layout in LAYOUTS.values():
                if not _is_zero_expansion(
                    rope_type(r, layout=layout).rotate_exact(x, M, th) - formula(layout, r)
                ):
                    return False
        return True

    return implementation_link(
        r"(R^{\mathrm{int}}_m x)_j,\ (R^{\mathrm{half}}_m x)_j \text{ as written for symbolic } j "
        r"\text{ are } \texttt{Rope.rotate\_exact} \quad (r = 2, 4, 6, 8)",
        "the index formulas, evaluated at every index, reproduce the implementation's exact maps",
        agrees,
        "r = 2, 4, 6, 8",
    )


def block_steps() -> list[Step]:
    """Each layout turns its pair i, (x_i, x_{i+r/2}) or (y_{2i}, y_{2i+1}), by the 2×2 rotation R(mθ_i)."""
    i, h = PAIR, HALF
    turn = rotation(M * FREQUENCY[i])
    return [
        identity(
            sp.Matrix([half_split_entry(_x, i, M, h), half_split_entry(_x, i + h, M, h)]),
            turn * sp.Matrix([X[i], X[i + h]]),
            r"the branches $i < r/2$ and $i + r/2 \ge r/2$ of the half-split formula, symbolic $i < r/2$",
            claim=r"\bigl((R^{\mathrm{half}}_m x)_i, (R^{\mathrm{half}}_m x)_{i+r/2}\bigr) = "
            r"R(m\theta_i)\,(x_i, x_{i+r/2})",
        ),
        identity(
            sp.Matrix([interleaved_entry(_x, 2 * i, M), interleaved_entry(_x, 2 * i + 1, M)]),
            turn * sp.Matrix([X[2 * i], X[2 * i + 1]]),
            r"the even and odd branches of the interleaved formula, symbolic $i$",
            claim=r"\bigl((R^{\mathrm{int}}_m y)_{2i}, (R^{\mathrm{int}}_m y)_{2i+1}\bigr) = "
            r"R(m\theta_i)\,(y_{2i}, y_{2i+1})",
        ),
    ]


def conjugation_step(interleaved: Callable[[Entries, sp.Expr, sp.Expr], sp.Expr] = interleaved_entry) -> Step:
    """(Pᵀ R^int_m P x)_j = (R^half_m x)_j at j = i and j = i + r/2 for symbolic i < r/2 (`interleaved` builds
    the interleaved entries; a broken one fails)."""
    i, h = PAIR, HALF

    def moved(j: sp.Expr) -> sp.Expr:
        return X[permuted_index(j, h)]

    lhs = sp.Matrix([interleaved(moved, unpermuted_index(j, h), M) for j in (i, i + h)])
    rhs = sp.Matrix([half_split_entry(_x, j, M, h) for j in (i, i + h)])
    return identity(
        lhs,
        rhs,
        r"$(P^\top z)_j = z_{\sigma(j)}$ and $(Px)_l = x_{\mathrm{perm}(l)}$: slot $\sigma(i) = 2i$ holds "
        r"$x_i$ and slot $\sigma(i + r/2) = 2i + 1$ holds $x_{i+r/2}$, both turned by $m\theta_i$; every "
        r"$j < r$ is $i$ or $i + r/2$",
        claim=r"(P^\top R^{\mathrm{int}}_m P x)_j = (R^{\mathrm{half}}_m x)_j \quad "
        r"(j = i,\ i + r/2;\ \text{every even } r)",
    )


# ------------------------------------------------ orthogonality and composition for every d = 2K at once

#: The number K of 2×2 blocks of the rotary dimension d = 2K: a symbolic positive integer.
BLOCKS = sp.Symbol("K", integer=True, positive=True)
#: Matrix indices: row k, columns j and l (symbolic nonnegative integers).
ROW = sp.Symbol("k", integer=True, nonnegative=True)
COLUMN, OTHER = sp.symbols("j l", integer=True, nonnegative=True)
SEQUENCE = sp.IndexedBase("f")
Interleaved = Callable[[Entries, sp.Expr, sp.Expr], sp.Expr]
Block = Callable[[sp.Expr], sp.Matrix]


def _basis(j: sp.Expr) -> Entries:
    """The basis vector e_j as entries: (e_j)_k = δ_{kj}."""
    return lambda k: sp.KroneckerDelta(k, j)


def _sums(expr: Expr) -> set[sp.Sum]:
    return set(sp.sympify(expr).atoms(sp.Sum))


def _by_induction(lhs: Expr, rhs: Expr, n: sp.Symbol, base: int, given: dict | None = None) -> bool:
    """lhs(n) = rhs(n) for every integer n ≥ `base`: at n = `base` (with the substitutions `given`) and
    lhs(n+1) − lhs(n) = rhs(n+1) − rhs(n), by SymPy's `difference_delta`. The difference of a sum is its new
    terms only for a single sum whose summand and lower limit do not depend on n, so any other sum fails the
    check."""
    given = given or {}
    for total in _sums(lhs) | _sums(rhs):
        (_, lower, _), *others = total.limits
        if others or n in total.function.free_symbols | lower.free_symbols:
            return False
    at_base = (sp.sympify(lhs) - rhs).subs(n, base).doit().subs(given)
    step = sp.difference_delta(lhs, n) - sp.difference_delta(rhs, n)
    return _is_zero_expansion(at_base) and not _sums(step) and _is_zero_expansion(step)


def _sums_agree(lhs: sp.Expr, rhs: sp.Expr) -> bool:
    """Two sums over a symbolic number of blocks agree: SymPy merges them into one sum and reduces its
    summand to 0 for a symbolic block index."""
    return sp.simplify(lhs - rhs) == 0


def block_orthogonal_step(block: Block = rotation) -> Step:
    """R(θ)ᵀR(θ) = I₂ for one 2×2 block with a symbolic angle θ (`block` builds the block; a block with a
    wrong sign or scale fails)."""
    theta = sp.Symbol("theta", real=True)
    turn = block(theta)
    return _pythagorean_identity(
        turn.T * turn,
        sp.eye(2),
        r"$\cos^2\theta + \sin^2\theta = 1$ on the diagonal; $\cos\theta\sin\theta$ cancels off it",
        claim=r"R(\theta)^\top R(\theta) = I_2",
    )


def block_composition_step(block: Block = rotation, total: sp.Expr = M + N) -> Step:
    """R(mθ)R(nθ) = R(`total`·θ) for one 2×2 block, symbolic m, n, θ (a wrong total, e.g. m − n, fails)."""
    theta = sp.Symbol("theta", positive=True)
    return _polynomial_identity(
        block(M * theta) * block(N * theta),
        block(total * theta),
        "angle-addition formulas, entry by entry",
        claim=rf"R(m\theta)\,R(n\theta) = R(({sp.latex(total)})\theta)",
    )


def pair_sum_step(pairs: Callable[[sp.Expr], sp.Expr] | None = None) -> Step:
    """Σ_{k<2K} f_k = Σ_{i<K} (f_{2i} + f_{2i+1}) for every sequence f and every K ≥ 1, by induction on K
    (`pairs` builds the summand of block i; a wrong grouping fails)."""
    f, i, k, blocks = SEQUENCE, PAIR, ROW, BLOCKS
    block = pairs or (lambda i: f[2 * i] + f[2 * i + 1])
    lhs = sp.Sum(f[k], (k, 0, 2 * blocks - 1))
    rhs = sp.Sum(block(i), (i, 0, blocks - 1))
    return fact(
        r"\sum_{k<2K} f_k = \sum_{i<K} \bigl(f_{2i} + f_{2i+1}\bigr) \quad (\text{every } K \ge 1)",
        r"induction on $K$: both sides are $f_0 + f_1$ at $K = 1$, and going from $K$ to $K + 1$ adds "
        r"$f_{2K} + f_{2K+1}$ to each (SymPy's difference of the sums); the coordinates of "
        r"$\mathbb{R}^{2K}$ fall into the $K$ pairs $(2i, 2i+1)$",
        lambda: _by_induction(lhs, rhs, blocks, 1),
    )


def interleaved_gram_step(interleaved: Interleaved = interleaved_entry) -> Step:
    """(R_mᵀR_m)_{jl} = Σ_{i<K} (R_{2i,j}R_{2i,l} + R_{2i+1,j}R_{2i+1,l}) = Σ_{i<K} (δ_{2i,j}δ_{2i,l} +
    δ_{2i+1,j}δ_{2i+1,l}) for symbolic K, i, j, l, with R_{kj} = (R_m e_j)_k built by `interleaved`."""
    i = PAIR

    def gram(entry_j: Entries, entry_l: Entries) -> sp.Expr:
        return sp.Sum(sum(entry_j(k) * entry_l(k) for k in (2 * i, 2 * i + 1)), (i, 0, BLOCKS - 1))

    def column(j: sp.Expr) -> Entries:
        return lambda k: interleaved(_basis(j), k, M)

    return fact(
        r"(R_m^\top R_m)_{jl} = \sum_{i<K} \bigl(R_{2i,j}R_{2i,l} + R_{2i+1,j}R_{2i+1,l}\bigr) = "
        r"\sum_{i<K} \bigl(\delta_{2i,j}\delta_{2i,l} + \delta_{2i+1,j}\delta_{2i+1,l}\bigr)",
        r"$(R^\top R)_{jl} = \sum_{k<2K} R_{kj}R_{kl}$ grouped by pairs (the step above, "
        r"$f_k = R_{kj}R_{kl}$); column $j$ is $R_m e_j$, whose pair $i$ is $R(m\theta_i)(\delta_{2i,j}, "
        r"\delta_{2i+1,j})$, and $R(m\theta_i)^\top R(m\theta_i) = I_2$ turns each pair's product into "
        r"$\delta_{2i,j}\delta_{2i,l} + \delta_{2i+1,j}\delta_{2i+1,l}$; SymPy merges the two sums over "
        r"symbolic $K$ and reduces the summand for a symbolic block $i$ and symbolic $j, l$",
        lambda: _sums_agree(gram(column(COLUMN), column(OTHER)), gram(_basis(COLUMN), _basis(OTHER))),
    )


def delta_sum_step() -> Step:
    """Σ_{k<2K} δ_{kj}δ_{kl} = δ_{jl} for 0 ≤ j < 2K, written j = 2K − 1 − u with u ≥ 0."""
    j, k = COLUMN, ROW
    total = sp.Sum(sp.KroneckerDelta(k, j) * sp.KroneckerDelta(k, OTHER), (k, 0, 2 * BLOCKS - 1))
    last = 2 * BLOCKS - 1 - SLACK
    return fact(
        r"\sum_{i<K} \bigl(\delta_{2i,j}\delta_{2i,l} + \delta_{2i+1,j}\delta_{2i+1,l}\bigr) = "
        r"\sum_{k<2K} \delta_{kj}\delta_{kl} = \delta_{jl}, \text{ so } R_m^\top R_m = I_{2K}",
        r"the pair grouping again ($f_k = \delta_{kj}\delta_{kl}$); SymPy sums the Kronecker deltas over "
        r"$k < 2K$ for a column $j = 2K - 1 - u$ ($u \ge 0$), that is any $j < 2K$",
        lambda: _is_zero_expansion(total.doit().subs(j, last) - sp.KroneckerDelta(last, OTHER)),
    )


def interleaved_norm_step(interleaved: Interleaved = interleaved_entry) -> Step:
    """‖R_m x‖² = Σ_{i<K} ((R_m x)_{2i}² + (R_m x)_{2i+1}²) = Σ_{i<K} (x_{2i}² + x_{2i+1}²) = ‖x‖² for a
    symbolic x ∈ ℝ^{2K} and symbolic K (`interleaved` builds the entries)."""
    i = PAIR
    pairs = (2 * i, 2 * i + 1)
    rotated = sp.Sum(sum(interleaved(_x, j, M) ** 2 for j in pairs), (i, 0, BLOCKS - 1))
    kept = sp.Sum(sum(X[j] ** 2 for j in pairs), (i, 0, BLOCKS - 1))
    return fact(
        r"\lVert R_m x\rVert^2 = \sum_{i<K} \bigl((R_m x)_{2i}^2 + (R_m x)_{2i+1}^2\bigr) = "
        r"\sum_{i<K} \bigl(x_{2i}^2 + x_{2i+1}^2\bigr) = \lVert x\rVert^2 \quad (d = 2K)",
        r"both squared norms grouped by pairs (the pair step, $f_k = (R_m x)_k^2$ and $f_k = x_k^2$); "
        r"each block keeps its pair's norm ($\cos^2 + \sin^2 = 1$); SymPy merges the sums over symbolic $K$ "
        r"and reduces the summand for a symbolic block $i$",
        lambda: _sums_agree(rotated, kept),
    )


def interleaved_composition_step(
    interleaved: Interleaved = interleaved_entry, total: sp.Expr = M + N
) -> Step:
    """(R_m R_n x)_j = (R_{total} x)_j at j = 2i, 2i + 1 for a symbolic pair index i (so for every K), x
    symbolic; `interleaved` builds the entries (a wrong total, e.g. m − n, fails)."""
    i = PAIR

    def turned(j: sp.Expr) -> sp.Expr:
        return interleaved(_x, j, N)

    lhs = sp.Matrix([interleaved(turned, j, M) for j in (2 * i, 2 * i + 1)])
    rhs = sp.Matrix([interleaved(_x, j, total) for j in (2 * i, 2 * i + 1)])
    return _polynomial_identity(
        lhs,
        rhs,
        r"pair $i$ of $R_n x$ is $R(n\theta_i)(x_{2i}, x_{2i+1})$ and $R_m$ turns it by $R(m\theta_i)$: "
        r"the block identity with symbolic $i$ (angle-addition formulas); every row $j < 2K$ is $2i$ or "
        r"$2i+1$ and $x$ is arbitrary (columns $x = e_j$), so the matrices agree",
        claim=rf"(R_m R_n x)_j = (R_{{{sp.latex(total)}}} x)_j \quad (j = 2i, 2i+1;\ \text{{every }} d = 2K)",
    )


#: Symbolic 2K×2K matrices for the half-split layout: P the layout permutation, R the interleaved matrices.
SIZE = 2 * BLOCKS
PERMUTATION = sp.MatrixSymbol("P", SIZE, SIZE)
TURN, TURN_M, TURN_N, TURN_SUM = (
    sp.MatrixSymbol(name, SIZE, SIZE) for name in ("R", "R_m", "R_n", "R_{m+n}")
)
Rules = Sequence[tuple[sp.MatrixExpr, sp.MatrixExpr]]


def _rewrite(expr: sp.MatrixExpr, rules: Rules) -> sp.MatrixExpr:
    """Replace each left side of `rules` by its right side in the product `expr` until nothing changes."""
    while True:
        rewritten = expr
        for old, new in rules:
            rewritten = rewritten.subs(old, new).doit()
        if rewritten == expr:
            return expr
        expr = rewritten


def conjugate_orthogonal_step(rules: Rules | None = None) -> Step:
    """(PᵀRP)ᵀ(PᵀRP) = I and ‖PᵀRPx‖² = xᵀx for symbolic 2K×2K matrices, rewritten by `rules` (default
    PPᵀ = I, RᵀR = I, PᵀP = I); leaving one out or a wrong one fails."""
    p, r, identity_matrix = PERMUTATION, TURN, sp.Identity(SIZE)
    x = sp.MatrixSymbol("x", SIZE, 1)
    if rules is None:
        rules = ((p * p.T, identity_matrix), (r.T * r, identity_matrix), (p.T * p, identity_matrix))
    half = p.T * r * p
    return fact(
        r"R^{\mathrm{half}}_m = P^\top R_m P:\quad (R^{\mathrm{half}}_m)^\top R^{\mathrm{half}}_m = "
        r"P^\top R_m^\top (P P^\top) R_m P = I,\quad \lVert R^{\mathrm{half}}_m x\rVert^2 = x^\top x",
        r"symbolic $2K \times 2K$ matrices: $P$ is a permutation matrix ($\mathrm{perm}$ and $\sigma$ are "
        r"inverse maps), so $P^\top P = P P^\top = I$, and $R_m^\top R_m = I$ for the interleaved matrix; "
        r"SymPy transposes the product and applies these three rules",
        lambda: (
            _rewrite(half.T * half, rules) == identity_matrix
            and _rewrite((half * x).T * (half * x), rules) == x.T * x
        ),
    )


def conjugate_composition_step(rules: Rules | None = None) -> Step:
    """(PᵀR_mP)(PᵀR_nP) = PᵀR_{m+n}P for symbolic 2K×2K matrices, rewritten by `rules` (default PPᵀ = I,
    R_mR_n = R_{m+n}); leaving one out or a wrong one fails."""
    p, identity_matrix = PERMUTATION, sp.Identity(SIZE)
    if rules is None:
        rules = ((p * p.T, identity_matrix), (TURN_M * TURN_N, TURN_SUM))
    return fact(
        r"R^{\mathrm{half}}_m R^{\mathrm{half}}_n = P^\top R_m (P P^\top) R_n P = P^\top R_{m+n} P = "
        r"R^{\mathrm{half}}_{m+n}",
        r"symbolic $2K \times 2K$ matrices: $P P^\top = I$ ($P$ a permutation matrix) and "
        r"$R_m R_n = R_{m+n}$ for the interleaved matrices; SymPy applies the two rules to the product",
        lambda: _rewrite((p.T * TURN_M * p) * (p.T * TURN_N * p), rules) == p.T * TURN_SUM * p,
    )


def interleaved_orthogonal_steps(interleaved: Interleaved = interleaved_entry) -> list[Step]:
    """The interleaved matrix of every d = 2K is orthogonal and keeps norms (`interleaved` builds it)."""
    return [
        pair_sum_step(),
        interleaved_gram_step(interleaved),
        delta_sum_step(),
        interleaved_norm_step(interleaved),
    ]


#: The two layouts, by the name the derivations use, as their `properties.encodings.rope` layout.
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


#: The dimensions whose assembled matrices are checked beside the proofs for every d = 2K.
DIMS = (2, 4, 6)


def _half_split_steps() -> list[Step]:
    """What carries a property of the interleaved matrix to the half-split one for every d = 2K: the index
    maps of P (inverse bijections, so PᵀP = PPᵀ = I) and R^half_m = PᵀR^int_mP entry by entry."""
    return [*index_map_steps(), conjugation_step()]


@derivation(
    id="rope.orthogonal",
    title="RoPE matrices are orthogonal, so they keep norms",
    statement=r"R_m^\top R_m = I, \qquad \lVert R_m q\rVert = \lVert q\rVert",
    hypotheses=(
        r"Both layouts, every even rotary dimension $d = 2K$ ($K \ge 1$ a symbolic integer; all $d$ "
        r"coordinates rotated); $m$ real, $\theta_i > 0$ symbolic.",
        r"Interleaved: the entries are written for a symbolic index (the formulas of "
        r"`rope.half_split_permutation`, checked against `Rope.rotate_exact` for $d = 2, 4, 6, 8$); the "
        r"matrix is block-diagonal with blocks $R(m\theta_i)$, so $(R_m^\top R_m)_{jl}$ and "
        r"$\lVert R_m x\rVert^2$ are SymPy sums over the $K$ blocks, regrouped by a lemma proved by "
        r"induction on $K$.",
        r"Half-split: $R^{\mathrm{half}}_m = P^\top R^{\mathrm{int}}_m P$ with $P$ the permutation of "
        r"`rope.half_split_permutation` (its steps, with $r = d$, $r/2 = K$); symbolic-matrix algebra with "
        r"$P^\top P = P P^\top = I$ carries orthogonality over.",
        r"The assembled matrices for $d = 2, 4, 6$ (the norm at $d = 4$) are checked as well.",
    ),
)
def orthogonal() -> list[Step]:
    steps = [block_orthogonal_step(), entry_formula_step(), block_steps()[1], *interleaved_orthogonal_steps()]
    steps += [*_half_split_steps(), conjugate_orthogonal_step()]
    steps += [orthogonality_step(Rope(d, layout=layout)) for layout in LAYOUTS.values() for d in DIMS]
    return steps + [norm_step(Rope(4, layout=layout)) for layout in LAYOUTS.values()]


@derivation(
    id="rope.composition",
    title="Rotating by m and then by n is rotating by m + n",
    statement=r"R_m R_n = R_{m+n}",
    hypotheses=(
        r"Both layouts, every even rotary dimension $d = 2K$ ($K \ge 1$; all $d$ coordinates rotated); "
        r"$m, n$ real, $\theta_i > 0$ symbolic.",
        r"Interleaved: pair $i$ of $R_m R_n x$ and of $R_{m+n} x$ for a symbolic pair index $i$ and a "
        r"symbolic $x$ (the entry formulas of `rope.half_split_permutation`, checked against "
        r"`Rope.rotate_exact` for $d = 2, 4, 6, 8$), which covers every row of every $d$.",
        r"Half-split: $R^{\mathrm{half}}_m = P^\top R^{\mathrm{int}}_m P$ and $P P^\top = I$ "
        r"(the steps of `rope.half_split_permutation`, with $r = d$, $r/2 = K$), symbolic-matrix algebra.",
        r"The assembled matrices for $d = 2, 4, 6$ are checked as well.",
    ),
)
def composition() -> list[Step]:
    steps = [block_composition_step(), entry_formula_step(), block_steps()[1], interleaved_composition_step()]
    steps += [*_half_split_steps(), conjugate_composition_step()]
    return steps + [composition_step(Rope(d, layout=layout)) for layout in LAYOUTS.values() for d in DIMS]


@derivation(
    id="rope.half_split_permutation",
    title="The half-split layout is the interleaved one with permuted coordinates",
    statement=r"R^{\mathrm{half}}_m = P^\top R^{\mathrm{int}}_m P, \quad "
    r"(Px)_{2i} = x_i,\ (Px)_{2i+1} = x_{i+d/2}",
    hypotheses=(
        r"$P$ sends index $i$ to $2i$ and index $i + d/2$ to $2i + 1$ ($0 \le i < d/2$).",
        r"Both layouts use the same frequencies $\theta_i$; $m$ real.",
        r"Every even $d$: the index $i < d/2$ and the half $d/2 = i + 1 + u$ ($u \ge 0$) are symbolic "
        r"integers, each entry written as a function of its index; the matrices for $d = 4, 6, 8$ are "
        r"checked as well.",
    ),
)
def half_split_is_permuted_interleaved() -> list[Step]:
    steps = [*index_map_steps(), entry_formula_step(), *block_steps(), conjugation_step()]
    for d in (4, 6, 8):
        p = half_split_permutation(d)
        steps += [permutation_is_orthogonal_step(p), permutation_step(p, d)]
    return steps


#: Rotary dimensions checked one by one, in three steps: every even r up to 32, then up to 64, and the larger
#: head sizes of common models.
ROTARY_DIMS = (tuple(range(2, 33, 2)), tuple(range(34, 65, 2)), (80, 96, 128, 256))


def layouts_agree(r: int) -> bool:
    """R^half_m x = Pᵀ R^int_m (P x) entry by entry for a symbolic x ∈ ℝ^r, position m and frequencies θ_i,
    with P = `layout_permutation(r)`, compared as SymPy expressions (structural equality)."""
    x, th = vector("x", r), thetas(r)
    perm = [int(j) for j in layout_permutation(r)]
    rotated = Rope(r).rotate_exact(sp.Matrix([x[j] for j in perm]), M, th)
    back = [rotated[perm.index(j)] for j in range(r)]
    half_split = Rope(r, layout="half_split").rotate_exact(x, M, th)
    return all(a == b for a, b in zip(half_split, back, strict=True))


def _dimensions(dims: Sequence[int]) -> str:
    if dims == tuple(range(dims[0], dims[-1] + 1, 2)) and len(dims) > 2:
        return rf"r = {dims[0]}, {dims[1]}, \dots, {dims[-1]}"
    return "r = " + ", ".join(map(str, dims))


def layouts_agree_step(dims: Sequence[int]) -> Step:
    """`layouts_agree(r)` for every r of `dims`."""
    return fact(
        rf"R^{{\mathrm{{half}}}}_m x = P^\top R^{{\mathrm{{int}}}}_m P x \quad ({_dimensions(tuple(dims))})",
        "both maps built symbolically and compared entry by entry after permuting by layout_permutation(r)",
        lambda: all(layouts_agree(r) for r in dims),
    )


@derivation(
    id="rope.half_split_permutation_by_dimension",
    title="The layout permutation, dimension by dimension",
    statement=r"R^{\mathrm{half}}_m x = P^\top R^{\mathrm{int}}_m (P x) \text{ for } r \le 64 \text{ and } "
    r"r = 80, 96, 128, 256",
    hypotheses=(
        r"$x \in \mathbb{R}^r$, $m$ and $\theta_i$ symbolic; $P$ the index array `layout_permutation(r)`.",
        r"Each side is built by `Rope.rotate_exact`; the entries are compared as expressions, unsimplified.",
    ),
    instances="r = 2, 4, …, 64 and 80, 96, 128, 256",
)
def half_split_permutation_by_dimension() -> list[Step]:
    return [layouts_agree_step(dims) for dims in ROTARY_DIMS]


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


WIDE = sp.Symbol("w", integer=True, nonnegative=True)


def _e0(j: sp.Expr) -> sp.Expr:
    return sp.KroneckerDelta(j, 0)


def _at_every_pair(expr: Expr) -> bool:
    """Whether `expr` vanishes at every pair index i ≥ 0: at i = 0 and at i = 1 + w for a symbolic w ≥ 0."""
    return all(_is_zero_expansion(sp.sympify(expr).subs(PAIR, value)) for value in (0, 1 + WIDE))


def e0_image_steps(
    interleaved: Callable[[Entries, sp.Expr, sp.Expr], sp.Expr] = interleaved_entry,
) -> list[Step]:
    """R^int_m e_0 = cos mθ_0·e_0 + sin mθ_0·e_1 and R^half_n e_0 = cos nθ_0·e_0 + sin nθ_0·e_{r/2}, entry by
    entry for a symbolic index and every even r (`interleaved` builds the interleaved entries)."""
    i, h, theta = PAIR, HALF, FREQUENCY[0]

    def interleaved_image(j: sp.Expr) -> sp.Expr:
        return sp.cos(M * theta) * sp.KroneckerDelta(j, 0) + sp.sin(M * theta) * sp.KroneckerDelta(j, 1)

    def half_split_image(j: sp.Expr) -> sp.Expr:
        return sp.cos(N * theta) * sp.KroneckerDelta(j, 0) + sp.sin(N * theta) * sp.KroneckerDelta(j, h)

    interleaved_gap = sp.Matrix([interleaved(_e0, j, M) - interleaved_image(j) for j in (2 * i, 2 * i + 1)])
    half_split_gap = sp.Matrix([half_split_entry(_e0, j, N, h) - half_split_image(j) for j in (i, i + h)])
    cases = (
        r"the entries $j = 2i, 2i+1$ (interleaved) and $j = i, i + r/2$ (half-split) with $i < r/2$ cover "
        + (
            r"every $j < r$; each difference vanishes at $i = 0$ and at $i = 1 + w$ ($w \ge 0$), where every "
            r"Kronecker delta of distinct integers is 0"
        )
    )
    return [
        fact(
            r"(R^{\mathrm{int}}_m e_0)_j = \cos m\theta_0\,\delta_{j0} + \sin m\theta_0\,\delta_{j1}",
            cases,
            lambda: _at_every_pair(interleaved_gap),
        ),
        fact(
            r"(R^{\mathrm{half}}_n e_0)_j = \cos n\theta_0\,\delta_{j0} + \sin n\theta_0\,\delta_{j,r/2}",
            cases,
            lambda: _at_every_pair(half_split_gap),
        ),
    ]


def mixed_e0_score_step() -> Step:
    """For r ≥ 4 (r/2 = 2 + w): ⟨cos mθ_0 e_0 + sin mθ_0 e_1, cos nθ_0 e_0 + sin nθ_0 e_{r/2}⟩ =
    cos mθ_0 cos nθ_0."""
    theta, h = FREQUENCY[0], 2 + WIDE
    a = ((sp.cos(M * theta), 0), (sp.sin(M * theta), 1))
    b = ((sp.cos(N * theta), 0), (sp.sin(N * theta), h))
    score = sp.Add(*(u * v * sp.KroneckerDelta(j, k) for u, j in a for v, k in b))
    return identity(
        score,
        sp.cos(M * theta) * sp.cos(N * theta),
        r"$\langle e_j, e_l\rangle = \delta_{jl}$, and for $r/2 = 2 + w \ge 2$ the indices $0, 1, r/2$ are "
        r"distinct, so only $\langle e_0, e_0\rangle$ remains",
        claim=r"s(m, n) = \langle R^{\mathrm{int}}_m e_0, R^{\mathrm{half}}_n e_0\rangle = "
        r"\cos m\theta_0 \cos n\theta_0 \quad (\text{every even } r \ge 4)",
    )


def one_pair_step() -> Step:
    """At r = 2 the two layouts are one map: P is the identity and the entry formulas coincide."""
    one = sp.Integer(1)
    same = sp.Matrix(
        [
            half_split_entry(_x, sp.Integer(j), M, one) - interleaved_entry(_x, sp.Integer(j), M)
            for j in (0, 1)
        ]
    )
    half_split = Rope(2, layout="half_split").rotate_exact(vector("x", 2), M, thetas(2))
    return fact(
        r"r = 2:\ R^{\mathrm{half}}_m = R^{\mathrm{int}}_m,\quad P = I",
        "perm(0) = 0, perm(1) = 1; both layouts rotate the one pair (x_0, x_1) by mθ_0 (the entry formulas "
        "and Rope.rotate_exact)",
        lambda: (
            [permuted_index(sp.Integer(j), one) for j in (0, 1)] == [0, 1]
            and _is_zero_expansion(same)
            and half_split == Rope(2).rotate_exact(vector("x", 2), M, thetas(2))
        ),
    )


@derivation(
    id="rope.mixed_layouts_every_dimension",
    title="Mixing the layouts breaks the relative property in every dimension r ≥ 4",
    statement=r"r \ge 4:\ \langle R^{\mathrm{int}}_m e_0, R^{\mathrm{half}}_n e_0\rangle = "
    r"\cos m\theta_0 \cos n\theta_0,\ s(0, 0) \ne s(1, 1) \text{ for } \theta_0 = 1; \quad "
    r"r = 2:\ R^{\mathrm{half}}_m = R^{\mathrm{int}}_m",
    hypotheses=(
        r"$q$ rotated by the interleaved map, $k$ by the half-split map, both with the same $\theta_i$; "
        r"$q = k = e_0$.",
        r"Every even $r$: indices are symbolic integers, $r/2 = i + 1 + u$ for the pair index $i$ and "
        r"$r/2 = 2 + w$ for $r \ge 4$ ($u, w \ge 0$); the entry formulas are those of "
        r"`rope.half_split_permutation`.",
    ),
)
def mixed_layouts_every_dimension() -> list[Step]:
    _, *unequal = standard_frequency_steps()
    return [entry_formula_step(), *e0_image_steps(), mixed_e0_score_step(), *unequal, one_pair_step()]


def mixed_score_is_product_of_cosines(r: int) -> bool:
    """For q = k = e_0, ⟨R^int_m q, R^half_n k⟩ = cos mθ_0 · cos nθ_0 (symbolic m, n, θ_i), rotary dim r."""
    e0 = sp.zeros(r, 1)
    e0[0] = 1
    th = thetas(r)
    mixed = score(Rope(r), Rope(r, layout="half_split"), e0, e0, M, N, th)
    return sp.expand(mixed - sp.cos(M * th[0]) * sp.cos(N * th[0])) == 0


def mixed_score_step(dims: Sequence[int]) -> Step:
    """`mixed_score_is_product_of_cosines(r)` for every r of `dims`."""
    return fact(
        rf"\langle R^{{\mathrm{{int}}}}_m e_0, R^{{\mathrm{{half}}}}_n e_0\rangle = "
        rf"\cos m\theta_0 \cos n\theta_0 \quad ({_dimensions(tuple(dims))})",
        "both maps built symbolically by Rope.rotate_exact",
        lambda: all(mixed_score_is_product_of_cosines(r) for r in dims),
    )


@derivation(
    id="rope.mixed_layouts_by_dimension",
    title="The mixed-layout score of e_0, dimension by dimension",
    statement=r"\langle R^{\mathrm{int}}_m e_0, R^{\mathrm{half}}_n e_0\rangle = "
    r"\cos m\theta_0 \cos n\theta_0 \text{ for } 4 \le r \le 64 \text{ and } r = 80, 96, 128, 256",
    hypotheses=(r"$m$, $n$ and $\theta_i$ symbolic; both maps built by `Rope.rotate_exact`.",),
    instances="r = 4, 6, …, 64 and 80, 96, 128, 256",
)
def mixed_layouts_by_dimension() -> list[Step]:
    return [mixed_score_step(tuple(r for r in dims if r >= 4)) for dims in ROTARY_DIMS]


def abel_identity_step(pairs: int) -> Step:
    """Σ_{i<n} h_i z_i = −Σ_{j<n} S_{j+1}(h_{j+1} − h_j), S_j = Σ_{l<j} z_l, h_n = 0, for symbolic h, z."""
    h = [*sp.symbols(f"h0:{pairs}"), sp.Integer(0)]
    z = sp.symbols(f"z0:{pairs}")
    partial_sums = [sp.Add(*z[:j]) for j in range(pairs + 1)]
    summed = -sp.Add(*(partial_sums[j + 1] * (h[j + 1] - h[j]) for j in range(pairs)))
    return fact(
        rf"\sum_{{i<{pairs}}} h_i z_i = -\sum_{{j<{pairs}}} S_{{j+1}}(h_{{j+1}} - h_j)",
        "expand both sides: the partial sums telescope",
        lambda: sp.expand(sp.Add(*(h[i] * z[i] for i in range(pairs))) - summed) == 0,
    )


WEIGHT, PARTIAL, TERM = sp.IndexedBase("h"), sp.IndexedBase("S"), sp.IndexedBase("z")
TERMS = sp.Symbol("n", integer=True, positive=True)


def summation_by_parts(n: sp.Expr) -> sp.Expr:
    """h_n S_n − Σ_{j<n} S_{j+1}(h_{j+1} − h_j): the right side of Abel's summation by parts for n terms."""
    h, s, j = WEIGHT, PARTIAL, sp.Symbol("j", integer=True, nonnegative=True)
    return h[n] * s[n] - sp.Sum(s[j + 1] * (h[j + 1] - h[j]), (j, 0, n - 1))


def _weighted_increments(n: sp.Expr) -> sp.Expr:
    """Σ_{j<n} h_j (S_{j+1} − S_j)."""
    h, s, j = WEIGHT, PARTIAL, sp.Symbol("j", integer=True, nonnegative=True)
    return sp.Sum(h[j] * (s[j + 1] - s[j]), (j, 0, n - 1))


def partial_sum_step() -> Step:
    """S_j = Σ_{l<j} z_l has S_0 = 0 and S_{j+1} − S_j = z_j, for a symbolic j."""
    j, term = sp.Symbol("j", integer=True, nonnegative=True), sp.Symbol("l", integer=True, nonnegative=True)
    partial = sp.Sum(TERM[term], (term, 0, j - 1))
    return fact(
        r"S_0 = 0,\quad S_{j+1} - S_j = z_j,\ \text{so}\ \sum_{i<n} h_i z_i = \sum_{i<n} h_i (S_{i+1} - S_i)",
        r"$S_0$ is the empty sum; SymPy's difference of $\sum_{l<j} z_l$ in $j$ is its new term $z_j$",
        lambda: partial.subs(j, 0).doit() == 0 and sp.difference_delta(partial, j) == TERM[j],
    )


def abel_induction_step(right: Callable[[sp.Expr], sp.Expr] = summation_by_parts) -> Step:
    """Σ_{j<n} h_j(S_{j+1} − S_j) = `right`(n) for every n ≥ 1, by induction on n with S_0 = 0 (a wrong
    summation-by-parts formula fails)."""
    n = TERMS
    return fact(
        r"\sum_{j<n} h_j (S_{j+1} - S_j) = h_n S_n - \sum_{j<n} S_{j+1}(h_{j+1} - h_j) \quad "
        r"(\text{every } n \ge 1;\ h_n = 0 \text{ gives the statement})",
        r"induction on $n$ with $S_0 = 0$: at $n = 1$ both sides are $h_0 S_1$; from $n$ to $n + 1$ the left "
        r"side gains $h_n(S_{n+1} - S_n)$ and the right side $h_{n+1}S_{n+1} - h_n S_n - S_{n+1}(h_{n+1} - "
        r"h_n)$, the same (SymPy's difference of the sums, symbolic $n$)",
        lambda: _by_induction(_weighted_increments(n), right(n), n, 1, given={PARTIAL[0]: 0}),
    )


@derivation(
    id="rope.abel_summation",
    title="Abel summation behind RoFormer's long-term decay bound",
    statement=r"\sum_{i<n} h_i z_i = -\sum_{j<n} S_{j+1}(h_{j+1} - h_j),\quad S_j = \sum_{l<j} z_l,\ h_n = 0",
    hypotheses=(
        r"$h_i$, $z_i$ symbolic; every number of terms $n \ge 1$ ($n = d/2$), a symbolic integer: "
        r"summation by parts is proved by induction on $n$.",
        r"$n = 1, \dots, 8$ are also checked term by term.",
    ),
)
def abel_summation() -> list[Step]:
    return [partial_sum_step(), abel_induction_step(), *(abel_identity_step(pairs) for pairs in range(1, 9))]
