"""The trigonometry and sinusoidal derivations verify and render; their step builders reject broken claims."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
import sympy as sp

from pe_verify.claims.evidence import verification
from pe_verify.proofs import sinusoidal, trigonometry
from pe_verify.proofs.derivation import Derivation, Step, identity, inequality, render_markdown
from pe_verify.proofs.sinusoidal import (
    OMEGA,
    POS,
    dot,
    exact_frequencies,
    rotation_block,
    with_frequencies,
)
from pe_verify.proofs.trigonometry import BASE, DIM, INDEX, A, B
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

DERIVATIONS = [
    value
    for module in (trigonometry, sinusoidal)
    for value in vars(module).values()
    if isinstance(value, Derivation)
]
EXPECTED_IDS = {
    "trigonometry.angle_addition",
    "trigonometry.exp_log_frequency",
    "trigonometry.sinusoidal_parameter_free",
    "trigonometry.div_term_is_the_reciprocal",
    "sinusoidal.offset_matrix",
    "sinusoidal.offset_matrix_group",
    "sinusoidal.offset_matrix_expanded",
    "sinusoidal.norm",
    "sinusoidal.dot_product",
    "sinusoidal.distance",
    "sinusoidal.frequency_order",
    "sinusoidal.origin",
    "sinusoidal.sine_only_origin",
    "sinusoidal.position_term_not_relative",
    "sinusoidal.larger_base",
}


def test_both_modules_define_the_expected_derivations() -> None:
    assert {derivation.id for derivation in DERIVATIONS} == EXPECTED_IDS


@pytest.mark.parametrize("derivation", DERIVATIONS, ids=lambda d: d.id)
def test_derivation_verifies(derivation: Derivation) -> None:
    result = verification(derivation.id)
    failed = [(step.claim, step.error) for step in result.steps if not step.holds]
    assert result.verified, failed


@pytest.mark.slow
@pytest.mark.parametrize("derivation", DERIVATIONS, ids=lambda d: d.id)
def test_markdown_shows_statement_and_every_step(derivation: Derivation) -> None:
    text = render_markdown(derivation)
    assert derivation.statement in text
    steps = derivation.steps()
    assert steps
    for step in steps:
        assert step.claim in text
        assert step.justification in text


def fails(step: Step) -> bool:
    """True when the step's check rejects the claim (and does not merely crash)."""
    return step.check() is False


# Broken blocks: rotation the other way, a reflection, a symmetric matrix, a small-angle linearization.
def flipped_block(angle: sp.Expr) -> sp.Matrix:
    return rotation_block(angle).T


def reflection_block(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), sp.sin(angle)], [sp.sin(angle), -sp.cos(angle)]])


def symmetric_block(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def linearized_block(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[1, angle], [-angle, 1]])


# Broken encodings: cos before sin in each pair, sine in both slots, frequencies 10000^(−i/d), doubled length,
# sines in every dim.
class CosFirst(Sinusoidal):
    def column(self, pos: object) -> sp.Matrix:
        pairs = super().column(pos)
        return sp.Matrix([pairs[j + 1] if j % 2 == 0 else pairs[j - 1] for j in range(pairs.rows)])


class SineOnly(Sinusoidal):
    def column(self, pos: object) -> sp.Matrix:
        return super().column(pos).applyfunc(lambda entry: entry.replace(sp.cos, sp.sin))


class HalfExponent(Sinusoidal):
    def column(self, pos: object) -> sp.Matrix:
        count = len(self.exact_frequencies())
        halved = [sp.Integer(10000) ** sp.Rational(-i, 2 * count) for i in range(count)]
        return Sinusoidal(self.d, omegas=tuple(halved)).column(pos)


