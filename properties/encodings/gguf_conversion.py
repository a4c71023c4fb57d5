"""The audit of a conversion: what llama.cpp's converter writes into a GGUF file from a Hugging Face config,
against what a GGUF file holds, and what llama.cpp then computes against what transformers computes.

`converted(config, metadata)` is the GGUF metadata the converter writes from `config` (llama.cpp vendor
commit 0c1e57098bba43ac29e6e3b677cdceebdd22334f, gguf-py 0.19.0): ``conversion/base.py::TextModel.__init__``
and ``set_gguf_parameters`` (the base, ``rope.freq_base_swa`` from the sliding layers' base, the scaling type
by the rule's `rope_rules.RopeRule.gguf`, YaRN's keys: ``yarn_ext_factor`` from ``extrapolation_factor``,
``yarn_attn_factor`` from ``attention_factor``, the betas; M-RoPE's sections padded with zeros to four),
``conversion/llama.py::LlamaModel.generate_extra_tensors`` (Llama 3's ``rope_freqs``: the divisors the suite's
Llama 3 rule gives, `gguf_metadata.llama3_divisors`), ``conversion/phi.py::Phi3MiniModel`` (LongRoPE's
``rope_factors_long``/``short`` and ``rope.scaling.attn_factor`` = √(1 + ln s/ln L₀), the config's
``attention_factor`` ignored), ``conversion/gemma.py::Gemma3Model`` and DeepSeek's
``rope.scaling.yarn_log_multiplier`` = 0.1 · ``mscale_all_dim``.

`audit(config, metadata)` returns the findings (`model_config.Note`, labelled ``gguf-…``), each naming the
GGUF key, the config key and both values:

* each rope key and per-pair tensor the converter writes and the file lacks, holds otherwise, or the file
  holds and the converter does not write: an error when llama.cpp's reading of the file changes by it
  (`gguf_metadata.gguf_config` of the file against that of the converter's output), a warning when llama.cpp
  at this commit does not read it but the value means something else to a runtime that does (a factor in
  ``yarn_ext_factor``, ikawrakow/ik_llama.cpp#2003), a note when it only restates a default. Floats are
  compared as float32, as GGUF stores them: a float64 config value that rounds to the file's float32 is not
  a difference (a note says which were rounded);
* each layer whose rotation llama.cpp computes from the file otherwise than transformers from the config
  (its frequencies, rotated dims, cos/sin factor, M-RoPE sections and layout, whether it rotates at all: a
  NoPE schedule, which has no GGUF key): a warning when the file is what the converter writes (llama.cpp
  reads it differently), an error when the file's own keys cause it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

import numpy as np

from . import layer_schedule
from .gguf_metadata import (
    CONCERNS,
    INTERLEAVED_MROPE,
    LOG_MULTIPLIER_SCALE,
    MODEL_TYPES,
    NO_ROPE_STEP,
    ROPE_KEY_TYPES,
    GgufField,
    GgufMetadata,
    divisors_agree,
    gguf_config,
    head_dim,
    llama3_divisors,
    same_float32,
)
from .model_config import NESTED, ModelSetup, Note, PositionalSetup, read_config
from .scaling import RopeScaling

#: The llama.cpp architecture the converter writes for each transformers model type.
ARCHITECTURES = {model_type: arch for arch, model_type in MODEL_TYPES.items()}
ARCHITECTURES.update(
    {
        "mistral": "llama",
        "mixtral": "llama",
        "qwen2_5_vl": "qwen2vl",
        "qwen2_vl_text": "qwen2vl",
        "qwen3_vl_text": "qwen3vl",
        "gemma3": "gemma3",
        "deepseek_v2": "deepseek2",
        "kimi_k2": "deepseek2",
    }
)
#: Model types whose converter writes ``rope.scaling.yarn_log_multiplier`` (DeepSeek's).
LOG_MULTIPLIER_TYPES = frozenset({"deepseek_v2", "deepseek_v3", "kimi_k2"})
#: Relative tolerance on frequencies and factors compared (float32 metadata moves them by about 1e-7).
RTOL = 1e-6


def _text(config: Mapping) -> Mapping:
    for key in NESTED:
        inner = config.get(key)
        if isinstance(inner, Mapping) and inner:
            return inner
    return config


def _rope_groups(setup: ModelSetup) -> tuple[PositionalSetup | None, PositionalSetup | None]:
    """The full-attention and the sliding layers' RoPE setups (None where the model has none)."""
    full = sliding = None
    for group in setup.groups:
        if group.position.scheme != "rope":
            continue
        if group.layer_type in layer_schedule.SLIDING_TYPES:
            sliding = sliding or group.position
        else:
            full = full or group.position
    return full, sliding


