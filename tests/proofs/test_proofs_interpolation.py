"""The derivations behind position interpolation's bounds and the critical dimension (`proofs/scaling.py`):
each verifies, and each fails when what it checks is broken."""

from __future__ import annotations

import pytest
import sympy as sp

from pe_verify.claims.evidence import verification
from pe_verify.proofs import all_derivations
from pe_verify.proofs import scaling as proofs
from pe_verify.proofs.derivation import is_zero

NEW = {
    "scaling.pi_tangent_line": 5,
    "scaling.pi_curvature_sum": 4,
    "scaling.pi_midpoint_error": 4,
    "scaling.pi_bound_ratio": 4,
    "scaling.critical_dimension": 2,
}


def _derivation(derivation_id: str):
    return next(item for item in all_derivations() if item.id == derivation_id)


@pytest.mark.parametrize(("derivation_id", "steps"), NEW.items())
def test_each_derivation_verifies_for_symbolic_parameters(derivation_id: str, steps: int) -> None:
    item = _derivation(derivation_id)
    result = verification(derivation_id)
    assert result.verified, [(s.claim, s.error) for s in result.steps if not s.holds]
    assert len(result.steps) == steps and item.instances is None


@pytest.mark.twin("scaling.pi_tangent_line")
@pytest.mark.slow
def test_a_wrong_remainder_integral_breaks_the_tangent_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        proofs,
        "tangent_gap_integral",
        lambda u: sp.integrate(
            (1 + proofs.PI_W) * sp.exp(u * proofs.PI_W), (proofs.PI_W, 0, 1), conds="none"
        ),
    )
    result = _derivation("scaling.pi_tangent_line").verify()
    assert [s.holds for s in result.steps][:3] == [False, True, False]


@pytest.mark.twin("scaling.pi_tangent_line")
@pytest.mark.slow
def test_a_sign_changing_integrand_breaks_the_tangent_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proofs, "tangent_gap_integrand", lambda u: u * (1 - 1 / (1 + proofs.PI_Z)))
    result = _derivation("scaling.pi_tangent_line").verify()
    assert not result.steps[1].holds and not result.steps[2].holds


@pytest.mark.slow
def test_the_reversed_step_of_eq_14_is_disproved_not_assumed() -> None:
    u = proofs.PI_POSITIVE_U
    assert bool(proofs.tangent_gap_integrand(-u).is_positive)  # e^(−u) − 1 + u > 0: eq. (14) never holds
    assert is_zero(u**2 * proofs.tangent_gap_integral(-u) - (sp.exp(-u) - 1 + u))
    assert not is_zero(u**2 * proofs.tangent_gap_integral(-u) - (1 - u - sp.exp(-u)))


@pytest.mark.twin("scaling.pi_curvature_sum", "scaling.critical_dimension")
def test_a_wrong_frequency_breaks_the_curvature_sum_and_the_critical_dimension(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(proofs, "frequency_expr", lambda i, d, base: base ** (-i / d))
    curvature = _derivation("scaling.pi_curvature_sum").verify()
    critical = _derivation("scaling.critical_dimension").verify()
    assert not curvature.steps[1].holds and curvature.steps[0].holds
    assert [s.holds for s in critical.steps] == [False, False]


@pytest.mark.slow
def test_the_midpoint_facts_reject_a_wrong_chord() -> None:
    theta = sp.Symbol("theta", real=True)
    half = sp.exp(sp.I * theta / 2)
    right = half - (1 + sp.exp(sp.I * theta)) / 2 - half * (1 - sp.cos(theta / 2))
    wrong = half - (1 + 2 * sp.exp(sp.I * theta)) / 3 - half * (1 - sp.cos(theta / 2))  # weights 1/3, 2/3
    assert is_zero(right.rewrite(sp.cos)) and not is_zero(wrong.rewrite(sp.cos))
