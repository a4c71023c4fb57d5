"""A model's positional setup read from its Hugging Face ``config.json``, layer group by layer group: which
layers rotate queries and keys (RoPE, with each group's own base, scaling, rotated dims and pairing layout),
which carry no positional encoding (NoPE layers, and layers without attention positions: linear attention,
state-space layers), which use ALiBi, a learned table or T5's relative buckets, and the window each group
attends in (the full context, a sliding window, fixed chunks).

`read_config(config)` reads a parsed config (a dict) into a `ModelSetup` the way Hugging Face transformers'
configuration classes, ``modeling_rope_utils.py`` and modeling code read it:

* a text model nested under ``text_config`` (or ``llm_config``, ``language_config``) is read there, with
  the top level's dtype when the nested block has none;
* the layers' types are ``layer_types``, else what transformers derives for the model type
  (`layer_schedule.Architecture`: ``sliding_window_pattern``, Qwen's ``max_window_layers``, …); which
  layers rotate follows ``no_rope_layers`` / ``no_rope_layer_interval`` and the model type's rule;
* RoPE's base is ``rope_theta`` (GPT-NeoX: ``rotary_emb_base``; transformers 5: ``rope_parameters``,
  possibly one block per layer type; Gemma 3: ``rope_local_base_freq`` on sliding layers), 10000 when
  absent; its rule is the record (`rope_rules.RULES`) its ``rope_type`` (or the older ``type``) selects,
  each reading its own keys;
* the head dimension is ``head_dim``, else ``hidden_size / num_attention_heads``; DeepSeek's rotated part is
  ``qk_rope_head_dim`` of a ``qk_nope_head_dim + qk_rope_head_dim`` head; ``partial_rotary_factor``
  (GPT-NeoX: ``rotary_pct``) rotates int(head_dim · fraction) dims, as transformers computes it;
* the contexts: ``max_position_embeddings`` (GPT-2: ``n_positions``; MPT: ``max_seq_len``) and the
  pretraining context ``original_max_position_embeddings``;
* the dtype: ``torch_dtype`` or transformers 5's ``dtype``.

Every key read is recorded in `ModelSetup.used`, the rest in `ignored`. A key whose value cannot be used
(a negative ``rope_theta``, a ``factor`` below 1, two keys that contradict each other) becomes a `Problem`
naming it, and the setup keeps every part that does not need it; `notes` are findings about the keys
themselves (a default taken, an assumption made, a key that looks like a misspelt one), each with its
severity.
"""

from __future__ import annotations

import difflib
import json
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources

from . import layer_schedule
from .layer_schedule import Architecture
from .rope_rules import BY_KIND, BY_SPELLING, COMMON_KEYS, RULES, Key, RopeRule
from .scaling import RopeScaling

#: Keys that only RoPE reads.
ROPE_KEYS = ("rope_theta", "rope_scaling", "rope_parameters", "rotary_emb_base", "rotary_pct")
#: Where multimodal and wrapper configs nest their text model.
NESTED = ("text_config", "llm_config", "language_config")
#: The widest attention head read (real models' heads have 64 to 512 dims).
MAX_HEAD_DIM = 4096
#: The most attention heads read (real models have at most a few hundred).
MAX_HEADS = 4096
#: The most layers read.
MAX_LAYERS = 4096
#: transformers' default base when a config names none.
DEFAULT_BASE = 10000.0
#: Storage dtypes the analysis knows, by the names configs use.
DTYPE_NAMES = {"bfloat16": "bfloat16", "float16": "float16", "float32": "float32", "half": "float16"}
#: The severities of a finding: the model misbehaves as configured; a version or runtime reads it
#: differently; a property worth knowing or a hazard for code that departs from the reference.
SEVERITIES = ("error", "warning", "note")
#: Keys a typo check compares unknown keys against (besides every rule's and the layer records' keys).
KNOWN_KEYS = frozenset(
    {
        *ROPE_KEYS,
        "partial_rotary_factor",
        "max_position_embeddings",
        "original_max_position_embeddings",
        "head_dim",
        "num_attention_heads",
        "hidden_size",
        "num_hidden_layers",
        "layer_types",
        "sliding_window",
        "sliding_window_pattern",
        "rope_local_base_freq",
        "no_rope_layers",
        "no_rope_layer_interval",
        "attention_chunk_size",
        "attn_temperature_tuning",
        "floor_scale",
        "attn_scale",
        "llama_4_scaling_beta",
        "use_sliding_window",
        "max_window_layers",
        "qk_rope_head_dim",
        "qk_nope_head_dim",
        "torch_dtype",
        "dtype",
        "model_type",
        "text_config",
        "global_head_dim",
        "relative_attention_num_buckets",
        "relative_attention_max_distance",
        "position_embedding_type",
    }
)


#: Keys transformers reads for other purposes that lie close to a positional key's spelling.
OTHER_KEYS = frozenset(
    {"v_head_dim", "num_key_value_heads", "kv_lora_rank", "q_lora_rank", "attn_logit_softcapping"}
)


@dataclass(frozen=True)
class Problem:
    """A key whose value cannot be used, and why (one line)."""

    key: str
    message: str

    def __str__(self) -> str:
        return f"config key {self.key}: {self.message}"


@dataclass(frozen=True)
class Note:
    """A finding about the keys themselves: a fixed `label`, a one-line message and its severity."""

    label: str
    message: str
    severity: str = "note"
    concerns: str = "the config's keys"

    def __post_init__(self) -> None:
        require_severity(self.severity)


def require_severity(severity: str) -> str:
    """`severity` when it is one of `SEVERITIES`, else a ValueError."""
    if severity not in SEVERITIES:
        raise ValueError(f"severity must be one of {', '.join(SEVERITIES)}, got {severity!r}")
    return severity


