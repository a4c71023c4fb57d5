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


def _labels(model) -> set[str]:
    return {note.label for note in model.notes} | {n.label for g in model.groups for n in g.position.notes}


def _problem_keys(model) -> set[str]:
    return {problem.key for problem in model.problems}


def _rope(config):
    """The model read, and its first group's positional rule."""
    model = read_config(config)
    return model, model.groups[0].position


def test_llama3_config_is_read_as_published() -> None:
    model, setup = _rope(LLAMA3)
    assert (setup.scheme, setup.base, setup.head_dim, setup.rotary_dim) == ("rope", 500000.0, 128, 128)
    scaling = setup.scaling
    assert (scaling.kind, scaling.factor, scaling.original_context) == ("llama3", 8.0, 8192)
    assert (scaling.low_freq_factor, scaling.high_freq_factor) == (1.0, 4.0)
    assert (model.max_positions, model.trained_context, model.dtype) == (131072, 8192, "bfloat16")
    assert "rope_scaling.low_freq_factor" in model.used and "num_key_value_heads" in model.ignored
    assert not model.problems and len(model.groups) == 1


def test_every_key_is_either_used_or_ignored() -> None:
    for bundled in bundled_models().values():
        setup = read_config(bundled.config)
        top = {key.split(".")[0] for key in (*setup.used, *setup.ignored)}
        assert top == set(bundled.config), bundled.slug
        assert not set(setup.used) & set(setup.ignored)


def test_the_older_forms_of_the_keys() -> None:
    model, neox = _rope(bundled_models()["gpt-neox-20b"].config)
    assert (neox.base, neox.head_dim, neox.rotary_dim) == (10000.0, 96, 24)
    assert "partial-rotary" in _labels(model)
    _, qwen = _rope(bundled_models()["qwen2.5-7b-instruct-yarn"].config)
    assert (qwen.rope_type, qwen.scaling.kind, qwen.head_dim) == ("yarn", "yarn", 128)
    legacy = dict(bundled_models()["phi-3.5-mini-instruct"].config)
    legacy["rope_scaling"] = dict(legacy["rope_scaling"], type="su")
    model, phi = _rope(legacy)
    assert phi.scaling.kind == "longrope" and "legacy-rope-type" in _labels(model)
    assert phi.scaling.factor == 32.0 and phi.defaults["factor"] == 32.0


def test_transformers_5_rope_parameters() -> None:
    config = {key: value for key, value in LLAMA3.items() if key not in ("rope_scaling", "rope_theta")}
    config["rope_parameters"] = dict(LLAMA3["rope_scaling"], rope_theta=500000.0)
    config["dtype"] = config.pop("torch_dtype")
    model, setup = _rope(config)
    assert (setup.base, setup.scaling.kind, model.dtype) == (500000.0, "llama3", "bfloat16")
    assert "rope_parameters.rope_theta" in model.used


def test_deepseek_rotates_only_its_rope_head_dim() -> None:
    model, setup = _rope(bundled_models()["deepseek-v3"].config)
    assert (setup.head_dim, setup.rotary_dim, setup.mscale, setup.mscale_all_dim) == (64, 64, 1.0, 1.0)
    assert setup.qk_head_dim == 192 and setup.layout == "interleaved"
    assert "partial-rotary" in _labels(model)


