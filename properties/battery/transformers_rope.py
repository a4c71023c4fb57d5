"""The suite's RoPE frequencies and attention factor for a real config, layer type by layer type, held
against Hugging Face transformers' own computation of the same config (an optional dependency: without it
the comparison is skipped, and says so).

transformers builds the model's config class (``AutoConfig.for_model``) from the config's keys and takes its
text model's config (``get_text_config``); the rotary module is found through transformers' own mappings:
the text config's class lives in ``transformers.models.<name>.configuration_<name>``, its model
(``MODEL_MAPPING_NAMES``) in ``modeling_<name>`` beside the model's ``*RotaryEmbedding`` class, which is built
from the config as the model builds it. Its ``inv_freq`` and ``attention_scaling`` (in transformers 5, one
``<layer type>_inv_freq`` per layer type where the model has several) are compared with each of the suite's
layer groups; a rule that depends on the running length (dynamic NTK, LongRoPE) is evaluated at the planned
context with ``ROPE_INIT_FUNCTIONS[rope_type]``. Where transformers 4 builds a second rotary module for
sliding layers from a copy of the config (Gemma 3: ``rope_theta = rope_local_base_freq``, default scaling),
the comparison builds the same copy. The config's ``layer_types`` and ``no_rope_layers``, as transformers
derives them, are compared with the suite's layer groups. Each layer type ends in one of three outcomes:
agree, differ (each difference named), could not run (why).

Its ``inv_freq`` is float32; the suite's θ'_i are the scaling rule at 30 digits rounded to float64, so
they may differ by float32's rounding of ``base ** (2i/d)`` and of the products and quotients around it:
`float32_frequency_tolerance` bounds that relative difference. A difference beyond a tolerance, a config
transformers refuses, or a warning it raises is named in the record; none of them is an error of the
command.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import logging
import math
import types
import warnings
from collections.abc import Mapping

import numpy as np

from ..analyses.model_setup import GroupAnalysis, ModelAnalysis, model_frequencies
from ..encodings import layer_schedule
from ..encodings.model_config import NESTED, LayerGroup, PositionalSetup

#: float32's unit roundoff.
UNIT_ROUNDOFF32 = 2.0**-24
#: Relative tolerance on the attention factor: transformers computes it in float64, the suite's record holds
#: it to `model_setup.SHOWN` = 10 significant digits.
FACTOR_TOLERANCE = 1e-9


def float32_frequency_tolerance(base: float, factor: float, slack: float = 16.0) -> float:
    """Allowed relative difference between float32 θ'_i and exact ones: pow's exponent 2i/d (< 1) rounded to
    float32 moves base^(2i/d) by ε·ln base relative, pow and the divisions and products of the scaling rule
    add a few ε, a factor s (or ext_i) rounded adds ε·ln s at most through NTK's exponent."""
    return slack * UNIT_ROUNDOFF32 * (4.0 + math.log(base) + 2.0 * math.log(max(factor, 1.0)))


def transformers_version() -> str | None:
    """The installed transformers version, or None."""
    try:
        import transformers
    except ImportError:
        return None
    return transformers.__version__


def compare(config: Mapping[str, object], found: ModelAnalysis) -> dict[str, object]:
    """The comparison record: transformers' version, one entry per layer group (`_compare_group`), the layer
    schedule compared, and every warning transformers raised; or why it was skipped."""
    rotating = [g for g in found.groups if g.setup.scheme == "rope"]
    if not rotating:
        return {"skipped": f"no rotary frequencies to compare (positional scheme: {found.setup.scheme})"}
    if not any("frequencies" in g.answers for g in rotating):
        return {"skipped": "the suite computed no frequencies for this config"}
    version = transformers_version()
    if version is None:
        return {"skipped": "transformers is not installed (pip install 'pe-verify[transformers]')"}
    record: dict[str, object] = {"transformers": version, "layer_types": [], "warnings": []}
    entries: list[dict[str, object]] = record["layer_types"]
    with _quiet(record["warnings"]):
        try:
            text, rotary = _build(config)
        except Exception as exc:  # transformers refusing a config is a finding about the config, not a crash
            reason = _reason(exc)
            entries += [_could_not(g, reason) for g in rotating]
            return record
        record["schedule"] = _schedule(text, found)
        for group in rotating:
            if "frequencies" not in group.answers:
                entries.append(_could_not(group, "the suite computed no frequencies for this layer type"))
                continue
            try:
                entries.append(_compare_group(group, found, text, rotary))
            except Exception as exc:
                entries.append(_could_not(group, _reason(exc)))
    return record


