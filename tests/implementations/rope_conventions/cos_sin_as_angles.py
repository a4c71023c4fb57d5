"""cos and sin treated as angles (NVIDIA/Megatron-LM #7465): the apply function takes the cos and sin it is
given for angles and takes their cosine and sine again, so position 0 is no longer the identity."""

from __future__ import annotations

import torch


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(
    q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, unsqueeze_dim: int = 1
) -> tuple[torch.Tensor, torch.Tensor]:
    cos, sin = cos.unsqueeze(unsqueeze_dim).cos(), sin.unsqueeze(unsqueeze_dim).sin()
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