def test_alibi_learned_and_unknown_schemes() -> None:
    model, bloom = _rope(bundled_models()["bloom"].config)
    assert (model.scheme, bloom.heads) == ("alibi", 112)
    gpt2 = read_config(bundled_models()["gpt2"].config)
    assert (gpt2.scheme, gpt2.max_positions) == ("learned", 1024)
    model, mpt = _rope(
        {"model_type": "mpt", "n_heads": 32, "max_seq_len": 2048, "attn_config": {"alibi": True}}
    )
    assert (model.scheme, mpt.heads, model.max_positions) == ("alibi", 32, 2048)
    learned_mpt = read_config({"model_type": "mpt", "max_seq_len": 4096, "attn_config": {"alibi": False}})
    assert (learned_mpt.scheme, learned_mpt.max_positions, learned_mpt.problems) == ("learned", 4096, [])
    mamba = read_config({"model_type": "mamba", "hidden_size": 768})
    assert mamba.scheme == "none" and not mamba.problems
    unknown = read_config({"model_type": "some_new_model", "hidden_size": 768})
    assert unknown.scheme == "unknown" and "unknown-scheme" in _labels(unknown)
    falcon = read_config(bundled_models()["falcon-7b"].config)
    assert falcon.max_positions == 2048 and {"default-base", "default-context"} <= _labels(falcon)


# ------------------------------------------------------------------------------------------ broken twins


def test_twin_a_factor_below_one_is_a_problem_naming_the_key() -> None:
    config = dict(LLAMA3, rope_scaling=dict(LLAMA3["rope_scaling"], factor=0.5))
    model, setup = _rope(config)
    assert _problem_keys(model) == {"rope_scaling.factor"} and setup.scaling is None
    assert setup.base == 500000.0  # what does not need the key is kept


def test_twin_a_missing_key_is_a_problem() -> None:
    block = {key: value for key, value in LLAMA3["rope_scaling"].items() if key != "low_freq_factor"}
    assert _problem_keys(read_config(dict(LLAMA3, rope_scaling=block))) == {"rope_scaling.low_freq_factor"}


def test_twin_an_unknown_type_is_labelled() -> None:
    model, setup = _rope(dict(LLAMA3, rope_scaling={"rope_type": "mropes", "factor": 2.0}))
    assert "unknown-rope-type" in _labels(model) and setup.scaling is None


def test_twin_a_missing_original_context_is_labelled() -> None:
    block = {k: v for k, v in bundled_models()["qwen2.5-7b-instruct-yarn"].config["rope_scaling"].items()}
    del block["original_max_position_embeddings"]
    config = dict(bundled_models()["qwen2.5-7b-instruct-yarn"].config, rope_scaling=block)
    model, setup = _rope(config)
    assert "missing-original-context" in _labels(model) and setup.scaling.original_context == 32768


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


MINIMAX_M2 = {
    "model_type": "minimax_m2",
    "head_dim": 128,
    "num_hidden_layers": 2,
    "rope_theta": 5e6,
    "rotary_dim": 64,
    "max_position_embeddings": 196608,
}


def test_a_count_of_rotated_dims_is_read_where_the_model_type_reads_it() -> None:
    """MiniMax-M2's and GPT-J's ``rotary_dim`` (transformers: partial_rotary_factor = rotary_dim / head_dim
    for MiniMax-M2, the rotated width itself for GPT-J and CodeGen); a partial_rotary_factor given as well
    wins, as MiniMax-M2's configuration class only sets it by default; another model type's rotary_dim is a
    key ignored, as its transformers code ignores it, with a warning (MiniMax-Text-01's own code reads it)."""
    model, setup = _rope(MINIMAX_M2)
    assert (setup.head_dim, setup.rotary_dim) == (128, 64) and "rotary_dim" in model.used
    assert "partial-rotary" in _labels(model)
    _, given = _rope(dict(MINIMAX_M2, partial_rotary_factor=1.0))
    assert given.rotary_dim == 128
    model, other = _rope(dict(MINIMAX_M2, model_type="minimax"))
    assert other.rotary_dim == 128 and "rotary_dim" in model.ignored
    assert "unread-rotary-dim" in _labels(model)  # MiniMax-Text-01's port: said, not silently
    codegen = {"model_type": "codegen", "n_embd": 2560, "n_head": 32, "n_layer": 2, "rotary_dim": 64}
    model, setup = _rope(codegen)
    assert (setup.head_dim, setup.rotary_dim, setup.layout) == (80, 64, "interleaved")
    assert model.max_positions == 2048  # n_positions' default
    _, default = _rope({key: value for key, value in codegen.items() if key != "rotary_dim"})
    assert default.rotary_dim == 64  # GPTJConfig's and CodeGenConfig's default


