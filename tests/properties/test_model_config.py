"""Reading a Hugging Face config into a positional setup: every key form real configs use, the keys used
and ignored, and broken configs (a wrong factor, a missing key, an unknown type) named by their problem or
label."""

from __future__ import annotations

import pytest

from pe_verify.properties.encodings.model_config import (
    ConfigError,
    bundled_models,
    read_config,
)

LLAMA3 = bundled_models()["llama-3.1-8b"].config


def _labels(setup) -> set[str]:
    return {note.label for note in setup.notes}


def _problem_keys(setup) -> set[str]:
    return {problem.key for problem in setup.problems}


def test_llama3_config_is_read_as_published() -> None:
    setup = read_config(LLAMA3)
    assert (setup.scheme, setup.base, setup.head_dim, setup.rotary_dim) == ("rope", 500000.0, 128, 128)
    scaling = setup.scaling
    assert (scaling.kind, scaling.factor, scaling.original_context) == ("llama3", 8.0, 8192)
    assert (scaling.low_freq_factor, scaling.high_freq_factor) == (1.0, 4.0)
    assert (setup.max_positions, setup.trained_context, setup.dtype) == (131072, 8192, "bfloat16")
    assert "rope_scaling.low_freq_factor" in setup.used and "num_key_value_heads" in setup.ignored
    assert not setup.problems


def test_every_key_is_either_used_or_ignored() -> None:
    for bundled in bundled_models().values():
        setup = read_config(bundled.config)
        top = {key.split(".")[0] for key in (*setup.used, *setup.ignored)}
        assert top == set(bundled.config), bundled.slug
        assert not set(setup.used) & set(setup.ignored)


def test_the_older_forms_of_the_keys() -> None:
    neox = read_config(bundled_models()["gpt-neox-20b"].config)
    assert (neox.base, neox.head_dim, neox.rotary_dim) == (10000.0, 96, 24)
    assert "partial-rotary" in _labels(neox)
    qwen = read_config(bundled_models()["qwen2.5-7b-instruct-yarn"].config)
    assert (qwen.rope_type, qwen.scaling.kind, qwen.head_dim) == ("yarn", "yarn", 128)
    legacy = dict(bundled_models()["phi-3.5-mini-instruct"].config)
    legacy["rope_scaling"] = dict(legacy["rope_scaling"], type="su")
    phi = read_config(legacy)
    assert phi.scaling.kind == "longrope" and "legacy-rope-type" in _labels(phi)
    assert phi.scaling.factor == 32.0 and phi.defaults["factor"] == 32.0


def test_transformers_5_rope_parameters() -> None:
    config = {key: value for key, value in LLAMA3.items() if key not in ("rope_scaling", "rope_theta")}
    config["rope_parameters"] = dict(LLAMA3["rope_scaling"], rope_theta=500000.0)
    config["dtype"] = config.pop("torch_dtype")
    setup = read_config(config)
    assert (setup.base, setup.scaling.kind, setup.dtype) == (500000.0, "llama3", "bfloat16")
    assert "rope_parameters.rope_theta" in setup.used


def test_deepseek_rotates_only_its_rope_head_dim() -> None:
    setup = read_config(bundled_models()["deepseek-v3"].config)
    assert (setup.head_dim, setup.rotary_dim, setup.mscale, setup.mscale_all_dim) == (64, 64, 1.0, 1.0)
    assert "partial-rotary" in _labels(setup)


def test_alibi_learned_and_unknown_schemes() -> None:
    bloom = read_config(bundled_models()["bloom"].config)
    assert (bloom.scheme, bloom.heads) == ("alibi", 112)
    gpt2 = read_config(bundled_models()["gpt2"].config)
    assert (gpt2.scheme, gpt2.max_positions) == ("learned", 1024)
    mpt = read_config(
        {"model_type": "mpt", "n_heads": 32, "max_seq_len": 2048, "attn_config": {"alibi": True}}
    )
    assert (mpt.scheme, mpt.heads, mpt.max_positions) == ("alibi", 32, 2048)
    learned_mpt = read_config({"model_type": "mpt", "max_seq_len": 4096, "attn_config": {"alibi": False}})
    assert (learned_mpt.scheme, learned_mpt.max_positions, learned_mpt.problems) == ("learned", 4096, [])
    unknown = read_config({"model_type": "mamba", "hidden_size": 768})
    assert unknown.scheme == "unknown" and "unknown-scheme" in _labels(unknown)
    falcon = read_config(bundled_models()["falcon-7b"].config)
    assert falcon.max_positions == 2048 and {"default-base", "default-context"} <= _labels(falcon)


# ------------------------------------------------------------------------------------------ broken twins


def test_twin_a_factor_below_one_is_a_problem_naming_the_key() -> None:
    config = dict(LLAMA3, rope_scaling=dict(LLAMA3["rope_scaling"], factor=0.5))
    setup = read_config(config)
    assert _problem_keys(setup) == {"rope_scaling.factor"} and setup.scaling is None
    assert setup.base == 500000.0  # what does not need the key is kept


def test_twin_a_missing_key_is_a_problem() -> None:
    block = {key: value for key, value in LLAMA3["rope_scaling"].items() if key != "low_freq_factor"}
    assert _problem_keys(read_config(dict(LLAMA3, rope_scaling=block))) == {"rope_scaling.low_freq_factor"}


def test_twin_an_unknown_type_is_labelled() -> None:
    setup = read_config(dict(LLAMA3, rope_scaling={"rope_type": "mrope", "factor": 2.0}))
    assert "unknown-rope-type" in _labels(setup) and setup.scaling is None


def test_twin_a_missing_original_context_is_labelled() -> None:
    block = {k: v for k, v in bundled_models()["qwen2.5-7b-instruct-yarn"].config["rope_scaling"].items()}
    del block["original_max_position_embeddings"]
    config = dict(bundled_models()["qwen2.5-7b-instruct-yarn"].config, rope_scaling=block)
    setup = read_config(config)
    assert "missing-original-context" in _labels(setup) and setup.scaling.original_context == 32768


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"rope_theta": -1.0}, "rope_theta"),
        ({"rope_theta": 0}, "rope_theta"),
        ({"rope_theta": "big"}, "rope_theta"),
        ({"rope_theta": 1e4, "rotary_emb_base": 5e5}, "rope_theta"),
        ({"hidden_size": 4095}, "hidden_size"),
        ({"max_position_embeddings": -5}, "max_position_embeddings"),
        ({"torch_dtype": "int8"}, "torch_dtype"),
        ({"partial_rotary_factor": 1.5}, "partial_rotary_factor"),
        ({"rope_scaling": [1, 2]}, "rope_scaling"),
        ({"head_dim": 10**9}, "head_dim"),
    ],
)
def test_twin_bad_values_are_problems_naming_their_key(change: dict, key: str) -> None:
    assert key in _problem_keys(read_config(dict(LLAMA3, **change)))


def test_a_config_that_is_no_object_is_refused() -> None:
    for config in ([], "llama", 3, None):
        with pytest.raises(ConfigError, match="JSON object"):
            read_config(config)
