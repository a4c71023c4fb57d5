"""RoPE's positional rules as records: one record per rule, naming the config spellings that select it, the
keys it reads from its scaling block (each with the validator it must pass), which other keys it reads, its
attention factor, its battery label and its name in Hugging Face transformers.

A rule is the map θ_i = base^(−2i/d) ↦ θ'_i that `scaling.RopeScaling` computes under the record's `kind`,
plus the factor the reference multiplies cos and sin by. The config reader (`model_config`), the model
analysis (`model_setup`), the transformers cross-check and the `rope-frequencies` battery loop over
`RULES`; what a rule is lives here and nowhere else.

The keys' validators are named in `Key.check`: ``factor`` (a finite real ≥ 1), ``context`` (a positive
integer), ``positive`` (a finite real > 0), ``nonnegative`` (a finite real ≥ 0), ``flag`` (true or
false), ``pairs`` (one positive finite real per rotated pair) and ``sections`` (positive integers).
"""

from __future__ import annotations

from dataclasses import dataclass

#: The validators a key may name (see the module).
CHECKS = ("factor", "context", "positive", "nonnegative", "flag", "pairs", "sections")


@dataclass(frozen=True)
class Key:
    """A key of a rule's block: its name, its validator (`CHECKS`) and whether the rule needs it."""

    name: str
    check: str
    required: bool = False

    def __post_init__(self) -> None:
        if self.check not in CHECKS:
            raise ValueError(f"unknown validator {self.check!r} for key {self.name}")


@dataclass(frozen=True)
class RopeRule:
    """One positional rule of RoPE.

    `kind` is the `RopeScaling.kind` that computes its frequencies; `spellings` the values of ``rope_type``
    (or the older ``type``) that select it; `keys` what it reads from its block; `max_positions` when it reads
    ``max_position_embeddings`` (``never``, ``without-factor``: as the factor's numerator when the block has
    no factor, ``as-original``: as its original context L₀); `stretches` whether its factor extends the
    trained context to factor · L₀; `attention` the rule of its factor on cos and sin in words (empty when it
    has none; the value is `scaling.FORMS`' ``attention_mp``); `transformers` its key in transformers'
    ``ROPE_INIT_FUNCTIONS`` (None: the model's default computation); `battery` the variant the
    `rope-frequencies` battery names it by (None: the battery does not identify it); `factor_key` the key its
    factor is read from; `regimes` whether its pairs fall into kept, blended and interpolated regimes
    (`by-parts`), are all divided by the factor (`uniform`), or each rescaled otherwise (`rescaled`);
    `running_length` whether its frequencies depend on the running sequence length (`running` says how, with
    ``{original}`` for L₀); `reported` the `RopeScaling` fields a record of it shows besides its kind and
    factor; `whole_head` whether its exponents run over the whole head while only some pairs turn
    (proportional); `gguf` what llama.cpp's converter writes for it (vendor commit 0c1e5709,
    ``conversion/base.py::TextModel.set_gguf_parameters``): the ``{arch}.rope.scaling.type`` it writes
    (``linear``, ``yarn``, ``longrope``), ``""`` when it writes none and the loader's reading of none (linear
    with factor 1) is the rule (unscaled, and Llama 3, whose per-pair divisors go to the ``rope_freqs``
    tensor), None when the rule has no GGUF form and llama.cpp rotates unscaled (dynamic NTK: "handled in
    model class" for HunYuan only; static NTK; proportional); `gguf_tensors` the per-pair tensors the
    converter writes for it (``conversion/llama.py::LlamaModel.generate_extra_tensors``,
    ``conversion/phi.py::Phi3MiniModel.generate_extra_tensors``), read as divisors of the angle by
    ``ggml_rope_cache_init``.
    """

    kind: str
    spellings: tuple[str, ...]
    keys: tuple[Key, ...]
    description: str
    max_positions: str = "never"
    stretches: bool = False
    attention: str = ""
    transformers: str | None = None
    battery: str | None = None
    regimes: str = "uniform"
    running_length: bool = False
    legacy: tuple[str, ...] = ()
    factor_key: str = "factor"
    reported: tuple[str, ...] = ()
    whole_head: bool = False
    running: str = ""
    gguf: str | None = None
    gguf_tensors: tuple[str, ...] = ()

    @property
    def unscaled(self) -> bool:
        return self.regimes == "unscaled"

    @property
    def key_names(self) -> tuple[str, ...]:
        return tuple(key.name for key in self.keys)

    @property
    def needs_original_context(self) -> bool:
        return "original_max_position_embeddings" in self.key_names


_ORIGINAL = Key("original_max_position_embeddings", "context")

