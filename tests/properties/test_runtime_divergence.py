"""Runtime profiles: for each public report of one config read differently by a runtime, a config that
triggers it is named as a divergence by the profile it concerns, and the corrected config shows none."""

from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath
import pytest

from pe_verify.properties.analyses.model_setup import GroupAnalysis, ModelAnalysis, planned_context
from pe_verify.properties.analyses.runtime_divergence import (
    TOLERANCE,
    first_divergence,
    profiles_named,
    read,
    runtimes_record,
    unclaimed_pairs,
)
from pe_verify.properties.encodings.model_config import bundled_models, read_config
from pe_verify.properties.encodings.runtimes import BY_NAME, PROFILES, RULES, Behaviour, Profile

MODEL_CONFIGS = Path(__file__).resolve().parents[1] / "model_configs"


def _llama(**extra: object) -> dict:
    return {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_hidden_layers": 2,
        "max_position_embeddings": 32768,
        "rope_theta": 1000000.0,
        **extra,
    }


def _divergent(config: dict, context: int | None = None) -> dict[str, dict]:
    """Every profile that diverges on some group, with its finding."""
    setup = read_config(config)
    served = planned_context(setup, context)
    found = ModelAnalysis(setup, served, [GroupAnalysis(group, served) for group in setup.groups])
    record = runtimes_record(found, config, PROFILES)
    found: dict[str, dict] = {}
    for group in record["groups"]:
        for finding in group["findings"]:
            found.setdefault(finding["profile"], finding)  # a profile's first: its reading, then its float32
    return found


YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
#: A base written the transformers 5 way, inside rope_parameters only, and the same with a top-level copy.
THETA_BOTH = _llama(rope_parameters={"rope_type": "default", "rope_theta": 1e6})
THETA_INSIDE = {k: v for k, v in THETA_BOTH.items() if k != "rope_theta"}

#: (report, profile, triggering config, corrected config, the quantity named).
REPORTS = [
    (
        "huggingface/transformers#38224",
        "transformers-4.51",
        _llama(rope_scaling=YARN),
        _llama(rope_scaling=YARN, max_position_embeddings=131072),
        "scaling",
    ),
    (
        "vllm-project/vllm#48351",
        "vllm-0.25",
        _llama(rope_scaling=YARN | {"factor": 64.0, "attention_factor": 1.0}),
        _llama(rope_scaling=YARN | {"factor": 64.0}),
        "cos_sin_factor",
    ),
    (
        "sgl-project/sglang#33558",
        "sglang-laguna",
        _llama(model_type="laguna", rope_scaling=YARN | {"factor": 128.0, "attention_factor": 1.4852}),
        _llama(model_type="laguna", rope_scaling=YARN | {"factor": 128.0}),
        "cos_sin_factor",
    ),
    (
        "ml-explore/mlx-lm#1507",
        "mlx-lm",
        _llama(rope_scaling=YARN | {"attention_factor": 1.0}),
        _llama(rope_scaling=YARN),
        "cos_sin_factor",
    ),
    (
        "turboderp-org/exllamav3#259",
        "exllamav3-0.0.43",
        _llama(rope_scaling=YARN | {"factor": 16.0, "mscale": 1.0, "mscale_all_dim": 1.0}),
        _llama(rope_scaling=YARN | {"factor": 16.0}),
        "cos_sin_factor",
    ),
    (
        "vllm-project/vllm#28542",
        "vllm-0.11",
        THETA_INSIDE,
        THETA_BOTH,
        "base",
    ),
    (
        "sgl-project/sglang#14745",
        "sglang-theta",
        THETA_INSIDE,
        THETA_BOTH,
        "base",
    ),
    (
        "ml-explore/mlx-lm#1698",
        "mlx-lm",
        _llama(model_type="glm"),  # transformers' GLM rotates half the head by default
        _llama(model_type="glm", partial_rotary_factor=1.0),
        "rotary_dim",
    ),
    (
        "huggingface/transformers#48241",
        "transformers-5-minimax-m2",
        _llama(model_type="minimax_m2", rotary_dim=64),
        _llama(model_type="minimax_m2", rotary_dim=128),
        "rotary_dim",
    ),
    (
        "vllm-project/vllm#43770",
        "vllm-bailing-moe",
        _llama(model_type="bailing_moe", partial_rotary_factor=0.5),
        _llama(model_type="bailing_moe"),
        "rotary_dim",
    ),
]


@pytest.mark.parametrize(
    ("report", "profile", "config", "corrected", "quantity"), REPORTS, ids=[r[0] for r in REPORTS]
)
def test_report_is_named_and_its_correction_is_not(report, profile, config, corrected, quantity):
    found = _divergent(config)
    assert profile in found, f"{report}: {profile} not named"
    assert quantity in found[profile]["quantities"]
    assert profile not in _divergent(corrected)


def _phi3(short: list[float], long: list[float]) -> dict:
    config = dict(bundled_models()["phi-3-mini-128k-instruct"].config)
    config["rope_scaling"] = dict(config["rope_scaling"]) | {"short_factor": short, "long_factor": long}
    return config