def _block(text: Mapping) -> Mapping:
    """The converter's ``rope_params``: ``rope_parameters`` (its full-attention block when per layer type),
    else ``rope_scaling``."""
    params = text.get("rope_parameters", text.get("rope_scaling")) or {}
    if not isinstance(params, Mapping):
        return {}
    inner = params.get("full_attention")
    return inner if isinstance(inner, Mapping) else params


def converted(config: Mapping, metadata: GgufMetadata) -> tuple[GgufMetadata, dict[str, str], list[Note]]:
    """The GGUF metadata llama.cpp's converter writes from `config` (see the module), with the architecture
    and the fields the file holds where the config does not decide them; the config key each GGUF key or
    tensor comes from; and notes on what the converter cannot write."""
    setup = read_config(config)
    text = _text(config)
    notes: list[Note] = []
    arch = ARCHITECTURES.get(setup.model_type or "", metadata.architecture)
    full, sliding = _rope_groups(setup)
    rope: dict[str, object] = {}
    origin: dict[str, str] = {}
    tensors: dict[str, tuple[float, ...]] = {}
    block = _block(text)
    if full is not None:
        base_key = next(
            (k for k in ("rope_theta", "rotary_emb_base") if text.get(k) is not None),
            "rope_parameters.rope_theta" if block.get("rope_theta") is not None else None,
        )
        if base_key is not None and full.base is not None:
            rope["rope.freq_base"], origin["rope.freq_base"] = full.base, base_key
        if full.rotary_dim is not None:
            rope["rope.dimension_count"] = full.rotary_dim
            origin["rope.dimension_count"] = (
                "partial_rotary_factor" if full.rotary_fraction < 1 else "head_dim"
            )
        if full.mrope_section is not None:
            rope["rope.dimension_sections"] = (*full.mrope_section, *([0] * (4 - len(full.mrope_section))))
            origin["rope.dimension_sections"] = "rope_scaling.mrope_section"
        _scaling(full, text, block, setup, rope, origin, tensors, notes)
    if sliding is not None and full is not None and sliding.base is not None and sliding.base != full.base:
        rope["rope.freq_base_swa"] = sliding.base
        origin["rope.freq_base_swa"] = (
            "rope_local_base_freq"
            if text.get("rope_local_base_freq") is not None
            else "sliding_attention rope_theta"
        )
    fields = dict(metadata.fields)
    if setup.max_positions is not None:
        key = f"{arch}.context_length"
        fields[key] = GgufField(key, setup.max_positions, "UINT32")
    expected = GgufMetadata(
        "the converter's output",
        arch,
        metadata.name,
        metadata.header,
        MappingProxyType(
            {
                f"{arch}.{tail}": GgufField(f"{arch}.{tail}", value, ROPE_KEY_TYPES[tail])
                for tail, value in rope.items()
            }
        ),
        MappingProxyType(fields),
        MappingProxyType(tensors),
    )
    return expected, origin, notes