@dataclass
class PositionalSetup:
    """One layer group's positional rule.

    `scheme` is ``rope``, ``nope`` (attention without positions), ``none`` (no attention positions: linear
    attention or state-space layers), ``alibi``, ``learned``, ``relative`` or ``unknown``. For RoPE: `base`,
    `head_dim` (the width of the rotated head: DeepSeek's ``qk_rope_head_dim``), `qk_head_dim` (the whole
    query/key head when wider), `rotary_dim` (the rotated dims), `scaling` (a `RopeScaling`, kind ``none``
    when unscaled), `rule` (its `RopeRule`), `rope_type` as written, `mscale` and `mscale_all_dim`
    (DeepSeek's YaRN variant), `attention_factor` (an explicit value from the config), `layout` (``half`` or
    ``interleaved`` pairs), `mrope_section` (M-RoPE's temporal, height and width sections, in pairs).
    `max_positions` is ``max_position_embeddings``, `original_context` the original context a scaling
    block states, `trained_context` the context the model was pretrained at (`ModelSetup.trained_context`).
    `heads` is ALiBi's head count, `buckets` T5's (number, max distance). Fields stay None where the config
    lacks them or holds an unusable value (then `problems` says which key).
    """

    model_type: str | None = None
    scheme: str = "unknown"
    base: float | None = None
    head_dim: int | None = None
    qk_head_dim: int | None = None
    rotary_dim: int | None = None
    rotary_fraction: float = 1.0
    scaling: RopeScaling | None = None
    rule: RopeRule | None = None
    rope_type: str | None = None
    mscale: float | None = None
    mscale_all_dim: float | None = None
    attention_factor: float | None = None
    layout: str = "half"
    mrope_section: tuple[int, ...] | None = None
    mrope_interleaved: bool = False
    max_positions: int | None = None
    original_context: int | None = None
    dtype: str | None = None
    heads: int | None = None
    buckets: tuple[int, int] | None = None
    defaults: dict[str, object] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    trained_context: int | None = None


@dataclass
class LayerGroup:
    """Layers that share one positional rule and one attention window: `layer_type` as transformers names
    it, `layers` (0-based), `position`, `window` (a sliding window of W tokens, the query's own included;
    `bidirectional`: W/2 on either side, as an encoder's),
    `chunk` (attention within fixed chunks of C tokens), `query_scaling` (a position-dependent scale of the
    queries: its rule and parameters)."""

    layer_type: str
    layers: tuple[int, ...]
    position: PositionalSetup
    window: int | None = None
    chunk: int | None = None
    query_scaling: dict[str, object] | None = None
    bidirectional: bool = False

    @property
    def reach(self) -> int | None:
        """How many offsets 0, 1, … a query sees: W for a causal sliding window (keys i − W < j ≤ i),
        h + 1 for a bidirectional one of |i − j| ≤ h = W/2, C in chunks, else None (all)."""
        if self.window is not None:
            return self.window // 2 + 1 if self.bidirectional else self.window
        return self.chunk


@dataclass
class ModelSetup:
    """What a config says about positions, per layer group (see the module)."""

    model_type: str | None = None
    nested: str | None = None
    layers: int | None = None
    groups: list[LayerGroup] = field(default_factory=list)
    max_positions: int | None = None
    dtype: str | None = None
    used: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    defaults: dict[str, object] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    @property
    def trained_context(self) -> int | None:
        """The context the model was pretrained at: the original context its scaling blocks state (when they
        agree); else ``max_position_embeddings``, unless a scaling that stretches the context leaves it
        unstated (None)."""
        rules = [
            g.position for g in self.groups if g.position.scheme == "rope" and g.position.rule is not None
        ]
        stated = {p.original_context for p in rules if p.original_context is not None and not p.rule.unscaled}
        if len(stated) == 1:
            return stated.pop()
        if stated or any(p.rule.stretches for p in rules):
            return None
        return self.max_positions

    @property
    def scheme(self) -> str:
        """The schemes of the groups, joined by "+" in first-seen order (``rope``, ``rope+nope``, …)."""
        return "+".join(dict.fromkeys(group.position.scheme for group in self.groups)) or "unknown"


class ConfigError(ValueError):
    """A config that cannot be read at all (not a JSON object)."""


class _Reader:
    """Reads keys of one config, recording each key path it touches (under `prefix`, the nested block)."""

    def __init__(self, config: Mapping[str, object], model: ModelSetup, prefix: str = "") -> None:
        self.config = config
        self.model = model
        self.prefix = prefix
        self.touched: set[str] = set()
        self.group: PositionalSetup | None = None
        self.architecture = layer_schedule.DEFAULT

    def _named(self, key: str) -> str:
        """The name the config gives `key`: the key itself, or an alias of it the config holds."""
        if key in self.config:
            return key
        aliases = {**layer_schedule.COMMON_ALIASES, **self.architecture.aliases}
        return next(
            (name for name, canonical in aliases.items() if canonical == key and name in self.config), key
        )

    def has(self, key: str) -> bool:
        """Whether the config sets `key` or an alias of it (to anything but null), or leaves it out and its
        class gives it a default (a key set to null stays unset, as transformers reads it)."""
        named = self._named(key)
        if named in self.config:
            return self.config[named] is not None
        return self._default(key) is not None

    def raw(self, key: str, block: Mapping[str, object] | None = None, prefix: str = "") -> object:
        source = self.config if block is None else block
        if block is None:
            key = self._named(key)
        self.touched.add(self.prefix + prefix + key)
        value = source.get(key)
        if block is None and key not in source:
            value = self._default(key)
            if value is not None:
                self.model.defaults[self.prefix + key] = value
        return value

    def _default(self, key: str) -> object:
        """The configuration class's value for a key the config leaves out (transformers 5's, when 4.57's
        differs: a warning says so)."""
        if key in self.architecture.disputed:
            old, new = self.architecture.disputed[key]
            self.note(
                "default-differs-by-version",
                f"the config sets no {key}: transformers 5 takes {new:g}, 4.57 took {old:g}; answered with "
                f"{new:g}",
                "warning",
                "transformers 4.57 against 5",
            )
            return new
        return self.architecture.defaults.get(key)

    def problem(self, key: str, message: str) -> None:
        found = Problem(self.prefix + key, message)
        if found not in self.model.problems:
            self.model.problems.append(found)
        if self.group is not None:
            self.group.problems.append(found)

    def note(
        self, label: str, message: str, severity: str = "note", concerns: str = "the config's keys"
    ) -> None:
        found = Note(label, message, severity, concerns)
        target = self.group.notes if self.group is not None else self.model.notes
        if found not in target and found not in self.model.notes:
            target.append(found)

    def positive_int(
        self, key: str, block: Mapping[str, object] | None = None, prefix: str = "", limit: int | None = None
    ) -> int | None:
        value = self.raw(key, block, prefix)
        if value is None:
            return None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
            self.problem(prefix + key, f"must be a positive integer, got {_shown(value)}")
            return None
        if limit is not None and value > limit:
            self.problem(prefix + key, f"{_shown(value)} is beyond the {limit} this reads")
            return None
        return int(value)

    def real(
        self,
        key: str,
        low: float,
        block: Mapping[str, object] | None = None,
        prefix: str = "",
        *,
        strict: bool = True,
    ) -> float | None:
        """A finite real above `low` (at least `low` unless `strict`), else None with a problem."""
        value = self.raw(key, block, prefix)
        if value is None:
            return None
        number = _finite(value)
        if number is None or number < low or (strict and number == low):
            relation = "greater than" if strict else "at least"
            self.problem(
                prefix + key, f"must be a finite real number {relation} {low:g}, got {_shown(value)}"
            )
            return None
        return number

    def flag(self, key: str, block: Mapping[str, object] | None = None, prefix: str = "") -> bool | None:
        value = self.raw(key, block, prefix)
        if value is None or isinstance(value, bool):
            return value
        self.problem(prefix + key, f"must be true or false, got {_shown(value)}")
        return None

    def checked(self, spec: Key, block: Mapping[str, object], prefix: str) -> object:
        """The value of a rule's key after its validator (`rope_rules.CHECKS`), None with a problem."""
        check = spec.check
        if check == "factor":
            return self.real(spec.name, 1.0, block, prefix, strict=False)
        if check == "context":
            return self.positive_int(spec.name, block, prefix)
        if check in ("positive", "nonnegative"):
            return self.real(spec.name, 0.0, block, prefix, strict=check == "positive")
        if check == "flag":
            return self.flag(spec.name, block, prefix)
        value = self.raw(spec.name, block, prefix)
        items = value if isinstance(value, list) else None
        if check == "sections":
            if items is None or not items or not all(_whole(v) for v in items):
                self.problem(prefix + spec.name, f"must be a list of positive integers, got {_shown(value)}")
                return None
            return tuple(int(v) for v in items)
        if items is None or not items or not all(_finite(v) is not None and _finite(v) > 0 for v in items):
            self.problem(prefix + spec.name, "must be a list of positive real numbers, one per rotated pair")
            return None
        return tuple(float(v) for v in items)


