"""The rules that turn evidence into verdicts: each verdict is reachable, only by the evidence it names."""

from __future__ import annotations

import pytest

from pe_verify.claims import catalog
from pe_verify.claims.model import (
    BACKGROUND,
    BEYOND_DOMAIN,
    CAVEAT,
    CITATION,
    CONDITION_MISSING,
    CONDITIONS,
    CONFIRMED_BY_SOURCES,
    CONTRADICTED_BY_SOURCES,
    CORROBORATES,
    DIGITS,
    EXACT,
    FINITE,
    FLAWED,
    LIMITS,
    NOT_CHECKABLE,
    NUMERIC,
    OPENING_AGAINST,
    PROVED,
    REFUTED,
    REFUTES,
    SOUND,
    SOURCES_DISAGREE,
    STEP_CHECKED,
    STEP_FAILS,
    SYMBOLIC,
    UNSETTLED,
    Assessment,
    Evidence,
    Verdict,
    argument_verdict,
    claim_verdict,
    opening,
    opening_contradicts,
    sources_point,
)


def ev(
    kind: str = SYMBOLIC, holds: bool = True, bearing: str = "supports", instances: str | None = None
) -> Evidence:
    return Evidence(kind, "a check", holds, bearing, instances=instances)


SOME = "r = 2, 4, …, 256"


@pytest.mark.parametrize(
    ("evidence", "verdict"),
    [
        ([ev(), ev(EXACT)], PROVED),
        ([ev(), ev(DIGITS)], NUMERIC),
        ([ev(CITATION)], CONFIRMED_BY_SOURCES),
        ([ev(), ev(EXACT, bearing=REFUTES)], REFUTED),
        ([ev(EXACT, bearing=REFUTES)], REFUTED),
        ([ev(), ev(EXACT, bearing=LIMITS)], CAVEAT),
        ([ev(), ev(EXACT, holds=False, bearing=REFUTES)], PROVED),
        ([ev(), ev(EXACT, holds=False, bearing=LIMITS)], PROVED),
        ([ev(), ev(EXACT, bearing=BEYOND_DOMAIN)], PROVED),
        ([ev(), ev(DIGITS), ev(EXACT, bearing=BEYOND_DOMAIN)], NUMERIC),
        ([ev(EXACT, bearing=BEYOND_DOMAIN)], UNSETTLED),
        ([ev(), ev(holds=False)], UNSETTLED),
        ([ev(EXACT, holds=False, bearing=REFUTES)], UNSETTLED),
        ([ev(EXACT, bearing=LIMITS)], UNSETTLED),
        ([], UNSETTLED),
        ([ev(CITATION, bearing=REFUTES)], CONTRADICTED_BY_SOURCES),
        ([ev(CITATION), ev(CITATION, bearing=LIMITS)], SOURCES_DISAGREE),
        ([ev(CITATION, holds=False, bearing=REFUTES)], NOT_CHECKABLE),
        ([ev(CITATION, bearing=BACKGROUND)], NOT_CHECKABLE),
        ([ev(CITATION, bearing=BACKGROUND), ev(CITATION, bearing=REFUTES)], CONTRADICTED_BY_SOURCES),
        ([ev(), ev(CITATION, bearing=REFUTES)], CONTRADICTED_BY_SOURCES),
        ([ev(CITATION), ev(CITATION, bearing=REFUTES)], CONTRADICTED_BY_SOURCES),
        ([ev(), ev(CITATION, bearing=LIMITS)], CAVEAT),
        ([ev(), ev(CITATION)], PROVED),
        ([ev(), ev(DIGITS, bearing=CORROBORATES)], PROVED),
        ([ev(), ev(DIGITS, holds=False, bearing=CORROBORATES)], UNSETTLED),
        ([ev(instances=SOME)], FINITE),
        ([ev(EXACT, instances=SOME), ev(CITATION)], FINITE),
        ([ev(), ev(EXACT, instances=SOME)], FINITE),
        ([ev(), ev(EXACT, bearing=CORROBORATES, instances=SOME)], PROVED),
        ([ev(instances=SOME), ev(DIGITS)], NUMERIC),
        ([ev(instances=SOME), ev(EXACT, bearing=LIMITS)], CAVEAT),
        ([ev(instances=SOME), ev(EXACT, bearing=REFUTES)], REFUTED),
        ([ev(holds=False, instances=SOME)], UNSETTLED),
    ],
)
def test_claim_verdict(evidence: list[Evidence], verdict: str) -> None:
    assert claim_verdict(evidence) == verdict