def _scaling(
    position: PositionalSetup,
    text: Mapping,
    block: Mapping,
    setup: ModelSetup,
    rope: dict,
    origin: dict,
    tensors: dict,
    notes: list[Note],
) -> None:
    rule, scaling = position.rule, position.scaling
    if rule is None or scaling is None:
        return
    if rule.gguf is None:
        notes.append(
            Note(
                "gguf-no-form",
                f"rope_type {position.rope_type!r} has no GGUF form: llama.cpp's converter writes no scaling "
                "for it (conversion/base.py::TextModel.set_gguf_parameters), so llama.cpp rotates unscaled",
                "warning",
                CONCERNS,
            )
        )
        return
    if rule.gguf:
        rope["rope.scaling.type"], origin["rope.scaling.type"] = rule.gguf, "rope_scaling.rope_type"
    if rule.kind in ("linear", "yarn"):
        rope["rope.scaling.factor"], origin["rope.scaling.factor"] = scaling.factor, "rope_scaling.factor"
    if rule.kind == "yarn":
        if block.get("original_max_position_embeddings") is not None or text.get(
            "original_max_position_embeddings"
        ):
            rope["rope.scaling.original_context_length"] = scaling.original_context
            origin["rope.scaling.original_context_length"] = "original_max_position_embeddings"
        for tail, keys in (
            ("yarn_ext_factor", ("extrapolation_factor",)),
            ("yarn_attn_factor", ("attention_factor", "attn_factor")),
            ("yarn_beta_fast", ("beta_fast",)),
            ("yarn_beta_slow", ("beta_slow",)),
        ):
            key = next((k for k in keys if block.get(k) is not None), None)
            if key is not None:
                rope[f"rope.scaling.{tail}"] = float(block[key])
                origin[f"rope.scaling.{tail}"] = f"rope_scaling.{key}"
        if setup.model_type in LOG_MULTIPLIER_TYPES and position.mscale_all_dim:
            rope["rope.scaling.yarn_log_multiplier"] = LOG_MULTIPLIER_SCALE * position.mscale_all_dim
            origin["rope.scaling.yarn_log_multiplier"] = "rope_scaling.mscale_all_dim (· 0.1)"
    elif rule.kind == "longrope":
        original = scaling.original_context
        rope["rope.scaling.original_context_length"] = original
        origin["rope.scaling.original_context_length"] = "original_max_position_embeddings"
        s = (setup.max_positions or original) / original
        rope["rope.scaling.attn_factor"] = math.sqrt(1 + math.log(s) / math.log(original)) if s > 1 else 1.0
        origin["rope.scaling.attn_factor"] = "max_position_embeddings / original_max_position_embeddings"
        tensors["rope_factors_long"] = scaling.long_factor
        tensors["rope_factors_short"] = scaling.short_factor
        origin["rope_factors_long"], origin["rope_factors_short"] = "long_factor", "short_factor"
    elif rule.kind == "llama3":
        tensors["rope_freqs"] = tuple(
            float(v)
            for v in np.float32(
                llama3_divisors(
                    position.rotary_dim,
                    position.base,
                    scaling.factor,
                    scaling.low_freq_factor,
                    scaling.high_freq_factor,
                    scaling.original_context,
                )
            )
        )
        origin["rope_freqs"] = (
            "rope_scaling (Llama 3's factor, low_freq_factor, high_freq_factor, original context)"
        )


def _same(a: object, b: object) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and same_float32(a, b)
    return a == b


def _shown(value: object) -> str:
    if isinstance(value, tuple):
        inner = ", ".join(_shown(v) for v in value[:6])
        return (
            f"[{inner}{', …' if len(value) > 6 else ''}] ({len(value)} values)"
            if len(value) > 6
            else f"[{inner}]"
        )
    if isinstance(value, float):
        return f"{value:.9g}"
    return repr(value)


def audit(config: Mapping, metadata: GgufMetadata) -> list[Note]:
    """The findings of the conversion of `config` into the GGUF file `metadata` (see the module)."""
    expected, origin, notes = converted(config, metadata)
    arch = metadata.architecture
    if expected.architecture != arch:
        notes.append(
            Note(
                "gguf-architecture",
                f"general.architecture is {arch!r}; the converter writes {expected.architecture!r} for "
                f"model_type {config.get('model_type')!r}: keys are compared under the file's",
                "warning",
                CONCERNS,
            )
        )
        expected = replace(
            expected,
            architecture=arch,
            rope=MappingProxyType(
                {
                    f"{arch}.{k.split('.', 1)[1]}": replace(f, key=f"{arch}.{k.split('.', 1)[1]}")
                    for k, f in expected.rope.items()
                }
            ),
        )
    reading = gguf_config(metadata)
    meant = gguf_config(expected)
    notes += _keys(expected, metadata, origin, reading.config, meant.config, reading.sources)
    notes += _layers(config, reading, meant.config, metadata)
    return notes