def _finite(value: object) -> float | None:
    """`value` as a finite float when it is a JSON number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _whole(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value > 0


def _shown(value: object) -> str:
    try:
        text = repr(value)
    except ValueError:  # an integer beyond Python's digit limit for str()
        return "an integer of more than 4300 digits"
    return text if len(text) <= 60 else text[:57] + "…"


# ------------------------------------------------------------------------------------------------ reading


def read_config(config: object) -> ModelSetup:
    """The positional setup of a parsed config (see the module); a ConfigError unless it is a JSON object."""
    if not isinstance(config, Mapping):
        raise ConfigError(f"a config must be a JSON object, got {type(config).__name__}")
    model = ModelSetup()
    text, nested = text_model(config)
    reader = _Reader(text, model, f"{nested}." if nested else "")
    outer = _Reader(config, model)
    model.nested = nested
    model_type = reader.raw("model_type")
    if not isinstance(model_type, str) and nested:
        model_type = outer.raw("model_type")
    model.model_type = model_type if isinstance(model_type, str) else None
    reader.architecture = layer_schedule.architecture(model.model_type)
    if nested:
        outer.touched.add("model_type")
    model.dtype = _dtype(reader) or (_dtype(outer) if nested else None)
    if nested:
        where = "the top level" if model.dtype and not _dtype_key(text) else nested
        reader.note(
            "nested-config",
            f"the text model is read from {nested} (model_type {model.model_type!r}); its dtype from {where}",
        )
    _read_groups(reader, model)
    touched = reader.touched | outer.touched
    paths = _key_paths(config)
    model.used = sorted(touched & paths)
    model.ignored = sorted(paths - touched - _parents(touched))
    _typos(reader, model, config, text, nested)
    for key in model.ignored:
        parts = key.split(".")
        if (len(parts) >= 2 and parts[-2] in ("rope_scaling", "rope_parameters")) or (
            len(parts) >= 3 and parts[-3] == "rope_parameters"
        ):
            reader.note("ignored-key", f"{key} is not a parameter the rule of its block reads")
    return model


def text_model(config: Mapping[str, object]) -> tuple[Mapping[str, object], str | None]:
    """The text model's block and its key (None: the config itself)."""
    for key in NESTED:
        inner = config.get(key)
        if isinstance(inner, Mapping) and inner:
            return inner, key
    return config, None


def _key_paths(config: Mapping[str, object], prefix: str = "", depth: int = 0) -> set[str]:
    """Every top-level key, and the keys of the blocks that hold positional parameters (nested text
    models and per-layer-type rope blocks included)."""
    paths = {prefix + key for key in config}
    if depth > 2:
        return paths
    for key in (*NESTED, "rope_scaling", "rope_parameters", "attn_config"):
        inner = config.get(key)
        if isinstance(inner, Mapping):
            paths |= _key_paths(inner, f"{prefix}{key}.", depth + 1)
    if prefix.endswith("rope_parameters."):
        for key, inner in config.items():
            if isinstance(inner, Mapping):
                paths |= {f"{prefix}{key}.{name}" for name in inner}
    return paths


def _parents(touched: set[str]) -> set[str]:
    return {key.rsplit(".", depth)[0] for key in touched for depth in (1, 2, 3) if key.count(".") >= depth}


def _typos(reader: _Reader, model: ModelSetup, config: Mapping, text: Mapping, nested: str | None) -> None:
    """A `possible-typo` warning for every ignored key close to a positional key the config lacks."""
    known = set(KNOWN_KEYS) | {key.name for rule in RULES for key in (*rule.keys, *COMMON_KEYS)}
    for path in model.ignored:
        key = path.rsplit(".", 1)[-1]
        if key in known or key in OTHER_KEYS:
            continue
        block = text if nested and path.startswith(nested + ".") and path.count(".") == 1 else None
        close = [
            match
            for match in difflib.get_close_matches(key, sorted(known), n=3, cutoff=0.9)
            if block is None or match not in block
        ]
        if close and (block is not None or path.count(".") or config.get(close[0]) is None):
            reader.note(
                "possible-typo",
                f"{path} is no key transformers reads; did you mean {close[0]}? As written it is ignored, "
                f"and the model reads as if {close[0]} were absent",
                "warning",
            )


def _dtype_key(config: Mapping[str, object]) -> bool:
    return any(config.get(key) is not None for key in ("torch_dtype", "dtype"))


def _dtype(reader: _Reader) -> str | None:
    for key in ("torch_dtype", "dtype"):
        value = reader.raw(key)
        if value is None:
            continue
        if isinstance(value, str) and value.removeprefix("torch.") in DTYPE_NAMES:
            return DTYPE_NAMES[value.removeprefix("torch.")]
        reader.problem(key, f"must be one of {', '.join(DTYPE_NAMES)}, got {_shown(value)}")
    return None


