"""Layer groups as transformers lays them out: each model type's rule for which layers slide, rotate, carry no
positions or take a local base, checked on small configs against the rule written out here, each with a
twin that changes one key and moves the groups."""

from __future__ import annotations

import pytest

from pe_verify.properties.encodings import layer_schedule
from pe_verify.properties.encodings.model_config import bundled_models, read_config


def _groups(config: dict) -> dict[str, tuple[tuple[int, ...], str, int | None]]:
    """layer type (and scheme) → (layers, scheme, window or chunk)."""
    model = read_config(config)
    assert not model.problems, model.problems
    return {
        f"{g.layer_type}/{g.position.scheme}": (g.layers, g.position.scheme, g.reach) for g in model.groups
    }


def _notes(model) -> list:
    return [*model.notes, *(n for g in model.groups for n in g.position.notes)]


def _labels(model) -> set[str]:
    return {n.label for n in _notes(model)}


def test_gemma2_alternates_sliding_and_full_layers() -> None:
    config = {"model_type": "gemma2", "num_hidden_layers": 6, "head_dim": 64, "sliding_window": 512}
    groups = _groups(config)
    assert groups["sliding_attention/rope"] == ((0, 2, 4), "rope", 512)
    assert groups["full_attention/rope"] == ((1, 3, 5), "rope", None)


def test_gemma3_local_layers_take_the_local_base_and_no_scaling() -> None:
    text = {
        "model_type": "gemma3_text",
        "num_hidden_layers": 12,
        "head_dim": 128,
        "sliding_window": 1024,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0},
    }
    model = read_config({"model_type": "gemma3", "text_config": text, "torch_dtype": "bfloat16"})
    local, full = model.groups
    assert local.layers == tuple(i for i in range(12) if (i + 1) % 6) and full.layers == (5, 11)
    assert (local.position.base, local.position.scaling.kind, local.window) == (10000.0, "none", 1024)
    assert (full.position.base, full.position.scaling.kind, full.position.scaling.factor) == (
        1e6,
        "linear",
        8,
    )
    assert model.nested == "text_config" and model.dtype == "bfloat16"
    assert model.defaults["text_config.rope_theta"] == 1e6
    twin = dict(text, sliding_window_pattern=3)
    assert read_config({"model_type": "gemma3", "text_config": twin}).groups[1].layers == (2, 5, 8, 11)


def test_gemma4_proportional_full_layers_and_the_last_layer_full() -> None:
    config = bundled_models()["gemma-4-31b-it"].config
    model = read_config(config)
    local, full = model.groups
    assert full.layers[-1] == model.layers - 1 and full.position.head_dim == 512
    assert (full.position.scaling.kind, full.position.rotary_dim) == ("proportional", 128)
    assert (local.position.head_dim, local.position.rotary_dim, local.position.base) == (256, 256, 10000.0)


def test_llama4_rotating_layers_are_chunked_and_the_others_are_nope_with_a_temperature() -> None:
    text = {
        "model_type": "llama4_text",
        "num_hidden_layers": 8,
        "head_dim": 128,
        "attention_chunk_size": 8192,
    }
    groups = _groups({"model_type": "llama4", "text_config": text})
    assert groups["chunked_attention/rope"] == ((0, 1, 2, 4, 5, 6), "rope", 8192)
    assert groups["full_attention/nope"] == ((3, 7), "nope", None)
    nope = next(
        g for g in read_config({"model_type": "llama4", "text_config": text}).groups if g.reach is None
    )
    assert nope.query_scaling["floor_scale"] == 8192 and nope.position.layout == "half"
    rope = read_config({"model_type": "llama4", "text_config": text}).groups[0]
    assert rope.position.layout == "interleaved"
    off = _groups({"model_type": "llama4", "text_config": dict(text, attn_temperature_tuning=False)})
    assert "full_attention/nope" in off


