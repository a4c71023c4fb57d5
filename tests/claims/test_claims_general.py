"""The catalog entries beyond the documents: each computed verdict is the recorded one, and breaking what an
entry computes with changes its verdict."""

from __future__ import annotations

import functools
import re
from fractions import Fraction

import flint
import numpy as np
import pytest

from pe_verify.claims import catalog, evidence, general
from pe_verify.claims.model import (
    CAVEAT,
    CORROBORATES,
    FLOAT,
    NUMERIC,
    UNSETTLED,
    Assessment,
    Claim,
    claim_verdict,
)
from pe_verify.proofs import rope as rope_proofs
from pe_verify.properties.analyses.rope_precision import RopeInDtype, rope_in_dtype
from pe_verify.properties.encodings import scaling as scaling_properties
from pe_verify.properties.encodings.alibi import Alibi
from pe_verify.properties.encodings.rope import Rope
from pe_verify.properties.encodings.scaling import RopeScaling

CLAIMS = [value for value in vars(general).values() if isinstance(value, Claim)]
EXPECTED_IDS = {
    "G.rope_layouts",
    "G.rope_mixed_layouts",
    "G.linear_interpolation",
    "G.ntk_scaling",
    "G.dynamic_ntk",
    "G.yarn_ramp",
    "G.yarn_reference_ramp",
    "G.yarn_temperature",
    "G.llama3_scaling",
    "G.alibi_slopes",
    "G.alibi_slopes_other",
    "G.rope_long_term_decay",
    "G.rope_low_precision",
}


@functools.cache
def assessed(claim_id: str) -> Assessment:
    return next(item for item in CLAIMS if item.id == claim_id).assess()


@pytest.mark.slow
@pytest.mark.parametrize("entry", CLAIMS, ids=lambda entry: entry.id)
def test_entry_is_well_formed(entry: Claim) -> None:
    assert re.fullmatch(r"G\.[a-z0-9_]+", entry.id)
    assert entry.source.document == "(beyond the documents)" and entry.source.section
    assert entry.statement and entry.formal and assessed(entry.id).explanation
    known = {item.id for item in CLAIMS}
    assert set(entry.depends_on) <= known


def test_every_listed_entry_exists_once() -> None:
    ids = [entry.id for entry in CLAIMS]
    assert len(ids) == len(set(ids)) and set(ids) == EXPECTED_IDS


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", ["G.rope_long_term_decay", "G.rope_low_precision"])
def test_seeded_experiments_are_deterministic(claim_id: str) -> None:
    entry = next(item for item in CLAIMS if item.id == claim_id)
    assert catalog.assessment(entry.id) == assessed(claim_id)


@pytest.mark.slow
def test_numeric_verdicts_rest_on_floating_point_evidence_and_proofs_do_not() -> None:
    """Floating-point evidence that only corroborates an exact proof does not make a verdict numerical."""
    for entry in CLAIMS:
        kinds = {e.kind for e in assessed(entry.id).evidence if e.bearing != CORROBORATES}
        assert (FLOAT in kinds) == (entry.expected in (NUMERIC, CAVEAT)), entry.id


def test_the_layout_entries_are_proved_for_every_rotary_dimension() -> None:
    for claim_id, derivation_id in (
        ("G.rope_layouts", "rope.half_split_permutation"),
        ("G.rope_mixed_layouts", "rope.mixed_layouts_every_dimension"),
    ):
        found = assessed(claim_id)
        cited = [e for e in found.evidence if ("derivation", derivation_id) in e.detail]
        assert cited and cited[0].bearing != CORROBORATES and cited[0].holds
        assert all(e.bearing == CORROBORATES for e in found.evidence if e.kind == FLOAT)


