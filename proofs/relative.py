"""Relative position encodings (Shaw et al. 2018, Transformer-XL): what their scores depend on.

* Shaw, Uszkoreit & Vaswani 2018 (arXiv 1803.02155 §3.2): query i meets key j through the learned embedding
  of clip(j − i, −k, k). The index depends on (i, j) only through j − i, equals j − i inside the window
  |j − i| ≤ k and ±k beyond it, so 2k + 1 embeddings serve every pair — for symbolic integers i, j, t, k.
* Transformer-XL (Dai et al. 2019, arXiv 1901.02860 §3.3): the absolute score
  (W_q(E_i + U_i))ᵀ(W_k(E_j + U_j)) is the sum of its four terms (a)–(d); the relative score, with
  U_j → R_{i−j}, U_iᵀW_qᵀ → uᵀ, vᵀ and W_k split into W_{k,E}, W_{k,R}, is unchanged when both positions
  shift by the same t.

The Transformer-XL vectors and matrices are SymPy `MatrixSymbol`s of a symbolic size n, and R is any function
of the offset (a column whose entry a is r(a, i − j), r undefined): the identities hold in every dimension.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr

from .derivation import Step, derivation, fact, identity, inequality

#: The model dimension, symbolic.
DIM = sp.Symbol("n", integer=True, positive=True)
#: Query position, key position, shift (integers); the clipping distance k ≥ 0.
QUERY, KEY, SHIFT = sp.symbols("i j t", integer=True)
DISTANCE = sp.Symbol("k", integer=True, nonnegative=True)
#: Non-negative integers that place an offset x in one of the four cases of the clip.
BEYOND, INSIDE, SLACK = sp.symbols("s p r", integer=True, nonnegative=True)

#: A score as a function of the query and key positions.
Score = Callable[[sp.Expr, sp.Expr], MatrixExpr]
#: A relative index as a function of the query and key positions.
Offset = Callable[[sp.Expr, sp.Expr], sp.Expr]


def column(name: str, size: sp.Expr = DIM) -> sp.MatrixSymbol:
    """A symbolic real column vector with `size` entries."""
    return sp.MatrixSymbol(name, size, 1)


def square(name: str, size: sp.Expr = DIM) -> sp.MatrixSymbol:
    """A symbolic real `size`×`size` matrix."""
    return sp.MatrixSymbol(name, size, size)


CONTENT_I, CONTENT_J = column("E_i"), column("E_j")
ABSOLUTE_I, ABSOLUTE_J = column("U_i"), column("U_j")
W_Q, W_K, W_KE, W_KR = square("W_q"), square("W_k"), square("W_kE"), square("W_kR")
U, V = column("u"), column("v")


def vanishes(expr: MatrixExpr) -> bool:
    """True when SymPy expands the matrix expression (products distributed over sums) to the zero matrix."""
    return sp.expand(expr) == sp.ZeroMatrix(*expr.shape)


def matrix_identity(lhs: MatrixExpr, rhs: MatrixExpr, justification: str, claim: str) -> Step:
    """A step asserting lhs = rhs for matrix expressions of symbolic size, checked by `vanishes`."""
    return fact(claim, justification, lambda: vanishes(lhs - rhs))


def absolute_score(
    e_i: sp.MatrixBase | MatrixExpr,
    u_i: sp.MatrixBase | MatrixExpr,
    e_j: sp.MatrixBase | MatrixExpr,
    u_j: sp.MatrixBase | MatrixExpr,
    w_q: sp.MatrixBase | MatrixExpr = W_Q,
    w_k: sp.MatrixBase | MatrixExpr = W_K,
) -> sp.MatrixBase | MatrixExpr:
    """The Transformer's score (W_q(E_i + U_i))ᵀ(W_k(E_j + U_j)), a 1×1 matrix."""
    return (w_q * (e_i + u_i)).T * (w_k * (e_j + u_j))


