"""RoPE as a newcomer writes it, each with one bug of its own: cos and sin laid out for one pairing and
applied with the other, integer division in the exponent, a bfloat16 cos/sin cache, frequencies held in
bfloat16, constant frequencies, and a dynamic scaling that keeps what a long call grew. The inputs of
tests/properties/test_rope_causes.py: each must give one root cause."""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np

from .rope import _inv_freq, constant_inv_freq, integer_division_inv_freq


def rotate_half(x: np.ndarray) -> np.ndarray:
    """transformers' ``rotate_half``: pairs dims i and i + d/2."""
    half = x.shape[-1] // 2
    return np.concatenate([-x[:, half:], x[:, :half]], axis=-1)


def rotate_every_two(x: np.ndarray) -> np.ndarray:
    """GPT-J's ``rotate_every_two``: pairs dims 2i and 2i + 1."""
    out = np.empty_like(x)
    out[:, 0::2], out[:, 1::2] = -x[:, 1::2], x[:, 0::2]
    return out


def _applied(x: np.ndarray, angles: np.ndarray, turn: Callable, table: type = np.float64) -> np.ndarray:
    """x·cos + turn(x)·sin with cos and sin of `angles` ([n, d]) held in `table`."""
    cos, sin = np.cos(angles).astype(table), np.sin(angles).astype(table)
    return x * cos.astype(np.float64) + turn(x) * sin.astype(np.float64)


def _freqs(positions: np.ndarray, inv_freq: np.ndarray) -> np.ndarray:
    return positions.astype(np.float64)[:, None] * inv_freq.astype(np.float64)[None, :]


def interleaved_table_rotate_half(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """cos and sin repeated pair by pair (``repeat_interleave(2)``), applied with ``rotate_half``."""
    freqs = _freqs(positions, _inv_freq(x.shape[-1]))
    return _applied(x, np.repeat(freqs, 2, axis=-1), rotate_half)


def half_table_rotate_every_two(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """cos and sin laid out ``cat(freqs, freqs)`` (transformers' cache), applied with ``rotate_every_two``."""
    freqs = _freqs(positions, _inv_freq(x.shape[-1]))
    return _applied(x, np.concatenate([freqs, freqs], axis=-1), rotate_every_two)


def integer_division(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """``1 / base ** (arange(0, d, 2) // d)``: every frequency 1."""
    freqs = _freqs(positions, integer_division_inv_freq(x.shape[-1]))
    return _applied(x, np.concatenate([freqs, freqs], axis=-1), rotate_half)


def constant(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Every pair turns at 1 (rotary-embedding-torch's ``freqs_for='constant'`` taken for text)."""
    freqs = _freqs(positions, constant_inv_freq(x.shape[-1]))
    return _applied(x, np.concatenate([freqs, freqs], axis=-1), rotate_half)


def bfloat16_cache(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The cos/sin cache cast to bfloat16 (a model's buffers cast with it), applied to float64 vectors."""
    freqs = _freqs(positions, _inv_freq(x.shape[-1]))
    return _applied(x, np.concatenate([freqs, freqs], axis=-1), rotate_half, ml_dtypes.bfloat16)


def bfloat16_inv_freq(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """``inv_freq`` held in bfloat16 (transformers #29285), the angles then computed in float64."""
    inv_freq = _inv_freq(x.shape[-1]).astype(ml_dtypes.bfloat16)
    freqs = _freqs(positions, inv_freq)
    return _applied(x, np.concatenate([freqs, freqs], axis=-1), rotate_half)


class KeptDynamicNTK:
    """Dynamic NTK scaling that grows its base for a call longer than `original` positions and keeps the
    grown frequencies for every later call (the released code resets them for a short call)."""

    def __init__(self, d: int, base: float = 10000.0, factor: float = 2.0, original: int = 2048) -> None:
        self.d, self.base, self.factor, self.original = d, base, factor, original
        self.inv_freq = _inv_freq(d, base)

    def __call__(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        length = int(positions.max()) + 1
        if length > self.original:
            ratio = self.factor * length / self.original - (self.factor - 1)
            grown = ratio ** (self.d / max(self.d - 2, 1))
            self.inv_freq = _inv_freq(self.d, self.base * grown)
        freqs = _freqs(positions, self.inv_freq)
        return _applied(x, np.concatenate([freqs, freqs], axis=-1), rotate_half)


def make_kept_dynamic_ntk(d: int) -> KeptDynamicNTK:
    """A factory, one module per head size, as a model builds it."""
    return KeptDynamicNTK(d)


class ResetDynamicNTK(KeptDynamicNTK):
    """Dynamic NTK that starts every call from its own frequencies: the frequencies follow each call's
    farthest position (length-dependent) and nothing is kept between calls (stateless)."""

    def __call__(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        self.inv_freq = _inv_freq(self.d, self.base)
        return super().__call__(x, positions)


def make_reset_dynamic_ntk(d: int) -> ResetDynamicNTK:
    """A factory, one module per head size."""
    return ResetDynamicNTK(d)