def _scheme(reader: _Reader, arch: Architecture, model_type: str | None) -> str:
    if arch.scheme_rule is not None:
        reader.touched |= {reader.prefix + key for key in arch.scheme_keys}
        return arch.scheme_rule(reader.config)
    if layer_schedule.known_scheme(model_type):
        return arch.scheme
    if reader.raw("position_embedding_type") == "relative_key" or reader.has(
        "relative_attention_num_buckets"
    ):
        return "relative"
    if model_type in ROPE_MODEL_TYPES or any(reader.has(key) for key in ROPE_KEYS):
        return "rope"
    return "unknown"


#: Model types that rotate queries and keys without naming any RoPE key (their classes' defaults).
ROPE_MODEL_TYPES = frozenset(
    {
        "llama",
        "mistral",
        "mixtral",
        "ministral",
        "qwen2",
        "qwen2_moe",
        "qwen3",
        "qwen3_moe",
        "deepseek_v2",
        "deepseek_v3",
        "phi",
        "phi3",
        "gpt_neox",
        "falcon",
        "gemma",
        "olmo",
        "olmo2",
        "olmo3",
        "stablelm",
        "starcoder2",
        "cohere",
        "granite",
        "gptj",
        "minicpm",
        "internlm2",
        "phi3_v",
    }
)


#: Layers laid out to find a pattern's layer types when the count is not stated (a multiple of 2, 3, 4, 6).
PATTERN_SPAN = 12


def _layer_count(reader: _Reader) -> int | None:
    return (
        reader.positive_int("num_hidden_layers", limit=MAX_LAYERS)
        if reader.has("num_hidden_layers")
        else None
    )


def _mtp_layers(reader: _Reader) -> int:
    """The multi-token prediction layers a config declares beside its decoder layers (0 when none)."""
    for key in ("num_nextn_predict_layers", "_num_mtp_layers"):
        value = reader.config.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            reader.touched.add(reader.prefix + key)
            return value
    return 0


def _layer_types(reader: _Reader, arch: Architecture, layers: int | None) -> list[str] | None:
    """Each layer's type: ``layer_types`` when given (its length the layer count), else derived."""
    if reader.has("layer_types"):
        value = reader.raw("layer_types")
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            reader.problem("layer_types", f"must be a list of layer type names, got {_shown(value)}")
            return None
        extra = _mtp_layers(reader)
        if layers is not None and extra and len(value) == layers + extra:
            reader.note(
                "mtp-layer-types",
                f"layer_types lists {len(value)} entries for {layers} layers and {extra} multi-token "
                f"prediction layer(s): the first {layers} are read; transformers 5.25 refuses such a config "
                "(its validator wants as many layer_types as num_hidden_layers)",
                "warning",
            )
            return list(value[:layers])
        if layers is not None and len(value) != layers:
            reader.problem("layer_types", f"lists {len(value)} layers; num_hidden_layers is {layers}")
            return None
        return list(value)
    if layers is None:
        return None
    for key in (
        "sliding_window_pattern",
        "use_sliding_window",
        "max_window_layers",
        "full_attention_interval",
    ):
        if reader.has(key):
            reader.touched.add(reader.prefix + key)
    if arch.pattern is not None:
        reader.touched.add(reader.prefix + arch.pattern[0])
    return arch.derived_layer_types(reader.config, layers)


def _rotating(reader: _Reader, arch: Architecture, types: list[str], layers: int) -> list[bool] | None:
    """Whether each layer applies RoPE, by the model type's rule."""
    if arch.rope_layers.startswith("no_rope_layers"):
        flags = reader.raw("no_rope_layers") if reader.has("no_rope_layers") else None
        if flags == [] and arch.rope_layers == "no_rope_layers-or-interval":
            reader.note(
                "empty-flags", "no_rope_layers is empty: its class derives it from no_rope_layer_interval"
            )
            flags = None
        if flags is not None:
            if (
                not isinstance(flags, list)
                or len(flags) != layers
                or not all(v in (0, 1) and not isinstance(v, float) for v in flags)
            ):
                reader.problem("no_rope_layers", f"must be {layers} flags of 0 or 1 (1: the layer rotates)")
                return None
            return [bool(v) for v in flags]
        interval = (
            reader.positive_int("no_rope_layer_interval") if reader.has("no_rope_layer_interval") else 4
        )
        if interval is None:
            return None
        return [(i + 1) % interval != 0 for i in range(layers)]
    if arch.rope_layers == "sliding" or (
        arch.rope_layers == "sliding-if-windowed" and reader.has("sliding_window")
    ):
        return [kind in layer_schedule.SLIDING_TYPES for kind in types]
    if arch.rope_layers == "rope-embedding-type":
        return [reader.raw("position_embedding_type") == "rope"] * layers
    if arch.rope_layers == "none":
        return [False] * layers
    return [True] * layers


def _read_groups(reader: _Reader, model: ModelSetup) -> None:
    arch = layer_schedule.architecture(model.model_type)
    scheme = _scheme(reader, arch, model.model_type)
    model.max_positions = _context(reader, model, scheme)
    layers = _layer_count(reader)
    model.layers = layers
    listed = scheme == "rope" and reader.has("layer_types")
    types = (
        _layer_types(reader, arch, layers or (None if listed else PATTERN_SPAN)) if scheme == "rope" else None
    )
    if types is None:
        types = ["full_attention"] * (layers or 1)
    if layers is None and not listed and len(set(types)) > 1:
        reader.note(
            "layer-count-unknown",
            "the config states no num_hidden_layers: the layer types its pattern gives are answered, "
            "but not which layers hold them",
        )
    rotating = _rotating(reader, arch, types, len(types)) if scheme == "rope" and types else None
    if rotating is None:
        rotating = [scheme == "rope"] * len(types)
    if arch.chunk_key and scheme == "rope" and not reader.has("layer_types"):
        chunk = reader.config.get(arch.chunk_key, 8192)
        if chunk is not None:
            types = [
                "chunked_attention" if rotate else kind for kind, rotate in zip(types, rotating, strict=True)
            ]
    keys: dict[tuple[str, bool], list[int]] = {}
    for i, (kind, rotate) in enumerate(zip(types, rotating, strict=True)):
        keys.setdefault((kind, rotate), []).append(i)
    if not keys:
        keys[("full_attention", scheme == "rope")] = []
    for (kind, rotate), indices in keys.items():
        if layers is None and not listed:
            indices = []  # the layers of each type are not known
        position = PositionalSetup(
            model_type=model.model_type, dtype=model.dtype, max_positions=model.max_positions
        )
        reader.group = position
        group = LayerGroup(kind, tuple(indices), position)
        if kind in layer_schedule.NO_POSITION_TYPES:
            position.scheme = "none"
        elif scheme == "rope" and not rotate:
            position.scheme = "nope"
        else:
            position.scheme = scheme
            _read_scheme(reader, model, position, arch, kind)
        _window(reader, arch, group)
        _query_scaling(reader, arch, group)
        model.groups.append(group)
        reader.group = None
    for group in model.groups:
        group.position.trained_context = model.trained_context
    if scheme == "unknown":
        reader.note(
            "unknown-scheme",
            f"model_type {model.model_type!r} names no positional scheme the suite knows and the config has "
            "no RoPE key",
        )
    if not any(group.position.scheme == "rope" for group in model.groups):
        for key in ROPE_KEYS:
            if reader.config.get(key) is not None:
                reader.note("ignored-key", f"{key} is set but no layer of this model rotates")


