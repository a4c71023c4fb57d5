"""The catalog entries beyond the documents: each computed verdict is the recorded one, and breaking what an
entry computes with changes its verdict."""

from __future__ import annotations

import functools
import re
from fractions import Fraction

import flint
import numpy as np
import pytest

from pe_verify.claims import general
from pe_verify.claims.model import CAVEAT, FLOAT, NUMERIC, UNSETTLED, Assessment, Claim, claim_verdict
from pe_verify.properties.rope import Rope
from pe_verify.properties.rope_precision import RopeInDtype, rope_in_dtype

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


@pytest.mark.parametrize("claim_id", ["G.rope_long_term_decay", "G.rope_low_precision"])
def test_seeded_experiments_are_deterministic(claim_id: str) -> None:
    entry = next(item for item in CLAIMS if item.id == claim_id)
    assert entry.assess() == assessed(claim_id)


def test_numeric_verdicts_rest_on_floating_point_evidence_and_proofs_do_not() -> None:
    for entry in CLAIMS:
        kinds = {e.kind for e in assessed(entry.id).evidence}
        assert (FLOAT in kinds) == (entry.expected in (NUMERIC, CAVEAT)), entry.id


# ------------------------------------------------------------------ breaking a check changes the verdict


def test_a_wrong_layout_permutation_unsettles_the_layout_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(general, "EXACT_ROTARY_DIMS", (2, 4, 8))  # a few dimensions suffice, and are quick
    monkeypatch.setattr(general, "layout_permutation", lambda d, rotary_dim=None: np.arange(d))
    assert general.rope_layouts.assess().verdict == UNSETTLED


def test_a_half_split_rotating_the_wrong_way_unsettles_the_layout_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class WrongSign(Rope):
        """The half-split layout turns its pairs by −p·θ_i."""

        def rotate(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
            sign = -1 if self.layout == "half_split" else 1
            return super().rotate(x, sign * np.asarray(positions))

    monkeypatch.setattr(general, "EXACT_ROTARY_DIMS", (2, 4, 8))
    monkeypatch.setattr(general, "Rope", WrongSign)
    assert general.rope_layouts.assess().verdict == UNSETTLED


def test_slopes_counted_from_zero_unsettle_the_alibi_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    def from_zero(n: int) -> tuple[Fraction, ...]:
        return tuple(Fraction(-8 * h, n) for h in range(n))

    monkeypatch.setattr(general, "alibi_slopes_exact", from_zero)
    assert general.alibi_slopes.assess().verdict == UNSETTLED


def test_slopes_2_to_minus_8h_over_n_for_every_count_unsettle_the_other_counts_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        general, "alibi_slopes_exact", lambda n: tuple(Fraction(-8 * h, n) for h in range(1, n + 1))
    )
    assert general.alibi_slopes_other.assess().verdict == UNSETTLED


def test_turn_counts_with_the_exponent_sign_flipped_unsettle_the_llama3_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def sign_flipped(d: int, base: int, context: int) -> list:
        return [
            flint.arb(context) * flint.arb(base) ** (flint.arb(2 * i) / d) / (2 * flint.arb.pi())
            for i in range(d // 2)
        ]

    monkeypatch.setattr(general, "turns_per_context", sign_flipped)
    assert general.llama3_scaling.assess().verdict == UNSETTLED


def test_a_code_ramp_equal_to_the_papers_unsettles_the_reference_ramp_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = general.yarn_weights

    def paper_twice(*args: int) -> tuple[list, list[Fraction]]:
        paper, _ = original(*args)
        return paper, [Fraction(gamma.mid().str(30, radius=False)) for gamma in paper]

    monkeypatch.setattr(general, "yarn_weights", paper_twice)
    assert general.yarn_reference_ramp.assess().verdict == UNSETTLED


def test_ramp_ends_that_need_no_rounding_unsettle_the_reference_ramp_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Were c(β) and c(α) integers, the rounded code would meet the paper at r = β and r = α: the entry's
    "only approximately" must then fail."""
    original = general.yarn_code_bounds

    def integer_ends(*args: int) -> tuple[flint.arb, flint.arb, int, int]:
        _, _, low, high = original(*args)
        return flint.arb(low), flint.arb(high), low, high

    monkeypatch.setattr(general, "yarn_code_bounds", integer_ends)
    found = general.yarn_reference_ramp.assess()
    assert found.verdict == UNSETTLED and not found.evidence[-1].holds


def test_the_rounded_ramp_ends_agree_with_a_float64_recomputation() -> None:
    """The printed weights at r = β and r = α, recomputed from find_correction_dim in float64."""
    config = general.YARN_LLAMA2
    d, base, context = config["d"], config["base"], config["context"]
    c_beta, c_alpha = (d * np.log(context / (n * 2 * np.pi)) / (2 * np.log(base)) for n in (32, 1))
    low, high = int(np.floor(c_beta)), int(np.ceil(c_alpha))
    weights = [f"{1 - (c - low) / (high - low):.3f}" for c in (c_beta, c_alpha)]
    text = general.yarn_reference_ramp.assess().evidence[-1].summary
    assert f"ends {low} and {high}" in text
    assert f"weight is {weights[0]} at r = β and {weights[1]} at r = α" in text


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


def test_regime_counts_refuse_to_guess_at_a_threshold() -> None:
    with pytest.raises(ValueError, match="cannot decide"):
        general.regime_counts([flint.arb(4)], 1, 4)


def test_an_undecided_comparison_cannot_prove() -> None:
    ball = flint.arb(4, 1e-3)
    with pytest.raises(ValueError, match="cannot decide"):
        general.regime_counts([ball], 1, 4)
    assert claim_verdict(()) == UNSETTLED
