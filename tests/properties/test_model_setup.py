"""The answers for bundled models against figures computed here independently, from the published formulas in
plain numpy and math (not by the code under test), and the findings a broken config produces."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_verify.properties.analyses.model_setup import (
    MAX_CONTEXT,
    ContextError,
    analyse,
    analysis_cost,
    model_frequencies,
)
from pe_verify.properties.encodings.model_config import bundled_models, read_config

MODELS = bundled_models()


def _setup(name: str, **changes):
    return read_config(dict(MODELS[name].config, **changes))


def _rule(config) -> object:
    """The first layer group's positional rule of a config."""
    return read_config(config).groups[0].position


def _labels(found) -> set[str]:
    return {f.label for f in found.all_findings()}


def _plain(d: int, base: float) -> np.ndarray:
    return base ** (-np.arange(0, d, 2) / d)


def _llama3(theta: np.ndarray, s: float, low: float, high: float, original: int) -> np.ndarray:
    wavelength = 2 * np.pi / theta
    smooth = (original / wavelength - low) / (high - low)
    blended = (1 - smooth) * theta / s + smooth * theta
    return np.where(
        wavelength < original / high, theta, np.where(wavelength > original / low, theta / s, blended)
    )


def _yarn(d: int, base: float, s: float, original: int, fast: float = 32, slow: float = 1) -> np.ndarray:
    def dim(turns: float) -> float:
        return d * math.log(original / (turns * 2 * math.pi)) / (2 * math.log(base))

    low, high = max(math.floor(dim(fast)), 0), min(math.ceil(dim(slow)), d - 1)
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    theta = _plain(d, base)
    return theta / s * ramp + theta * (1 - ramp)