def _context(reader: _Reader, model: ModelSetup, scheme: str) -> int | None:
    if not reader.has("max_position_embeddings"):
        return None
    stated = (
        "max_position_embeddings" in reader.config
        or reader._named("max_position_embeddings") in reader.config
    )
    context = reader.positive_int("max_position_embeddings")
    if not stated and context is not None:
        reader.note("default-context", f"no max_position_embeddings: transformers' default {context} is used")
    return context


def _window(reader: _Reader, arch: Architecture, group: LayerGroup) -> None:
    if (
        group.layer_type in layer_schedule.SLIDING_TYPES
        and arch.window_plus_one
        and reader.has(arch.window_plus_one)
    ):
        keys = reader.positive_int(arch.window_plus_one)
        group.window = None if keys is None else keys + 1
    elif group.layer_type in layer_schedule.SLIDING_TYPES:
        group.window = reader.positive_int(arch.window_key) if reader.has(arch.window_key) else None
        group.bidirectional = arch.bidirectional
        if group.window is None and not reader.has(arch.window_key):
            reader.problem(arch.window_key, f"{group.layer_type} layers need their window size")
    elif group.layer_type in layer_schedule.CHUNKED_TYPES:
        key = arch.chunk_key or "attention_chunk_size"
        group.chunk = reader.positive_int(key) if reader.has(key) else None
        if group.chunk is None and not reader.has(key):
            reader.problem(key, "chunked_attention layers need their chunk size")


def _query_scaling(reader: _Reader, arch: Architecture, group: LayerGroup) -> None:
    """Llama 4's attention temperature on its NoPE layers, Ministral 3's position-dependent query scale."""
    if arch.temperature and group.position.scheme == "nope":
        tuning = reader.flag("attn_temperature_tuning")
        if tuning is None or tuning:
            floor = reader.real("floor_scale", 0.0) if reader.has("floor_scale") else 8192.0
            scale = reader.real("attn_scale", 0.0) if reader.has("attn_scale") else 0.1
            if floor is not None and scale is not None:
                group.query_scaling = {
                    "rule": "q · (log(⌊(p + 1)/floor_scale⌋ + 1) · attn_scale + 1)",
                    "floor_scale": floor,
                    "attn_scale": scale,
                }
    if arch.beta and group.position.scheme == "rope":
        block, prefix = _block_for(reader, group.position, group.layer_type)
        source = block if block is not None and block.get(arch.beta) is not None else None
        if source is not None or reader.has(arch.beta):
            beta = reader.real(arch.beta, 0.0, source, prefix if source is not None else "", strict=False)
            original = group.position.original_context or group.position.max_positions
            if beta is not None and beta > 0 and original:
                group.query_scaling = {
                    "rule": "q · (1 + beta · log(1 + ⌊p / L₀⌋))",
                    "beta": beta,
                    "original_context": original,
                }


def _read_scheme(
    reader: _Reader, model: ModelSetup, setup: PositionalSetup, arch: Architecture, layer_type: str
) -> None:
    if setup.scheme == "rope":
        _read_rope(reader, model, setup, arch, layer_type)
    elif setup.scheme == "alibi":
        setup.heads = (
            reader.positive_int("num_attention_heads", limit=MAX_HEADS)
            if reader.has("num_attention_heads")
            else None
        )
        if setup.heads is None and not reader.has("num_attention_heads"):
            reader.problem(
                "num_attention_heads", "ALiBi needs the head count (n_head or num_attention_heads)"
            )
    elif setup.scheme == "learned":
        if setup.max_positions is None:
            reader.problem("max_position_embeddings", "a learned table needs its size (n_positions)")
        kind = reader.raw("position_embedding_type")
        if kind not in (None, "absolute"):
            reader.note(
                "unknown-scheme", f"position_embedding_type {kind!r}: only the absolute table is known"
            )
    elif setup.scheme == "relative":
        buckets = (
            reader.positive_int("relative_attention_num_buckets")
            if reader.has("relative_attention_num_buckets")
            else 32
        )
        distance = (
            reader.positive_int("relative_attention_max_distance")
            if reader.has("relative_attention_max_distance")
            else 128
        )
        if buckets is not None and distance is not None:
            setup.buckets = (buckets, distance)


def _heads_and_width(reader: _Reader) -> tuple[int | None, int | None]:
    heads = (
        reader.positive_int("num_attention_heads", limit=MAX_HEADS)
        if reader.has("num_attention_heads")
        else None
    )
    width = reader.positive_int("hidden_size") if reader.has("hidden_size") else None
    return heads, width


def _read_head_dim(reader: _Reader, setup: PositionalSetup, arch: Architecture, layer_type: str) -> None:
    if reader.has("qk_rope_head_dim"):
        setup.head_dim = reader.positive_int("qk_rope_head_dim", limit=MAX_HEAD_DIM)
        nope = (
            reader.positive_int("qk_nope_head_dim", limit=MAX_HEAD_DIM)
            if reader.has("qk_nope_head_dim")
            else 0
        )
        if setup.head_dim is not None and nope is not None:
            setup.qk_head_dim = setup.head_dim + nope
            if arch.rotated_head == "qk":
                setup.head_dim = setup.qk_head_dim
            elif arch.rotated_head == "head_dim" and reader.has("head_dim"):
                setup.head_dim = setup.qk_head_dim = reader.positive_int("head_dim", limit=MAX_HEAD_DIM)
        return
    if arch.head_dim_key and layer_type == "full_attention" and reader.has(arch.head_dim_key):
        setup.head_dim = reader.positive_int(arch.head_dim_key, limit=MAX_HEAD_DIM)
        return
    if reader.has("head_dim"):
        setup.head_dim = reader.positive_int("head_dim", limit=MAX_HEAD_DIM)
        return
    heads, width = _heads_and_width(reader)
    if heads is None or width is None:
        if not reader.model.problems:
            reader.problem("head_dim", "give head_dim, or hidden_size and num_attention_heads")
        return
    if width % heads:
        reader.problem("hidden_size", f"hidden_size {width} is not a multiple of num_attention_heads {heads}")
        return
    if width // heads > MAX_HEAD_DIM:
        reader.problem("head_dim", f"a head of {width // heads} dims is beyond the {MAX_HEAD_DIM} this reads")
        return
    setup.head_dim = width // heads


