"""Permutation equivariance and pooled invariance for a symbolic number of tokens: the derivations are
universal and verify, and each step of the chain fails on a broken input."""

from __future__ import annotations

import pytest
import sympy as sp
from sympy.matrices.expressions import DiagMatrix, HadamardProduct
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction
from sympy.matrices.expressions.matexpr import MatrixExpr

from pe_verify.claims.evidence import verification
from pe_verify.proofs import attention
from pe_verify.proofs.derivation import Derivation, Step

UNIVERSAL = [attention.permutation_equivariance, attention.pooled_output_invariance]
N, P, ONES = attention.TOKENS, attention.PERMUTATION, attention.ONES
#: Only invertible: SymPy cannot derive PᵀP = I from it.
INVERTIBLE = sp.Q.invertible(P)
#: The causal pattern C_ab = [b ≤ a], as a symbolic n×n matrix (masked softmax: E∘C).
CAUSAL = sp.MatrixSymbol("C", N, N)


def _holds(step: Step) -> bool:
    return bool(step.check())


def causal_softmax(scores: MatrixExpr) -> MatrixExpr:
    """Softmax over the keys b ≤ a: E∘C, each row divided by its sum."""
    e = HadamardProduct(ElementwiseApplyFunction(attention.EXP, scores), CAUSAL)
    return sp.Inverse(DiagMatrix(e * ONES)) * e


def column_softmax(scores: MatrixExpr) -> MatrixExpr:
    """E diag(Eᵀ𝟙)⁻¹: each column divided by its sum instead of each row."""
    e = ElementwiseApplyFunction(attention.EXP, scores)
    return e * sp.Inverse(DiagMatrix(e.T * ONES))


def generic_matrix() -> sp.FunctionMatrix:
    """P_ab = p(a, b), p undefined: not a permutation matrix."""
    return attention.index_matrix("p")


def scaled_permutation() -> MatrixExpr:
    """2·P: one nonzero entry in each row and column, but not 1."""
    return 2 * attention.index_permutation()


def unranged_permutation() -> sp.FunctionMatrix:
    """P_ab = [b = σ(a)] without the index range: σ(a) may fall outside 0, …, n − 1 (a row of zeros)."""
    a, b = attention._ROW, attention._COL
    return sp.FunctionMatrix(N, N, sp.Lambda((a, b), sp.KroneckerDelta(attention.SIGMA(a), b)))


@pytest.mark.parametrize("item", UNIVERSAL, ids=lambda item: item.id)
def test_the_derivation_is_universal_verifies_and_keeps_the_n_3_corroboration(item: Derivation) -> None:
    assert item.instances is None
    result = verification(item.id)
    assert result.verified, [(step.claim, step.error) for step in result.steps if not step.holds]
    claims = [step.claim for step in result.steps]
    assert any(r"n, d, d_k, d_v \text{ symbolic}" in claim for claim in claims)
    assert sum(r"\pi = " in claim for claim in claims) >= 6
    assert any("orthogonal" in hypothesis for hypothesis in item.hypotheses)


def test_the_chain_is_of_symbolic_size() -> None:
    assert attention.symbolic_attention(attention.SYMBOLIC_X).shape == (N, attention.VALUE_WIDTH)
    assert P.shape == (N, N) and attention.symbolic_scores(attention.SYMBOLIC_X).shape == (N, N)
    assert all(size.free_symbols for size in (*attention.SYMBOLIC_X.shape, *attention.SYMBOLIC_W_V.shape))


def test_the_causal_mask_derivation_is_still_a_counterexample() -> None:
    assert attention.causal_mask_breaks_equivariance.instances is None
    assert verification(attention.causal_mask_breaks_equivariance.id).verified


@pytest.mark.slow
@pytest.mark.parametrize("broken", [generic_matrix, scaled_permutation], ids=["generic", "scaled"])
@pytest.mark.parametrize(
    "builder",
    [attention.index_rows_step, attention.index_gram_step, attention.entrywise_step, attention.diagonal_step],
)
def test_the_index_lemmas_fail_for_a_matrix_that_is_not_a_permutation(broken, builder) -> None:
    assert _holds(builder(attention.index_permutation()))
    assert not _holds(builder(broken()))


