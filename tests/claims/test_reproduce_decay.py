"""The reproductions of RoFormer's decay curve and of Barbero et al.'s expected score: their rows and
verdicts, what breaking the computation does to them, the figure of the curve, and their running time."""

from __future__ import annotations

import flint
import pytest

from pe_verify.claims import catalog, evidence, reproduce_decay
from pe_verify.claims.model import CAVEAT, LIMITS, PROVED, SUPPORTS, UNSETTLED, Assessment, Claim
from pe_verify.claims.numbers import UNCERTIFIED
from pe_verify.proofs import random_scores
from pe_verify.proofs.derivation import fact
from pe_verify.reporting import figures

ENTRIES = {value.id: value for value in vars(reproduce_decay).values() if isinstance(value, Claim)}


def assessed(claim_id: str) -> Assessment:
    """The catalog's assessment (computed once per process; afresh in a test that substitutes a twin)."""
    return catalog.assessment(claim_id)


def test_the_module_holds_the_two_reproductions() -> None:
    assert {item.id: item.reproduces for item in ENTRIES.values()} == {
        "G.roformer_decay": "roformer_decay",
        "G.rope_expected_score": "rope_expected_score",
    }
    for item in ENTRIES.values():
        assert "arXiv" in item.source.document and item.source.section
        assert assessed(item.id).reproduction.name == item.reproduces


def test_the_decay_curve_decays_as_a_trend_but_not_step_by_step() -> None:
    found = assessed("G.roformer_decay")
    assert found.verdict == CAVEAT
    trend, rows = found.reproduction.rows[:2], found.reproduction.rows
    assert all(row.agrees for row in trend) and not rows[2].agrees
    assert rows[0].computed == "B(0) = 32.500000, B(256) = 6.543097"
    assert "rises at 115 of 256 steps, the first at r = 18 → 19" in rows[2].computed
    assert "160–191 above 128–159" in rows[1].note
    assert UNCERTIFIED not in found.explanation + " ".join(e.summary for e in found.evidence)


def balls_of(values: list[float], radius: float = 0.0) -> tuple[flint.arb, ...]:
    return tuple(flint.arb(value, radius) for value in values)


def test_a_monotone_curve_would_prove_the_decay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        reproduce_decay,
        "relative_upper_bound_arb",
        lambda distances, d, base: balls_of([300 - r for r in distances]),
    )
    found = assessed("G.roformer_decay")
    assert found.verdict == PROVED and all(row.agrees for row in found.reproduction.rows)
    assert [e.holds for e in found.evidence if e.bearing == LIMITS] == [False]


def test_a_rising_curve_unsettles_the_decay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        reproduce_decay,
        "relative_upper_bound_arb",
        lambda distances, d, base: balls_of([float(r) for r in distances]),
    )
    found = assessed("G.roformer_decay")
    assert found.verdict == UNSETTLED and not any(row.agrees for row in found.reproduction.rows)


def test_balls_too_wide_to_decide_the_signs_unsettle_the_decay(monkeypatch: pytest.MonkeyPatch) -> None:
    original = reproduce_decay.relative_upper_bound_arb
    monkeypatch.setattr(
        reproduce_decay,
        "relative_upper_bound_arb",
        lambda distances, d, base: tuple(ball + flint.arb(0, 1) for ball in original(distances, d, base)),
    )
    found = assessed("G.roformer_decay")
    assert found.verdict == UNSETTLED and UNCERTIFIED in found.evidence[0].summary
    assert not any(row.agrees for row in found.reproduction.rows[:2])


def test_the_expected_score_is_proved_and_its_rows_agree() -> None:
    found = assessed("G.rope_expected_score")
    assert found.verdict == PROVED
    assert all(row.agrees for row in found.reproduction.rows)
    assert [e.bearing for e in found.evidence][:2] == [SUPPORTS, SUPPORTS]


def test_a_sample_with_a_mean_unsettles_the_expected_score(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken input: every entry of q and k shifted by 1, so the sampled mean score is far from 0."""
    original = reproduce_decay.check_mean_score_vanishes
    monkeypatch.setattr(
        reproduce_decay, "check_mean_score_vanishes", lambda q, k, *rest: original(q + 1, k + 1, *rest)
    )
    found = assessed("G.rope_expected_score")
    assert found.verdict == UNSETTLED and not found.reproduction.rows[0].agrees


@pytest.mark.slow
def test_a_failing_derivation_unsettles_the_expected_score(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken step: the Gaussian mean claimed to be the all-ones score instead of 0."""
    monkeypatch.setattr(random_scores, "gaussian_mean_step", lambda: fact("E = d", "wrong", lambda: False))
    twin = random_scores.expected_score
    cached = evidence.verification
    monkeypatch.setattr(
        evidence, "verification", lambda name: twin.verify() if name == twin.id else cached(name)
    )
    found = assessed("G.rope_expected_score")
    assert (
        found.verdict == UNSETTLED
        and not found.reproduction.rows[0].agrees
        and found.reproduction.rows[1].agrees
    )


@pytest.mark.slow
def test_the_figure_draws_the_curve_with_certified_numbers() -> None:
    plot = figures.roformer_decay(figures.SCALES)
    assert plot.name in figures.ILLUSTRATES and "G.roformer_decay" in plot.claims
    assert "B(0) = 32.500000 and B(256) = 6.543097" in plot.caption
    assert "rises at 115 of its 256 steps" in plot.caption and UNCERTIFIED not in plot.caption
    assert figures.is_ours(plot.png)