@pytest.mark.parametrize(
    ("profile", "length"),
    [
        ("vllm-0.34", "up to 4096 tokens"),  # vllm-project/vllm#27414: by max_model_len
        ("llama.cpp", "up to 4096 tokens"),  # ggml-org/llama.cpp#24823: by the allocated context
        ("unsloth-longrope", "up to 4096 tokens"),  # unslothai/unsloth#10681: long at exactly L0
        ("vllm-0.11", "4097 tokens"),  # vllm-project/vllm#27414 before #27431: by position index
        ("mlx-lm", "up to 4096 tokens"),  # short_factor never used
    ],
)
def test_longrope_switches(profile, length):
    phi3 = bundled_models()["phi-3-mini-128k-instruct"].config
    found = _divergent(phi3, 131072)
    assert found[profile]["quantities"]["longrope_factors"]
    assert length in found[profile]["message"]
    scaling = phi3["rope_scaling"]
    assert profile not in _divergent(_phi3(scaling["long_factor"], scaling["long_factor"]), 131072)


def test_a_served_context_within_the_original_keeps_vllm_on_short_factors():
    phi3 = bundled_models()["phi-3-mini-128k-instruct"].config
    assert "vllm-0.34" not in _divergent(phi3, 4096)
    assert "vllm-0.34" in _divergent(phi3, 4097)


def test_gemma3_sliding_layers_given_the_global_scaling():
    """vllm-project/vllm#29111 and ggml-org/llama.cpp#14367."""
    gemma = bundled_models()["gemma-3-27b-it"].config
    found = _divergent(gemma, 8192)
    for profile in ("vllm-gemma3-regression", "llama.cpp-gemma3-2025"):
        assert found[profile]["quantities"]["base"] == ["10000.0", "1000000.0"]
    text = dict(gemma["text_config"])
    del text["rope_scaling"]
    text["rope_local_base_freq"] = text["rope_theta"] = 1e6
    assert not {"vllm-gemma3-regression", "llama.cpp-gemma3-2025"} & set(
        _divergent(gemma | {"text_config": text}, 8192)
    )


def test_mrope_layout_blocked_against_interleaved():
    """ollama/ollama#12807: blocked sections for Qwen3-VL's interleaved layout; Qwen2-VL's blocked is served
    alike."""
    interleaved = _divergent(bundled_models()["qwen3-vl-4b-thinking"].config)
    assert interleaved["ollama-mrope"]["quantities"]["mrope_layout"] == ["interleaved", "blocked"]
    assert not interleaved["ollama-mrope"]["text_tokens"]
    assert "ollama-mrope" not in _divergent(bundled_models()["qwen2.5-vl-7b-instruct"].config)


def test_deepseek_yarn_is_not_flagged_where_its_own_path_matches():
    """vLLM and llama.cpp route DeepSeek (V3, and V3.2 through the same classes) through their own YaRN
    variants, which agree with transformers on mscale = mscale_all_dim = 1: no divergence (a false alarm
    otherwise). The twin: V3.2's config under a model type off that path is flagged."""
    published = json.loads((MODEL_CONFIGS / "deepseek-v3.2.json").read_text(encoding="utf-8"))["config"]
    own = {"vllm-0.34", "vllm-0.25", "vllm-0.11", "sglang-0.5", "llama.cpp"}
    for config in (bundled_models()["deepseek-v3"].config, published):
        assert not own & set(_divergent(config))
    assert {"vllm-0.25", "llama.cpp"} <= set(_divergent(dict(published, model_type="glm_moe_dsa")))


def test_deepseek_v4_is_not_compared_as_a_generic_yarn_config():
    """DeepSeek V4's compressed layers leave cos and sin unscaled (transformers' class sets attention_factor
    1.0 on its YaRN block); runtimes serve it through their own code, which no profile reads: every row says
    so and no divergence is claimed (a generic YaRN path would have been flagged at 1.277). The twin, the same
    config under a model type the profiles read, is compared row by row."""
    published = json.loads((MODEL_CONFIGS / "deepseek-v4-flash.json").read_text(encoding="utf-8"))["config"]
    setup = read_config(published)
    served = planned_context(setup, 65536)
    found = ModelAnalysis(setup, served, [GroupAnalysis(group, served) for group in setup.groups])
    record = runtimes_record(found, published, PROFILES)
    for group in record["groups"]:
        assert not group["findings"]
        assert all(row["base"].startswith("its own code") for row in list(group["table"].values())[1:])
    twin = read_config(dict(published, model_type="deepseek_v3"))
    compared = ModelAnalysis(twin, served, [GroupAnalysis(group, served) for group in twin.groups])
    rows = list(
        runtimes_record(compared, dict(published, model_type="deepseek_v3"))["groups"][0]["table"].values()
    )
    assert not any(row.get("base", "").startswith("its own code") for row in rows)


