"""A causal mask alone carries position: identical tokens get different attention outputs by where they stand.

With uniform weights (W_Q = 0) unmasked attention gives every token the same average of all values, so the
copies of a repeated token are indistinguishable; under a causal mask row a averages the first a + 1 tokens,
so the copies t at positions 1, 2, … get different outputs that spell out their positions. Computed in exact
rational arithmetic with the attention of `proofs.attention` (SymPy matrices).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from pe_verify.proofs.attention import Softmax, attention, causal_row_softmax, row_softmax

from ..numerics.validation import require_positive_int

Row = tuple[sp.Expr, ...]


@dataclass(frozen=True)
class MaskReadout:
    """Attention outputs of the copies of t in the tokens b, t, t, …, t: unmasked and under the given mask."""

    unmasked: tuple[Row, ...]
    masked: tuple[Row, ...]

    @property
    def reads_positions(self) -> bool:
        """The masked outputs of the copies are all different while the unmasked ones are all the same."""
        return len(set(self.masked)) == len(self.masked) and len(set(self.unmasked)) == 1


def causal_readout(copies: int = 3, masked: Softmax = causal_row_softmax) -> MaskReadout:
    """One head with W_Q = 0 (uniform weights), W_K = W_V = I on the tokens b = (1, 0), then `copies` times
    t = (0, 1), without PE: the output rows of the copies with a plain softmax and with `masked`."""
    copies = require_positive_int(copies, "copies")
    x = sp.Matrix([[1, 0]] + [[0, 1]] * copies)
    no_query, identity_map = sp.zeros(2, 2), sp.eye(2)
    unmasked = attention(x, no_query, identity_map, identity_map, row_softmax)
    under_mask = attention(x, no_query, identity_map, identity_map, masked)
    rows = range(1, copies + 1)
    return MaskReadout(
        tuple(tuple(unmasked.row(a)) for a in rows), tuple(tuple(under_mask.row(a)) for a in rows)
    )