RULES: tuple[RopeRule, ...] = (
    RopeRule(
        "none",
        ("default", "mrope"),
        (),
        "unscaled: θ_i = base^(−2i/d)",
        battery="none",
        regimes="unscaled",
        gguf="",
    ),
    RopeRule(
        "linear",
        ("linear",),
        (Key("factor", "factor", True),),
        "position interpolation: θ'_i = θ_i/s",
        stretches=True,
        transformers="linear",
        battery="linear",
        gguf="linear",
    ),
    RopeRule(
        "dynamic-ntk",
        ("dynamic",),
        (Key("factor", "factor", True),),
        "dynamic NTK: base·s'^(d/(d−2)) with s' = s·L/L₀ − (s − 1) beyond L₀ = max_position_embeddings",
        max_positions="as-original",
        transformers="dynamic",
        battery="ntk",
        regimes="rescaled",
        running_length=True,
        running="dynamic NTK rescales the base with the running length",
        reported=("original_context",),
    ),
    RopeRule(
        "ntk",
        (),
        (Key("alpha", "factor", True),),
        "static NTK-aware: base·α^(d/(d−2)), chosen by a model type's own key (HunYuan's dynamic with alpha)",
        battery="ntk",
        regimes="rescaled",
        factor_key="alpha",
    ),
    RopeRule(
        "yarn",
        ("yarn",),
        (
            Key("factor", "factor"),
            _ORIGINAL,
            Key("beta_fast", "positive"),
            Key("beta_slow", "positive"),
            Key("mscale", "nonnegative"),
            Key("mscale_all_dim", "nonnegative"),
            Key("attention_factor", "positive"),
            Key("truncate", "flag"),
        ),
        "YaRN: NTK-by-parts between β_fast and β_slow turns over L₀, and an attention factor",
        max_positions="without-factor",
        stretches=True,
        attention="YaRN's 0.1·ln s + 1",
        transformers="yarn",
        battery="yarn",
        regimes="by-parts",
        reported=("original_context", "beta_fast", "beta_slow", "truncate", "ramp"),
        gguf="yarn",
    ),
    RopeRule(
        "llama3",
        ("llama3",),
        (
            Key("factor", "factor", True),
            Key("low_freq_factor", "positive", True),
            Key("high_freq_factor", "positive", True),
            _ORIGINAL,
        ),
        "Llama 3: keep wavelengths below L₀/high, divide those above L₀/low by s, blend between",
        stretches=True,
        transformers="llama3",
        battery="llama3",
        regimes="by-parts",
        reported=("original_context", "low_freq_factor", "high_freq_factor"),
        gguf="",
        gguf_tensors=("rope_freqs",),
    ),
    RopeRule(
        "longrope",
        ("longrope", "su"),
        (
            Key("factor", "factor"),
            Key("short_factor", "pairs", True),
            Key("long_factor", "pairs", True),
            _ORIGINAL,
            Key("attention_factor", "positive"),
        ),
        "LongRoPE: each pair divided by its own factor, long_factor beyond L₀, short_factor within",
        max_positions="without-factor",
        stretches=True,
        attention="LongRoPE's √(1 + ln s/ln L₀)",
        transformers="longrope",
        battery="longrope",
        regimes="rescaled",
        running_length=True,
        running="LongRoPE takes long_factor for sequences beyond {original} tokens",
        legacy=("su",),
        reported=("original_context", "short_factor", "long_factor"),
        gguf="longrope",
        gguf_tensors=("rope_factors_long", "rope_factors_short"),
    ),
    RopeRule(
        "proportional",
        ("proportional",),
        (Key("factor", "factor"),),
        "proportional: the first ⌊p·h/2⌋ pairs turn at base^(−2i/h)/s over the whole head h, the rest do not",
        transformers="proportional",
        regimes="uniform",
        whole_head=True,
        reported=("head_width",),
    ),
)

#: Every rule by the spellings that select it.
BY_SPELLING = {spelling: rule for rule in RULES for spelling in rule.spellings}
#: Every rule by its `kind`.
BY_KIND = {rule.kind: rule for rule in RULES}
#: Keys any block may hold besides its rule's: the base, the rotated fraction, the type, M-RoPE's sections.
COMMON_KEYS = (
    Key("rope_theta", "positive"),
    Key("partial_rotary_factor", "positive"),
    Key("mrope_section", "sections"),
    Key("mrope_interleaved", "flag"),
)


def battery_variants() -> tuple[str, ...]:
    """The variants the `rope-frequencies` battery names, in rule order."""
    return tuple(dict.fromkeys(rule.battery for rule in RULES if rule.battery))