def four_terms() -> MatrixExpr:
    """Transformer-XL's terms (a) E_iᵀW_qᵀW_kE_j + (b) E_iᵀW_qᵀW_kU_j + (c) U_iᵀW_qᵀW_kE_j
    + (d) U_iᵀW_qᵀW_kU_j."""
    pairs = (
        (CONTENT_I, CONTENT_J),
        (CONTENT_I, ABSOLUTE_J),
        (ABSOLUTE_I, CONTENT_J),
        (ABSOLUTE_I, ABSOLUTE_J),
    )
    return sp.MatAdd(*(a.T * W_Q.T * W_K * b for a, b in pairs))


def relative_embedding(offset: sp.Expr) -> MatrixExpr:
    """R_offset: the column whose entry a is r(a, offset), r undefined (any relative embedding)."""
    row, col = sp.symbols("a b", integer=True, nonnegative=True)
    return sp.FunctionMatrix(DIM, 1, sp.Lambda((row, col), sp.Function("r")(row, offset)))


def relative_score(i: sp.Expr, j: sp.Expr) -> MatrixExpr:
    """Transformer-XL's A^rel_{ij} = E_iᵀW_qᵀW_{k,E}E_j + E_iᵀW_qᵀW_{k,R}R_{i−j} + uᵀW_{k,E}E_j
    + vᵀW_{k,R}R_{i−j}: the content embeddings E_i, E_j belong to the tokens, not to the positions."""
    r = relative_embedding(i - j)
    return sp.MatAdd(
        CONTENT_I.T * W_Q.T * W_KE * CONTENT_J,
        CONTENT_I.T * W_Q.T * W_KR * r,
        U.T * W_KE * CONTENT_J,
        V.T * W_KR * r,
    )


def score_shift_step(score: Score, name: str) -> Step:
    """score(i + t, j + t) = score(i, j) for symbolic integers i, j, t, checked by `vanishes`."""
    return matrix_identity(
        score(QUERY + SHIFT, KEY + SHIFT),
        score(QUERY, KEY),
        "every position enters through $R_{(i+t)-(j+t)} = R_{i-j}$; the other factors do not depend on "
        "positions",
        claim=rf"{name}_{{i+t,\,j+t}} = {name}_{{ij}}",
    )


def clip(x: sp.Expr, k: sp.Expr = DISTANCE) -> sp.Expr:
    """clip(x, −k, k) = min(max(x, −k), k)."""
    return sp.Min(sp.Max(x, -k), k)


def clipped_offset(i: sp.Expr, j: sp.Expr) -> sp.Expr:
    """Shaw et al.'s relative index of query i and key j: clip(j − i, −k, k)."""
    return clip(j - i)


def offset_shift_step(offset: Offset) -> Step:
    """offset(i + t, j + t) = offset(i, j) for symbolic integers i, j, t (and k ≥ 0), checked by SymPy."""
    return identity(
        offset(QUERY + SHIFT, KEY + SHIFT),
        offset(QUERY, KEY),
        r"$(j + t) - (i + t) = j - i$: the index of a shifted pair is the index of the pair",
        claim=r"\mathrm{clip}\bigl((j+t)-(i+t), -k, k\bigr) = \mathrm{clip}(j - i, -k, k)",
    )


def _table_rows_in_range() -> bool:
    """−k ≤ clip(x) ≤ k in each of the four cases: x = k + s, x = −k − s, and x = ±p with k = p + r."""
    window = INSIDE + SLACK
    cases = (
        (DISTANCE + BEYOND, DISTANCE),
        (-DISTANCE - BEYOND, DISTANCE),
        (INSIDE, window),
        (-INSIDE, window),
    )
    return all(
        bool((clip(x, k) + k).is_nonnegative) and bool((k - clip(x, k)).is_nonnegative) for x, k in cases
    )


