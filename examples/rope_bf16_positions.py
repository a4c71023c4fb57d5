"""A RoPE with the bug of gpt-neox #1016: positions pass through bfloat16 before the angles are taken, so
every position from 256 on is rounded (256 and 257 rotate alike). Try:

    pe-verify check examples/rope_bf16_positions.py:rotate --family rope
"""

import ml_dtypes
import numpy as np


def rotate(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    d = x.shape[-1]
    inv_freq = 1.0 / 10000 ** (np.arange(0, d, 2) / d)
    angles = positions.astype(ml_dtypes.bfloat16).astype(np.float64)[:, None] * inv_freq
    emb = np.concatenate([angles, angles], axis=-1)
    half = d // 2
    rotated_half = np.concatenate([-x[:, half:], x[:, :half]], axis=-1)
    return x * np.cos(emb) + rotated_half * np.sin(emb)
