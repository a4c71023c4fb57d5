"""Self-attention and position: permutation equivariance, invariance of the token-sum, the causal mask, and
absolute-encoding score terms.

Attn(X) = row-softmax(X W_Q (X W_K)ᵀ / √d) X W_V, the rows of X being the tokens. Sinusoidal blocks are the
row vectors p_i = (sin iω, cos iω); the offset matrix M_k satisfies p_{i+k} = p_i M_k.

Equivariance and the invariance of the token-sum are derived for a symbolic number of tokens n and symbolic
widths: index lemmas, with the permutation matrix written entry by entry as P_ab = [b = σ(a)] for an undefined
σ, then SymPy MatrixSymbol algebra with P orthogonal. The n = 3 checks, entry by entry for every permutation,
are kept beside them as corroboration.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import sympy as sp
from sympy.matrices.expressions import DiagMatrix, MatMul
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction
from sympy.matrices.expressions.matexpr import MatrixExpr

from .derivation import Expr, Step, derivation, fact, identity, inequality, is_zero

#: A row-wise softmax: score matrix ↦ attention-weight matrix.
Softmax = Callable[[sp.Matrix], sp.Matrix]
#: A rational point (cos ω, sin ω) of the unit circle.
CosSin = tuple[sp.Rational, sp.Rational]

POS_I, POS_J = sp.symbols("i j", real=True)
OMEGA = sp.Symbol("omega", positive=True)
NONZERO_N = sp.Symbol("n", integer=True, nonzero=True)


def matrix(name: str, rows: int, cols: int) -> sp.Matrix:
    """A symbolic real rows×cols matrix with entries name_{ab}."""
    return sp.Matrix([[sp.Symbol(f"{name}_{a}{b}", real=True) for b in range(cols)] for a in range(rows)])


def permutation_matrix(perm: Sequence[int]) -> sp.Matrix:
    """The permutation matrix P with (PX)_r = X_{perm[r]} (row r of PX is row perm[r] of X)."""
    if not perm or sorted(perm) != list(range(len(perm))):
        raise ValueError(f"perm must list each of 0, …, n−1 exactly once (n ≥ 1), got {list(perm)}")
    p = sp.zeros(len(perm), len(perm))
    for row, source in enumerate(perm):
        p[row, source] = 1
    return p


def row_softmax(scores: sp.Matrix) -> sp.Matrix:
    """softmax of each row: entry (a, b) is exp(S_ab) / Σ_c exp(S_ac)."""
    rows, cols = scores.shape
    return sp.Matrix(
        [
            [sp.exp(scores[a, b]) / sum(sp.exp(scores[a, c]) for c in range(cols)) for b in range(cols)]
            for a in range(rows)
        ]
    )


def causal_row_softmax(scores: sp.Matrix) -> sp.Matrix:
    """softmax of each row over the keys b ≤ a only (a causal mask): entries above the diagonal are 0."""
    rows, cols = scores.shape
    return sp.Matrix(
        [
            [
                sp.exp(scores[a, b]) / sum(sp.exp(scores[a, c]) for c in range(a + 1)) if b <= a else 0
                for b in range(cols)
            ]
            for a in range(rows)
        ]
    )


def attention(
    x: sp.Matrix, w_q: sp.Matrix, w_k: sp.Matrix, w_v: sp.Matrix, softmax: Softmax = row_softmax
) -> sp.Matrix:
    """Single-head self-attention softmax(X W_Q (X W_K)ᵀ / √d) X W_V, with d the number of columns of W_K."""
    scores = x * w_q * (x * w_k).T / sp.sqrt(w_k.cols)
    return softmax(scores) * x * w_v


def permutation_is_orthogonal_step(p: sp.Matrix) -> Step:
    """PᵀP = I: a permutation matrix is orthogonal, so Pᵀ undoes P."""
    return identity(
        p.T * p,
        sp.eye(p.rows),
        "one 1 in each row and in each column",
        claim=rf"P^\top P = I \quad (P = {sp.latex(p)})",
    )


def softmax_lemma_step(softmax: Softmax, perm: Sequence[int]) -> Step:
    """softmax(P S Pᵀ) = P softmax(S) Pᵀ for a symbolic n×n score matrix S (n = len(perm))."""
    p, s = permutation_matrix(perm), matrix("S", len(perm), len(perm))
    return identity(
        softmax(p * s * p.T),
        p * softmax(s) * p.T,
        "row a of P S Pᵀ is row perm[a] of S with its entries permuted, and a row's softmax "
        "normaliser is a sum over all its entries, which a permutation does not change",
        claim=rf"\mathrm{{softmax}}(P S P^\top) = P\,\mathrm{{softmax}}(S)\,P^\top \quad "
        rf"(\pi = {tuple(perm)})",
    )


def scores_step(perm: Sequence[int], x: sp.Matrix, w_q: sp.Matrix, w_k: sp.Matrix) -> Step:
    """(PX) W_Q ((PX) W_K)ᵀ = P (X W_Q (X W_K)ᵀ) Pᵀ."""
    p = permutation_matrix(perm)
    return identity(
        (p * x) * w_q * (p * x * w_k).T,
        p * (x * w_q * (x * w_k).T) * p.T,
        "(AB)ᵀ = BᵀAᵀ and associativity",
        claim=rf"(PX) W_Q ((PX) W_K)^\top = P\,X W_Q (X W_K)^\top P^\top \quad "
        rf"(\pi = {tuple(perm)})",
    )


def equivariance_step(
    softmax: Softmax, perm: Sequence[int], x: sp.Matrix, w_q: sp.Matrix, w_k: sp.Matrix, w_v: sp.Matrix
) -> Step:
    """Attn(PX) = P Attn(X) for the given inputs and softmax."""
    p = permutation_matrix(perm)
    attn = _name(softmax)
    return identity(
        attention(p * x, w_q, w_k, w_v, softmax),
        p * attention(x, w_q, w_k, w_v, softmax),
        "the scores become P S Pᵀ, the softmax lemma gives P softmax(S/√d) Pᵀ, and Pᵀ P = I",
        claim=rf"{attn}(PX) = P\,{attn}(X) \quad (\pi = {tuple(perm)})",
    )


def equivariance_fails_step(
    softmax: Softmax, perm: Sequence[int], x: sp.Matrix, w_q: sp.Matrix, w_k: sp.Matrix, w_v: sp.Matrix
) -> Step:
    """Attn(PX) ≠ P Attn(X) exactly, on concrete inputs."""
    p = permutation_matrix(perm)
    lhs, rhs = attention(p * x, w_q, w_k, w_v, softmax), p * attention(x, w_q, w_k, w_v, softmax)
    attn = _name(softmax)
    return inequality(
        lhs,
        rhs,
        "both sides evaluated exactly; some entry of the difference is nonzero",
        claim=rf"{attn}(PX) = {sp.latex(lhs)} \neq {sp.latex(rhs)} = P\,{attn}(X)",
    )


def _name(softmax: Softmax) -> str:
    return r"\mathrm{Attn}_{\mathrm{causal}}" if softmax is causal_row_softmax else r"\mathrm{Attn}"


def invariance_fails_step(
    perm: Sequence[int], x: sp.Matrix, w_q: sp.Matrix, w_k: sp.Matrix, w_v: sp.Matrix
) -> Step:
    """Attn(PX) ≠ Attn(X) exactly, on concrete inputs: equivariance is not invariance."""
    p = permutation_matrix(perm)
    lhs, rhs = attention(p * x, w_q, w_k, w_v), attention(x, w_q, w_k, w_v)
    return inequality(
        lhs,
        rhs,
        "the output rows move with the input rows, and the rows of Attn(X) differ",
        claim=rf"\mathrm{{Attn}}(PX) = {sp.latex(lhs)} \neq {sp.latex(rhs)} "
        rf"= \mathrm{{Attn}}(X)",
    )


#: A concrete example whose attention weights are rational: the scaled scores are log 2 · X Xᵀ.
EXAMPLE_X = sp.Matrix([[1, 0], [0, 1], [1, 1]])
EXAMPLE_W_Q = sp.sqrt(2) * sp.log(2) * sp.eye(2)
EXAMPLE_W_K = sp.eye(2)
EXAMPLE_W_V = sp.eye(2)
EXAMPLE = (EXAMPLE_X, EXAMPLE_W_Q, EXAMPLE_W_K, EXAMPLE_W_V)
SWAP = (1, 0, 2)
_EXAMPLE_TEXT = r"$X = ((1,0),(0,1),(1,1))$, $W_Q = \sqrt2 \log 2\, I$, $W_K = W_V = I$ ($d = 2$)"


# Symbolic number of tokens: the chain of `permutation_equivariance` and `pooled_output_invariance`.
#
# Attn(X) = D(X)⁻¹ E(X) X W_V with S(X) = X W_Q (X W_K)ᵀ/√d_k, E = exp∘S entrywise, D = diag(E𝟙). Matrix steps
# use SymPy MatrixSymbols of symbolic size; index steps write P entry by entry as P_ab = [b = σ(a)] for an
# undefined σ (SymPy's KroneckerDelta with the index range 0, …, n − 1) and let SymPy evaluate the index sums.

#: Symbolic sizes: n tokens, model width d, key width d_k, value width d_v.
TOKENS = sp.Symbol("n", integer=True, positive=True)
MODEL_WIDTH, KEY_WIDTH, VALUE_WIDTH = sp.symbols("d d_k d_v", integer=True, positive=True)
SYMBOLIC_X = sp.MatrixSymbol("X", TOKENS, MODEL_WIDTH)
SYMBOLIC_W_Q = sp.MatrixSymbol("W_Q", MODEL_WIDTH, KEY_WIDTH)
SYMBOLIC_W_K = sp.MatrixSymbol("W_K", MODEL_WIDTH, KEY_WIDTH)
SYMBOLIC_W_V = sp.MatrixSymbol("W_V", MODEL_WIDTH, VALUE_WIDTH)
#: The permutation matrix, an n×n MatrixSymbol; ORTHOGONAL (PᵀP = PPᵀ = I) is what the matrix steps assume.
PERMUTATION = sp.MatrixSymbol("P", TOKENS, TOKENS)
ORTHOGONAL = sp.Q.orthogonal(PERMUTATION)
ONES = sp.OneMatrix(TOKENS, 1)
#: exp as one fixed Lambda, so that exp∘S built twice is the same expression.
_Z = sp.Symbol("z")
EXP = sp.Lambda(_Z, sp.exp(_Z))
#: The permutation σ of the index form, its index range, the entry indices and the Lambda variables.
SIGMA = sp.Function("sigma")
INDEX_RANGE = (0, TOKENS - 1)
INDEX_I, INDEX_J = sp.symbols("i j", integer=True, nonnegative=True)
_ROW, _COL = sp.symbols("a b", integer=True, nonnegative=True)

#: A row-wise softmax on matrix expressions of symbolic size: score matrix ↦ attention-weight matrix.
SymbolicSoftmax = Callable[[MatrixExpr], MatrixExpr]
#: What a softmax divides by, as a function of E = exp∘S: E ↦ E𝟙 (the row sums) for the softmax over each row.
Normaliser = Callable[[MatrixExpr], MatrixExpr]


def symbolic_scores(x: MatrixExpr) -> MatrixExpr:
    """S(X) = X W_Q (X W_K)ᵀ / √d_k, of symbolic size n×n."""
    return x * SYMBOLIC_W_Q * (x * SYMBOLIC_W_K).T / sp.sqrt(KEY_WIDTH)


def row_sums(e: MatrixExpr) -> MatrixExpr:
    """E𝟙: the normaliser of the softmax over each row."""
    return e * ONES


def symbolic_row_softmax(scores: MatrixExpr) -> MatrixExpr:
    """D⁻¹E with E = exp∘S (entrywise) and D = diag(E𝟙)."""
    e = ElementwiseApplyFunction(EXP, scores)
    return sp.Inverse(DiagMatrix(row_sums(e))) * e


def symbolic_attention(x: MatrixExpr, softmax: SymbolicSoftmax = symbolic_row_softmax) -> MatrixExpr:
    """Attn(X) = softmax(S(X)) X W_V = D(X)⁻¹ E(X) X W_V, of symbolic size n×d_v."""
    return softmax(symbolic_scores(x)) * x * SYMBOLIC_W_V


def index_permutation(sigma: sp.FunctionClass = SIGMA) -> sp.FunctionMatrix:
    """P_ab = [b = σ(a)] (row a of PX is row σ(a) of X), n×n with n symbolic and σ(a) in 0, …, n − 1."""
    return sp.FunctionMatrix(
        TOKENS, TOKENS, sp.Lambda((_ROW, _COL), sp.KroneckerDelta(sigma(_ROW), _COL, INDEX_RANGE))
    )


def index_matrix(name: str, cols: sp.Expr = TOKENS) -> sp.FunctionMatrix:
    """The n×cols matrix whose entry (a, b) is name(a, b), name an undefined function."""
    return sp.FunctionMatrix(TOKENS, cols, sp.Lambda((_ROW, _COL), sp.Function(name)(_ROW, _COL)))


def index_diagonal_inverse(column: MatrixExpr) -> sp.FunctionMatrix:
    """diag(v)⁻¹ entry by entry, [a = b] / v_a, for a column v of nonzero entries."""
    return sp.FunctionMatrix(
        TOKENS, TOKENS, sp.Lambda((_ROW, _COL), sp.KroneckerDelta(_ROW, _COL, INDEX_RANGE) / column[_ROW, 0])
    )


def entry(m: MatrixExpr, row: sp.Expr = INDEX_I, col: sp.Expr = INDEX_J) -> sp.Expr:
    """Entry (row, col) of a matrix expression, its index sums evaluated by SymPy."""
    return m[row, col].doit()


def vanishes(expr: MatrixExpr) -> bool:
    """True when SymPy expands the matrix expression to the zero matrix."""
    expanded = sp.expand(expr)
    return expanded == 0 or expanded == sp.ZeroMatrix(*expr.shape)


def flatten(expr: MatrixExpr) -> MatrixExpr:
    """Nested matrix products merged into one and identity factors dropped, so that Pᵀ𝟙 or PᵀP is matched."""
    return expr.replace(lambda e: isinstance(e, MatMul), lambda e: MatMul(*e.args, evaluate=True))


def _conjugated(m: MatrixExpr, p: MatrixExpr) -> MatrixExpr | None:
    """M when m = c·P M Pᵀ for a scalar c, else None."""
    if not isinstance(m, MatMul):
        return None
    coefficient, factors = m.as_coeff_matrices()
    if len(factors) < 3 or factors[0] != p or factors[-1] != p.T:
        return None
    return coefficient * MatMul(*factors[1:-1], evaluate=True)


def _permuted(column: MatrixExpr, p: MatrixExpr) -> MatrixExpr | None:
    """w when column = c·P w for a scalar c, else None."""
    if not isinstance(column, MatMul):
        return None
    coefficient, factors = column.as_coeff_matrices()
    if len(factors) < 2 or factors[0] != p:
        return None
    return coefficient * MatMul(*factors[1:], evaluate=True)


def _is_entrywise_of_conjugate(e: sp.Basic, p: MatrixExpr) -> bool:
    return isinstance(e, ElementwiseApplyFunction) and _conjugated(e.expr, p) is not None


def _is_inverse_diagonal_of_permuted(e: sp.Basic, p: MatrixExpr) -> bool:
    return (
        isinstance(e, sp.Inverse)
        and isinstance(e.arg, DiagMatrix)
        and _permuted(e.arg._vector, p) is not None  # DiagMatrix keeps its column in _vector
    )


def apply_permutation_lemmas(
    expr: MatrixExpr, assumption: sp.Basic = ORTHOGONAL, p: MatrixExpr = PERMUTATION
) -> MatrixExpr:
    """expr rewritten, until nothing changes, by the lemmas the index steps check and SymPy's `refine`.

    Always f∘(c·PMPᵀ) = P (f∘(c·M)) Pᵀ (entrywise functions, any σ into range). Only when SymPy derives
    Q.orthogonal(P) from `assumption`: Pᵀ𝟙 = 𝟙, diag(c·Pw)⁻¹ = P diag(c·w)⁻¹ Pᵀ (both need PPᵀ = PᵀP = I),
    and the cancellation of each PᵀP, PPᵀ by `refine`. A weaker assumption leaves all three out.
    """
    orthogonal = sp.ask(sp.Q.orthogonal(p), assumption) is True
    for _ in range(8):
        new = expr.replace(
            lambda e: _is_entrywise_of_conjugate(e, p),
            lambda e: p * ElementwiseApplyFunction(e.function, _conjugated(e.expr, p)) * p.T,
        )
        new = flatten(new)
        if orthogonal:
            new = new.subs(p.T * ONES, ONES).replace(
                lambda e: _is_inverse_diagonal_of_permuted(e, p),
                lambda e: p * sp.Inverse(DiagMatrix(_permuted(e.arg._vector, p))) * p.T,
            )
            new = flatten(sp.refine(new, assumption))
        if new == expr:
            break
        expr = new
    return expr


def index_rows_step(p: MatrixExpr | None = None) -> Step:
    """P𝟙 = 𝟙 for P_ab = [b = σ(a)], n symbolic: each row holds one 1."""
    p = index_permutation() if p is None else p
    return fact(
        r"(P\mathbf{1})_i = \textstyle\sum_b [b = \sigma(i)] = 1,\ \text{so } P\mathbf{1} = \mathbf{1} "
        r"\quad (P_{ab} = [b = \sigma(a)],\ n \text{ symbolic})",
        "SymPy evaluates the index sum over b = 0, …, n − 1: σ(i) is in range, so exactly one term is 1",
        lambda: is_zero(entry(p * sp.OneMatrix(TOKENS, 1), INDEX_I, 0) - 1),
    )


def index_gram_step(p: MatrixExpr | None = None) -> Step:
    """(PPᵀ)_ij = [σ(i) = σ(j)]: PPᵀ = I exactly when σ is injective."""
    p = index_permutation() if p is None else p
    return fact(
        r"(P P^\top)_{ij} = \textstyle\sum_b [b = \sigma(i)][b = \sigma(j)] = [\sigma(i) = \sigma(j)]",
        "SymPy evaluates the index sum. It is δ_ij exactly when σ is injective, i.e. a permutation of "
        "0, …, n − 1; then PPᵀ = I and, P being square, PᵀP = I. SymPy cannot reindex the sum "
        "(PᵀP)_ij = Σ_c [σ(c) = i][σ(c) = j] by an undefined bijection, so the matrix steps below take "
        "PᵀP = PPᵀ = I as the assumption Q.orthogonal(P)",
        lambda: is_zero(entry(p * p.T) - sp.KroneckerDelta(SIGMA(INDEX_I), SIGMA(INDEX_J), INDEX_RANGE)),
    )


def ones_fixed_step(assumption: sp.Basic = ORTHOGONAL) -> Step:
    """Pᵀ𝟙 = PᵀP𝟙 = 𝟙: the column sums of P are 1."""
    p = PERMUTATION
    return fact(
        r"P^\top \mathbf{1} = P^\top (P \mathbf{1}) = \mathbf{1},\ "
        r"\text{so } \mathbf{1}^\top P = \mathbf{1}^\top",
        "𝟙 = P𝟙 (each row of P holds one 1), and SymPy's refine under Q.orthogonal(P) cancels PᵀP",
        lambda: vanishes(flatten(sp.refine(p.T * (p * ONES), assumption)) - ONES),
    )


def symbolic_scores_step(scores: Callable[[MatrixExpr], MatrixExpr] = symbolic_scores) -> Step:
    """S(PX) = P S(X) Pᵀ for MatrixSymbols of symbolic size."""
    p = PERMUTATION
    return fact(
        r"S(PX) = (PX) W_Q (PX W_K)^\top / \sqrt{d_k} = P\,S(X)\,P^\top "
        r"\quad (X \in \mathbb{R}^{n \times d},\ W_Q, W_K \in \mathbb{R}^{d \times d_k})",
        "(AB)ᵀ = BᵀAᵀ and associativity; SymPy expands the difference of the n×n matrix expressions to 0",
        lambda: vanishes(scores(p * SYMBOLIC_X) - p * scores(SYMBOLIC_X) * p.T),
    )


def entrywise_step(p: MatrixExpr | None = None) -> Step:
    """f∘(PSPᵀ) = P (f∘S) Pᵀ entry by entry, for an undefined f (every entrywise function) and for exp."""
    p = index_permutation() if p is None else p
    s = index_matrix("S")

    def commutes(f: sp.FunctionClass) -> bool:
        applied = sp.FunctionMatrix(TOKENS, TOKENS, sp.Lambda((_ROW, _COL), f(s[_ROW, _COL])))
        return is_zero(f(entry(p * s * p.T)) - entry(p * applied * p.T))

    return fact(
        r"(P S P^\top)_{ij} = S_{\sigma(i)\sigma(j)},\ "
        r"\text{so } f \circ (P S P^\top) = P\,(f \circ S)\,P^\top \text{ for every } f:\ "
        r"E(PX) = \exp \circ S(PX) = P\,E(X)\,P^\top",
        "index argument: SymPy evaluates both entries (i, j) to f(S_σ(i)σ(j)) for an undefined f and an "
        "undefined n×n matrix S, and for f = exp",
        lambda: commutes(sp.Function("f")) and commutes(sp.exp),
    )


def normaliser_step(normaliser: Normaliser = row_sums, assumption: sp.Basic = ORTHOGONAL) -> Step:
    """E(PX)𝟙 = P E(X) Pᵀ 𝟙 = P E(X) 𝟙: the row sums move with the rows."""
    p, e = PERMUTATION, ElementwiseApplyFunction(EXP, symbolic_scores(SYMBOLIC_X))
    return fact(
        r"E(PX)\mathbf{1} = P E(X) P^\top \mathbf{1} = P\,E(X)\mathbf{1},\ \text{so } "
        r"D(PX) = \mathrm{diag}(P v),\ v = E(X)\mathbf{1}",
        "E(PX) = P E(X) Pᵀ and Pᵀ𝟙 = 𝟙: a row's normaliser sums all its entries, and a permutation "
        "of the keys does not change that sum",
        lambda: vanishes(
            apply_permutation_lemmas(
                normaliser(ElementwiseApplyFunction(EXP, symbolic_scores(p * SYMBOLIC_X))), assumption
            )
            - p * normaliser(e)
        ),
    )


def diagonal_step(p: MatrixExpr | None = None) -> Step:
    """diag(Pv)⁻¹ P = P diag(v)⁻¹ entry by entry (applied to any n×m matrix A), v of nonzero entries."""
    p = index_permutation() if p is None else p
    v, a = index_matrix("v", 1), index_matrix("A", sp.Symbol("m", integer=True, positive=True))
    return fact(
        r"\mathrm{diag}(Pv)^{-1} P = P\,\mathrm{diag}(v)^{-1},\ \text{so } "
        r"D(PX)^{-1} = \mathrm{diag}(Pv)^{-1} = P\,D(X)^{-1} P^\top",
        "index argument: SymPy evaluates entry (i, j) of diag(Pv)⁻¹PA and of P diag(v)⁻¹A to "
        "A_σ(i)j / v_σ(i) for undefined v (nonzero entries; here the row sums of exp, which are positive) "
        "and an undefined n×m matrix A; then multiply by Pᵀ on the right, PPᵀ = I",
        lambda: is_zero(
            entry(index_diagonal_inverse(p * v) * p * a) - entry(p * index_diagonal_inverse(v) * a)
        ),
    )


def symbolic_equivariance_step(
    softmax: SymbolicSoftmax = symbolic_row_softmax, assumption: sp.Basic = ORTHOGONAL
) -> Step:
    """Attn(PX) = P Attn(X) for symbolic n, d, d_k, d_v: the lemmas above, then PᵀP = I."""
    p = PERMUTATION
    return fact(
        r"\mathrm{Attn}(PX) = D(PX)^{-1} E(PX)\, PX W_V = P D(X)^{-1} P^\top\, P E(X) P^\top\, P X W_V "
        r"= P\,\mathrm{Attn}(X) \quad (n, d, d_k, d_v \text{ symbolic})",
        "rewrite Attn(PX) with the lemmas (E(PX) = P E Pᵀ, Pᵀ𝟙 = 𝟙, diag(Pv)⁻¹ = P diag(v)⁻¹ Pᵀ), let "
        "SymPy's refine under Q.orthogonal(P) cancel each PᵀP, and expand the difference to the zero matrix",
        lambda: vanishes(
            apply_permutation_lemmas(symbolic_attention(p * SYMBOLIC_X, softmax), assumption)
            - p * symbolic_attention(SYMBOLIC_X, softmax)
        ),
    )


def symbolic_pooled_step(
    softmax: SymbolicSoftmax = symbolic_row_softmax, assumption: sp.Basic = ORTHOGONAL
) -> Step:
    """1ᵀ Attn(PX) = 1ᵀ P Attn(X) = 1ᵀ Attn(X) for symbolic n, d, d_k, d_v."""
    p = PERMUTATION
    return fact(
        r"\mathbf{1}^\top \mathrm{Attn}(PX) = \mathbf{1}^\top P\,\mathrm{Attn}(X) = \mathbf{1}^\top "
        r"\mathrm{Attn}(X) \quad (n, d, d_k, d_v \text{ symbolic})",
        "Attn(PX) = P Attn(X) by the same rewriting, then 1ᵀP = 1ᵀ",
        lambda: vanishes(
            apply_permutation_lemmas(ONES.T * symbolic_attention(p * SYMBOLIC_X, softmax), assumption).subs(
                ONES.T * p, ONES.T
            )
            - ONES.T * symbolic_attention(SYMBOLIC_X, softmax)
        ),
    )


def universal_equivariance_steps() -> list[Step]:
    """The chain for a symbolic number of tokens: P in index form, then the matrix algebra."""
    return [
        index_rows_step(),
        index_gram_step(),
        ones_fixed_step(),
        symbolic_scores_step(),
        entrywise_step(),
        normaliser_step(),
        diagonal_step(),
        symbolic_equivariance_step(),
    ]


_UNIVERSAL_TEXT = (
    r"Universal chain: $n \ge 1$ tokens, model width $d$, key width $d_k$ and value width $d_v$ all "
    r"symbolic; $X \in \mathbb{R}^{n \times d}$, $W_Q, W_K \in \mathbb{R}^{d \times d_k}$, "
    r"$W_V \in \mathbb{R}^{d \times d_v}$ symbolic matrices (SymPy MatrixSymbols). "
    r"$\mathrm{Attn}(X) = D^{-1} E X W_V$ with $S = X W_Q (X W_K)^\top / \sqrt{d_k}$, $E = \exp \circ S$ "
    r"entrywise and $D = \mathrm{diag}(E\mathbf{1})$, whose entries are positive (the statement's $d$ is the "
    r"key width $d_k$)."
)
_PERMUTATION_TEXT = (
    r"$P$ is the matrix of a permutation $\sigma$ of $\lbrace 0, \dots, n-1 \rbrace$: in the index steps "
    r"$P_{ab} = [b = \sigma(a)]$ with $\sigma$ an undefined function into that range. That $\sigma$ is a "
    r"bijection, i.e. $P^\top P = P P^\top = I$, is not derived for symbolic $n$ (SymPy cannot reindex a "
    r"sum by an undefined bijection): the matrix steps take it as SymPy's assumption "
    r"$Q.\mathrm{orthogonal}(P)$; "
    r"$(P P^\top)_{ij} = [\sigma(i) = \sigma(j)]$ and $P\mathbf{1} = \mathbf{1}$ are computed."
)
_REWRITE_TEXT = (
    r"The last matrix step rewrites $\mathrm{Attn}(PX)$ with the lemmas of the index steps, used as "
    r"patterns: "
    r"$f \circ (c\,PMP^\top) = P (f \circ cM) P^\top$, $P^\top \mathbf{1} = \mathbf{1}$ and "
    r"$\mathrm{diag}(c\,Pw)^{-1} = P\,\mathrm{diag}(c\,w)^{-1} P^\top$ (for every matrix $M$, column $w$ "
    r"of nonzero entries and scalar $c$), then SymPy's refine under $Q.\mathrm{orthogonal}(P)$."
)


@derivation(
    id="attention.permutation_equivariance",
    title="Unmasked self-attention is permutation-equivariant (not invariant)",
    statement=r"\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X), \quad "
    r"\mathrm{Attn}(X) = \mathrm{softmax}\big(X W_Q (X W_K)^\top / \sqrt{d}\big)\, X W_V",
    hypotheses=(
        r"No mask and no positional encoding; softmax is taken over each row.",
        _UNIVERSAL_TEXT,
        _PERMUTATION_TEXT,
        _REWRITE_TEXT,
        r"Corroboration at $n = 3$, entry by entry: $S$ a symbolic $3 \times 3$ matrix, $X$ a symbolic "
        r"$3 \times 2$ matrix, $W_Q, W_K, W_V$ symbolic $2 \times 2$ ($d = 2$), all 6 permutations.",
        rf"Invariance counterexample: {_EXAMPLE_TEXT}, $P$ swapping tokens 0 and 1.",
    ),
)
def permutation_equivariance() -> list[Step]:
    x, w_q, w_k, w_v = matrix("X", 3, 2), matrix("Q", 2, 2), matrix("K", 2, 2), matrix("V", 2, 2)
    steps = universal_equivariance_steps()
    for perm in itertools.permutations(range(3)):
        steps += [
            permutation_is_orthogonal_step(permutation_matrix(perm)),
            softmax_lemma_step(row_softmax, perm),
            scores_step(perm, x, w_q, w_k),
            equivariance_step(row_softmax, perm, x, w_q, w_k, w_v),
        ]
    return [*steps, invariance_fails_step(SWAP, *EXAMPLE)]


def ones_row_step(perm: Sequence[int]) -> Step:
    """1ᵀP = 1ᵀ: every column of a permutation matrix holds one 1, so summing over the tokens undoes P."""
    p, ones = permutation_matrix(perm), sp.ones(1, len(perm))
    return identity(
        ones * p,
        ones,
        "one 1 in each column of P",
        claim=rf"\mathbf{{1}}^\top P = \mathbf{{1}}^\top \quad (\pi = {tuple(perm)})",
    )


def pooled_invariance_step(
    softmax: Softmax, perm: Sequence[int], x: sp.Matrix, w_q: sp.Matrix, w_k: sp.Matrix, w_v: sp.Matrix
) -> Step:
    """1ᵀ Attn(PX) = 1ᵀ Attn(X): the sum of the output rows over the tokens does not see the permutation."""
    p, ones = permutation_matrix(perm), sp.ones(1, x.rows)
    attn = _name(softmax)
    return identity(
        ones * attention(p * x, w_q, w_k, w_v, softmax),
        ones * attention(x, w_q, w_k, w_v, softmax),
        "Attn(PX) = P Attn(X) (attention.permutation_equivariance) and 1ᵀP = 1ᵀ",
        claim=rf"\mathbf{{1}}^\top {attn}(PX) = \mathbf{{1}}^\top {attn}(X) \quad (\pi = {tuple(perm)})",
    )


@derivation(
    id="attention.pooled_output_invariance",
    title="The token-sum of unmasked self-attention is permutation-invariant",
    statement=r"\mathbf{1}^\top \mathrm{Attn}(PX) = \mathbf{1}^\top \mathrm{Attn}(X) "
    r"\text{ for every permutation matrix } P",
    hypotheses=(
        r"No mask and no positional encoding; softmax is taken over each row.",
        _UNIVERSAL_TEXT,
        _PERMUTATION_TEXT,
        _REWRITE_TEXT + r" The same chain as attention.permutation_equivariance gives "
        r"$\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X)$; then $\mathbf{1}^\top P = \mathbf{1}^\top$.",
        r"Corroboration at $n = 3$, entry by entry: $X$ a symbolic $3 \times 2$ matrix, $W_Q, W_K, W_V$ "
        r"symbolic $2 \times 2$ ($d = 2$), all 6 permutations.",
        r"Any pooling that sums or averages over the tokens ($\tfrac{1}{n}\mathbf{1}^\top$) inherits the "
        r"invariance.",
    ),
)
def pooled_output_invariance() -> list[Step]:
    x, w_q, w_k, w_v = matrix("X", 3, 2), matrix("Q", 2, 2), matrix("K", 2, 2), matrix("V", 2, 2)
    steps = [*universal_equivariance_steps(), symbolic_pooled_step()]
    for perm in itertools.permutations(range(3)):
        steps += [ones_row_step(perm), pooled_invariance_step(row_softmax, perm, x, w_q, w_k, w_v)]
    return steps


def mask_moves_step(perm: Sequence[int], n: int = 3) -> Step:
    """P C Pᵀ ≠ C for the causal pattern C (ones on and below the diagonal): the mask moves under P."""
    p, causal = permutation_matrix(perm), sp.Matrix([[int(b <= a) for b in range(n)] for a in range(n)])
    return inequality(
        p * causal * p.T,
        causal,
        "the permuted pattern lets a token see a later one",
        claim=rf"P C P^\top = {sp.latex(p * causal * p.T)} \neq {sp.latex(causal)} = C",
    )


@derivation(
    id="attention.causal_mask_breaks_equivariance",
    title="With a causal mask, self-attention is not permutation-equivariant",
    statement=r"\exists X, W, P:\ "
    r"\mathrm{Attn}_{\mathrm{causal}}(PX) \neq P\,\mathrm{Attn}_{\mathrm{causal}}(X)",
    hypotheses=(
        r"Causal mask: token $a$ attends to tokens $b \le a$ only.",
        rf"{_EXAMPLE_TEXT}, so every scaled score is an integer multiple of $\log 2$ and every weight is "
        r"rational.",
        r"$P$ swaps tokens 0 and 1.",
    ),
)
def causal_mask_breaks_equivariance() -> list[Step]:
    return [
        mask_moves_step(SWAP),
        equivariance_step(row_softmax, SWAP, *EXAMPLE),
        equivariance_fails_step(causal_row_softmax, SWAP, *EXAMPLE),
    ]


def sinusoidal_row(position: sp.Expr, omegas: Sequence[sp.Expr]) -> sp.Matrix:
    """The sinusoidal row vector (sin pω_0, cos pω_0, sin pω_1, cos pω_1, …)."""
    return sp.Matrix([[f(position * w) for w in omegas for f in (sp.sin, sp.cos)]])


def offset_matrix(k: sp.Expr, omegas: Sequence[sp.Expr]) -> sp.Matrix:
    """M_k = diag over l of [[cos kω_l, −sin kω_l], [sin kω_l, cos kω_l]], so that p_{i+k} = p_i M_k."""
    blocks = (sp.Matrix([[sp.cos(k * w), -sp.sin(k * w)], [sp.sin(k * w), sp.cos(k * w)]]) for w in omegas)
    return sp.diag(*blocks)


def scaled_rotation(a: sp.Expr, b: sp.Expr) -> sp.Matrix:
    """The 2×2 block [[a, −b], [b, a]] (a scaled rotation), which commutes with every rotation."""
    return sp.Matrix([[a, -b], [b, a]])


def scaled_rotations(count: int) -> sp.Matrix:
    """Block-diagonal A with symbolic blocks [[a_l, −b_l], [b_l, a_l]], l = 0, …, count − 1."""
    return sp.diag(*(scaled_rotation(*sp.symbols(f"a_{k} b_{k}", real=True)) for k in range(count)))


def position_term(a: sp.Matrix, i: sp.Expr, j: sp.Expr, omegas: Sequence[sp.Expr]) -> sp.Expr:
    """The position–position score p_i A p_jᵀ."""
    return (sinusoidal_row(i, omegas) * a * sinusoidal_row(j, omegas).T)[0]


def offset_step(omegas: Sequence[sp.Expr]) -> Step:
    """p_{i+k} = p_i M_k for symbolic i, k."""
    k = sp.Symbol("k", real=True)
    lhs, rhs = sinusoidal_row(POS_I + k, omegas), sinusoidal_row(POS_I, omegas) * offset_matrix(k, omegas)
    return identity(
        lhs,
        rhs,
        "angle-addition formulas for sin and cos",
        claim=rf"p_{{i+k}} = p_i M_k \quad (d = {2 * len(omegas)})",
    )


def commutes_step(a: sp.Matrix, omegas: Sequence[sp.Expr]) -> Step:
    """A M_k = M_k A for symbolic k."""
    m_k = offset_matrix(sp.Symbol("k", real=True), omegas)
    return identity(
        a * m_k, m_k * a, "multiply out both products", claim=rf"A M_k = M_k A \quad (A = {sp.latex(a)})"
    )


def factorisation_step(a: sp.Matrix, omegas: Sequence[sp.Expr]) -> Step:
    """p_i A p_jᵀ = p_0 M_i A M_{−j} p_0ᵀ for any A: p_i = p_0 M_i and M_jᵀ = M_{−j}."""
    p_0 = sinusoidal_row(0, omegas)
    rhs = (p_0 * offset_matrix(POS_I, omegas) * a * offset_matrix(-POS_J, omegas) * p_0.T)[0]
    return identity(
        position_term(a, POS_I, POS_J, omegas),
        rhs,
        "p_i = p_0 M_i and p_jᵀ = M_{−j} p_0ᵀ",
        claim=rf"p_i A p_j^\top = p_0 M_i A M_{{-j}} p_0^\top \quad (A = {sp.latex(a)})",
    )


def relative_term_step(a: sp.Matrix, omegas: Sequence[sp.Expr]) -> Step:
    """p_i A p_jᵀ = p_0 A M_{i−j} p_0ᵀ: the position–position term depends on i − j alone."""
    p_0 = sinusoidal_row(0, omegas)
    rhs = (p_0 * a * offset_matrix(POS_I - POS_J, omegas) * p_0.T)[0]
    return identity(
        position_term(a, POS_I, POS_J, omegas),
        rhs,
        "p_i = p_0 M_i and M_jᵀ = M_{−j}, so p_i A p_jᵀ = p_0 M_i A M_{−j} p_0ᵀ; "
        "A commutes with M_i, and M_i M_{−j} = M_{i−j}",
        claim=rf"p_i A p_j^\top = p_0 A M_{{i-j}} p_0^\top \quad (A = {sp.latex(a)})",
    )


def commutant_step() -> Step:
    """The 2×2 matrices commuting with a rotation [[c, −s], [s, c]], s ≠ 0, are exactly [[a, −b], [b, a]]."""
    return fact(
        r"A M = M A,\ M = \begin{pmatrix} c & -s \\ s & c \end{pmatrix},\ s \neq 0 \iff "
        r"A = \begin{pmatrix} a & -b \\ b & a \end{pmatrix}",
        "SymPy solves the four linear equations A M − M A = 0: A_10 = −A_01 and A_11 = A_00",
        _commutant_is_scaled_rotations,
    )


def _commutant_is_scaled_rotations() -> bool:
    c, s = sp.Symbol("c", real=True), sp.Symbol("s", real=True, nonzero=True)
    a, rotation = matrix("A", 2, 2), sp.Matrix([[c, -s], [s, c]])
    solution = sp.solve(list(a * rotation - rotation * a), [a[1, 0], a[1, 1]], dict=True)
    return solution == [{a[1, 0]: -a[0, 1], a[1, 1]: a[0, 0]}]


def closed_form_step(blocks: int, omegas: Sequence[sp.Expr]) -> Step:
    """p_i A p_jᵀ = Σ_l a_l cos((i−j)ω_l) − b_l sin((i−j)ω_l) for A with blocks [[a_l, −b_l], [b_l, a_l]]."""
    a, offset = scaled_rotations(blocks), POS_I - POS_J
    coefficients = [(a[2 * k, 2 * k], a[2 * k + 1, 2 * k]) for k in range(blocks)]
    rhs = sum(
        x * sp.cos(offset * w) - y * sp.sin(offset * w)
        for (x, y), w in zip(coefficients, omegas, strict=True)
    )
    return identity(
        position_term(a, POS_I, POS_J, omegas),
        rhs,
        "angle-subtraction formulas",
        claim=rf"p_i A p_j^\top = {sp.latex(rhs)}",
    )


def rational_angle(expr: Expr, omega: sp.Symbol, cos_sin: CosSin) -> Expr:
    """expr with cos(kω), sin(kω) expanded into powers of cos ω, sin ω and those replaced by rationals."""
    if isinstance(expr, sp.MatrixBase):
        return expr.applyfunc(lambda entry: rational_angle(entry, omega, cos_sin))
    return sp.expand(sp.expand_trig(expr).subs({sp.cos(omega): cos_sin[0], sp.sin(omega): cos_sin[1]}))


def not_relative_step(a: sp.Matrix, first: tuple[int, int], second: tuple[int, int], cos_sin: CosSin) -> Step:
    """p_i A p_jᵀ differs at two position pairs with one offset i − j (frequency ω, rational cos, sin)."""
    before = rational_angle(position_term(a, *first, [OMEGA]), OMEGA, cos_sin)
    after = rational_angle(position_term(a, *second, [OMEGA]), OMEGA, cos_sin)
    (i, j), (i2, j2) = first, second
    return inequality(
        before,
        after,
        f"cos ω = {cos_sin[0]}, sin ω = {cos_sin[1]}; both terms are rational",
        claim=rf"p_{{{i}}} A p_{{{j}}}^\top = {sp.latex(before)} \neq {sp.latex(after)}"
        rf" = p_{{{i2}}} A p_{{{j2}}}^\top",
    )


def commutator_step(a: sp.Matrix, cos_sin: CosSin) -> Step:
    """A M_1 ≠ M_1 A exactly, for one frequency ω with the given rational cos ω, sin ω."""
    m_1 = offset_matrix(1, [OMEGA])
    return inequality(
        rational_angle(a * m_1 - m_1 * a, OMEGA, cos_sin),
        sp.zeros(2, 2),
        f"cos ω = {cos_sin[0]}, sin ω = {cos_sin[1]}: a commutator entry is a nonzero rational",
        claim=rf"A M_1 \neq M_1 A \quad (A = {sp.latex(a)})",
    )


THREE_FOUR_FIVE = (sp.Rational(3, 5), sp.Rational(4, 5))
NOT_COMMUTING = sp.diag(1, 0)


@derivation(
    id="attention.absolute_pe_score",
    title="Absolute encodings: four score terms; the position term is relative if A commutes with offsets",
    statement=r"(e_i + p_i) A (e_j + p_j)^\top = e_i A e_j^\top + e_i A p_j^\top + p_i A e_j^\top "
    r"+ p_i A p_j^\top,\quad p_i A p_j^\top = f(i - j) \text{ if } A M_k = M_k A\ \forall k",
    hypotheses=(
        r"$x_i = e_i + p_i$ (token embedding plus absolute position encoding), $A = W_Q W_K^\top$.",
        r"Sinusoidal blocks $p_i = (\sin i\omega, \cos i\omega)$; the offset matrix $M_k$ gives "
        r"$p_{i+k} = p_i M_k$.",
        r"Score algebra: symbolic $d = 4$ vectors and matrices. Relative term: one block, where the matrices "
        r"commuting with the offsets are exactly the scaled rotations, and $d = 4$ with a scaled rotation in "
        r"each block. Counterexample: $A = \mathrm{diag}(1, 0)$, $\cos\omega = 3/5$, $\sin\omega = 4/5$.",
    ),
    instances="d = 2 and 4 (symbolic entries)",
)
def absolute_pe_score() -> list[Step]:
    x_i, x_j, w_q, w_k = matrix("x", 1, 4), matrix("y", 1, 4), matrix("Q", 4, 4), matrix("K", 4, 4)
    e_i, e_j, p_i, p_j = matrix("e", 1, 4), matrix("f", 1, 4), matrix("p", 1, 4), matrix("r", 1, 4)
    a = matrix("A", 4, 4)
    one, two = [OMEGA], sp.symbols("omega_0:2", positive=True)
    return [
        identity(
            (x_i * w_q) * (x_j * w_k).T,
            x_i * (w_q * w_k.T) * x_j.T,
            "(AB)ᵀ = BᵀAᵀ",
            claim=r"(x_i W_Q)(x_j W_K)^\top = x_i A x_j^\top,\ A = W_Q W_K^\top",
        ),
        identity(
            (e_i + p_i) * a * (e_j + p_j).T,
            e_i * a * e_j.T + e_i * a * p_j.T + p_i * a * e_j.T + p_i * a * p_j.T,
            "bilinearity",
            claim=r"(e_i + p_i) A (e_j + p_j)^\top = e_i A e_j^\top + e_i A p_j^\top + p_i A e_j^\top "
            r"+ p_i A p_j^\top",
        ),
        offset_step(one),
        offset_step(two),
        factorisation_step(matrix("A", 2, 2), one),
        commutant_step(),
        commutes_step(scaled_rotations(1), one),
        relative_term_step(scaled_rotations(1), one),
        closed_form_step(1, one),
        commutes_step(scaled_rotations(2), two),
        relative_term_step(scaled_rotations(2), two),
        closed_form_step(2, two),
        identity(
            position_term(NOT_COMMUTING, POS_I, POS_J, one),
            sp.sin(POS_I * OMEGA) * sp.sin(POS_J * OMEGA),
            "multiply out",
            claim=r"A = \mathrm{diag}(1, 0):\ p_i A p_j^\top = \sin i\omega \sin j\omega",
        ),
        commutator_step(NOT_COMMUTING, THREE_FOUR_FIVE),
        not_relative_step(NOT_COMMUTING, (1, 0), (2, 1), THREE_FOUR_FIVE),
    ]


def previous_token_matrix(omegas: Sequence[sp.Expr], shift: int = -1) -> sp.Matrix:
    """A = M_shift, an offset rotation; with shift = −1, p_i A = p_{i−1}, so p_i A p_jᵀ peaks at j = i − 1."""
    return offset_matrix(shift, omegas)


def head_score_step(a: sp.Matrix, omegas: Sequence[sp.Expr]) -> Step:
    """p_i A p_jᵀ = Σ_l cos((i − 1 − j) ω_l)."""
    rhs = sum(sp.cos((POS_I - 1 - POS_J) * w) for w in omegas)
    return identity(
        position_term(a, POS_I, POS_J, omegas),
        rhs,
        "p_i M_{−1} = p_{i−1}, and p_{i−1}·p_j = cos((i−1−j)ω) block by block",
        claim=rf"s(i, j) = p_i A p_j^\top = \textstyle\sum_l \cos((i - 1 - j)\omega_l) "
        rf"\quad (\omega_l \in \lbrace {', '.join(sp.latex(w) for w in omegas)} \rbrace)",
    )


def peak_step(a: sp.Matrix, omegas: Sequence[sp.Expr]) -> Step:
    """s(i, i − 1) = d/2: the bound is attained at the previous token."""
    return identity(
        position_term(a, POS_I, POS_I - 1, omegas),
        len(omegas),
        "every term is cos 0 = 1",
        claim=rf"s(i, i-1) = {len(omegas)} = \tfrac{{d}}{{2}}",
    )


def gap_step(a: sp.Matrix, omegas: Sequence[sp.Expr]) -> Step:
    """d/2 − s(i, j) = Σ_l (1 − cos((i − 1 − j) ω_l))."""
    return identity(
        len(omegas) - position_term(a, POS_I, POS_J, omegas),
        _gap(POS_I, POS_J, omegas),
        "subtract the score from d/2 = Σ_l 1",
        claim=r"\tfrac{d}{2} - s(i, j) = "
        r"\textstyle\sum_l \big(1 - \cos((i - 1 - j)\omega_l)\big)",
    )


def _gap(i: sp.Expr, j: sp.Expr, omegas: Sequence[sp.Expr]) -> sp.Expr:
    return sum(1 - sp.cos((i - 1 - j) * w) for w in omegas)


@derivation(
    id="attention.previous_token_head",
    title="A position-only attention head that peaks exactly at the previous token",
    statement=r"s(i, j) = p_i A p_j^\top \le \tfrac{d}{2} \text{ with equality iff } j = i - 1 "
    r"\quad (i, j \in \mathbb{Z},\ \omega_0 = 1)",
    hypotheses=(
        r"Sinusoidal $p_i$ with frequencies $\omega_l$, the first one $\omega_0 = 1$ ($\mathrm{base}^0$ for "
        r"every base); $A = M_{-1}$, the offset matrix for $k = -1$, block by block.",
        r"Integer positions $i, j$; assembled for $d = 4$ with $\omega_1 > 0$ symbolic. The argument is term "
        r"by term, so it holds for every even $d$: each term is at most 1 and the $\omega_0$ term is below 1 "
        r"off the peak.",
    ),
)
def previous_token_head() -> list[Step]:
    y = sp.Symbol("y", real=True)
    omegas = (sp.S.One, sp.Symbol("omega_1", positive=True))
    a = previous_token_matrix(omegas)
    return [
        identity(
            sinusoidal_row(POS_I, [OMEGA]) * previous_token_matrix([OMEGA]),
            sinusoidal_row(POS_I - 1, [OMEGA]),
            "angle-subtraction formulas",
            claim=r"p_i M_{-1} = p_{i-1}",
        ),
        head_score_step(previous_token_matrix([OMEGA]), [OMEGA]),
        head_score_step(a, omegas),
        gap_step(a, omegas),
        identity(
            1 - sp.cos(2 * y), 2 * sp.sin(y) ** 2, "double-angle formula", claim=r"1 - \cos 2y = 2 \sin^2 y"
        ),
        fact(
            r"1 - \cos x \ge 0 \text{ for real } x, \text{ so } s(i, j) \le \tfrac{d}{2}",
            "2 sin² y is the square of a real number (SymPy decides the sign from the assumptions); "
            "every term of the gap is nonnegative",
            lambda: (2 * sp.sin(y) ** 2).is_nonnegative is True,
        ),
        peak_step(a, omegas),
        fact(
            r"\lbrace x \in \mathbb{R} : \cos x = 1 \rbrace = 2\pi\mathbb{Z}",
            "SymPy solveset over the reals",
            _cos_one_solutions_are_2pi_z,
        ),
        fact(
            r"\pi \notin \mathbb{Q}, \text{ so } n / 2\pi \notin \mathbb{Z} \text{ for } "
            r"n \in \mathbb{Z} \setminus \lbrace 0 \rbrace",
            "π is irrational in SymPy's assumptions; a nonzero rational times an irrational is irrational",
            lambda: sp.pi.is_irrational is True and (NONZERO_N / (2 * sp.pi)).is_irrational is True,
        ),
        fact(
            r"\cos n \neq 1 \text{ for } n \in \mathbb{Z} \setminus \lbrace 0 \rbrace",
            "cos n = 1 would need n ∈ 2πℤ; SymPy decides n ∉ 2πℤ for a nonzero integer n",
            lambda: _cos_one_set().contains(NONZERO_N) is sp.false,
        ),
        fact(
            r"j \neq i - 1 \implies \tfrac{d}{2} - s(i, j) \ge 1 - \cos(i - 1 - j) > 0",
            "with n = i − 1 − j a nonzero integer, the ω_0 = 1 term of the gap is 1 − cos n = 2 sin²(n/2), "
            "nonnegative and not 0; the remaining terms are 2 sin²(nω_l/2) ≥ 0",
            lambda: _gap_off_peak_is_positive(omegas),
        ),
    ]


def _cos_one_set() -> sp.Set:
    x = sp.Symbol("x", real=True)
    return sp.solveset(sp.cos(x) - 1, x, sp.S.Reals)


def _cos_one_solutions_are_2pi_z() -> bool:
    solutions, k = _cos_one_set(), sp.Symbol("k", integer=True)
    return (
        isinstance(solutions, sp.ImageSet)
        and solutions.base_set == sp.S.Integers
        and solutions.lamda(k) == 2 * sp.pi * k
    )


def _gap_off_peak_is_positive(omegas: Sequence[sp.Expr]) -> bool:
    """At j = i − 1 − n: each gap term 1 − cos nω_l is 2 sin²(nω_l/2) ≥ 0, and the ω_0 = 1 term is not 0."""
    n = NONZERO_N
    terms = [1 - sp.cos(n * w) for w in omegas]
    halves = [2 * sp.sin(n * w / 2) ** 2 for w in omegas]
    return (
        omegas[0] == 1
        and is_zero(_gap(POS_I, POS_I - 1 - n, omegas) - sum(terms))
        and all(
            is_zero(term - half) and half.is_nonnegative is True
            for term, half in zip(terms, halves, strict=True)
        )
        and _cos_one_set().contains(n) is sp.false
    )
