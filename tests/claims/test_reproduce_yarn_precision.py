"""The YaRN and bfloat16 reproductions: their rows and verdicts, and what breaking each computation does to
them (swapped α and β, a temperature off the formula, rounded positions where exact ones are claimed, a
bfloat16 control where float32 is claimed)."""

from __future__ import annotations

import numpy as np
import pytest
from twins import Log10Factor, SwappedBetas

from pe_verify.claims import reproduce_yarn_precision as reproduce
from pe_verify.claims.model import (
    BEYOND_DOMAIN,
    CAVEAT,
    LIMITS,
    NUMERIC,
    SUPPORTS,
    UNSETTLED,
    Assessment,
    Row,
)
from pe_verify.claims.numbers import UNCERTIFIED
from pe_verify.properties.analyses.rope_precision import drift_curve, unit_queries_and_keys

ENTRIES = (reproduce.yarn_dims, reproduce.bf16_rope_drift)


def rows(found: Assessment) -> dict[str, bool]:
    assert found.reproduction is not None
    return {row.parameter: row.agrees for row in found.reproduction.rows}


def row(found: Assessment, start: str) -> Row:
    assert found.reproduction is not None
    return next(row for row in found.reproduction.rows if row.parameter.startswith(start))


@pytest.mark.slow
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda entry: entry.id)
def test_each_reproduction_is_printed_in_certified_digits_and_holds_with_caveat(entry) -> None:
    found = entry.assess()
    assert found.verdict == entry.expected == CAVEAT
    assert found.reproduction is not None and found.reproduction.name == entry.reproduces
    assert entry.id == f"G.{entry.reproduces}"
    texts = [text for row in found.reproduction.rows for text in (row.published, row.computed, row.note)]
    texts += [found.explanation, *(e.summary for e in found.evidence)]
    texts += [value for e in found.evidence for _, value in e.detail]
    assert not any(UNCERTIFIED in text for text in texts)


def test_yarn_pairs_agree_and_only_the_blend_weights_differ() -> None:
    found = reproduce.yarn_dims.assess()
    agrees = rows(found)
    differing = {name for name, ok in agrees.items() if not ok}
    assert differing == {
        "weight of pair 21, the first blended (r just below β)",
        "weight of pair 45, the last blended (r just above α)",
        "weight of pair 30, the widest gap",
    }
    assert agrees["kept, r_i > β = 32"] and agrees["divided by s, r_i < α = 1"]
    assert all(agrees[f"√(1/t) at s = {s}"] for s in reproduce.FACTORS)
    assert agrees["√(1/t) at s = 8, as printed"]
    kept, divided = row(found, "kept"), row(found, "divided")
    assert kept.published.startswith("pairs 0–20 (21)") and kept.computed.startswith("pairs 0–20 (21)")
    assert divided.published.startswith("pairs 46–63 (18)") and divided.computed.startswith("pairs 46–63")


def test_swapped_alpha_and_beta_move_the_pairs_and_unsettle_the_yarn_entry(monkeypatch) -> None:
    swapped = SwappedBetas("yarn", factor=16, original_context=4096, beta_fast=32, beta_slow=1)
    monkeypatch.setattr(reproduce, "LLAMA2", swapped)
    found = reproduce.yarn_dims.assess()
    assert found.verdict == UNSETTLED
    kept, divided = row(found, "kept"), row(found, "divided")
    assert not kept.agrees and not divided.agrees
    assert kept.parameter == "kept, r_i > β = 1" and kept.published.startswith("pairs 46–63")
    assert divided.published.startswith("pairs 0–20") and divided.computed.startswith("pairs 0–21")


def test_a_temperature_off_the_formula_fails_every_factor_row(monkeypatch) -> None:
    monkeypatch.setattr(reproduce, "RopeScaling", Log10Factor)
    found = reproduce.yarn_dims.assess()
    agrees = rows(found)
    assert not any(agrees[f"√(1/t) at s = {s}"] for s in reproduce.FACTORS)
    assert found.verdict == UNSETTLED


@pytest.mark.slow
def test_exact_positions_break_the_relative_property_without_accumulating_and_the_extreme_grows() -> None:
    found = reproduce.bf16_rope_drift.assess()
    agrees = rows(found)
    assert all(agrees[f"p = 2^{j}"] for j in range(18)) and "p = 2^18" not in agrees
    differing = {name for name, ok in agrees.items() if not ok}
    assert differing == {
        "bf16 growth, p = 2^0 → 2^17",
        "bf16 growth beyond the paper's context, p = 2^17 → 2^20",
    }
    assert agrees["all values in bf16, positions rounded too (the extreme), p = 2^0 → 2^14"]
    bearings = [(e.bearing, e.holds) for e in found.evidence]
    assert bearings == [(SUPPORTS, True), (LIMITS, True), (BEYOND_DOMAIN, True)]


def test_rounded_positions_in_place_of_exact_ones_accumulate_and_lose_the_caveat(monkeypatch) -> None:
    monkeypatch.setattr(reproduce, "EXACT_POSITIONS", reproduce.ALL_BF16)
    found = reproduce.bf16_rope_drift.assess()
    assert found.verdict == NUMERIC
    assert not found.evidence[1].holds and rows(found)["bf16 growth, p = 2^0 → 2^17"]


@pytest.mark.slow
def test_a_bfloat16_control_is_not_below_bfloat16(monkeypatch) -> None:
    monkeypatch.setattr(reproduce, "FLOAT32", reproduce.ALL_BF16)
    found = reproduce.bf16_rope_drift.assess()
    assert found.verdict == UNSETTLED
    assert not any(rows(found)[f"p = 2^{j}"] for j in range(18))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_full_bf16_curve_keeps_its_shape_over_more_pairs_and_positions(seed: int) -> None:
    """1024 pairs per seed, every power of two and three times one up to 2^17: with exact positions the bf16
    median exceeds the float32 worst everywhere and stays flat; the all-bf16 extreme grows tenfold from 2^0
    and saturates from 2^14."""
    shifts = np.array(sorted({0, *(2**j for j in range(18)), *(3 * 2**j for j in range(16))}))
    inputs = unit_queries_and_keys(128, 1024, seed=seed)
    exact = drift_curve(reproduce.EXACT_POSITIONS, *inputs, shifts)
    f32 = drift_curve(reproduce.FLOAT32, *inputs, shifts)
    extreme = drift_curve(reproduce.ALL_BF16, *inputs, shifts)
    assert np.all(exact.exceeds(f32, reproduce.FAR)[1:])
    assert reproduce._flat(exact, 1, 2**17) and f32.grows(2**14, 2**17, reproduce.FLAT)
    assert extreme.grows(1, 2**14, reproduce.GROWTH) and reproduce._flat(extreme, 2**14, 2**17)