def _block_for(
    reader: _Reader, setup: PositionalSetup, layer_type: str
) -> tuple[Mapping[str, object] | None, str]:
    """The scaling block of a layer type: ``rope_parameters`` (transformers 5; one block per layer type or
    one for all) or ``rope_scaling``, and its key prefix. Blocks are per layer type when any value is an
    object and the whole names no rope_type: a plain value beside them (Laguna-XS.2's
    ``original_max_position_embeddings``) is read by no layer, as transformers' rotary modules read only
    ``rope_parameters[layer_type]``."""
    for key in ("rope_parameters", "rope_scaling"):
        value = reader.config.get(key)
        if value is None:
            value = reader.architecture.defaults.get(key)
        if not isinstance(value, Mapping) or not value:
            continue
        blocks = {name: inner for name, inner in value.items() if isinstance(inner, Mapping)}
        if blocks and not {"rope_type", "type"} & set(value):
            if layer_type in blocks:
                return blocks[layer_type], f"{key}.{layer_type}."
            chosen = "full_attention" if "full_attention" in blocks else sorted(blocks)[0]
            return blocks[chosen], f"{key}.{chosen}."
        return value, f"{key}."
    return None, ""


def _scaling_block(
    reader: _Reader, setup: PositionalSetup, arch: Architecture, layer_type: str
) -> tuple[Mapping[str, object] | None, str]:
    """The block of a group (see `_block_for`); both ``rope_parameters`` and ``rope_scaling`` set and
    different is a problem (the first is used); a local layer of a config with a local base and no
    per-layer-type blocks reads no block (Gemma 3: its sliding layers are unscaled)."""
    found = []
    for key in ("rope_parameters", "rope_scaling"):
        value = reader.raw(key)
        if value is None:
            continue
        if not isinstance(value, Mapping):
            reader.problem(key, f"must be a JSON object, got {_shown(value)}")
            continue
        found.append(key)
    if len(found) == 2 and dict(reader.config["rope_parameters"]) != dict(reader.config["rope_scaling"]):
        reader.problem("rope_scaling", "rope_parameters and rope_scaling are both set and differ")
    if not found:
        return None, ""
    block, prefix = _block_for(reader, setup, layer_type)
    per_type = prefix.count(".") == 2
    local = layer_type in layer_schedule.SLIDING_TYPES and arch.local_base is not None
    if local and not per_type and not arch.local_scaled:
        return None, ""
    return block, prefix


def _read_rope(
    reader: _Reader, model: ModelSetup, setup: PositionalSetup, arch: Architecture, layer_type: str
) -> None:
    _read_head_dim(reader, setup, arch, layer_type)
    layout = arch.layout
    if arch.layout_key and reader.has(arch.layout_key):
        layout = "interleaved" if reader.flag(arch.layout_key) else "half"
    elif arch.layout_key == "rope_interleave":
        layout = "interleaved"  # DeepSeek V3's class default
    setup.layout = layout
    block, name = _scaling_block(reader, setup, arch, layer_type)
    setup.base = _read_base(reader, setup, block, name, arch, layer_type)
    _read_fraction(reader, setup, block, name)
    rule = _read_rule(reader, setup, block, name)
    if block is not None:
        _read_mrope(reader, setup, block, name)
    if rule is None:
        return
    setup.rule = rule
    top_original = reader.positive_int("original_max_position_embeddings")
    in_block = None
    if block is not None and block.get("original_max_position_embeddings") is not None:
        in_block = reader.positive_int("original_max_position_embeddings", block, name)
    per_type = name.count(".") == 2
    if top_original is not None and not rule.unscaled and (in_block is None or not per_type):
        # transformers 5's standardize_rope_params assigns a top-level value over a single block's
        # (setdefault only into per-layer-type blocks)
        setup.original_context = top_original
        if in_block is not None and in_block != top_original:
            reader.note(
                "original-context-twice",
                f"original_max_position_embeddings is {top_original} at the top level and {in_block} in "
                f"{name.rstrip('.')}: transformers 5 takes the top level's, transformers 4.x's YaRN the "
                "block's (pe-verify model --runtimes compares them)",
                "warning",
            )
    elif in_block is not None:
        setup.original_context = in_block
    _read_scaling(reader, setup, rule, block or {}, name)


def _read_base(
    reader: _Reader,
    setup: PositionalSetup,
    block: Mapping[str, object] | None,
    name: str,
    arch: Architecture,
    layer_type: str,
) -> float | None:
    candidates = []
    per_type = name.count(".") == 2
    if block is not None and block.get("rope_theta") is not None:
        candidates.append((name + "rope_theta", reader.real("rope_theta", 1.0, block, name)))
    local = layer_type in layer_schedule.SLIDING_TYPES
    named = arch.local_base if local else arch.global_base
    if named is not None and not per_type:
        key, default = named
        if reader.has(key):
            candidates.append((key, reader.real(key, 1.0)))
        elif not candidates:
            setup.defaults[key] = default
            reader.note("default-base", f"no {key}: transformers' default {default:g} is used")
            return default
        return _agree(reader, candidates)
    if not per_type:
        for key in ("rope_theta", "rotary_emb_base"):
            if key != arch.unread_base and reader.has(key):
                candidates.append((key, reader.real(key, 1.0)))
        _unread_base(reader, arch)
    if not candidates:
        scale = arch.base_scale
        if scale is not None and reader.has(scale):
            ratio = reader.real(scale, 0.0)
            return None if ratio is None else DEFAULT_BASE * ratio
        setup.defaults["rope_theta"] = DEFAULT_BASE
        reader.note("default-base", f"no rope_theta: transformers' default {DEFAULT_BASE:g} is used")
        return DEFAULT_BASE
    return _agree(reader, candidates)


