"""What position information costs in arithmetic, counted exactly: RoPE's rotation against adding a vector.

With the tables cos(mθ_i), sin(mθ_i) precomputed, RoPE turns each coordinate of q and of k into x·c ± y·s in
every layer: 3 operations per coordinate, linear in d. An additive encoding adds one number per coordinate of
the input, once. Operations are SymPy's `count_ops` of the exact form `Rope.rotate_exact`, so a broken twin
(a `Rope` subclass overriding `rotate_exact`) is counted as it computes. The Transformer's own dense layers
and attention products are set beside them as 2(12·d² + 2·n·d) operations per token and layer.
"""

from __future__ import annotations

import sympy as sp

from pe_verify.proofs.rope import thetas, vector

from ..encodings.rope import Rope
from ..numerics.validation import require_positive_int


def rotation_operations(rope: Rope) -> int:
    """Arithmetic operations (SymPy's count) to rotate one d-vector by `rope.rotate_exact`, with cos(mθ_i),
    sin(mθ_i) precomputed."""
    position = sp.Symbol("m", real=True)
    frequencies = thetas(rope.rotary_dim)
    tables = {}
    for i, theta in enumerate(frequencies):
        tables[sp.cos(position * theta)] = sp.Symbol(f"c_{i}")
        tables[sp.sin(position * theta)] = sp.Symbol(f"s_{i}")
    rotated = rope.rotate_exact(vector("x", rope.d), position, frequencies).subs(tables)
    return sum(sp.count_ops(entry) for entry in rotated)


def addition_operations(d: int) -> int:
    """Arithmetic operations (SymPy's count) to add a position vector to one d-vector."""
    d = require_positive_int(d, "d")
    return sum(sp.count_ops(entry) for entry in vector("x", d) + vector("p", d))


def dense_operations(width: int, layers: int, context: int) -> int:
    """Operations per token of a Transformer's dense layers and attention products, 2 per multiply–add: per
    layer 4d² (projections q, k, v, output) + 8d² (the 4d-wide MLP) + 2·n·d (scores and weighted sum)."""
    width, layers = require_positive_int(width, "width"), require_positive_int(layers, "layers")
    context = require_positive_int(context, "context")
    return 2 * (12 * width**2 + 2 * context * width) * layers