@pytest.mark.slow
def test_rows_need_sigma_in_range() -> None:
    assert not _holds(attention.index_rows_step(unranged_permutation()))


def test_a_non_injective_sigma_gives_p_p_transpose_other_than_i() -> None:
    constant = sp.Lambda(attention._ROW, 0)
    p = attention.index_permutation(constant)
    assert _holds(attention.index_rows_step(p))  # every row still holds one 1 ...
    assert attention.entry(p * p.T) == 1  # ... but (PPᵀ)_ij = 1 for i ≠ j: all tokens copy token 0


@pytest.mark.slow
def test_entrywise_functions_do_not_commute_with_a_generic_conjugation() -> None:
    s, q = attention.index_matrix("S"), generic_matrix()
    conjugated = attention.entry(q * s * q.T)
    assert not attention.is_zero(sp.exp(conjugated) - attention.entry(q * s.applyfunc(sp.exp) * q.T))


@pytest.mark.slow
@pytest.mark.parametrize(
    "builder",
    [
        attention.ones_fixed_step,
        lambda assumption: attention.normaliser_step(assumption=assumption),
        lambda assumption: attention.symbolic_equivariance_step(assumption=assumption),
        lambda assumption: attention.symbolic_pooled_step(assumption=assumption),
    ],
    ids=["ones", "normaliser", "equivariance", "pooled"],
)
def test_p_transpose_p_other_than_i_breaks_the_matrix_steps(builder) -> None:
    assert _holds(builder(attention.ORTHOGONAL))
    assert not _holds(builder(INVERTIBLE))


def test_a_positional_term_in_the_scores_breaks_the_scores_step() -> None:
    bias = sp.MatrixSymbol("B", N, N)
    encoding = sp.MatrixSymbol("U", N, attention.MODEL_WIDTH)
    assert not _holds(attention.symbolic_scores_step(lambda x: attention.symbolic_scores(x) + bias))
    assert not _holds(attention.symbolic_scores_step(lambda x: attention.symbolic_scores(x + encoding)))


@pytest.mark.parametrize(
    "normaliser",
    [lambda e: HadamardProduct(e, CAUSAL) * ONES, lambda e: e * sp.MatrixSymbol("w", N, 1)],
    ids=["causal row sums", "weighted row sums"],
)
def test_a_normaliser_that_does_not_sum_every_key_alike_breaks_the_row_sum_step(normaliser) -> None:
    assert not _holds(attention.normaliser_step(normaliser))


@pytest.mark.slow
def test_column_normalisation_is_also_equivariant() -> None:
    """Not a mutation that should fail: conjugation by P commutes with normalising columns too."""
    assert _holds(attention.normaliser_step(lambda e: e.T * ONES))
    assert _holds(attention.symbolic_equivariance_step(column_softmax))
    assert _holds(attention.symbolic_pooled_step(column_softmax))


@pytest.mark.twin("attention.pooled_output_invariance")
@pytest.mark.slow
def test_the_causal_softmax_breaks_equivariance_and_pooled_invariance_at_symbolic_size() -> None:
    assert not _holds(attention.symbolic_equivariance_step(causal_softmax))
    assert not _holds(attention.symbolic_pooled_step(causal_softmax))


@pytest.mark.slow
def test_without_orthogonality_the_rewriting_cancels_nothing() -> None:
    attn = attention.symbolic_attention(P * attention.SYMBOLIC_X)
    rewritten = attention.apply_permutation_lemmas(attn, INVERTIBLE)
    pairs = zip(rewritten.args, rewritten.args[1:], strict=False)
    assert P.T * P in {sp.MatMul(*pair) for pair in pairs}
    assert attention.vanishes(
        attention.apply_permutation_lemmas(attn) - P * attention.symbolic_attention(attention.SYMBOLIC_X)
    )
