"""The steps of `trigonometry.sinusoidal_parameter_free` hold for the sinusoidal encoding and fail for
encodings that are unbounded, learned or carry a free parameter; `trigonometry.div_term_is_the_reciprocal`
fails for a div_term that is the commented power itself."""

from __future__ import annotations

import pytest
import sympy as sp
from twins import FreeParameter, LearnedFunction, Unbounded

from pe_verify.claims.evidence import verification
from pe_verify.proofs import trigonometry
from pe_verify.properties.encodings.sinusoidal import Sinusoidal


@pytest.mark.slow
@pytest.mark.parametrize("d", trigonometry.ENCODING_DIMS)
def test_the_sinusoidal_encoding_passes_both_steps(d: int) -> None:
    encoding = Sinusoidal(d)
    assert trigonometry.only_free_symbol_step(encoding).check()
    assert trigonometry.real_and_finite_step(encoding).check()


def test_the_derivation_verifies_for_symbolic_d_then_with_two_steps_per_dimension() -> None:
    result = verification(trigonometry.sinusoidal_parameter_free.id)
    assert result.verified and len(result.steps) == 1 + 2 * len(trigonometry.ENCODING_DIMS)
    assert trigonometry.sinusoidal_parameter_free.instances is None


@pytest.mark.slow
def test_a_learned_parameter_in_the_entry_formula_fails_the_symbolic_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    phase = sp.Symbol("phi", real=True)
    monkeypatch.setattr(trigonometry, "frequency_expr", lambda i, d, base: base ** (-2 * i / d) + phase)
    result = trigonometry.sinusoidal_parameter_free.verify()
    assert not result.steps[0].holds and all(step.holds for step in result.steps[1:])


@pytest.mark.parametrize(
    ("broken", "free_symbol_only", "real_and_finite"),
    [(Unbounded, True, False), (LearnedFunction, True, False), (FreeParameter, False, False)],
    ids=["unbounded", "learned function", "free parameter"],
)
def test_broken_encodings_fail_the_step_they_break(
    broken: type[Sinusoidal], free_symbol_only: bool, real_and_finite: bool
) -> None:
    encoding = broken(7)
    assert trigonometry.only_free_symbol_step(encoding).check() is free_symbol_only
    assert trigonometry.real_and_finite_step(encoding).check() is real_and_finite


@pytest.mark.twin("trigonometry.sinusoidal_parameter_free")
@pytest.mark.slow
def test_a_broken_encoding_makes_the_derivation_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trigonometry, "Sinusoidal", FreeParameter)
    assert not trigonometry.sinusoidal_parameter_free.verify().verified


def test_div_term_is_the_reciprocal_of_the_commented_power() -> None:
    assert verification(trigonometry.div_term_is_the_reciprocal.id).verified


@pytest.mark.twin("trigonometry.div_term_is_the_reciprocal")
def test_a_div_term_that_is_the_commented_power_fails_the_reciprocal_derivation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(trigonometry, "code_frequency", lambda i, d, base: base ** (2 * i / d))
    result = trigonometry.div_term_is_the_reciprocal.verify()
    assert not result.steps[0].holds and not result.steps[2].holds