@derivation(
    id="relative.clipped_offset",
    title="Shaw et al.'s clipped index depends on j − i only and needs 2k + 1 embeddings",
    statement=r"R_{ij} = \mathrm{clip}(j - i, -k, k) = c(j - i),\quad c(x) = x\ (|x| \le k),"
    r"\ c(x) = \pm k\ (\pm x \ge k),\quad c(x) + k \in \{0, \dots, 2k\}",
    hypotheses=(
        r"$i, j, t$ symbolic integers (query position, key position, shift); $k \ge 0$ a symbolic integer",
        r"$\mathrm{clip}(x, -k, k) = \min(\max(x, -k), k)$ (Shaw et al. 2018, §3.2: "
        r"$a_{ij} = w_{\mathrm{clip}(j-i,k)}$)",
        r"every integer $x$ is $k + s$, $-k - s$, $p$ or $-p$ with $s, p, r \ge 0$ integers and "
        r"$k = p + r$ in the last two cases",
    ),
)
def clipped_offset_derivation() -> Iterator[Step]:
    yield offset_shift_step(clipped_offset)
    yield identity(
        clipped_offset(QUERY, KEY),
        clipped_offset(0, KEY - QUERY),
        r"take $t = -i$: every entry is the entry of row 0 at the offset $j - i$ (negative offsets "
        r"included), so the matrix is constant along each diagonal (Toeplitz) whatever its shape",
        claim=r"R_{ij} = R_{0,\,j-i}",
    )
    yield identity(
        clip(DISTANCE + BEYOND),
        DISTANCE,
        r"$x = k + s \ge k$: the index saturates at $k$",
        claim=r"\mathrm{clip}(k + s, -k, k) = k",
    )
    yield identity(
        clip(-DISTANCE - BEYOND),
        -DISTANCE,
        r"$x = -k - s \le -k$: the index saturates at $-k$",
        claim=r"\mathrm{clip}(-k - s, -k, k) = -k",
    )
    yield identity(
        clip(INSIDE, INSIDE + SLACK),
        INSIDE,
        r"$0 \le x = p \le k = p + r$: inside the window the index is the offset itself",
        claim=r"\mathrm{clip}(p, -(p + r), p + r) = p",
    )
    yield identity(
        clip(-INSIDE, INSIDE + SLACK),
        -INSIDE,
        r"$-k \le x = -p \le 0$: the same for negative offsets",
        claim=r"\mathrm{clip}(-p, -(p + r), p + r) = -p",
    )
    yield fact(
        r"0 \le \mathrm{clip}(x, -k, k) + k \le 2k",
        r"SymPy decides the signs of $c + k$ and $2k - (c + k)$ in each of the four cases: the rows "
        r"$0, \dots, 2k$ of a table of $2k + 1$ relative embeddings $w_{-k}, \dots, w_k$ serve every pair",
        _table_rows_in_range,
    )


@derivation(
    id="relative.transformer_xl_four_terms",
    title="Transformer-XL: the absolute score is the sum of its four terms (a)–(d), in every dimension",
    statement=r"(W_q(E_i + U_i))^\top (W_k(E_j + U_j)) = \underbrace{E_i^\top W_q^\top W_k E_j}_{(a)}"
    r" + \underbrace{E_i^\top W_q^\top W_k U_j}_{(b)} + \underbrace{U_i^\top W_q^\top W_k E_j}_{(c)}"
    r" + \underbrace{U_i^\top W_q^\top W_k U_j}_{(d)}",
    hypotheses=(
        r"$E_i, E_j$ (content) and $U_i, U_j$ (absolute position) symbolic real $n \times 1$ columns, "
        r"$W_q, W_k$ symbolic real $n \times n$ matrices, $n \ge 1$ a symbolic integer",
        r"the matrix products are not commuted: SymPy distributes them over the sums only",
    ),
)
def transformer_xl_four_terms() -> Iterator[Step]:
    yield matrix_identity(
        (W_Q * (CONTENT_I + ABSOLUTE_I)).T,
        (CONTENT_I + ABSOLUTE_I).T * W_Q.T,
        r"$(AB)^\top = B^\top A^\top$",
        claim=r"(W_q(E_i + U_i))^\top = (E_i + U_i)^\top W_q^\top",
    )
    yield matrix_identity(
        absolute_score(CONTENT_I, ABSOLUTE_I, CONTENT_J, ABSOLUTE_J),
        four_terms(),
        "distribute both products over the two sums (bilinearity); SymPy expands the matrix expression "
        "of symbolic size to the four terms",
        claim=r"(W_q(E_i + U_i))^\top (W_k(E_j + U_j)) = (a) + (b) + (c) + (d)",
    )
    for size in (1, 2, 3):
        yield identity(
            absolute_score(CONTENT_I, ABSOLUTE_I, CONTENT_J, ABSOLUTE_J).subs(DIM, size).as_explicit(),
            four_terms().subs(DIM, size).as_explicit(),
            f"the same written out entry by entry at n = {size}: it agrees with the symbolic-size identity",
            claim=rf"n = {size}:\ (W_q(E_i + U_i))^\top (W_k(E_j + U_j)) = (a) + (b) + (c) + (d)",
        )


