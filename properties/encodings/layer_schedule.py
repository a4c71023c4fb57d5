"""What Hugging Face transformers' modeling code does with each layer of a model type: which layers attend in
a sliding window or in chunks, which rotate queries and keys (RoPE) and which do not (NoPE), which carry no
positions at all (linear attention, state-space layers), and which base the local layers use.

One `Architecture` record per family of model types, as transformers 4.57.6 and 5.25.0 define them (their
``models/<type>/configuration_<type>.py``, which derive ``layer_types`` and take class defaults when a config
has none, and ``modeling_<type>.py``, which decide per layer whether RoPE is applied and at which window);
remote-code families as their published code and vLLM's reading of it compute. Each record is held against
transformers' own computation by the cross-check, on the bundled models and on the published configs of
the test suite, at both versions. `architecture(model_type)` looks one up; model types without a
record attend with RoPE in every layer over the full context (Llama's layout), unless another scheme is named.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

#: Layer types whose layers hold no positional encoding of their own (recurrent, linear or feed-forward
#: mixing, no attention over positions).
NO_POSITION_TYPES = frozenset(
    {
        "linear_attention",
        "mamba",
        "mamba2",
        "conv",
        "recurrent",
        "ssm",
        "deltanet",
        "gated_deltanet",
        "mlp",
        "moe",
        "no_attention",
    }
)
#: Layer types that attend within a window of the latest tokens.
SLIDING_TYPES = frozenset({"sliding_attention", "local_attention"})
#: Layer types that attend within fixed chunks of the sequence.
CHUNKED_TYPES = frozenset({"chunked_attention"})
#: Older layer-type names transformers 5 renames (``remap_legacy_layer_types``, _LEGACY_LAYER_TYPE_REMAP at
#: 5.25): GLM-5.2 lists deepseek_sparse_attention, which its class runs as indexed_attention.
LEGACY_NAMES = {
    "attention": "full_attention",
    "mamba": "linear_attention",
    "deepseek_sparse_attention": "indexed_attention",
    "qwen_sparse_attention": "indexed_attention",
}

Config = Mapping[str, object]


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _periodic(config: Config, layers: int) -> list[str] | None:
    """Jamba: attention where i % attn_layer_period = attn_layer_offset (8 and 4 by default), else Mamba."""
    period, offset = config.get("attn_layer_period", 8), config.get("attn_layer_offset", 4)
    if not (_whole(period) and period > 0 and _whole(offset)):
        return None
    return ["attention" if i % period == offset else "mamba" for i in range(layers)]


#: Nemotron-H's ``hybrid_override_pattern`` letters.
HYBRID_LETTERS = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}


def _hybrid_pattern(config: Config, layers: int) -> list[str] | None:
    pattern = config.get("hybrid_override_pattern")
    if not isinstance(pattern, str) or len(pattern) != layers or not set(pattern) <= set(HYBRID_LETTERS):
        return None
    return [HYBRID_LETTERS[letter] for letter in pattern]


def _block_configs(config: Config, layers: int) -> list[str] | None:
    """DeciLM (Nemotron-NAS): a block whose attention is ``no_op`` or ``replace_with_linear`` has none;
    one with a ``window_length`` slides."""
    blocks = config.get("block_configs")
    if not isinstance(blocks, list) or len(blocks) != layers:
        return None
    types = []
    for block in blocks:
        attention = block.get("attention") if isinstance(block, Mapping) else None
        if not isinstance(attention, Mapping):
            return None
        if attention.get("no_op") is True:
            types.append("no_attention")
        elif attention.get("replace_with_linear") is True:
            types.append("linear_attention")
        elif attention.get("window_length"):
            types.append("sliding_attention")
        else:
            types.append("full_attention")
    return types


def _attention_indices(config: Config, layers: int) -> list[str] | None:
    """Bamba: attention in the layers ``attn_layer_indices`` lists, Mamba elsewhere."""
    indices = config.get("attn_layer_indices")
    if not isinstance(indices, list) or not all(_whole(i) for i in indices):
        return None
    return ["full_attention" if i in indices else "linear_attention" for i in range(layers)]


def _first_and_every_sixth(config: Config, layers: int) -> list[str]:
    """MiMo-V2-Flash (transformers' class, whatever ``hybrid_layer_pattern`` says): full attention in the
    first layer and every sixth, sliding elsewhere."""
    return ["full_attention" if i == 0 or (i + 1) % 6 == 0 else "sliding_attention" for i in range(layers)]


def _sparse_frequency(config: Config, layers: int) -> list[str] | None:
    """MiniMax-M3: the layers ``sparse_attention_config.sparse_attention_freq`` flags run its sparse attention
    (``minimax_m3_sparse``), the others full attention; every layer full when it lists none."""
    sparse = config.get("sparse_attention_config")
    flags = sparse.get("sparse_attention_freq") if isinstance(sparse, Mapping) else None
    if not isinstance(flags, list) or len(flags) != layers or not all(f in (0, 1) for f in flags):
        return None
    return ["minimax_m3_sparse" if flag else "full_attention" for flag in flags]


def _kda_layers(config: Config, layers: int) -> list[str] | None:
    """Kimi Linear: full attention in the layers ``linear_attn_config.full_attn_layers`` lists, Kimi Delta
    Attention (linear) in those ``kda_layers`` lists, both 1-based; without the lists, full attention where
    i % 4 = 0 but the first."""
    block = config.get("linear_attn_config")
    full = block.get("full_attn_layers") if isinstance(block, Mapping) else None
    linear = block.get("kda_layers") if isinstance(block, Mapping) else None
    if full is None or linear is None:
        return ["full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(layers)]
    named = {i - 1: "full_attention" for i in full if _whole(i)} | {
        i - 1: "linear_attention" for i in linear if _whole(i)
    }
    if sorted(named) != list(range(layers)):
        return None
    return [named[i] for i in range(layers)]


#: DeepSeek V4's legacy per-layer compression ratios and the layer types transformers reads them as.
_COMPRESS_RATIO_TYPES = {
    0: "sliding_attention",
    4: "compressed_sparse_attention",
    128: "heavily_compressed_attention",
}


def _compress_ratios(config: Config, layers: int) -> list[str] | None:
    """DeepSeek V4: a sliding-window layer where ``compress_ratios`` is 0, compressed sparse attention where
    it is 4, heavily compressed attention where it is 128 (entries past the layers, a multi-token prediction
    layer's, left out as transformers truncates them); without it, two heavily compressed layers and then
    the two compressed kinds in turn."""
    ratios = config.get("compress_ratios")
    if ratios is None:
        return ["heavily_compressed_attention"] * min(layers, 2) + [
            "compressed_sparse_attention" if i % 2 else "heavily_compressed_attention"
            for i in range(max(layers - 2, 0))
        ]
    if (
        not isinstance(ratios, list)
        or len(ratios) < layers
        or not all(r in _COMPRESS_RATIO_TYPES for r in ratios)
    ):
        return None
    return [_COMPRESS_RATIO_TYPES[r] for r in ratios[:layers]]


def _indexed(config: Config, layers: int) -> list[str]:
    """DeepSeek-V3.2's sparse attention (and the classes that copy it): every layer an ``indexed_attention``,
    whose lightning indexer picks the keys that full attention then reads."""
    return ["indexed_attention"] * layers


def _mpt_scheme(config: Config) -> str:
    """MPT: ALiBi when ``attn_config.alibi`` is true, else a learned table."""
    attention = config.get("attn_config")
    return "alibi" if isinstance(attention, Mapping) and attention.get("alibi") is True else "learned"


def _falcon_scheme(config: Config) -> str:
    """Falcon: ALiBi when ``alibi`` is true, else RoPE."""
    return "alibi" if config.get("alibi") is True else "rope"


def _baichuan_scheme(config: Config) -> str:
    """Baichuan (remote code): RoPE at hidden size 4096 (the 7B models), ALiBi otherwise (13B), the rule
    vLLM's ``BaichuanForCausalLM`` applies to the two checkpoints' code."""
    return "rope" if config.get("hidden_size") == 4096 else "alibi"


#: The names GPT-2-era, T5, MPT, ChatGLM and Baichuan configs give the keys the reader knows.
COMMON_ALIASES = {"n_layer": "num_hidden_layers", "n_head": "num_attention_heads", "n_embd": "hidden_size"}


@dataclass(frozen=True)
class Architecture:
    """How a family of model types lays out positions over its layers, as transformers' configuration and
    modeling code for it do.

    `scheme`: ``rope``, ``alibi``, ``learned``, ``relative`` (T5's buckets) or ``none`` (no positional
    encoding in any layer). `pattern`: the key and default of a "one full layer every n" pattern
    (``sliding_window_pattern``), `pattern_type` the layer type of the others, `pattern_from_zero` whether the
    full layers are those with i % n = 0 (ModernBERT) rather than (i + 1) % n = 0, `fixed_pattern` a period no
    key changes, `last_full` whether the last layer is full whatever the pattern (Gemma 4); `layout_rule`: a
    rule of its own that lists the layer types from other keys (Jamba, Nemotron-H, DeciLM, Bamba);
    `sliding_everywhere`: a set ``sliding_window`` makes every layer slide (Mistral, Mixtral); `sliding_from`:
    Qwen 2's ``use_sliding_window`` with ``max_window_layers``; `rope_layers`: which attention layers rotate
    (``all``; ``sliding``: only sliding layers, the full ones are NoPE; ``sliding-if-windowed``: the same when
    ``sliding_window`` is set; ``no_rope_layers``: the flag list, derived from ``no_rope_layer_interval`` when
    absent; ``no_rope_layers-or-interval``: the same, and derived when empty too (Llama 4's configuration
    class tests the list's truth); ``rope-embedding-type``: every one when ``position_embedding_type`` is
    ``rope``, none otherwise; ``none``: no layer rotates); `chunk_key`: the key of chunked attention's size on
    rotating layers; `local_base`: the key (and default) of the sliding layers' base when the config has no
    per-layer-type ``rope_parameters``, `global_base` the same for the full layers of configs that name it
    apart; `local_scaled`: whether a ``rope_scaling`` block also scales the sliding layers (Gemma 3 and OLMo 3
    give it to the full layers only); `layout`: ``half`` (rotate_half: pair i with i + d/2) or ``interleaved``
    (pairs 2i, 2i + 1), `layout_key` a key that chooses it; `temperature`: Llama 4's attention temperature on
    NoPE layers; `beta`: the key of a position-dependent query scale (Ministral 3's ``llama_4_scaling_beta``);
    `head_dim_key`: the key of the full layers' own head width (Gemma 4's ``global_head_dim``);
    `rotary_dim_key`: the key of the count of rotated dims, where no ``partial_rotary_factor`` is given
    (GPT-J's and CodeGen's ``rotary_dim``; MiniMax-M2's, which its configuration class turns into ``rotary_dim
    / head_dim``); `rotated_head`: the head a latent-attention config's rotary dims are a part of: ``qk_rope``
    (DeepSeek's classes set head_dim = qk_rope_head_dim, the whole rotated head), ``qk`` (Mistral 4:
    qk_nope_head_dim + qk_rope_head_dim, its partial_rotary_factor applied to that) or ``head_dim`` (DeepSeek
    V4: the config's head_dim, qk_rope_head_dim of it rotated); `yarn_attention_factor`: the factor on cos and
    sin the class sets on a YaRN block that names none (DeepSeek V4's 1.0: its reference does not scale them);
    `alpha_key`: a key that turns ``dynamic`` scaling into a static NTK base (HunYuan's ``alpha``);
    `scheme_rule` (with the keys it reads, `scheme_keys`): a scheme chosen by the config's keys rather than
    the model type; `aliases`: other names of keys (config name → the name the reader asks for); `base_scale`:
    a key multiplying the default base (ChatGLM's ``rope_ratio``); `mrope`: how M-RoPE's sections take the
    pairs (``contiguous`` blocks, Qwen2-VL; ``interleaved`` T, H, W in turn, Qwen3-VL), whatever a
    ``mrope_interleaved`` key says; `softmax_mscale`: the transformers versions whose attention multiplies its
    softmax scale by YaRN's ``mscale_all_dim`` factor squared (``4.57 and 5``, or ``5`` alone: DeepSeek V2's);
    `unread_base` a base key other model types read that this type's class ignores (NomicBert's
    ``rotary_emb_base``: its class takes ``rope_theta``), said in a warning; `window_key` the key of the
    sliding window, `window_plus_one` a key that, when set, gives the window as its value plus the query
    (MiMo-V2-Flash's ``sliding_window_size``, which transformers turns into ``sliding_window_size + 1``),
    `bidirectional` whether it spans W/2 on either side (ModernBERT's ``local_attention``); `defaults`: the
    values its configuration class (transformers 5) takes for keys a config leaves out, `disputed` those
    transformers 4.57 and 5 take differently ((4.57, 5) by key).
    """

    types: tuple[str, ...]
    scheme: str = "rope"
    pattern: tuple[str, int] | None = None
    pattern_type: str = "sliding_attention"
    pattern_from_zero: bool = False
    fixed_pattern: int | None = None
    last_full: bool = False
    layout_rule: Callable[[Config, int], list[str] | None] | None = None
    sliding_everywhere: bool = False
    sliding_from: bool = False
    rope_layers: str = "all"
    chunk_key: str | None = None
    local_base: tuple[str, float] | None = None
    global_base: tuple[str, float] | None = None
    local_scaled: bool = True
    layout: str = "half"
    layout_key: str | None = None
    temperature: bool = False
    beta: str | None = None
    head_dim_key: str | None = None
    rotary_dim_key: str | None = None
    rotated_head: str = "qk_rope"
    yarn_attention_factor: float | None = None
    alpha_key: str | None = None
    scheme_rule: Callable[[Config], str] | None = None
    scheme_keys: tuple[str, ...] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)
    base_scale: str | None = None
    softmax_mscale: str | None = None
    mrope: str | None = None
    window_key: str = "sliding_window"
    window_plus_one: str | None = None
    unread_base: str | None = None
    bidirectional: bool = False
    defaults: Mapping[str, object] = field(default_factory=dict)
    disputed: Mapping[str, tuple[object, object]] = field(default_factory=dict)

    def derived_layer_types(self, config: Config, layers: int) -> list[str] | None:
        """The layer types transformers derives when the config lists none (None: every layer alike)."""
        if self.layout_rule is not None:
            return self.layout_rule(config, layers)
        period = self.fixed_pattern
        if self.pattern is not None:
            key, default = self.pattern
            value = config.get(key, default)
            period = value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
            if isinstance(value, str) and value and set(value) <= {"L", "G"}:  # EXAONE 4's "LLLG"
                return [
                    self.pattern_type if value[i % len(value)] == "L" else "full_attention"
                    for i in range(layers)
                ]
        if period is not None:
            if self.pattern_from_zero:
                return ["full_attention" if i % period == 0 else self.pattern_type for i in range(layers)]
            types = ["full_attention" if (i + 1) % period == 0 else self.pattern_type for i in range(layers)]
            if self.last_full and types:
                types[-1] = "full_attention"
            return types
        if self.sliding_from:
            if config.get("use_sliding_window") is True and config.get("sliding_window"):
                start = config.get("max_window_layers", layers)
                start = start if isinstance(start, int) and not isinstance(start, bool) else layers
                return ["sliding_attention" if i >= start else "full_attention" for i in range(layers)]
            return None
        if self.sliding_everywhere and config.get("sliding_window"):
            return ["sliding_attention"] * layers
        return None


#: The width LlamaConfig, Qwen2Config, MistralConfig and Emu3TextConfig take when a config states none.
_LLAMA_WIDTH = {"hidden_size": 4096, "num_attention_heads": 32}

_GEMMA3 = {
    "head_dim": 256,
    "max_position_embeddings": 131072,
    "sliding_window": 4096,
    "rope_theta": 1000000.0,
    "rope_local_base_freq": 10000.0,
    "num_hidden_layers": 26,
}

ARCHITECTURES: tuple[Architecture, ...] = (
    Architecture(("bloom",), scheme="alibi"),
    Architecture(
        ("mpt",),
        scheme_rule=_mpt_scheme,
        scheme_keys=("attn_config.alibi",),
        aliases={
            "max_seq_len": "max_position_embeddings",
            "n_heads": "num_attention_heads",
            "n_layers": "num_hidden_layers",
        },
    ),
    Architecture(
        ("falcon",),
        scheme_rule=_falcon_scheme,
        scheme_keys=("alibi",),
        defaults={"max_position_embeddings": 2048},
    ),
    Architecture(
        ("baichuan",),
        scheme_rule=_baichuan_scheme,
        scheme_keys=("hidden_size",),
        aliases={"model_max_length": "max_position_embeddings"},
    ),
    Architecture(
        ("chatglm",),
        layout_key="original_rope",
        base_scale="rope_ratio",
        aliases={
            "kv_channels": "head_dim",
            "seq_length": "max_position_embeddings",
            "num_layers": "num_hidden_layers",
        },
        defaults={"partial_rotary_factor": 0.5},
    ),
    Architecture(
        ("gpt2", "gpt_neo", "opt", "bert", "roberta", "xlm-roberta", "distilbert", "gpt_bigcode", "biogpt"),
        scheme="learned",
        aliases={"n_positions": "max_position_embeddings"},
    ),
    Architecture(
        ("t5", "mt5", "umt5", "longt5"),
        scheme="relative",
        aliases={"num_layers": "num_hidden_layers", "d_kv": "head_dim", "num_heads": "num_attention_heads"},
    ),
    Architecture(("mamba", "mamba2", "falcon_mamba", "rwkv", "xlstm"), scheme="none"),
    Architecture(("jamba",), layout_rule=_periodic, rope_layers="none"),
    Architecture(("nemotron_h",), layout_rule=_hybrid_pattern, rope_layers="none"),
    Architecture(("nemotron-nas",), layout_rule=_block_configs),
    Architecture(("bamba",), layout_rule=_attention_indices, defaults={"partial_rotary_factor": 0.5}),
    Architecture(("granitemoehybrid",), rope_layers="rope-embedding-type"),
    # NomicBertConfig takes rope_theta (default 1000); Nomic's own code reads rotary_emb_base
    Architecture(
        ("nomic_bert",),
        unread_base="rotary_emb_base",
        aliases={"n_positions": "max_position_embeddings"},
        defaults={"rope_theta": 1000.0, "max_position_embeddings": 2048},
    ),
    # Moonshine's text config is its decoder (MoonshineConfig.attribute_map)
    Architecture(
        ("moonshine",),
        aliases={
            "decoder_num_attention_heads": "num_attention_heads",
            "decoder_num_hidden_layers": "num_hidden_layers",
        },
    ),
    # GemmaConfig's head is 256 dims whatever hidden_size / heads make (Gemma 7B: 3072 / 16 = 192)
    Architecture(("gemma",), defaults={"head_dim": 256, "max_position_embeddings": 8192}),
    Architecture(
        ("gemma2",),
        fixed_pattern=2,
        defaults={"head_dim": 256, "max_position_embeddings": 8192, "sliding_window": 4096},
    ),
    Architecture(
        ("gemma3", "gemma3_text"),
        pattern=("sliding_window_pattern", 6),
        local_base=("rope_local_base_freq", 10000.0),
        local_scaled=False,
        defaults=_GEMMA3,
    ),
    Architecture(
        ("gemma3n", "gemma3n_text"),
        fixed_pattern=5,
        local_base=("rope_local_base_freq", 10000.0),
        local_scaled=False,
        defaults=dict(_GEMMA3, max_position_embeddings=32768, sliding_window=512),
    ),
    Architecture(
        ("gemma4", "gemma4_text"),
        pattern=("sliding_window_pattern", 6),
        last_full=True,
        head_dim_key="global_head_dim",
        defaults={
            "head_dim": 256,
            "global_head_dim": 512,
            "max_position_embeddings": 131072,
            "sliding_window": 512,
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                "full_attention": {
                    "rope_type": "proportional",
                    "partial_rotary_factor": 0.25,
                    "rope_theta": 1e6,
                },
            },
        },
    ),
    Architecture(
        ("cohere2",),
        pattern=("sliding_window_pattern", 4),
        rope_layers="sliding",
        layout="interleaved",
        defaults={"max_position_embeddings": 8192, "sliding_window": 4096},
    ),
    Architecture(("cohere",), layout="interleaved"),
    Architecture(
        ("exaone4", "exaone4_5_text"),  # Exaone4_5_Config builds its text part as exaone4
        pattern=("sliding_window_pattern", 4),
        rope_layers="sliding-if-windowed",
        defaults={"max_position_embeddings": 2048, "sliding_window": 4096},
    ),
    Architecture(
        ("gpt_oss",),
        fixed_pattern=2,
        defaults={
            "head_dim": 64,
            "sliding_window": 128,
            "max_position_embeddings": 131072,
            "rope_theta": 150000.0,
        },
    ),
    Architecture(("smollm3",), rope_layers="no_rope_layers", defaults={"rope_theta": 2000000.0}),
    Architecture(
        ("llama4", "llama4_text"),
        rope_layers="no_rope_layers-or-interval",
        chunk_key="attention_chunk_size",
        layout="interleaved",
        temperature=True,
        defaults={
            "rope_theta": 500000.0,
            "head_dim": 128,
            "max_position_embeddings": 131072,
            "attention_chunk_size": 8192,
        },
    ),
    Architecture(
        ("qwen3_next",),
        pattern=("full_attention_interval", 4),
        pattern_type="linear_attention",
        defaults={"head_dim": 256, "partial_rotary_factor": 0.25},
    ),
    # the defaults that a nested text_config leaning on its class relies on (LLaVA-NeXT-Video's and
    # Video-LLaVA's Vicuna, Qwen2-Audio's Qwen2, Emu3's text model state no hidden_size or heads); not the
    # layer count, which a trimmed copy of a config leaves out as often, and which the class's 32 misstates
    Architecture(
        ("llama",),
        defaults={
            **_LLAMA_WIDTH,
            "max_position_embeddings": 2048,
        },
    ),
    Architecture(
        ("qwen2",),
        sliding_from=True,
        defaults={
            **_LLAMA_WIDTH,
            "max_position_embeddings": 32768,
        },
    ),
    Architecture(("qwen2_moe", "qwen3"), sliding_from=True),
    Architecture(
        ("emu3_text_model",),
        defaults={
            **_LLAMA_WIDTH,
            "max_position_embeddings": 9216,
            "rope_theta": 1000000.0,
        },
    ),
    Architecture(
        ("qwen2_vl", "qwen2_5_vl", "qwen2_vl_text", "qwen2_5_vl_text"),
        sliding_from=True,
        mrope="contiguous",
        defaults={"rope_theta": 1000000.0},
    ),
    Architecture(
        ("qwen3_vl", "qwen3_vl_text", "qwen3_vl_moe", "qwen3_vl_moe_text"),
        mrope="interleaved",
        defaults={"head_dim": 128, "max_position_embeddings": 128000},
        disputed={"rope_theta": (5000000.0, 500000.0)},
    ),
    Architecture(("qwen3_moe", "mixtral", "ministral", "phi3"), sliding_everywhere=True),
    Architecture(
        ("mistral",),
        sliding_everywhere=True,
        defaults={
            **_LLAMA_WIDTH,
            "max_position_embeddings": 131072,
            "sliding_window": 4096,
        },
    ),
    Architecture(("ministral3",), sliding_everywhere=True, beta="llama_4_scaling_beta"),
    Architecture(("deepseek_v2",), layout="interleaved", softmax_mscale="5"),
    Architecture(("deepseek_v3", "kimi_k2"), layout_key="rope_interleave", softmax_mscale="4.57 and 5"),
    Architecture(("glm4_moe_lite", "axk1", "youtu"), layout_key="rope_interleave"),
    # sliding layers on plain RoPE at rope_theta, compressed ones on compress_rope_theta with the YaRN block;
    # interleaved pairs on the trailing qk_rope_head_dim of a 512-dim head
    Architecture(
        ("deepseek_v4",),
        layout_rule=_compress_ratios,
        layout="interleaved",
        local_base=("rope_theta", 10000.0),
        global_base=("compress_rope_theta", 160000.0),
        local_scaled=False,
        rotated_head="head_dim",
        rotary_dim_key="qk_rope_head_dim",
        yarn_attention_factor=1.0,
        defaults={"head_dim": 512, "qk_rope_head_dim": 64, "sliding_window": 128},
    ),
    # latent attention without RoPE (its modeling code has no rotary module) between Kimi Delta Attention
    Architecture(("kimi_linear",), layout_rule=_kda_layers, rope_layers="none"),
    Architecture(("minimax_m3_vl",), layout_rule=_sparse_frequency),
    Architecture(
        ("mimo_v2_flash",),
        layout_rule=_first_and_every_sixth,
        window_plus_one="sliding_window_size",
        defaults={
            "head_dim": 192,
            "sliding_window": 129,
            "rope_parameters": {
                "full_attention": {"rope_type": "default", "rope_theta": 5e6, "partial_rotary_factor": 0.334},
                "sliding_attention": {
                    "rope_type": "default",
                    "rope_theta": 1e4,
                    "partial_rotary_factor": 0.334,
                },
            },
        },
    ),
    # latent attention that rotates interleaved pairs whatever the config says: DeepSeek V2 as complex numbers
    Architecture(("deepseek_v2", "longcat_flash", "bailing_hybrid", "axk2"), layout="interleaved"),
    Architecture(
        ("deepseek_v32", "glm_moe_dsa", "hy_v4", "mistral_large4"), layout="interleaved", layout_rule=_indexed
    ),
    Architecture(
        ("mistral4",),
        layout_key="rope_interleave",
        rotated_head="qk",
        rotary_dim_key="qk_rope_head_dim",
        beta="llama_4_scaling_beta",
    ),
    Architecture(
        ("glm", "glm4"), layout="interleaved", defaults={"partial_rotary_factor": 0.5, "head_dim": 128}
    ),
    Architecture(("glm4_moe",), defaults={"partial_rotary_factor": 0.5}),
    Architecture(("ernie4_5", "ernie4_5_moe"), layout="interleaved", defaults={"rope_theta": 500000.0}),
    Architecture(("hunyuan_v1_dense", "hunyuan_v1_moe"), alpha_key="alpha"),
    Architecture(
        ("gptj", "codegen"),
        layout="interleaved",
        rotary_dim_key="rotary_dim",
        aliases={"n_positions": "max_position_embeddings"},
        defaults={"rotary_dim": 64, "max_position_embeddings": 2048},
    ),
    # MiniMax-M1's own code (not in transformers) reads rotary_dim as MiniMax-M2's configuration class does
    Architecture(("minimax_m2", "minimax_m1"), rotary_dim_key="rotary_dim"),
    Architecture(
        ("olmo3",),
        pattern=("sliding_window_pattern", 4),
        local_base=("rope_theta", 500000.0),
        local_scaled=False,
        defaults={"sliding_window": 4096, "max_position_embeddings": 2048},
        disputed={"rope_theta": (10000.0, 500000.0)},
    ),
    Architecture(("falcon_h1",), disputed={"rope_theta": (100000.0, 10000.0)}),
    Architecture(
        ("modernbert",),
        pattern=("global_attn_every_n_layers", 3),
        pattern_from_zero=True,
        local_base=("local_rope_theta", 10000.0),
        global_base=("global_rope_theta", 160000.0),
        window_key="local_attention",
        bidirectional=True,
    ),
)

#: Every architecture by its model types.
BY_TYPE = {name: record for record in ARCHITECTURES for name in record.types}
#: The record of model types transformers lays out as Llama does.
DEFAULT = Architecture(())


def architecture(model_type: str | None) -> Architecture:
    """The record of a model type (`DEFAULT` when it has none)."""
    return BY_TYPE.get(model_type or "", DEFAULT)


def known_scheme(model_type: str | None) -> bool:
    """Whether the model type has a record (its positional scheme is known without any RoPE key)."""
    return (model_type or "") in BY_TYPE
