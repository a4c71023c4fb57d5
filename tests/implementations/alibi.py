"""The `alibi` family as code writes it, correct and with shipped bugs: inputs of its tests in
properties/ and of the registry test."""

from __future__ import annotations

import math

import numpy as np

from pe_verify.properties.encodings.alibi import alibi_bias, alibi_slopes


def fairseq_get_slopes(n: int) -> list[float]:
    """ofirpress/attention_with_linear_biases, fairseq/models/transformer.py: ``get_slopes``."""

    def get_slopes_power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + fairseq_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


def bloom_slopes(num_heads: int) -> np.ndarray:
    """HF BLOOM's ``build_alibi_tensor`` slopes (float32, ``closest_power_of_2`` and ``extra_base``)."""
    closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
    base = np.float32(2 ** (-(2 ** -(math.log2(closest_power_of_2) - 3))))
    powers = np.arange(1, 1 + closest_power_of_2, dtype=np.float32)
    slopes = np.power(base, powers)
    if closest_power_of_2 != num_heads:
        extra_base = np.float32(2 ** (-(2 ** -(math.log2(2 * closest_power_of_2) - 3))))
        num_remaining_heads = min(closest_power_of_2, num_heads - closest_power_of_2)
        extra_powers = np.arange(1, 1 + 2 * num_remaining_heads, 2, dtype=np.float32)
        slopes = np.concatenate([slopes, np.power(extra_base, extra_powers)])
    return slopes


def bloom_raw(num_heads: int, seq_len: int) -> np.ndarray:
    """``build_alibi_tensor`` with an all-ones attention mask: shape (heads, 1, seq_len), m·j."""
    arange_tensor = np.arange(seq_len, dtype=np.float32)[None, None, :]  # (mask.cumsum − 1) · mask
    return bloom_slopes(num_heads)[:, None, None] * arange_tensor


def bloom_bias(num_heads: int, seq_len: int) -> np.ndarray:
    """BLOOM's alibi broadcast to every query row, the shape the contract asks for (no mask: BLOOM adds it
    separately)."""
    return np.broadcast_to(bloom_raw(num_heads, seq_len), (num_heads, seq_len, seq_len))


def mpt_gen_slopes(n_heads: int, alibi_bias_max: int = 8) -> np.ndarray:
    """MPT (llm-foundry) ``gen_slopes`` in float32, flattened from its (1, n, 1, 1) view."""
    _n_heads = 2 ** math.ceil(math.log2(n_heads))
    m = np.arange(1, _n_heads + 1, dtype=np.float32) * np.float32(alibi_bias_max / _n_heads)
    slopes = np.float32(1.0) / np.power(np.float32(2), m)
    if _n_heads != n_heads:
        slopes = np.concatenate([slopes[1::2], slopes[::2]])[:n_heads]
    return slopes


def paper_bias(n_heads: int, seq_len: int) -> np.ndarray:
    """The paper's −m(i − j) with a causal −inf mask (`alibi_bias`)."""
    return alibi_bias(seq_len, seq_len, alibi_slopes(n_heads))


def bloom_raw_batched(num_heads: int, seq_len: int) -> np.ndarray:
    """BLOOM's row with a leading batch axis of one: (1, heads, 1, seq_len)."""
    return bloom_raw(num_heads, seq_len)[None]


def bfloat16_positions(num_heads: int, seq_len: int) -> np.ndarray:
    """BLOOM's row with the positions held in bfloat16: keys 256 and 257 get the same bias, returned in
    float32."""
    import ml_dtypes

    positions = np.arange(seq_len, dtype=np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)
    return (bloom_slopes(num_heads)[:, None] * positions[None, :])[:, None, :]


BUFFER = 16


def buffered_bias(n_heads: int, seq_len: int) -> np.ndarray:
    """The paper's bias cut from a buffer built for `BUFFER` positions: the wrong shape beyond them."""
    return paper_bias(n_heads, BUFFER)[:, :seq_len, :seq_len]


def powers_of_two_only(n_heads: int) -> list[float]:
    """fairseq's slopes, refusing a head count that is not a power of two."""
    if n_heads & (n_heads - 1):
        raise ValueError(f"n_heads = {n_heads} is not a power of two")
    return fairseq_get_slopes(n_heads)
