"""Twins of the scaling derivations: each fed a broken input (a wrong frequency formula, a logit scale
left out) must fail the steps that depend on it."""

from __future__ import annotations

import pytest
import sympy as sp

from pe_verify.proofs import scaling


def _wrong_frequency(i: object, d: object, base: object) -> object:
    """θ_i = b^(−i/d): the exponent without its factor 2."""
    return base ** (-i / d)


@pytest.mark.slow
@pytest.mark.twin("scaling.ntk")
def test_a_wrong_frequency_breaks_the_ntk_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scaling, "rope_frequency", _wrong_frequency)
    holds = [step.holds for step in scaling.ntk.verify().steps]
    assert holds == [False, True, False, False, True]


@pytest.mark.slow
@pytest.mark.twin("scaling.yarn_reference_ramp")
def test_a_wrong_frequency_breaks_the_reference_ramp_s_turn_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scaling, "rope_frequency", _wrong_frequency)
    holds = [step.holds for step in scaling.yarn_reference_ramp.verify().steps]
    assert holds[:2] == [False, False] and all(holds[2:])


@pytest.mark.twin("scaling.proportional")
def test_a_frequency_off_the_power_law_or_a_turning_zero_pair_breaks_proportional_rope(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """θ_i = b^(−2i/d) + 1 is no power of the base, so the whole-head exponent step fails; a rotation that is
    not the identity at angle 0 breaks the unturned pairs' step."""
    with monkeypatch.context() as patch:
        patch.setattr(scaling, "rope_frequency", lambda i, d, base: base ** (-2 * i / d) + 1)
        assert [step.holds for step in scaling.proportional.verify().steps] == [False, True, True]
    quarter_turn = sp.Matrix([[0, -1], [1, 0]])
    monkeypatch.setattr(scaling, "rotation", lambda angle: quarter_turn + sp.sin(angle) * sp.eye(2))
    assert [step.holds for step in scaling.proportional.verify().steps] == [True, True, False]