EXPECTED = {
    "llama-2-7b": lambda: _plain(128, 10000.0),
    "gpt-neox-20b": lambda: _plain(24, 10000.0),
    "phi-2": lambda: _plain(32, 10000.0),
    "llama-3.1-8b": lambda: _llama3(_plain(128, 500000.0), 8.0, 1.0, 4.0, 8192),
    "qwen2.5-7b-instruct-yarn": lambda: _yarn(128, 1e6, 4.0, 32768),
    "deepseek-v3": lambda: _yarn(64, 1e4, 40.0, 4096),
    "phi-3.5-mini-instruct": lambda: (
        _plain(96, 1e4) / np.array(MODELS["phi-3.5-mini-instruct"].config["rope_scaling"]["long_factor"])
    ),
    "phi-3-mini-128k-instruct": lambda: (
        _plain(96, 1e4) / np.array(MODELS["phi-3-mini-128k-instruct"].config["rope_scaling"]["long_factor"])
    ),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_frequencies_are_the_published_rules(name: str) -> None:
    found = model_frequencies(_rule(MODELS[name].config), 131072).float64
    np.testing.assert_allclose(found, EXPECTED[name](), rtol=1e-12, atol=0)


def test_twin_a_wrong_factor_moves_the_frequencies() -> None:
    block = dict(MODELS["llama-3.1-8b"].config["rope_scaling"], factor=4.0)
    found = model_frequencies(_setup("llama-3.1-8b", rope_scaling=block).groups[0].position, 131072).float64
    assert not np.allclose(found, EXPECTED["llama-3.1-8b"](), rtol=1e-6)


def test_phi3_takes_short_factors_within_its_original_context() -> None:
    setup = _rule(MODELS["phi-3.5-mini-instruct"].config)
    short = np.array(MODELS["phi-3.5-mini-instruct"].config["rope_scaling"]["short_factor"])
    np.testing.assert_allclose(model_frequencies(setup, 4096).float64, _plain(96, 1e4) / short, rtol=1e-12)


def _analysis(name: str, context: int | None = None):
    return analyse(read_config(MODELS[name].config), context)


def _answers(name: str, context: int | None = None):
    """The first group's analysis."""
    return _analysis(name, context).groups[0]


def test_gpt_neox_answers_against_independent_figures() -> None:
    found = _answers("gpt-neox-20b")
    theta = _plain(24, 10000.0)
    critical = 2 * math.ceil(12 * math.log(2048 / (2 * math.pi)) / math.log(10000))
    assert found.answers["critical_dimension"].value["d_extra"] == critical
    sums = np.cos(np.outer(np.arange(2049), theta)).sum(axis=1)
    first = int(np.flatnonzero(sums < 0)[0])
    assert found.answers["men_criterion"].value["first_negative_at"] == first
    squared = 2 * (1 - np.cos(np.outer(np.arange(1, 2048), theta))).sum(axis=1)
    separation = found.answers["separation"].value
    assert separation["argmin_offsets"] == [int(np.argmin(squared)) + 1]
    assert float(separation["minimum_squared"]) == pytest.approx(float(squared.min()), rel=1e-9)
    assert {f.label for f in found.findings} == {"partial-rotary", "base-below-men-bound"}
    assert {f.severity for f in found.findings} == {"note"}


@pytest.mark.slow
def test_phi2_collapse_and_angle_error() -> None:
    found = _answers("phi-2")
    precision = found.answers["precision"].value
    assert {k: v["first_collision"] for k, v in precision["position_collapse"].items()} == {
        "bfloat16": 256,
        "float16": 2048,
        "float32": 2**24,
    }
    theta = _plain(32, 10000.0)
    angles = np.float32(2047) * theta.astype(np.float32)
    errors = [abs(float(a) - 2047 * t) for a, t in zip(angles.astype(np.float64), theta, strict=True)]
    assert float(precision["float32_angle_error"]["error"]) == pytest.approx(max(errors), rel=1e-3)


@pytest.mark.slow
def test_yarn_and_longrope_attention_factors() -> None:
    qwen = _answers("qwen2.5-7b-instruct-yarn").answers["attention_factor"].value
    assert float(qwen["cos_sin_factor"]) == pytest.approx(0.1 * math.log(4) + 1, rel=1e-9)
    deepseek = _answers("deepseek-v3").answers["attention_factor"].value
    assert float(deepseek["cos_sin_factor"]) == 1.0
    assert float(deepseek["softmax_scale_factor"]) == pytest.approx((0.1 * math.log(40) + 1) ** 2, rel=1e-9)
    phi = _answers("phi-3.5-mini-instruct").answers["attention_factor"].value
    assert float(phi["cos_sin_factor"]) == pytest.approx(
        math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-9
    )


@pytest.mark.slow
def test_llama2_men_criterion_and_findings() -> None:
    found = _answers("llama-2-7b")
    sums = np.cos(np.outer(np.arange(4097), _plain(128, 10000.0))).sum(axis=1)
    assert found.answers["men_criterion"].value["first_negative_at"] == int(np.flatnonzero(sums < 0)[0])
    assert {f.label for f in found.findings} == {
        "default-base",
        "base-below-men-bound",
        "positions-collapse-if-cast",
    }
    assert all(f.severity == "note" for f in found.findings)


def test_bloom_slopes_and_gpt2_table() -> None:
    bloom = _answers("bloom", 2048).answers["slopes"].value
    assert bloom["steepest"] == "2^(-1/16)" and bloom["gentlest"] == "2^(-8)"
    assert bloom["bias_at_context"]["gentlest"] == "-" + str(2047 / 256)
    gpt2 = analyse(read_config(MODELS["gpt2"].config), 2048)
    assert gpt2.groups[0].answers["table"].value == {"positions": 1024}
    assert [(f.label, f.severity) for f in gpt2.all_findings()] == [("context-beyond-table", "error")]


# ------------------------------------------------------------------------------------------ broken twins


@pytest.mark.slow
def test_twin_factor_context_mismatch() -> None:
    block = dict(MODELS["qwen2.5-7b-instruct-yarn"].config["rope_scaling"])
    matching = _setup("qwen2.5-7b-instruct-yarn", rope_scaling=block, max_position_embeddings=131072)
    mismatched = _setup("qwen2.5-7b-instruct-yarn", rope_scaling=block)
    assert "factor-context-mismatch" in _labels(analyse(mismatched, 64))
    assert "factor-context-mismatch" not in _labels(analyse(matching, 64))


@pytest.mark.slow
def test_twin_context_beyond_scaling_and_dynamic() -> None:
    found = analyse(read_config(MODELS["phi-2"].config), 4096)
    assert "context-beyond-scaling" in _labels(found)
    dynamic = _setup("phi-2", rope_scaling={"rope_type": "dynamic", "factor": 2.0})
    assert "dynamic-scaling" in _labels(analyse(dynamic, 256))


def test_twin_a_bad_key_skips_only_what_needs_it() -> None:
    found = analyse(_setup("llama-2-7b", rope_theta=-1.0)).groups[0]
    assert (
        set(found.skipped) >= {"frequencies", "separation"} and "rope_theta" in found.skipped["frequencies"]
    )
    assert not found.answers


def test_one_rotated_pair_has_no_admissible_base() -> None:
    config = {
        "model_type": "llama",
        "hidden_size": 64,
        "num_attention_heads": 32,
        "max_position_embeddings": 64,
    }
    men = analyse(read_config(config)).groups[0].answers["men_criterion"].value
    assert men["holds"] is False and men["least_admissible_base"] == "none up to 1000000000000000"


def test_context_out_of_range_is_refused() -> None:
    with pytest.raises(ContextError, match=r"max_position_embeddings 1000000000000 .* give --context"):
        analyse(_setup("phi-2", max_position_embeddings=10**12))
    setup = read_config(MODELS["phi-2"].config)
    for context in (0, 1, MAX_CONTEXT + 1):
        with pytest.raises(ContextError, match="context must be"):
            analyse(setup, context)


# ------------------------------------------------------------------------------------------ layer groups


def test_a_sliding_group_is_answered_over_its_window() -> None:
    found = analyse(read_config(MODELS["gemma-2-9b-it"].config), 8192)
    local, full = found.groups
    assert local.answers["separation"].value["max_offset"] == 4096
    assert full.answers["separation"].value["max_offset"] == 8192
    assert local.answers["men_criterion"].value["offsets"] == 4096
    theta = _plain(256, 10000.0)
    squared = 2 * (1 - np.cos(np.outer(np.arange(1, 4096), theta))).sum(axis=1)
    assert local.answers["separation"].value["argmin_offsets"] == [int(np.argmin(squared)) + 1]


def test_groups_with_one_rule_and_reach_share_their_answers() -> None:
    calls = []
    found = analyse(read_config(MODELS["gpt-oss-20b"].config), 128, calls.append, calls.append)
    assert calls[0] == 12 and len(calls) == 13  # the total, then every answer of both groups
    local, full = found.groups
    assert local.reach == full.reach == 128 and local.answers == full.answers


def test_findings_true_for_the_reference() -> None:
    llama = analyse(read_config(MODELS["llama-3.1-8b"].config), 4096)
    labels = {(f.label, f.severity) for f in llama.all_findings()}
    assert labels == {("positions-collapse-if-cast", "note")}  # llama3 never reads max_position_embeddings
    qwen = analyse(read_config(MODELS["qwen2.5-7b-instruct-yarn"].config), 4096)
    (mismatch,) = [f for f in qwen.all_findings() if f.label == "factor-context-mismatch"]
    assert mismatch.severity == "warning" and "#38224" in mismatch.message
    assert not [f for f in qwen.all_findings() if f.label == "base-below-men-bound"]  # scaled frequencies


def test_t5_buckets_against_the_rule_written_out() -> None:
    found = analyse(read_config(MODELS["mt5-small"].config), 512).groups[0]
    value = found.answers["buckets"].value

    def bucket(n: int, buckets: int, distance: int) -> int:
        exact = buckets // 2
        if n < exact:
            return n
        return min(
            buckets - 1, exact + int(math.log(n / exact) / math.log(distance / exact) * (buckets - exact))
        )

    causal = [bucket(n, 32, 128) for n in range(512)]
    assert value["decoder"]["last_bucket_from"] == causal.index(31)
    both = [bucket(n, 16, 128) for n in range(512)]
    assert value["encoder"]["last_bucket_from"] == both.index(15)


def test_nope_layers_and_the_attention_temperature_are_answered() -> None:
    found = analyse(read_config(MODELS["llama-4-scout-17b-16e-instruct"].config), 16384)
    chunked, nope = found.groups
    assert chunked.reach == 8192 and chunked.answers["separation"].value["max_offset"] == 8192
    assert nope.answers["positions"].value["query_scaling"]["attn_scale"] == 0.1
    assert "frequencies" not in nope.answers


def test_the_cost_is_estimated_before_any_work() -> None:
    wide = {"model_type": "llama", "head_dim": 4096, "max_position_embeddings": 10**6}
    seconds, needed = analysis_cost(read_config(wide))
    small_seconds, small_needed = analysis_cost(read_config(dict(wide, head_dim=64)))
    assert seconds > 5 * small_seconds and needed > 2 * small_needed
    assert analysis_cost(read_config(MODELS["gpt2"].config)) == (0.0, 0)


def test_twin_a_finding_of_no_known_severity_is_refused() -> None:
    from pe_verify.properties.analyses.model_setup import Finding
    from pe_verify.properties.encodings.model_config import Note

    for severity in ("warn", "fatal", ""):
        with pytest.raises(ValueError, match="severity must be one of error, warning, note"):
            Finding("label", "message", severity)
        with pytest.raises(ValueError, match="severity must be one of"):
            Note("label", "message", severity)