def test_first_divergence_closed_form_matches_a_scan():
    config = _llama(rope_scaling={"rope_type": "linear", "factor": 1.001})
    setup = read_config(config)
    group = setup.groups[0]
    reference = read(BY_NAME["transformers-5"], setup, group, config, 32768, 32768)
    other = read(BY_NAME["transformers-5"], setup, group, _llama(), 32768, 32768)
    other = read(
        BY_NAME["transformers-5"],
        read_config(_llama()),
        read_config(_llama()).groups[0],
        _llama(),
        32768,
        32768,
    )
    first, _ = first_divergence(reference, other, 32768)
    thetas = [(float(a), float(b)) for a, b in zip(reference.frequencies(), other.frequencies(), strict=True)]

    def gap(m: int) -> float:
        return max(
            abs(complex(math.cos(m * a), math.sin(m * a)) - complex(math.cos(m * b), math.sin(m * b)))
            for a, b in thetas
        )

    scanned = next(m for m in range(32768) if gap(m) > TOLERANCE)
    assert first == scanned


def test_a_factor_only_difference_diverges_at_offset_zero():
    config = _llama(rope_scaling=YARN)
    setup = read_config(config)
    group = setup.groups[0]
    reference = read(BY_NAME["transformers-5"], setup, group, config, 32768, 32768)
    with mpmath.workdps(30):
        twin = reference.__class__(
            **{**reference.__dict__, "cos_sin": reference.cos_sin * (1 + 2 * TOLERANCE)}
        )
    assert first_divergence(reference, twin, 32768)[0] == 0
    assert first_divergence(reference, reference, 32768)[0] is None


def test_unknown_profiles_and_rules_are_refused():
    with pytest.raises(ValueError, match="unknown runtime 'vllm-9'"):
        profiles_named(["vllm-9"])
    with pytest.raises(ValueError, match="unknown rule"):
        Behaviour("yarn_attention", "halved", "nowhere")
    with pytest.raises(ValueError, match="unknown quantity"):
        Behaviour("colour", "red", "nowhere")
    with pytest.raises(ValueError, match="twice"):
        Profile("x", "x", "1", "1", (Behaviour("dynamic", "plain", "a"), Behaviour("dynamic", "plain", "b")))


def test_every_profile_cites_a_source_and_every_rule_is_used_or_the_reference():
    used = {(b.quantity, b.rule) for p in PROFILES for b in p.behaviours}
    for quantity, rules in RULES.items():
        for rule in list(rules)[1:]:
            assert (quantity, rule) in used, f"{quantity}: {rule} is used by no profile"
    for profile in PROFILES:
        assert profile.read_at
        for behaviour in profile.behaviours:
            assert behaviour.source


def test_a_difference_below_the_shown_digits_is_named_by_its_quantity():
    """A cos/sin factor read from float32 metadata (GGUF) against the same factor at 30 digits: the finding
    names the factor to 17 digits, not an anonymous frequency difference, and is a note (no score moves by
    2^-8)."""
    config = _llama(rope_scaling=YARN | {"attention_factor": 1.13862943649292})
    found = _divergent(config)["vllm-0.25"]
    assert set(found["quantities"]) == {"cos_sin_factor"}
    assert found["severity"] == "note" and found["first_offset"] is None


def test_vllm_computes_yarns_correction_range_for_four_times_the_context_under_mrope():
    """vLLM 0.34's MRotaryEmbedding (read in its code, no report) reuses YaRN's correction range with its own
    table length, 4 × the original context; without M-RoPE sections vLLM agrees."""
    mrope = _llama(model_type="qwen2_vl", rope_scaling=YARN | {"mrope_section": [16, 24, 24]})
    found = _divergent(mrope)["vllm-0.34"]
    assert found["first_offset"] is not None and found["text_tokens"]
    assert "vllm-0.34" not in _divergent(_llama(rope_scaling=YARN))


def test_llama_cpp_leaves_qwen3_vls_unclaimed_pairs_still_for_text():
    """ggml's interleaved M-RoPE gives the pairs no section claims a fourth position row, 0 for text tokens
    (read in its code, no report): Qwen3-VL's [24, 20, 20] over 64 pairs leaves pairs 61 and 62 unturned,
    where transformers turns them with the temporal row; sections that claim every pair leave none."""
    assert unclaimed_pairs((24, 20, 20), 64) == (61, 62)
    assert unclaimed_pairs((22, 21, 21), 64) == ()
    found = _divergent(bundled_models()["qwen3-vl-4b-thinking"].config)["llama.cpp"]
    assert found["quantities"]["still_pairs"] == ["—", "61, 62"] and found["text_tokens"]
    assert found["first_offset"] is not None
    blocked = _divergent(bundled_models()["qwen2.5-vl-7b-instruct"].config).get("llama.cpp", {})
    assert "still_pairs" not in blocked.get("quantities", {})


def test_unclaimed_pairs_follow_ggmls_rule_pair_by_pair():
    for sections in [(24, 20, 20), (16, 24, 24), (10, 11, 11), (0, 0, 0)]:
        t, h, w = sections
        for pairs in (32, 64):
            expected = tuple(
                i
                for i in range(pairs)
                if not (
                    (i % 3 == 1 and i < 3 * h) or (i % 3 == 2 and i < 3 * w) or (i % 3 == 0 and i < 3 * t)
                )
            )
            assert unclaimed_pairs(sections, pairs) == expected
