"""The RoPE and attention derivations verify, render, and their step builders fail on broken inputs."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.claims.evidence import verification
from pe_verify.proofs import attention, rope
from pe_verify.proofs.derivation import Derivation, Step, VerificationResult, render_markdown
from pe_verify.properties.encodings.rope import Rope

DERIVATIONS = [
    value for module in (rope, attention) for value in vars(module).values() if isinstance(value, Derivation)
]
EXPECTED_IDS = {
    "rope.relative_interleaved",
    "rope.relative_half_split",
    "rope.orthogonal",
    "rope.composition",
    "rope.half_split_permutation",
    "rope.half_split_permutation_by_dimension",
    "rope.mixed_layouts_break_relative",
    "rope.mixed_layouts_every_dimension",
    "rope.mixed_layouts_by_dimension",
    "rope.abel_summation",
    "attention.permutation_equivariance",
    "attention.pooled_output_invariance",
    "attention.causal_mask_breaks_equivariance",
    "attention.absolute_pe_score",
    "attention.previous_token_head",
}


def test_every_expected_derivation_exists_once() -> None:
    ids = [item.id for item in DERIVATIONS]
    assert sorted(ids) == sorted(EXPECTED_IDS)
    assert all(re.fullmatch(r"(rope|attention)\.[a-z_]+", item_id) for item_id in ids)


def _verified(item: Derivation) -> VerificationResult:
    return verification(item.id)


@pytest.mark.parametrize("item", DERIVATIONS, ids=lambda item: item.id)
def test_derivation_verifies(item: Derivation) -> None:
    result = _verified(item)
    failed = [(step.claim, step.error) for step in result.steps if not step.holds]
    assert result.verified, failed
    assert len(result.steps) >= 3


@pytest.mark.parametrize("item", DERIVATIONS, ids=lambda item: item.id)
def test_markdown_has_statement_hypotheses_and_every_step(item: Derivation) -> None:
    result = _verified(item)
    text = render_markdown(item, result)
    assert f"$${item.statement}$$" in text
    assert all(hypothesis in text for hypothesis in item.hypotheses)
    assert all(f"$${step.claim}$$" in text and step.justification in text for step in result.steps)
    assert text.count(" ✓") == len(result.steps)
    assert "**Result:** verified" in text


def test_a_broken_step_makes_the_derivation_fail_and_shows_in_markdown() -> None:
    off_by_one = rope.relative_score_step(QueryOffByOne(2), Rope(2))
    broken = Derivation("rope.broken", "broken", "x", (), lambda: [rope.block_relative_step(), off_by_one])
    result = broken.verify()
    assert not result.verified
    assert [step.holds for step in result.steps] == [True, False]
    assert "✗" in render_markdown(broken, result)
    assert "NOT verified" in render_markdown(broken, result)


# RoPE mutation twins


class QueryOffByOne(Rope):
    def rotate_exact(self, x: sp.Matrix, m: sp.Expr, thetas: Sequence[sp.Expr]) -> sp.Matrix:
        return super().rotate_exact(x, m + 1, thetas)


class RotatedBackwards(Rope):
    def rotate_exact(self, x: sp.Matrix, m: sp.Expr, thetas: Sequence[sp.Expr]) -> sp.Matrix:
        return super().rotate_exact(x, -m, thetas)


class OneSineSignFlipped(Rope):
    """(a, b) ↦ (a cos − b sin, −a sin + b cos): a sign slip that is no longer a rotation."""

    def rotate_exact(self, x: sp.Matrix, m: sp.Expr, thetas: Sequence[sp.Expr]) -> sp.Matrix:
        out = super().rotate_exact(x, m, thetas)
        for i, theta in enumerate(thetas):
            out[2 * i + 1] -= 2 * x[2 * i] * sp.sin(m * theta)
        return out


def _holds(step: Step) -> bool:
    return bool(step.check())


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 4])
def test_query_position_off_by_one_is_not_relative(d: int) -> None:
    assert not _holds(rope.relative_score_step(QueryOffByOne(d), Rope(d)))


@pytest.mark.slow
@pytest.mark.parametrize("layout_q, layout_k", [("interleaved", "half_split"), ("half_split", "interleaved")])
def test_mixed_layouts_fail_the_relative_identity(layout_q: str, layout_k: str) -> None:
    assert not _holds(rope.relative_score_step(Rope(4, layout=layout_q), Rope(4, layout=layout_k)))


def test_query_rotated_backwards_is_not_relative() -> None:
    assert not _holds(rope.relative_score_step(RotatedBackwards(4), Rope(4)))


@pytest.mark.twin("rope.relative_half_split", "rope.relative_interleaved")
@pytest.mark.slow
def test_both_rotated_the_other_way_gives_offset_m_minus_n() -> None:
    assert not _holds(rope.block_relative_step(sign=-1))


@pytest.mark.slow
@pytest.mark.parametrize(
    "builder",
    [
        rope.relative_matrix_step,
        rope.orthogonality_step,
        rope.norm_step,
        rope.composition_step,
    ],
)
def test_sign_slip_breaks_every_matrix_property(builder) -> None:
    assert not _holds(builder(OneSineSignFlipped(4)))


def test_sign_slip_breaks_the_relative_score() -> None:
    assert not _holds(rope.relative_score_step(OneSineSignFlipped(4), OneSineSignFlipped(4)))


SWAP_WITHIN_PAIRS = sp.Matrix([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]])


@pytest.mark.twin("rope.half_split_permutation")
@pytest.mark.parametrize("wrong", [sp.eye(4), SWAP_WITHIN_PAIRS])
def test_a_wrong_permutation_does_not_conjugate_the_layouts(wrong: sp.Matrix) -> None:
    assert _holds(rope.permutation_is_orthogonal_step(wrong))
    assert not _holds(rope.permutation_step(wrong, 4))


@pytest.mark.parametrize("layout", list(rope.LAYOUTS.values()))
def test_matching_layouts_give_no_counterexample(layout: str) -> None:
    same = Rope(4, layout=layout)
    step = rope.shifted_scores_differ_step(same, same, rope.MIXED_Q, rope.MIXED_K, 1, 2, rope.PYTHAGOREAN)
    assert not _holds(step)


@pytest.mark.twin("rope.mixed_layouts_break_relative")
def test_off_circle_cos_sin_pair_is_rejected() -> None:
    assert not _holds(rope.unit_circle_step([(sp.Rational(3, 5), sp.Rational(3, 5))]))


@given(st.integers(min_value=1, max_value=40))
def test_half_split_permutation_interleaves_the_halves(half: int) -> None:
    d = 2 * half
    x = sp.Matrix(range(d))
    moved = rope.half_split_permutation(d) * x
    assert list(moved[0::2]) == list(range(half))
    assert list(moved[1::2]) == list(range(half, d))


@pytest.mark.parametrize("bad", [0, -2, 3, 2.0, True, "4"])
def test_rope_rejects_a_dimension_that_is_not_a_positive_even_integer(bad: object) -> None:
    with pytest.raises(ValueError, match="positive even integer"):
        rope.half_split_permutation(bad)


def test_rope_rejects_a_frequency_count_that_does_not_match() -> None:
    with pytest.raises(ValueError, match="d/2 frequencies"):
        Rope(4).rotate_exact(rope.vector("x", 4), rope.M, rope.thetas(2))
    with pytest.raises(ValueError, match="d/2 frequencies"):
        Rope(4, layout="half_split").rotate_exact(rope.vector("x", 3), rope.M, rope.thetas(4))
    with pytest.raises(ValueError, match="d must be even"):
        Rope(3, layout="half_split")
    with pytest.raises(ValueError, match="same dimensions"):
        rope.relative_score_step(Rope(4), Rope(6))


# Attention mutation twins


def test_causal_mask_claimed_equivariant_fails() -> None:
    step = attention.equivariance_step(attention.causal_row_softmax, attention.SWAP, *attention.EXAMPLE)
    assert not _holds(step)


@pytest.mark.twin("attention.permutation_equivariance")
@pytest.mark.parametrize("perm", [(1, 0, 2), (1, 2, 0)])
def test_causal_softmax_lemma_fails(perm: tuple[int, ...]) -> None:
    assert not _holds(attention.softmax_lemma_step(attention.causal_row_softmax, perm))


def test_unmasked_attention_gives_no_equivariance_counterexample() -> None:
    step = attention.equivariance_fails_step(attention.row_softmax, attention.SWAP, *attention.EXAMPLE)
    assert not _holds(step)


def test_identity_permutation_gives_no_invariance_counterexample() -> None:
    assert not _holds(attention.invariance_fails_step((0, 1, 2), *attention.EXAMPLE))
    assert not _holds(attention.mask_moves_step((0, 1, 2)))


@pytest.mark.twin("attention.pooled_output_invariance")
@pytest.mark.parametrize("perm", [(1, 0, 2), (1, 2, 0), (2, 1, 0)])
def test_causal_attention_claimed_pooled_invariant_fails(perm: tuple[int, ...]) -> None:
    step = attention.pooled_invariance_step(attention.causal_row_softmax, perm, *attention.EXAMPLE)
    assert not _holds(step)


def test_pooling_removes_the_order_that_the_rows_still_show() -> None:
    assert _holds(attention.invariance_fails_step(attention.SWAP, *attention.EXAMPLE))
    assert _holds(attention.pooled_invariance_step(attention.row_softmax, attention.SWAP, *attention.EXAMPLE))


@pytest.mark.twin("attention.absolute_pe_score")
def test_non_commuting_a_claimed_relative_fails() -> None:
    assert not _holds(attention.commutes_step(attention.NOT_COMMUTING, [attention.OMEGA]))
    assert not _holds(attention.relative_term_step(attention.NOT_COMMUTING, [attention.OMEGA]))


def test_scaled_rotation_gives_no_relative_counterexample() -> None:
    a = attention.scaled_rotation(2, 1)
    assert not _holds(attention.not_relative_step(a, (1, 0), (2, 1), attention.THREE_FOUR_FIVE))
    assert not _holds(attention.commutator_step(a, attention.THREE_FOUR_FIVE))


@pytest.mark.twin("attention.previous_token_head")
@pytest.mark.slow
def test_next_token_matrix_does_not_peak_at_the_previous_token() -> None:
    one_block = [attention.OMEGA]
    wrong = attention.previous_token_matrix(one_block, shift=1)
    assert not _holds(attention.peak_step(wrong, one_block))
    assert not _holds(attention.gap_step(wrong, one_block))


@given(st.permutations(range(5)))
def test_permutation_matrix_moves_row_perm_r_to_row_r(perm: list[int]) -> None:
    x = sp.Matrix(5, 2, lambda a, b: 10 * a + b)
    moved = attention.permutation_matrix(perm) * x
    assert all(moved.row(r) == x.row(source) for r, source in enumerate(perm))


@pytest.mark.parametrize("bad", [(0, 0, 1), (1, 2, 3), ()])
def test_permutation_matrix_rejects_a_non_permutation(bad: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="exactly once"):
        attention.permutation_matrix(bad)