def _verify_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the entries re-run their derivations (the catalog runs each once per process)."""
    monkeypatch.setattr(evidence, "verification", lambda name: evidence.derivation(name).verify())


# ------------------------------------------------------------------ breaking a check changes the verdict


def test_a_wrong_layout_permutation_unsettles_the_layout_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    _verify_afresh(monkeypatch)
    monkeypatch.setattr(rope_proofs, "ROTARY_DIMS", ((2,), (4,), (8,)))  # a few dimensions suffice
    monkeypatch.setattr(rope_proofs, "layout_permutation", lambda d, rotary_dim=None: np.arange(d))
    found = general.rope_layouts.assess()
    assert found.verdict == UNSETTLED
    assert [e.holds for e in found.evidence[:2]] == [False, False]


def test_a_half_split_rotating_the_wrong_way_unsettles_the_layout_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class WrongSign(Rope):
        """The half-split layout turns its pairs by −p·θ_i."""

        def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
            sign = -1 if self.layout == "half_split" else 1
            return super().rotate(x, sign * np.asarray(positions))

    monkeypatch.setattr(general, "Rope", WrongSign)
    assert general.rope_layouts.assess().verdict == UNSETTLED


class SlopesFromZero(Alibi):
    """Exponents −8h/n for h = 0, …, n − 1: the first slope is 1."""

    def exponents(self, n_heads: int) -> tuple[Fraction, ...]:
        return tuple(Fraction(-8 * h, n_heads) for h in range(n_heads))


class NaiveFormula(Alibi):
    """2^(−8h/n) for every head count, powers of two or not."""

    def exponents(self, n_heads: int) -> tuple[Fraction, ...]:
        return tuple(Fraction(-8 * h, n_heads) for h in range(1, n_heads + 1))


def test_slopes_counted_from_zero_unsettle_the_alibi_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(general, "Alibi", SlopesFromZero)
    assert general.alibi_slopes.assess().verdict == UNSETTLED


@pytest.mark.slow
def test_slopes_2_to_minus_8h_over_n_for_every_count_unsettle_the_other_counts_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(general, "Alibi", NaiveFormula)
    assert general.alibi_slopes_other.assess().verdict == UNSETTLED


def test_turn_counts_with_the_exponent_sign_flipped_unsettle_the_llama3_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def sign_flipped(d: int, base: int, context: int) -> list:
        return [
            flint.arb(context) * flint.arb(base) ** (flint.arb(2 * i) / d) / (2 * flint.arb.pi())
            for i in range(d // 2)
        ]

    monkeypatch.setattr(scaling_properties, "turns_per_context", sign_flipped)
    assert general.llama3_scaling.assess().verdict == UNSETTLED


def test_a_code_ramp_equal_to_the_papers_unsettles_the_reference_ramp_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = scaling_properties.yarn_weights

    def paper_twice(scaling: RopeScaling, d: int, base: int) -> tuple[list, list[Fraction]]:
        paper, _ = original(scaling, d, base)
        return paper, [Fraction(gamma.mid().str(30, radius=False)) for gamma in paper]

    monkeypatch.setattr(scaling_properties, "yarn_weights", paper_twice)
    assert general.yarn_reference_ramp.assess().verdict == UNSETTLED


def test_ramp_ends_that_need_no_rounding_unsettle_the_reference_ramp_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Were c(β) and c(α) integers, rounding would move no weight: the entry's "the floor and ceiling move
    the weights of the pairs next to the ends" must then fail."""
    original = scaling_properties.yarn_code_bounds

    def integer_ends(scaling: RopeScaling, d: int, base: int) -> tuple[flint.arb, flint.arb, int, int]:
        _, _, low, high = original(scaling, d, base)
        return flint.arb(low), flint.arb(high), low, high

    monkeypatch.setattr(scaling_properties, "yarn_code_bounds", integer_ends)
    found = general.yarn_reference_ramp.assess()
    assert found.verdict == UNSETTLED and not found.evidence[-1].holds


def test_the_rounded_ramp_ends_agree_with_a_float64_recomputation() -> None:
    """The printed weights of the real pairs next to the rounded ends, rounded and unrounded, and the ramp's
    values at the fractional dims c(β), c(α), recomputed from find_correction_dim in float64."""
    config = general.YARN_LLAMA2
    d, base, context = general.LLAMA_D, general.LLAMA2_BASE, config.original_context
    c_beta, c_alpha = (d * np.log(context / (n * 2 * np.pi)) / (2 * np.log(base)) for n in (32, 1))
    low, high = int(np.floor(c_beta)), int(np.ceil(c_alpha))
    unrounded = [f"{1 - (i - c_beta) / (c_alpha - c_beta):.4f}" for i in (low + 1, high - 1)]
    at_ends = [f"{1 - (c - low) / (high - low):.3f}" for c in (c_beta, c_alpha)]
    evidence = catalog.assessment(general.yarn_reference_ramp.id).evidence[-1]
    text, details = evidence.summary, dict(evidence.detail)
    assert f"ends {low} and {high}" in text
    assert f"pair {low + 1}, the first the code blends, gets weight {high - low - 1}/{high - low}" in text
    assert f"(unrounded ramp {unrounded[0]}," in text and f"(unrounded {unrounded[1]}," in text
    ends = details["the ramp's ends"]
    assert f"the rounded ramp is {at_ends[0]} and {at_ends[1]} instead of 1 and 0" in ends


@pytest.mark.slow
def test_frequencies_all_near_one_remove_the_decay(monkeypatch: pytest.MonkeyPatch) -> None:
    original = general.relative_upper_bound
    monkeypatch.setattr(
        general, "relative_upper_bound", lambda distances, d, base: original(distances, d, 1.0 + 1e-9)
    )
    assert general.rope_long_term_decay.assess().verdict == UNSETTLED


def test_a_dtype_that_is_really_float64_unsettles_the_low_precision_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class ReallyFloat64(RopeInDtype):
        def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
            return rope_in_dtype(x, positions, "float64")

    monkeypatch.setattr(general, "RopeInDtype", ReallyFloat64)
    assert general.rope_low_precision.assess().verdict == UNSETTLED


def test_an_entry_without_evidence_cannot_prove() -> None:
    assert claim_verdict(()) == UNSETTLED


@pytest.mark.slow
def test_a_yarn_temperature_that_forgets_its_scale_unsettles_its_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pe_verify.proofs import scaling as scaling_proofs

    class Unscaled(scaling_proofs.ScaledRope):
        """Forgets its scale: the rotated vectors, and so the logits, are not multiplied at all."""

        def rotate_exact(self, x: object, m: object, thetas: object) -> object:
            return Rope.rotate_exact(self, x, m, thetas)

    _verify_afresh(monkeypatch)
    monkeypatch.setattr(scaling_proofs, "ScaledRope", Unscaled)
    assert general.yarn_temperature.assess().verdict == UNSETTLED
