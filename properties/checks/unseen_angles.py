"""Angles never seen in training: a frequency pair θ_i = base^(−2i/d) with (L − 1)·θ_i < 2π does not complete
a turn over the positions (or offsets) 0, …, L − 1, so every larger one rotates it to an angle it never took.

A relation that holds for every position or offset (the sinusoidal offset matrix, RoPE's offset-only score)
therefore does not by itself carry what was learned below L to inputs past L.
"""

from __future__ import annotations

import mpmath

from ..encodings.frequencies import frequency_mp
from ..numerics.validation import require_positive_int


def unrotated_pairs(d: int, trained_length: int, base: int = 10000, dps: int = 30) -> list[int]:
    """The pair indices i < d/2 with (L − 1)·base^(−2i/d) < 2π, L = trained_length, decided with mpmath at
    `dps` digits."""
    d = require_positive_int(d, "d")
    trained_length = require_positive_int(trained_length, "trained_length")
    with mpmath.workdps(dps):
        turn = 2 * mpmath.pi
        return [i for i in range(d // 2) if (trained_length - 1) * frequency_mp(i, d, base) < turn]
