"""A model's positional setup read from its Hugging Face ``config.json``: which scheme it uses (RoPE with its
frequency scaling, ALiBi, a learned table, or one the suite does not know) and every parameter of it.

`read_config(config)` reads a parsed config (a dict) into a `PositionalSetup` the way Hugging Face
transformers' configuration classes and ``modeling_rope_utils.py`` read it:

* RoPE's base is ``rope_theta`` (GPT-NeoX: ``rotary_emb_base``; transformers 5:
  ``rope_parameters.rope_theta``), 10000 when absent; its scaling is ``rope_scaling`` (or transformers 5's
  ``rope_parameters``), whose kind is ``rope_type`` or the older ``type`` (``su`` is LongRoPE's older name,
  ``dynamic`` is dynamic NTK);
* the head dimension is ``head_dim``, else ``hidden_size / num_attention_heads`` (GPT-2's ``n_embd /
  n_head``); DeepSeek's rotated part is ``qk_rope_head_dim``; ``partial_rotary_factor`` (GPT-NeoX:
  ``rotary_pct``) rotates only int(head_dim · fraction) of the dims, as transformers computes it;
* the contexts: ``max_position_embeddings`` (GPT-2: ``n_positions``; MPT: ``max_seq_len``) and the
  pretraining context ``original_max_position_embeddings`` (in ``rope_scaling`` or, for Phi-3, at the top);
* the dtype: ``torch_dtype`` or transformers 5's ``dtype``;
* ALiBi: BLOOM, MPT with ``attn_config.alibi``, Falcon with ``alibi``; learned tables: GPT-2, BERT and
  their kin.

Every key read is recorded in `PositionalSetup.used`, the rest in `ignored`. A key whose value cannot be
used (a negative ``rope_theta``, a ``factor`` below 1, two keys that contradict each other) becomes a
`Problem` naming it, and the setup keeps every part that does not need it; `notes` are findings about the
keys themselves (a default taken, a key transformers reads differently), labelled as the model analysis
labels its findings.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources

from .scaling import RopeScaling

#: The scaling kinds of transformers' ``rope_type`` (and the older ``type``), as `RopeScaling` names them.
ROPE_TYPES = {
    "default": "none",
    "linear": "linear",
    "dynamic": "dynamic-ntk",
    "yarn": "yarn",
    "llama3": "llama3",
    "longrope": "longrope",
    "su": "longrope",
}

#: Model types whose attention adds ALiBi's linear biases (always, or when `alibi` / `attn_config.alibi`).
ALIBI_TYPES = frozenset({"bloom", "mpt"})
#: Model types with a learned table of absolute positions.
LEARNED_TYPES = frozenset(
    {"gpt2", "gpt_neo", "opt", "bert", "roberta", "xlm-roberta", "distilbert", "gpt_bigcode"}
)
#: Model types that rotate queries and keys (RoPE), besides any config with a RoPE key.
ROPE_MODEL_TYPES = frozenset(
    {
        "llama",
        "mistral",
        "mixtral",
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
        "gemma2",
        "olmo",
        "olmo2",
        "stablelm",
        "starcoder2",
        "cohere",
        "granite",
        "gptj",
    }
)
#: Keys that only RoPE reads.
ROPE_KEYS = ("rope_theta", "rope_scaling", "rope_parameters", "rotary_emb_base", "rotary_pct")

#: The parameters each scaling kind reads from its block (beyond ``rope_type``/``type``).
SCALING_KEYS = {
    "none": (),
    "linear": ("factor",),
    "dynamic-ntk": ("factor",),
    "yarn": (
        "factor",
        "original_max_position_embeddings",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "attention_factor",
        "truncate",
    ),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
    "longrope": (
        "factor",
        "short_factor",
        "long_factor",
        "original_max_position_embeddings",
        "attention_factor",
    ),
}

#: The widest attention head read (real models' heads have 64 to 256 dims).
MAX_HEAD_DIM = 4096
#: transformers' default base when a config names none.
DEFAULT_BASE = 10000.0
#: Storage dtypes the analysis knows, by the names configs use.
DTYPE_NAMES = {"bfloat16": "bfloat16", "float16": "float16", "float32": "float32", "half": "float16"}


@dataclass(frozen=True)
class Problem:
    """A key whose value cannot be used, and why (one line)."""

    key: str
    message: str

    def __str__(self) -> str:
        return f"config key {self.key}: {self.message}"


@dataclass(frozen=True)
class Note:
    """A finding about the keys themselves: a fixed `label` and a one-line message."""

    label: str
    message: str


@dataclass
class PositionalSetup:
    """What a config says about positions.

    `scheme` is ``rope``, ``alibi``, ``learned`` or ``unknown``. For RoPE: `base`, `head_dim`, `rotary_dim`
    (the rotated dims, int(head_dim · fraction)), `scaling` (a `RopeScaling`, kind ``none`` when unscaled),
    `rope_type` as written, `mscale` and `mscale_all_dim` (DeepSeek's YaRN variant), `attention_factor`
    (an explicit value from the config, else None). `max_positions` is ``max_position_embeddings`` (or its
    model's name for it), `original_context` the pretraining context when the config states one. `heads`
    is ALiBi's head count. Fields stay None where the config lacks them or holds an unusable value (then
    `problems` says which key).
    """

    model_type: str | None = None
    scheme: str = "unknown"
    base: float | None = None
    head_dim: int | None = None
    rotary_dim: int | None = None
    rotary_fraction: float = 1.0
    scaling: RopeScaling | None = None
    rope_type: str | None = None
    mscale: float | None = None
    mscale_all_dim: float | None = None
    attention_factor: float | None = None
    max_positions: int | None = None
    original_context: int | None = None
    dtype: str | None = None
    heads: int | None = None
    used: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    defaults: dict[str, object] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    @property
    def trained_context(self) -> int | None:
        """The context the model was pretrained at: the original context when stated, else
        ``max_position_embeddings``."""
        return self.original_context if self.original_context is not None else self.max_positions


class ConfigError(ValueError):
    """A config that cannot be read at all (not a JSON object)."""


class _Reader:
    """Reads keys of one config, recording each key path it touches."""

    def __init__(self, config: Mapping[str, object], setup: PositionalSetup) -> None:
        self.config = config
        self.setup = setup
        self.touched: set[str] = set()

    def has(self, key: str) -> bool:
        """Whether the config sets `key` (to anything but null)."""
        return self.config.get(key) is not None

    def raw(self, key: str, block: Mapping[str, object] | None = None, prefix: str = "") -> object:
        source = self.config if block is None else block
        self.touched.add(prefix + key)
        return source.get(key)

    def problem(self, key: str, message: str) -> None:
        self.setup.problems.append(Problem(key, message))

    def positive_int(
        self, key: str, block: Mapping[str, object] | None = None, prefix: str = ""
    ) -> int | None:
        value = self.raw(key, block, prefix)
        if value is None:
            return None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
            self.problem(prefix + key, f"must be a positive integer, got {_shown(value)}")
            return None
        return int(value)

    def real(
        self,
        key: str,
        low: float,
        block: Mapping[str, object] | None = None,
        prefix: str = "",
        *,
        strict=True,
    ) -> float | None:
        """A finite real above `low` (at least `low` unless `strict`), else None with a problem."""
        value = self.raw(key, block, prefix)
        if value is None:
            return None
        number = float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else None
        if number is None or not math.isfinite(number) or number < low or (strict and number == low):
            relation = "greater than" if strict else "at least"
            self.problem(
                prefix + key, f"must be a finite real number {relation} {low:g}, got {_shown(value)}"
            )
            return None
        return number


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


def read_config(config: object) -> PositionalSetup:
    """The positional setup of a parsed config (see the module); a ConfigError unless it is a JSON object."""
    if not isinstance(config, Mapping):
        raise ConfigError(f"a config must be a JSON object, got {type(config).__name__}")
    setup = PositionalSetup()
    reader = _Reader(config, setup)
    model_type = reader.raw("model_type")
    setup.model_type = model_type if isinstance(model_type, str) else None
    setup.scheme = _scheme(reader, setup.model_type)
    setup.dtype = _dtype(reader)
    if setup.scheme == "rope":
        _read_rope(reader, setup)
    elif setup.scheme == "alibi":
        _read_alibi(reader, setup)
    elif setup.scheme == "learned":
        size_keys = (
            ("max_seq_len",) if setup.model_type == "mpt" else ("n_positions", "max_position_embeddings")
        )
        setup.max_positions = next(
            (size for size in (reader.positive_int(key) for key in size_keys if reader.has(key)) if size),
            None,
        )
        if setup.max_positions is None:
            reader.problem("max_position_embeddings", "a learned table needs its size (n_positions)")
        kind = reader.raw("position_embedding_type")
        if kind not in (None, "absolute"):
            setup.notes.append(
                Note("unknown-scheme", f"position_embedding_type {kind!r}: only the absolute table is known")
            )
    else:
        setup.notes.append(
            Note(
                "unknown-scheme",
                f"model_type {setup.model_type!r} names no positional scheme the suite knows and the config "
                "has no RoPE key",
            )
        )
    for key in ROPE_KEYS:
        if setup.scheme != "rope" and key in config and config[key] is not None:
            setup.notes.append(
                Note("ignored-key", f"{key} is set but this {setup.scheme} model does not rotate")
            )
    setup.used = sorted(reader.touched & _key_paths(config))
    setup.ignored = sorted(_key_paths(config) - reader.touched - _parents(reader.touched))
    for key in setup.ignored:
        if "." in key and key.split(".")[0] in ("rope_scaling", "rope_parameters"):
            setup.notes.append(
                Note("ignored-key", f"{key} is not a parameter of {setup.rope_type!r} scaling")
            )
    return setup


def _key_paths(config: Mapping[str, object]) -> set[str]:
    """Every top-level key, and the keys of the blocks that hold positional parameters."""
    paths = set(config)
    for block in ("rope_scaling", "rope_parameters", "attn_config"):
        inner = config.get(block)
        if isinstance(inner, Mapping):
            paths |= {f"{block}.{key}" for key in inner}
    return paths


def _parents(touched: set[str]) -> set[str]:
    return {key.split(".")[0] for key in touched if "." in key}


def _scheme(reader: _Reader, model_type: str | None) -> str:
    config = reader.config
    if model_type in ALIBI_TYPES:
        if model_type == "mpt":
            attn = config.get("attn_config")
            reader.touched.add("attn_config.alibi")
            if not (isinstance(attn, Mapping) and attn.get("alibi") is True):
                return "learned"
        return "alibi"
    if model_type == "falcon" and reader.raw("alibi") is True:
        return "alibi"
    if model_type in LEARNED_TYPES:
        return "learned"
    if model_type in ROPE_MODEL_TYPES or any(reader.has(key) for key in ROPE_KEYS):
        return "rope"
    return "unknown"


def _dtype(reader: _Reader) -> str | None:
    for key in ("torch_dtype", "dtype"):
        value = reader.raw(key)
        if value is None:
            continue
        if isinstance(value, str) and value.removeprefix("torch.") in DTYPE_NAMES:
            return DTYPE_NAMES[value.removeprefix("torch.")]
        reader.problem(key, f"must be one of {', '.join(DTYPE_NAMES)}, got {_shown(value)}")
    return None


def _read_alibi(reader: _Reader, setup: PositionalSetup) -> None:
    if setup.model_type == "mpt":
        setup.heads = reader.positive_int("n_heads")
        setup.max_positions = reader.positive_int("max_seq_len")
    else:
        setup.heads = reader.positive_int("n_head") or reader.positive_int("num_attention_heads")
        setup.max_positions = reader.positive_int("max_position_embeddings")
    if setup.heads is None:
        reader.problem("num_attention_heads", "ALiBi needs the head count (n_head or num_attention_heads)")


def _heads_and_width(reader: _Reader) -> tuple[int | None, int | None]:
    heads = reader.positive_int("num_attention_heads") if reader.has("num_attention_heads") else None
    if heads is None and reader.has("n_head"):
        heads = reader.positive_int("n_head")
    width = reader.positive_int("hidden_size") if reader.has("hidden_size") else None
    if width is None and reader.has("n_embd"):
        width = reader.positive_int("n_embd")
    return heads, width


def _read_head_dim(reader: _Reader, setup: PositionalSetup) -> None:
    if reader.has("qk_rope_head_dim"):
        setup.head_dim = reader.positive_int("qk_rope_head_dim")
        setup.notes.append(
            Note(
                "partial-rotary",
                f"only qk_rope_head_dim = {setup.head_dim} dims of each query and key head are rotated "
                "(the rest, qk_nope_head_dim, carry no position)",
            )
        )
        return
    if reader.has("head_dim"):
        setup.head_dim = reader.positive_int("head_dim")
        return
    heads, width = _heads_and_width(reader)
    if heads is None or width is None:
        reader.problem("head_dim", "give head_dim, or hidden_size and num_attention_heads")
        return
    if width % heads:
        reader.problem("hidden_size", f"hidden_size {width} is not a multiple of num_attention_heads {heads}")
        return
    setup.head_dim = width // heads


def _limit_head_dim(reader: _Reader, setup: PositionalSetup) -> None:
    """A head wider than `MAX_HEAD_DIM` is a problem (real heads have at most a few hundred dims)."""
    if setup.head_dim is not None and setup.head_dim > MAX_HEAD_DIM:
        reader.problem("head_dim", f"a head of {setup.head_dim} dims is beyond the {MAX_HEAD_DIM} this reads")
        setup.head_dim = None


def _read_rope(reader: _Reader, setup: PositionalSetup) -> None:
    _read_head_dim(reader, setup)
    _limit_head_dim(reader, setup)
    block, name = _scaling_block(reader, setup)
    setup.base = _read_base(reader, setup, block, name)
    _read_fraction(reader, setup, block, name)
    setup.max_positions = reader.positive_int("max_position_embeddings")
    if setup.max_positions is None and not reader.has("max_position_embeddings"):
        default = DEFAULT_CONTEXT.get(setup.model_type or "")
        if default is not None:
            setup.max_positions = default
            setup.defaults["max_position_embeddings"] = default
            setup.notes.append(
                Note(
                    "default-context", f"no max_position_embeddings: transformers' default {default} is used"
                )
            )
    top_original = reader.positive_int("original_max_position_embeddings")
    kind = _read_kind(reader, setup, block, name)
    if kind is None:
        return
    if block is not None and block.get("original_max_position_embeddings") is not None:
        setup.original_context = reader.positive_int("original_max_position_embeddings", block, name)
    elif top_original is not None and kind != "none":
        setup.original_context = top_original
    _read_scaling(reader, setup, kind, block or {}, name)


def _scaling_block(reader: _Reader, setup: PositionalSetup) -> tuple[Mapping[str, object] | None, str]:
    """The scaling block: ``rope_parameters`` (transformers 5) or ``rope_scaling``; both set and different is
    a problem (the first is used)."""
    found = []
    for key in ("rope_parameters", "rope_scaling"):
        value = reader.raw(key)
        if value is None:
            continue
        if not isinstance(value, Mapping):
            reader.problem(key, f"must be a JSON object, got {_shown(value)}")
            continue
        if value and all(isinstance(inner, Mapping) for inner in value.values()):
            chosen = "full_attention" if "full_attention" in value else sorted(value)[0]
            setup.notes.append(
                Note("ignored-key", f"{key} holds one block per layer type; the {chosen!r} block is read")
            )
            reader.touched.add(key)
            found.append((value[chosen], f"{key}.{chosen}."))
            continue
        found.append((value, f"{key}."))
    if len(found) == 2 and dict(found[0][0]) != dict(found[1][0]):
        reader.problem("rope_scaling", "rope_parameters and rope_scaling are both set and differ")
    return found[0] if found else (None, "")


def _read_base(
    reader: _Reader, setup: PositionalSetup, block: Mapping[str, object] | None, name: str
) -> float | None:
    candidates = []
    if block is not None and block.get("rope_theta") is not None:
        candidates.append((name + "rope_theta", reader.real("rope_theta", 1.0, block, name)))
    for key in ("rope_theta", "rotary_emb_base"):
        if reader.has(key):
            candidates.append((key, reader.real(key, 1.0)))
    values = {value for _, value in candidates if value is not None}
    if len(values) > 1:
        keys = " and ".join(key for key, _ in candidates)
        reader.problem(candidates[0][0], f"{keys} disagree ({', '.join(f'{v:g}' for v in sorted(values))})")
        return None
    if any(value is None for _, value in candidates):
        return None
    if not candidates:
        setup.defaults["rope_theta"] = DEFAULT_BASE
        setup.notes.append(
            Note("default-base", f"no rope_theta: transformers' default {DEFAULT_BASE:g} is used")
        )
        return DEFAULT_BASE
    return values.pop()


def _read_fraction(
    reader: _Reader, setup: PositionalSetup, block: Mapping[str, object] | None, name: str
) -> None:
    sources = []
    if block is not None and block.get("partial_rotary_factor") is not None:
        sources.append((block, "partial_rotary_factor", name))
    sources += [(None, key, "") for key in ("partial_rotary_factor", "rotary_pct") if reader.has(key)]
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
    if setup.rotary_dim < 2:
        reader.problem("partial_rotary_factor", f"rotates {setup.rotary_dim} dims of {setup.head_dim}: none")
        setup.rotary_dim = None
        return
    if setup.rotary_dim % 2:
        reader.problem(
            "partial_rotary_factor",
            f"rotates an odd number of dims, int({setup.head_dim} · {setup.rotary_fraction:g}) = "
            f"{setup.rotary_dim}: RoPE rotates pairs",
        )
        setup.rotary_dim = None
        return
    if fraction is not None and fraction < 1:
        setup.notes.append(
            Note(
                "partial-rotary",
                f"only {setup.rotary_dim} of {setup.head_dim} head dims are rotated (fraction "
                f"{setup.rotary_fraction:g}); the rest carry no position",
            )
        )


def _read_kind(
    reader: _Reader, setup: PositionalSetup, block: Mapping[str, object] | None, name: str
) -> str | None:
    if block is None:
        setup.rope_type = "default"
        return "none"
    written = [(key, block[key]) for key in ("rope_type", "type") if block.get(key) is not None]
    for key, _ in written:
        reader.touched.add(name + key)
    names = {value for _, value in written}
    if len(names) > 1:
        reader.problem(name + "rope_type", f"rope_type and type disagree: {' and '.join(map(repr, names))}")
        return None
    if not names:
        reader.problem(name + "rope_type", "the scaling block names no rope_type (or type)")
        return None
    rope_type = names.pop()
    setup.rope_type = rope_type if isinstance(rope_type, str) else None
    if setup.rope_type not in ROPE_TYPES:
        setup.notes.append(
            Note(
                "unknown-rope-type",
                f"rope_type {_shown(rope_type)} is not one the suite knows ({', '.join(ROPE_TYPES)}): its "
                "frequencies are not computed",
            )
        )
        return None
    if setup.rope_type == "su":
        setup.notes.append(Note("legacy-rope-type", "type 'su' is LongRoPE's older name: read as 'longrope'"))
    return ROPE_TYPES[setup.rope_type]


def _read_scaling(
    reader: _Reader, setup: PositionalSetup, kind: str, block: Mapping[str, object], name: str
) -> None:
    """The RopeScaling of `kind` from its block; a problem (and no scaling) for an unusable parameter."""
    if kind == "none":
        setup.scaling = RopeScaling()
        return
    before = len(setup.problems)
    factor = (
        reader.real("factor", 1.0, block, name, strict=False) if block.get("factor") is not None else None
    )
    if kind in ("linear", "dynamic-ntk", "yarn", "llama3") and factor is None and block.get("factor") is None:
        reader.problem(name + "factor", f"{setup.rope_type} scaling needs its factor")
    fields: dict[str, object] = {}
    if kind in ("yarn", "llama3", "longrope"):
        original = setup.original_context
        if original is None:
            fallback = setup.max_positions
            setup.notes.append(
                Note(
                    "missing-original-context",
                    f"{setup.rope_type} scaling without original_max_position_embeddings: transformers takes "
                    + (
                        "the Llama 3 default 8192"
                        if kind == "llama3"
                        else f"max_position_embeddings ({fallback}) as the pretraining context"
                    ),
                )
            )
            original = 8192 if kind == "llama3" else fallback
            setup.original_context = original
        if original is None:
            reader.problem(name + "original_max_position_embeddings", "no pretraining context is stated")
        else:
            fields["original_context"] = original
    if kind == "dynamic-ntk" and setup.max_positions is not None:
        fields["original_context"] = setup.max_positions
    if kind == "yarn":
        for key, low in (("beta_fast", 0.0), ("beta_slow", 0.0)):
            if block.get(key) is not None:
                value = reader.real(key, low, block, name)
                if value is not None:
                    fields[key] = value
        if block.get("truncate") is not None:
            truncate = reader.raw("truncate", block, name)
            if isinstance(truncate, bool):
                fields["truncate"] = truncate
            else:
                reader.problem(name + "truncate", f"must be true or false, got {_shown(truncate)}")
        for key in ("mscale", "mscale_all_dim"):
            if block.get(key) is not None:
                setattr(setup, key, reader.real(key, 0.0, block, name, strict=False))
    if kind == "llama3":
        for key in ("low_freq_factor", "high_freq_factor"):
            if block.get(key) is not None:
                value = reader.real(key, 0.0, block, name)
                if value is not None:
                    fields[key] = value
            else:
                reader.problem(name + key, "llama3 scaling needs it")
    if kind in ("yarn", "longrope") and block.get("attention_factor") is not None:
        setup.attention_factor = reader.real("attention_factor", 0.0, block, name)
    if kind == "longrope":
        factors = {}
        for key in ("short_factor", "long_factor"):
            value = reader.raw(key, block, name)
            pairs = None if setup.rotary_dim is None else setup.rotary_dim // 2
            if not isinstance(value, list) or not all(
                isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v) and v > 0
                for v in value
            ):
                reader.problem(name + key, "must be a list of positive real numbers, one per rotated pair")
            elif pairs is not None and len(value) != pairs:
                reader.problem(
                    name + key,
                    f"has {len(value)} values; the {setup.rotary_dim} rotated dims make {pairs} pairs",
                )
            else:
                factors[key] = tuple(float(v) for v in value)
        fields.update(factors)
        if factor is None and setup.max_positions and setup.original_context:
            factor = setup.max_positions / setup.original_context
            setup.defaults["factor"] = factor
    if len(setup.problems) > before or setup.rotary_dim is None:
        return
    try:
        setup.scaling = RopeScaling(kind, 1.0 if factor is None else factor, **fields)
    except ValueError as exc:
        reader.problem(name.rstrip(".") or "rope_scaling", str(exc))


#: Context lengths transformers' configuration classes assume when a config has no max_position_embeddings.
DEFAULT_CONTEXT = {"falcon": 2048}


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