def layer_rope(config: Mapping[str, object], group: LayerGroup, length: int) -> tuple[np.ndarray, float]:
    """The installed transformers' inv_freq (float64 values of its float32 tensor) and factor on cos and sin
    for one of `read_config(config)`'s layer groups at a sequence of `length` tokens, built as `compare`
    builds them from a copy of `config` (transformers writes into the scaling block it is given); its warnings
    are silenced, a config it refuses raises."""
    with _quiet([]):
        text, rotary = _build(copy.deepcopy(config))
        return _layer_rope(text, rotary, GroupAnalysis(group, length), length)


class NotNative(LookupError):
    """A model type whose code is not part of transformers (its hub repository ships it as remote code)."""


def _reason(exc: BaseException) -> str:
    if isinstance(exc, NotNative):
        return str(exc)
    return f"transformers refuses the config: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"


def _could_not(group: GroupAnalysis, reason: str) -> dict[str, object]:
    return {"layer_type": group.group.layer_type, "outcome": "could not run", "reason": reason}


class _quiet:
    """transformers' logger at ERROR and its warnings caught into `caught` (one line each)."""

    def __init__(self, caught: list[str]) -> None:
        self.caught = caught

    def __enter__(self) -> None:
        self.logger = logging.getLogger("transformers")
        self.level = self.logger.level
        self.logger.setLevel(logging.ERROR)
        self.warnings = warnings.catch_warnings(record=True)
        self.raised = self.warnings.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc: object) -> None:
        self.caught += sorted({" ".join(str(w.message).split())[:200] for w in self.raised})
        self.warnings.__exit__(*exc)
        self.logger.setLevel(self.level)


def _build(config: Mapping[str, object]):
    """transformers' text config for `config` and the model's rotary module built from it."""
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    def not_native(name: str) -> NotNative:
        return NotNative(
            f"model_type {name!r} is not native to transformers {transformers.__version__} (its code is the "
            "model repository's own, or came to transformers later)"
        )

    model_type = config.get("model_type")
    if not isinstance(model_type, str):
        raise NotNative("the config names no model_type, so no transformers model reads it as it is")
    if model_type not in CONFIG_MAPPING:
        raise not_native(model_type)
    keys = {key: value for key, value in config.items() if key != "model_type"}
    try:
        built = transformers.AutoConfig.for_model(model_type, **keys)
    except Exception:
        # a nested type the outer class does not map to its own (EXAONE 4.5 maps exaone4_5_text to exaone4)
        nested = [config[key].get("model_type") for key in NESTED if isinstance(config.get(key), Mapping)]
        unknown = [name for name in nested if isinstance(name, str) and name not in CONFIG_MAPPING]
        if unknown:
            raise not_native(unknown[0]) from None
        raise
    text = built.get_text_config(decoder=True) if hasattr(built, "get_text_config") else built
    if hasattr(text, "standardize_rope_params"):
        text.standardize_rope_params()
    try:
        return text, _rotary_class(text)(config=text)
    except LookupError:
        return text, _sinusoid_table(text)


def _sinusoid_table(config) -> types.SimpleNamespace:
    """GPT-J's and CodeGen's attention in transformers 4.x, which holds no rotary class: the table of sin and
    cos it builds with its modeling module's create_sinusoidal_positions (what 5.x's rotary class holds)."""
    package = type(config).__module__.rsplit(".", 1)[0]
    module = importlib.import_module(f"{package}.modeling_{package.rsplit('.', 1)[1]}")
    make = getattr(module, "create_sinusoidal_positions", None)
    if make is None:
        raise LookupError(f"transformers' {config.model_type} modeling code has no rotary embedding class")
    width = getattr(config, "rotary_dim", None) or config.hidden_size
    return types.SimpleNamespace(embed_positions=make(config.max_position_embeddings, width))


