"""What each runtime computes from one config: a profile per runtime and version range, as data.

A profile names, for each quantity where the runtime departs from the reference (Hugging Face transformers
5.x, whose reading `model_config.read_config` follows), the rule it applies instead, each with the source
it was read from (file and function at a stated version) and the public report that describes it. A
quantity a profile does not name is computed as the reference computes it. What each rule means is said
once, in `RULES`; `analyses.runtime_divergence` evaluates them.

Only the code paths of a runtime's PyTorch (or CPU) reference implementation were read; GPU kernels were
not. `tested` names the versions at which a test calls the runtime's own code and compares what it computes
with the profile's reading (tests/properties/test_runtimes_real.py, run by .ci/run at those versions; the
profile is chosen by `Profile.covers` from the installed version); a profile whose `tested` is empty is
derived from its source only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Every quantity a profile may name, each with its rules; the first is the reference's.
RULES: dict[str, dict[str, str]] = {
    "theta": {
        "config": "the base the config states (top level or rope_parameters), else the model's default",
        "top-level": "the top-level rope_theta only, else 10000: a base written only inside rope_parameters "
        "(transformers 5's layout) is not seen",
    },
    "scaling_block": {
        "config": "the scaling the config states, in rope_parameters or rope_scaling",
        "rope-scaling-only": "only rope_scaling is read: a scaling written only inside rope_parameters "
        "(transformers 5's layout) is not applied, and the layers turn as plain RoPE",
    },
    "yarn_factor": {
        "explicit": "YaRN's factor as written",
        "context-ratio": "YaRN's factor replaced by max_position_embeddings / "
        "original_max_position_embeddings whenever the block states the original context",
    },
    "yarn_original": {
        "config": "the original context the config states (original_max_position_embeddings in the scaling "
        "block or at its top level), else max_position_embeddings",
        "block-only": "the scaling block's original_max_position_embeddings, else max_position_embeddings: "
        "one stated only at the top level is not read",
        "block-else-4096": "the scaling block's original_max_position_embeddings, else 4096: neither "
        "max_position_embeddings nor an original context stated at the top level is read",
        "mrope-times-4": "with M-RoPE sections, the correction range computed for 4 × the original context "
        "(the length of M-RoPE's table), not the original context",
    },
    "yarn_attention": {
        "reference": "attention_factor, else get_mscale(s, mscale)/get_mscale(s, mscale_all_dim) when both "
        "are non-zero, else 0.1·ln s + 1",
        "get-mscale": "0.1·ln s + 1 always: attention_factor, mscale and mscale_all_dim are not read",
        "ratio-if-present": "get_mscale(s, mscale)/get_mscale(s, mscale_all_dim) when both keys are present "
        "(zero included), else 0.1·ln s + 1; attention_factor is not read",
        "ratio-with-defaults": "get_mscale(s, mscale or 1)/get_mscale(s, mscale_all_dim or 0); "
        "attention_factor is not read",
        "attention-factor-times-get-mscale": "attention_factor multiplied onto 0.1·ln s + 1 (applied twice)",
        "log-multiplier": "get_mscale(s)/get_mscale(s, mscale_all_dim) when mscale_all_dim is non-zero "
        "(mscale taken as 1), else 0.1·ln s + 1; attention_factor is not read",
        "log-multiplier-deepseek": "1 when mscale_all_dim is non-zero (the factor moves to the softmax "
        "scale), else 0.1·ln s + 1; attention_factor is not read",
    },
    "yarn_truncate": {
        "config": "the correction range floored and ceiled unless truncate is false",
        "always": "the correction range always floored and ceiled (truncate: false cannot be expressed)",
    },
    "longrope_factor": {
        "explicit": "LongRoPE's factor as written, else max_position_embeddings / L₀",
        "context-ratio-when-top-level": "LongRoPE's factor replaced by max_position_embeddings / L₀ when the "
        "config states original_max_position_embeddings at its top level",
    },
    "longrope_original": {
        "config": "L₀ as the config states it (original_max_position_embeddings in the scaling block or at "
        "its top level), else max_position_embeddings",
        "top-level-only": "L₀ the top-level original_max_position_embeddings, else max_position_embeddings: "
        "one stated only in the scaling block is not read",
    },
    "longrope_attention": {
        "reference": "attention_factor, else √(1 + ln s/ln L₀) with s the block's factor (or "
        "max_position_embeddings / L₀ when it has none)",
        "context-ratio": "√(1 + ln s/ln L₀) with s = max_position_embeddings / L₀; attention_factor and "
        "factor are not read",
    },
    "longrope_switch": {
        "sequence": "long_factor for a sequence of more than L₀ tokens, per forward pass",
        "sequence-inclusive": "long_factor for a sequence of L₀ tokens or more",
        "any-position": "long_factor once any position index in the batch exceeds L₀ (L₀ + 2 tokens or "
        "more); a request that grows past it switches mid-sequence",
        "max-model-len": "long_factor for every request when the served context (max_model_len) exceeds L₀, "
        "short_factor for every request otherwise",
        "allocated-context": "long_factor for every sequence when the allocated per-sequence context, "
        "rounded up to a multiple of 256, exceeds L₀",
        "always-long": "long_factor always: short_factor is read but never used",
    },
    "dynamic": {
        "running": "the base grows with the running length beyond max_position_embeddings",
        "plain": "plain RoPE at every length: the growth is computed once against max_position_embeddings "
        "and comes to 1",
        "scaled-everywhere": "the base grown once for a length of factor · max_position_embeddings and used "
        "at every length, within the trained context too",
    },
    "proportional_factor": {
        "applied": "the turning pairs' frequencies divided by factor",
        "dropped": "factor is not applied",
    },
    "sliding_rope": {
        "local": "sliding-window layers turn at their own base, unscaled",
        "global": "sliding-window layers take the full-attention layers' base and scaling",
    },
    "partial_rotary": {
        "honoured": "int(head_dim · partial_rotary_factor) dims rotate",
        "full-head": "the whole head rotates: partial_rotary_factor is dropped",
    },
    "angles": {
        "product": "p·θ_i as one float32 product of the position by a float32 frequency",
        "recurrence": "p·θ_s^i by i successive float32 products from the position (θ_s the float32 ratio "
        "base^(−2/d)), pair after pair",
    },
    "mrope_layout": {
        "config": "M-RoPE's sections blocked or interleaved as the config says",
        "blocked": "M-RoPE's sections always blocked (Qwen2-VL's layout)",
        "unused": "mrope_section is read but not applied: every lane takes the temporal position",
        "leftover-still": "interleaved sections as the config says, but pairs no section claims take a "
        "fourth position row, 0 for text tokens: they do not turn",
    },
}

#: The reference every profile is compared with.
REFERENCE_VERSION = "5.25.0"


@dataclass(frozen=True)
class Behaviour:
    """One quantity's rule in one runtime: `rule` (a key of `RULES[quantity]`), the `source` it was read
    from (file::function @ version), the public `report` describing it, the model types it is limited to
    (empty: every model) and those it does not apply to."""

    quantity: str
    rule: str
    source: str
    report: str = ""
    model_types: tuple[str, ...] = ()
    except_model_types: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.quantity not in RULES:
            raise ValueError(f"unknown quantity {self.quantity!r}")
        if self.rule not in RULES[self.quantity]:
            raise ValueError(f"unknown rule {self.rule!r} for {self.quantity}")

    def applies(self, model_type: str | None) -> bool:
        if model_type in self.except_model_types:
            return False
        return not self.model_types or model_type in self.model_types


@dataclass(frozen=True)
class Numerics:
    """How a runtime computes RoPE's numbers, in words read from its source: the `runtime` and version read,
    `inv_freq` (formula and dtype),
    `positions` (their dtype on the way to the angles), `cache` (whether cos and sin are tabulated, how many
    rows, in which dtype), `pairing` (which lanes turn together), `ignored` (config keys it does not read
    that the reference does), and the `source` these were read from."""

    runtime: str
    inv_freq: str
    positions: str
    cache: str
    pairing: str
    ignored: str
    source: str


@dataclass(frozen=True)
class Profile:
    """A runtime at a version range: its `name` (runtime and versions, as the command accepts it), the
    `runtime`, the `versions` it covers (a release range "first–last" or one release series, which `covers`
    reads; or words, for a commit or a report's interval), the version its source was `read_at`, its
    departures from the reference, `tested`: the versions of it a test runs the real code of (empty: from
    source only), and `unserved`: model types its newest release cannot load at all (not in its registry),
    of those the suite reads, for which it computes nothing to compare (empty: none known)."""

    name: str
    runtime: str
    versions: str
    read_at: str
    behaviours: tuple[Behaviour, ...] = ()
    tested: str = ""
    unserved: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        quantities = [(b.quantity, b.model_types) for b in self.behaviours]
        if len(set(quantities)) != len(quantities):
            raise ValueError(f"profile {self.name} names a quantity twice")

    @property
    def releases(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The first and last release series `versions` names ("5.0–5.25": (5, 0), (5, 25); "0.32": (0, 32)
        twice), or None when it names no release range."""
        found = _RELEASES.fullmatch(self.versions)
        if found is None:
            return None
        first = _release(found[1])
        return first, _release(found[2]) if found[2] else first

    def covers(self, version: str) -> bool:
        """Whether a release of the runtime (as its ``__version__`` says) lies in `versions`: its leading
        components held against each bound at the bound's length, so "5.0–5.25" covers 5.3.1 and 5.25.0, not
        4.57.6 or 5.26.0. A profile whose versions are words covers no release."""
        releases = self.releases
        found = re.match(r"\d+(?:\.\d+)*", version)
        if releases is None or found is None:
            return False
        release = _release(found[0])
        first, last = releases
        return first <= release[: len(first)] and release[: len(last)] <= last

    def rule(self, quantity: str, model_type: str | None) -> Behaviour | None:
        """The behaviour this profile applies to `quantity` for a model type (None: the reference's)."""
        found = [b for b in self.behaviours if b.quantity == quantity and b.applies(model_type)]
        found.sort(key=lambda b: not b.model_types)
        return found[0] if found else None


_RELEASES = re.compile(r"(\d+(?:\.\d+)*)(?:–(\d+(?:\.\d+)*))?")


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


_HF = "src/transformers/modeling_rope_utils.py"


def _hf4_layout(version: str) -> tuple[Behaviour, ...]:
    """transformers 4's configs know rope_theta and rope_scaling at the top level only: a config written in
    5's layout (both inside rope_parameters) loads as plain RoPE at the model's default base."""
    config = f"src/transformers/models/llama/configuration_llama.py::LlamaConfig.__init__ @ {version}"
    return (
        Behaviour("theta", "top-level", f"{config} (rope_theta=10000.0; rope_parameters is no 4.x key)"),
        Behaviour("scaling_block", "rope-scaling-only", f"{config}, {_HF}::ROPE_INIT_FUNCTIONS @ {version}"),
    )


def _hf4_original(version: str) -> tuple[Behaviour, ...]:
    """transformers 4 takes YaRN's original context from the scaling block only, LongRoPE's from the config's
    top level only (where 5 reads either)."""
    return (
        Behaviour("yarn_original", "block-only", f"{_HF}::_compute_yarn_parameters @ {version}"),
        Behaviour("longrope_original", "top-level-only", f"{_HF}::_compute_longrope_parameters @ {version}"),
    )


def _hf4_38224(version: str) -> tuple[Behaviour, ...]:
    """transformers 4.51–4.55 replace YaRN's factor by the context ratio when the block states the original
    context, and 4.x LongRoPE's factor when the top level does."""
    return (
        Behaviour(
            "yarn_factor",
            "context-ratio",
            f"{_HF}::_compute_yarn_parameters @ {version}",
            "huggingface/transformers#38224 (fixed by #40320, in 4.56)",
        ),
        Behaviour(
            "longrope_factor",
            "context-ratio-when-top-level",
            f"{_HF}::_compute_longrope_parameters @ {version}",
        ),
    )


_VLLM = "vllm/model_executor/layers/rotary_embedding"
_SGL = "python/sglang/srt/layers/rotary_embedding"
_MLX = "mlx_lm/models/rope_utils.py"
#: The model types whose mlx-lm 0.32.2 arguments read rope_parameters (grep of mlx_lm/models at 0.32.2).
_MLX_READS_ROPE_PARAMETERS = (
    "exaone_moe",
    "gemma4",
    "gemma4_text",
    "glm_moe_dsa",
    "granitemoehybrid",
    "laguna",
    "lfm2",
    "lfm2_moe",
    "mellum",
    "minimax_m3_vl",
    "ministral3",
    "mistral3",
    "mistral4",
    "muse_glimmer",
    "muse_spark",
    "olmo_hybrid",
    "qwen3",
    "qwen3_5",
    "spark2_5",
)
#: DeepSeek V3.2 shares the path: vLLM's DeepseekV32ForCausalLM subclasses DeepseekV2ForCausalLM, and
#: llama.cpp's src/models/deepseek32.cpp reads the same log multiplier.
_DEEPSEEK = ("deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2")
#: Model types the suite reads that transformers 4.57.6 cannot load (not in configuration_auto.py's
#: CONFIG_MAPPING_NAMES at 4.57.6; tests/properties/test_runtimes_served.py holds them against the installed
#: registry).
_NEWER_THAN_4_57 = ("bailing_moe", "gemma4", "gemma4_text", "laguna", "ministral3")
_LLAMA_CPP = "llama.cpp 0c1e57098bba43ac29e6e3b677cdceebdd22334f"

#: The numerics of each runtime at the version its profile was read at.
NUMERICS: dict[str, Numerics] = {
    "transformers-5": Numerics(
        "transformers 5.25",
        "1/base^(arange(0, d, 2)/d) in float32 (arange in float32)",
        "int64 position_ids cast to float32, multiplied by inv_freq once",
        "none: cos and sin computed each forward in float32 (autocast off), times the attention factor, then "
        "cast to the activation dtype",
        "half-split (rotate_half)",
        "none of the rope keys; unknown keys are warned about by the validator",
        "src/transformers/models/llama/modeling_llama.py::LlamaRotaryEmbedding @ 5.25.0",
    ),
    "transformers-4": Numerics(
        "transformers 4.51–4.57",
        "1/base^(arange(0, d, 2, int64).float()/d) in float32 (the same values)",
        "int64 position_ids cast to float32, multiplied by inv_freq once (a float32 matmul of one term)",
        "none: cos and sin computed each forward in float32 (autocast off), times the attention factor, then "
        "cast to the activation dtype",
        "half-split (rotate_half)",
        "rope_parameters (transformers 5's layout) is no 4.x key",
        f"{_HF}::_compute_default_rope_parameters, models/llama/modeling_llama.py @ 4.57.6",
    ),
    "vLLM": Numerics(
        "vLLM 0.34",
        "1/base^(arange(0, d, 2, float32)/d) in float32",
        "integer indices into the table, whose rows were built from a float32 arange times inv_freq",
        "a table of max_position_embeddings rows (× factor for linear and YaRN; LongRoPE: its short then its "
        "long rows), computed in float32 and cast to the model dtype",
        "half-split (neox) or adjacent pairs (GPT-J style), as the model asks",
        "keys outside get_rope's list (0.11 and 0.25: attention_factor; 0.11: mscale, mscale_all_dim, "
        "truncate)",
        f"{_VLLM}/base.py::RotaryEmbeddingBase._compute_cos_sin_cache @ 0.34.0",
    ),
    "SGLang": Numerics(
        "SGLang 0.5.23",
        "1/base^(arange(0, d, 2, float32)/d) in float32",
        "integer indices into the table, whose rows were built from a float32 arange times inv_freq",
        "a table grown on demand, kept in float32 on CUDA, HIP and XPU (or with SGLANG_ROPE_CACHE_FP32), "
        "else cast to the model dtype",
        "half-split (neox) or adjacent pairs (GPT-J style), as the model asks",
        "attention_factor (not forwarded by get_rope)",
        f"{_SGL}/base.py::RotaryEmbedding @ 0.5.23",
    ),
    "mlx-lm": Numerics(
        "mlx-lm 0.32.2",
        "periods base^(arange(0, d, 2)/d) in float32 handed to mx.fast.rope (its kernel was not read)",
        "the offset plus the token index, inside mx.fast.rope",
        "none: mx.fast.rope turns each call",
        "half-split (traditional=False) or adjacent pairs (traditional=True), as the model asks",
        "keys that are not fields of the model's arguments (rope_parameters for most models, "
        "attention_factor, truncate; partial_rotary_factor for glm)",
        f"{_MLX}::initialize_rope, mlx_lm/models/base.py::BaseModelArgs.from_dict @ 0.32.2",
    ),
    "llama.cpp": Numerics(
        "llama.cpp 0c1e5709",
        "p·θ_s^i by i successive float32 products from the position p, θ_s = powf(base, −2/d)",
        "int32 positions converted to float32",
        "per row, in float32, cast to the tensor's type",
        "adjacent pairs on weights the converter permuted (Llama family), or half-split (NEOX, M-RoPE), by "
        "architecture",
        "attention_factor, mscale, truncate, and beta_fast/beta_slow outside the architectures that read "
        "them",
        "ggml/src/ggml-cpu/ops.cpp::ggml_rope_cache_init, src/llama-model.cpp @ 0c1e5709",
    ),
}


PROFILES: tuple[Profile, ...] = (
    Profile(
        "transformers-5",
        "transformers",
        "5.0–5.25",
        "5.0.0, 5.25.0",
        tested="5.25.0",
    ),
    Profile(
        "transformers-4.56",
        "transformers",
        "4.56–4.57",
        "4.56.2, 4.57.6",
        (
            *_hf4_layout("4.57.6"),
            *_hf4_original("4.57.6"),
            Behaviour(
                "longrope_factor",
                "context-ratio-when-top-level",
                f"{_HF}::_compute_longrope_parameters @ 4.57.6",
            ),
        ),
        tested="4.57.6",
        unserved=_NEWER_THAN_4_57,
    ),
    Profile(
        "transformers-4.55",
        "transformers",
        "4.55",
        "4.55.4",
        (*_hf4_layout("4.55.4"), *_hf4_original("4.55.4"), *_hf4_38224("4.55.4")),
        tested="4.55.4",
        unserved=(*_NEWER_THAN_4_57, "qwen3_next", "qwen3_vl", "qwen3_vl_text"),
    ),
    Profile(
        "transformers-4.51",
        "transformers",
        "4.51–4.54",
        "4.51.3, 4.54.1",
        (
            *_hf4_layout("4.54.1"),
            *_hf4_original("4.54.1"),
            *_hf4_38224("4.54.1"),
            Behaviour(
                "yarn_truncate",
                "always",
                f"{_HF}::_compute_yarn_parameters @ 4.54.1 (no truncate key: floor and ceil always)",
            ),
        ),
        unserved=(*_NEWER_THAN_4_57, "gpt_oss", "qwen3_next", "qwen3_vl", "qwen3_vl_text"),
    ),
    Profile(
        "vllm-0.34",
        "vLLM",
        "0.34",
        "0.34.0 (g62d4bc3c7)",
        (
            Behaviour(
                "yarn_original",
                "mrope-times-4",
                f"{_VLLM}/mrope.py::MRotaryEmbedding (YaRN's correction range from its "
                "max_position_embeddings, original × mrope_positions_factor) @ 0.34.0; read in the code, "
                "no report",
            ),
            Behaviour(
                "longrope_switch",
                "max-model-len",
                f"{_VLLM}/phi3_long_rope_scaled_rope.py::Phi3LongRoPEScaledRotaryEmbedding @ 0.34.0",
                "vllm-project/vllm#27414 (changed by #27431)",
            ),
            Behaviour(
                "longrope_attention",
                "context-ratio",
                f"{_VLLM}/phi3_long_rope_scaled_rope.py::Phi3LongRoPEScaledRotaryEmbedding @ 0.34.0",
            ),
            Behaviour("dynamic", "plain", f"{_VLLM}/dynamic_ntk_scaling_rope.py @ 0.34.0"),
            Behaviour(
                "proportional_factor", "dropped", f"{_VLLM}/gemma4_rope.py::Gemma4RotaryEmbedding @ 0.34.0"
            ),
        ),
    ),
    Profile(
        "vllm-0.25",
        "vLLM",
        "0.25",
        "0.25.0 (gdd10e03f9)",
        (
            Behaviour(
                "yarn_attention",
                "get-mscale",
                f"{_VLLM}/__init__.py::get_rope @ 0.25.0",
                "vllm-project/vllm#48351, #48621",
            ),
            Behaviour(
                "yarn_attention",
                "ratio-with-defaults",
                f"{_VLLM}/deepseek_scaling_rope.py::DeepseekScalingRotaryEmbedding @ 0.25.0",
                model_types=_DEEPSEEK,
            ),
            Behaviour(
                "longrope_switch",
                "max-model-len",
                f"{_VLLM}/phi3_long_rope_scaled_rope.py::Phi3LongRoPEScaledRotaryEmbedding @ 0.25.0",
                "vllm-project/vllm#27414 (changed by #27431)",
            ),
            Behaviour(
                "longrope_attention",
                "context-ratio",
                f"{_VLLM}/phi3_long_rope_scaled_rope.py::Phi3LongRoPEScaledRotaryEmbedding @ 0.25.0",
            ),
            Behaviour("dynamic", "plain", f"{_VLLM}/dynamic_ntk_scaling_rope.py @ 0.25.0"),
        ),
    ),
    Profile(
        "vllm-0.11",
        "vLLM",
        "0.7–0.11",
        "0.11.0 (gf71952c1c)",
        (
            Behaviour(
                "theta",
                "top-level",
                "vllm/model_executor/models/llama.py::LlamaAttention "
                "(base=getattr(config, 'rope_theta', 10000)) @ 0.11.0",
                "vllm-project/vllm#28542",
            ),
            Behaviour(
                "yarn_attention",
                "get-mscale",
                f"{_VLLM}/__init__.py::get_rope @ 0.11.0",
                "vllm-project/vllm#48351, #48621",
            ),
            Behaviour(
                "yarn_attention",
                "ratio-with-defaults",
                f"{_VLLM}/deepseek_scaling_rope.py::DeepseekScalingRotaryEmbedding @ 0.11.0",
                model_types=_DEEPSEEK,
            ),
            Behaviour(
                "longrope_switch",
                "any-position",
                f"{_VLLM}/phi3_long_rope_scaled_rope.py::Phi3LongRoPEScaledRotaryEmbedding.forward @ 0.11.0",
                "vllm-project/vllm#27414",
            ),
            Behaviour(
                "longrope_attention",
                "context-ratio",
                f"{_VLLM}/phi3_long_rope_scaled_rope.py::Phi3LongRoPEScaledRotaryEmbedding @ 0.11.0",
            ),
            Behaviour("dynamic", "plain", f"{_VLLM}/dynamic_ntk_scaling_rope.py @ 0.11.0"),
        ),
    ),
    Profile(
        "vllm-gemma3-regression",
        "vLLM",
        "main between #28542 and #29111 (November 2025)",
        "the report's description (the code of that interval was not read)",
        (
            Behaviour(
                "sliding_rope",
                "global",
                "vllm/model_executor/models/gemma3.py::Gemma3Attention (as described in #29111)",
                "vllm-project/vllm#29111",
                ("gemma3", "gemma3_text"),
            ),
        ),
    ),
    Profile(
        "vllm-bailing-moe",
        "vLLM",
        "before #43770 (May 2026)",
        "the report's description",
        (
            Behaviour(
                "partial_rotary",
                "full-head",
                "vllm/model_executor/models/bailing_moe.py "
                "(rotary_dim = getattr(config, 'rotary_dim', head_dim))",
                "vllm-project/vllm#43770",
                ("bailing_moe",),
            ),
        ),
    ),
    Profile(
        "transformers-5-minimax-m2",
        "transformers",
        "5.x before #48486 (September 2026; the report saw it in 5.12.1 and 5.16.0.dev0)",
        "the report's description (5.25.0 holds the fix)",
        (
            Behaviour(
                "partial_rotary",
                "full-head",
                "src/transformers/models/minimax_m2/configuration_minimax_m2.py::MiniMaxM2Config (rotary_dim "
                "kept as an opaque attribute, as #48241 describes)",
                "huggingface/transformers#48241 (fixed by #48486)",
                ("minimax_m2",),
            ),
        ),
    ),
    Profile(
        "sglang-0.5",
        "SGLang",
        "0.5.23",
        "0.5.23",
        (
            Behaviour(
                "yarn_attention",
                "ratio-if-present",
                f"{_SGL}/yarn.py::YaRNScalingRotaryEmbedding @ 0.5.23",
                "sgl-project/sglang#33558",
            ),
            Behaviour(
                "longrope_switch",
                "any-position",
                f"{_SGL}/rope_variant.py::Phi3LongRoPEScaledRotaryEmbedding @ 0.5.23",
            ),
            Behaviour(
                "longrope_attention",
                "context-ratio",
                f"{_SGL}/rope_variant.py::Phi3LongRoPEScaledRotaryEmbedding @ 0.5.23",
            ),
            Behaviour(
                "dynamic",
                "scaled-everywhere",
                f"{_SGL}/rope_variant.py::DynamicNTKScalingRotaryEmbedding @ 0.5.23",
            ),
            Behaviour(
                "proportional_factor", "dropped", f"{_SGL}/rope_variant.py::Gemma4RotaryEmbedding @ 0.5.23"
            ),
        ),
    ),
    Profile(
        "sglang-laguna",
        "SGLang",
        "before #33558 (August 2026)",
        "the report's description and the fix in configs/laguna.py::_to_sglang_rope_scaling @ 0.5.23",
        (
            Behaviour(
                "yarn_attention",
                "attention-factor-times-get-mscale",
                f"{_SGL}/yarn.py::YaRNScalingRotaryEmbedding (attn_factor multiplied on) @ 0.5.23",
                "sgl-project/sglang#33558",
                ("laguna",),
            ),
        ),
    ),
    Profile(
        "sglang-theta",
        "SGLang",
        "before #14745 (December 2025)",
        "the report's description",
        (
            Behaviour(
                "theta",
                "top-level",
                "python/sglang/srt/models/llama.py (getattr(config, 'rope_theta', 10000))",
                "sgl-project/sglang#14745",
            ),
        ),
    ),
    Profile(
        "mlx-lm",
        "mlx-lm",
        "0.32",
        "0.32.2 and d78bf58e",
        (
            Behaviour(
                "theta",
                "top-level",
                "mlx_lm/models/base.py::BaseModelArgs.from_dict, models/llama.py::ModelArgs @ 0.32.2",
                except_model_types=_MLX_READS_ROPE_PARAMETERS,
            ),
            Behaviour(
                "scaling_block",
                "rope-scaling-only",
                "mlx_lm/models/base.py::BaseModelArgs.from_dict (keys not a field are dropped), "
                "models/llama.py::ModelArgs (rope_scaling, no rope_parameters) @ 0.32.2",
                except_model_types=_MLX_READS_ROPE_PARAMETERS,
            ),
            Behaviour(
                "yarn_attention",
                "ratio-with-defaults",
                f"{_MLX}::YarnRoPE @ 0.32.2",
                "ml-explore/mlx-lm#1507",
            ),
            Behaviour(
                "yarn_original",
                "block-else-4096",
                f"{_MLX}::initialize_rope (the block's keys only), YarnRoPE (original_max_position_embeddings"
                "=4096) @ 0.32.2",
            ),
            Behaviour("yarn_truncate", "always", f"{_MLX}::YarnRoPE @ 0.32.2"),
            Behaviour("longrope_switch", "always-long", f"{_MLX}::SuScaledRoPE @ 0.32.2"),
            Behaviour("longrope_attention", "context-ratio", f"{_MLX}::SuScaledRoPE @ 0.32.2"),
            Behaviour("mrope_layout", "unused", f"{_MLX}::initialize_rope @ 0.32.2"),
            Behaviour(
                "partial_rotary",
                "full-head",
                "mlx_lm/models/glm.py::Attention (nn.RoPE(dims=self.head_dim)) @ 0.32.2",
                "ml-explore/mlx-lm#1698",
                ("glm",),
            ),
        ),
        tested="0.32.2",
    ),
    Profile(
        "llama.cpp",
        "llama.cpp",
        "0c1e5709 (October 2026)",
        _LLAMA_CPP,
        (
            Behaviour(
                "yarn_attention",
                "get-mscale",
                "src/llama-context.cpp::llama_context (yarn_attn_factor recomputed from the factor) "
                "@ 0c1e5709",
            ),
            Behaviour(
                "yarn_attention",
                "log-multiplier",
                "src/llama-context.cpp::llama_context (rope_yarn_log_mul, written by conversion/mistral.py) "
                "@ 0c1e5709",
                model_types=("mistral3", "ministral3"),
            ),
            Behaviour(
                "yarn_attention",
                "log-multiplier-deepseek",
                "src/llama-context.cpp::llama_context, src/models/deepseek2.cpp @ 0c1e5709",
                model_types=_DEEPSEEK,
            ),
            Behaviour("yarn_truncate", "always", "ggml/src/ggml.c::ggml_rope_yarn_corr_dims @ 0c1e5709"),
            Behaviour("angles", "recurrence", "ggml/src/ggml-cpu/ops.cpp::ggml_rope_cache_init @ 0c1e5709"),
            Behaviour(
                "mrope_layout",
                "leftover-still",
                "ggml/src/ggml-cpu/ops.cpp::ggml_mrope_cache_init (IMROPE), src/llama-graph.cpp::"
                "llm_graph_input_pos::set_input (the fourth row 0) @ 0c1e5709; read in the code, no report",
            ),
            Behaviour(
                "longrope_switch",
                "allocated-context",
                "src/llama-model.cpp::llama_model::get_rope_factors @ 0c1e5709",
                "ggml-org/llama.cpp#24823",
            ),
            Behaviour(
                "longrope_attention",
                "context-ratio",
                "conversion/phi.py::Phi3MiniModel.generate_extra_tensors @ 0c1e5709",
            ),
            Behaviour("dynamic", "plain", "conversion/base.py::TextModel.set_gguf_parameters @ 0c1e5709"),
        ),
    ),
    Profile(
        "llama.cpp-gemma3-2025",
        "llama.cpp",
        "mid-2025 builds",
        "the report's description",
        (
            Behaviour(
                "sliding_rope",
                "global",
                "src/llama-model.cpp (one freq_base and freq_scale for every layer, as described in #14367)",
                "ggml-org/llama.cpp#14367",
                ("gemma3", "gemma3_text"),
            ),
        ),
    ),
    Profile(
        "unsloth-longrope",
        "unsloth",
        "before #10681",
        "the report's description",
        (
            Behaviour(
                "longrope_switch",
                "sequence-inclusive",
                "unsloth/models/llama.py LongRoPE switch (seq_len < original → short)",
                "unslothai/unsloth#10681",
            ),
        ),
    ),
    Profile(
        "exllamav3-0.0.43",
        "exllamav3",
        "0.0.43 and before",
        "the report's description and util/rope.py after 78b319e",
        (
            Behaviour(
                "yarn_attention",
                "get-mscale",
                "exllamav3/util/rope.py (before 78b319e)",
                "turboderp-org/exllamav3#259",
            ),
        ),
    ),
    Profile(
        "ollama-mrope",
        "ollama",
        "before #12807 (October 2025)",
        "the report's description",
        (
            Behaviour(
                "mrope_layout",
                "blocked",
                "ollama's Qwen-VL rope (blocked sections only, as described in #12807)",
                "ollama/ollama#12807",
            ),
        ),
    ),
)

#: Every profile by its name.
BY_NAME = {profile.name: profile for profile in PROFILES}
#: The profile every other is compared with.
REFERENCE = BY_NAME["transformers-5"]

#: Model types that runtimes serve through code of their own for them, which no profile has read: DeepSeek
#: V4's compressed layers take YaRN frequencies with cos and sin left unscaled (its reference code;
#: transformers' class sets attention_factor 1.0), which a runtime's generic YaRN path would scale.
UNPROFILED = ("deepseek_v4",)


def profile_for(runtime: str, version: str) -> Profile:
    """The profile of `runtime` whose release range covers `version` (a LookupError when none does)."""
    for profile in PROFILES:
        if profile.runtime == runtime and profile.covers(version):
            return profile
    raise LookupError(f"no profile of {runtime} covers version {version}")


def numerics(profile: Profile) -> Numerics | None:
    """How `profile`'s runtime computes RoPE's numbers (`NUMERICS`), None for a runtime not read that far."""
    if profile.runtime == "transformers":
        return NUMERICS["transformers-5" if profile.covers("5.0") else "transformers-4"]
    return NUMERICS.get(profile.runtime)