def _unread_base(reader: _Reader, arch: Architecture) -> None:
    """A warning when the config sets a base key that its model type's class does not read, to another value
    than the rope_theta it takes."""
    key = arch.unread_base
    value = reader.config.get(key) if key else None
    if value is not None and value != reader.config.get("rope_theta", arch.defaults.get("rope_theta")):
        reader.note(
            "unread-base",
            f"{key} = {_shown(value)} is not read by transformers' class for model_type "
            f"{reader.config.get('model_type')!r}, which takes rope_theta (answered here); the model's own "
            f"code reads {key}",
            "warning",
        )


def _agree(reader: _Reader, candidates: list[tuple[str, float | None]]) -> float | None:
    values = {value for _, value in candidates if value is not None}
    if len(values) > 1:
        keys = " and ".join(key for key, _ in candidates)
        reader.problem(candidates[0][0], f"{keys} disagree ({', '.join(f'{v:g}' for v in sorted(values))})")
        return None
    if any(value is None for _, value in candidates):
        return None
    return values.pop()


def _read_fraction(
    reader: _Reader, setup: PositionalSetup, block: Mapping[str, object] | None, name: str
) -> None:
    sources = []
    if block is not None and block.get("partial_rotary_factor") is not None:
        sources.append((block, "partial_rotary_factor", name))
    sources += [(None, key, "") for key in ("partial_rotary_factor", "rotary_pct") if reader.has(key)]
    count_key = reader.architecture.rotary_dim_key
    if not sources and count_key is not None and reader.has(count_key) and setup.head_dim is not None:
        _read_rotary_count(reader, setup, count_key)
        return
    if not sources:
        _unread_rotary_dim(reader, setup, count_key)
    fraction = None
    if sources:
        source, key, prefix = sources[0]
        fraction = reader.real(key, 0.0, source, prefix)
        if fraction is not None and fraction > 1:
            reader.problem(prefix + key, f"must be at most 1 (a fraction of the head), got {fraction:g}")
            fraction = None
        if fraction is None:
            return
    if setup.head_dim is None:
        return
    setup.rotary_fraction = 1.0 if fraction is None else fraction
    setup.rotary_dim = int(setup.head_dim * setup.rotary_fraction)
    at_fault = sources[0][2] + sources[0][1] if sources else "head_dim"
    if setup.rotary_dim < 2:
        what = f"rotates {setup.rotary_dim} dims of {setup.head_dim}: none"
        reader.problem(at_fault, what if sources else f"a head of {setup.head_dim} dim has no pair to rotate")
        setup.rotary_dim = None
        return
    if setup.rotary_dim % 2:
        reader.problem(
            at_fault,
            f"rotates an odd number of dims, int({setup.head_dim} · {setup.rotary_fraction:g}) = "
            f"{setup.rotary_dim}: RoPE rotates pairs"
            if sources
            else f"a head of {setup.head_dim} dims is odd: RoPE rotates pairs",
        )
        setup.rotary_dim = None
        return
    if fraction is not None and fraction < 1:
        reader.note(
            "partial-rotary",
            f"only {setup.rotary_dim} of {setup.head_dim} head dims are rotated (fraction "
            f"{setup.rotary_fraction:g}); the rest carry no position",
        )
    elif setup.qk_head_dim is not None and setup.qk_head_dim > setup.head_dim:
        reader.note(
            "partial-rotary",
            f"only qk_rope_head_dim = {setup.rotary_dim} of the {setup.qk_head_dim} dims of each query and "
            "key head are rotated (the rest, qk_nope_head_dim, carry no position)",
        )


def _unread_rotary_dim(reader: _Reader, setup: PositionalSetup, count_key: str | None) -> None:
    """A warning when the config states a ``rotary_dim`` narrower than the head that its model type's class
    does not read (MiniMax-Text-01's, whose transformers port rotates the whole head; MiniMax's own code and
    vLLM's rotate rotary_dim)."""
    value = reader.config.get("rotary_dim")
    if (
        count_key == "rotary_dim"
        or setup.head_dim is None
        or not isinstance(value, int)
        or isinstance(value, bool)
    ):
        return
    if 0 < value < setup.head_dim:
        model_type = reader.config.get("model_type")
        reader.note(
            "unread-rotary-dim",
            f"rotary_dim = {value} is narrower than the {setup.head_dim}-dim head, but transformers' class "
            f"for model_type {model_type!r} does not read it and rotates the whole head (as answered here); "
            f"code that reads it rotates only the first {value} dims",
            "warning",
        )


def _read_rotary_count(reader: _Reader, setup: PositionalSetup, key: str) -> None:
    """The rotated dims given as a count (`Architecture.rotary_dim_key`): even, at most the head."""
    count = reader.positive_int(key, limit=MAX_HEAD_DIM)
    if count is None or setup.head_dim is None:
        return
    if count > setup.head_dim or count % 2:
        reader.problem(
            key, f"rotates {count} dims of a {setup.head_dim}-dim head: RoPE rotates pairs of the head"
        )
        return
    setup.rotary_dim, setup.rotary_fraction = count, count / setup.head_dim
    if count < setup.head_dim:
        reader.note(
            "partial-rotary",
            f"only {key} = {count} of {setup.head_dim} head dims are rotated; the rest carry no position",
        )


def _read_rule(
    reader: _Reader, setup: PositionalSetup, block: Mapping[str, object] | None, name: str
) -> RopeRule | None:
    if block is None:
        setup.rope_type = "default"
        return BY_SPELLING["default"]
    written = [(key, block[key]) for key in ("rope_type", "type") if block.get(key) is not None]
    for key, _ in written:
        reader.touched.add(reader.prefix + name + key)
    bad = [(key, value) for key, value in written if not isinstance(value, str)]
    if bad:
        reader.problem(name + bad[0][0], f"must be the name of a RoPE type, got {_shown(bad[0][1])}")
        return None
    names = {value for _, value in written}
    if len(names) > 1:
        reader.problem(
            name + "rope_type", f"rope_type and type disagree: {' and '.join(map(repr, sorted(names)))}"
        )
        return None
    if not names:
        if set(block) <= {key.name for key in COMMON_KEYS}:
            setup.rope_type = "default"
            return BY_SPELLING["default"]
        reader.problem(name + "rope_type", "the scaling block names no rope_type (or type)")
        return None
    setup.rope_type = names.pop()
    rule = BY_SPELLING.get(setup.rope_type)
    if rule is None:
        known = ", ".join(BY_SPELLING)
        reader.note(
            "unknown-rope-type",
            f"rope_type {_shown(setup.rope_type)} is not one the suite knows ({known}): its frequencies are "
            "not computed",
            "warning",
        )
        return None
    alpha = reader.architecture.alpha_key
    if rule.running_length and rule.regimes == "rescaled" and alpha and block.get(alpha) is not None:
        reader.touched.add(reader.prefix + name + alpha)
        reader.note(
            "alpha-ntk",
            f"dynamic scaling with {alpha}: transformers 5 turns it into a static NTK base, "
            f"base·{alpha}^(d/(d−2)); 4.57 keeps the type dynamic, which rescales the base again beyond "
            "max_position_embeddings",
            "warning",
            "transformers 4.57 against 5",
        )
        return BY_KIND["ntk"]
    if setup.rope_type in rule.legacy:
        reader.note(
            "legacy-rope-type", f"type {setup.rope_type!r} is an older name: read as {rule.spellings[0]!r}"
        )
    return rule