def _rotary_class(config) -> type:
    """The ``*RotaryEmbedding`` class of the model transformers maps the config's type to: the class in the
    config class's own package (``configuration_<name>`` → ``modeling_<name>``) that the text model uses."""
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    package = type(config).__module__.rsplit(".", 1)[0]
    name = package.rsplit(".", 1)[1]
    module = importlib.import_module(f"{package}.modeling_{name}")
    model_name = MODEL_MAPPING_NAMES.get(config.model_type, "")
    model_class = getattr(module, model_name, None)
    candidates = [
        value
        for attribute, value in sorted(vars(module).items())
        if attribute.endswith("RotaryEmbedding") and "Vision" not in attribute and isinstance(value, type)
    ]
    if model_class is not None:
        source = inspect.getsource(model_class)
        used = [c for c in candidates if f"{c.__name__}(" in source]
        candidates = used or candidates
    if not candidates:
        raise LookupError(f"transformers' {name} modeling code has no rotary embedding class")
    return candidates[0]


def _local_copy(text, group: GroupAnalysis):
    """Transformers 4's second rotary config for sliding layers (Gemma 3): a copy with the local base and
    default scaling, or None when the architecture has no such rule."""
    arch = layer_schedule.architecture(group.setup.model_type)
    if arch.local_base is None or group.group.layer_type not in layer_schedule.SLIDING_TYPES:
        return None
    key = arch.local_base[0]
    if getattr(text, key, None) is None or hasattr(text, "rope_parameters"):
        return None
    local = copy.deepcopy(text)
    local.rope_theta = getattr(text, key)
    local.rope_scaling = {"rope_type": "default"}
    return local


