"""RoPE identification in low precision and under scaling: the tolerance model (angles in float32, the result
rounded to its dtype), the precision a widened result was computed in, an attention factor on cos and sin,
the scaling rule read from each pair's θ_i, and frequencies that fit no rule.

The implementations (tests/implementations/rope.py) re-express transformers' code in numpy: inv_freq in
float32, cos and sin cast to the result dtype, rotate_half; YaRN, Llama 3 and dynamic NTK inv_freq; and the
shipped bugs (positions or angles held in bfloat16, frequencies all 1).
"""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest
from implementations.rope import (
    constant_inv_freq,
    dynamic_ntk_inv_freq,
    hf_rotate_half,
    integer_division_inv_freq,
    llama3_inv_freq,
    transformers_inv_freq,
    transformers_rotate,
    yarn_attention_factor,
    yarn_inv_freq,
)

from pe_verify.properties.battery import Backend, Settings, computed_in, run_battery
from pe_verify.properties.battery.families import rope as battery_rope
from pe_verify.properties.battery.families.rope_frequencies import UNKNOWN, identify_rule

BF16 = ml_dtypes.bfloat16
SETTINGS = Settings(examples=10, max_pos=65536, ds=(8, 64))
#: Labels only a fit that matches may give.
CONVENTIONS = {
    "wrong-base",
    "wrong-exponent",
    "position-offset",
    "reversed-rotation",
    "attention-factor",
    "scaling-linear",
    "scaling-ntk",
    "scaling-yarn",
    "scaling-llama3",
    "scaling-longrope",
}


def identify(function, d: int = 128):
    """The rope family's identification of `function` at dimension d, in this process."""
    settings = dataclasses.replace(SETTINGS, ds=(d,))
    adapter = battery_rope.adapt(function, "rotate", Backend(), settings)
    identified, found = battery_rope.identify(adapter, settings)
    return identified, {f.label: f.message for f in found}


def failed(report) -> dict[str, dict]:
    return {o.name: o.counterexample for o in report.properties if not o.passed}


# ------------------------------------------------------------------------------------ tolerance model


def test_a_bfloat16_rotation_of_float32_angles_passes_and_is_unscaled() -> None:
    report = run_battery("rope", transformers_rotate, SETTINGS)
    assert report.passed, failed(report)
    assert "bfloat16" in next(
        o.tolerance for o in report.properties if o.name == "relative"
    ) and "float32, the angles" in next(o.tolerance for o in report.properties if o.name == "relative")
    assert report.identified.matches and report.identified.parameters["scaling"] == "none"
    assert report.identified.parameters["base"] == 10000.0