def test_smollm3_no_rope_layers_and_their_interval() -> None:
    config = {"model_type": "smollm3", "num_hidden_layers": 8, "head_dim": 64}
    assert _groups(config)["full_attention/nope"][0] == (3, 7)
    assert _groups(dict(config, no_rope_layer_interval=2))["full_attention/nope"][0] == (1, 3, 5, 7)
    flags = [1, 0, 1, 1, 1, 1, 1, 0]
    assert _groups(dict(config, no_rope_layers=flags))["full_attention/nope"][0] == (1, 7)


@pytest.mark.parametrize(
    ("model_type", "extra", "rotating"),
    [
        ("cohere2", {}, "sliding"),
        ("exaone4", {}, "sliding"),
        ("exaone4", {"sliding_window": None, "layer_types": ["full_attention"] * 8}, "all"),
    ],
)
def test_models_whose_global_layers_do_not_rotate(model_type: str, extra: dict, rotating: str) -> None:
    config = {"model_type": model_type, "num_hidden_layers": 8, "head_dim": 64, "sliding_window": 4096}
    model = read_config({**config, **extra})
    rotates = {i for g in model.groups if g.position.scheme == "rope" for i in g.layers}
    assert rotates == (set(range(8)) - {3, 7} if rotating == "sliding" else set(range(8)))


def test_layers_without_positions() -> None:
    qwen_next = _groups({"model_type": "qwen3_next", "num_hidden_layers": 8, "head_dim": 256})
    assert qwen_next["linear_attention/none"][0] == (0, 1, 2, 4, 5, 6)
    full = read_config({"model_type": "qwen3_next", "num_hidden_layers": 8, "head_dim": 256}).groups[1]
    assert (full.position.rotary_dim, full.position.head_dim) == (64, 256)
    jamba = _groups({"model_type": "jamba", "num_hidden_layers": 16})
    assert jamba["attention/nope"][0] == (4, 12) and jamba["mamba/none"][0] == tuple(set(range(16)) - {4, 12})
    nemotron = _groups(
        {"model_type": "nemotron_h", "num_hidden_layers": 4, "hybrid_override_pattern": "M*-E"}
    )
    assert set(nemotron) == {"mamba/none", "attention/nope", "mlp/none", "moe/none"}
    granite = {
        "model_type": "granitemoehybrid",
        "num_hidden_layers": 2,
        "layer_types": ["mamba", "attention"],
    }
    assert "attention/nope" in _groups(dict(granite, position_embedding_type="nope"))
    assert "attention/rope" in _groups(dict(granite, position_embedding_type="rope", head_dim=64))


def test_qwen_sliding_layers_from_max_window_layers_and_mistral_everywhere() -> None:
    qwen = {"model_type": "qwen2", "num_hidden_layers": 6, "head_dim": 64, "sliding_window": 4096}
    assert set(_groups(qwen)) == {"full_attention/rope"}
    windowed = _groups(dict(qwen, use_sliding_window=True, max_window_layers=4))
    assert windowed["sliding_attention/rope"][0] == (4, 5)
    mistral = _groups(
        {"model_type": "mistral", "num_hidden_layers": 2, "head_dim": 64, "sliding_window": 4096}
    )
    assert mistral == {"sliding_attention/rope": ((0, 1), "rope", 4096)}


def test_mrope_sections_and_their_sum() -> None:
    config = dict(bundled_models()["qwen2.5-vl-7b-instruct"].config)
    setup = read_config(config).groups[0].position
    assert setup.mrope_section == (16, 24, 24) and setup.scaling.kind == "none"
    twin = dict(config, rope_scaling=dict(config["rope_scaling"], mrope_section=[16, 24, 20]))
    assert {p.key for p in read_config(twin).problems} == {"rope_scaling.mrope_section"}


def test_hunyuan_alpha_is_a_static_ntk_base() -> None:
    block = {"type": "dynamic", "factor": 1.0, "alpha": 1000.0}
    model = read_config({"model_type": "hunyuan_v1_dense", "head_dim": 128, "rope_scaling": block})
    scaling = model.groups[0].position.scaling
    assert (scaling.kind, scaling.factor) == ("ntk", 1000.0)
    assert "alpha-ntk" in _labels(model)