def _layer_rope(text, rotary, group: GroupAnalysis, context: int) -> tuple[np.ndarray, float]:
    """transformers' inv_freq (float64 values of its float32 tensor) and cos/sin factor for one group."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    layer_type = group.group.layer_type
    local = _local_copy(text, group)
    if local is not None:
        module = type(rotary)(config=local)
        return module.inv_freq.double().numpy(), float(module.attention_scaling)
    if not hasattr(rotary, f"{layer_type}_inv_freq") and hasattr(rotary, "compress_inv_freq"):
        # DeepSeek V4 keys its buffers by rope type: main for sliding layers, compress for the compressed ones
        layer_type = "main" if layer_type in layer_schedule.SLIDING_TYPES else "compress"
    per_type = hasattr(rotary, f"{layer_type}_inv_freq")
    rule = group.setup.rule
    if rule.running_length and rule.transformers in ROPE_INIT_FUNCTIONS:
        function = ROPE_INIT_FUNCTIONS[rule.transformers]
        extra = {"layer_type": layer_type} if per_type else {}
        inv_freq, factor = function(text, None, seq_len=context, **extra)
        return inv_freq.double().numpy(), float(factor)
    if per_type:
        inv_freq = getattr(rotary, f"{layer_type}_inv_freq")
        factor = getattr(rotary, f"{layer_type}_attention_scaling")
    elif not hasattr(rotary, "inv_freq") and hasattr(rotary, "embed_positions"):
        # GPT-J's and CodeGen's module holds the table [sin | cos] by position instead: the frequencies are
        # read back from position 1, atan2(sin θ_i, cos θ_i) of its float32 values (no factor on cos, sin)
        sin, cos = rotary.embed_positions[1].double().numpy().reshape(2, -1)
        return np.arctan2(sin, cos), 1.0
    else:
        inv_freq, factor = rotary.inv_freq, rotary.attention_scaling
    return inv_freq.double().numpy(), float(factor)


def _compare_group(group: GroupAnalysis, found: ModelAnalysis, text, rotary) -> dict[str, object]:
    setup = group.setup
    entry: dict[str, object] = {"layer_type": group.group.layer_type, "differences": []}
    theirs, factor = _layer_rope(text, rotary, group, found.context)
    ours = model_frequencies(setup, found.context).float64
    if setup.rule.whole_head and theirs.size > ours.size:  # the unrotated pairs' zeros
        rest = theirs[ours.size :]
        if np.any(rest != 0):
            entry["differences"].append(
                {"quantity": "unrotated pairs", "suite": 0.0, "transformers": "nonzero"}
            )
        theirs = theirs[: ours.size]
    _frequency_difference(entry, ours, theirs, setup)
    suite_factor = float(group.answers["attention_factor"].value["cos_sin_factor"])
    entry["attention_factor"] = {"suite": suite_factor, "transformers": factor}
    if not math.isclose(suite_factor, factor, rel_tol=FACTOR_TOLERANCE):
        entry["differences"].append(
            {"quantity": "attention_factor", "suite": suite_factor, "transformers": factor}
        )
    entry["outcome"] = "differ" if entry["differences"] else "agree"
    return entry


def _schedule(text, found: ModelAnalysis) -> dict[str, object]:
    """transformers' ``layer_types`` and ``no_rope_layers`` for the config beside the suite's groups."""
    layers = found.setup.layers
    if not layers or not all(g.group.layers for g in found.groups):
        return {"outcome": "could not run", "reason": "the config states no layer count"}
    suite_types = [""] * layers
    suite_rotates = [False] * layers
    for group in found.groups:
        for i in group.group.layers:
            suite_types[i] = group.group.layer_type
            suite_rotates[i] = group.setup.scheme == "rope"
    differences = []
    types = getattr(text, "layer_types", None)
    if types is not None:
        types = [layer_schedule.LEGACY_NAMES.get(t, t) for t in types]
        suite_types = [layer_schedule.LEGACY_NAMES.get(t, t) for t in suite_types]
    if types is not None and types != suite_types:
        wrong = [i for i, (a, b) in enumerate(zip(types, suite_types, strict=False)) if a != b]
        differences.append({"quantity": "layer_types", "first_layer": wrong[0] if wrong else len(types)})
    flags = getattr(text, "no_rope_layers", None)
    if isinstance(flags, list) and [bool(v) for v in flags] != suite_rotates:
        wrong = [i for i, (a, b) in enumerate(zip(flags, suite_rotates, strict=False)) if bool(a) != b]
        differences.append({"quantity": "no_rope_layers", "first_layer": wrong[0] if wrong else len(flags)})
    compared = [
        name for name, value in (("layer_types", types), ("no_rope_layers", flags)) if value is not None
    ]
    if not compared:
        return {"outcome": "could not run", "reason": "transformers' config lists no layer types"}
    return {"outcome": "differ" if differences else "agree", "compared": compared, "differences": differences}


def _frequency_difference(record: dict, ours: np.ndarray, theirs: np.ndarray, setup: PositionalSetup) -> None:
    if theirs.shape != ours.shape:
        record["differences"].append(
            {"quantity": "pairs", "suite": int(ours.size), "transformers": int(theirs.size)}
        )
        return
    relative = np.abs(theirs.astype(np.float64) - ours) / ours
    worst = int(np.argmax(relative))
    tolerance = float32_frequency_tolerance(
        setup.base, max(setup.scaling.factor, *(setup.scaling.long_factor or (1,)))
    )
    record["inv_freq"] = {
        "pairs": int(ours.size),
        "largest_relative_difference": f"{float(relative[worst]):.2e}",
        "at_pair": worst,
        "tolerance": f"{tolerance:.2e}",
    }
    if relative[worst] > tolerance:
        record["differences"].append(
            {
                "quantity": f"inv_freq[{worst}]",
                "suite": float(ours[worst]),
                "transformers": float(theirs[worst]),
                "relative": f"{float(relative[worst]):.3e}",
            }
        )