@pytest.mark.parametrize("where", ["positions", "angles"])
def test_a_bfloat16_rotation_of_bfloat16_angles_fails(where: str) -> None:
    """gpt-neox #1016 (positions cast to bfloat16) and transformers #29285 (the angles' product in
    bfloat16): the bfloat16 result's tolerance does not grow with the position as its error does."""

    def bug(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        if where == "positions":
            positions = positions.astype(BF16).astype(np.int64)
        return transformers_rotate(x, positions, angle_dtype=BF16 if where == "angles" else np.float32)

    report = run_battery("rope", bug, SETTINGS)
    assert "relative" in failed(report) and "low-precision" in {f.label for f in report.findings}
    assert not report.identified.matches and report.identified.variant == "unidentified"
    assert not CONVENTIONS & {f.label for f in report.findings}


def test_a_full_rotation_in_bfloat16_pairs_every_dim() -> None:
    identified, found = identify(lambda x, p: transformers_rotate(x, p, llama3_inv_freq(x.shape[1])))
    assert identified.matches and identified.parameters["rotary_fraction"] == 1.0
    assert identified.parameters["scaling"] == "llama3" and "partial-rotary" not in found


# ------------------------------------------------------------------------------- narrower precisions


def test_computed_in_is_the_narrowest_mantissa_that_holds_every_value() -> None:
    values = np.random.default_rng(0).standard_normal(64)
    assert computed_in([values.astype(BF16).astype(np.float64)], "float64") == ["bfloat16"]
    assert computed_in([values.astype(np.float16).astype(np.float64)], "float64") == ["float16"]
    assert computed_in([values.astype(np.float32).astype(np.float64)], "float64") == ["float32"]
    assert computed_in([values], "float64") == []


@pytest.mark.parametrize(("dtype", "name"), [(BF16, "bfloat16"), (np.float16, "float16")])
def test_a_widened_narrow_rotation_is_named_by_its_own_precision(dtype: type, name: str) -> None:
    identified, found = identify(lambda x, p: transformers_rotate(x, p, dtype=dtype).astype(np.float64), 64)
    assert identified.matches and identified.parameters["computed_in"] == name
    assert f"computed in {name}" in found["low-precision"]


# ---------------------------------------------------------------------------------- attention factor


def yarn(x: np.ndarray, positions: np.ndarray, factor: float = yarn_attention_factor(16.0)) -> np.ndarray:
    return transformers_rotate(x, positions, yarn_inv_freq(x.shape[1]), np.float32, attention_factor=factor)


def test_yarn_with_its_attention_factor_passes_and_the_factor_matches() -> None:
    report = run_battery("rope", yarn, SETTINGS)
    assert report.passed, failed(report)
    assert (
        report.identified.parameters["scaling"] == "yarn" and report.identified.parameters["factor"] == 16.0
    )
    assert report.identified.parameters["attention_factor"] == pytest.approx(1.27726, abs=1e-5)
    (message,) = [f.message for f in report.findings if f.label == "attention-factor"]
    assert "matches YaRN's 0.1·ln s + 1" in message


def test_yarn_with_another_attention_factor_is_told_it_does_not_match() -> None:
    identified, found = identify(lambda x, p: yarn(x, p, factor=1.5))
    assert identified.matches and identified.parameters["attention_factor"] == 1.5
    assert "does not match YaRN's 0.1·ln s + 1" in found["attention-factor"]


def test_an_attention_factor_in_bfloat16_is_read_within_its_rounding() -> None:
    def yarn_bf16(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        factor = yarn_attention_factor(16.0)
        return transformers_rotate(x, positions, yarn_inv_freq(x.shape[1]), attention_factor=factor)

    identified, found = identify(yarn_bf16)
    assert identified.matches and identified.parameters["scaling"] == "yarn"
    assert "matches YaRN's" in found["attention-factor"]


# ------------------------------------------------------------------------------------ scaling rules


@pytest.mark.parametrize(
    ("inv_freq", "rule", "factor"),
    [
        (lambda d: llama3_inv_freq(d), "llama3", 8.0),
        (lambda d: dynamic_ntk_inv_freq(d, length=16384), "ntk", 7.0),
        (lambda d: transformers_inv_freq(d) / 4, "linear", 4.0),
    ],
)
def test_the_rule_is_read_from_each_pairs_frequency(inv_freq, rule: str, factor: float) -> None:
    identified, found = identify(lambda x, p: transformers_rotate(x, p, inv_freq(x.shape[1]), np.float32))
    assert identified.matches and identified.parameters["scaling"] == rule
    assert identified.parameters["factor"] == factor and f"scaling-{rule}" in found


def test_an_unscaled_rotation_gives_no_position_scale() -> None:
    identified, found = identify(hf_rotate_half)
    assert identified.matches and identified.parameters["scaling"] == "none"
    assert set(found) == {"half-split-layout"}


def test_frequencies_that_fit_no_rule_are_unidentified_without_conventions() -> None:
    def jittered(d: int) -> np.ndarray:
        return transformers_inv_freq(d) * (1 + 0.01 * np.sin(np.arange(d // 2)))

    identified, found = identify(lambda x, p: transformers_rotate(x, p, jittered(x.shape[1]), np.float32))
    assert identified.variant == "unidentified" and not identified.matches
    assert identified.parameters["scaling"] == UNKNOWN and identified.max_abs_deviation > 1e-3
    assert not CONVENTIONS & set(found)


@pytest.mark.parametrize("inv_freq", [constant_inv_freq, integer_division_inv_freq])
def test_equal_frequencies_are_a_finding_not_a_crash(inv_freq) -> None:
    report = run_battery(
        "rope", lambda x, p: transformers_rotate(x, p, inv_freq(x.shape[1]), np.float32), SETTINGS
    )
    assert all(o.passed for o in report.properties), failed(report)
    assert report.identified.variant == "unidentified"
    labels = {f.label for f in report.findings}
    assert "equal-frequencies" in labels and not CONVENTIONS & labels


def test_identify_rule_allows_the_reading_error_and_no_more() -> None:
    theta = transformers_inv_freq(64).astype(np.float64)
    noise = 1e-9 * np.cos(np.arange(32))
    identified, _ = identify_rule({64: theta + noise}, "float32", 10000.0, {64: np.full(32, 2e-9)})
    assert identified.matches and identified.variant == "none"
    identified, found = identify_rule({64: theta + 1e3 * noise}, "float32", 10000.0, {64: np.full(32, 2e-9)})
    assert not identified.matches and [f.label for f in found] == ["unknown-scaling"]


# ------------------------------------------------------------------------------------------- torch


def test_transformers_in_bfloat16_on_the_torch_backend() -> None:
    torch = pytest.importorskip("torch")

    def rotate(x, positions, angles=torch.float32):
        d = x.shape[-1]
        inv_freq = 1.0 / (10000 ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
        freqs = (positions[:, None].to(angles) * inv_freq[None, :].to(angles)).float()
        emb = torch.cat([freqs, freqs], dim=-1)
        cos, sin = emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)
        x = x.to(torch.bfloat16)
        return x * cos + torch.cat([-x[:, d // 2 :], x[:, : d // 2]], dim=-1) * sin

    torch_backend = Backend("torch")
    report = run_battery("rope", rotate, SETTINGS, torch_backend)
    assert report.passed and report.identified.matches, failed(report)
    report = run_battery("rope", lambda x, p: rotate(x, p, torch.bfloat16), SETTINGS, torch_backend)
    assert "relative" in failed(report) and not report.identified.matches