class AllSine(Sinusoidal):
    def column(self, pos: object) -> sp.Matrix:
        omegas = self.exact_frequencies()
        return sp.Matrix([sp.sin(pos * omegas[j // 2]) for j in range(self.d)])


class Doubled(Sinusoidal):
    def column(self, pos: object) -> sp.Matrix:
        return 2 * super().column(pos)


def rotated_score(p: sp.Expr, q: sp.Expr, omegas: Sequence[sp.Expr]) -> sp.Expr:
    """PE(p)ᵀ J PE(q) with J a quarter turn in every pair: Σ sin((p − q)ω_i), an odd function of p − q."""
    quarter_turn = sp.diag(*[sp.Matrix([[0, 1], [-1, 0]])] * len(omegas))
    pe = with_frequencies(omegas)
    return dot(pe.column(p), quarter_turn * pe.column(q))


def sine_only_score(p: sp.Expr, q: sp.Expr, omegas: Sequence[sp.Expr]) -> sp.Expr:
    pe = with_frequencies(omegas, family=SineOnly)
    return dot(pe.column(p), pe.column(q))


MUTANTS = {
    "angle addition for sin with the sign flipped": trigonometry.euler_identity(
        sp.sin(A + B), sp.sin(A) * sp.cos(B) - sp.cos(A) * sp.sin(B), "mutant"
    ),
    "angle addition for cos with the sign flipped": trigonometry.euler_identity(
        sp.cos(A + B), sp.cos(A) * sp.cos(B) + sp.sin(A) * sp.sin(B), "mutant"
    ),
    "angle addition with sin and cos swapped": trigonometry.euler_identity(
        sp.sin(A + B), sp.cos(A) * sp.cos(B) - sp.sin(A) * sp.sin(B), "mutant"
    ),
    "code frequency against exponent i/d": identity(
        trigonometry.code_frequency(INDEX, DIM, BASE), BASE ** (-INDEX / DIM), "mutant"
    ),
    "RoPE frequency without the reciprocal": identity(
        trigonometry.rope_code_frequency(INDEX, DIM, BASE), BASE ** (2 * INDEX / DIM), "mutant"
    ),
    "10000 taken as 10^2": identity(
        trigonometry.code_frequency(INDEX, DIM, 10000), sp.Integer(10) ** (-4 * INDEX / DIM), "mutant"
    ),
    "shift block with the sign flipped": sinusoidal.shift_step([OMEGA], block=flipped_block),
    "shift with sin and cos swapped": sinusoidal.shift_step([OMEGA], family=CosFirst),
    "shift by k + 1 against M_k": sinusoidal.shift_step([OMEGA], offset=sinusoidal.K + 1),
    "shift d = 4 with the sign flipped": sinusoidal.shift_step(exact_frequencies(4), block=flipped_block),
    "shift d = 8 with exponent i/d": sinusoidal.shift_step(exact_frequencies(8), family=HalfExponent),
    "shift block depending on pos": sinusoidal.position_free_step(lambda angle: rotation_block(angle + POS)),
    "linearized block is not orthogonal": sinusoidal.orthogonality_step([OMEGA], block=linearized_block),
    "linearized blocks d = 4 are not orthogonal": sinusoidal.orthogonality_step(
        exact_frequencies(4), block=linearized_block
    ),
    "reflection has determinant −1": sinusoidal.determinant_step([OMEGA], block=reflection_block),
    "symmetric blocks do not compose": sinusoidal.composition_step([OMEGA], block=symmetric_block),
    "symmetric block: M_{−k} is not M_kᵀ": sinusoidal.inverse_step([OMEGA], block=symmetric_block),
    "generation with the sign flipped": sinusoidal.generation_step([OMEGA], block=flipped_block),
    "norm d/2 claimed for odd d = 3": sinusoidal.norm_step(exact_frequencies(3), 3),
    "norm of a doubled encoding": sinusoidal.norm_step([OMEGA], family=Doubled),
    "dot product with sine in both slots": sinusoidal.dot_product_step([OMEGA], family=SineOnly),
    "dot product with exponent i/d": sinusoidal.dot_product_step(exact_frequencies(4), family=HalfExponent),
    "sine-only score is not translation invariant": sinusoidal.translation_step(
        [OMEGA], score=sine_only_score
    ),
    "rotated score changes under swapping": sinusoidal.swap_step([OMEGA], score=rotated_score),
    "rotated score tells before from after": sinusoidal.symmetry_step([OMEGA], score=rotated_score),
    "distance of a doubled encoding": sinusoidal.distance_step([OMEGA], family=Doubled),
    "distance with sine in both slots": sinusoidal.distance_step([OMEGA], family=SineOnly),
    "frequencies that grow with i": sinusoidal.exponent_decrease_step(lambda i, d: 2 * i / d),
    "first pair at 10000^(−1/d)": sinusoidal.first_exponent_step(lambda i, d: -(2 * i + 1) / d),
    "last exponent −1 over d − 2": sinusoidal.last_exponent_step(lambda i, d: -2 * i / (d - 2)),
    "origin with sine in both slots": sinusoidal.origin_step(6, family=AllSine),
    "origin with cos before sin": sinusoidal.origin_step(4, family=CosFirst),
    "a larger base with the exponent's sign flipped": sinusoidal.slower_step(
        lambda i, d, b: b ** (2 * i / d)
    ),
    "a base ratio against a frequency with a stray factor i": sinusoidal.base_ratio_step(
        lambda i, d, b: i * b ** (-2 * i / d) if b.is_Symbol else b ** (-2 * i / d)
    ),
}


@pytest.mark.twin(
    "sinusoidal.offset_matrix",
    "sinusoidal.offset_matrix_expanded",
    "sinusoidal.offset_matrix_group",
    "sinusoidal.norm",
    "sinusoidal.dot_product",
    "sinusoidal.distance",
    "lipschitz.distance_bound",
    "sinusoidal.frequency_order",
    "sinusoidal.origin",
    "sinusoidal.larger_base",
    "trigonometry.exp_log_frequency",
)
@pytest.mark.slow
@pytest.mark.parametrize("step", MUTANTS.values(), ids=MUTANTS.keys())
def test_step_rejects_a_broken_claim(step: Step) -> None:
    assert fails(step)


@pytest.mark.slow
def test_even_d_has_no_norm_counterexample() -> None:
    frequencies = exact_frequencies(4)
    at_zero, at_one = with_frequencies(frequencies).column(0), with_frequencies(frequencies).column(1)
    assert fails(inequality(dot(at_zero, at_zero), dot(at_one, at_one), "mutant"))


def test_vanishes_in_exponentials_needs_every_entry_zero() -> None:
    assert trigonometry.vanishes_in_exponentials(sp.Matrix([sp.sin(A) ** 2 + sp.cos(A) ** 2 - 1, 0]))
    assert not trigonometry.vanishes_in_exponentials(sp.Matrix([0, sp.sin(2 * A) - sp.sin(A) * sp.cos(A)]))


@pytest.mark.slow
def test_the_position_term_counterexample_is_zero_against_sin_1_sin_2() -> None:
    first, second = sinusoidal.position_term_counterexample()
    assert first == 0 and sp.simplify(second - sp.sin(1) * sp.sin(2)) == 0
    identity_map = sp.eye(6)
    assert fails(
        inequality(
            sinusoidal.position_term(identity_map, 1, 0),
            sinusoidal.position_term(identity_map, 2, 1),
            "mutant: A = I makes the term Σ cos((i − j)ω), relative",
        )
    )
