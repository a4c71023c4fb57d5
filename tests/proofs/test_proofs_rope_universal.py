"""RoPE orthogonality, composition and Abel summation for every dimension and number of terms: the derivations
verify universally (no finite instances), fast, and each universal step fails on a broken input (a block with
a wrong sign or scale, a composition by m − n, a missing matrix rule, a wrong summation-by-parts formula)."""

from __future__ import annotations

import pytest
import sympy as sp

from pe_verify.claims.evidence import verification
from pe_verify.proofs import rope
from pe_verify.proofs.derivation import Derivation, Step

UNIVERSAL = [rope.orthogonal, rope.composition, rope.abel_summation]


def _holds(step: Step) -> bool:
    return bool(step.check())


@pytest.mark.parametrize("item", UNIVERSAL, ids=lambda item: item.id)
def test_the_derivation_verifies_for_every_dimension(item: Derivation) -> None:
    result = verification(item.id)
    assert result.verified, [(step.claim, step.error) for step in result.steps if not step.holds]
    assert item.instances is None


@pytest.mark.slow
def test_the_finite_instances_are_kept_beside_the_universal_steps() -> None:
    claims = [step.claim for step in rope.orthogonal.steps()]
    assert {rf"R_m^\top R_m = I_{{{d}}}" for d in rope.DIMS} <= set(claims)
    assert any(r"\lVert R_m q\rVert^2" in claim and "d = 4" in claim for claim in claims)
    claims = [step.claim for step in rope.composition.steps()]
    assert sum(r"R_m R_n = R_{m+n} \quad (d =" in claim for claim in claims) == 2 * len(rope.DIMS)
    claims = [step.claim for step in rope.abel_summation.steps()]
    assert sum(r"\sum_{i<" in claim for claim in claims) >= 8


# one 2×2 block


def _scaled_block(angle: sp.Expr) -> sp.Matrix:
    return 2 * rope.rotation(angle)


def _sign_slipped_block(angle: sp.Expr) -> sp.Matrix:
    """(a, b) ↦ (a cos − b sin, −a sin + b cos): not a rotation."""
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [-sp.sin(angle), sp.cos(angle)]])


def test_one_block_is_orthogonal_and_composes() -> None:
    assert _holds(rope.block_orthogonal_step())
    assert _holds(rope.block_composition_step())


@pytest.mark.twin("rope.orthogonal")
@pytest.mark.parametrize("block", [_scaled_block, _sign_slipped_block])
def test_a_block_with_a_wrong_sign_or_scale_is_not_orthogonal(block) -> None:
    assert not _holds(rope.block_orthogonal_step(block))


@pytest.mark.twin("rope.composition")
def test_a_scaled_block_does_not_compose() -> None:
    assert not _holds(rope.block_composition_step(_scaled_block))


def test_a_block_composition_by_m_minus_n_fails() -> None:
    assert not _holds(rope.block_composition_step(total=rope.M - rope.N))


# the interleaved matrix, every d = 2K


def _interleaved_scaled(x, j: sp.Expr, m: sp.Expr) -> sp.Expr:
    return 2 * rope.interleaved_entry(x, j, m)


def _interleaved_sign_slipped(x, j: sp.Expr, m: sp.Expr) -> sp.Expr:
    """Both entries of a pair lose the partner's sine: the block [[cos, −sin], [−sin, cos]]."""
    odd = sp.Mod(j, 2)
    angle = m * rope.FREQUENCY[sp.floor(j / 2)]
    return x(j) * sp.cos(angle) - x(j + 1 - 2 * odd) * sp.sin(angle)


def _interleaved_unpaired(x, j: sp.Expr, m: sp.Expr) -> sp.Expr:
    """Entry j turned with the frequency of pair j instead of pair ⌊j/2⌋."""
    odd = sp.Mod(j, 2)
    angle = m * rope.FREQUENCY[j]
    return x(j) * sp.cos(angle) + (2 * odd - 1) * x(j + 1 - 2 * odd) * sp.sin(angle)


@pytest.mark.slow
def test_the_universal_interleaved_steps_hold() -> None:
    assert all(_holds(step) for step in rope.interleaved_orthogonal_steps())
    assert _holds(rope.interleaved_composition_step())


@pytest.mark.slow
@pytest.mark.parametrize("wrong", [_interleaved_scaled, _interleaved_sign_slipped])
def test_a_wrong_interleaved_matrix_is_not_orthogonal_for_symbolic_k(wrong) -> None:
    assert not _holds(rope.interleaved_gram_step(wrong))
    assert not _holds(rope.interleaved_norm_step(wrong))


@pytest.mark.parametrize("wrong", [_interleaved_scaled, _interleaved_sign_slipped, _interleaved_unpaired])
def test_a_wrong_interleaved_matrix_does_not_compose(wrong) -> None:
    assert not _holds(rope.interleaved_composition_step(wrong))


def test_a_composition_by_m_minus_n_fails_for_symbolic_k() -> None:
    assert not _holds(rope.interleaved_composition_step(total=rope.M - rope.N))


