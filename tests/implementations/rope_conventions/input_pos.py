"""The torchtune convention (modules/position_embeddings.py: RotaryPositionalEmbeddings): a module built from
a head size, module(x, input_pos=None) on [batch, seq, heads, d], interleaved pairs. `RotaryEmbedding` is
correct; `IgnoresInputPos` rotates row j to position j whatever input_pos says."""

from __future__ import annotations

import torch


class RotaryEmbedding(torch.nn.Module):
    def __init__(self, dim: int, max_seq_len: int = 4096, base: float = 10000.0) -> None:
        super().__init__()
        self.theta = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.max_seq_len = max_seq_len

    def angles(self, x: torch.Tensor, input_pos: torch.Tensor | None) -> torch.Tensor:
        positions = torch.arange(x.shape[1])[None] if input_pos is None else input_pos
        return positions[..., None].float() * self.theta  # [b, s, d/2]

    def forward(self, x: torch.Tensor, *, input_pos: torch.Tensor | None = None) -> torch.Tensor:
        angles = self.angles(x, input_pos)[:, :, None]
        pairs = x.float().reshape(*x.shape[:-1], -1, 2)
        cos, sin = angles.cos(), angles.sin()
        out = torch.stack(
            (pairs[..., 0] * cos - pairs[..., 1] * sin, pairs[..., 1] * cos + pairs[..., 0] * sin), dim=-1
        )
        return out.flatten(3).type_as(x)


class IgnoresInputPos(RotaryEmbedding):
    def angles(self, x: torch.Tensor, input_pos: torch.Tensor | None) -> torch.Tensor:
        return super().angles(x, None)


def make(d: int) -> RotaryEmbedding:
    """A factory: one module per head size."""
    return RotaryEmbedding(d, max_seq_len=65536)


class PositionsInInputDtype(RotaryEmbedding):
    """Positions built in the input's dtype (rotary-embedding-torch's get_seq_pos, gpt-neox #1016): in
    bfloat16, positions 256 and 257 are one number."""

    def angles(self, x: torch.Tensor, input_pos: torch.Tensor | None) -> torch.Tensor:
        positions = torch.arange(x.shape[1])[None] if input_pos is None else input_pos
        return positions.to(x.dtype).float()[..., None] * self.theta
