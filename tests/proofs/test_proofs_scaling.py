"""Twins of the scaling derivations: each fed a broken input (a wrong frequency formula, a logit scale
left out) must fail the steps that depend on it."""

from __future__ import annotations

import pytest

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
