"""The `rope-frequencies` family as code writes it, correct and with shipped bugs: inputs of its tests in
properties/ and of the registry test."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

LLAMA3_BASE = 500000.0


def default_rope(d: int, base: float = 10000.0) -> np.ndarray:
    """``_compute_default_rope_parameters``: 1 / base^(arange(0, d, 2)/d)."""
    return 1.0 / (base ** (np.arange(0, d, 2, dtype=np.int64).astype(np.float64) / d))


def default_rope_float32(d: int, base: float = 10000.0) -> np.ndarray:
    """The same in float32, as torch computes it (``.float()`` exponents)."""
    exponent = np.arange(0, d, 2, dtype=np.int64).astype(np.float32) / np.float32(d)
    return (np.float32(1.0) / (np.float32(base) ** exponent)).astype(np.float32)


LINEAR = 4.0


def linear(d: int) -> np.ndarray:
    """``_compute_linear_scaling_rope_parameters``: inv_freq / factor."""
    return default_rope(d) / LINEAR


NTK = 2.0


def ntk(d: int) -> np.ndarray:
    """NTK-aware: base · factor^(d/(d − 2))."""
    return default_rope(d, 10000.0 * NTK ** (d / (d - 2)))


YARN = {"factor": 16.0, "original_max_position_embeddings": 4096, "beta_fast": 32.0, "beta_slow": 1.0}


def yarn(d: int, base: float = 10000.0, truncate: bool = True, **given: float) -> np.ndarray:
    """``_compute_yarn_parameters``: find_correction_range, linear_ramp_factor, the blend."""
    p = {**YARN, **given}
    factor, context = p["factor"], p["original_max_position_embeddings"]

    def correction_dim(rotations: float) -> float:
        return (d * math.log(context / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = correction_dim(p["beta_fast"]), correction_dim(p["beta_slow"])
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(d // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    pos_freqs = base ** (np.arange(0, d, 2) / d)
    extrapolation, interpolation = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    extrapolation_factor = 1 - ramp
    return interpolation * (1 - extrapolation_factor) + extrapolation * extrapolation_factor


LLAMA3 = {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


def llama3(d: int, dtype: type = np.float64, **given: float) -> np.ndarray:
    """``_compute_llama3_parameters`` (its np.where form), computed in `dtype`."""
    p = {**LLAMA3, **given}
    f = dtype
    inv_freq = (default_rope_float32 if dtype is np.float32 else default_rope)(d, LLAMA3_BASE).astype(f)
    factor, low, high = f(p["factor"]), f(p["low_freq_factor"]), f(p["high_freq_factor"])
    context = f(p["original_max_position_embeddings"])
    low_wavelen, high_wavelen = context / low, context / high
    wavelen = f(2 * math.pi) / inv_freq
    scaled = np.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (context / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return np.where(medium, smoothed, scaled).astype(f)


def increasing(d: int) -> np.ndarray:
    return default_rope(d)[::-1].copy()


def negative_entry(d: int) -> np.ndarray:
    theta = default_rope(d)
    theta[d // 4] = -theta[d // 4]
    return theta


def nan_entry(d: int) -> np.ndarray:
    theta = default_rope(d)
    theta[-1] = np.nan
    return theta


def full_width(d: int) -> np.ndarray:
    """One frequency per dimension instead of per pair."""
    return 1.0 / (10000.0 ** (np.arange(d) / d))


def doubled(d: int) -> np.ndarray:
    """A 'factor 1/2' compression: every pair turns twice as fast, the fastest by 2 rad per position."""
    return 2.0 * default_rope(d)


def integer_division(d: int, base: float = 10000.0) -> np.ndarray:
    """``1 / (base ** (torch.arange(0, d, 2) // d))``: `//` makes every exponent 0, every value 1."""
    return 1.0 / (base ** (np.arange(0, d, 2) // d)).astype(np.float32)


def constant(d: int) -> np.ndarray:
    """rotary-embedding-torch's ``freqs_for='constant'`` with ``num_freqs = d // 2``: every pair at 1."""
    return np.ones(d // 2, dtype=np.float32)


def equal_pair(d: int) -> np.ndarray:
    """Pairs 0 and 1 at the same frequency (an exponent computed from i // 2)."""
    theta = default_rope(d)
    theta[1] = theta[0]
    return theta


def zeros(d: int) -> np.ndarray:
    """No pair turns."""
    return np.zeros(d // 2)


def rejects_small(d: int) -> np.ndarray:
    """Raises below d = 100 (a table built for one head size), the reference above."""
    if d < 100:
        raise ValueError(f"head size {d} is not supported")
    return default_rope(d)


def yarn_pair(d: int) -> tuple[np.ndarray, float]:
    """(inv_freq, attention_factor) as ``_compute_yarn_parameters`` returns them: YaRN's 0.1·ln s + 1."""
    return yarn(d), 0.1 * math.log(YARN["factor"]) + 1.0


def yarn_pair_squared(d: int) -> tuple[np.ndarray, float]:
    """The factor squared, which belongs on the logits q·k, put on cos and sin: (0.1·ln s + 1)²."""
    return yarn(d), (0.1 * math.log(YARN["factor"]) + 1.0) ** 2


def linear_pair_with_factor(d: int) -> tuple[np.ndarray, float]:
    """Linear interpolation returned with YaRN's attention factor, which linear scaling has not."""
    return linear(d), 0.1 * math.log(LINEAR) + 1.0


def init_without_reciprocal(
    config: Any, device: Any = None, seq_len: int | None = None
) -> tuple[np.ndarray, float]:
    """A transformers-style init function with ``1 /`` forgotten: base^(2i/d), increasing from 1."""
    base, d = config.rope_parameters["rope_theta"], config.head_dim
    return base ** (np.arange(0, d, 2) / d), 1.0
