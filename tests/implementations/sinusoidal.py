"""The `sinusoidal` family as code writes it, correct and with shipped bugs: inputs of its tests in
properties/ and of the registry test."""

from __future__ import annotations

import math

import numpy as np

TABLE = 1024  # rows of the clamped table


def vaswani(positions: np.ndarray, d: int) -> np.ndarray:
    """attention-is-all-you-need-pytorch (fixed) / Hugging Face DistilBERT: pos / 10000^(2·(j // 2)/d)."""
    angle = positions[:, None] / np.power(10000, 2 * (np.arange(d) // 2) / d)
    pe = np.empty_like(angle)
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle[:, 0::2]), np.cos(angle[:, 1::2])
    return pe


def tensor2tensor(positions: np.ndarray, channels: int) -> np.ndarray:
    """tensor2tensor get_timing_signal_1d: log-spaced timescales over channels // 2 − 1 steps, [sin | cos]."""
    num_timescales = channels // 2
    increment = math.log(10000.0) / max(num_timescales - 1, 1)
    scaled_time = positions[:, None] * np.exp(np.arange(num_timescales) * -increment)[None, :]
    signal = np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)
    return np.pad(signal, [[0, 0], [0, channels % 2]])


def fairseq(positions: np.ndarray, d: int, padding_idx: int = 1) -> np.ndarray:
    """fairseq SinusoidalPositionalEmbedding: make_positions counts tokens from padding_idx + 1."""
    half = d // 2
    frequencies = np.exp(np.arange(half) * -(math.log(10000) / (half - 1)))
    angles = (positions + padding_idx + 1)[:, None] * frequencies[None, :]
    table = np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    return np.pad(table, [[0, 0], [0, d % 2]])


def tutorial_float32(positions: np.ndarray, d: int) -> np.ndarray:
    """The PyTorch tutorial PositionalEncoding in float32: div_term = exp(arange(0, d, 2)·(−ln 10000 / d))."""
    position = positions.astype(np.float32)[:, None]
    div_term = np.exp(np.arange(0, d, 2, dtype=np.float32) * np.float32(-math.log(10000.0) / d))
    pe = np.zeros((len(positions), d), dtype=np.float32)
    pe[:, 0::2], pe[:, 1::2] = np.sin(position * div_term), np.cos(position * div_term[: d // 2])
    return pe


def by_dimension(positions: np.ndarray, d: int) -> np.ndarray:
    """attention-is-all-you-need-pytorch before issue #32: pos / 10000^(2j/d) of the dimension index j."""
    angle = positions[:, None] / np.power(10000, 2 * np.arange(d) / d)
    pe = np.empty_like(angle)
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle[:, 0::2]), np.cos(angle[:, 1::2])
    return pe


def float16_positions(positions: np.ndarray, d: int) -> np.ndarray:
    """The position vector held in half precision before the angles (mixed-precision code); beyond 65504
    the positions become inf and the rows NaN, silently (as in torch)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return vaswani(positions.astype(np.float16).astype(np.float64), d)


def clamped(positions: np.ndarray, d: int) -> np.ndarray:
    """A table of TABLE rows, positions beyond it clamped to the last row."""
    return vaswani(np.minimum(positions, TABLE - 1), d)


def fairseq_table(positions: np.ndarray, d: int) -> np.ndarray:
    """fairseq's table indexed by the raw position: the padding row (1) is zero."""
    table = fairseq(positions - 2, d)
    table[positions == 1] = 0.0
    return table


_NOISE = np.random.default_rng(1)


def noisy(positions: np.ndarray, d: int) -> np.ndarray:
    return vaswani(positions, d) + 1e-9 * _NOISE.standard_normal((len(positions), d))


def unpadded(positions: np.ndarray, d: int) -> np.ndarray:
    """tensor2tensor without its padding: 2·(d // 2) columns, one short at odd d."""
    return tensor2tensor(positions, d)[:, : 2 * (d // 2)]