def _changed(tail: str, arch: str, file_config: Mapping, meant_config: Mapping, sources: Mapping) -> bool:
    """Whether llama.cpp's reading of the file differs from its reading of the converter's output in a config
    key that `tail` (a GGUF key's tail or a tensor's name) is the source of."""
    keys = set(file_config) | set(meant_config)
    for scaling in (file_config.get("rope_scaling") or {}, meant_config.get("rope_scaling") or {}):
        keys |= {f"rope_scaling.{k}" for k in scaling}
    for key in keys:
        source = sources.get(key, "")
        if f"{arch}.{tail}" not in source and f"tensor {tail}" not in source and tail not in source:
            continue
        if not _same(_lookup(file_config, key), _lookup(meant_config, key)):
            return True
    return False


def _lookup(config: Mapping, key: str) -> object:
    if key.startswith("rope_scaling."):
        value = (config.get("rope_scaling") or {}).get(key.removeprefix("rope_scaling."))
    else:
        value = config.get(key)
    return tuple(value) if isinstance(value, list) else value


def _keys(
    expected: GgufMetadata,
    metadata: GgufMetadata,
    origin: Mapping[str, str],
    file_config: Mapping,
    meant_config: Mapping,
    sources: Mapping[str, str],
) -> list[Note]:
    arch = metadata.architecture
    found: list[Note] = []
    rounded = []
    written = {k[len(arch) + 1 :]: f.value for k, f in expected.rope.items()}
    held = {k[len(arch) + 1 :]: f.value for k, f in metadata.rope.items()}
    written |= {name: values for name, values in expected.tensors.items()}
    held |= {name: values for name, values in metadata.tensors.items()}
    for tail in sorted(set(written) | set(held)):
        mine, theirs = written.get(tail), held.get(tail)
        is_tensor = tail in ("rope_freqs", "rope_factors_long", "rope_factors_short")
        name = f"tensor {tail}" if is_tensor else f"{arch}.{tail}"
        config_key = origin.get(tail, "no config key")
        if mine is not None and theirs is not None:
            same = divisors_agree(mine, theirs) if is_tensor else _same(_tuple(mine), _tuple(theirs))
            if same:
                if isinstance(mine, float) and float(np.float32(mine)) != mine:
                    rounded.append(f"{name} ({config_key} = {mine!r} is float32 {float(np.float32(mine))!r})")
                continue
            what = (
                f"{name} is {_shown(_tuple(theirs))}; the converter writes {_shown(_tuple(mine))} from "
                f"{config_key}"
            )
            if is_tensor:
                first = (
                    next(
                        i
                        for i, (a, b) in enumerate(zip(mine, theirs, strict=True))
                        if not divisors_agree((a,), (b,))
                    )
                    if len(mine) == len(theirs)
                    else None
                )
                if first is not None:
                    what += f" (first at pair {first}: {theirs[first]:.9g} against {mine[first]:.9g})"
                if tail == "rope_freqs":
                    what += ", the Llama 3 rule as the suite computes it"
        elif mine is not None:
            what = f"{name} is absent; the converter writes {_shown(_tuple(mine))} from {config_key}"
        else:
            what = (
                f"{name} = {_shown(_tuple(theirs))} is in the file; the converter writes no such key for "
                "this config"
            )
        label = "gguf-key-" + (
            "different"
            if mine is not None and theirs is not None
            else "missing"
            if mine is not None
            else "extra"
        )
        if tail == "rope.scaling.yarn_ext_factor":
            factor = held.get("rope.scaling.factor")
            if theirs is not None and factor is not None and _same(theirs, factor):
                what += (
                    " (the scaling factor written as the extrapolation factor, ikawrakow/ik_llama.cpp#2003; "
                    "transformers' YaRN extrapolation factor is 1)"
                )
        if _changed(tail, arch, file_config, meant_config, sources):
            severity, effect = "error", "llama.cpp's reading of the file changes by it"
        elif _default_equal(tail, mine, theirs, metadata):
            severity, effect = "note", "llama.cpp's default is the same value"
        else:
            severity, effect = (
                "warning",
                f"llama.cpp's {arch} loader does not read it, but a runtime that does computes otherwise",
            )
        found.append(Note(label, f"{what}: {effect}", severity, CONCERNS))
    if rounded:
        found.append(
            Note(
                "gguf-float32",
                "GGUF stores float metadata as float32: " + "; ".join(rounded) + " — not a difference",
                "note",
                CONCERNS,
            )
        )
    return found


