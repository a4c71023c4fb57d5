"""The random-score derivations verify and render; their step builders reject broken claims; the expectation
helper computes known moments; and the peak construction agrees with the float64 RoPE."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from pe_verify.claims.evidence import verification
from pe_verify.proofs import random_scores
from pe_verify.proofs.derivation import Derivation, Step, render_markdown
from pe_verify.proofs.random_scores import (
    DISTANCE,
    aligned_score_step,
    block_form_step,
    block_mean_step,
    expectation,
    gaussian_moment,
    second_moment_steps,
    standard_moment,
)
from pe_verify.proofs.rope import M, N
from pe_verify.properties.encodings.rope import apply_rope

DERIVATIONS = [value for value in vars(random_scores).values() if isinstance(value, Derivation)]


def fails(step: Step) -> bool:
    """True when the step's check rejects the claim (and does not merely crash)."""
    return step.check() is False


def test_the_module_defines_the_expected_derivations() -> None:
    assert {item.id for item in DERIVATIONS} == {
        "random_scores.expected_score",
        "random_scores.score_peak_at_any_distance",
    }
    assert all(item.instances is None for item in DERIVATIONS)


@pytest.mark.parametrize("derivation", DERIVATIONS, ids=lambda d: d.id)
def test_derivation_verifies(derivation: Derivation) -> None:
    result = verification(derivation.id)
    assert result.verified, [(step.claim, step.error) for step in result.steps if not step.holds]


@pytest.mark.parametrize("derivation", DERIVATIONS, ids=lambda d: d.id)
def test_markdown_shows_statement_and_every_step(derivation: Derivation) -> None:
    text = render_markdown(derivation)
    assert derivation.statement in text
    for step in derivation.steps():
        assert step.claim in text and step.justification in text


@pytest.mark.slow
def test_expectation_multiplies_the_moments_of_independent_variables() -> None:
    x, y = sp.symbols("x y", real=True)
    a, b = sp.symbols("a b", real=True)
    moment = gaussian_moment({x: a, y: b})
    assert (
        sp.expand(expectation(3 * x**2 * y + 2 * x - 5, (x, y), moment) - (3 * (a**2 + 1) * b + 2 * a - 5))
        == 0
    )
    assert expectation(x**4 * y**2, (x, y), standard_moment) == 3


@pytest.mark.twin("random_scores.expected_score")
def test_the_block_form_rejects_the_offset_taken_the_other_way() -> None:
    assert not fails(block_form_step())
    assert fails(block_form_step(M - N))


@pytest.mark.slow
def test_the_block_mean_rejects_wrong_moments() -> None:
    """Broken: every entry taken with mean 1 instead of its own mean."""
    assert fails(block_mean_step(lambda variable, power: sp.Integer(1)))


@pytest.mark.twin("random_scores.expected_score")
def test_the_second_moment_rejects_wrong_moments() -> None:
    """Broken: variance 2 instead of 1 (E[x²] = 2) makes the block's second moment 8, not 2."""
    doubled = second_moment_steps(
        lambda variable, power: sp.Integer(2) if power == 2 else standard_moment(variable, power)
    )
    assert fails(doubled[0]) and not fails(doubled[1])
    shifted = second_moment_steps(lambda variable, power: sp.Integer(1))
    assert fails(shifted[1])


@pytest.mark.twin("random_scores.score_peak_at_any_distance")
@pytest.mark.slow
def test_the_aligned_key_rejects_a_key_turned_the_other_way() -> None:
    assert not fails(aligned_score_step())
    assert fails(aligned_score_step(-DISTANCE))
    assert fails(aligned_score_step(2 * DISTANCE))


@given(st.integers(1, 16), st.integers(0, 2**32 - 1), st.integers(0, 400))
def test_a_key_rotated_by_r_peaks_at_distance_r_in_float64(half: int, seed: int, r: int) -> None:
    """k = R_r q (the float64 RoPE) makes ⟨R_m q, R_0 k⟩ largest at m = r over m = 0 … 500, as proved."""
    q = np.random.default_rng(seed).standard_normal((1, 2 * half))
    k = apply_rope(q, [r])
    positions = np.arange(501)
    scores = np.sum(apply_rope(np.repeat(q, positions.size, axis=0), positions) * apply_rope(k, [0]), axis=1)
    assert int(np.argmax(scores)) == r
    assert scores[r] == pytest.approx(float(np.sum(q**2)), rel=1e-9)
