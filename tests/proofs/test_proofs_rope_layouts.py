"""The RoPE layout derivations for every even rotary dimension, RoFormer's Abel summation, and their step
builders failing on broken inputs (a wrong entry formula, a Rope twin rotating differently)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
import sympy as sp

from pe_verify.claims.evidence import verification
from pe_verify.proofs import rope
from pe_verify.proofs.derivation import Step
from pe_verify.properties.encodings.rope import Rope


def _holds(step: Step) -> bool:
    return bool(step.check())


@pytest.mark.parametrize(
    "item",
    [
        rope.half_split_is_permuted_interleaved,
        rope.half_split_permutation_by_dimension,
        rope.mixed_layouts_every_dimension,
        rope.mixed_layouts_by_dimension,
        rope.abel_summation,
    ],
    ids=lambda item: item.id,
)
def test_the_derivation_verifies(item) -> None:
    result = verification(item.id)
    assert result.verified, [(step.claim, step.error) for step in result.steps if not step.holds]


def _interleaved_backwards(x: Callable[[sp.Expr], sp.Expr], j: sp.Expr, m: sp.Expr) -> sp.Expr:
    """The interleaved entry turned by −mθ: a different rotation."""
    return rope.interleaved_entry(x, j, -m)


def _interleaved_unpaired(x: Callable[[sp.Expr], sp.Expr], j: sp.Expr, m: sp.Expr) -> sp.Expr:
    """Entry j turned with the frequency of pair j instead of pair ⌊j/2⌋."""
    odd = sp.Mod(j, 2)
    angle = m * rope.FREQUENCY[j]
    return x(j) * sp.cos(angle) + (2 * odd - 1) * x(j + 1 - 2 * odd) * sp.sin(angle)


def test_the_universal_steps_hold() -> None:
    assert all(_holds(step) for step in rope.index_map_steps())
    assert all(_holds(step) for step in rope.block_steps())
    assert _holds(rope.conjugation_step()) and _holds(rope.entry_formula_step())
    assert all(_holds(step) for step in rope.e0_image_steps())
    assert _holds(rope.mixed_e0_score_step()) and _holds(rope.one_pair_step())


@pytest.mark.twin("rope.mixed_layouts_every_dimension")
@pytest.mark.slow
@pytest.mark.parametrize("wrong", [_interleaved_backwards, _interleaved_unpaired])
def test_a_wrong_interleaved_entry_does_not_conjugate_to_the_half_split_one(wrong) -> None:
    assert not _holds(rope.conjugation_step(wrong))
    assert not all(_holds(step) for step in rope.e0_image_steps(wrong))


class SineSignFlipped(Rope):
    """The half-split layout turns the second half the wrong way: x_{i+r/2} gains −x_i sin."""

    def rotate_exact(self, x: sp.Matrix, m: sp.Expr, thetas: Sequence[sp.Expr]) -> sp.Matrix:
        out = super().rotate_exact(x, m, thetas)
        if self.layout == "half_split":
            half = self.rotary_dim // 2
            for i, theta in enumerate(thetas):
                out[i + half] -= 2 * x[i] * sp.sin(m * theta)
        return out


def test_the_entry_formulas_reject_a_rope_that_rotates_differently() -> None:
    assert not _holds(rope.entry_formula_step(SineSignFlipped))


def test_the_index_map_is_layout_permutation_and_a_permutation() -> None:
    for r in range(2, 41, 2):
        half = sp.Integer(r // 2)
        perm = [rope.permuted_index(sp.Integer(j), half) for j in range(r)]
        assert sorted(perm) == list(range(r))
        assert [rope.unpermuted_index(p, half) for p in perm] == list(range(r))


@pytest.mark.twin("rope.half_split_permutation_by_dimension")
def test_the_dimension_by_dimension_checks_fail_on_a_wrong_permutation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert rope.layouts_agree(8) and rope.mixed_score_is_product_of_cosines(8)
    monkeypatch.setattr(rope, "layout_permutation", lambda d, rotary_dim=None: list(range(d)))
    assert rope.layouts_agree(2) and not rope.layouts_agree(4)
    assert not _holds(rope.layouts_agree_step((2, 4)))
    assert not _holds(rope.index_map_steps()[2])


def test_at_r_2_the_mixed_score_is_not_a_product_of_cosines() -> None:
    """With one pair e_0's two images meet in e_1 = e_{r/2}: the r ≥ 4 computation needs r ≥ 4."""
    assert not rope.mixed_score_is_product_of_cosines(2)


def test_the_abel_identity_holds_term_by_term() -> None:
    assert all(_holds(rope.abel_identity_step(pairs)) for pairs in (1, 4, 9))