def test_mistral_4s_partial_factor_applies_to_the_whole_latent_head() -> None:
    """Mistral4Config sets head_dim = qk_nope_head_dim + qk_rope_head_dim and partial_rotary_factor =
    qk_rope_head_dim / head_dim by default, which YaRN's initialisation applies to head_dim: a config that
    states the factor (0.5, as transformers saves it) rotates 64 of 128 dims, as one that does not. The
    twin: DeepSeek V3's class sets head_dim = qk_rope_head_dim, the whole rotated head."""
    yarn = {
        "rope_type": "yarn",
        "rope_theta": 10000.0,
        "factor": 4.0,
        "original_max_position_embeddings": 2048,
    }
    latent = {
        "model_type": "mistral4",
        "num_hidden_layers": 2,
        "qk_nope_head_dim": 64,
        "qk_rope_head_dim": 64,
        "max_position_embeddings": 8192,
        "rope_parameters": dict(yarn, partial_rotary_factor=0.5),
    }
    _, stated = _rope(latent)
    _, implied = _rope(dict(latent, rope_parameters=yarn))
    assert (stated.head_dim, stated.rotary_dim) == (implied.head_dim, implied.rotary_dim) == (128, 64)
    assert stated.layout == "interleaved"
    _, deepseek = _rope(dict(latent, model_type="deepseek_v3", rope_parameters=yarn))
    assert (deepseek.head_dim, deepseek.rotary_dim) == (64, 64)


@pytest.mark.parametrize(
    ("model_type", "change", "layout", "layer_type"),
    [
        ("deepseek_v2", {}, "interleaved", "full_attention"),  # complex pairs (x0, x1)
        ("deepseek_v32", {}, "interleaved", "indexed_attention"),
        ("glm_moe_dsa", {"rope_interleave": False}, "interleaved", "indexed_attention"),  # not read there
        ("glm4_moe_lite", {}, "interleaved", "full_attention"),  # rope_interleave's class default
        ("glm4_moe_lite", {"rope_interleave": False}, "half", "full_attention"),
        ("minicpm3", {}, "half", "full_attention"),
    ],
)
def test_latent_attention_pairs_and_layer_types_as_each_class_lays_them_out(
    model_type: str, change: dict, layout: str, layer_type: str
) -> None:
    """Which latent-attention classes rotate interleaved pairs whatever the config says, which follow
    rope_interleave (default true), which rotate half-split pairs; DeepSeek V3.2's sparse attention names
    every layer indexed_attention, as its configuration class does."""
    latent = {
        "model_type": model_type,
        "num_hidden_layers": 2,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
    }
    model, setup = _rope(dict(latent, rope_theta=10000.0, max_position_embeddings=4096, **change))
    assert (setup.layout, model.groups[0].layer_type) == (layout, layer_type)


def test_per_layer_type_blocks_beside_a_plain_value_are_read_per_layer_type() -> None:
    """Laguna-XS.2's rope_parameters holds its two layer types' blocks and a plain
    original_max_position_embeddings, which no rotary module reads (an ignored key); the twin without the
    blocks is one block for every layer."""
    blocks = {
        "full_attention": {
            "rope_type": "yarn",
            "rope_theta": 5e5,
            "factor": 32.0,
            "original_max_position_embeddings": 4096,
        },
        "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
        "original_max_position_embeddings": 4096,
    }
    config = {
        "model_type": "laguna",
        "head_dim": 128,
        "num_hidden_layers": 2,
        "max_position_embeddings": 131072,
        "layer_types": ["full_attention", "sliding_attention"],
        "sliding_window": 512,
        "rope_parameters": blocks,
    }
    model = read_config(config)
    assert not model.problems
    assert [(g.layer_type, g.position.base, g.position.scaling.kind) for g in model.groups] == [
        ("full_attention", 5e5, "yarn"),
        ("sliding_attention", 1e4, "none"),
    ]
    assert "rope_parameters.original_max_position_embeddings" in model.ignored
    flat = read_config(
        dict(config, rope_parameters={"rope_theta": 1e4, "original_max_position_embeddings": 4096})
    )
    assert "rope_parameters.rope_type" in _problem_keys(flat)