def test_defaults_that_differ_by_version_are_warned_of() -> None:
    model = read_config({"model_type": "qwen3_vl_text", "num_hidden_layers": 2})
    assert model.groups[0].position.base == 500000.0
    (note,) = [n for n in _notes(model) if n.label == "default-differs-by-version"]
    assert note.severity == "warning" and "4.57 took 5e+06" in note.message
    stated = read_config({"model_type": "qwen3_vl_text", "num_hidden_layers": 2, "rope_theta": 5e6})
    assert "default-differs-by-version" not in _labels(stated)


def test_a_misspelt_key_is_a_possible_typo() -> None:
    config = dict(bundled_models()["llama-2-7b"].config)
    config["rope_scalling"] = {"rope_type": "linear", "factor": 4.0}
    notes = {n.label: n for n in _notes(read_config(config))}
    assert notes["possible-typo"].severity == "warning" and "rope_scaling" in notes["possible-typo"].message
    config["rope_scaling"] = {"rope_type": "linear", "factor": 4.0}
    assert "possible-typo" not in _labels(read_config(config))
    other = dict(bundled_models()["deepseek-v3"].config)
    assert "possible-typo" not in _labels(read_config(other))  # v_head_dim is a real key


def test_every_architecture_record_names_known_schemes() -> None:
    for record in layer_schedule.ARCHITECTURES:
        assert record.scheme in ("rope", "alibi", "learned", "relative", "none")
        assert record.rope_layers in (
            "all",
            "sliding",
            "sliding-if-windowed",
            "no_rope_layers",
            "no_rope_layers-or-interval",
            "rope-embedding-type",
            "none",
        )
        assert record.layout in ("half", "interleaved")


def test_remote_code_models_read_from_their_own_keys() -> None:
    """ChatGLM (GLM-4-9B-Chat's published config, as vLLM and transformers' converter read it: base 10000 ×
    rope_ratio, the first half of each head rotated in interleaved pairs) and Baichuan (RoPE at hidden size
    4096, ALiBi otherwise)."""
    glm = {
        "model_type": "chatglm",
        "kv_channels": 128,
        "num_layers": 40,
        "original_rope": True,
        "rope_ratio": 500,
        "seq_length": 131072,
        "hidden_size": 4096,
        "num_attention_heads": 32,
    }
    model = read_config(glm)
    rule = model.groups[0].position
    assert (rule.base, rule.head_dim, rule.rotary_dim, rule.layout) == (5e6, 128, 64, "interleaved")
    assert (model.max_positions, model.layers) == (131072, 40)
    assert {"kv_channels", "seq_length", "rope_ratio", "num_layers"} <= set(model.used)
    assert read_config(dict(glm, original_rope=False)).groups[0].position.layout == "half"
    seven = {
        "model_type": "baichuan",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "model_max_length": 4096,
    }
    thirteen = dict(seven, hidden_size=5120, num_attention_heads=40)
    assert read_config(seven).scheme == "rope" and read_config(seven).max_positions == 4096
    assert read_config(thirteen).scheme == "alibi" and read_config(thirteen).groups[0].position.heads == 40


def test_an_encoders_window_spans_both_sides() -> None:
    """ModernBERT's local_attention of 128 lets a token see 64 on either side: offsets 0 … 64."""
    config = {"model_type": "modernbert", "num_hidden_layers": 3, "head_dim": 64, "local_attention": 128}
    local = read_config(config).groups[1]
    assert (local.layer_type, local.window, local.bidirectional, local.reach) == (
        "sliding_attention",
        128,
        True,
        65,
    )
    mistral = {"model_type": "mistral", "num_hidden_layers": 1, "head_dim": 64, "sliding_window": 128}
    assert read_config(mistral).groups[0].reach == 128