def _tuple(value: object) -> object:
    return tuple(value) if isinstance(value, (list, tuple)) else value


def _default_equal(tail: str, mine: object, theirs: object, metadata: GgufMetadata) -> bool:
    """Whether the absent side of a key is llama.cpp's default for the present side's value."""
    value = theirs if mine is None else mine if theirs is None else None
    if value is None:
        return False
    defaults = {
        "rope.freq_base": 10000.0,
        "rope.scaling.factor": 1.0,
        "rope.scaling.attn_factor": 1.0,
        "rope.scaling.yarn_ext_factor": 1.0,
        "rope.scaling.yarn_beta_fast": 32.0,
        "rope.scaling.yarn_beta_slow": 1.0,
        "rope.scaling.type": "none",
        "rope.scaling.original_context_length": metadata.value("context_length"),
        "rope.dimension_count": head_dim(metadata),
    }
    if tail not in defaults:
        return False
    if tail == "rope.scaling.type" and value == "linear":
        return not metadata.value("rope.scaling.factor")
    return _same(_tuple(value), defaults[tail])


# ------------------------------------------------------------------------------------- what each computes


def _cos_sin(position: PositionalSetup) -> float:
    scaling = position.scaling
    if position.attention_factor is not None:
        return position.attention_factor
    if scaling is None or not position.rule or not position.rule.attention:
        return 1.0
    if position.mscale and position.mscale_all_dim:
        s = scaling.factor

        def mscale(m: float) -> float:
            return 1.0 if s <= 1 else 0.1 * m * math.log(s) + 1.0

        return mscale(position.mscale) / mscale(position.mscale_all_dim)
    return float(scaling.attention_factor())


def _layer_rules(setup: ModelSetup) -> dict[int, PositionalSetup]:
    rules = {}
    for group in setup.groups:
        for layer in group.layers:
            rules[layer] = group.position
    return rules


def _describe(position: PositionalSetup | None) -> dict[str, object]:
    """What one layer computes: whether it rotates, its rotated dims, frequencies (short and long for
    LongRoPE), cos/sin factor and M-RoPE sections."""
    if position is None or position.scheme != "rope":
        return {"rotates": False}
    out: dict[str, object] = {"rotates": True, "rotated dims": position.rotary_dim}
    scaling = position.scaling or RopeScaling()
    if position.rotary_dim and position.base:
        plain = replace(scaling, seq_len=None)
        out["frequencies"] = plain.frequencies(position.rotary_dim, position.base)
        if scaling.kind == "longrope":
            beyond = replace(scaling, seq_len=scaling.original_context + 1)
            out["frequencies beyond L₀"] = beyond.frequencies(position.rotary_dim, position.base)
    out["cos/sin factor"] = _cos_sin(position)
    if position.mscale_all_dim and layer_schedule.architecture(position.model_type).softmax_mscale:
        s = scaling.factor
        out["softmax scale factor"] = (
            (0.1 * position.mscale_all_dim * math.log(s) + 1.0) ** 2 if s > 1 else 1.0
        )
    if position.mrope_section is not None:
        out["M-RoPE sections"] = tuple(position.mrope_section)
        out["M-RoPE layout"] = "interleaved" if position.mrope_interleaved else "blocked"
    return out