def test_an_empty_no_rope_list_is_derived_for_llama_4_only() -> None:
    """Llama4TextConfig replaces a falsy no_rope_layers by the interval's flags (mlx-community's Scout
    conversion ships []); SmolLM3Config only fills None, so [] stays a list too short for its layers."""
    llama4 = {"model_type": "llama4_text", "num_hidden_layers": 8, "no_rope_layers": []}
    model = read_config(llama4)
    rotating = {i for g in model.groups if g.position.scheme == "rope" for i in g.layers}
    assert rotating == {0, 1, 2, 4, 5, 6} and "empty-flags" in _labels(model)
    smollm3 = {"model_type": "smollm3", "head_dim": 128, "num_hidden_layers": 8, "no_rope_layers": []}
    assert "no_rope_layers" in _problem_keys(read_config(smollm3))


def test_a_nested_text_config_leaning_on_its_class_takes_the_class_defaults() -> None:
    """LLaVA-NeXT-Video's Vicuna text_config states no hidden_size or heads: LlamaConfig's 4096 and 32
    apply (said as defaults taken); the twin, a model type whose defaults the suite does not hold, is a
    problem naming head_dim."""
    config = {
        "model_type": "llava_next_video",
        "text_config": {"model_type": "llama", "max_position_embeddings": 4096},
    }
    model, setup = _rope(config)
    assert (setup.head_dim, model.layers) == (128, None)  # the layer count is not defaulted
    assert model.defaults["text_config.hidden_size"] == 4096
    other = {
        "model_type": "llava_next_video",
        "text_config": {"model_type": "olmo2", "max_position_embeddings": 4096},
    }
    assert "text_config.head_dim" in _problem_keys(read_config(other))


def test_a_multi_token_prediction_layers_type_beyond_the_layers_is_left_out_with_a_warning() -> None:
    """EXAONE 4.5 lists 65 layer types for 64 layers and one MTP layer: the first 64 are read, said as a
    warning (transformers 5.25 refuses the config); the twin without the MTP key is a problem."""
    config = {
        "model_type": "exaone4",
        "head_dim": 128,
        "num_hidden_layers": 4,
        "num_nextn_predict_layers": 1,
        "sliding_window": 4096,
        "layer_types": ["sliding_attention"] * 3 + ["full_attention", "sliding_attention"],
    }
    model = read_config(config)
    assert not model.problems and model.layers == 4 and "mtp-layer-types" in _labels(model)
    assert sorted(i for g in model.groups for i in g.layers) == [0, 1, 2, 3]
    twin = {key: value for key, value in config.items() if key != "num_nextn_predict_layers"}
    assert "layer_types" in _problem_keys(read_config(twin))


def test_mimo_v2_flash_as_its_transformers_class_builds_it() -> None:
    """Full attention in layer 0 and every sixth, sliding elsewhere; sliding_window_size previous tokens plus
    the query (transformers: sliding_window_size + 1), or sliding_window itself when the size is not given;
    the class's per-layer bases when the config gives no rope_parameters."""
    config = {"model_type": "mimo_v2_flash", "num_hidden_layers": 12, "sliding_window_size": 128}
    model = read_config(dict(config, max_position_embeddings=262144))
    full, sliding = model.groups
    assert (full.layer_type, full.layers, full.position.base) == ("full_attention", (0, 5, 11), 5e6)
    assert (sliding.window, sliding.position.base, sliding.position.rotary_dim) == (129, 1e4, 64)
    plain = read_config({"model_type": "mimo_v2_flash", "num_hidden_layers": 12, "sliding_window": 200})
    assert plain.groups[1].window == 200


