"""The `rope` family as code writes it, correct and with shipped bugs: inputs of its tests in
properties/ and of the registry test."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np


def _inv_freq(r: int, base: float = 10000.0, dtype: type = np.float64) -> np.ndarray:
    return (1.0 / base ** (np.arange(0, r, 2, dtype=np.float64) / r)).astype(dtype)


def hf_rotate_half(x: np.ndarray, positions: np.ndarray, base: float = 10000.0, dtype: type = np.float64):
    """transformers ``apply_rotary_pos_emb``: x·cos + rotate_half(x)·sin with emb = cat(freqs, freqs)."""
    x = x.astype(dtype)
    freqs = positions.astype(dtype)[:, None] * _inv_freq(x.shape[-1], base, dtype)[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    half = x.shape[-1] // 2
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
    return x * np.cos(emb) + rotated * np.sin(emb)


def meta_complex(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """llama ``apply_rotary_emb``: view pairs as complex numbers and multiply by e^{i·p·θ}."""
    angles = positions[:, None] * _inv_freq(x.shape[-1])[None, :]
    pairs = x[:, 0::2] + 1j * x[:, 1::2]
    turned = pairs * np.exp(1j * angles)
    out = np.empty_like(x)
    out[:, 0::2], out[:, 1::2] = turned.real, turned.imag
    return out


def transformers_inv_freq(d: int, base: float = 10000.0) -> np.ndarray:
    """transformers' default ``inv_freq``: 1/base^(arange(0, d, 2).float()/d) in float32."""
    return (1.0 / base ** (np.arange(0, d, 2).astype(np.float32) / np.float32(d))).astype(np.float32)


def transformers_rotate(
    x: np.ndarray,
    positions: np.ndarray,
    inv_freq: np.ndarray | None = None,
    dtype: type = ml_dtypes.bfloat16,
    angle_dtype: type = np.float32,
    attention_factor: float = 1.0,
) -> np.ndarray:
    """transformers' rotary embedding and ``apply_rotary_pos_emb`` in `dtype`: the angles positions·inv_freq
    in `angle_dtype` (float32, as transformers keeps them; bfloat16 is the bug of gpt-neox #1016 and
    transformers #29285), cos and sin of cat(freqs, freqs) times the attention factor, cast to `dtype`, and
    x·cos + rotate_half(x)·sin computed in `dtype`."""
    d = x.shape[-1]
    inv_freq = transformers_inv_freq(d) if inv_freq is None else inv_freq
    held = positions.astype(angle_dtype)[:, None] * inv_freq.astype(angle_dtype)[None, :]
    freqs = held.astype(np.float32)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos = (np.cos(emb) * np.float32(attention_factor)).astype(dtype)
    sin = (np.sin(emb) * np.float32(attention_factor)).astype(dtype)
    x = x.astype(dtype)
    rotated = np.concatenate([-x[:, d // 2 :], x[:, : d // 2]], axis=-1)
    return x * cos + rotated * sin


def yarn_inv_freq(
    d: int,
    base: float = 10000.0,
    factor: float = 16.0,
    original: int = 4096,
    fast: float = 32.0,
    slow: float = 1.0,
) -> np.ndarray:
    """transformers' ``_compute_yarn_parameters`` (truncated correction range) in float32."""

    def correction_dim(rotations: float) -> float:
        return (d * math.log(original / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = max(math.floor(correction_dim(fast)), 0), min(math.ceil(correction_dim(slow)), d - 1)
    pos_freqs = base ** (np.arange(0, d, 2).astype(np.float32) / np.float32(d))
    ramp = np.clip((np.arange(d // 2, dtype=np.float32) - low) / (high - low if high != low else 0.001), 0, 1)
    extrapolation = 1 - ramp
    inv_freq = (1.0 / (factor * pos_freqs)) * (1 - extrapolation) + (1.0 / pos_freqs) * extrapolation
    return inv_freq.astype(np.float32)


def yarn_attention_factor(factor: float) -> float:
    """YaRN's ``get_mscale``: 0.1·ln s + 1."""
    return 0.1 * math.log(factor) + 1.0


def llama3_inv_freq(
    d: int,
    base: float = 500000.0,
    factor: float = 8.0,
    original: int = 8192,
    low: float = 1.0,
    high: float = 4.0,
) -> np.ndarray:
    """transformers' ``_compute_llama3_parameters`` in float32."""
    inv_freq = transformers_inv_freq(d, base)
    wavelen = 2 * math.pi / inv_freq
    scaled = np.where(wavelen > original / low, inv_freq / factor, inv_freq)
    smooth = (original / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < original / high) & ~(wavelen > original / low)
    return np.where(medium, smoothed, scaled).astype(np.float32)


def dynamic_ntk_inv_freq(
    d: int, base: float = 10000.0, factor: float = 2.0, original: int = 4096, length: int = 16384
) -> np.ndarray:
    """transformers' ``_compute_dynamic_ntk_parameters`` at a sequence of `length` tokens, in float32."""
    grown = base * ((factor * length / original) - (factor - 1)) ** (d / (d - 2))
    return transformers_inv_freq(d, grown)


def constant_inv_freq(d: int) -> np.ndarray:
    """rotary-embedding-torch's ``freqs_for='constant'``: every pair turns at 1."""
    return np.ones(d // 2, dtype=np.float32)


def integer_division_inv_freq(d: int, base: float = 10000.0) -> np.ndarray:
    """1/base^(arange(0, d, 2) // d): integer division makes every exponent 0, every frequency 1."""
    return (1.0 / base ** (np.arange(0, d, 2) // d)).astype(np.float32)
