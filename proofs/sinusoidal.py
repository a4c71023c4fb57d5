"""Sinusoidal encoding PE(pos)_{2i} = sin(pos·ω_i), PE(pos)_{2i+1} = cos(pos·ω_i): shifts are rotations.

A shift by k multiplies PE(pos) by a block-diagonal rotation M_k that does not depend on pos; hence the norm
is constant (even d), and dot products and distances depend only on the offset p − q. Around the encoding:
the frequencies ω_i = 10000^(−2i/d) strictly decrease (wavelengths from 2π to below 2π·10000), PE(0) =
(0, 1, 0, 1, …) is not zero while a sine-only vector is, a position–position term p_i A p_jᵀ need not depend
on i − j alone, and a larger base b' > b slows every pair but the first.

The encoding is `properties.encodings.sinusoidal.Sinusoidal` in its exact form (`column`); a step is checked
for the frequencies it is given (symbols, or exact numbers), and a broken twin is a `Sinusoidal` subclass
overriding `column`, passed as the step's `family`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import sympy as sp

from pe_verify.properties.encodings.frequencies import frequency_exponent, frequency_expr
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

from .derivation import Step, derivation, fact, identity, inequality
from .trigonometry import euler_identity

POS, K, A, B, P, Q, DELTA = sp.symbols("pos k a b p q delta", real=True)
OMEGA = sp.Symbol("omega", positive=True)
SYMBOLIC_OMEGAS = sp.symbols("omega_0:3", positive=True)
DIMENSIONS = (2, 4, 6, 8)

Block = Callable[[sp.Expr], sp.Matrix]
Family = type[Sinusoidal]
Score = Callable[[sp.Expr, sp.Expr, Sequence[sp.Expr]], sp.Expr]


def exact_frequencies(d: int, base: int = 10000) -> list[sp.Expr]:
    """The ⌈d/2⌉ frequencies ω_i = base^(−2i/d) as exact SymPy numbers."""
    return Sinusoidal(d, base).exact_frequencies()


def rotation_block(angle: sp.Expr) -> sp.Matrix:
    """B(θ) = [[cos θ, sin θ], [−sin θ, cos θ]]: the block that shifts the pair (sin, cos) by the angle θ."""
    return sp.Matrix([[sp.cos(angle), sp.sin(angle)], [-sp.sin(angle), sp.cos(angle)]])


def with_frequencies(
    omegas: Sequence[sp.Expr], d: int | None = None, family: Family = Sinusoidal
) -> Sinusoidal:
    """The encoding with these frequencies (symbols or exact numbers); d defaults to 2·len(ω)."""
    return family(2 * len(omegas) if d is None else d, omegas=tuple(omegas))


def shift_matrix(k: sp.Expr, omegas: Sequence[sp.Expr], block: Block = rotation_block) -> sp.Matrix:
    """M_k = diag(B(k·ω_0), …, B(k·ω_{d/2−1})): block-diagonal, one block per frequency."""
    return sp.diag(*[block(k * omega) for omega in omegas])


def dot(u: sp.Matrix, v: sp.Matrix) -> sp.Expr:
    """The Euclidean inner product uᵀv of two columns."""
    return (u.T * v)[0]


def dot_score(p: sp.Expr, q: sp.Expr, omegas: Sequence[sp.Expr]) -> sp.Expr:
    """PE(p)·PE(q), the score two encodings give each other."""
    pe = with_frequencies(omegas)
    return dot(pe.column(p), pe.column(q))


def cosine_sum(offset: sp.Expr, omegas: Sequence[sp.Expr]) -> sp.Expr:
    """Σ_i cos(offset·ω_i)."""
    return sp.Add(*[sp.cos(offset * omega) for omega in omegas])


def setting(omegas: Sequence[sp.Expr], d: int | None = None) -> str:
    """LaTeX naming the dimension and the frequencies a step is checked for."""
    d = 2 * len(omegas) if d is None else d
    return rf"\qquad \big[d = {d},\ (\omega_i) = ({', '.join(sp.latex(omega) for omega in omegas)})\big]"


def shift_step(
    omegas: Sequence[sp.Expr],
    offset: sp.Expr = K,
    block: Block = rotation_block,
    family: Family = Sinusoidal,
    justification: str = "angle addition in every pair",
) -> Step:
    """PE(pos + offset) = M_k·PE(pos), with M_k built from `block` (it holds for offset = k)."""
    pe = with_frequencies(omegas, family=family)
    lhs = pe.column(POS + offset)
    rhs = shift_matrix(K, omegas, block) * pe.column(POS)
    claim = rf"PE(pos + {sp.latex(offset)}) = M_k\,PE(pos){setting(omegas)}"
    return identity(lhs, rhs, justification, claim)


def position_free_step(block: Block = rotation_block) -> Step:
    """∂B/∂pos = 0 for the block at angle k·ω: the shift matrix does not depend on the position."""
    matrix = block(K * OMEGA)
    return identity(
        matrix.diff(POS),
        sp.zeros(*matrix.shape),
        "the block's entries involve only k and ω",
        r"\frac{\partial}{\partial\,pos} B_k(\omega) = 0",
    )


def orthogonality_step(
    omegas: Sequence[sp.Expr],
    block: Block = rotation_block,
    justification: str = r"$\cos^2 + \sin^2 = 1$ on the diagonal of every block",
) -> Step:
    """M_kᵀ M_k = I."""
    matrix = shift_matrix(K, omegas, block)
    return euler_identity(
        matrix.T * matrix, sp.eye(matrix.rows), justification, rf"M_k^\top M_k = I{setting(omegas)}"
    )


def determinant_step(
    omegas: Sequence[sp.Expr],
    block: Block = rotation_block,
    justification: str = r"each block has determinant $\cos^2 + \sin^2 = 1$",
) -> Step:
    """det M_k = 1."""
    matrix = shift_matrix(K, omegas, block)
    return euler_identity(matrix.det(method="berkowitz"), 1, justification, rf"\det M_k = 1{setting(omegas)}")


def composition_step(
    omegas: Sequence[sp.Expr],
    block: Block = rotation_block,
    justification: str = "angle addition in every block",
) -> Step:
    """M_a M_b = M_{a+b}."""
    lhs = shift_matrix(A, omegas, block) * shift_matrix(B, omegas, block)
    return identity(
        lhs, shift_matrix(A + B, omegas, block), justification, rf"M_a M_b = M_{{a+b}}{setting(omegas)}"
    )


def inverse_step(
    omegas: Sequence[sp.Expr],
    block: Block = rotation_block,
    justification: str = "cos is even and sin is odd",
) -> Step:
    """M_{−k} = M_kᵀ."""
    return identity(
        shift_matrix(-K, omegas, block),
        shift_matrix(K, omegas, block).T,
        justification,
        rf"M_{{-k}} = M_k^\top{setting(omegas)}",
    )


def generation_step(
    omegas: Sequence[sp.Expr],
    block: Block = rotation_block,
    family: Family = Sinusoidal,
    justification: str = r"$PE(0)$ has pairs $(\sin 0, \cos 0) = (0, 1)$",
) -> Step:
    """PE(pos) = M_pos·PE(0)."""
    pe = with_frequencies(omegas, family=family)
    rhs = shift_matrix(POS, omegas, block) * pe.column(sp.Integer(0))
    return identity(pe.column(POS), rhs, justification, rf"PE(pos) = M_{{pos}}\,PE(0){setting(omegas)}")


def norm_step(
    omegas: Sequence[sp.Expr],
    d: int | None = None,
    expected: sp.Expr | None = None,
    family: Family = Sinusoidal,
    justification: str = r"$\sin^2 + \cos^2 = 1$ in every pair",
) -> Step:
    """‖PE(pos)‖² = expected (by default d/2)."""
    d = 2 * len(omegas) if d is None else d
    expected = sp.Rational(d, 2) if expected is None else expected
    vector = with_frequencies(omegas, d, family).column(POS)
    return euler_identity(
        dot(vector, vector),
        expected,
        justification,
        rf"\lVert PE(pos)\rVert^2 = {sp.latex(expected)}{setting(omegas, d)}",
    )


def dot_product_step(
    omegas: Sequence[sp.Expr],
    family: Family = Sinusoidal,
    justification: str = r"$\sin x\sin y + \cos x\cos y = \cos(x - y)$ in every pair",
) -> Step:
    """PE(p)·PE(q) = Σ_i cos((p − q)·ω_i)."""
    pe = with_frequencies(omegas, family=family)
    lhs = dot(pe.column(P), pe.column(Q))
    return identity(
        lhs,
        cosine_sum(P - Q, omegas),
        justification,
        rf"PE(p)\cdot PE(q) = \sum_i \cos\big((p - q)\,\omega_i\big){setting(omegas)}",
    )


def translation_step(
    omegas: Sequence[sp.Expr],
    score: Score = dot_score,
    justification: str = r"with $p = q + \delta$ each pair gives $\cos(\delta\omega)$, "
    r"free of $q$",
) -> Step:
    """∂/∂q score(q + δ, q) = 0: the score depends on the offset δ = p − q only."""
    claim = rf"\frac{{\partial}}{{\partial q}}\big(PE(q + \delta)\cdot PE(q)\big) = 0{setting(omegas)}"
    return identity(sp.diff(score(Q + DELTA, Q, omegas), Q), 0, justification, claim)


def swap_step(
    omegas: Sequence[sp.Expr], score: Score = dot_score, justification: str = "the inner product is symmetric"
) -> Step:
    """score(q, p) = score(p, q): swapping the two positions leaves the score unchanged."""
    return identity(
        score(Q, P, omegas),
        score(P, Q, omegas),
        justification,
        rf"PE(q)\cdot PE(p) = PE(p)\cdot PE(q){setting(omegas)}",
    )


def symmetry_step(
    omegas: Sequence[sp.Expr],
    score: Score = dot_score,
    justification: str = r"$\cos$ is even: $\cos(-\delta\omega) = \cos(\delta\omega)$",
) -> Step:
    """score(q − δ, q) = score(q + δ, q): a position δ before q scores as one δ after it."""
    return euler_identity(
        score(Q - DELTA, Q, omegas),
        score(Q + DELTA, Q, omegas),
        justification,
        rf"PE(q - \delta)\cdot PE(q) = PE(q + \delta)\cdot PE(q){setting(omegas)}",
    )


def distance_step(
    omegas: Sequence[sp.Expr],
    family: Family = Sinusoidal,
    justification: str = r"per pair $1 + 1 - 2\cos\big((p - q)\,\omega\big)$",
) -> Step:
    """‖PE(p) − PE(q)‖² = Σ_i 2(1 − cos((p − q)·ω_i))."""
    pe = with_frequencies(omegas, family=family)
    difference = pe.column(P) - pe.column(Q)
    expected = sp.Add(*[2 * (1 - sp.cos((P - Q) * omega)) for omega in omegas])
    return euler_identity(
        dot(difference, difference),
        expected,
        justification,
        rf"\lVert PE(p) - PE(q)\rVert^2 = \sum_i 2\big(1 - \cos((p - q)\,\omega_i)\big)"
        rf"{setting(omegas)}",
    )


def _generic_block(name: str) -> sp.Matrix:
    return sp.Matrix(2, 2, sp.symbols(f"{name}_11 {name}_12 {name}_21 {name}_22"))


_PAIR_HYPOTHESES = (
    r"$d$ even; $PE(pos)_{2i} = \sin(pos\,\omega_i)$ and $PE(pos)_{2i+1} = \cos(pos\,\omega_i)$, "
    r"$i = 0, \dots, d/2 - 1$",
    r"any frequencies $\omega_i > 0$ (the reference choice is $\omega_i = 10000^{-2i/d}$); "
    r"positions and offsets real",
)

_OFFSET_MATRIX = (
    r"M_k = \operatorname{diag}\big(B_k(\omega_0), \dots, B_k(\omega_{d/2-1})\big),\quad "
    r"B_k(\omega) = \begin{pmatrix}\cos k\omega & \sin k\omega\\ -\sin k\omega & \cos k\omega"
    r"\end{pmatrix}"
)


@derivation(
    id="sinusoidal.offset_matrix",
    title="A shift of the sinusoidal encoding is a fixed linear map",
    statement=rf"PE(pos + k) = M_k\,PE(pos),\qquad {_OFFSET_MATRIX}\ \text{{(no }}pos\text{{ in }}M_k)",
    hypotheses=_PAIR_HYPOTHESES,
)
def offset_matrix() -> Iterator[Step]:
    sin_pos, cos_pos = sp.sin(POS * OMEGA), sp.cos(POS * OMEGA)
    sin_k, cos_k = sp.sin(K * OMEGA), sp.cos(K * OMEGA)
    yield identity(
        sp.sin((POS + K) * OMEGA),
        cos_k * sin_pos + sin_k * cos_pos,
        "angle addition (`trigonometry.angle_addition`)",
        r"\sin\big((pos + k)\,\omega\big) = "
        r"\cos k\omega\,\sin pos\,\omega + \sin k\omega\,\cos pos\,\omega",
    )
    yield identity(
        sp.cos((POS + K) * OMEGA),
        -sin_k * sin_pos + cos_k * cos_pos,
        "angle addition (`trigonometry.angle_addition`)",
        r"\cos\big((pos + k)\,\omega\big) = "
        r"-\sin k\omega\,\sin pos\,\omega + \cos k\omega\,\cos pos\,\omega",
    )
    yield shift_step([OMEGA], justification="steps 1–2 as one matrix equation for the pair")
    yield position_free_step()
    blocks = _generic_block("a"), _generic_block("c")
    top, bottom = sp.Matrix(sp.symbols("u_1 u_2")), sp.Matrix(sp.symbols("v_1 v_2"))
    yield identity(
        sp.diag(*blocks) * top.col_join(bottom),
        (blocks[0] * top).col_join(blocks[1] * bottom),
        "block-diagonal matrices act on a stacked vector block by block (generic entries); "
        "by induction on the number of blocks this holds for d/2 blocks",
        r"\begin{pmatrix}A & 0\\ 0 & C\end{pmatrix}\begin{pmatrix}u\\ v\end{pmatrix} = "
        r"\begin{pmatrix}Au\\ Cv\end{pmatrix}",
    )
    yield shift_step(SYMBOLIC_OMEGAS, justification="steps 3 and 5: each pair is shifted by its own block")


@derivation(
    id="sinusoidal.offset_matrix_group",
    title="The shift matrices are rotations and form a group",
    statement=(
        r"M_k^\top M_k = I,\quad \det M_k = 1,\quad M_a M_b = M_{a+b},\quad M_{-k} = M_k^\top,\quad "
        rf"PE(pos) = M_{{pos}}\,PE(0),\qquad {_OFFSET_MATRIX}"
    ),
    hypotheses=_PAIR_HYPOTHESES,
)
def offset_matrix_group() -> Iterator[Step]:
    yield orthogonality_step([OMEGA])
    yield determinant_step([OMEGA])
    yield composition_step([OMEGA])
    yield inverse_step([OMEGA])
    yield generation_step([OMEGA])
    a, c, e, f = (_generic_block(name) for name in "acef")
    yield identity(
        sp.diag(a, c).T,
        sp.diag(a.T, c.T),
        "transposition acts block by block (generic entries)",
        r"\operatorname{diag}(A, C)^\top = \operatorname{diag}(A^\top, C^\top)",
    )
    yield identity(
        sp.diag(a, c) * sp.diag(e, f),
        sp.diag(a * e, c * f),
        "block-diagonal matrices multiply block by block (generic entries)",
        r"\operatorname{diag}(A, C)\,\operatorname{diag}(E, F) = \operatorname{diag}(AE, CF)",
    )
    yield identity(
        sp.diag(a, c).det(),
        a.det() * c.det(),
        "a block-diagonal determinant is the product of the blocks' (generic entries)",
        r"\det\operatorname{diag}(A, C) = \det A\,\det C",
    )
    justification = "steps 1–5 in every block, combined by steps 6–8"
    yield orthogonality_step(SYMBOLIC_OMEGAS, justification=justification)
    yield determinant_step(SYMBOLIC_OMEGAS, justification=justification)
    yield composition_step(SYMBOLIC_OMEGAS, justification=justification)
    yield inverse_step(SYMBOLIC_OMEGAS, justification=justification)
    yield generation_step(SYMBOLIC_OMEGAS, justification=justification)


@derivation(
    id="sinusoidal.offset_matrix_expanded",
    title="The shift matrices written out for d = 2, 4, 6, 8",
    statement=(
        r"PE(pos + k) = M_k\,PE(pos),\ M_k^\top M_k = I,\ \det M_k = 1,\ M_a M_b = M_{a+b},\ "
        r"M_{-k} = M_k^\top,\ PE(pos) = M_{pos}\,PE(0)\quad (d = 2, 4, 6, 8)"
    ),
    hypotheses=(
        r"$\omega_i = 10000^{-2i/d}$ exactly; $pos, k, a, b$ symbolic reals",
        r"every $d \times d$ matrix is written out in full and compared entry by entry",
    ),
    instances="d = 2, 4, 6, 8",
)
def offset_matrix_expanded() -> Iterator[Step]:
    for d in DIMENSIONS:
        omegas = exact_frequencies(d)
        yield shift_step(omegas)
        yield orthogonality_step(omegas)
        yield determinant_step(omegas)
        yield composition_step(omegas)
        yield inverse_step(omegas)
        yield generation_step(omegas)


@derivation(
    id="sinusoidal.norm",
    title="Every sinusoidal encoding vector has the same length (even d)",
    statement=(
        r"\lVert PE(pos)\rVert^2 = "
        r"\sum_{i=0}^{d/2-1}\big(\sin^2(pos\,\omega_i) + \cos^2(pos\,\omega_i)\big)"
        r" = \frac{d}{2}\quad\text{for every } pos"
    ),
    hypotheses=(
        *_PAIR_HYPOTHESES,
        r"for odd $d$ the last coordinate $\sin(pos\,\omega_{(d-1)/2})$ has no cosine partner: "
        r"$\lVert PE(pos)\rVert^2 = \frac{d-1}{2} + \sin^2(pos\,\omega_{(d-1)/2})$, which is not constant "
        r"(steps 7–10)",
    ),
)
def norm() -> Iterator[Step]:
    yield norm_step([OMEGA])
    half = sp.Symbol("n", integer=True, positive=True)
    index = sp.Symbol("i", integer=True, nonnegative=True)
    yield identity(
        sp.Sum(1, (index, 0, half - 1)),
        half,
        "one term per pair, with n = d/2 pairs",
        r"\sum_{i=0}^{n-1} 1 = n",
    )
    for d in DIMENSIONS:
        yield norm_step(exact_frequencies(d))
    for d in (1, 3, 5):
        omegas = exact_frequencies(d)
        expected = sp.Rational(d - 1, 2) + sp.sin(POS * omegas[-1]) ** 2
        yield norm_step(
            omegas, d, expected, justification="the complete pairs give 1 each; the last sine has no partner"
        )
    odd = exact_frequencies(3)
    at_zero, at_one = with_frequencies(odd, 3).column(0), with_frequencies(odd, 3).column(1)
    yield inequality(
        dot(at_zero, at_zero),
        dot(at_one, at_one),
        r"$\sin^2(10000^{-2/3}) \ne 0$ because $0 < 10000^{-2/3} < \pi$",
        r"d = 3:\ \lVert PE(0)\rVert^2 \neq \lVert PE(1)\rVert^2",
    )


@derivation(
    id="sinusoidal.dot_product",
    title="The dot product of two encodings depends only on their offset, and not on its sign",
    statement=(
        r"PE(p)\cdot PE(q) = \sum_{i=0}^{d/2-1}\cos\big((p - q)\,\omega_i\big),"
        r"\qquad PE(q - \delta)\cdot PE(q) = PE(q + \delta)\cdot PE(q)"
    ),
    hypotheses=(
        *_PAIR_HYPOTHESES,
        r"the score is even in $p - q$: it cannot tell a position $\delta$ before $q$ "
        r"from one $\delta$ after",
    ),
)
def dot_product() -> Iterator[Step]:
    yield dot_product_step([OMEGA])
    yield translation_step([OMEGA])
    yield swap_step([OMEGA])
    yield identity(
        sp.cos(-DELTA * OMEGA),
        sp.cos(DELTA * OMEGA),
        "cos is even",
        r"\cos(-\delta\omega) = \cos(\delta\omega)",
    )
    yield symmetry_step(
        [OMEGA],
        justification="a function of p − q alone (step 2) that is symmetric in p, q "
        "(step 3) is even; here it is cos(δω) (steps 1 and 4)",
    )
    yield symmetry_step(SYMBOLIC_OMEGAS, justification="step 5 in every pair")
    for d in DIMENSIONS:
        yield dot_product_step(exact_frequencies(d))
    yield translation_step(exact_frequencies(DIMENSIONS[-1]))
    yield swap_step(exact_frequencies(DIMENSIONS[-1]))
    yield symmetry_step(exact_frequencies(DIMENSIONS[-1]))


@derivation(
    id="sinusoidal.distance",
    title="The distance between two encodings depends only on their offset",
    statement=r"\lVert PE(p) - PE(q)\rVert^2 = \sum_{i=0}^{d/2-1} 2\big(1 - \cos((p - q)\,\omega_i)\big)",
    hypotheses=_PAIR_HYPOTHESES,
)
def distance() -> Iterator[Step]:
    u, v = sp.Matrix(sp.symbols("u_1 u_2")), sp.Matrix(sp.symbols("v_1 v_2"))
    yield identity(
        dot(u - v, u - v),
        dot(u, u) + dot(v, v) - 2 * dot(u, v),
        "expand the square (generic entries)",
        r"\lVert u - v\rVert^2 = \lVert u\rVert^2 + \lVert v\rVert^2 - 2\,u\cdot v",
    )
    yield distance_step(
        [OMEGA],
        justification="step 1 with `sinusoidal.norm` (each pair has length 1) and "
        "`sinusoidal.dot_product` (pairs give cos((p − q)ω))",
    )
    for d in DIMENSIONS:
        yield distance_step(exact_frequencies(d))


# ---------------------------------------------------------------------------------------------------------
# The frequencies, position 0, a position–position term, a larger base
# ---------------------------------------------------------------------------------------------------------

SYMBOLIC_DIM = sp.Symbol("d", positive=True)
SYMBOLIC_INDEX = sp.Symbol("i", nonnegative=True)
Exponent = Callable[[sp.Expr, sp.Expr], sp.Expr]
Frequency = Callable[[sp.Expr, sp.Expr, sp.Expr], sp.Expr]
#: Dimensions at which PE(0) is written out: every d up to 16, and 64.
ORIGIN_DIMENSIONS = (*range(2, 17), 64)


def exponent_decrease_step(exponent: Exponent = frequency_exponent) -> Step:
    """e_(i+1) − e_i = −2/d < 0 for symbolic d > 0, i ≥ 0: the frequency 10000^(e_i) strictly decreases."""
    d, i = SYMBOLIC_DIM, SYMBOLIC_INDEX
    step = sp.simplify(exponent(i + 1, d) - exponent(i, d))
    return fact(
        rf"e_{{i+1}} - e_i = {sp.latex(step)} < 0,\qquad \frac{{\omega_{{i+1}}}}{{\omega_i}} = "
        rf"10000^{{{sp.latex(step)}}} < 1",
        "the exponent loses 2/d per pair (SymPy decides the sign for d > 0); 10000^x < 1 for x < 0",
        lambda: step.is_negative is True,
    )


def first_exponent_step(exponent: Exponent = frequency_exponent) -> Step:
    """e_0 = 0: the first pair has ω_0 = 1 and wavelength 2π."""
    return fact(
        r"e_0 = 0,\qquad \lambda_0 = 2\pi/10000^{0} = 2\pi",
        "no factor of 10000 at i = 0",
        lambda: sp.simplify(exponent(0, SYMBOLIC_DIM)) == 0,
    )


def last_exponent_step(exponent: Exponent = frequency_exponent) -> Step:
    """e_(d/2−1) + 1 = 2/d > 0: the slowest wavelength 2π·10000^(−e) is below 2π·10000."""
    d = SYMBOLIC_DIM
    gap = sp.simplify(exponent(d / 2 - 1, d) + 1)
    return fact(
        rf"e_{{d/2-1}} + 1 = {sp.latex(gap)} > 0,\qquad \lambda_{{d/2-1}} = 2\pi\cdot 10000^{{1 - 2/d}} < "
        r"2\pi\cdot 10000",
        "the last pair's exponent is −(1 − 2/d) > −1 (SymPy decides the sign for d > 0)",
        lambda: gap.is_positive is True,
    )


@derivation(
    id="sinusoidal.frequency_order",
    title="The frequencies strictly decrease, and the wavelengths run from 2π towards, but below, 2π·10000",
    statement=r"\omega_i = 10000^{e_i},\ e_i = -\frac{2i}{d}:\quad \frac{\omega_{i+1}}{\omega_i} = "
    r"10000^{-2/d} < 1,\quad \lambda_0 = 2\pi,\quad "
    r"\lambda_{d/2-1} = 2\pi\cdot 10000^{1-2/d} < 2\pi\cdot 10000",
    hypotheses=(
        r"$d > 0$ and $i \ge 0$ symbolic; $e_i$ is the exponent of the formula (`frequency_exponent`)",
        r"$\lambda_i = 2\pi/\omega_i = 2\pi\cdot 10000^{-e_i}$ grows exactly as $\omega_i$ shrinks",
    ),
)
def frequency_order() -> Iterator[Step]:
    yield exponent_decrease_step()
    yield first_exponent_step()
    yield last_exponent_step()


#: The most entries a vector written in a step shows in full; a longer one shows its first and last few.
SHOWN_ENTRIES = 16


def origin_step(d: int, family: Family = Sinusoidal) -> Step:
    """PE(0) = (0, 1, 0, 1, …) for the encoding of `family` at d (exact frequencies); the step checks every
    entry, and writes a vector longer than `SHOWN_ENTRIES` as its first 8 and last 2 entries."""
    expected = sp.Matrix([j % 2 for j in range(d)])
    shown = [str(value) for value in expected]
    if d > SHOWN_ENTRIES:
        shown = [*shown[:8], r"\dots", *shown[-2:]]
    return identity(
        family(d).column(sp.Integer(0)),
        expected,
        r"$\sin 0 = 0$ in the even dims, $\cos 0 = 1$ in the odd dims",
        rf"d = {d}:\ PE(0) = ({', '.join(shown)})",
    )


@derivation(
    id="sinusoidal.origin",
    title="PE(0) = (0, 1, 0, 1, …): not the zero vector when d ≥ 2",
    statement=r"PE(0)_{2i} = \sin(0\cdot\omega_i) = 0,\quad PE(0)_{2i+1} = \cos(0\cdot\omega_i) = 1,\qquad "
    r"PE(0)_1 = 1 \text{ for every } d \ge 2",
    hypotheses=(
        r"$\omega_i > 0$ any frequency; written out for $\omega_i = 10000^{-2i/d}$ at "
        r"$d = 2, \dots, 16$ and $64$",
        r"for $d = 1$ the only entry is $\sin 0 = 0$ (`sinusoidal.sine_only_origin`)",
    ),
)
def origin() -> Iterator[Step]:
    yield identity(sp.sin(0 * OMEGA), 0, "sin 0 = 0", r"\sin(0\cdot\omega) = 0")
    yield identity(sp.cos(0 * OMEGA), 1, "cos 0 = 1", r"\cos(0\cdot\omega) = 1")
    for d in ORIGIN_DIMENSIONS:
        yield origin_step(d)


def sine_only_step(d: int) -> Step:
    """An encoding with sin(pos·ω_(j//2)) in every dim j is the zero vector at pos = 0."""
    omegas = exact_frequencies(d)
    sines = sp.Matrix([sp.sin(0 * omegas[j // 2]) for j in range(d)])
    return identity(
        sines,
        sp.zeros(d, 1),
        r"$\sin 0 = 0$ in every dim",
        rf"d = {d}:\ PE'(0) = \big(\sin(0\cdot\omega_{{\lfloor j/2\rfloor}})\big)_j = 0",
    )


def sine_never_zero_step() -> Step:
    """sin n ≠ 0 for every nonzero integer n (π is irrational)."""
    n = sp.Symbol("n", integer=True, nonzero=True)
    return fact(
        r"\sin n \neq 0 \quad (n \in \mathbb{Z}\setminus\{0\})",
        "sin n = 0 only at n ∈ πℤ, and π is irrational (SymPy)",
        lambda: sp.sin(n).is_zero is False,
    )


@derivation(
    id="sinusoidal.sine_only_origin",
    title="Being nonzero is not what separates PE(0): a sine-only vector is zero at 0 yet differs from every "
    "other position",
    statement=r"PE'(pos)_j = \sin(pos\,\omega_{\lfloor j/2\rfloor}):\quad PE'(0) = 0,\qquad "
    r"PE'(p)_0 = \sin p \neq 0 = PE'(0)_0\ (p \in \mathbb{Z}\setminus\{0\})",
    hypotheses=(
        r"$d = 1$ is the sinusoidal encoding itself (its only dim is a sine); the all-sine variant is shown "
        r"at $d = 6$ with $\omega_i = 10000^{-2i/6}$",
        r"$\omega_0 = 1$, so dim 0 is $\sin p$",
    ),
)
def sine_only_origin() -> Iterator[Step]:
    yield identity(
        Sinusoidal(1).column(sp.Integer(0)),
        sp.zeros(1, 1),
        "the only dim of d = 1 is sin(0·ω_0)",
        r"d = 1:\ PE(0) = (\sin 0) = (0)",
    )
    yield sine_only_step(6)
    yield sine_never_zero_step()


def position_term(a: sp.Matrix, i: int, j: int, d: int = 6) -> sp.Expr:
    """p_i A p_jᵀ for the sinusoidal rows p_i = PE(i)ᵀ at d (exact frequencies), simplified."""
    pe = Sinusoidal(d)
    return sp.simplify((pe.column(sp.Integer(i)).T * a * pe.column(sp.Integer(j)))[0])


def keep_first_dimension(d: int = 6) -> sp.Matrix:
    """A = W_Q W_Kᵀ with W_Q = W_K = E_00: diag(1, 0, …, 0), which keeps dim 0 only."""
    keep = sp.zeros(d, d)
    keep[0, 0] = 1
    return keep * keep.T


def position_term_counterexample() -> tuple[sp.Expr, sp.Expr]:
    """p_1 A p_0ᵀ and p_2 A p_1ᵀ at d = 6 with A = diag(1, 0, …, 0): two pairs at offset 1."""
    a = keep_first_dimension()
    return position_term(a, 1, 0), position_term(a, 2, 1)


@derivation(
    id="sinusoidal.position_term_not_relative",
    title="The position–position term of an absolute encoding need not depend on the offset alone",
    statement=r"d = 6,\ A = W_Q W_K^\top = \operatorname{diag}(1, 0, \dots, 0):\quad p_1 A p_0^\top = 0 \neq "
    r"\sin 1\,\sin 2 = p_2 A p_1^\top",
    hypotheses=(
        r"$p_i = PE(i)^\top$ with $\omega_i = 10000^{-2i/6}$; $W_Q = W_K = E_{00}$ keeps dim 0 only, so the "
        r"term is $\sin i\,\sin j$",
        r"both pairs $(1, 0)$ and $(2, 1)$ have offset 1",
    ),
)
def position_term_not_relative() -> Iterator[Step]:
    first, second = position_term_counterexample()
    yield identity(first, 0, "sin 0 = 0", r"p_1 A p_0^\top = \sin 1\,\sin 0 = 0")
    yield identity(second, sp.sin(1) * sp.sin(2), "dim 0 only", r"p_2 A p_1^\top = \sin 2\,\sin 1")
    yield inequality(
        first, second, "sin 1 and sin 2 are nonzero (π is irrational)", r"p_1 A p_0^\top \neq p_2 A p_1^\top"
    )


def base_ratio_step(frequency: Frequency = frequency_expr) -> Step:
    """θ_i(b(1 + g))/θ_i(b) = (1 + g)^(−2i/d): the ratio a larger base b' = b(1 + g) makes."""
    b, d, i, g = sp.symbols("b d i g", positive=True)
    ratio = sp.powsimp(frequency(i, d, b * (1 + g)) / frequency(i, d, b), force=True)
    return fact(
        r"\frac{\theta_i(b')}{\theta_i(b)} = \Big(\frac{b}{b'}\Big)^{2i/d} = (1 + g)^{-2i/d},"
        r"\quad b' = b(1 + g)",
        "law of exponents, (b(1 + g))^x / b^x = (1 + g)^x (SymPy, symbolic b, d, i, g > 0)",
        lambda: sp.simplify(ratio - frequency(i, d, 1 + g)) == 0,
    )


def slower_step(frequency: Frequency = frequency_expr) -> Step:
    """(1 + g)^(−2i/d) < 1 for g, d, i > 0, decreasing in i: its logarithm −(2i/d)·ln(1 + g) is negative and
    falls with i."""
    d, i, g = sp.symbols("d i g", positive=True)
    log = sp.expand_log(sp.log(frequency(i, d, 1 + g)), force=True)
    return fact(
        rf"\ln\big((1 + g)^{{-2i/d}}\big) = {sp.latex(log)} < 0,\qquad "
        rf"\frac{{\partial}}{{\partial i}} \ln\big((1 + g)^{{-2i/d}}\big) = {sp.latex(sp.diff(log, i))} < 0",
        "ln(1 + g) > 0 for g > 0 (SymPy decides both signs): every pair i > 0 is slowed, and the factor "
        "shrinks as i grows",
        lambda: log.is_negative is True and sp.diff(log, i).is_negative is True,
    )


@derivation(
    id="sinusoidal.larger_base",
    title="A larger base keeps θ_0 = 1 and slows every other pair, the slowest most",
    statement=r"b' > b > 0:\quad \theta_i(b') = \Big(\frac{b}{b'}\Big)^{2i/d}\theta_i(b) < \theta_i(b)\ "
    r"(i > 0),\qquad \theta_0(b') = \theta_0(b) = 1",
    hypotheses=(
        r"$\theta_i(b) = b^{-2i/d}$ (`frequency_expr`): the same formula for RoPE and the sinusoidal "
        r"encoding",
        r"$b' = b(1 + g)$ with $g > 0$; $d, i > 0$ symbolic; the factor $(b/b')^{2i/d}$ shrinks as $i$ grows",
    ),
)
def larger_base() -> Iterator[Step]:
    yield base_ratio_step()
    yield slower_step()
    yield identity(
        frequency_expr(0, SYMBOLIC_DIM, sp.Symbol("b", positive=True)),
        1,
        "b⁰ = 1",
        r"\theta_0(b) = b^{0} = 1",
    )