def test_gemmas_head_is_its_class_default_not_hidden_size_over_heads() -> None:
    """GemmaConfig's head_dim defaults to 256 whatever hidden_size / num_attention_heads make (a PaliGemma
    test config: 32 / 8); a stated head_dim wins, and a model type without that default divides (the twin)."""
    config = {"model_type": "gemma", "hidden_size": 32, "num_attention_heads": 8, "num_hidden_layers": 1}
    assert _rope(config)[1].head_dim == 256
    assert _rope(dict(config, head_dim=64))[1].head_dim == 64
    assert _rope(dict(config, model_type="llama", max_position_embeddings=4096))[1].head_dim == 4


def test_nomic_berts_base_is_its_class_rope_theta_with_a_warning_for_rotary_emb_base() -> None:
    """NomicBertConfig takes rope_theta (default 1000) and ignores rotary_emb_base, which Nomic's own code
    reads: nomic-embed-text-v2-moe states 10000, answered with 1000 and a warning; v1.5's 1000 agrees and
    warns of nothing; another type reads rotary_emb_base (the twin)."""
    config = {"model_type": "nomic_bert", "n_embd": 768, "n_head": 12, "n_layer": 2, "rotary_emb_base": 10000}
    model, setup = _rope(dict(config, n_positions=2048))
    assert setup.base == 1000 and "unread-base" in _labels(model)
    model, setup = _rope(dict(config, n_positions=2048, rotary_emb_base=1000))
    assert setup.base == 1000 and "unread-base" not in _labels(model)
    assert _rope(dict(config, model_type="gpt_neox", max_position_embeddings=2048))[1].base == 10000


def test_moonshines_decoder_keys_name_its_heads_and_layers() -> None:
    """MoonshineConfig maps num_attention_heads and num_hidden_layers to its decoder's keys; without them the
    head cannot be known (the twin)."""
    config = {"model_type": "moonshine", "hidden_size": 288, "decoder_num_attention_heads": 8}
    config |= {"decoder_num_hidden_layers": 6, "partial_rotary_factor": 0.9, "max_position_embeddings": 194}
    model, setup = _rope(config)
    assert (model.layers, setup.head_dim, setup.rotary_dim) == (6, 36, 32)
    bare = {key: value for key, value in config.items() if key != "decoder_num_attention_heads"}
    assert "head_dim" in _problem_keys(read_config(bare))


@pytest.mark.parametrize("count", [63, 130, 0])
def test_twin_a_count_of_rotated_dims_that_is_odd_wider_than_the_head_or_zero_is_a_problem(
    count: int,
) -> None:
    assert "rotary_dim" in _problem_keys(read_config(dict(MINIMAX_M2, rotary_dim=count)))


def test_a_config_that_is_no_object_is_refused() -> None:
    for config in ([], "llama", 3, None):
        with pytest.raises(ConfigError, match="JSON object"):
            read_config(config)


def test_a_top_level_original_context_overrides_a_single_blocks_as_transformers_5_does() -> None:
    """transformers 5.25's standardize_rope_params assigns a top-level original_max_position_embeddings over
    the one in a single scaling block (its rotary module then computes YaRN's correction range from it);
    stated differently in both places, that is a warning, since 4.x's YaRN reads the block's."""
    config = {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_hidden_layers": 2,
        "max_position_embeddings": 131072,
        "original_max_position_embeddings": 8192,
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
    }
    setup = read_config(config)
    position = setup.groups[0].position
    assert position.original_context == 8192 and position.scaling.original_context == 8192
    assert [n.severity for n in position.notes + setup.notes if n.label == "original-context-twice"] == [
        "warning"
    ]
    same = dict(config, original_max_position_embeddings=32768)
    assert not [n for n in read_config(same).notes if n.label == "original-context-twice"]