@derivation(
    id="relative.transformer_xl_offset",
    title="Transformer-XL's relative score sees the positions only through i − j, in every dimension",
    statement=r"A^{\mathrm{rel}}_{i+t,\,j+t} = A^{\mathrm{rel}}_{ij} = A^{\mathrm{rel}}_{i-j,\,0},\quad "
    r"A^{\mathrm{rel}}_{ij} = E_i^\top W_q^\top W_{k,E} E_j + E_i^\top W_q^\top W_{k,R} R_{i-j} "
    r"+ u^\top W_{k,E} E_j + v^\top W_{k,R} R_{i-j}",
    hypotheses=(
        r"$i, j, t$ symbolic integers; $E_i, E_j$ the tokens' content embeddings, $u, v$ learned "
        r"$n \times 1$ columns, $W_q, W_{k,E}, W_{k,R}$ $n \times n$ matrices, $n \ge 1$ symbolic",
        r"$R_m$ any relative embedding: the $n \times 1$ column with entries $r(a, m)$, $r$ an undefined "
        r"function (the sinusoid of the paper is one choice)",
        r"counterexample for the absolute score: $n = 1$, $E = 0$, $W_q = W_k = 1$, $U_p = p$",
    ),
)
def transformer_xl_offset() -> Iterator[Step]:
    yield matrix_identity(
        relative_embedding((QUERY + SHIFT) - (KEY + SHIFT)),
        relative_embedding(QUERY - KEY),
        r"$(i + t) - (j + t) = i - j$ in every entry $r(a, \cdot)$",
        claim=r"R_{(i+t)-(j+t)} = R_{i-j}",
    )
    yield score_shift_step(relative_score, r"A^{\mathrm{rel}}")
    yield matrix_identity(
        relative_score(QUERY, KEY),
        relative_score(QUERY - KEY, 0),
        r"take $t = -j$: the score is a function of $i - j$ alone",
        claim=r"A^{\mathrm{rel}}_{ij} = A^{\mathrm{rel}}_{i-j,\,0}",
    )

    def one_dimensional(i: int, j: int) -> sp.Matrix:
        zero, one = sp.zeros(1, 1), sp.eye(1)
        return absolute_score(zero, sp.Matrix([i]), zero, sp.Matrix([j]), one, one)

    yield inequality(
        one_dimensional(1 + 1, 0 + 1),
        one_dimensional(1, 0),
        r"the absolute score is not shift-free: with $U_p = p$ it is $i\,j$, and $(1+1)(0+1) = 2 \ne 0$; "
        r"the substitutions $U_j \to R_{i-j}$, $U_i^\top W_q^\top \to u^\top, v^\top$ remove the positions",
        claim=r"(d)_{i+1,\,j+1} \neq (d)_{ij} \quad (n = 1,\ U_p = p,\ i = 1,\ j = 0)",
    )
