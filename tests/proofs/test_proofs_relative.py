"""The relative-encoding derivations verify, and their step builders fail on broken scores and indices."""

from __future__ import annotations

import pytest
import sympy as sp

from pe_verify.claims.evidence import verification
from pe_verify.proofs import relative
from pe_verify.proofs.derivation import Derivation, render_markdown
from pe_verify.properties.encodings.relative import ClippedRelative

DERIVATIONS = [value for value in vars(relative).values() if isinstance(value, Derivation)]


def test_the_three_derivations_exist() -> None:
    assert sorted(item.id for item in DERIVATIONS) == [
        "relative.clipped_offset",
        "relative.transformer_xl_four_terms",
        "relative.transformer_xl_offset",
    ]


@pytest.mark.parametrize("item", DERIVATIONS, ids=lambda item: item.id)
def test_derivation_verifies_and_renders(item: Derivation) -> None:
    result = verification(item.id)
    assert result.verified, [(step.claim, step.error) for step in result.steps if not step.holds]
    text = render_markdown(item, result)
    assert all(f"$${step.claim}$$" in text for step in result.steps)


def test_the_four_terms_are_checked_at_symbolic_size() -> None:
    score = relative.absolute_score(
        relative.CONTENT_I, relative.ABSOLUTE_I, relative.CONTENT_J, relative.ABSOLUTE_J
    )
    assert score.shape == (1, 1) and relative.W_Q.shape == (relative.DIM, relative.DIM)
    assert relative.vanishes(score - relative.four_terms())


@pytest.mark.twin("relative.transformer_xl_four_terms")
def test_a_commuted_or_missing_term_is_not_the_score() -> None:
    score = relative.absolute_score(
        relative.CONTENT_I, relative.ABSOLUTE_I, relative.CONTENT_J, relative.ABSOLUTE_J
    )
    pairs = ((relative.CONTENT_I, relative.CONTENT_J), (relative.ABSOLUTE_I, relative.ABSOLUTE_J))
    commuted = sp.MatAdd(
        *(a.T * relative.W_K.T * relative.W_Q * b for a, b in pairs),
        relative.CONTENT_I.T * relative.W_Q.T * relative.W_K * relative.ABSOLUTE_J,
        relative.ABSOLUTE_I.T * relative.W_Q.T * relative.W_K * relative.CONTENT_J,
    )
    assert not relative.vanishes(score - commuted)
    without_d = (
        relative.four_terms() - relative.ABSOLUTE_I.T * relative.W_Q.T * relative.W_K * relative.ABSOLUTE_J
    )
    assert not relative.vanishes(score - without_d)


@pytest.mark.twin("relative.transformer_xl_offset")
def test_a_score_with_absolute_positions_is_not_shift_free() -> None:
    def absolute(i: sp.Expr, j: sp.Expr) -> sp.MatrixBase:
        return relative.absolute_score(
            relative.CONTENT_I,
            relative.relative_embedding(i),
            relative.CONTENT_J,
            relative.relative_embedding(j),
        )

    assert relative.score_shift_step(relative.relative_score, "A").check()
    assert not relative.score_shift_step(absolute, "A").check()


@pytest.mark.twin("relative.clipped_offset")
@pytest.mark.slow
def test_clipping_the_positions_before_subtracting_is_not_shift_free() -> None:
    def clipped_positions(i: sp.Expr, j: sp.Expr) -> sp.Expr:
        return relative.clip(j) - relative.clip(i)

    assert relative.offset_shift_step(relative.clipped_offset).check()
    assert not relative.offset_shift_step(clipped_positions).check()


@pytest.mark.slow
@pytest.mark.parametrize("k", [0, 1, 3, 7])
def test_the_symbolic_clip_is_the_matrix_entry(k: int) -> None:
    matrix = ClippedRelative(k).positions(9, 11)
    clipped = relative.clipped_offset(relative.QUERY, relative.KEY).subs(relative.DISTANCE, k)
    assert all(
        clipped.subs({relative.QUERY: i, relative.KEY: j}) == matrix[i, j]
        for i in range(9)
        for j in range(11)
    )