def test_minimax_m3s_sparse_layers_follow_its_sparse_attention_frequency() -> None:
    """MiniMaxM3VLConfig names the layers that sparse_attention_config.sparse_attention_freq flags
    minimax_m3_sparse, the others full_attention; a list of the wrong length leaves every layer full."""
    config = {
        "model_type": "minimax_m3_vl",
        "head_dim": 128,
        "num_hidden_layers": 4,
        "max_position_embeddings": 4096,
        "sparse_attention_config": {"sparse_attention_freq": [0, 0, 1, 1]},
    }
    model = read_config(config)
    assert [(g.layer_type, tuple(g.layers)) for g in model.groups] == [
        ("full_attention", (0, 1)),
        ("minimax_m3_sparse", (2, 3)),
    ]
    short = dict(config, sparse_attention_config={"sparse_attention_freq": [0, 1]})
    assert [g.layer_type for g in read_config(short).groups] == ["full_attention"]


def test_kimi_linear_lays_out_its_1_based_lists_and_rotates_nothing() -> None:
    """Kimi Linear (Kimi-K3's text model): full attention in the 1-based full_attn_layers, Kimi Delta
    Attention in kda_layers, no rotary module in either; without the lists, full where i % 4 = 0 but the
    first."""
    config = {
        "model_type": "kimi_linear",
        "num_hidden_layers": 8,
        "qk_rope_head_dim": 64,
        "max_position_embeddings": 4096,
        "linear_attn_config": {"full_attn_layers": [4, 8], "kda_layers": [1, 2, 3, 5, 6, 7]},
    }
    model = read_config(config)
    assert [(g.layer_type, tuple(g.layers), g.position.scheme) for g in model.groups] == [
        ("linear_attention", (0, 1, 2, 4, 5, 6), "none"),
        ("full_attention", (3, 7), "nope"),
    ]
    bare = read_config(dict(config, linear_attn_config={}))
    assert [tuple(g.layers) for g in bare.groups if g.layer_type == "full_attention"] == [(4,)]


def test_deepseek_v4_as_its_class_builds_it() -> None:
    """compress_ratios (0 sliding, 4 compressed sparse, 128 heavily compressed; an MTP layer's entry past the
    layers left out) lay the layers out; sliding layers rotate at rope_theta unscaled, compressed ones at
    compress_rope_theta with the YaRN block, whose attention factor the class sets to 1.0; 64 of the 512-dim
    head rotated. The twin without compress_ratios takes the class's layout, two heavily compressed first."""
    yarn = {
        "type": "yarn",
        "factor": 16,
        "original_max_position_embeddings": 65536,
        "beta_fast": 32,
        "beta_slow": 1,
    }
    config = {
        "model_type": "deepseek_v4",
        "num_hidden_layers": 4,
        "head_dim": 512,
        "qk_rope_head_dim": 64,
        "rope_theta": 10000,
        "compress_rope_theta": 160000,
        "max_position_embeddings": 1048576,
        "rope_scaling": yarn,
        "compress_ratios": [0, 4, 128, 4, 0],
    }
    model = read_config(config)
    assert not model.problems
    groups = {g.layer_type: g for g in model.groups}
    assert [tuple(g.layers) for g in model.groups] == [(0,), (1, 3), (2,)]
    sliding, sparse = groups["sliding_attention"], groups["compressed_sparse_attention"]
    assert (sliding.window, sliding.position.base, sliding.position.scaling.kind) == (128, 10000, "none")
    assert (sparse.position.base, sparse.position.scaling.kind, sparse.position.attention_factor) == (
        160000,
        "yarn",
        1.0,
    )
    assert (sparse.position.head_dim, sparse.position.rotary_dim, sparse.position.layout) == (
        512,
        64,
        "interleaved",
    )
    bare = read_config({key: value for key, value in config.items() if key != "compress_ratios"})
    assert [g.layer_type for g in bare.groups] == [
        "heavily_compressed_attention",
        "compressed_sparse_attention",
    ]