def _differs(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        return x.shape != y.shape or not np.allclose(x, y, rtol=RTOL, atol=0.0)
    if isinstance(a, float) and isinstance(b, float):
        return not math.isclose(a, b, rel_tol=RTOL)
    return a != b


def _change(a: object, b: object) -> str:
    """`a` → `b` in words: for frequencies, the first pair that differs and how many do."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape:
        off = np.flatnonzero(~np.isclose(a, b, rtol=RTOL, atol=0.0))
        first = int(off[0])
        return f"{a[first]:.9g} → {b[first]:.9g} at pair {first} ({len(off)} of {len(a)} pairs differ)"
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return f"{np.size(a)} → {np.size(b)} pairs"
    if isinstance(a, float) and isinstance(b, float):
        return f"{a:.9g} → {b:.9g}"
    return f"{a} → {b}"


def _layers(config: Mapping, reading, meant_config: Mapping, metadata: GgufMetadata) -> list[Note]:
    """Per layer, what transformers computes from the config against what llama.cpp computes from the file;
    the differences grouped by layer, with their GGUF and config keys."""
    reference = read_config(config)
    file_setup = read_config(reading.config)
    meant_setup = read_config(meant_config)
    hf, cpp, ideal = _layer_rules(reference), _layer_rules(file_setup), _layer_rules(meant_setup)
    arch = metadata.architecture
    grouped: dict[tuple[str, str, str], list[int]] = {}
    for layer in sorted(hf):
        mine, theirs, meant = _describe(hf[layer]), _describe(cpp.get(layer)), _describe(ideal.get(layer))
        for quantity in dict.fromkeys([*mine, *theirs]):
            a, b = mine.get(quantity), theirs.get(quantity)
            if a is None or b is None or not _differs(a, b):
                continue
            converter = meant.get(quantity)
            caused = converter is None or _differs(converter, b)
            grouped.setdefault((quantity, _change(a, b), "file" if caused else "reading"), []).append(layer)
    notes = []
    for (quantity, values, cause), layers in grouped.items():
        where = _sources(quantity, reading.sources, arch)
        shown = ", ".join(map(str, layers[:12])) + (", …" if len(layers) > 12 else "")
        if quantity == "rotates":
            step = NO_ROPE_STEP.get(arch)
            rule = (
                f"llama.cpp's {arch} loader fixes n_no_rope_layer_step = {step}"
                if step
                else f"llama.cpp's {arch} graph rotates every layer"
            )
            message = (
                f"layers {shown}: rotates {values} (transformers from the config's no_rope_layers / "
                f"no_rope_layer_interval → llama.cpp): no GGUF key holds a NoPE schedule; {rule}"
            )
        else:
            message = (
                f"layers {shown}: {quantity} {values} (transformers from the config → llama.cpp from the "
                f"file; GGUF {where})"
            )
        if cause == "file":
            message += "; the file's keys cause it"
        else:
            message += (
                "; the file is what the converter writes: llama.cpp reads it otherwise than transformers"
            )
        severity = "error" if cause == "file" or quantity == "rotates" else "warning"
        label = "gguf-nope-schedule" if quantity == "rotates" else "gguf-computes-otherwise"
        notes.append(Note(label, message, severity, CONCERNS))
    if (
        arch in INTERLEAVED_MROPE
        and not any(p.mrope_interleaved for p in hf.values() if p.mrope_section is not None)
        and any(p.mrope_section is not None for p in hf.values())
    ):
        notes.append(
            Note(
                "gguf-mrope-layout",
                f"the config lays M-RoPE sections out blocked; llama.cpp lays {arch}'s out interleaved (no "
                "GGUF key says which: llama_model_rope_type)",
                "error",
                CONCERNS,
            )
        )
    return notes


def _sources(quantity: str, sources: Mapping[str, str], arch: str) -> str:
    keys = {
        "rotated dims": ("partial_rotary_factor", "head_dim"),
        "frequencies": (
            "rope_theta",
            "rope_local_base_freq",
            "rope_scaling.factor",
            "rope_scaling.rope_type",
        ),
        "frequencies beyond L₀": (
            "rope_scaling.long_factor",
            "rope_scaling.original_max_position_embeddings",
        ),
        "cos/sin factor": ("rope_scaling.attention_factor", "rope_scaling.mscale"),
        "softmax scale factor": ("rope_scaling.mscale_all_dim",),
        "M-RoPE sections": ("rope_scaling.mrope_section",),
        "M-RoPE layout": (),
    }.get(quantity, ())
    named = [sources[k] for k in keys if k in sources]
    if quantity == "frequencies":
        named += [
            sources[k] for k in ("rope_scaling.short_factor", "rope_scaling.low_freq_factor") if k in sources
        ]
    if quantity == "M-RoPE layout":
        named.append(f"general.architecture ({arch})")
    return ", ".join(dict.fromkeys(named)) or "no key"