def test_a_wrong_grouping_by_pairs_fails_the_induction() -> None:
    f = rope.SEQUENCE
    assert not _holds(rope.pair_sum_step(lambda i: f[2 * i] + f[2 * i + 2]))
    assert not _holds(rope.pair_sum_step(lambda i: 2 * f[2 * i]))


def test_the_column_sum_of_deltas_is_the_identity() -> None:
    assert _holds(rope.delta_sum_step())
    j, k, last = rope.COLUMN, rope.ROW, 2 * rope.BLOCKS - 1 - rope.SLACK
    total = sp.Sum(sp.KroneckerDelta(k, j) * sp.KroneckerDelta(k, rope.OTHER), (k, 0, 2 * rope.BLOCKS - 1))
    beyond = total.doit().subs(j, 2 * rope.BLOCKS + rope.SLACK)
    assert beyond == 0 and total.doit().subs(j, last) == sp.KroneckerDelta(last, rope.OTHER)


def test_the_induction_rejects_a_summand_that_depends_on_the_variable() -> None:
    """SymPy's difference of a sum assumes the summand is fixed; such a sum is refused, never accepted."""
    n, k = rope.TERMS, rope.ROW
    assert not rope._by_induction(sp.Sum(n, (k, 0, n - 1)), n**2, n, 1)
    assert not rope._by_induction(sp.Sum(1, (k, n, 2 * n - 1)), n, n, 1)
    assert rope._by_induction(sp.Sum(2 * k + 1, (k, 0, n - 1)), n**2, n, 1)
    assert not rope._by_induction(sp.Sum(2 * k + 1, (k, 0, n - 1)), n**2 + 1, n, 1)


# the half-split layout as a permutation conjugate


def test_the_conjugation_steps_hold() -> None:
    assert _holds(rope.conjugate_orthogonal_step()) and _holds(rope.conjugate_composition_step())


def test_the_conjugate_is_not_orthogonal_without_p_p_transpose() -> None:
    p, r, eye = rope.PERMUTATION, rope.TURN, sp.Identity(rope.SIZE)
    assert not _holds(rope.conjugate_orthogonal_step([(r.T * r, eye), (p.T * p, eye)]))
    assert not _holds(rope.conjugate_orthogonal_step([(p * p.T, eye), (p.T * p, eye)]))


def test_the_conjugate_composition_needs_both_rules_and_the_right_total() -> None:
    p, eye = rope.PERMUTATION, sp.Identity(rope.SIZE)
    product = rope.TURN_M * rope.TURN_N
    difference = sp.MatrixSymbol("R_{m-n}", rope.SIZE, rope.SIZE)
    assert not _holds(rope.conjugate_composition_step([(p * p.T, eye)]))
    assert not _holds(rope.conjugate_composition_step([(p.T * p, eye), (product, rope.TURN_SUM)]))
    assert not _holds(rope.conjugate_composition_step([(p * p.T, eye), (product, difference)]))


# Abel summation for every n


def _by_parts_from_the_last_term(n: sp.Expr) -> sp.Expr:
    """h_{n−1}S_n − Σ_{j<n−1} S_{j+1}(h_{j+1} − h_j): the same identity written without h_n."""
    h, s, j = rope.WEIGHT, rope.PARTIAL, sp.Symbol("j", integer=True, nonnegative=True)
    return h[n - 1] * s[n] - sp.Sum(s[j + 1] * (h[j + 1] - h[j]), (j, 0, n - 2))


def _index_slip(n: sp.Expr) -> sp.Expr:
    h, s, j = rope.WEIGHT, rope.PARTIAL, sp.Symbol("j", integer=True, nonnegative=True)
    return h[n] * s[n] - sp.Sum(s[j] * (h[j + 1] - h[j]), (j, 0, n - 1))


def _sign_slip(n: sp.Expr) -> sp.Expr:
    h, s, j = rope.WEIGHT, rope.PARTIAL, sp.Symbol("j", integer=True, nonnegative=True)
    return h[n] * s[n] + sp.Sum(s[j + 1] * (h[j + 1] - h[j]), (j, 0, n - 1))


def _without_the_boundary_term(n: sp.Expr) -> sp.Expr:
    """The statement's right side, which needs h_n = 0: as an identity for every h it is false."""
    return rope.summation_by_parts(n) - rope.WEIGHT[n] * rope.PARTIAL[n]


def test_summation_by_parts_holds_for_every_n() -> None:
    assert _holds(rope.partial_sum_step()) and _holds(rope.abel_induction_step())
    assert _holds(rope.abel_induction_step(_by_parts_from_the_last_term))


@pytest.mark.twin("rope.abel_summation")
@pytest.mark.parametrize("wrong", [_index_slip, _sign_slip, _without_the_boundary_term])
def test_a_wrong_summation_by_parts_formula_fails_the_induction(wrong) -> None:
    assert not _holds(rope.abel_induction_step(wrong))