def _read_mrope(reader: _Reader, setup: PositionalSetup, block: Mapping[str, object], name: str) -> None:
    """M-RoPE's sections (pairs given temporal, height and width positions) and their layout."""
    sections = block.get("mrope_section")
    if sections is None:
        return
    spec = next(key for key in COMMON_KEYS if key.name == "mrope_section")
    value = reader.checked(spec, block, name)
    interleaved = (
        reader.flag("mrope_interleaved", block, name) if block.get("mrope_interleaved") is not None else False
    )
    if value is None:
        return
    setup.mrope_section = value
    setup.mrope_interleaved = bool(interleaved)
    layout = reader.architecture.mrope
    if layout is not None:
        setup.mrope_interleaved = layout == "interleaved"
        if block.get("mrope_interleaved") is not None and bool(interleaved) != setup.mrope_interleaved:
            reader.note(
                "ignored-key",
                f"{name}mrope_interleaved is {interleaved}, but transformers' {setup.model_type} lays the "
                f"sections out {layout} whatever it says",
            )
    pairs = None if setup.rotary_dim is None else setup.rotary_dim // 2
    if pairs is not None and sum(value) != pairs:
        reader.problem(
            name + "mrope_section",
            f"sums to {sum(value)}; the {setup.rotary_dim} rotated dims make {pairs} pairs",
        )
        setup.mrope_section = None


def _read_scaling(
    reader: _Reader, setup: PositionalSetup, rule: RopeRule, block: Mapping[str, object], name: str
) -> None:
    """The RopeScaling of `rule` from its block; a problem (and no scaling) for an unusable parameter."""
    before = len(setup.problems)
    values: dict[str, object] = {}
    for spec in rule.keys:
        if spec.name == "original_max_position_embeddings":
            continue
        if block.get(spec.name) is None:
            if spec.required:
                reader.problem(name + spec.name, f"{setup.rope_type} scaling needs it")
            continue
        values[spec.name] = reader.checked(spec, block, name)
    factor = values.pop(rule.factor_key, None)
    fields: dict[str, object] = {}
    if rule.needs_original_context:
        original = setup.original_context
        if original is None:
            fallback = setup.max_positions
            reader.note(
                "missing-original-context",
                f"{setup.rope_type} scaling without original_max_position_embeddings: transformers 5 takes "
                f"max_position_embeddings ({fallback}) as the pretraining context",
            )
            original = fallback
            setup.original_context = original
        if original is None:
            reader.problem(name + "original_max_position_embeddings", "no pretraining context is stated")
        else:
            fields["original_context"] = original
    if rule.max_positions == "as-original" and setup.max_positions is not None:
        fields["original_context"] = setup.max_positions
    if rule.stretches and not rule.needs_original_context and setup.original_context is None:
        reader.note(
            "trained-context-unstated",
            f"the config does not state the context its {setup.rope_type} scaling stretches (the rule never "
            f"reads one; max_position_embeddings {setup.max_positions} may be the stretched context or the "
            "pretraining one): the answers that need the pretraining context are skipped",
        )
    for key in ("beta_fast", "beta_slow", "truncate", "low_freq_factor", "high_freq_factor"):
        if values.get(key) is not None:
            fields[key] = values[key]
    for key in ("mscale", "mscale_all_dim", "attention_factor"):
        if values.get(key) is not None:
            setattr(setup, key, values[key])
    forced = reader.architecture.yarn_attention_factor
    if forced is not None and setup.rope_type == "yarn" and values.get("attention_factor") is None:
        setup.attention_factor = forced
        setup.defaults[name + "attention_factor"] = forced
    for key in ("short_factor", "long_factor"):
        factors = values.get(key)
        pairs = None if setup.rotary_dim is None else setup.rotary_dim // 2
        if factors is not None and pairs is not None and len(factors) != pairs:
            reader.problem(
                name + key,
                f"has {len(factors)} values; the {setup.rotary_dim} rotated dims make {pairs} pairs",
            )
        elif factors is not None:
            fields[key] = factors
    if (
        rule.max_positions == "without-factor"
        and factor is None
        and block.get("factor") is None
        and setup.max_positions
        and setup.original_context
    ):
        factor = setup.max_positions / setup.original_context
        setup.defaults["factor"] = factor
    if rule.whole_head and setup.head_dim is not None:
        fields["head_width"] = setup.head_dim
        pairs = int(setup.rotary_fraction * setup.head_dim // 2)
        setup.rotary_dim = 2 * pairs if pairs else None
        if setup.rotary_dim is None:
            reader.problem(name + "partial_rotary_factor", "proportional RoPE rotates no pair")
    if len(setup.problems) > before or setup.rotary_dim is None:
        return
    try:
        setup.scaling = RopeScaling(rule.kind, 1.0 if factor is None else factor, **fields)
    except ValueError as exc:
        reader.problem(name.rstrip(".") or "rope_scaling", str(exc))


@dataclass(frozen=True)
class BundledModel:
    """A well-known model's published config (the keys that bear on positions and heads), with its source;
    `context` is the context its documentation states when the config's max_position_embeddings is not it."""

    slug: str
    model: str
    repository: str
    source: str
    note: str | None
    context: int | None
    config: Mapping[str, object]


def bundled_models() -> dict[str, BundledModel]:
    """The configs in `model_data/`, by file name (without .json), in name order."""
    folder = resources.files(__package__) / "model_data"
    models = {}
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".json"):
            record = json.loads(entry.read_text(encoding="utf-8"))
            slug = entry.name.removesuffix(".json")
            models[slug] = BundledModel(
                slug,
                record["model"],
                record["repository"],
                record["source"],
                record.get("note"),
                record.get("context"),
                record["config"],
            )
    return models
