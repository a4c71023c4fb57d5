"""The `rope` family as code writes it, correct and with shipped bugs: inputs of its tests in
properties/ and of the registry test."""

from __future__ import annotations

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