@pytest.mark.parametrize(
    ("evidence", "verdict"),
    [
        ([ev(bearing=STEP_CHECKED)], SOUND),
        ([ev(bearing=STEP_CHECKED), ev(EXACT, bearing=CONDITION_MISSING)], CONDITIONS),
        ([ev(bearing=STEP_CHECKED), ev(EXACT, bearing=STEP_FAILS)], FLAWED),
        ([ev(bearing=STEP_CHECKED), ev(EXACT, holds=False, bearing=STEP_FAILS)], SOUND),
        ([ev(holds=False, bearing=STEP_CHECKED)], UNSETTLED),
        ([], UNSETTLED),
    ],
)
def test_argument_verdict(evidence: list[Evidence], verdict: str) -> None:
    assert argument_verdict(evidence) == verdict


def test_assessment_names_the_failing_step() -> None:
    assessment = Assessment(
        (ev(),),
        "explained",
        (ev(bearing=STEP_CHECKED), Evidence(EXACT, "step 3 needs ω ∉ πℚ", True, CONDITION_MISSING)),
    )
    assert assessment.argument_verdict == CONDITIONS
    assert assessment.argument_issue == "step 3 needs ω ∉ πℚ"
    assert Assessment((ev(),), "no argument").argument_verdict is None


@pytest.mark.parametrize(("kind", "bearing"), [("guess", "supports"), (SYMBOLIC, "maybe")])
def test_evidence_rejects_unknown_kinds_and_bearings(kind: str, bearing: str) -> None:
    with pytest.raises(ValueError, match="unknown"):
        Evidence(kind, "x", True, bearing)


@pytest.mark.parametrize(
    ("evidence", "direction"),
    [
        ([ev()], None),
        ([ev(CITATION)], "for"),
        ([ev(CITATION, bearing=REFUTES)], "against"),
        ([ev(CITATION), ev(CITATION, bearing=LIMITS)], "mixed"),
        ([ev(CITATION, holds=False, bearing=REFUTES)], None),
        ([ev(CITATION, bearing=BACKGROUND)], None),
        ([ev(CITATION, bearing=BACKGROUND), ev(CITATION)], "for"),
    ],
)
def test_sources_point(evidence: list[Evidence], direction: str | None) -> None:
    assert sources_point(evidence) == direction


def test_evidence_outcome_must_be_a_decided_bool() -> None:
    import sympy as sp

    with pytest.raises(TypeError, match="holds must be a bool"):
        Evidence(SYMBOLIC, "x", sp.true)


@pytest.mark.parametrize("item", catalog.all_claims(), ids=lambda item: item.id)
def test_every_explanation_opens_as_its_verdict_says(item) -> None:
    found = catalog.assessment(item.id)
    assert opening_contradicts(found.verdict, found.explanation) is None, opening(found.explanation)


@pytest.mark.parametrize(
    ("verdict", "explanation"),
    [
        # the openings these entries had, under the verdicts they had, before their words were fixed
        (
            CONFIRMED_BY_SOURCES,
            "Not checkable: 'expressiveness' is not defined, and the comparisons point both ways.",
        ),
        (SOURCES_DISAGREE, "The cited sources contradict it as stated: Falcon uses rotary embeddings."),
        (CONFIRMED_BY_SOURCES, "Only the premise that RoPE models with 128K windows exist can be checked."),
        (
            CONTRADICTED_BY_SOURCES,
            "The premise is proved (SymPy: PE(p + k) = M_k PE(p)). The conclusion fails.",
        ),
        # and one for every other verdict
        (PROVED, "Refuted: the step fails at d = 3."),
        (FINITE, "False as stated: d = 3 is a counterexample."),
        (NUMERIC, "Contradicted by the measurements."),
        (CAVEAT, "Confirmed by sources: the attribution agrees."),
        (REFUTED, "Proved for every d."),
        (NOT_CHECKABLE, "Confirmed: the sources agree."),
        (UNSETTLED, "Proved: every step holds."),
    ],
)
def test_an_opening_against_its_verdict_is_caught(verdict, explanation: str) -> None:
    assert opening_contradicts(verdict, explanation) is not None


def test_every_verdict_has_words_it_must_not_open_with() -> None:
    assert set(OPENING_AGAINST) == set(Verdict)
