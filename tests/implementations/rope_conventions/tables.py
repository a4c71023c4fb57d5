"""Precomputed RoPE tables, as real code keeps them at d = 16 over 512 positions: Meta's complex freqs_cis
(meta-llama/llama, llama/model.py: precompute_freqs_cis), a (cos, sin) cache [L, d] of cat(freqs, freqs)
(the cos_cached and sin_cached buffers of transformers-style rotary classes), a cat(cos, sin) cache [L, d]
of cos then sin per pair, torchtune's cos and sin stacked [L, d/2, 2] (RotaryPositionalEmbeddings.cache) and
a bfloat16 (cos, sin) cache; correct. Broken: positions held in bfloat16 (transformers #29285) and
``torch.polar`` with its arguments swapped."""

from __future__ import annotations

import torch

from .meta import precompute_freqs_cis

D, LENGTH = 16, 512
INV_FREQ = 1.0 / (10000.0 ** (torch.arange(0, D, 2).float() / D))
ANGLES = torch.outer(torch.arange(LENGTH).float(), INV_FREQ)
EMB = torch.cat((ANGLES, ANGLES), dim=-1)

FREQS_CIS = precompute_freqs_cis(D, LENGTH)
COS_SIN = (EMB.cos(), EMB.sin())
COS_SIN_CACHE = torch.cat((ANGLES.cos(), ANGLES.sin()), dim=-1)
STACKED = torch.stack((ANGLES.cos(), ANGLES.sin()), dim=-1)
BFLOAT16 = (EMB.cos().bfloat16(), EMB.sin().bfloat16())

_HELD = torch.outer(torch.arange(LENGTH, dtype=torch.bfloat16).float(), INV_FREQ)
#: The positions made in bfloat16 (``torch.arange(L, dtype=x.dtype)``): 257 becomes 256, and so on.
BFLOAT16_POSITIONS = (torch.cat((_HELD, _HELD), -1).cos(), torch.cat((_HELD, _HELD), -1).sin())
#: ``torch.polar(freqs, torch.ones_like(freqs))``: the angles taken for lengths, every angle 1 rad.
POLAR_SWAPPED = torch.polar(ANGLES, torch.ones_like(ANGLES))
