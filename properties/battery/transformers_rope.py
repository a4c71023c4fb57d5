"""The suite's RoPE frequencies and attention factor for a real config, held against Hugging Face
transformers' own computation of the same config (an optional dependency: without it the comparison is
skipped, and says so).

transformers builds the model's config class (``AutoConfig.for_model``) from the config's keys, then computes
``inv_freq`` and the factor on cos and sin with ``ROPE_INIT_FUNCTIONS[rope_type](config, device, seq_len)``
(its ``rope_parameters`` in transformers 5, ``rope_scaling`` in 4), or, for unscaled RoPE in transformers 5,
with the model's own ``*RotaryEmbedding.compute_default_rope_parameters`` (which is where partial rotary
factors are read there). Its ``inv_freq`` is float32; the suite's θ'_i are the scaling rule at
30 digits rounded to float64, so they may differ by float32's rounding of ``base ** (2i/d)`` and of the
products and quotients around it: `float32_frequency_tolerance` bounds that relative difference. A
difference beyond a tolerance, a config transformers refuses, or a warning it raises is named in the record;
none of them is an error of the command.
"""

from __future__ import annotations

import importlib
import logging
import math
import warnings
from collections.abc import Mapping

import numpy as np

from ..analyses.model_setup import ModelAnalysis, model_frequencies
from ..encodings.model_config import PositionalSetup

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
    """The comparison record: transformers' version, its inv_freq and factor beside the suite's, the largest
    relative frequency difference with its tolerance, and every difference named; or why it was skipped."""
    setup = found.setup
    if setup.scheme != "rope":
        return {"skipped": f"no rotary frequencies to compare (positional scheme: {setup.scheme})"}
    if "frequencies" not in found.answers:
        return {"skipped": "the suite computed no frequencies for this config"}
    version = transformers_version()
    if version is None:
        return {"skipped": "transformers is not installed (pip install 'pe-verify[transformers]')"}
    record: dict[str, object] = {"transformers": version, "differences": [], "warnings": []}
    try:
        inv_freq, factor = _transformers_rope(config, found.context, record["warnings"])
    except Exception as exc:  # transformers refusing a config is a finding about the config, not a crash
        record["differences"].append(
            {
                "quantity": "config",
                "transformers": f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}",
            }
        )
        return record
    ours = model_frequencies(setup, found.context).float64
    _frequency_difference(record, ours, inv_freq, setup)
    suite_factor = float(found.answers["attention_factor"].value["cos_sin_factor"])
    record["attention_factor"] = {"suite": suite_factor, "transformers": factor}
    if not math.isclose(suite_factor, factor, rel_tol=FACTOR_TOLERANCE):
        record["differences"].append(
            {"quantity": "attention_factor", "suite": suite_factor, "transformers": factor}
        )
    return record


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


def _transformers_rope(
    config: Mapping[str, object], context: int, caught: list[str]
) -> tuple[np.ndarray, float]:
    """transformers' inv_freq (as float64 values of its float32 tensor) and cos/sin factor for the config."""
    import transformers
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    logger = logging.getLogger("transformers")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings(record=True) as raised:
            warnings.simplefilter("always")
            keys = {key: value for key, value in config.items() if key != "model_type"}
            built = transformers.AutoConfig.for_model(config.get("model_type", "llama"), **keys)
            if hasattr(
                built, "standardize_rope_params"
            ):  # transformers 5: rope_parameters, per-model defaults
                built.standardize_rope_params()
                rope_type = built.rope_parameters.get("rope_type", "default")
            else:  # transformers 4: rope_scaling, and a "default" entry in ROPE_INIT_FUNCTIONS
                scaling = getattr(built, "rope_scaling", None) or {}
                rope_type = scaling.get("rope_type", scaling.get("type", "default"))
            if rope_type == "default" and "default" not in ROPE_INIT_FUNCTIONS:
                inv_freq, factor = _rotary_class(built).compute_default_rope_parameters(built)
            else:
                inv_freq, factor = ROPE_INIT_FUNCTIONS[rope_type](built, None, seq_len=context)
        caught += sorted({" ".join(str(w.message).split())[:200] for w in raised})
    finally:
        logger.setLevel(level)
    return inv_freq.double().numpy(), float(factor)


def _rotary_class(config) -> type:
    """The model's ``*RotaryEmbedding`` class, whose ``compute_default_rope_parameters`` it uses unscaled."""
    name = config.model_type
    module = importlib.import_module(f"transformers.models.{name}.modeling_{name}")
    for attribute in sorted(vars(module)):
        value = getattr(module, attribute)
        if attribute.endswith("RotaryEmbedding") and hasattr(value, "compute_default_rope_parameters"):
            return value
    raise LookupError(f"transformers' {name} model has no rotary embedding class with default parameters")
