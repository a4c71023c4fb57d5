"""The Lipschitz derivations verify and render; their step builders reject broken claims."""

from __future__ import annotations

import pytest
import sympy as sp

from pe_verify.claims.evidence import verification
from pe_verify.proofs import lipschitz
from pe_verify.proofs.derivation import Derivation, Step, render_markdown
from pe_verify.proofs.lipschitz import (
    HALF_STEP,
    MIDPOINT,
    Y_PLUS,
    T,
    cosine_change,
    gap_step,
    integral_step,
    sine_change,
    square_step,
    sum_to_product_step,
)

DERIVATIONS = [value for value in vars(lipschitz).values() if isinstance(value, Derivation)]


def fails(step: Step) -> bool:
    """True when the step's check rejects the claim (and does not merely crash)."""
    return step.check() is False


def test_the_module_defines_the_expected_derivations() -> None:
    assert {item.id for item in DERIVATIONS} == {
        "lipschitz.sine_bound",
        "lipschitz.coordinate_step",
        "lipschitz.distance_bound",
    }


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


@pytest.mark.twin("lipschitz.coordinate_step")
@pytest.mark.parametrize(
    ("change", "product"),
    [
        (sine_change(), 2 * sp.sin(HALF_STEP) * sp.sin(MIDPOINT)),  # sine instead of cosine
        (sine_change(), sp.sin(HALF_STEP) * sp.cos(MIDPOINT)),  # factor 2 lost
        (cosine_change(), 2 * sp.sin(HALF_STEP) * sp.sin(MIDPOINT)),  # sign lost
        (cosine_change(), -2 * sp.sin(2 * HALF_STEP) * sp.sin(MIDPOINT)),  # full angle, not half
    ],
)
def test_sum_to_product_rejects_a_wrong_product(change: sp.Expr, product: sp.Expr) -> None:
    assert fails(sum_to_product_step(change, product, r"\sin"))


@pytest.mark.twin("lipschitz.coordinate_step")
def test_gap_step_rejects_a_wrong_or_negative_leftover() -> None:
    product = 2 * sp.sin(HALF_STEP) * sp.cos(MIDPOINT)
    assert fails(gap_step(product, 4 * sp.sin(HALF_STEP) ** 2 * sp.cos(MIDPOINT) ** 2))
    assert fails(gap_step(product, -4 * sp.sin(HALF_STEP) ** 2 * sp.sin(MIDPOINT) ** 2))


@pytest.mark.twin("lipschitz.sine_bound")
def test_integral_step_rejects_a_wrong_antiderivative() -> None:
    assert fails(integral_step(1 - sp.cos(T), Y_PLUS + sp.sin(Y_PLUS)))
    assert fails(integral_step(1 + sp.cos(T), Y_PLUS - sp.sin(Y_PLUS)))


@pytest.mark.twin("lipschitz.sine_bound")
def test_square_step_rejects_a_wrong_half_angle_formula() -> None:
    assert fails(square_step(1 - sp.cos(T), sp.sin(T / 2) ** 2))
    assert fails(square_step(1 + sp.cos(T), 2 * sp.sin(T / 2) ** 2))
